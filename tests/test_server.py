"""The game server: REST lobby, WebSocket protocol, views only, the action log, AI seats."""
import ast
import asyncio
import contextlib
import json
import pathlib
import subprocess
import sys
import warnings

import pytest

with warnings.catch_warnings():      # starlette >= 1.x would rather have httpx2
    warnings.filterwarnings("ignore", message="Using `httpx`")
    from starlette.testclient import TestClient

import boardlab
from boardlab.arena.storage import database_url
from boardlab.core.driver import GameDriver
from boardlab.server import create_app
from boardlab.server.messages import MAX_FRAME
from boardlab.server.seats import token_hash
from boardlab.server.store import Store

from postgres_server import throwaway_postgres

ROOT = pathlib.Path(__file__).resolve().parent.parent
SEED = 1987654321            # a seed no view may contain


@pytest.fixture
def db(tmp_path):
    return f"sqlite:///{tmp_path / 'server.db'}"


@pytest.fixture
def client(db):
    with TestClient(create_app(db, ai_processes=0)) as test_client:
        yield test_client


def create(client, spec, seats, **extra):
    response = client.post("/api/games", json={"spec": spec, "seats": seats, **extra})
    assert response.status_code == 201, response.text
    return response.json()


def socket(client, game, seat=None, token=None):
    token = token or (game["seats"][seat]["token"] if seat is not None else None)
    return client.websocket_connect(f"/ws/{game['id']}" + (f"?token={token}" if token else ""))


def action(seat, move, version, key):
    return {"type": "action", "seat": seat, "move": move, "version": version, "key": key}


def sync(ws):
    ws.send_json({"type": "sync"})
    message = ws.receive_json()
    assert message["type"] == "sync"
    return message


def reply(ws):
    """The next message that is not an update (an ack or an error)."""
    message = ws.receive_json()
    return reply(ws) if message["type"] == "update" else message


def reference(db, game_id):
    """The game replayed from the stored log, outside the server (server entries too)."""
    from boardlab.server.log_entries import perform
    store = Store(db)
    row, log = store.game(game_id), store.log(game_id)
    store.dispose()
    driver = GameDriver(boardlab.make(row.spec), seed=row.seed)
    for entry in log:
        perform(driver, entry.seat, entry.move)
    return driver


# Playing ----------------------------------------------------------------------------------
def test_two_people_play_carteso_with_versions_and_their_own_views(client, db):
    game = create(client, "carteso(size=5)", ["human", "human"])
    assert game["spec"] == "carteso(size=5)" and "seed" not in json.dumps(game)
    with socket(client, game, 0) as first, socket(client, game, 1) as second, \
            socket(client, game) as watcher:
        starts = [ws.receive_json() for ws in (first, second, watcher)]
        assert [(m["type"], m["version"], m["seat"]) for m in starts] == \
            [("sync", 0, 0), ("sync", 0, 1), ("sync", 0, None)]
        assert "Bc3" in starts[0]["view"]["legal"] and starts[1]["view"]["legal"] == []
        first.send_json(action(0, "Bc3", 0, "m1"))
        assert first.receive_json() == {"type": "ack", "key": "m1", "version": 1}
        updates = [ws.receive_json() for ws in (first, second, watcher)]
        assert {(u["type"], u["version"]) for u in updates} == {("update", 1)}
        second.send_json(action(1, "Wa1", 1, "m2"))
        assert second.receive_json()["type"] == "ack"
        updates = [ws.receive_json() for ws in (first, second, watcher)]
        driver = reference(db, game["id"])
        for update, seat in zip(updates, (0, 1, None)):
            assert update["version"] == 2 and update["view"] == driver.view(seat)
        assert updates[2]["view"]["history"] == ["Bc3", "Wa1"]
        assert "Bb2" in updates[0]["view"]["legal"]


REFUSED = [
    (1, action(1, "Wb2", 0, "s1"), "stale_version"),
    (0, action(1, "Wb2", 1, "s2"), "forbidden"),
    (0, action(0, "Bb2", 1, "s3"), "not_your_turn"),
    (1, action(1, "Wc3", 1, "s4"), "illegal_move"),
    (1, action(1, "nonsense", 1, "s5"), "illegal_move"),
    (None, action(1, "Wb2", 1, "s6"), "forbidden"),
    (0, "{not json", "bad_message"),
    (0, "[1, 2]", "bad_message"),
    (0, {"type": "fly", "seat": 0}, "bad_message"),
    (0, {"type": "action", "seat": 0, "move": "Bb2", "version": 1}, "bad_message"),
    (0, {**action(0, "Bb2", 1, "s7"), "extra": 1}, "bad_message"),
    (0, action(0, "Bb2", True, "s8"), "bad_message"),
    (0, action("0", "Bb2", 1, "s9"), "bad_message"),
    (0, action(0, "Bb2", -1, "s10"), "bad_message"),
    (0, action(0, "Bb2", 1, "bad key with spaces"), "bad_message"),
    (0, action(0, "B" * 300, 1, "s11"), "bad_message"),
    (0, action(0, "Bb2", 1, "x" * MAX_FRAME), "too_large"),
    (0, b"\x00binary", "bad_message"),
    (0, {"type": "sync", "seat": 1}, "forbidden"),
    (0, action(0, "!draw", 1, "s12"), "bad_message"),
    (0, {"type": "undo", "seat": 0}, "bad_message"),
    (0, {"type": "rematch", "seat": 0}, "bad_message"),
    (0, {"type": "offer_draw", "seat": 1}, "forbidden"),
    (None, {"type": "offer_draw", "seat": 0}, "forbidden"),
    (None, {"type": "undo", "seat": 0, "key": "s13"}, "forbidden"),
    (None, {"type": "leave", "seat": 0, "key": "s14"}, "forbidden"),
    (None, {"type": "rematch"}, "forbidden"),
    (1, {"type": "accept_draw", "seat": 1, "key": "s15"}, "no_draw"),
    (1, {"type": "decline_draw", "seat": 1}, "no_draw"),
    (1, {"type": "undo", "seat": 1, "key": "s16"}, "undo_refused"),
    (1, {"type": "rematch"}, "not_over"),
]


