"""Bot accounts (boardlab/server/accounts/bots.py, stream.py; boardlab/clients/bot.py): API
tokens (shown once, stored hashed, revocable), Bearer authentication, the event stream,
and `boardlab connect URL --token` keeping an engine online as a bot; issue 48's security
checks that apply: a revoked token is refused, a bot cannot act for another bot, no token
in the database, the logs or any response but the one that makes it."""
import json
import logging
import os
import random
import subprocess
import sys

import warnings

import pytest

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="Using `httpx`")
    from starlette.testclient import TestClient
    from starlette.websockets import WebSocketDisconnect

from boardlab.core.speeds import speed_of
from test_accounts import (CSRF, SPEC, app, boardlab, clock, code, db, guest,  # noqa: F401
                           person, receive)
from test_connect import ENGINE, ROOT, WAIT, play_on, server

httpx = pytest.importorskip("httpx")
websockets_sync = pytest.importorskip("websockets.sync.client")


@pytest.fixture
def owner(app):  # noqa: F811
    with TestClient(app) as server_:
        yield server_, person(server_, "alice")


def make_bot(client, name):
    response = client.post("/api/account/bots", json={"username": name}, headers=CSRF)
    assert response.status_code == 201, response.text
    return response.json()["token"]


def bearer(token):
    return {"Authorization": f"Bearer {token}"}


def refused_on_the_socket(program, game_id, key):
    """A wrong or revoked token on the game socket: an error, then close 4403 (it does not
    watch as a spectator instead)."""
    with program.websocket_connect(f"/ws/{game_id}", headers=bearer(key)) as socket:
        assert socket.receive_json() == {"type": "error", "code": "bad_token",
                                         "message": "this API token is unknown or revoked"}
        with pytest.raises(WebSocketDisconnect) as closed:
            socket.receive_json()
        assert closed.value.code == 4403


def test_a_bot_token_acts_for_its_bot_until_it_is_revoked(owner, db, tmp_path, caplog):  # noqa: F811
    caplog.set_level(logging.DEBUG)
    server_, alice = owner
    token = make_bot(alice, "alicebot")
    other = make_bot(alice, "otherbot")
    assert alice.get("/api/account/bots").json() == {"bots": ["alicebot", "otherbot"]}
    with guest(server_) as program:
        assert program.get("/api/account", headers=bearer(token)).json() == \
            {"signed_in": True, "username": "alicebot", "bot": True}
        profile = program.get("/api/users/alicebot").json()
        assert profile["bot"] is True
        # a challenge to alicebot: otherbot's token can neither see nor answer it
        made = alice.post("/api/challenges", json={"to": "alicebot", "spec": SPEC},
                          headers=CSRF).json()
        for action in ("accept", "decline"):
            response = program.post(f"/api/challenges/{made['id']}/{action}",
                                    headers=bearer(other))
            assert code(response) == "not_found"
        accepted = program.post(f"/api/challenges/{made['id']}/accept", headers=bearer(token))
        game_id = accepted.json()["game"]
        for key, count in ((token, 1), (other, 0)):
            with program.websocket_connect(f"/ws/{game_id}", headers=bearer(key)) as socket:
                assert len(receive(socket, "sync")["seats"]) == count
        refused_on_the_socket(program, game_id, "blb_wrong")
        # a new token, then every token revoked
        fresh = alice.post("/api/account/bots/alicebot/token", headers=CSRF).json()["token"]
        assert program.get("/api/account", headers=bearer(fresh)).json()["username"] == \
            "alicebot"
        assert alice.post("/api/account/bots/alicebot/revoke",
                          headers=CSRF).json()["revoked"] == 2
        for key in (token, fresh, "blb_never-issued", "not-even-a-token"):
            response = program.get("/api/account", headers=bearer(key))
            assert response.status_code == 401 and code(response) == "bad_token"
            assert code(program.get("/api/challenges", headers=bearer(key))) == "bad_token"
        for key in (token, fresh, ""):
            refused_on_the_socket(program, game_id, key)
    # owners only; a bot owns no bots
    bob = person(server_, "bob")
    assert code(bob.post("/api/account/bots/alicebot/token", headers=CSRF)) == "not_found"
    assert code(bob.post("/api/account/bots/alicebot/revoke", headers=CSRF)) == "not_found"
    with guest(server_) as program:
        response = program.post("/api/account/bots", json={"username": "botbot"},
                                headers={**bearer(other), **CSRF})
        assert code(response) == "forbidden"
    for name, expected in (("ai-1", "bad_username"), ("Alice", "name_taken")):
        response = alice.post("/api/account/bots", json={"username": name}, headers=CSRF)
        assert code(response) == expected
    # no token in the database or the logs
    server_.__exit__(None, None, None)
    raw = b"".join(path.read_bytes() for path in tmp_path.glob("server.db*"))
    for secret in (token, other, fresh):
        assert secret.encode() not in raw and secret not in caplog.text


