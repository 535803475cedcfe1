"""The protocol's edges (docs/server-protocol.md): JSON nested too deep and strings that
are not Unicode text get a typed error and leave the socket open, a key resent for another
action is refused, a 429 says when to come back, and the documented details of frames,
tokens, moves, simultaneous rounds and the order of errors hold."""
import json
import random
import subprocess
import sys
import warnings

import pytest

with warnings.catch_warnings():      # starlette >= 1.x would rather have httpx2
    warnings.filterwarnings("ignore", message="Using `httpx`")
    from starlette.testclient import TestClient

import boardlab
from boardlab.server import create_app
from boardlab.server.clients import Limits
from boardlab.server.messages import MAX_DEPTH, MAX_FRAME
from boardlab.server.store import Store

CARTESO = "carteso(size=5)"
SIMULTANEOUS = "ctor(size=8,teams=2v2,team_protocol=simultaneous)"
LONE = '"\\ud800 x"'                 # a JSON string holding a lone surrogate


@pytest.fixture
def db(tmp_path):
    return f"sqlite:///{tmp_path / 'server.db'}"


@pytest.fixture
def client(db):
    with TestClient(create_app(db, ai_processes=0)) as test_client:
        yield test_client


def create(client, spec=CARTESO, seats=("human", "human"), **extra):
    response = client.post("/api/games", json={"spec": spec, "seats": list(seats), **extra})
    assert response.status_code == 201, response.text
    return response.json()


def socket(client, game, seat=None):
    token = game["seats"][seat]["token"] if seat is not None else None
    return client.websocket_connect(f"/ws/{game['id']}" + (f"?token={token}" if token else ""))


def action(seat, move, version, key):
    return {"type": "action", "seat": seat, "move": move, "version": version, "key": key}


def nest(levels: int, inner: str = "") -> str:
    return "[" * levels + inner + "]" * levels


def still_open(ws, version):
    """The socket still answers: a sync at ``version``."""
    ws.send_json({"type": "sync"})
    message = ws.receive_json()
    assert (message["type"], message["version"]) == ("sync", version)
    return message


# 15. Deep nesting ---------------------------------------------------------------------------
DEEP_FRAMES = [
    nest(2000),                                                         # the frame
    json.dumps(action(0, "Bc3", 0, "d1"))[:-1] + ', "extra": ' + nest(1900) + "}",
    '{"type": "action", "seat": 0, "move": ' + nest(1900, '"Bc3"') +
    ', "version": 0, "key": "d2"}',
    '{"type": "chat", "channel": "players", "seat": 0, "text": "x", "x": ' +
    '{"a": ' * 500 + "1" + "}" * 500 + "}",
    nest(MAX_DEPTH + 1),
]


@pytest.mark.parametrize("frame", DEEP_FRAMES, ids=["2000", "field-1900", "move-1900",
                                                    "objects-500", "limit+1"])
def test_json_nested_too_deep_is_bad_message_and_the_socket_stays_open(client, frame):
    assert len(frame.encode()) <= MAX_FRAME
    game = create(client)
    with socket(client, game, 0) as ws:
        ws.receive_json()
        ws.send_text(frame)
        error = ws.receive_json()
        assert (error["type"], error["code"]) == ("error", "bad_message")
        assert f"deeper than {MAX_DEPTH}" in error["message"]
        still_open(ws, 0)
        ws.send_json(action(0, "Bc3", 0, "after"))
        assert ws.receive_json() == {"type": "ack", "key": "after", "version": 1}


def test_nesting_up_to_the_limit_is_read_and_brackets_in_strings_do_not_count(client):
    game = create(client)
    with socket(client, game, 0) as ws:
        ws.receive_json()
        ws.send_text('{"type": "sync", "seat": ' + nest(MAX_DEPTH - 1, "0") + "}")
        error = ws.receive_json()                # read, then refused for its field's type
        assert error["code"] == "bad_message" and "seat must be an integer" in \
            error["message"]
        text = "\"[\\" * 100 + "{" * 100        # escaped quotes and backslashes too
        ws.send_json({"type": "chat", "channel": "players", "seat": 0, "text": text})
        assert ws.receive_json()["text"] == text


