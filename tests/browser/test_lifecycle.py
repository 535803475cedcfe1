"""A game's life in the browser (issue 47): a loss on time reads "time", no clock runs
before every side has moved, a first move that never comes aborts the game, rematch is an
offer the other side answers, a declined offer is told to its maker, the result box and
the lobby give the result with its score, and the lobby drops aborted games.

Clocks are short (a second) and every wait is Playwright's own: a flag or an abort is
waited for, never timed, so a loaded machine makes the tests slower, not red."""
from __future__ import annotations

import os
import random
import signal
import subprocess
import sys

import pytest

from harness import Server, play_to_end, read_url, resign

ONE_SECOND = {"base": 1, "increment": 0}
ONE_MINUTE = {"base": 60, "increment": 0}


@pytest.fixture(scope="module")
def quick_server(tmp_path_factory):
    """A second `boardlab serve` whose games abort when a first move does not come within
    a second (--first-move-limit 1)."""
    folder = tmp_path_factory.mktemp("quick")
    process = subprocess.Popen(
        [sys.executable, "-m", "boardlab.cli", "serve", "--host", "127.0.0.1", "--port", "0",
         "--db", str(folder / "games.db"), "--first-move-limit", "1"],
        cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        start_new_session=True)
    try:
        yield Server(process, read_url(process))
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def first_move(client) -> None:
    """The page's seat plays its first legal move (sorted) by clicking."""
    client.play(sorted(client.view()["legal"])[0])


def two_people(server, open_page, clock=None, spec="carteso(size=5)", seed=11):
    game = server.create(spec, ["human", "human"], seed=seed, clock=clock)
    return game, [open_page(seat["page"], seat["name"]) for seat in game["seats"]]


def text(client, selector: str) -> str:
    return client.page.locator(selector).inner_text()


# 1. A loss on time --------------------------------------------------------------------------
def test_a_loss_on_time_reads_time_in_the_status_the_moves_and_the_record(server, open_page):
    game, (vertical, horizontal) = two_people(server, open_page, ONE_SECOND)
    first_move(vertical)
    horizontal.wait_version(1)
    first_move(horizontal)                   # every side has moved: vertical's second runs
    vertical.page.locator("#result").wait_for(state="visible")
    assert vertical.page.locator("#result").get_attribute("data-reason") == "time"
    status = text(vertical, "#status")
    assert "lost on time" in status and "resign" not in status, status
    assert "resign" not in text(vertical, "#lines") and "lost on time" in text(vertical,
                                                                               "#lines")
    assert vertical.page.locator("#moves li[data-index]").last.inner_text() == "time"
    record = server.record(game["id"])
    assert record["moves"][-1] == "time" and record["meta"]["forfeit"]["kind"] == "time"


# 2. The opening: the clock waits; an abort ------------------------------------------------
def test_no_clock_runs_before_every_side_has_moved(server, open_page):
    game = server.create("carteso(size=5)", ["human", "human"], seed=12, clock=ONE_MINUTE)
    vertical = open_page(game["seats"][0]["page"], "vertical")
    clock = vertical.page.locator('#players [data-clock="vertical"]')
    assert clock.inner_text() == "1:00"            # not counting since the game was made
    sync = next(m for m in vertical.messages() if m["type"] == "sync")
    assert sync["elapsed"] == {}
    first_move(vertical)
    horizontal = open_page(game["seats"][1]["page"], "horizontal")
    assert horizontal.page.locator('#players [data-clock="horizontal"]').inner_text() == "1:00"
    first_move(horizontal)
    # now vertical's clock runs: it leaves 1:00 on its own
    vertical.page.wait_for_function(
        "() => document.querySelector('#players [data-clock=\"vertical\"]').textContent"
        " !== '1:00'")


def test_a_first_move_that_never_comes_aborts_the_game_and_the_lobby_drops_it(
        quick_server, open_page):
    game, (vertical, horizontal) = two_people(quick_server, open_page, ONE_MINUTE)
    vertical.page.locator('#result[data-reason="aborted"]').wait_for()
    assert vertical.page.locator("#result").get_attribute("data-winners") == ""
    assert text(vertical, "#status").startswith("Aborted")
    assert text(horizontal, "#result-text").startswith("Aborted")
    assert quick_server.game(game["id"])["status"] == "aborted"
    record = quick_server.record(game["id"])
    assert record["result"] is None and record["meta"]["aborted"] is True

    lobby = open_page(quick_server.url + "/", "lobby", game_page=False)
    lobby.page.wait_for_function(
        "() => performance.getEntriesByName('boardlab:lobby-ready').length > 0")
    assert lobby.page.locator(f'#games li[data-game="{game["id"]}"]').count() == 0


