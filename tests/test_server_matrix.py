"""Every route and every client message, asked by everyone who may not: a typed refusal,
and the game does not change.

The lists are derived from the app (its routes) and from the message schema
(``messages.FIELDS``): a new route or message type without an entry here fails
``test_every_route_and_message_has_a_matrix_entry``. Each request is made by every
identity of :data:`IDENTITIES` against a running two-person game at version 2; after each,
the game's version and log (read from the database) are what they were, and no answer
holds a token or the seed.
"""
import json
import secrets
import warnings

import pytest

with warnings.catch_warnings():      # starlette >= 1.x would rather have httpx2
    warnings.filterwarnings("ignore", message="Using `httpx`")
    from starlette.testclient import TestClient
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.websockets import WebSocketDisconnect

import boardlab
from boardlab.server import create_app
from boardlab.server.app import STATIC
from boardlab.server.clients import Limits
from boardlab.server.messages import FIELDS, MAX_FRAME
from boardlab.server.store import Store

SPEC = "carteso(size=5)"
SEED = 1876543219            # a seed no answer may contain
OLD_SEED = 1765432198
STATIC_FILE = sorted(p.name for p in STATIC.iterdir() if p.is_file())[0]

#: who asks: no token at all, a spectator (an empty token), the other seat's token (the
#: requests are for seat 0), a token of an older game, a forged token (right length)
IDENTITIES = ("none", "spectator", "other_seat", "stale", "forged")
SEATLESS = ("none", "spectator")            # connected, holding no seat
REFUSED = ("stale", "forged")               # the connection itself is refused


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """One app; an older finished game; the game under test at version 2, seat 0 to act."""
    db = f"sqlite:///{tmp_path_factory.mktemp('matrix') / 'server.db'}"
    with TestClient(create_app(db, ai_processes=0, limits=Limits.off())) as client:
        old = create(client, seed=OLD_SEED)
        with socket(client, old, old["seats"][0]["token"]) as ws:
            ws.receive_json()
            ws.send_json({"type": "resign", "seat": 0, "key": "old-resign"})
            assert ws.receive_json()["type"] == "ack"
        game = create(client, seed=SEED)
        with socket(client, game, game["seats"][0]["token"]) as zero, \
                socket(client, game, game["seats"][1]["token"]) as one:
            for ws in (zero, one):
                ws.receive_json()
            for seat, ws, version in ((0, zero, 0), (1, one, 1)):
                move = sync(ws)["view"]["legal"][0]
                ws.send_json({"type": "action", "seat": seat, "move": move,
                              "version": version, "key": f"setup-{seat}"})
                assert reply(ws)["type"] == "ack"
            move = sync(zero)["view"]["legal"][0]       # a legal move of seat 0 at version 2
        tokens = {"none": None, "spectator": "", "other_seat": game["seats"][1]["token"],
                  "stale": old["seats"][0]["token"], "forged": secrets.token_urlsafe(24)}
        assert len(tokens["forged"]) == len(tokens["other_seat"])
        yield {"client": client, "db": db, "game": game, "old": old, "tokens": tokens,
               "move": move,
               "secrets": [s["token"] for g in (old, game) for s in g["seats"]]
               + [str(SEED), str(OLD_SEED)]}


def create(client, seed):
    response = client.post("/api/games", json={"spec": SPEC, "seats": ["human", "human"],
                                               "seed": seed})
    assert response.status_code == 201, response.text
    return response.json()


def socket(client, game, token):
    return client.websocket_connect(f"/ws/{game['id']}" +
                                    ("" if token is None else f"?token={token}"))


def sync(ws):
    """A fresh sync (updates before it are skipped)."""
    ws.send_json({"type": "sync"})
    message = ws.receive_json()
    return message if message["type"] == "sync" else sync_reply(ws)


def sync_reply(ws):
    message = ws.receive_json()
    return message if message["type"] == "sync" else sync_reply(ws)


def reply(ws):
    """The next message that is not an update."""
    message = ws.receive_json()
    return reply(ws) if message["type"] == "update" else message


def state(world):
    """The game's version (as the server shows it) and its stored log."""
    store = Store(world["db"])
    try:
        log = [(a.seat, a.move, a.key) for a in store.log(world["game"]["id"])]
    finally:
        store.dispose()
    shown = world["client"].get(f"/api/games/{world['game']['id']}").json()["version"]
    return shown, log


def no_secret(world, text: str) -> None:
    for secret in world["secrets"]:
        assert secret not in text, f"an answer holds a secret: {text[:300]}"


