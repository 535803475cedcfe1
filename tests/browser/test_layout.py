"""The game page's layout: on a phone-sized screen the seats, their clocks and whose turn
show above the board, and the whole board fits the screen; on a laptop the whole board
fits too. The game's own status lines (`lines` beside the view) show under the status. Each
game's end is drawn on a laptop and on a phone (docs/screenshots/*-end.png, *-phone.png)."""
import json
import random

import pytest

from harness import SCREENSHOTS, play_to_end
from secret_specs import CARTAGENA, SEED

PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1280, "height": 800}
CLOCK = {"base": 300, "increment": 3}
BOARD = "#board svg:not([aria-hidden])"     # the board, not the palette's swatches


def box(page, selector: str) -> dict:
    return page.locator(selector).first.bounding_box()


def test_a_phone_shows_the_clocks_and_the_turn_above_the_board(server, open_page):
    game = server.create("carteso(size=9)", ["human", "human"], seed=SEED, clock=CLOCK)
    client = open_page(game["seats"][0]["page"], "phone")
    page = client.page
    page.set_viewport_size(PHONE)
    acting = client.view()["acting"]
    chips = page.locator("#clock-bar li")
    assert chips.count() == 2
    assert page.locator("#clock-bar li.acting .player-name").all_text_contents() == acting
    assert page.locator("#clock-bar [data-clock]").count() == 2
    bar, status, board = box(page, "#clock-bar"), box(page, "#status"), box(page, BOARD)
    assert bar["y"] + bar["height"] <= status["y"] < board["y"]
    assert board["y"] + board["height"] <= PHONE["height"]
    assert board["x"] >= 0 and board["x"] + board["width"] <= PHONE["width"]


@pytest.mark.parametrize("spec", ["carteso(size=13)", "ctor(size=10)"])
def test_a_laptop_shows_the_whole_board(server, open_page, spec):
    game = server.create(spec, ["human", "human"], seed=SEED, clock=CLOCK)
    client = open_page(game["seats"][0]["page"], "laptop")
    page = client.page
    page.set_viewport_size(LAPTOP)
    assert page.locator("#clock-bar").is_hidden()          # the players panel has them
    board = box(page, BOARD)
    assert board["y"] >= 0 and board["y"] + board["height"] <= LAPTOP["height"]


def test_the_game_s_own_status_lines_show_under_the_status(server, open_page):
    game = server.create("rumbo(size=5)", ["human", "human"], seed=SEED)
    client = open_page(game["watch_page"], "spectator")
    page = client.page
    lines = ["Vertical 0  -  Horizontal 7", "a <b>plain</b> line"]
    sent = {"lines": None}          # what the server's frames carry as `lines` (None: none)

    def route(socket):              # the server's frames, with `lines` set or taken out
        upstream = socket.connect_to_server()

        def relay(message):
            data = json.loads(message)
            if data.get("type") in ("sync", "update"):
                data.pop("lines", None)
                if sent["lines"] is not None:
                    data["lines"] = sent["lines"]
            socket.send(json.dumps(data))
        upstream.on_message(relay)

    page.route_web_socket("**/ws/**", route)
    page.reload()
    client.wait_ready()             # no `lines`: a summary of the view's plain keys
    page.locator("#lines li").first.wait_for()
    assert "own" not in page.locator("#lines").get_attribute("class")
    sent["lines"] = lines
    page.reload()
    client.wait_ready()
    page.locator("#lines.own li").first.wait_for()
    assert page.locator("#lines.own li").all_text_contents() == lines
    assert page.locator("#lines b").count() == 0               # text, never HTML


# Screenshots of each game at its end, on a laptop and on a phone --------------------------
SMALL_PHONE = {"width": 375, "height": 740}
ENDS = {"carteso(size=5)": "carteso", "rumbo(size=5)": "rumbo", CARTAGENA: "cartagena",
        "ctor(size=8,max_turns=6)": "ctor"}


@pytest.mark.parametrize("spec", list(ENDS))
def test_each_game_s_end_is_drawn_on_a_laptop_and_a_phone(server, open_page, spec):
    seats = len(server.http.get("/api/facts", params={"spec": spec}).json()["seats"])
    game = server.create(spec, ["human"] * seats, seed=SEED)
    players = [open_page(seat["page"], seat["name"]) for seat in game["seats"]]
    play_to_end(players, random.Random(21))
    page = players[0].page
    page.locator("#result").wait_for(state="visible")
    players[0].screenshot(f"{ENDS[spec]}-end")
    page.set_viewport_size(SMALL_PHONE)
    board = box(page, "#board")
    assert board["x"] >= 0 and board["x"] + board["width"] <= SMALL_PHONE["width"]
    assert page.evaluate("() => document.documentElement.scrollWidth") <= SMALL_PHONE["width"]
    page.screenshot(path=str(SCREENSHOTS / f"{ENDS[spec]}-phone.png"))