@pytest.mark.parametrize("route,body", [
    ("/api/games", nest(5000)),
    ("/api/games", '{"spec": "carteso(size=5)", "seats": ["human", "human"], "x": ' +
     nest(1900) + "}"),
    ("/api/games", '{"spec": "carteso(size=5)", "seats": ' + nest(MAX_DEPTH, '"human"') + "}"),
    ("join", '{"seat": ' + nest(3000, "0") + "}"),
    ("analysis", '{"at": ' + nest(3000, "0") + "}"),
])
def test_every_rest_body_nested_too_deep_is_bad_json(client, route, body):
    game = create(client, seats=("human", "open"))
    path = {"join": f"/api/games/{game['id']}/join",
            "analysis": f"/api/games/{game['id']}/analysis"}.get(route, route)
    response = client.post(path, content=body.encode())
    assert response.status_code == 400, response.text
    assert response.json()["error"]["code"] == "bad_json"
    assert f"deeper than {MAX_DEPTH}" in response.json()["error"]["message"]
    assert len(client.get("/api/games").json()["games"]) == 1


# 16. Strings that are not Unicode text ------------------------------------------------------
LONE_FRAMES = [
    '{"type": "chat", "channel": "players", "seat": 0, "text": ' + LONE + "}",
    '{"type": "chat", "channel": "players", "seat": 0, "text": "\\udc00"}',
    '{"type": "action", "seat": 0, "move": "Bc3\\ud800", "version": 0, "key": "u1"}',
    '{"type": "sync", ' + LONE + ": 1}",                       # a key of the object
]


@pytest.mark.parametrize("frame", LONE_FRAMES, ids=["chat", "low-half", "move", "key"])
def test_a_lone_surrogate_is_bad_message_stores_nothing_and_the_socket_stays_open(
        client, db, frame):
    game = create(client)
    with socket(client, game, 0) as ws:
        ws.receive_json()
        ws.send_text(frame)
        error = ws.receive_json()
        assert (error["type"], error["code"]) == ("error", "bad_message")
        assert "not Unicode text" in error["message"]
        assert still_open(ws, 0)["chat"] == []
    assert Store(db).chat(game["id"], 10) == (0, [])


def test_a_surrogate_pair_is_text_and_is_stored(client, db):
    game = create(client)
    with socket(client, game, 0) as ws:
        ws.receive_json()
        ws.send_text('{"type": "chat", "channel": "players", "seat": 0, '
                     '"text": "\\ud83d\\ude00 x"}')
        assert ws.receive_json()["text"] == "\U0001F600 x"
    assert [m.text for m in Store(db).chat(game["id"], 10)[1]] == ["\U0001F600 x"]


@pytest.mark.parametrize("route,body", [
    ("/api/games", '{"spec": "carteso(size=5)", "seats": ["human", {"ai": ' + LONE + "}]}"),
    ("/api/games", '{"spec": ' + LONE + ', "seats": ["human", "human"]}'),
    ("analysis", '{"at": 0, "token": ' + LONE + "}"),
])
def test_a_lone_surrogate_in_a_rest_body_is_bad_json(client, route, body):
    game = create(client)
    path = f"/api/games/{game['id']}/analysis" if route == "analysis" else route
    response = client.post(path, content=body.encode())
    assert response.status_code == 400, response.text
    assert response.json()["error"]["code"] == "bad_json"
    assert "not Unicode text" in response.json()["error"]["message"]


# 17. A key resent for another action --------------------------------------------------------
def test_a_key_resent_with_another_move_is_duplicate_key_and_changes_nothing(client):
    game = create(client)
    with socket(client, game, 0) as ws:
        ws.receive_json()
        ws.send_json(action(0, "Bc3", 0, "k1"))
        assert ws.receive_json() == {"type": "ack", "key": "k1", "version": 1}
        ws.receive_json()                                   # the update
        for resent in (action(0, "Bd3", 0, "k1"), action(0, "Bd3", 1, "k1"),
                       {"type": "resign", "seat": 0, "key": "k1"},
                       {"type": "undo", "seat": 0, "key": "k1"}):
            ws.send_json(resent)
            error = ws.receive_json()
            assert (error["code"], error["key"]) == ("duplicate_key", "k1"), resent
        for same in ("Bc3", " bC3\t", "BC3"):               # the same move: its first ack
            ws.send_json(action(0, same, 0, "k1"))
            assert ws.receive_json() == {"type": "ack", "key": "k1", "version": 1}
        assert still_open(ws, 1)["view"]["history"] == ["Bc3"]


