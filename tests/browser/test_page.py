"""The game page's own behaviour (docs/web-app.md): resigning takes a second click, a
refused click says why in the game's own words (asked from the server, never the page's
guess), messages show under the board where they cover nothing and fade, the move list
is grouped by turn with who played it, and the arrow keys step through the moves."""
import random

import pytest

from secret_specs import SEED

TWO = ["human", "human"]


def mover(clients):
    """The client whose seat has legal moves now."""
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
