"""The game page's own behaviour (docs/web-app.md): resigning takes a second click, a
refused click says why in the game's own words (asked from the server, never the page's
guess), messages show under the board where they cover nothing and fade, the move list
is grouped by turn with who played it, and the arrow keys step through the moves."""
import random

import pytest

from harness import SCREENSHOTS
from secret_specs import SEED

TWO = ["human", "human"]


def mover(clients):
    """The client whose seat has legal moves now (once every page has the same version)."""
    version = max(client.version() for client in clients)
    for client in clients:
        client.wait_version(version)
    return next(client for client in clients if client.view()["legal"])


def message(page) -> str:
    """The message line's text once it says something."""
    page.wait_for_function("() => document.querySelector('#message').textContent.trim()")
    return page.locator("#message").text_content()


def overlaps(a: dict, b: dict) -> bool:
    return not (a["x"] + a["width"] <= b["x"] or b["x"] + b["width"] <= a["x"] or
                a["y"] + a["height"] <= b["y"] or b["y"] + b["height"] <= a["y"])


# Resigning -----------------------------------------------------------------------------------
def test_resign_takes_a_second_click_on_the_same_button(server, open_page):
    game = server.create("carteso(size=5)", TWO, seed=SEED)
    clients = [open_page(seat["page"], seat["name"]) for seat in game["seats"]]
    first = mover(clients)
    page, resign = first.page, first.page.locator("#resign")
    text = resign.text_content()
    resign.click()                                  # armed: it says so, nothing is sent
    assert resign.get_attribute("data-armed") == "true"
    assert resign.text_content() != text
    page.locator("#status").click()                 # a click elsewhere disarms it
    assert resign.get_attribute("data-armed") is None
    assert resign.text_content() == text
    first.play(sorted(first.view()["legal"])[0])    # the game runs on: no resignation went
    second = mover(clients)
    second.page.locator("#resign").click()
    second.page.wait_for_function("() => !document.querySelector('#resign').dataset.armed")
    assert not second.view()["terminal"]            # disarmed by itself after a while
    second.page.locator("#resign").click()
    second.page.locator("#resign").click()          # the second click resigns
    second.page.locator("#result").wait_for(state="visible")
    assert second.view()["terminal"]
    assert second.page.locator("#result").get_attribute("data-winners") == \
        first.page.evaluate("() => window.boardlab.view.seats[window.boardlab.seat]")


# Why a click is refused ----------------------------------------------------------------------
def test_cartagena_says_why_a_pirate_on_the_start_cannot_move(server, open_page):
    game = server.create("cartagena(hand_size=0)", TWO, seed=SEED)   # no cards to play
    clients = [open_page(seat["page"], seat["name"]) for seat in game["seats"]]
    player = mover(clients)
    assert player.view()["legal"] == ["pass"]
    player.page.locator('#board [data-pick-kind="token"][data-pick="0"]').first.click()
    said = message(player.page)
    assert "start cannot move back" in said and "pass" in said


def test_ctor_says_what_was_wrong_with_this_click(server, open_page):
    game = server.create("ctor(size=8)", TWO, seed=SEED)
    clients = [open_page(seat["page"], seat["name"]) for seat in game["seats"]]
    first = mover(clients)
    first.play("put 1")
    second = mover(clients)
    assert second is not first
    second.page.locator('#board [data-cell="1"]').click()       # an occupied square
    said = message(second.page)
    assert "square 1 is occupied" in said
    assert "secret" not in said and "move" not in said           # no list of every kind