def test_a_hotseat_key_resent_for_another_held_seat_is_duplicate_key(client):
    game = create(client, hotseat=True)
    with socket(client, game, 0) as ws:
        ws.receive_json()
        ws.send_json(action(0, "Bc3", 0, "h1"))
        assert ws.receive_json()["type"] == "ack"
        ws.receive_json()
        ws.send_json(action(1, "Bc3", 0, "h1"))
        assert ws.receive_json()["code"] == "duplicate_key"
        ws.send_json({"type": "resign", "seat": 1, "key": "h1"})
        assert ws.receive_json()["code"] == "duplicate_key"
        assert still_open(ws, 1)["view"]["terminal"] is False


def test_a_resent_resignation_undo_and_draw_get_their_first_ack(db):
    with TestClient(create_app(db, ai_processes=0)) as client:
        game = create(client, seats=("human", {"ai": "random"}))
        with socket(client, game, 0) as ws:
            ws.receive_json()
            ws.send_json(action(0, "Bc3", 0, "a1"))
            assert ws.receive_json()["type"] == "ack"
            until(ws, lambda m: m["type"] == "update" and m["version"] == 2)
            ws.send_json({"type": "undo", "seat": 0, "key": "a2"})
            assert ws.receive_json() == {"type": "ack", "key": "a2", "version": 3}
            ws.receive_json()
            ws.send_json({"type": "undo", "seat": 0, "key": "a2"})
            assert ws.receive_json() == {"type": "ack", "key": "a2", "version": 3}
            ws.send_json({"type": "resign", "seat": 0, "key": "a3"})
            assert ws.receive_json() == {"type": "ack", "key": "a3", "version": 4}
            ws.receive_json()
            for resent in ({"type": "resign", "seat": 0, "key": "a3"},
                           action(0, "resign", 0, "a3"), action(0, " Resign ", 4, "a3")):
                ws.send_json(resent)
                assert ws.receive_json() == {"type": "ack", "key": "a3", "version": 4}
            ws.send_json({"type": "accept_draw", "seat": 0, "key": "a3"})
            assert ws.receive_json()["code"] == "duplicate_key"


def test_a_key_another_server_accepted_for_another_move_is_duplicate_key(db):
    """Two servers over one database: the second has not seen the first's action when the
    same key comes to it with another move; its append conflicts, it catches up, and finds
    the key taken for another move (it used to acknowledge it as if it were this one)."""
    with TestClient(create_app(db, ai_processes=0)) as first, \
            TestClient(create_app(db, ai_processes=0)) as second:
        game = create(first)
        with socket(second, game, 0) as late:
            late.receive_json()                          # the second server holds version 0
            with socket(first, game, 0) as ws:
                ws.receive_json()
                ws.send_json(action(0, "Bc3", 0, "m1"))
                assert ws.receive_json()["type"] == "ack"
            late.send_json(action(0, "Bd3", 0, "m1"))
            answers = [late.receive_json(), late.receive_json()]
            assert [m["type"] for m in answers] == ["update", "error"]
            assert answers[1]["code"] == "duplicate_key"
            late.send_json(action(0, "Bc3", 0, "m1"))
            assert late.receive_json() == {"type": "ack", "key": "m1", "version": 1}
    assert [a.move for a in Store(db).log(game["id"])] == ["Bc3"]


# 17. Retry-After on 429 ---------------------------------------------------------------------
def test_a_refused_create_says_when_to_come_back(db):
    with TestClient(create_app(db, ai_processes=0, limits=Limits(creates_per_minute=2))) \
            as client:
        create(client), create(client)
        response = client.post("/api/games", json={"spec": CARTESO,
                                                   "seats": ["human", "human"]})
        assert response.status_code == 429
        assert response.json()["error"]["code"] == "rate_limited"
        assert 1 <= int(response.headers["Retry-After"]) <= 60


def test_a_busy_analysis_says_when_to_come_back(db):
    with TestClient(create_app(db, ai_processes=0, limits=Limits(analyses=0))) as client:
        game = create(client, hotseat=True)
        response = client.post(f"/api/games/{game['id']}/analysis",
                               json={"at": 0, "token": game["seats"][0]["token"]})
        assert response.status_code == 429 and response.json()["error"]["code"] == "busy"
        assert response.headers["Retry-After"] == "1"
        assert "Retry-After" not in client.post("/api/games", content=b"{").headers


# 17. What the document says -----------------------------------------------------------------
def until(ws, test):
    message = ws.receive_json()
    return message if test(message) else until(ws, test)


def test_an_empty_token_is_a_spectator(client):
    game = create(client)
    with client.websocket_connect(f"/ws/{game['id']}?token=") as ws:
        sync = ws.receive_json()
        assert (sync["type"], sync["seat"], sync["seats"]) == ("sync", None, [])
        ws.send_json(action(0, "Bc3", 0, "t1"))
        assert ws.receive_json()["code"] == "forbidden"