@pytest.mark.parametrize("seat, frame, code", REFUSED, ids=[c for _, _, c in REFUSED])
def test_bad_frames_get_a_typed_error_and_change_nothing(client, db, seat, frame, code):
    game = create(client, "carteso(size=5)", ["human", "human"])
    with socket(client, game, 0) as mover:
        mover.receive_json()
        mover.send_json(action(0, "Bc3", 0, "first"))
        mover.receive_json(), mover.receive_json()            # ack, update
        with socket(client, game, seat) as ws:
            before = ws.receive_json()
            if isinstance(frame, bytes):
                ws.send_bytes(frame)
            else:
                ws.send_text(frame if isinstance(frame, str) else json.dumps(frame))
            error = ws.receive_json()
            assert error["type"] == "error" and error["code"] == code, error
            assert isinstance(error["message"], str) and error["message"]
            after = sync(ws)
            assert (after["version"], after["view"]) == (1, before["view"])
    assert len(Store(db).log(game["id"])) == 1


def test_a_resent_key_is_applied_once_and_gets_the_same_ack(client, db):
    game = create(client, "carteso(size=5)", ["human", "human"])
    with socket(client, game, 0) as first, socket(client, game, 1) as second:
        first.receive_json(), second.receive_json()
        first.send_json(action(0, "Bc3", 0, "once"))
        ack = first.receive_json()
        assert ack == {"type": "ack", "key": "once", "version": 1}
        assert first.receive_json()["type"] == "update"
        first.send_json(action(0, "Bc3", 0, "once"))       # resent after a lost ack
        assert first.receive_json() == ack
        second.receive_json()                                # the one update
        second.send_json(action(1, "Wa1", 1, "once"))      # another seat's action, same key
        assert second.receive_json()["code"] == "duplicate_key"
        assert sync(first)["version"] == 1 and sync(second)["version"] == 1
    assert [entry.move for entry in Store(db).log(game["id"])] == ["Bc3"]


def test_two_connections_acting_for_one_seat_at_once_exactly_one_is_accepted(client, db):
    game = create(client, "carteso(size=5)", ["human", "human"])
    with socket(client, game, 0) as one, socket(client, game, 0) as other:
        one.receive_json(), other.receive_json()
        one.send_json(action(0, "Bc3", 0, "race-1"))
        other.send_json(action(0, "Bb2", 0, "race-2"))
        replies = [reply(one), reply(other)]
    assert sorted(r.get("code", r["type"]) for r in replies) == ["ack", "stale_version"]
    assert len(Store(db).log(game["id"])) == 1


def test_hotseat_one_token_holds_every_human_seat(client):
    game = create(client, "carteso(size=5)", ["human", "human"], hotseat=True)
    assert game["seats"][0]["token"] == game["seats"][1]["token"]
    with socket(client, game, 0) as ws:
        start = ws.receive_json()
        assert start["seats"] == [0, 1] and start["seat"] == 0
        ws.send_json({"type": "sync", "seat": 1})
        asked = ws.receive_json()
        assert (asked["seat"], asked["view"]["seat"], asked["view"]["legal"]) == (1, 1, [])
        ws.send_json(action(0, "Bc3", 0, "h1"))
        ws.receive_json()
        assert ws.receive_json()["seat"] == 1                 # the seat that acts now
        ws.send_json(action(1, "Wa1", 1, "h2"))
        assert ws.receive_json()["version"] == 2


def test_an_open_seat_is_taken_and_then_played(client):
    game = create(client, "carteso(size=5)", ["open", "human"])
    assert "token" not in game["seats"][0]
    joined = client.post(f"/api/games/{game['id']}/join", json={"seat": 0}).json()
    again = client.post(f"/api/games/{game['id']}/join", json={"seat": 0})
    assert again.status_code == 409 and again.json()["error"]["code"] == "not_open"
    with socket(client, game, token=joined["token"]) as ws:
        assert ws.receive_json()["seat"] == 0
        ws.send_json(action(0, "Bc3", 0, "j1"))
        assert ws.receive_json()["type"] == "ack"


# Secrets --------------------------------------------------------------------------------------
def test_seats_and_spectators_receive_only_their_own_views_of_cartagena(client):
    game = create(client, "cartagena(players=3)", ["human"] * 3, seed=SEED)
    driver = GameDriver(boardlab.make("cartagena(players=3)"), seed=SEED)
    viewers = (0, 1, 2, None)
    with contextlib.ExitStack() as stack:
        sockets = [stack.enter_context(socket(client, game, seat)) for seat in viewers]
        texts = [[ws.receive_text()] for ws in sockets]
        for version in range(1, 16):
            mover = driver.acting()[0]
            move = json.loads(texts[mover][-1])["view"]["legal"][0]
            sockets[mover].send_json(action(mover, move, version - 1, f"c{version}"))
            texts[mover].append(sockets[mover].receive_text())        # the ack
            driver.submit(mover, move)
            for ws, seat, seen in zip(sockets, viewers, texts):
                seen.append(ws.receive_text())
                update = json.loads(seen[-1])
                assert update["version"] == version and update["view"] == driver.view(seat)
        sockets[1].send_json(action(1, "nonsense", 15, "bad"))
        texts[1].append(sockets[1].receive_text())
    for seat, seen in zip(viewers, texts):
        for text in seen:
            assert str(SEED) not in text
            hands = json.loads(text).get("view", {}).get("board", {}).get("hand", {})
            others = [name for number, name in enumerate(driver.game.seat_names)
                      if number != seat]
            assert all(isinstance(hands[name], int) for name in others if hands)
    shown = client.get(f"/api/games/{game['id']}")
    assert shown.json()["view"] == driver.view(None)
    for text in (shown.text, client.get("/api/games").text):
        assert str(SEED) not in text
        assert not any(seat["token"] in text or token_hash(seat["token"]) in text
                       for seat in game["seats"])


