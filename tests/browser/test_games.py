"""Whole games played in the browser by clicking, one browser context per seat and one
spectator, against a real server: every seat joins by its seat link, the pages agree with
the server on the result, a refreshed page rejoins its seat, the spectator sees every move,
and no page ever receives or shows what its seat may not know."""
import random

import pytest

from harness import play_to_end, result_shown
from leaks import Knowledge, canonical, check_frames, check_page
from secret_specs import CARTAGENA, CTOR_SECRETS, SEED, pile_order

# spec -> the screenshot it leaves in docs/screenshots/ (None: none)
GAMES = {"carteso(size=5)": "carteso", "rumbo(size=5)": "rumbo", CARTAGENA: "cartagena",
         "ctor(size=8,max_turns=6)": "ctor", CTOR_SECRETS: None,
         "carteso(size=5,komi_protocol=bid)": None}     # a typed number, side buttons
# spec -> the kinds of hidden facts the game must have had (leaks.Knowledge.hidden's
# sources): another hand, the pile order, the other team's secret squares, a team mate's
# pending pick
SECRETS = {CARTAGENA: {"seed", "extra", "hand"},
           CTOR_SECRETS: {"seed", "my_secret_squares", "history", "my_pending"}}
SCREENSHOT_AT = 8                   # the version of the mid-game screenshot
REFRESH_AT = 4                      # the version at which the second seat's page reloads


@pytest.mark.parametrize("spec", list(GAMES))
def test_every_seat_plays_a_full_game_by_clicking(server, open_page, spec):
    game = server.create(spec, ["human"] * len(server_facts(server, spec)["seats"]),
                         seed=SEED)
    players = [open_page(seat["page"], seat["name"]) for seat in game["seats"]]
    watcher = open_page(game["watch_page"], "spectator")
    assert [player.page.evaluate("() => window.boardlab.seat") for player in players] == \
        list(range(len(players)))
    pages = dict(enumerate(players)) | {None: watcher}
    snapshots = []                  # (viewer, version, DOM, window.boardlab.view)
    hidden_information = not server_facts(server, spec)["perfect_information"]

    def on_move(version):
        if version == REFRESH_AT:                       # a refresh rejoins the same seat
            players[1].page.reload()
            players[1].wait_version(version)
            assert players[1].page.evaluate("() => window.boardlab.seat") == 1
        if version == SCREENSHOT_AT and GAMES[spec]:
            players[0].screenshot(GAMES[spec])
        if hidden_information:
            for viewer, client in pages.items():
                snapshots.append((viewer, version, client.page.content(), client.view()))

    final = play_to_end(players, random.Random(7), watchers=[watcher], on_move=on_move)

    shown = server.game(game["id"])
    assert shown["status"] == "over" and shown["version"] == final
    expected = {"winners": sorted(shown["view"]["result"]["winners"]),
                "draw": bool(shown["view"]["result"]["draw"])}
    for client in pages.values():
        assert result_shown(client) == expected, f"{client.name}'s #result"
        assert not client.errors, f"{client.name}'s page raised {client.errors}"
    assert watcher.page.locator("#moves li[data-index]").count() == \
        len(shown["view"]["history"]) == final
    assert {message["version"] for message in watcher.messages()
            if message["type"] == "update"} == set(range(1, final + 1))
    assert canonical(watcher.view()) == shown["view"]

    knowledge = Knowledge(server.record(game["id"]), extra=pile_order)
    assert knowledge.view(final, None) == shown["view"]
    for viewer, client in pages.items():
        check_frames(knowledge, client.frames, viewer)
    for viewer, version, content, view in snapshots:
        check_page(knowledge, content, view, version, viewer)
    checked = {source for viewer, version, _, _ in snapshots
               for source, _, _ in knowledge.hidden(version, viewer)}
    assert SECRETS.get(spec, set()) <= checked


def server_facts(server, spec: str) -> dict:
    answer = server.http.get("/api/facts", params={"spec": spec})
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_a_game_against_an_ai_seat_is_played_to_the_end(server, open_page):
    game = server.create("carteso(size=5)", ["human", {"ai": "mcts(level=1)"}], seed=SEED)
    person = open_page(game["seats"][0]["page"], "person")
    final = play_to_end([person], random.Random(3))
    shown = server.game(game["id"])
    assert shown["status"] == "over" and shown["version"] == final
    assert result_shown(person) == {"winners": sorted(shown["view"]["result"]["winners"]),
                                    "draw": bool(shown["view"]["result"]["draw"])}


def test_a_hotseat_game_with_hidden_information_passes_the_device(server, open_page):
    game = server.create(CARTAGENA, ["human", "human"], seed=SEED, hotseat=True)
    page = open_page(game["seats"][0]["page"], "hotseat")
    rng, passes, last = random.Random(11), 0, None
    while not page.view()["terminal"]:
        shown = page.pass_device()
        view = page.view()
        if last is not None and view["seat"] != last:
            assert shown, f"no #pass-device between {last} and {view['seat']}"
            passes += 1
        last = view["seat"]
        page.play(rng.choice(sorted(view["legal"])))
    assert passes >= 1
    assert server.game(game["id"])["status"] == "over"


def test_a_connection_drop_shows_the_banner_and_recovers(server, open_page):
    game = server.create("rumbo(size=5)", ["human", "human"], seed=SEED)
    players = [open_page(seat["page"], seat["name"]) for seat in game["seats"]]
    dropped, sockets = [False], []

    def route(socket):                  # the page's WebSocket, through a switch we hold
        if dropped[0]:
            socket.close()
        else:
            socket.connect_to_server()
            sockets.append(socket)

    online = next(player for player in players if player.view()["legal"])
    offline = next(player for player in players if player is not online)
    offline.page.route_web_socket("**/ws/**", route)
    offline.page.reload()
    offline.wait_ready()
    banner = offline.page.locator("#banner")
    assert banner.is_hidden()
    dropped[0] = True
    for socket in sockets:
        socket.close()
    banner.wait_for(state="visible")
    online.play(sorted(online.view()["legal"])[0])  # a move while the other page is offline
    dropped[0] = False
    banner.wait_for(state="hidden")
    offline.wait_version(online.version())
    final = play_to_end(players, random.Random(13))
    assert server.game(game["id"])["version"] == final