def test_every_game_reads_moves_in_any_case_with_blanks_around():
    rng = random.Random(5)
    for cls in boardlab.games():
        state = cls().new_initial_state(seed=3)
        while state.is_chance():
            state.apply(state.sample_chance(rng))
        for number in state.legal_actions()[:5]:
            text = state.action_to_string(number)
            for variant in (text.lower(), text.upper(), text.swapcase(), f" {text}\t",
                            " ".join(text.split(" ")).replace(" ", "  ")):
                assert state.string_to_action(variant) == number, (cls.name, variant)


def test_the_server_logs_a_move_as_sent_and_shows_it_in_notation(client, db):
    game = create(client)
    with socket(client, game, 0) as ws:
        ws.receive_json()
        ws.send_json(action(0, "  bC3 ", 0, "n1"))
        assert ws.receive_json()["type"] == "ack"
        assert ws.receive_json()["view"]["history"] == ["Bc3"]
    assert [a.move for a in Store(db).log(game["id"])] == ["  bC3 "]


def test_a_simultaneous_round_is_one_version_per_commit_revealed_at_the_last(client):
    game = create(client, SIMULTANEOUS, ["human"] * 4)
    names = [seat["name"] for seat in game["seats"]]
    sockets = [socket(client, game, seat).__enter__() for seat in range(4)]
    try:
        latest = [ws.receive_json() for ws in sockets]
        for number in range(20):                     # the openings: one seat at a time
            acting = latest[0]["view"]["acting"]
            if len(acting) > 1:
                break
            seat = names.index(acting[0])
            sockets[seat].send_json(action(seat, latest[seat]["view"]["legal"][0],
                                           latest[seat]["version"], f"o{number}"))
            assert sockets[seat].receive_json()["type"] == "ack"
            latest = [ws.receive_json() for ws in sockets]
        first, mate = [names.index(name) for name in latest[0]["view"]["acting"]]
        version, length = latest[0]["version"], len(latest[0]["view"]["history"])
        chosen = {seat: latest[seat]["view"]["legal"][0] for seat in (first, mate)}
        sockets[first].send_json(action(first, chosen[first], version, "c1"))
        assert sockets[first].receive_json() == {"type": "ack", "key": "c1",
                                                 "version": version + 1}
        latest = [ws.receive_json() for ws in sockets]
        hidden = f"{names[first]}:?"
        for seat, update in enumerate(latest):
            assert update["version"] == version + 1
            assert update["view"]["acting"] == [names[mate]]
            assert update["view"]["history"][length:] == \
                [f"{names[first]}:{chosen[first]}" if seat == first else hidden]
        sockets[mate].send_json(action(mate, chosen[mate], version, "c2"))
        assert sockets[mate].receive_json()["code"] == "stale_version"
        sockets[mate].send_json(action(mate, chosen[mate], version + 1, "c2"))
        assert sockets[mate].receive_json()["version"] == version + 2
        latest = [ws.receive_json() for ws in sockets]
        revealed = latest[0]["view"]["history"][length:]
        assert revealed[0] == f"{names[first]}:{chosen[first]}" and hidden not in revealed
        assert all(update["view"]["history"] == latest[0]["view"]["history"]
                   for update in latest)
    finally:
        for ws in reversed(sockets):
            ws.__exit__(None, None, None)


ORDER = [   # (message, seat held, the game at version 1 or over, the one error it gets)
    (action(1, "Bc3", 0, "r1"), 0, False, "forbidden"),         # also stale, not its turn
    (action(0, "Bd3", 0, "r2"), 0, False, "stale_version"),     # also not its turn
    (action(0, "Zz9", 0, "r3"), 0, True, "game_over"),          # also stale and illegal
    (action(1, "Bc3", 1, "r4"), 1, False, "illegal_move"),      # occupied
    ({"type": "accept_draw", "seat": 1, "key": "r5"}, 1, True, "game_over"),
    ({"type": "undo", "seat": 1, "key": "r6"}, 1, True, "game_over"),
]


@pytest.mark.parametrize("message,held,over,code", ORDER,
                         ids=[f"{m['type']}-{c}" for m, _, _, c in ORDER])
