"""Accessibility: axe-core (tests/browser/node_modules, installed by scripts/setup-env.sh)
finds no serious or critical violation on the lobby and on a seat's page of each game,
mid-game and at the end."""
import random
from pathlib import Path

import pytest

from harness import play_to_end
from secret_specs import CARTAGENA, SEED

AXE = Path(__file__).parent / "node_modules" / "axe-core" / "axe.min.js"
GAMES = ["carteso(size=5)", "rumbo(size=5)", CARTAGENA, "ctor(size=8,max_turns=4)"]


def violations(page) -> list[str]:
    """axe's serious and critical violations on the page, in words."""
    if not AXE.exists():
        pytest.skip(f"{AXE} is missing: scripts/setup-env.sh '[test]' installs axe-core "
                    "(it needs npm)")
    page.evaluate(AXE.read_text())
    found = page.evaluate("async () => (await axe.run(document)).violations"
                          ".filter(v => v.impact === 'serious' || v.impact === 'critical')"
                          ".map(v => `${v.impact} ${v.id}: ${v.help} — ` +"
                          " v.nodes.map(n => n.target.join(' ') + ' (' +"
                          " (n.any[0] || n.all[0] || {message: ''}).message + ')').join('; '))")
    return found


def test_the_lobby_has_no_serious_accessibility_violation(server, open_page):
    lobby = open_page(server.url + "/", "lobby", game_page=False)
    lobby.page.locator("#game-picker button[data-game]").first.wait_for()
    assert violations(lobby.page) == []


@pytest.mark.parametrize("spec", GAMES)
def test_a_game_page_has_no_serious_accessibility_violation(server, open_page, spec):
    seats = len(server.http.get("/api/facts", params={"spec": spec}).json()["seats"])
    game = server.create(spec, ["human"] * seats, seed=SEED)
    players = [open_page(seat["page"], seat["name"]) for seat in game["seats"]]
    assert violations(players[0].page) == []                  # at the start
    play_to_end(players, random.Random(2))
    players[0].page.locator("#result").wait_for(state="visible")
    assert violations(players[0].page) == []                  # at the end