def test_the_record_with_the_seed_only_once_the_game_is_over(client):
    game = create(client, "cartagena(players=3)", ["human"] * 3, seed=SEED)
    url = f"/api/games/{game['id']}/record"
    refused = client.get(url)
    assert refused.status_code == 409 and refused.json()["error"]["code"] == "not_over"
    assert str(SEED) not in refused.text
    with socket(client, game, 0) as ws:                     # green resigns out of turn
        ws.receive_json()
        ws.send_json({"type": "resign", "seat": 0, "key": "r1"})
        assert ws.receive_json() == {"type": "ack", "key": "r1", "version": 1}
        assert ws.receive_json()["view"]["terminal"]
        ws.send_json(action(0, "end", 1, "late"))
        assert ws.receive_json()["code"] == "game_over"
    record = client.get(url).json()
    assert record["seed"] == SEED and record["moves"][-1].endswith("resign")
    assert record["result"]["returns"] == [-1.0, 1.0, 1.0]
    assert client.get(f"/api/games/{game['id']}").json()["status"] == "over"


def test_the_server_never_names_a_game():
    names = {"carteso", "rumbo", "cartagena", "ctor"}
    for path in (ROOT / "boardlab" / "server").rglob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                words = set(node.value.lower().replace("(", " ").split())
                assert not words & names, f"{path.name}:{node.lineno} names a game"


# AI seats ---------------------------------------------------------------------------------
def test_an_ai_seat_answers_a_human_move(client):
    game = create(client, "carteso(size=5)", ["human", {"ai": "random"}])
    with socket(client, game, 0) as ws:
        ws.receive_json()
        ws.send_json(action(0, "Bc3", 0, "a1"))
        assert ws.receive_json()["type"] == "ack"
        assert ws.receive_json()["version"] == 1
        reply = ws.receive_json()
        assert reply["type"] == "update" and reply["version"] == 2
        assert len(reply["view"]["history"]) == 2 and reply["view"]["legal"]


def test_ai_seats_think_in_worker_processes(db):
    with TestClient(create_app(db, ai_processes=1)) as client:
        game = create(client, "carteso(size=5)", [{"ai": "random"}, {"ai": "random"}])
        with socket(client, game) as ws:
            version = ws.receive_json()["version"]
            while version < 4:
                version = ws.receive_json()["version"]


class Answers:
    """A thinker that answers every request with ``answer`` (or raises it)."""

    def __init__(self, answer):
        self.answer = answer

    async def think(self, task):
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer

    def close(self):
        pass


@pytest.mark.parametrize("answer", [10 ** 6, "Bc3", RuntimeError("the agent broke")])
def test_an_agent_that_fails_or_plays_an_illegal_move_resigns(db, answer):
    with TestClient(create_app(db, thinker=Answers(answer))) as client:
        game = create(client, "carteso(size=5)", [{"ai": "random"}, "human"])
        with socket(client, game) as ws:
            message = ws.receive_json()
            while not message["view"]["terminal"]:
                message = ws.receive_json()
        assert message["view"]["result"]["winners"] == ["horizontal"]
        assert client.get(f"/api/games/{game['id']}/record").json()["moves"] == ["resign"]


def test_engines_cannot_be_started_through_the_server(client):
    response = client.post("/api/games", json={"spec": "carteso(size=5)",
                                               "seats": ["human", {"ai": "engine(cmd=ls)"}]})
    assert response.status_code == 400 and response.json()["error"] == {
        "code": "bad_seats", "message": "seat 1: external engines cannot be started through "
        "the server"}


# Persistence ---------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def postgres():
    with throwaway_postgres() as server:
        yield database_url(server.url)


def test_a_game_resumes_at_the_same_version_and_position_in_a_new_app(db):
    resume_in_a_new_app(db)


def test_a_game_resumes_on_postgresql(postgres):
    resume_in_a_new_app(postgres)


def resume_in_a_new_app(db):
    with TestClient(create_app(db, ai_processes=0)) as client:
        game = create(client, "carteso(size=5)", ["human", "human"])
        with socket(client, game, 0) as first, socket(client, game, 1) as second:
            first.receive_json(), second.receive_json()
            for version, (ws, seat, move) in enumerate([(first, 0, "Bc3"), (second, 1, "Wa1"),
                                                        (first, 0, "Bb2")]):
                ws.send_json(action(seat, move, version, f"p{version}"))
                assert reply(ws)["type"] == "ack"
        before = client.get(f"/api/games/{game['id']}").json()
    with TestClient(create_app(db, ai_processes=0)) as client:
        after = client.get(f"/api/games/{game['id']}").json()
        assert (after["version"], after["view"]) == (3, before["view"])
        listed = {g["id"]: g for g in client.get("/api/games").json()["games"]}
        assert listed[game["id"]]["version"] == 3
        with socket(client, game, 1) as ws:
            assert ws.receive_json()["version"] == 3
            ws.send_json(action(1, "Wa2", 3, "p3"))
            assert ws.receive_json() == {"type": "ack", "key": "p3", "version": 4}
            assert ws.receive_json()["type"] == "update"
            ws.send_json(action(1, "Wa1", 1, "p1"))             # acked before the restart
            assert ws.receive_json() == {"type": "ack", "key": "p1", "version": 2}


class Stuck:
    """A thinker that never answers (the server stops while an AI thinks)."""

    async def think(self, task):
        await asyncio.Event().wait()

    def close(self):
        pass