def test_the_first_error_in_the_documented_order_is_the_one_sent(client, message, held,
                                                                 over, code):
    game = create(client)
    with socket(client, game, 0) as first, socket(client, game, 1) as second:
        first.receive_json(), second.receive_json()
        first.send_json(action(0, "Bc3", 0, "r0"))
        assert first.receive_json()["type"] == "ack"
        first.receive_json(), second.receive_json()
        if over:
            first.send_json({"type": "resign", "seat": 0, "key": "rx"})
            assert first.receive_json()["type"] == "ack"
            first.receive_json(), second.receive_json()
        ws = (first, second)[held]
        ws.send_json(message)
        assert ws.receive_json()["code"] == code
        ws.send_json(action(0, "Bc3", 0, "r0") if held == 0 else action(1, "x", 0, "r0"))
        resent = ws.receive_json()           # a resend is answered before any other check
        assert resent == ({"type": "ack", "key": "r0", "version": 1} if held == 0 else
                          {"type": "error", "code": "duplicate_key", "key": "r0",
                           "message": resent["message"]})


@pytest.mark.parametrize("frame,code,says", [
    ("x" * (MAX_FRAME + 1), "too_large", "4096"),                       # and not JSON
    (json.dumps({"type": "action", "seat": 0, "spare": 1}), "bad_message", "missing"),
    (json.dumps({"type": "action", "seat": "0", "move": "B", "version": 0, "key": "k k"}),
     "bad_message", "seat must be"),                                    # fields in order
])
def test_a_frame_is_checked_size_then_json_then_fields(client, frame, code, says):
    game = create(client)
    with socket(client, game, 0) as ws:
        ws.receive_json()
        ws.send_text(frame)
        error = ws.receive_json()
        assert error["code"] == code and says in error["message"]


# The real server: frames over 64 KiB close the socket (1009) ---------------------------------
@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """A real ``boardlab serve`` (uvicorn with the server's own WebSocket settings)."""
    pytest.importorskip("uvicorn")
    folder = tmp_path_factory.mktemp("served")
    server = subprocess.Popen([sys.executable, "-m", "boardlab.cli", "serve", "--port", "0",
                               "--db", str(folder / "s.db")], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, cwd=folder)
    try:
        line = server.stdout.readline()
        assert line.startswith("boardlab server: open http://"), line + server.stderr.read()
        yield line.split("open ")[1].split()[0]
    finally:
        server.terminate()
        server.wait(timeout=60)


def served_game(url):
    import httpx
    response = httpx.post(url + "api/games", json={"spec": CARTESO,
                                                   "seats": ["human", "human"]}, timeout=120)
    assert response.status_code == 201, response.text
    return response.json()


def test_a_real_socket_gets_bad_message_for_deep_json_and_stays_open(served):
    from websockets.sync.client import connect
    game = served_game(served)
    with connect(game["seats"][0]["link"], open_timeout=120) as ws:
        assert json.loads(ws.recv(timeout=120))["type"] == "sync"
        for frame in (nest(2000), '{"type": "chat", "channel": "players", "seat": 0, '
                      '"text": ' + LONE + "}"):
            ws.send(frame)
            assert json.loads(ws.recv(timeout=120))["code"] == "bad_message"
        ws.send(json.dumps(action(0, "Bc3", 0, "e1")))
        assert json.loads(ws.recv(timeout=120)) == {"type": "ack", "key": "e1", "version": 1}


def test_a_real_socket_refuses_big_frames_and_closes_on_huge_ones(served):
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect
    game = served_game(served)
    with connect(game["seats"][0]["link"], open_timeout=120) as ws:
        assert json.loads(ws.recv(timeout=120))["type"] == "sync"
        ws.send("x" * 60000)                        # over 4096 bytes: refused, still open
        assert json.loads(ws.recv(timeout=120))["code"] == "too_large"
        ws.send("x" * 70000)                        # over 64 KiB: closed, 1009
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=120)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009


def test_a_message_the_server_fails_on_is_server_error_and_the_socket_stays_open(
        client, monkeypatch, caplog):
    from boardlab.server.chat import Chat

    async def broken(self, client, message):
        raise UnicodeEncodeError("utf-8", "\ud800", 0, 1, "surrogates not allowed")

    monkeypatch.setattr(Chat, "_store", broken)
    game = create(client)
    with socket(client, game, 0) as ws:
        ws.receive_json()
        ws.send_json({"type": "chat", "channel": "players", "seat": 0, "text": "hello"})
        error = ws.receive_json()
        assert (error["type"], error["code"]) == ("error", "server_error")
        ws.send_json(action(0, "Bc3", 0, "f1"))
        assert ws.receive_json() == {"type": "ack", "key": "f1", "version": 1}
    assert "a client message failed" in caplog.text