def test_the_event_stream_of_a_bot(owner):
    """The stream's events, read from its tracker (a TestClient cannot hold a stream
    open): challenges, a cancel, a decline seen by the challenger, game start and end."""
    from boardlab.server.accounts.stream import Tracker
    server_, alice = owner
    make_bot(alice, "alicebot")
    engine = server_.app.state.accounts.users.engine
    users = server_.app.state.accounts.users
    bot_events = Tracker(engine, users.find("alicebot").id)
    alice_events = Tracker(engine, users.find("alice").id)
    assert bot_events.poll() == [] and alice_events.poll() == []
    first = alice.post("/api/challenges", json={"to": "alicebot", "spec": SPEC, "seat": 0},
                       headers=CSRF).json()
    second = alice.post("/api/challenges", json={"to": "alicebot", "spec": SPEC},
                        headers=CSRF).json()
    told = bot_events.poll()
    assert [(e["type"], e["challenge"]["id"]) for e in told] == \
        [("challenge", first["id"]), ("challenge", second["id"])]
    alice.post(f"/api/challenges/{second['id']}/cancel", headers=CSRF)
    assert [e["type"] for e in bot_events.poll()] == ["challengeCanceled"]
    alice_events.poll()
    third = alice.post("/api/challenges", json={"to": "alicebot", "spec": SPEC},
                       headers=CSRF).json()
    with guest(server_) as program:
        program.post(f"/api/challenges/{third['id']}/decline", json={"reason": "<b>no</b>"},
                     headers=bearer(alice.post("/api/account/bots/alicebot/token",
                                               headers=CSRF).json()["token"]))
    declined = alice_events.poll()
    assert [(e["type"], e["challenge"]["reason"]) for e in declined] == \
        [("challengeDeclined", "<b>no</b>")]
    game_id = alice.post(f"/api/challenges/{first['id']}/accept", headers=CSRF)
    assert code(game_id) == "forbidden"             # only the challenged accepts
    with guest(server_) as program:
        token = alice.post("/api/account/bots/alicebot/token", headers=CSRF).json()["token"]
        game_id = program.post(f"/api/challenges/{first['id']}/accept",
                               headers=bearer(token)).json()["game"]
    started = bot_events.poll()
    assert [(e["type"], e["game"]["id"], e["game"]["seats"]) for e in started] == \
        [("gameStart", game_id, [1])]
    assert started[0]["game"]["players"]["0"] == {"username": "alice", "bot": False}
    with alice.websocket_connect(f"/ws/{game_id}",
                                 headers={"Origin": "http://testserver"}) as socket:
        receive(socket, "sync")
        socket.send_json({"type": "resign", "seat": 0, "key": "gg"})
        receive(socket, "ack")
    assert [e["type"] for e in bot_events.poll()] == ["gameFinish"]
    assert bot_events.poll() == []


def test_speeds_from_the_clock_as_lichess_estimates_them():
    assert speed_of(None) == speed_of({"days": 3}) == "correspondence"
    assert [speed_of({"base": base, "increment": inc}) for base, inc in
            ((15, 0), (60, 1), (180, 0), (300, 3), (600, 5), (900, 10), (1800, 0))] == \
        ["ultrabullet", "bullet", "blitz", "blitz", "rapid", "rapid", "classical"]