# WebSocket messages -------------------------------------------------------------------------
def legal_move(world) -> str:
    """A legal move of seat 0 now (refused all the same: the asker does not hold seat 0)."""
    return world["move"]


#: each client message type: a frame for seat 0 (the game is at version 2, seat 0 acts) and
#: the answer a connection holding no seat / holding seat 1 gets: an error code, or
#: ``("ok", TYPE)`` where the message is allowed and answered with a message of TYPE
MESSAGES = {
    "action": ({"type": "action", "seat": 0, "move": "MOVE", "version": 2, "key": "m-act"},
               "forbidden", "forbidden"),
    "resign": ({"type": "resign", "seat": 0, "key": "m-resign"}, "forbidden", "forbidden"),
    "sync": ({"type": "sync", "seat": 0}, "forbidden", "forbidden"),
    "undo": ({"type": "undo", "seat": 0, "key": "m-undo"}, "forbidden", "forbidden"),
    "offer_draw": ({"type": "offer_draw", "seat": 0}, "forbidden", "forbidden"),
    "decline_draw": ({"type": "decline_draw", "seat": 0}, "forbidden", "forbidden"),
    "accept_draw": ({"type": "accept_draw", "seat": 0, "key": "m-accept"}, "forbidden",
                    "forbidden"),
    "leave": ({"type": "leave", "seat": 0, "key": "m-leave"}, "forbidden", "forbidden"),
    "rematch": ({"type": "rematch"}, "forbidden", "not_over"),
    "accept_rematch": ({"type": "accept_rematch"}, "forbidden", "not_over"),
    "decline_rematch": ({"type": "decline_rematch"}, "forbidden", "not_over"),
    "withdraw_rematch": ({"type": "withdraw_rematch"}, "forbidden", "not_over"),
    "chat": ({"type": "chat", "seat": 0, "channel": "players", "text": "hello"},
             "forbidden", "forbidden"),
    "spectator_chat": ({"type": "spectator_chat", "on": True}, "forbidden", ("ok", "sync")),
    "look": ({"type": "look", "at": 1}, ("ok", "position"), ("ok", "position")),
    "explain": ({"type": "explain", "seat": 0, "picks": [{"kind": "cell", "value": "a1"}]},
                "forbidden", "forbidden"),
}


def frame_for(world, kind: str) -> dict:
    frame = dict(MESSAGES[kind][0])
    if frame.get("move") == "MOVE":
        frame["move"] = legal_move(world)
    return frame


@pytest.mark.parametrize("identity", IDENTITIES)
@pytest.mark.parametrize("kind", sorted(FIELDS))
def test_every_message_from_everyone_who_may_not_is_refused_and_changes_nothing(
        world, kind, identity):
    assert kind in MESSAGES, f"no matrix entry for the message type {kind!r}"
    before = state(world)
    frame = frame_for(world, kind)
    with socket(world["client"], world["game"], world["tokens"][identity]) as ws:
        first = ws.receive_json()
        no_secret(world, json.dumps(first))
        if identity in REFUSED:             # a token that holds no seat here: refused
            assert first == {"type": "error", "code": "forbidden",
                             "message": "this token holds no seat here"}
            ws.send_json(frame)
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_json()
            assert closed.value.code == 4403
        else:
            assert first["type"] == "sync"
            assert first["seats"] == ([] if identity in SEATLESS else [1])
            expected = MESSAGES[kind][1 if identity in SEATLESS else 2]
            ws.send_json(frame)
            answer = reply(ws)
            no_secret(world, json.dumps(answer))
            if isinstance(expected, tuple):
                assert answer["type"] == expected[1], answer
                if "view" in answer:        # its own view only
                    assert answer["view"]["seat"] == (None if identity in SEATLESS else 1)
            else:
                assert answer["type"] == "error" and answer["code"] == expected, answer
                assert answer.get("key") == frame.get("key")
    assert state(world) == before