def test_an_ai_to_move_is_asked_again_after_a_restart(db):
    with TestClient(create_app(db, thinker=Stuck())) as client:
        game = create(client, "carteso(size=5)", ["human", {"ai": "random"}])
        with socket(client, game, 0) as ws:
            ws.receive_json()
            ws.send_json(action(0, "Bc3", 0, "x1"))
            assert ws.receive_json()["type"] == "ack"
    assert len(Store(db).log(game["id"])) == 1
    with TestClient(create_app(db, ai_processes=0)) as client:
        with socket(client, game) as ws:
            version = ws.receive_json()["version"]
            while version < 2:
                version = ws.receive_json()["version"]
    assert [entry.seat for entry in Store(db).log(game["id"])] == [0, 1]


# The lobby ------------------------------------------------------------------------------------
@pytest.mark.parametrize("body, status, code", [
    ({"spec": "nogame", "seats": ["human"]}, 400, "bad_spec"),
    ({"spec": "carteso(size=5)", "seats": ["human"]}, 400, "bad_seats"),
    ({"spec": "carteso(size=5)", "seats": ["human", {"ai": "nosuchagent"}]}, 400, "bad_seats"),
    ({"spec": "carteso(size=5)", "seats": ["human", "robot"]}, 400, "bad_seats"),
    ({"spec": "carteso(size=5)", "seats": ["human", "human"], "seed": -1}, 400, "bad_request"),
    ({"spec": "carteso(size=5)", "seats": ["human", "human"], "hotseat": 1}, 400,
     "bad_request"),
    ({"spec": "carteso(size=5)", "seats": ["human", "human"], "extra": 1}, 400, "bad_request"),
    ({"spec": "x" * 20000, "seats": []}, 413, "too_large"),
])
def test_bad_create_requests_are_refused(client, body, status, code):
    response = client.post("/api/games", json=body)
    assert response.status_code == status and response.json()["error"]["code"] == code
    assert client.get("/api/games").json() == {"games": []}


def test_unknown_games_and_forged_tokens_are_refused(client):
    assert client.get("/api/games/nope").status_code == 404
    assert client.post("/api/games", content=b"{nope").json()["error"]["code"] == "bad_json"
    game = create(client, "carteso(size=5)", ["human", "human"])
    for path, code in ((f"/ws/{game['id']}?token=forged", "forbidden"),
                       ("/ws/unknown", "not_found")):
        with client.websocket_connect(path) as ws:
            assert ws.receive_json()["code"] == code
    listed = client.get("/api/games").json()["games"]
    assert [g["id"] for g in listed] == [game["id"]] and "token" not in json.dumps(listed)
    assert client.get("/").status_code == 200