# Where messages show ----------------------------------------------------------------------
@pytest.mark.parametrize("spec, targets", [
    ("carteso(size=5)", "#board .palette-piece"),               # the colour buttons
    ("ctor(size=8)", '#board [data-cell="1"], #board [data-cell="4"], #board [data-cell="8"]'),
])
def test_a_message_covers_nothing_and_fades(server, open_page, spec, targets):
    game = server.create(spec, TWO, seed=SEED)
    clients = [open_page(seat["page"], seat["name"]) for seat in game["seats"]]
    waiting = next(client for client in clients if not client.view()["legal"])
    page = waiting.page
    page.locator('#board [data-cell]').first.click()             # not this seat's turn
    assert message(page)
    shown = page.locator("#message").bounding_box()
    for target in page.locator(f"{targets}, #board svg.grid-svg").all():
        assert not overlaps(shown, target.bounding_box())
    for target in page.locator(targets).all():                  # each still takes clicks
        box = target.bounding_box()
        hit = page.evaluate("([x, y, selector]) => { const node = "
                            "document.elementFromPoint(x, y); return Boolean(node && "
                            "node.closest(selector)); }",
                            [box["x"] + box["width"] / 2, box["y"] + box["height"] / 2,
                             targets])
        assert hit
    page.wait_for_function("() => !document.querySelector('#message').textContent")


# The move list ---------------------------------------------------------------------------
@pytest.mark.parametrize("spec, moves", [("ctor(size=8)", 14),
                                         ("cartagena(actions_per_turn=3)", 10)])
def test_the_move_list_has_one_row_per_turn_with_who_played_it(server, open_page, spec,
                                                             moves):
    game = server.create(spec, TWO, seed=SEED)
    clients = [open_page(seat["page"], seat["name"]) for seat in game["seats"]]
    rng, played = random.Random(5), []
    for _ in range(moves):
        player = mover(clients)
        name = player.page.evaluate("() => window.boardlab.view.seats[window.boardlab.seat]")
        player.play(rng.choice(sorted(player.view()["legal"])))
        played.append(name)
    runs = []                                   # (seat name, moves) per turn
    for name in played:
        if runs and runs[-1][0] == name:
            runs[-1] = (name, runs[-1][1] + 1)
        else:
            runs.append((name, 1))
    page = clients[0].page
    clients[0].wait_version(moves)
    rows = page.locator("#moves li.turn")
    assert rows.count() == len(runs) < moves
    assert rows.locator(".who-name").all_text_contents() == [name for name, _ in runs]
    assert [rows.nth(i).locator("li[data-index]").count() for i in range(len(runs))] == \
        [count for _, count in runs]
    assert page.locator("#moves li[data-index]").count() == moves
    page.locator('#moves li[data-index="2"]').click()           # shows that position
    page.locator("#looking").wait_for(state="visible")
    page.wait_for_function("() => window.boardlab.view.history.length === 3")


# Keys ------------------------------------------------------------------------------------------
def test_arrow_keys_home_and_end_step_through_the_moves(server, open_page):
    game = server.create("carteso(size=5)", TWO, seed=SEED)
    clients = [open_page(seat["page"], seat["name"]) for seat in game["seats"]]
    rng = random.Random(3)
    for _ in range(4):
        player = mover(clients)
        player.play(rng.choice(sorted(m for m in player.view()["legal"] if m != "button")))
    page = clients[0].page
    clients[0].wait_version(4)

    def shown(length):
        page.wait_for_function("n => window.boardlab.view.history.length === n", arg=length)

    page.locator("#status").click()                             # the page, not an input
    page.keyboard.press("ArrowLeft")
    shown(3)
    assert page.locator("#looking").is_visible()
    page.keyboard.press("ArrowLeft")
    shown(2)
    page.keyboard.press("Home")
    shown(0)
    page.keyboard.press("ArrowRight")
    shown(1)
    page.keyboard.press("End")
    page.locator("#looking").wait_for(state="hidden")
    shown(4)
    page.locator("#chat-input").focus()                         # typing: the keys are text
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("Home")
    page.locator("#status").click()
    assert page.locator("#looking").is_hidden()
    assert page.evaluate("() => window.boardlab.view.history.length") == 4