BAD_FRAMES = {
    "malformed JSON": ('{"type": "action", "seat": 0,', "bad_message"),
    "not an object": ("[1, 2]", "bad_message"),
    "unknown type": ('{"type": "teleport", "seat": 0}', "bad_message"),
    "unknown field": ('{"type": "resign", "seat": 0, "key": "k1", "why": "x"}', "bad_message"),
    "oversized": (json.dumps({"type": "chat", "seat": 0, "channel": "players",
                              "text": "x" * MAX_FRAME}), "too_large"),
    "seat out of range": ('{"type": "resign", "seat": 7, "key": "k2"}', "forbidden"),
    "negative seat": ('{"type": "resign", "seat": -1, "key": "k3"}', "bad_message"),
    "other seat": ('{"type": "resign", "seat": 1, "key": "k4"}', "forbidden"),
    "wrong version": ('{"type": "action", "seat": 0, "move": "MOVE", "version": 1, '
                      '"key": "k5"}', "stale_version"),
    "future version": ('{"type": "action", "seat": 0, "move": "MOVE", "version": 3, '
                       '"key": "k6"}', "stale_version"),
    "illegal move": ('{"type": "action", "seat": 0, "move": "zz99", "version": 2, '
                     '"key": "k7"}', "illegal_move"),
    "server entry": ('{"type": "action", "seat": 0, "move": "!draw", "version": 2, '
                     '"key": "k8"}', "bad_message"),
    "bad key": ('{"type": "resign", "seat": 0, "key": "no spaces"}', "bad_message"),
    "a key used by the other seat": ('{"type": "resign", "seat": 0, "key": "setup-1"}',
                                     "duplicate_key"),
}


@pytest.mark.parametrize("name", sorted(BAD_FRAMES))
def test_bad_frames_from_the_seat_itself_are_refused_and_change_nothing(world, name):
    text, code = BAD_FRAMES[name]
    text = text.replace('"MOVE"', json.dumps(legal_move(world)))
    before = state(world)
    with socket(world["client"], world["game"], world["game"]["seats"][0]["token"]) as ws:
        assert ws.receive_json()["type"] == "sync"
        ws.send_text(text)
        answer = reply(ws)
        assert answer["type"] == "error" and answer["code"] == code, answer
        no_secret(world, json.dumps(answer))
    assert state(world) == before


def test_a_binary_frame_and_a_move_out_of_turn_are_refused(world):
    before = state(world)
    with socket(world["client"], world["game"], world["game"]["seats"][1]["token"]) as ws:
        ws.receive_json()
        ws.send_bytes(b'{"type": "sync"}')
        assert reply(ws)["code"] == "bad_message"
        move = legal_move(world)
        ws.send_json({"type": "action", "seat": 1, "move": move, "version": 2, "key": "t1"})
        assert reply(ws)["code"] == "not_your_turn"
    assert state(world) == before


# REST routes ---------------------------------------------------------------------------------
def rest_routes(app) -> set[tuple[str, str]]:
    """Every (method, path) the app serves over HTTP (a mount: its path)."""
    found = set()
    for route in app.routes:
        if isinstance(route, Mount):
            found.add(("GET", route.path + "/{path}"))
        elif isinstance(route, Route):
            found |= {(method, route.path) for method in route.methods if method != "HEAD"}
        else:
            assert isinstance(route, WebSocketRoute), route
    return found


def sgf_code() -> str:
    return "not_over" if "sgf" in boardlab.make(SPEC).record_formats else "no_sgf"


#: each REST route against the running game: (request, the answer for every identity):
#: the identity's token goes in the query (and in the body where the route takes one); an
#: expected status 200/201 is a public answer that holds no secret
ROUTES = {
    ("GET", "/"): (lambda t: ("GET", "/", None), 200, None),
    ("GET", "/game/{game_id}"): (lambda t: ("GET", "/game/ID", None), 200, None),
    ("GET", "/static/{path}"): (lambda t: ("GET", "/static/" + STATIC_FILE, None), 200, None),
    ("GET", "/api/catalog"): (lambda t: ("GET", "/api/catalog", None), 200, None),
    ("GET", "/api/facts"): (lambda t: ("GET", f"/api/facts?spec={SPEC}", None), 200, None),
    ("GET", "/api/games"): (lambda t: ("GET", "/api/games", None), 200, None),
    ("POST", "/api/games"): (lambda t: ("POST", "/api/games",
                                        {"spec": SPEC, "seats": ["human"], "token": t}),
                             400, "bad_request"),
    ("GET", "/api/games/{game_id}"): (lambda t: ("GET", "/api/games/ID", None), 200, None),
    ("GET", "/api/games/{game_id}/record"): (lambda t: ("GET", "/api/games/ID/record", None),
                                             409, "not_over"),
    ("GET", "/api/games/{game_id}/record.sgf"): (
        lambda t: ("GET", "/api/games/ID/record.sgf", None),
        409 if sgf_code() == "not_over" else 404, sgf_code()),
    ("POST", "/api/games/{game_id}/analysis"): (
        lambda t: ("POST", "/api/games/ID/analysis",
                   {"at": 1} if t is None else {"at": 1, "token": t}), 403, "forbidden"),
    ("POST", "/api/games/{game_id}/review"): (lambda t: ("POST", "/api/games/ID/review", None),
                                              409, "not_over"),
    ("GET", "/api/games/{game_id}/review"): (lambda t: ("GET", "/api/games/ID/review", None),
                                             409, "not_over"),
    ("POST", "/api/games/{game_id}/join"): (lambda t: ("POST", "/api/games/ID/join",
                                                       {"seat": 0}), 409, "not_open"),
}