# The command ------------------------------------------------------------------------------
def test_boardlab_serve_listens_and_plays_over_real_sockets(tmp_path):
    import httpx
    from websockets.sync.client import connect
    server = subprocess.Popen([sys.executable, "-m", "boardlab.cli", "serve", "--port", "0",
                               "--db", str(tmp_path / "s.db")], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    try:
        line = server.stdout.readline()
        assert line.startswith("boardlab server: open http://127.0.0.1:"), \
            line + server.stderr.read()
        url = line.split("open ")[1].split()[0]
        game = httpx.post(url + "api/games", json={"spec": "carteso(size=5)", "seats": [
            "human", {"ai": "random"}]}, timeout=120).json()
        with connect(game["seats"][0]["link"], open_timeout=120) as ws:
            assert json.loads(ws.recv(timeout=120))["type"] == "sync"
            ws.send(json.dumps(action(0, "Bc3", 0, "e1")))
            replies = [json.loads(ws.recv(timeout=120)) for _ in range(3)]
        assert [r["type"] for r in replies] == ["ack", "update", "update"]
        assert replies[2]["version"] == 2
    finally:
        server.terminate()
        server.wait(timeout=60)


# Clocks -------------------------------------------------------------------------------------
class FakeClock:
    """The server's time, moved on by the test; ``sleep`` ends once the time has come
    (checked every millisecond), so a loaded machine cannot miss a deadline."""

    def __init__(self, stuck: bool = False):
        self.time, self.stuck = 1000.0, stuck

    def now(self):
        return self.time

    async def sleep(self, seconds):
        target = self.time + seconds
        while self.stuck or self.time < target:
            await asyncio.sleep(0.001)


def timed_app(db, clock, **extra):
    return TestClient(create_app(db, ai_processes=0, clock=clock, **extra))


def until(ws, test):
    """The next message for which ``test`` holds (skipping others)."""
    message = ws.receive_json()
    return message if test(message) else until(ws, test)


def play_opening(client, game) -> int:
    """Every side makes its first move (each seat plays its first legal move in turn),
    so that the clocks run; the version reached."""
    with contextlib.ExitStack() as stack:
        sockets = [stack.enter_context(socket(client, game, seat))
                   for seat in range(len(game["seats"]))]
        for ws in sockets:
            ws.receive_json()
        for number in range(100):
            states = [sync(ws) for ws in sockets]
            if states[0]["elapsed"]:
                return states[0]["version"]
            seat = next(i for i, state in enumerate(states) if state["view"]["legal"])
            move = states[seat]["view"]["legal"][0]
            sockets[seat].send_json(action(seat, move, states[seat]["version"], f"o{number}"))
            until(sockets[seat], lambda m: m["type"] == "ack")
            for ws in sockets:
                until(ws, lambda m: m["type"] == "update")
    raise AssertionError("the opening did not end in 100 moves")


def test_a_fischer_clock_charges_thinking_time_stores_it_and_resumes(db):
    clock = FakeClock()
    fischer = {"base": 10, "increment": 2}
    with timed_app(db, clock) as client:
        game = create(client, "carteso(size=5)", ["human", "human"], clock=fischer)
        assert game["clock"] == {"base": 10.0, "increment": 2.0}
        with socket(client, game, 0) as first, socket(client, game, 1) as second:
            start = first.receive_json()
            second.receive_json()
            assert start["view"]["clocks"] == {"vertical": 10.0, "horizontal": 10.0}
            assert start["elapsed"] == {}                     # the opening: no clock runs
            assert start["clock"] == {"base": 10.0, "increment": 2.0}
            clock.time += 3
            first.send_json(action(0, "Bc3", 0, "t0"))
            assert first.receive_json()["type"] == "ack"
            assert first.receive_json()["elapsed"] == {}
            second.receive_json()
            second.send_json(action(1, "Wa1", 1, "t1"))     # every side has moved
            assert second.receive_json()["type"] == "ack"
            assert second.receive_json()["elapsed"] == {"vertical": 0.0}
            first.receive_json()
            clock.time += 3
            first.send_json(action(0, "Bb2", 2, "t2"))
            assert first.receive_json()["type"] == "ack"
            update = first.receive_json()
            assert update["view"]["clocks"] == {"vertical": 9.0, "horizontal": 10.0}
            assert update["elapsed"] == {"horizontal": 0.0}
            second.receive_json()
            clock.time += 4.5
            assert sync(second)["elapsed"] == {"horizontal": 4.5}
            second.send_json(action(1, "Wd4", 3, "t3"))
            assert reply(second)["type"] == "ack"
        assert client.get(f"/api/games/{game['id']}").json()["clock"] == game["clock"]
    assert [entry.clocks for entry in Store(db).log(game["id"])] == \
        [[10.0, 10.0], [10.0, 10.0], [9.0, 10.0], [9.0, 7.5]]
    later = FakeClock()                                      # a restart: time resumes
    with timed_app(db, later) as client:
        with socket(client, game, 0) as ws:
            assert ws.receive_json()["view"]["clocks"] == {"vertical": 9.0,
                                                           "horizontal": 7.5}
            later.time += 1
            ws.send_json(action(0, "Bb4", 4, "t4"))
            assert reply(ws)["type"] == "ack"
    assert Store(db).log(game["id"])[-1].clocks == [10.0, 7.5]


def test_a_flag_is_detected_without_any_message_and_logged(db):
    clock = FakeClock()
    with timed_app(db, clock) as client:
        game = create(client, "carteso(size=5)", ["human", "human"],
                      clock={"base": 1, "increment": 0})
        opened = play_opening(client, game)
        with socket(client, game, 0) as first, socket(client, game) as watcher:
            first.receive_json(), watcher.receive_json()
            clock.time += 0.5
            assert sync(watcher)["version"] == opened         # not yet
            clock.time += 0.6
            updates = [ws.receive_json() for ws in (first, watcher)]
            first.send_json(action(0, "Bc3", opened, "late"))
            assert first.receive_json()["code"] == "game_over"
        record = client.get(f"/api/games/{game['id']}/record").json()
    for update in updates:
        result = update["view"]["result"]
        assert update["version"] == opened + 1 and update["view"]["terminal"]
        assert (result["winners"], result["reason"]) == (["horizontal"], "time")
        assert update["view"]["clocks"]["vertical"] == 0.0
    log = Store(db).log(game["id"])
    assert [(entry.seat, entry.move) for entry in log][opened:] == [(0, "!timeout")]
    assert record["meta"]["forfeit"]["kind"] == "time" and record["meta"]["clock"]["base"] == 1


def test_an_action_after_the_flag_loses_on_time_even_before_the_timer(db):
    clock = FakeClock(stuck=True)                            # the timer never wakes
    with timed_app(db, clock) as client:
        game = create(client, "carteso(size=5)", ["human", "human"],
                      clock={"base": 5, "increment": 1})
        opened = play_opening(client, game)
        with socket(client, game, 0) as ws:
            ws.receive_json()
            clock.time += 5
            ws.send_json(action(0, "Bc3", opened, "k1"))
            assert reply(ws)["code"] == "out_of_time"
            assert sync(ws)["view"]["result"]["reason"] == "time"
    assert [entry.move for entry in Store(db).log(game["id"])][opened:] == ["!timeout"]


def test_a_flagged_seat_of_a_team_loses_for_its_team(db):
    clock = FakeClock()
    with timed_app(db, clock) as client:
        game = create(client, "ctor(size=8,teams=2v2)", ["human"] * 4,
                      clock={"base": 2, "increment": 0})
        play_opening(client, game)
        with socket(client, game) as watcher:
            start = watcher.receive_json()["view"]
            clock.time += 2
            result = until(watcher, lambda m: m["view"]["terminal"])["view"]["result"]
    loser = start["acting"][0]
    losers = next(team["seats"] for team in start["teams"] if loser in team["seats"])
    assert result["reason"] == "time" and len(losers) == 2
    assert result["winners"] == [name for name in start["seats"] if name not in losers]


def test_an_ai_seat_is_charged_and_flags_too(db):
    clock = FakeClock()
    with timed_app(db, clock, thinker=FirstMoveThenStuck()) as client:
        game = create(client, "carteso(size=5)", [{"ai": "random"}, "human"],
                      clock={"base": 3, "increment": 0})
        with socket(client, game, 1) as ws:
            moved = until(ws, lambda m: m["version"] == 1)
            ws.send_json(action(1, moved["view"]["legal"][0], 1, "f1"))   # the clocks run
            assert reply(ws)["type"] == "ack"
            clock.time += 3
            assert until(ws, lambda m: m["type"] == "update" and m["view"]["terminal"]) \
                ["view"]["result"]["winners"] == ["horizontal"]


@pytest.mark.parametrize("clock", [{"base": 0, "increment": 0}, {"base": 5},
                                   {"base": True, "increment": 0}, {"base": "5", "increment": 0},
                                   {"base": 5, "increment": -1}, [5, 1],
                                   {"base": 10 ** 9, "increment": 0}])
def test_bad_clocks_are_refused(client, clock):
    response = client.post("/api/games", json={"spec": "carteso(size=5)",
                                               "seats": ["human", "human"], "clock": clock})
    assert response.status_code == 400 and response.json()["error"]["code"] == "bad_clock"


def test_a_database_of_the_first_server_gains_the_clock_columns(tmp_path):
    import sqlalchemy
    url = f"sqlite:///{tmp_path / 'old.db'}"
    engine = sqlalchemy.create_engine(url)
    with engine.begin() as db:
        db.exec_driver_sql("CREATE TABLE server_games (id VARCHAR(32) PRIMARY KEY, spec "
                           "VARCHAR(500), seed BIGINT, seats JSON, status VARCHAR(16), "
                           "created DATETIME, updated DATETIME)")
        db.exec_driver_sql("CREATE TABLE server_actions (id INTEGER PRIMARY KEY, game_id "
                           "VARCHAR(32), idx INTEGER, seat INTEGER, move VARCHAR(200), key "
                           "VARCHAR(64), created DATETIME)")
    engine.dispose()
    with TestClient(create_app(url, ai_processes=0)) as client:
        game = create(client, "carteso(size=5)", ["human", "human"],
                      clock={"base": 60, "increment": 0})
        with socket(client, game, 0) as ws:
            ws.receive_json()
            ws.send_json(action(0, "Bc3", 0, "o1"))
            assert ws.receive_json()["type"] == "ack"
    assert Store(url).log(game["id"])[0].clocks[1] == 60.0


# Undo against an AI -----------------------------------------------------------------------
replayed = reference


def test_undo_against_an_ai_takes_back_the_move_and_the_reply(client, db):
    game = create(client, "carteso(size=5)", ["human", {"ai": "random"}])
    with socket(client, game, 0) as ws:
        ws.receive_json()
        ws.send_json(action(0, "Bc3", 0, "u1"))
        until(ws, lambda m: m.get("version") == 2 and m["type"] == "update")
        ws.send_json({"type": "undo", "seat": 0, "key": "u2"})
        assert ws.receive_json() == {"type": "ack", "key": "u2", "version": 3}
        update = ws.receive_json()
        assert update["version"] == 3 and update["view"]["history"] == []
        assert update["view"] == replayed(db, game["id"]).view(0)
        ws.send_json({"type": "undo", "seat": 0, "key": "u2"})          # resent: once
        assert ws.receive_json() == {"type": "ack", "key": "u2", "version": 3}
        ws.send_json({"type": "undo", "seat": 0, "key": "u3"})
        assert ws.receive_json()["code"] == "undo_refused"             # nothing to take back
        ws.send_json(action(0, "Bb2", 3, "u4"))
        assert ws.receive_json()["type"] == "ack"
        assert until(ws, lambda m: m.get("version") == 5)["view"]["history"][0] == "Bb2"
    assert [entry.move for entry in Store(db).log(game["id"])][:3] == ["Bc3", Store(db).log(
        game["id"])[1].move, "!undo 0"]
    with TestClient(create_app(db, ai_processes=0)) as again:    # a replay reproduces it
        assert again.get(f"/api/games/{game['id']}").json()["view"] == \
            replayed(db, game["id"]).view(None)


def test_undo_while_the_ai_thinks_takes_back_the_own_move(db):
    with TestClient(create_app(db, thinker=Stuck())) as client:
        game = create(client, "carteso(size=5)", ["human", {"ai": "random"}])
        with socket(client, game, 0) as ws:
            ws.receive_json()
            ws.send_json(action(0, "Bc3", 0, "w1"))
            assert reply(ws)["type"] == "ack"
            ws.send_json({"type": "undo", "seat": 0, "key": "w2"})
            assert reply(ws) == {"type": "ack", "key": "w2", "version": 2}
            update = ws.receive_json()
            assert update["version"] == 2 and update["view"]["legal"]


@pytest.mark.parametrize("spec, seats, moves, why", [
    ("carteso(size=5)", ["human", "human"], ["Bc3"], "against AIs"),
    ("cartagena", [{"ai": "random"}, "human"], None, "across a reveal"),
])
def test_undo_is_refused_against_people_and_across_a_reveal(db, spec, seats, moves, why):
    seat = seats.index("human")
    with TestClient(create_app(db, thinker=Stuck())) as client:
        game = create(client, spec, seats, seed=SEED)                # the human acts first
        with socket(client, game, seat) as ws:
            start = ws.receive_json()
            move = moves[0] if moves else start["view"]["legal"][0]
            ws.send_json(action(seat, move, 0, "r1"))
            assert reply(ws)["type"] == "ack"
            ws.send_json({"type": "undo", "seat": seat, "key": "r2"})
            error = reply(ws)
            assert error["code"] == "undo_refused" and why in error["message"]
    assert len(Store(db).log(game["id"])) == 1


# Draws --------------------------------------------------------------------------------------
def test_an_accepted_draw_offer_ends_the_game_with_all_returns_zero(client, db):
    game = create(client, "carteso(size=5)", ["human", "human"])
    with socket(client, game, 0) as first, socket(client, game, 1) as second, \
            socket(client, game) as watcher:
        for ws in (first, second, watcher):
            assert ws.receive_json()["draw_offer"] is None
        first.send_json({"type": "offer_draw", "seat": 0})
        for ws in (first, second, watcher):
            assert ws.receive_json() == {"type": "draw", "version": 0, "by": "vertical",
                                         "event": "offered", "draw_offer": "vertical"}
        assert sync(second)["draw_offer"] == "vertical"
        first.send_json({"type": "accept_draw", "seat": 0, "key": "d0"})
        assert first.receive_json()["code"] == "no_draw"           # not one's own offer
        first.send_json({"type": "offer_draw", "seat": 0})
        assert first.receive_json()["code"] == "no_draw"           # it stands already
        second.send_json({"type": "accept_draw", "seat": 1, "key": "d1"})
        assert second.receive_json() == {"type": "ack", "key": "d1", "version": 1}
        updates = [ws.receive_json() for ws in (first, second, watcher)]
        second.send_json({"type": "offer_draw", "seat": 1})
        assert second.receive_json()["code"] == "game_over"
    for update, seat in zip(updates, (0, 1, None)):
        view = update["view"]
        assert view["terminal"] and view["legal"] == [] and view["acting"] == []
        driver = replayed(db, game["id"])
        assert view["result"] == {"winners": [], "draw": True, "returns": [0.0, 0.0],
                                  "scores": driver.state.scores(), "reason": "agreement",
                                  "summary": "Draw (agreed)"}
        assert view["board"] == driver.view(seat)["board"]
    assert [entry.move for entry in Store(db).log(game["id"])] == ["!draw"]
    record = client.get(f"/api/games/{game['id']}/record").json()
    assert record["result"]["returns"] == [0.0, 0.0] and record["meta"]["agreed_draw"]
    with TestClient(create_app(db, ai_processes=0)) as again:       # durable
        shown = again.get(f"/api/games/{game['id']}").json()
        assert shown["status"] == "over" and shown["view"]["result"]["draw"]


def test_a_draw_offer_is_declined_or_lapses_with_the_next_action(client, db):
    game = create(client, "carteso(size=5)", ["human", "human"])
    with socket(client, game, 0) as first, socket(client, game, 1) as second:
        first.receive_json(), second.receive_json()
        second.send_json({"type": "decline_draw", "seat": 1})
        assert second.receive_json()["code"] == "no_draw"          # nothing to decline
        first.send_json({"type": "offer_draw", "seat": 0})
        first.receive_json(), second.receive_json()
        second.send_json({"type": "decline_draw", "seat": 1})
        for ws in (first, second):
            message = ws.receive_json()
            assert (message["event"], message["draw_offer"]) == ("declined", None)
        assert first.receive_json()["type"] == "declined"         # the offerer is told
        second.send_json({"type": "offer_draw", "seat": 1})
        first.receive_json(), second.receive_json()
        first.send_json(action(0, "Bc3", 0, "l1"))
        assert first.receive_json()["type"] == "ack"
        assert first.receive_json()["draw_offer"] is None and \
            second.receive_json()["draw_offer"] is None
        first.send_json({"type": "accept_draw", "seat": 0, "key": "l2"})
        assert first.receive_json()["code"] == "no_draw"
    assert [entry.move for entry in Store(db).log(game["id"])] == ["Bc3"]


def test_no_draws_with_more_than_two_sides_and_ai_sides_decline(client):
    game = create(client, "cartagena(players=3)", ["human"] * 3)
    with socket(client, game, 0) as ws:
        ws.receive_json()
        ws.send_json({"type": "offer_draw", "seat": 0})
        assert ws.receive_json()["code"] == "no_draw"
    game = create(client, "carteso(size=5)", ["human", {"ai": "random"}])
    with socket(client, game, 0) as ws:
        ws.receive_json()
        ws.send_json({"type": "offer_draw", "seat": 0})
        assert [ws.receive_json()["event"] for _ in range(2)] == ["offered", "declined"]
        assert ws.receive_json() == {"type": "declined", "offer": "draw", "by": "horizontal"}
        assert sync(ws)["draw_offer"] is None


# Leave and rematch ------------------------------------------------------------------------
def test_leaving_a_running_game_resigns_and_opens_the_seat(client, db):
    game = create(client, "carteso(size=5)", ["human", "human"])
    with socket(client, game, 0) as first, socket(client, game, 1) as second:
        first.receive_json(), second.receive_json()
        first.send_json({"type": "leave", "seat": 0, "key": "bye"})
        assert first.receive_json() == {"type": "ack", "key": "bye", "version": 1}
        assert first.receive_json()["view"]["result"]["winners"] == ["horizontal"]
        assert first.receive_json() == {"type": "left", "seat": 0, "key": "bye", "seats": []}
        seats = first.receive_json()
        assert seats["type"] == "seats" and seats["seats"][0]["kind"] == "open"
        assert sync(first)["seat"] is None                   # a spectator now
        first.send_json({"type": "leave", "seat": 0, "key": "bye2"})
        assert first.receive_json()["code"] == "forbidden"
        assert second.receive_json()["view"]["terminal"]
        assert second.receive_json()["type"] == "seats"
        second.send_json({"type": "leave", "seat": 1, "key": "bye3"})   # over: just goes
        assert second.receive_json()["type"] == "left"
    assert [entry.move for entry in Store(db).log(game["id"])] == ["resign"]
    assert [seat["kind"] for seat in Store(db).game(game["id"]).seats] == ["open", "open"]
    with socket(client, game, token=game["seats"][0]["token"]) as ws:
        assert ws.receive_json()["code"] == "forbidden"      # the old token holds nothing


class FirstMoveThenStuck(Stuck):
    """A thinker that plays the first legal move of the game, then never answers."""

    async def think(self, task):
        if not task["view"]["history"]:
            return task["view"]["legal_actions"][0]
        return await super().think(task)


def test_a_rematch_swaps_the_seats_with_fresh_tokens(client, db):
    game = create(client, "carteso(size=5)", ["human", "human"],
                  clock={"base": 600, "increment": 5})
    with socket(client, game, 0) as first, socket(client, game, 1) as second, \
            socket(client, game) as watcher:
        for ws in (first, second, watcher):
            ws.receive_json()
        first.send_json({"type": "rematch"})
        assert first.receive_json()["code"] == "not_over"
        watcher.send_json({"type": "rematch"})
        assert watcher.receive_json()["code"] == "forbidden"
        second.send_json({"type": "resign", "seat": 1, "key": "g1"})
        assert second.receive_json()["type"] == "ack"
        for ws in (first, second, watcher):
            ws.receive_json()
        second.send_json({"type": "rematch"})                  # an offer ...
        assert {ws.receive_json()["type"] for ws in (first, second, watcher)} == \
            {"rematch_offer"}
        first.send_json({"type": "rematch"})                   # ... the other side agrees
        offers = [ws.receive_json() for ws in (first, second, watcher)]
        first.send_json({"type": "rematch"})                   # asked again: the same one
        assert first.receive_json() == {"type": "rematch", "id": offers[0]["id"]}
        assert sync(watcher)["rematch"] == offers[0]["id"]
    new = offers[0]["id"]
    assert offers[2] == {"type": "rematch", "id": new}
    assert (offers[0]["seats"], offers[1]["seats"]) == ([1], [0])
    tokens = {offers[0]["token"], offers[1]["token"]}
    assert len(tokens) == 2 and not tokens & {seat["token"] for seat in game["seats"]}
    shown = client.get(f"/api/games/{new}").json()
    assert shown["clock"] == game["clock"] and shown["version"] == 0
    rematch = {"id": new, "seats": [{"token": offers[1]["token"]}, {"token": offers[0]["token"]}]}
    with socket(client, rematch, 0) as ws:
        start = ws.receive_json()
        assert start["seats"] == [0] and start["view"]["legal"]
        ws.send_json(action(0, "Bc3", 0, "n1"))
        assert ws.receive_json()["type"] == "ack"
    assert Store(db).game(game["id"]).rematch == new
    assert client.get(f"/api/games/{game['id']}").json()["rematch"] == new


def test_a_rematch_keeps_ai_seats_and_opens_absent_peoples_seats(client):
    game = create(client, "cartagena(players=3)", ["human", "human", {"ai": "random"}])
    with socket(client, game, 0) as ws:
        ws.receive_json()
        ws.send_json({"type": "resign", "seat": 0, "key": "q1"})
        until(ws, lambda m: m["type"] == "update")
        ws.send_json({"type": "rematch"})
        # the server handles this connection's messages in order (the resignation first),
        # but the AI seat may have moved just before it: that update can come in between
        offer = until(ws, lambda m: m["type"] == "rematch")
    assert offer["seats"] == [1]
    seats = client.get(f"/api/games/{offer['id']}").json()["seats"]
    assert [seat["kind"] for seat in seats] == ["ai", "human", "open"]


def test_the_protocol_document_names_every_message_and_error():
    from boardlab.server.messages import CODES, FIELDS
    text = (ROOT / "docs" / "server-protocol.md").read_text()
    for kind in FIELDS:
        assert f'{{"type": "{kind}"' in text, kind
    for code in CODES:
        assert f"| `{code}` |" in text, code


def test_clocks_flags_and_draws_are_durable_on_postgresql(postgres):
    clock = FakeClock()
    with timed_app(postgres, clock) as client:
        timed = create(client, "carteso(size=5)", ["human", "human"],
                       clock={"base": 4, "increment": 1})
        drawn = create(client, "carteso(size=5)", ["human", "human"])
        opened = play_opening(client, timed)
        with socket(client, timed, 0) as ws:
            ws.receive_json()
            clock.time += 1.5
            ws.send_json(action(0, "Bc3", opened, "pg1"))
            assert reply(ws)["type"] == "ack"
            clock.time += 4
            assert until(ws, lambda m: m["view"]["terminal"])["view"]["result"]["reason"] \
                == "time"
        with socket(client, drawn, 0) as first, socket(client, drawn, 1) as second:
            first.receive_json(), second.receive_json()
            first.send_json({"type": "offer_draw", "seat": 0})
            second.receive_json()
            second.send_json({"type": "accept_draw", "seat": 1, "key": "pg2"})
            assert second.receive_json()["type"] == "ack"
    with timed_app(postgres, FakeClock()) as client:
        view = client.get(f"/api/games/{timed['id']}").json()["view"]
        assert view["clocks"] == {"vertical": 3.5, "horizontal": 0.0}
        assert view["result"]["winners"] == ["vertical"]
        assert client.get(f"/api/games/{drawn['id']}").json()["view"]["result"]["draw"]


def test_an_undo_gives_no_time_back(db):
    clock = FakeClock()
    with timed_app(db, clock) as client:
        game = create(client, "carteso(size=5)", ["human", {"ai": "random"}],
                      clock={"base": 10, "increment": 1})
        with socket(client, game, 0) as ws:
            ws.receive_json()
            ws.send_json(action(0, "Bc3", 0, "c0"))       # the opening: not charged
            reached = until(ws, lambda m: m.get("version") == 2 and m["type"] == "update")
            clock.time += 2
            ws.send_json(action(0, reached["view"]["legal"][0], 2, "c1"))
            until(ws, lambda m: m.get("version") == 4 and m["type"] == "update")
            clock.time += 3
            ws.send_json({"type": "undo", "seat": 0, "key": "c2"})
            update = until(ws, lambda m: m["type"] == "update")
    assert update["view"]["clocks"] == {"vertical": 9.0, "horizontal": 11.0}
    assert update["elapsed"] == {"vertical": 0.0}


def test_a_hotseat_rematch_keeps_one_token(client):
    game = create(client, "carteso(size=5)", ["human", "human"], hotseat=True)
    with socket(client, game, 0) as ws:
        ws.receive_json()
        ws.send_json({"type": "resign", "seat": 1, "key": "h1"})
        until(ws, lambda m: m["type"] == "update")
        ws.send_json({"type": "rematch"})
        offer = ws.receive_json()
    assert offer["seats"] == [0, 1]
    with socket(client, {"id": offer["id"]}, token=offer["token"]) as ws:
        assert ws.receive_json()["seats"] == [0, 1]