# Sounds and the tab ---------------------------------------------------------------------------
def played(client) -> list[str]:
    return client.page.evaluate("() => [...window.boardlab.sounds]")


def test_sounds_the_tab_and_the_mute_switch(server, open_page):
    game = server.create("carteso(size=5)", TWO, seed=SEED)
    clients = [open_page(seat["page"], seat["name"]) for seat in game["seats"]]
    first = mover(clients)
    second = next(client for client in clients if client is not first)
    assert first.page.title().startswith("● your turn")
    assert not second.page.title().startswith("●")
    first.play(sorted(first.view()["legal"])[0])
    second.page.wait_for_function("() => window.boardlab.sounds.includes('turn')")
    first.page.wait_for_function("() => window.boardlab.sounds.includes('move')")
    second.page.wait_for_function("() => document.title.startsWith('● your turn')")
    assert not first.page.title().startswith("●")
    assert "2f6f73" in second.page.locator('link[rel="icon"]').get_attribute("href")
    sound = second.page.locator("#sound")
    assert sound.get_attribute("aria-pressed") == "true"
    sound.click()                                   # muted, and kept for this browser
    assert sound.get_attribute("aria-pressed") == "false"
    second.page.reload()
    second.wait_ready()
    assert second.page.locator("#sound").get_attribute("aria-pressed") == "false"
    second.play(sorted(second.view()["legal"])[0])
    first.page.wait_for_function("() => window.boardlab.sounds.includes('turn')")
    assert played(second) == []                     # muted: nothing played
    first.page.locator("#resign").click()
    first.page.locator("#resign").click()
    first.page.wait_for_function("() => window.boardlab.sounds.includes('end')")


def test_low_time_sounds_once(server, open_page):
    game = server.create("carteso(size=5)", TWO, seed=SEED, clock={"base": 20, "increment": 1})
    clients = [open_page(seat["page"], seat["name"]) for seat in game["seats"]]
    first = mover(clients)
    first.page.wait_for_function("() => window.boardlab.sounds.includes('low')")
    assert played(first).count("low") == 1


# Keyboard play ---------------------------------------------------------------------------------
def test_a_typed_move_completes_from_the_legal_moves(server, open_page):
    game = server.create("ctor(size=8)", TWO, seed=SEED)
    clients = [open_page(seat["page"], seat["name"]) for seat in game["seats"]]
    player = mover(clients)
    page = player.page
    legal = player.view()["legal"]
    assert page.locator("#move-input").get_attribute("list") == "legal-moves"
    options = page.locator("#legal-moves option").evaluate_all("o => o.map(x => x.value)")
    assert options == legal
    other = next(client for client in clients if client is not player)
    assert other.page.locator("#legal-moves option").count() == 0   # not its turn
    page.locator("#move-input").fill("put 7")
    page.locator("#move-input").press("Enter")
    player.wait_version(1)
    assert player.view()["history"] == ["put 7"]


def test_every_control_is_reached_by_tab_with_a_visible_focus(server, open_page):
    game = server.create("carteso(size=5)", TWO, seed=SEED)
    clients = [open_page(seat["page"], seat["name"]) for seat in game["seats"]]
    player = mover(clients)
    player.play("Ba1")
    player = mover(clients)
    page = player.page
    page.locator("#title").click()
    reached, unmarked = set(), []
    for _ in range(80):
        page.keyboard.press("Tab")
        focused = page.evaluate("""() => {
            const node = document.activeElement;
            if (!node || node === document.body) return null;
            const style = getComputedStyle(node);
            const svg = node instanceof SVGElement;
            return {id: node.id || node.dataset.pick || node.className.baseVal || node.tagName,
                    pick: Boolean(node.dataset && node.dataset.pickKind), svg,
                    marked: node.matches(':focus-visible') && (svg ||
                            (style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0))};
        }""")
        if focused is None:
            continue
        reached.add("pick" if focused["pick"] else focused["id"])
        if not focused["marked"]:
            unmarked.append(focused["id"])
    assert {"sound", "pick", "move-input", "replay-prev", "resign", "chat-input"} <= reached
    assert unmarked == []