# The account routes (docs/accounts.md), asked by people who are not signed in: the public
# ones answer, the others want a session (401 not_signed_in), and every POST under
# /api/account wants the CSRF header first (403 csrf_failed).
_PUBLIC = {("GET", "/api/account"): 200, ("GET", "/api/leaderboard/{pool}"): 200,
           ("GET", "/api/seeks"): 200, ("GET", "/signin"): 200, ("GET", "/user/{name}"): 200,
           ("GET", "/api/tournaments"): 200, ("GET", "/tournaments"): 200,
           ("GET", "/tournament/{tournament_id}"): 200}
_SIGNED_IN = [("GET", "/api/account/bots"), ("GET", "/api/account/playing"),
              ("GET", "/api/challenges"), ("GET", "/api/challenges/{challenge_id}"),
              ("GET", "/api/stream/event"), ("POST", "/api/challenges"),
              ("POST", "/api/challenges/{challenge_id}/accept"),
              ("POST", "/api/challenges/{challenge_id}/cancel"),
              ("POST", "/api/challenges/{challenge_id}/decline"), ("POST", "/api/seeks"),
              ("POST", "/api/seeks/{seek_id}/accept"), ("POST", "/api/seeks/{seek_id}/cancel"),
              ("POST", "/api/tournaments")] + [
              ("POST", f"/api/tournaments/{{tournament_id}}/{what}")
              for what in ("end", "join", "leave", "pause", "start")]
_CSRF = [("POST", "/api/account/" + tail) for tail in (
    "bots", "bots/{name}/revoke", "bots/{name}/token", "delete", "login", "logout", "password",
    "signup")]


def _account_path(path: str) -> str:
    return (path.replace("{challenge_id}", "ch0").replace("{seek_id}", "sk0")
            .replace("{tournament_id}", "t0")
            .replace("{name}", "dana").replace("{pool}", "carteso-5-blitz"))


def _account_request(method: str, path: str):
    body = {"username": "dana", "password": "a long password"} if method == "POST" else None
    return lambda t: (method, _account_path(path), body)


ROUTES.update({route: (_account_request(*route), status, None)
               for route, status in _PUBLIC.items()})
ROUTES.update({route: (_account_request(*route), 404, "not_found") for route in (
    ("GET", "/api/users/{name}"), ("GET", "/api/tournaments/{tournament_id}"),
    ("GET", "/api/tournaments/{tournament_id}/standings.csv"),
    ("GET", "/api/tournaments/{tournament_id}/records.zip"))})
ROUTES.update({route: (_account_request(*route), 401, "not_signed_in") for route in _SIGNED_IN})
ROUTES.update({route: (_account_request(*route), 403, "csrf_failed") for route in _CSRF})


@pytest.mark.parametrize("identity", IDENTITIES)
@pytest.mark.parametrize("route", sorted(ROUTES))
def test_every_route_for_everyone_who_may_not_is_refused_or_public(world, route, identity):
    request, status, code = ROUTES[route]
    token = world["tokens"][identity]
    method, path, body = request(token)
    path = path.replace("ID", world["game"]["id"])
    if token is not None:
        path += ("&" if "?" in path else "?") + f"token={token}"
    before = state(world)
    response = world["client"].request(method, path, json=body)
    assert response.status_code == status, (route, identity, response.text[:300])
    if code is not None:
        assert response.json()["error"]["code"] == code
    no_secret(world, response.text)
    assert state(world) == before


def test_every_route_and_message_has_a_matrix_entry(world):
    app = world["client"].app
    assert rest_routes(app) == set(ROUTES), "a route without a matrix entry (or a stale one)"
    assert set(FIELDS) == set(MESSAGES), "a message type without a matrix entry"
    assert [r.path for r in app.routes if isinstance(r, WebSocketRoute)] == ["/ws/{game_id}"]