# 3. Rematch is an offer -----------------------------------------------------------------------
def finished_game(server, open_page, seed):
    """Two people's pages of a game that vertical resigned."""
    game, (vertical, horizontal) = two_people(server, open_page, seed=seed)
    resign(vertical.page)
    for client in (vertical, horizontal):
        client.page.locator("#result").wait_for(state="visible")
    return game, vertical, horizontal


def test_a_rematch_is_offered_declined_withdrawn_and_accepted(server, open_page):
    game, vertical, horizontal = finished_game(server, open_page, 21)
    old = vertical.page.url
    vertical.page.locator("#rematch").click()
    horizontal.page.locator("#accept-rematch").wait_for(state="visible")
    vertical.page.locator("#withdraw-rematch").wait_for(state="visible")
    assert vertical.page.url == old and server.game(game["id"])["rematch"] is None
    assert horizontal.page.locator("#rematch").is_hidden()

    horizontal.page.locator("#decline-rematch").click()
    vertical.page.locator("#message", has_text="horizontal declined your rematch offer") \
        .wait_for()
    vertical.page.locator("#rematch").wait_for(state="visible")

    vertical.page.locator("#rematch").click()
    horizontal.page.locator("#accept-rematch").wait_for(state="visible")
    vertical.page.locator("#withdraw-rematch").click()
    horizontal.page.locator("#accept-rematch").wait_for(state="hidden")
    horizontal.page.locator("#rematch").wait_for(state="visible")

    horizontal.page.locator("#rematch").click()
    vertical.page.locator("#accept-rematch").click()
    for client in (vertical, horizontal):
        client.page.wait_for_url(lambda url: "/game/" in url and url.split("#")[0] !=
                                 old.split("#")[0])
        client.wait_ready()
    assert vertical.page.url.split("#")[0] == horizontal.page.url.split("#")[0]
    assert vertical.page.evaluate("() => window.boardlab.seat") == 1     # seats swapped
    assert horizontal.page.evaluate("() => window.boardlab.seat") == 0
    new = vertical.page.url.split("/game/")[1].split("#")[0]
    assert server.game(game["id"])["rematch"] == new


def test_a_rematch_offer_is_withdrawn_when_its_maker_leaves(server, open_page):
    _, vertical, horizontal = finished_game(server, open_page, 22)
    vertical.page.locator("#rematch").click()
    horizontal.page.locator("#accept-rematch").wait_for(state="visible")
    vertical.close()
    horizontal.page.locator("#accept-rematch").wait_for(state="hidden")
    horizontal.page.locator("#message", has_text="withdrew the rematch offer").wait_for()
    horizontal.page.locator("#rematch").wait_for(state="visible")


# 13. A declined draw is told to its maker ---------------------------------------------------
def test_a_declined_draw_offer_is_told_to_its_maker(server, open_page):
    _, (vertical, horizontal) = two_people(server, open_page, seed=23)
    vertical.page.locator("#offer-draw").click()
    horizontal.page.locator("#decline-draw").click()
    vertical.page.locator("#message", has_text="horizontal declined your draw offer") \
        .wait_for()


# 8. and 14. The result with its score, on the page and in the lobby ----------------------
def test_the_result_box_and_the_lobby_give_the_score_and_the_winner(server, open_page):
    game, players = two_people(server, open_page, spec="carteso(size=3)", seed=5)
    play_to_end(players, random.Random(3))
    result = server.game(game["id"])["view"]["result"]
    assert result["reason"] == "the rules" and result["scores"]
    words = result["summary"]
    assert "–" in words and "the rules" not in words, words
    for client in players:
        client.page.locator("#result").wait_for(state="visible")
        assert text(client, "#result-text") == words
        assert text(client, "#status") == words

    lobby = open_page(server.url + "/", "lobby", game_page=False)
    shown = lobby.page.locator(f'#games li[data-game="{game["id"]}"] .game-result')
    shown.wait_for()
    assert shown.inner_text() == words
    assert shown.get_attribute("data-winners") == ",".join(result["winners"])