# The board: score overlay, hover preview, last move -----------------------------------------
def test_the_score_overlay_shows_the_points_the_score_counts(server, open_page):
    game = server.create("rumbo(size=5)", TWO, seed=SEED)
    clients = [open_page(seat["page"], seat["name"]) for seat in game["seats"]]
    rng = random.Random(4)
    while not clients[0].view()["terminal"]:
        player = mover(clients)
        player.play(rng.choice(sorted(player.view()["legal"])))
        points = clients[0].view()["board"]["score"]["points"]
        if sum(len(cells) for cells in points.values()) >= 3:
            break
    page, points = clients[0].page, clients[0].view()["board"]["score"]["points"]
    assert "capture" in played(clients[0])          # the claims sounded as such
    toggle = page.locator("#score-overlay")
    assert page.locator("#score-overlay-label").is_visible()
    assert page.locator("#board .score-area").count() == 0
    toggle.check()
    shown = page.locator("#board .score-area").evaluate_all(
        "nodes => nodes.map(n => [n.dataset.score, n.dataset.scoreCell])")
    assert sorted(map(tuple, shown)) == sorted((side, cell) for side, cells in points.items()
                                               for cell in cells)
    clients[0].screenshot("rumbo-score")
    page.reload()                                   # kept per browser
    clients[0].wait_ready()
    assert page.locator("#score-overlay").is_checked()
    assert page.locator("#board .score-area").count() == len(shown)
    ctor = server.create("ctor(size=8)", TWO, seed=SEED)       # no score block: no toggle
    other = open_page(ctor["seats"][0]["page"], "ctor")
    assert other.page.locator("#score-overlay-label").is_hidden()


def test_the_stone_under_the_pointer_is_previewed(server, open_page):
    game = server.create("carteso(size=5)", TWO, seed=SEED)
    clients = [open_page(seat["page"], seat["name"]) for seat in game["seats"]]
    page = mover(clients).page
    page.locator('#board [data-cell="c3"]').hover()
    assert page.locator("#board .ghost").count() == 0       # no colour picked yet
    page.locator('#board .palette-piece[data-pick="W"]').click()
    page.locator('#board [data-cell="c3"]').hover()
    ghost = page.locator('#board .ghost[data-ghost="c3"]')
    ghost.wait_for()
    assert ghost.get_attribute("data-piece") == "W"
    page.locator("#status").hover()
    ghost.wait_for(state="detached")
    ctor = server.create("ctor(size=8)", TWO, seed=SEED)       # the seat's own chip
    player = mover([open_page(seat["page"], seat["name"]) for seat in ctor["seats"]])
    player.page.locator('#board [data-cell="12"]').hover()
    player.page.locator('#board .ghost[data-ghost="12"]').wait_for()


def test_the_last_move_is_marked_on_a_track(server, open_page):
    game = server.create("cartagena", TWO, seed=SEED)
    clients = [open_page(seat["page"], seat["name"]) for seat in game["seats"]]
    player = mover(clients)
    player.play(sorted(player.view()["legal"])[0])
    for client in clients:
        client.wait_version(1)
        frm, to = client.view()["board"]["last"]
        assert frm == 0 and to > 0
        page = client.page
        assert page.locator(f'#board [data-cell="{to}"] [data-mark="last-to"]').count() == 1
        assert page.locator(f'#board [data-cell="{frm}"] [data-mark="last-from"]').count() == 1


# A phone --------------------------------------------------------------------------------------
PHONE = {"width": 375, "height": 740}


