"""Challenges between accounts, the house AI bots ai-1 ... ai-5, the "your turn" list
(boardlab/server/accounts/challenges.py, stream.py), and issue 48's security checks that
apply to them: a user cannot accept, decline or cancel another's challenge; a decline's
reason and a name stay text."""
import pytest

from test_accounts import CSRF, SPEC, app, clock, code, db, guest, person, receive  # noqa: F401

ORIGIN = {"Origin": "http://testserver"}


@pytest.fixture
def three(app):  # noqa: F811
    from starlette.testclient import TestClient
    with TestClient(app) as server:
        yield server, person(server, "alice"), person(server, "bob"), person(server, "carol")


def challenge(client, to, status=201, **extra):
    response = client.post("/api/challenges", json={"to": to, "spec": SPEC, **extra},
                           headers=CSRF)
    assert response.status_code == status, response.text
    return response.json()


def test_a_challenge_accepted_starts_a_game_each_account_holding_its_seat(three):
    _, alice, bob, carol = three
    made = challenge(alice, "bob", seat=0, clock={"base": 300, "increment": 2})
    assert made["status"] == "open" and made["from"] == {"username": "alice", "bot": False}
    assert made["to"]["username"] == "bob" and made["game"] is None
    assert [c["id"] for c in bob.get("/api/challenges").json()["in"]] == [made["id"]]
    assert [c["id"] for c in alice.get("/api/challenges").json()["out"]] == [made["id"]]
    assert carol.get("/api/challenges").json() == {"in": [], "out": []}
    # nobody but the challenged answers it
    for client, expected in ((alice, "forbidden"), (carol, "not_found")):
        for action in ("accept", "decline"):
            response = client.post(f"/api/challenges/{made['id']}/{action}", headers=CSRF)
            assert code(response) == expected, (client, action)
    assert code(carol.get(f"/api/challenges/{made['id']}")) == "not_found"
    accepted = bob.post(f"/api/challenges/{made['id']}/accept", headers=CSRF)
    assert accepted.status_code == 200, accepted.text
    game_id = accepted.json()["game"]
    assert code(bob.post(f"/api/challenges/{made['id']}/accept", headers=CSRF)) == \
        "not_pending"
    game = alice.get(f"/api/games/{game_id}").json()
    assert [s["kind"] for s in game["seats"]] == ["human", "human"]
    assert game["clock"] == {"base": 300.0, "increment": 2.0}
    with bob.websocket_connect(f"/ws/{game_id}", headers=ORIGIN) as socket:
        assert receive(socket, "sync")["seats"] == [1]
    with carol.websocket_connect(f"/ws/{game_id}", headers=ORIGIN) as socket:
        assert receive(socket, "sync")["seats"] == []
    # the "your turn" list: Alice (seat 0) acts first
    mine = alice.get("/api/account/playing").json()["games"]
    assert [(g["id"], g["your_turn"], g["seats"]) for g in mine] == [(game_id, True, [0])]
    assert mine[0]["players"]["1"] == {"username": "bob", "bot": False}
    theirs = bob.get("/api/account/playing").json()["games"]
    assert [(g["id"], g["your_turn"]) for g in theirs] == [(game_id, False)]
    assert code(guest(alice).get("/api/account/playing")) == "not_signed_in"


def test_decline_with_a_reason_cancel_and_refusals(three):
    _, alice, bob, carol = three
    first = challenge(alice, "bob")
    reason = "<img src=x onerror=alert(1)> not now"
    for client in (alice, carol):
        response = client.post(f"/api/challenges/{first['id']}/decline",
                               json={"reason": "no"}, headers=CSRF)
        assert response.status_code in (403, 404)
    declined = bob.post(f"/api/challenges/{first['id']}/decline", json={"reason": reason},
                        headers=CSRF)
    assert declined.json() == {"id": first["id"], "status": "declined", "reason": reason}
    shown = alice.get(f"/api/challenges/{first['id']}").json()
    assert shown["status"] == "declined" and shown["reason"] == reason     # text, as given
    second = challenge(alice, "bob")
    assert code(bob.post(f"/api/challenges/{second['id']}/cancel", headers=CSRF)) == \
        "forbidden"
    assert alice.post(f"/api/challenges/{second['id']}/cancel",
                      headers=CSRF).json()["status"] == "cancelled"
    assert code(bob.post(f"/api/challenges/{second['id']}/accept", headers=CSRF)) == \
        "not_pending"
    assert bob.get("/api/challenges").json()["in"] == []
    for data, expected in (({"to": "alice"}, "bad_request"), ({"to": "nobody"}, "not_found"),
                           ({"to": "bob", "spec": "nonsense"}, "bad_spec"),
                           ({"to": "bob", "spec": "cartagena(players=3)"}, "bad_spec"),
                           ({"to": "bob", "rated": True, "spec": "carteso(size=5,komi=3.5)"},
                            "bad_spec"),
                           ({"to": "bob", "clock": {"base": -1, "increment": 0}}, "bad_clock"),
                           ({"to": "bob", "clock": {"days": 0}}, "bad_clock"),
                           ({"to": "bob", "clock": {"days": "3"}}, "bad_clock"),
                           ({"to": "bob", "seat": 2}, "bad_request"),
                           ({"to": "bob", "rated": "yes"}, "bad_request")):
        response = alice.post("/api/challenges", json={"spec": SPEC, **data}, headers=CSRF)
        assert code(response) == expected, (data, response.text)
    with guest(alice) as anonymous:
        response = anonymous.post("/api/challenges", json={"to": "bob", "spec": SPEC})
        assert code(response) == "not_signed_in"
    response = alice.post("/api/challenges", json={"to": "bob", "spec": SPEC})
    assert code(response) == "csrf_failed"                 # the cookie needs the header