def test_bot_tokens_from_the_command_line(db):  # noqa: F811
    made = boardlab("user", "create", "cli-bot", "--bot", "--db", db)
    assert made.returncode == 0, made.stderr
    token = made.stdout.split("(shown once): ")[1].strip()
    renewed = boardlab("user", "token", "cli-bot", "--db", db)
    second = renewed.stdout.split("(shown once): ")[1].strip()
    assert boardlab("user", "token", "ai-1", "--db", db).returncode == 2
    with TestClient(create_app_(db)) as client:
        for key in (token, second):
            assert client.get("/api/account", headers=bearer(key)).json()["bot"] is True
        assert boardlab("user", "revoke-tokens", "cli-bot", "--db", db).returncode == 0
        for key in (token, second):
            assert code(client.get("/api/account", headers=bearer(key))) == "bad_token"


def create_app_(db):  # noqa: F811
    from boardlab.server import create_app
    return create_app(db, ai_processes=0)


# End to end: `boardlab connect --token` over real sockets --------------------------------------
def signed_up(base, name):
    client = httpx.Client(base_url=base, timeout=WAIT, headers=CSRF)
    response = client.post("api/account/signup", json={"username": name,
                                                       "password": f"{name}-password"})
    assert response.status_code == 201, response.text
    return client


def events(client):
    """The account's event stream, one event at a time (keep-alive lines skipped)."""
    with client.stream("GET", "api/stream/event", timeout=httpx.Timeout(WAIT)) as response:
        assert response.status_code == 200
        for line in response.iter_lines():
            if line.strip():
                yield json.loads(line)


def test_a_bot_online_with_connect_token_accepts_a_challenge_and_finishes_the_game(tmp_path):
    with server(tmp_path) as base:
        dana = signed_up(base, "dana")
        token = dana.post("api/account/bots", json={"username": "randbot"}).json()["token"]
        bot = subprocess.Popen([sys.executable, "-m", "boardlab.cli", "connect", base,
                                "--engine", ENGINE, "--games", "carteso", "--modes", "rated",
                                "--max-games", "1"], env={**os.environ, "BOARDLAB_TOKEN": token},
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               cwd=ROOT)
        try:
            stream = events(dana)
            # a game it does not play, and a casual one: declined with a reason
            for extra in ({"spec": "rumbo"}, {"spec": SPEC, "rated": False}):
                dana.post("api/challenges", json={"to": "randbot", "spec": SPEC, **extra})
                declined = next(e for e in stream if e["type"] == "challengeDeclined")
                assert declined["challenge"]["reason"].startswith("this bot ")
            made = dana.post("api/challenges", json={"to": "randbot", "spec": SPEC,
                                                     "rated": True, "seat": 0}).json()
            started = next(e for e in stream if e["type"] == "gameStart")["game"]
            assert started["players"]["1"] == {"username": "randbot", "bot": True}
            assert started["rated"] and started["seats"] == [0]
            link = base.replace("http", "ws", 1) + f"ws/{started['id']}"
            cookie = f"boardlab_session={dana.cookies['boardlab_session']}"
            with websockets_sync.connect(link, open_timeout=WAIT,
                                         additional_headers={"Cookie": cookie}) as ws:
                view = play_on(ws, 0, random.Random(4))
            assert view["terminal"]
            assert next(e for e in stream if e["type"] == "gameFinish")["game"]["id"] == \
                started["id"]
            out, err = bot.communicate(timeout=WAIT)
            assert bot.returncode == 0, err
            assert "online as randbot (BOT)" in out and token not in out + err
            assert f"accepted dana's challenge: {made['spec']}" in out
            profile = httpx.get(base + "api/users/randbot", timeout=WAIT).json()
            assert profile["bot"] and profile["ratings"]["carteso-5-correspondence"]["games"] == 1
        finally:
            bot.kill()
            bot.wait(timeout=60)