def test_a_phone_reaches_resign_undo_and_chat_without_scrolling(server, open_page):
    game = server.create("carteso(size=9)", ["human", {"ai": "mcts(level=1)"}], seed=SEED)
    client = open_page(game["seats"][0]["page"], "phone")
    page = client.page
    page.set_viewport_size(PHONE)

    def in_view(selector):
        box = page.locator(selector).bounding_box()
        assert box and box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"], selector

    assert page.evaluate("() => window.scrollY") == 0
    in_view("#tab-actions")
    page.locator("#tab-actions").click()
    for selector in ("#resign", "#undo"):
        page.locator(selector).wait_for(state="visible")
        in_view(selector)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "phone-actions.png"))
    page.locator("#tab-chat").click()
    assert page.locator("#resign").bounding_box()["y"] > PHONE["height"] or \
        not page.locator("#actions").evaluate("n => n.classList.contains('drawn')")
    in_view("#chat-input")
    page.locator("#chat-input").fill("hello from a phone")
    page.locator("#chat-input").press("Enter")
    page.locator("#chat-log li", has_text="hello from a phone").wait_for()
    assert page.evaluate("() => window.scrollY") == 0
    page.locator("#tab-chat").click()                           # the same tab closes it
    assert page.locator("#tab-chat").get_attribute("aria-expanded") == "false"


# My games --------------------------------------------------------------------------------------
def test_the_lobby_lists_my_games_with_your_turn_marks(server, open_page):
    first = server.create("carteso(size=5)", TWO, seed=SEED)
    second = server.create("rumbo(size=5)", TWO, seed=SEED)
    client = open_page(first["seats"][0]["page"], "me")
    mine = client.view()["legal"] != []
    client.page.goto(second["seats"][1]["page"])
    client.wait_ready()
    theirs = client.view()["legal"] != []
    client.page.goto(server.url + "/")
    rows = client.page.locator("#my-games li[data-game]")
    rows.nth(1).wait_for()
    assert rows.count() == 2
    assert rows.evaluate_all("r => r.map(x => x.dataset.game)") == [second["id"], first["id"]]
    client.page.wait_for_function("() => document.querySelector('#my-games .status-tag')"
                                  " && !document.querySelector('#my-games')"
                                  ".textContent.includes('gone')")
    marked = {game: client.page.locator(f'#my-games li[data-game="{game}"]')
              .evaluate("n => n.classList.contains('your-turn')")
              for game in (first["id"], second["id"])}
    assert marked == {first["id"]: mine, second["id"]: theirs}
    link = client.page.locator(f'#my-games li[data-game="{first["id"]}"] a')
    assert link.get_attribute("href") == "/game/" + first["seats"][0]["page"].split("/game/")[1]
    client.page.locator(f'#my-games li[data-game="{second["id"]}"] button.forget').click()
    client.page.wait_for_function("() => document.querySelectorAll('#my-games li').length === 1")


def test_my_games_show_the_time_left_on_my_clocks(server, open_page):
    """Each of "My games" shows the time left on the clock of my seat, from the server's
    view (days and hours for a correspondence clock, minutes:seconds otherwise)."""
    slow = server.create("carteso(size=5)", TWO, seed=SEED, clock={"days": 3})
    fast = server.create("carteso(size=5)", TWO, seed=SEED,
                         clock={"base": 300, "increment": 2})
    untimed = server.create("carteso(size=5)", TWO, seed=SEED)
    client = open_page(slow["seats"][0]["page"], "clocks")
    for game in (fast, untimed):
        client.page.goto(game["seats"][1]["page"])
        client.wait_ready()
    client.page.goto(server.url + "/")
    shown = client.page.locator(f'#my-games li[data-game="{slow["id"]}"] .time-left')
    shown.wait_for()
    assert shown.inner_text() == "3d 0h"            # the opening: no clock runs yet
    fast_left = client.page.locator(f'#my-games li[data-game="{fast["id"]}"] .time-left')
    assert fast_left.inner_text() == "5:00"
    assert client.page.locator(
        f'#my-games li[data-game="{untimed["id"]}"] .time-left').count() == 0