def test_a_house_bot_accepts_at_once_and_its_rated_game_moves_both_ratings(three):
    _, alice, _, _ = three
    profile = alice.get("/api/users/ai-3").json()
    assert profile["bot"] is True and profile["username"] == "ai-3"
    made = challenge(alice, "ai-3", rated=True, seat=0)
    assert made["status"] == "accepted" and made["to"] == {"username": "ai-3", "bot": True}
    game = alice.get(f"/api/games/{made['game']}").json()
    assert [(s["kind"], s.get("agent")) for s in game["seats"]] == \
        [("human", None), ("ai", "mcts(level=3)")]
    with alice.websocket_connect(f"/ws/{made['game']}", headers=ORIGIN) as socket:
        assert receive(socket, "sync")["seats"] == [0]
        socket.send_json({"type": "resign", "seat": 0, "key": "gg"})
        receive(socket, "ack")
    bot = alice.get("/api/users/ai-3").json()["ratings"]["carteso-5-correspondence"]
    person_ = alice.get("/api/users/alice").json()["ratings"]["carteso-5-correspondence"]
    assert bot["rating"] > 1500 > person_["rating"] and bot["games"] == 1
    history = alice.get("/api/users/ai-3").json()["history"]
    assert [point["rating"] for point in history["carteso-5-correspondence"]] == [bot["rating"]]
    board = alice.get("/api/leaderboard/carteso-5-correspondence").json()["players"]
    assert [(p["username"], p["bot"]) for p in board] == [("ai-3", True), ("alice", False)]


def test_the_public_seats_name_the_accounts_that_hold_them(three):
    """GET /api/games/{id} names each seat's account (a bot marked), to anyone; a seat no
    account holds has no ``account``."""
    server, alice, bob, _ = three
    made = challenge(alice, "ai-2", seat=0)
    seats = guest(alice).get(f"/api/games/{made['game']}").json()["seats"]
    assert [s.get("account") for s in seats] == \
        [{"username": "alice", "bot": False}, {"username": "ai-2", "bot": True}]
    accepted = bob.post(f"/api/challenges/{challenge(alice, 'bob', seat=1)['id']}/accept",
                        headers=CSRF).json()
    seats = bob.get(f"/api/games/{accepted['game']}").json()["seats"]
    assert [s["account"]["username"] for s in seats] == ["bob", "alice"]
    anonymous = server.post("/api/games", json={"spec": SPEC, "seats": ["human", "open"]})
    listed = server.get(f"/api/games/{anonymous.json()['id']}").json()["seats"]
    assert all("account" not in seat for seat in listed)


def test_the_pool_is_the_family_and_the_speed_of_the_clock(three):
    """A rated game's pool names its game family and its clock's speed (lichess's estimate;
    a correspondence clock, days per move, and no clock are correspondence)."""
    _, alice, bob, _ = three
    assert challenge(alice, "bob")["pool"] is None                  # casual: no pool
    for given, pool in ((None, "carteso-5-correspondence"),
                        ({"base": 60, "increment": 0}, "carteso-5-bullet"),
                        ({"base": 300, "increment": 3}, "carteso-5-blitz"),
                        ({"days": 3}, "carteso-5-correspondence")):
        made = challenge(alice, "bob", rated=True, clock=given)
        assert (made["pool"], made["speed"]) == (pool, pool.rsplit("-", 1)[1])
        accepted = bob.post(f"/api/challenges/{made['id']}/accept", headers=CSRF).json()
        playing = {game["id"]: game for game in bob.get("/api/account/playing").json()["games"]}
        assert playing[accepted["game"]]["pool"] == pool
        assert playing[accepted["game"]]["clock"] == given


def test_the_lobby_list_names_the_accounts_of_a_game_never_a_token(three):
    """GET /api/games: a seat held by an account shows its name, BOT for a bot and, in a
    rated game, its rating in the game's pool; a seat token never appears."""
    server, alice, bob, _ = three
    rated = challenge(alice, "bob", rated=True, seat=0, clock={"base": 300, "increment": 3})
    game_id = bob.post(f"/api/challenges/{rated['id']}/accept", headers=CSRF).json()["game"]
    casual = challenge(alice, "ai-2", seat=1)["game"]
    anonymous = server.post("/api/games", json={"spec": SPEC, "seats": ["human", "human"]})
    response = guest(server).get("/api/games")
    listed = {game["id"]: game for game in response.json()["games"]}
    assert (listed[game_id]["rated"], listed[game_id]["pool"]) == (True, "carteso-5-blitz")
    assert [seat["account"] for seat in listed[game_id]["seats"]] == [
        {"username": "alice", "bot": False, "rating": 1500, "provisional": True},
        {"username": "bob", "bot": False, "rating": 1500, "provisional": True}]
    assert (listed[casual]["rated"], listed[casual]["pool"]) == (False, None)
    assert [seat["account"] for seat in listed[casual]["seats"]] == [
        {"username": "ai-2", "bot": True}, {"username": "alice", "bot": False}]
    assert all("account" not in seat
               for seat in listed[anonymous.json()["id"]]["seats"])
    tokens = [seat["token"] for seat in anonymous.json()["seats"]]
    assert '"token"' not in response.text and not any(token in response.text
                                                      for token in tokens)
