"""The server messages the web app uses beyond play: chat, flood limits, positions,
analysis, AI budget caps, and agreed draws that replay from the record (the SGF download:
test_sgf.py)."""
import asyncio
import random
import re
import warnings

import pytest

with warnings.catch_warnings():      # starlette >= 1.x would rather have httpx2
    warnings.filterwarnings("ignore", message="Using `httpx`")
    from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

import boardlab
from boardlab.core.errors import IllegalMoveError, RecordError
from boardlab.core.record import check_record
from boardlab.server import create_app
from boardlab.server.clients import Limits
from boardlab.server.store import Store

SECRET_CTOR = "ctor(size=8,teams=2v2,team_protocol=simultaneous,secret_squares=true)"


class FakeClock:
    """The server's time, moved on by the test (nothing here waits on it)."""

    def __init__(self):
        self.time = 1000.0

    def now(self):
        return self.time

    async def sleep(self, seconds):
        target = self.time + seconds
        while self.time < target:
            await asyncio.sleep(0.001)


@pytest.fixture
def db(tmp_path):
    return f"sqlite:///{tmp_path / 'server.db'}"


@pytest.fixture
def clock():
    return FakeClock()


@pytest.fixture
def client(db, clock):
    with TestClient(create_app(db, ai_processes=0, clock=clock)) as test_client:
        yield test_client


def create(client, spec, seats, **extra):
    response = client.post("/api/games", json={"spec": spec, "seats": seats, **extra})
    assert response.status_code == 201, response.text
    return response.json()


def socket(client, game, seat=None):
    token = game["seats"][seat]["token"] if seat is not None else None
    return client.websocket_connect(f"/ws/{game['id']}" + (f"?token={token}" if token else ""))


def sync(ws):
    """A sync; as messages to one connection arrive in order, everything sent to it
    before the sync has been received by then."""
    ws.send_json({"type": "sync"})
    message = ws.receive_json()
    assert message["type"] == "sync", message
    return message


def nothing_pending(ws):
    """The connection received nothing it has not read yet."""
    sync(ws)


def chat(seat, channel, text):
    message = {"type": "chat", "channel": channel, "text": text}
    return message if seat is None else {**message, "seat": seat}


def play(ws, seat, move, version, key):
    ws.send_json({"type": "action", "seat": seat, "move": move, "version": version,
                  "key": key})


def until(ws, kind):
    """The next message of ``kind`` (an error other than the one awaited fails)."""
    message = ws.receive_json()
    assert message["type"] != "error" or kind == "error", message
    return message if message["type"] == kind else until(ws, kind)


def finish_by_resignation(client, game, moves):
    """Play ``moves`` in a hotseat game, then the side to move resigns; the record."""
    with socket(client, game, 0) as ws:
        view = ws.receive_json()
        for number, move in enumerate(moves):
            play(ws, view["seat"], move, view["version"], f"m{number}")
            view = until(ws, "update")
        ws.send_json({"type": "resign", "seat": view["seat"], "key": "end"})
        until(ws, "update")
    return client.get(f"/api/games/{game['id']}/record").json()


# Chat ----------------------------------------------------------------------------------------
def test_each_chat_channel_reaches_exactly_its_readers(client):
    game = create(client, SECRET_CTOR, ["human"] * 4)
    with socket(client, game, 0) as b1, socket(client, game, 1) as b2, \
            socket(client, game, 2) as w1, socket(client, game, 3) as w2, \
            socket(client, game) as watcher:
        seats, everyone = (b1, b2, w1, w2), (b1, b2, w1, w2, watcher)
        for ws in everyone:
            assert ws.receive_json()["chat"] == []
        b1.send_json(chat(0, "players", "good luck"))
        for ws in seats:
            message = ws.receive_json()
            assert message["type"] == "chat" and message["channel"] == "players"
            assert message["from"] == "black-1" and message["text"] == "good luck"
            assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", message["at"])
        nothing_pending(watcher)                    # players' chat never reaches spectators
        w2.send_json(chat(3, "team", "take the corner"))
        for ws in (w1, w2):
            assert ws.receive_json()["text"] == "take the corner"
        for ws in (b1, b2, watcher):                # nor the other team, nor spectators
            nothing_pending(ws)
        watcher.send_json(chat(None, "spectators", "nice move"))
        assert watcher.receive_json()["from"] == "spectator"
        for ws in seats:                            # off by default for seat holders
            nothing_pending(ws)
        b2.send_json({"type": "spectator_chat", "on": True})
        assert [m["text"] for m in b2.receive_json()["chat"]] == \
            ["good luck", "nice move"]              # the sync it gets now
        watcher.send_json(chat(None, "spectators", "again"))
        assert watcher.receive_json()["text"] == b2.receive_json()["text"] == "again"
        for ws in (b1, w1, w2):
            nothing_pending(ws)
        b2.send_json({"type": "spectator_chat", "on": False})
        assert [m["text"] for m in b2.receive_json()["chat"]] == ["good luck"]
    # a refresh keeps the chat: each reader gets what it may read, in order
    expected = {0: ["good luck"], 2: ["good luck", "take the corner"],
                None: ["nice move", "again"]}
    for seat, texts in expected.items():
        with socket(client, game, seat) as ws:
            assert [m["text"] for m in ws.receive_json()["chat"]] == texts


def test_the_chat_is_stored_and_outlives_the_server(db, clock):
    with TestClient(create_app(db, ai_processes=0, clock=clock)) as client:
        game = create(client, "carteso(size=5)", ["human", "human"])
        with socket(client, game, 1) as ws:
            ws.receive_json()
            ws.send_json(chat(1, "players", "  hello\x00\x1b there\x7f  "))
            assert ws.receive_json()["text"] == "hello there"
    store = Store(db)
    count, stored = store.chat(game["id"], 10)
    store.dispose()
    assert count == 1 and stored[0].text == "hello there" and stored[0].sender == "horizontal"
    assert stored[0].channel == "players" and stored[0].team is None
    with TestClient(create_app(db, ai_processes=0, clock=clock)) as client, \
            socket(client, game, 0) as ws:
        assert [m["text"] for m in ws.receive_json()["chat"]] == ["hello there"]


def test_two_servers_on_one_database_number_the_chat_in_turn(db, clock):
    with TestClient(create_app(db, ai_processes=0, clock=clock)) as one, \
            TestClient(create_app(db, ai_processes=0, clock=clock)) as two:
        game = create(one, "carteso(size=5)", ["human", "human"])
        with socket(one, game, 0) as first, socket(two, game, 1) as second:
            first.receive_json(), second.receive_json()
            first.send_json(chat(0, "players", "from one"))
            assert first.receive_json()["text"] == "from one"
            second.send_json(chat(1, "players", "from two"))     # index 0 is taken: the
            assert [second.receive_json()["text"] for _ in range(2)] == \
                ["from one", "from two"]            # message that took it is delivered too
            assert [m["text"] for m in sync(second)["chat"]] == ["from one", "from two"]
    store = Store(db)
    count, stored = store.chat(game["id"], 10)
    store.dispose()
    assert count == 2 and [(m.index, m.sender) for m in stored] == [(0, "vertical"),
                                                                    (1, "horizontal")]


@pytest.mark.parametrize("seat, message, code", [
    (0, chat(0, "players", ""), "bad_message"),
    (0, chat(0, "players", "\x00\x01 \t"), "bad_message"),
    (0, chat(0, "players", "x" * 501), "bad_message"),
    (0, chat(0, "shouting", "hi"), "bad_message"),
    (0, chat(0, "team", "hi"), "bad_message"),          # one-seat teams: no team channel
    (0, chat(None, "players", "hi"), "bad_message"),    # a seat holder names its seat
    (0, chat(1, "players", "hi"), "forbidden"),         # not its seat
    (None, chat(None, "players", "hi"), "forbidden"),   # spectators chat with spectators
    (None, chat(0, "spectators", "hi"), "forbidden"),
    (None, {"type": "spectator_chat", "on": True}, "forbidden"),
    (0, {"type": "spectator_chat", "on": 1}, "bad_message"),
    (0, {"type": "chat", "channel": "players", "text": 5, "seat": 0}, "bad_message"),
])
def test_bad_chat_messages_are_refused_and_store_nothing(client, db, seat, message, code):
    game = create(client, "carteso(size=5)", ["human", "human"])
    with socket(client, game, seat) as ws:
        ws.receive_json()
        ws.send_json(message)
        assert ws.receive_json()["code"] == code
    assert Store(db).chat(game["id"], 10) == (0, [])


def test_chat_is_rate_limited_per_connection(client, clock, db):
    game = create(client, "carteso(size=5)", ["human", "human"])
    with socket(client, game, 0) as ws, socket(client, game, 1) as other:
        ws.receive_json(), other.receive_json()
        for number in range(5):
            ws.send_json(chat(0, "players", f"m{number}"))
            assert ws.receive_json()["text"] == f"m{number}"
        ws.send_json(chat(0, "players", "one too many"))
        refused = ws.receive_json()
        assert refused["type"] == "error" and refused["code"] == "rate_limited"
        other.send_json(chat(1, "players", "mine"))         # another connection's own limit
        assert ws.receive_json()["text"] == "mine"
        clock.time += 10.0
        ws.send_json(chat(0, "players", "later"))
        assert ws.receive_json()["text"] == "later"
    count, stored = Store(db).chat(game["id"], 20)
    assert count == 7 and "one too many" not in [m.text for m in stored]


# Flood limits --------------------------------------------------------------------------------
def test_a_flooding_connection_is_refused_then_closed(client, clock, db):
    game = create(client, "carteso(size=5)", ["human", "human"])
    limits = Limits()
    with socket(client, game, 0) as ws:
        ws.receive_json()                       # the connect sync takes no token
        for _ in range(limits.frames_burst):
            ws.send_json({"type": "look", "at": 0})
            assert ws.receive_json()["type"] == "position"
        play(ws, 0, "Bc3", 0, "k1")             # dropped: changes nothing
        assert ws.receive_json()["code"] == "rate_limited"
        clock.time += 1.0                       # 20 more tokens
        play(ws, 0, "Bc3", 0, "k1")
        assert until(ws, "ack")["version"] == 1
        assert ws.receive_json()["type"] == "update"
        for _ in range(19):
            ws.send_json({"type": "look", "at": 0})
            assert ws.receive_json()["type"] == "position"
        for _ in range(limits.refused_to_close - 1):
            ws.send_text("not even json")
            assert ws.receive_json()["code"] == "rate_limited"
        ws.send_text("not even json")
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
        assert closed.value.code == 4429
    assert [entry.move for entry in Store(db).log(game["id"])] == ["Bc3"]


def test_creating_games_is_limited_per_address(client, clock):
    for _ in range(Limits().creates_per_minute):
        create(client, "carteso(size=3)", ["human", "human"])
    response = client.post("/api/games", json={"spec": "carteso(size=3)",
                                               "seats": ["human", "human"]})
    assert response.status_code == 429
    assert response.json()["error"]["code"] == "rate_limited"
    clock.time += 60.0
    create(client, "carteso(size=3)", ["human", "human"])


def test_limits_can_be_turned_off(db, clock):
    with TestClient(create_app(db, ai_processes=0, clock=clock, limits=Limits.off())) as client:
        for _ in range(Limits().creates_per_minute + 1):
            game = create(client, "carteso(size=3)", ["human", "human"])
        with socket(client, game, 0) as ws:
            ws.receive_json()
            for _ in range(Limits().frames_burst + 5):
                assert sync(ws)["version"] == 0


# Positions -----------------------------------------------------------------------------------
def test_look_shows_earlier_positions_and_refuses_others(client):
    game = create(client, "carteso(size=5)", ["human", "human"], hotseat=True)
    with socket(client, game, 0) as ws:
        first = ws.receive_json()
        seen = {0: first["view"]}
        view = first
        for number, move in enumerate(["Bc3", "Wb2", "Bd4"]):
            play(ws, view["seat"], move, view["version"], f"m{number}")
            view = until(ws, "update")
        ws.send_json({"type": "sync", "seat": 1})      # the hotseat's focus: horizontal
        current = ws.receive_json()
        for at in range(4):
            ws.send_json({"type": "look", "at": at})
            position = ws.receive_json()
            assert position["type"] == "position" and position["at"] == at
            assert position["view"]["seat"] == 1
            assert position["view"]["history"] == ["Bc3", "Wb2", "Bd4"][:at]
        assert position["view"] == current["view"]
        for bad in (4, -1, "1"):
            ws.send_json({"type": "look", "at": bad})
            assert ws.receive_json()["code"] == "bad_message"
    with socket(client, game) as watcher:
        watcher.receive_json()
        watcher.send_json({"type": "look", "at": 0})
        view = watcher.receive_json()["view"]
        assert view["seat"] is None and view["history"] == [] and view == {
            **seen[0], "seat": None, "legal": [], "legal_actions": []}


@pytest.mark.parametrize("spec, seats", [("cartagena(players=3)", 3), (SECRET_CTOR, 4)])
def test_a_look_is_what_the_seat_saw_then(client, clock, spec, seats):
    """Each seat's (and a spectator's) view at every history length, as received in
    the updates, is exactly what ``look`` shows later: hidden commits and cards stay
    hidden, and the history has K entries."""
    game = create(client, spec, ["human"] * seats, seed=7)
    rng = random.Random(3)
    names = boardlab.make(spec).seat_names
    sockets = [socket(client, game, seat) for seat in range(seats)] + [socket(client, game)]
    connections = [s.__enter__() for s in sockets]
    try:
        seen = [{} for _ in connections]           # per connection: history length -> view
        latest = [ws.receive_json() for ws in connections]
        for number in range(40):
            for index, message in enumerate(latest):
                seen[index][len(message["view"]["history"])] = message["view"]
            view = latest[0]["view"]
            if view["terminal"]:
                break
            acting = [names.index(name) for name in view["acting"]]
            seat = rng.choice(acting)
            legal = latest[seat]["view"]["legal"]
            play(connections[seat], seat, rng.choice(legal), latest[seat]["version"],
                 f"k{number}")
            latest = [until(ws, "update") for ws in connections]
            clock.time += 1.0                       # within the flood limit
        assert any(len(views) > 20 for views in seen)
        for index, ws in enumerate(connections):
            for at, view in seen[index].items():
                clock.time += 1.0
                ws.send_json({"type": "look", "at": at})
                position = ws.receive_json()
                assert len(position["view"]["history"]) == at
                assert position["view"] == view, (index, at)
        if spec == SECRET_CTOR:                     # the masks really were in play
            assert any("secret ?" in seen[0][at]["history"] for at in seen[0])
            assert any(h.endswith(":?") for at in seen[0] for h in seen[0][at]["history"])
    finally:
        for s in reversed(sockets):
            s.__exit__(None, None, None)


# Analysis ------------------------------------------------------------------------------------
def analysis(client, game, **body):
    return client.post(f"/api/games/{game['id']}/analysis", json=body)


def test_analysis_of_a_finished_game_and_who_may_analyse_a_running_one(client):
    game = create(client, "carteso(size=3)", ["human", "human"], hotseat=True)
    token = game["seats"][0]["token"]
    response = analysis(client, game, at=0, seconds=0.05, token=token)   # hotseat, no AI
    assert response.status_code == 200, response.text
    answer = response.json()
    legal = boardlab.make("carteso(size=3)").new_initial_state().legal_moves()
    assert answer["at"] == 0 and answer["seat"] == "vertical"
    assert set(answer["estimate"]) == {"vertical", "horizontal"}
    assert all(0 <= chance <= 1 for chance in answer["estimate"].values())
    assert 0 < len(answer["moves"]) <= 5
    visits = [move["visits"] for move in answer["moves"]]
    assert visits == sorted(visits, reverse=True)
    assert all(move["move"] in legal and 0 <= move["win"] <= 1 for move in answer["moves"])
    for body, status, code in [({"at": 0, "seconds": 0.05}, 403, "forbidden"),
                               ({"at": 0, "seconds": 0.05, "token": "forged"}, 403,
                                "forbidden"),
                               ({"at": 1, "seconds": 0.05, "token": token}, 400, "bad_request"),
                               ({"at": 0, "seconds": 6, "token": token}, 400, "bad_request"),
                               ({"at": 0, "seconds": 0, "token": token}, 400, "bad_request"),
                               ({"seconds": 1, "token": token}, 400, "bad_request")]:
        response = analysis(client, game, **body)
        assert response.status_code == status and \
            response.json()["error"]["code"] == code, (body, response.text)
    finish_by_resignation(client, game, ["Bb2"])
    answer = analysis(client, game, at=1, seconds=0.05).json()        # over: anyone, any K
    assert answer["seat"] == "horizontal" and answer["moves"]
    end = analysis(client, game, at=2).json()
    assert end == {"at": 2, "seat": None, "moves": [],
                   "estimate": {"vertical": 1.0, "horizontal": 0.0}}


def test_a_game_with_one_persons_seat_is_not_analysed_while_it_runs(client):
    game = create(client, "carteso(size=3)", ["human", "human"])
    for seat in (0, 1):
        response = analysis(client, game, at=0, token=game["seats"][seat]["token"])
        assert response.status_code == 403


def test_analyses_are_capped(db, clock):
    with TestClient(create_app(db, ai_processes=0, clock=clock,
                               limits=Limits(analyses=0))) as client:
        game = create(client, "carteso(size=3)", ["human", "human"], hotseat=True)
        response = analysis(client, game, at=0, token=game["seats"][0]["token"])
        assert response.status_code == 429 and response.json()["error"]["code"] == "busy"


def test_mcts_analyse_counts_every_simulation():
    from boardlab.agents.mcts import MCTS
    game = boardlab.make("carteso(size=3)")
    view = game.new_initial_state().view(0)
    budget = {"iterations": 400}
    found = MCTS(game, 0, seed=1, early_stop=False).analyse(view, budget)
    assert sum(move["visits"] for move in found["moves"]) == 400
    visits = [move["visits"] for move in found["moves"]]
    assert visits == sorted(visits, reverse=True) and len(visits) == len(view["legal"])
    assert found == MCTS(game, 0, seed=1, early_stop=False).analyse(view, budget)
    estimate = found["estimate"]          # two sides, returns -1/1 or 0/0: chances add to 1
    assert set(estimate) == {"vertical", "horizontal"}
    assert abs(estimate["vertical"] + estimate["horizontal"] - 1) < 1e-3


# AI budgets ----------------------------------------------------------------------------------
@pytest.mark.parametrize("agent, cap", [("mcts(time=600)", "time"),
                                        ("mcts(iterations=1000000000)", "iterations"),
                                        ("ismcts(worlds=100000)", "worlds"),
                                        ("mcts(determinizations=1000)", "determinizations")])
def test_ai_budgets_over_the_cap_are_refused(client, agent, cap):
    response = client.post("/api/games", json={"spec": "carteso(size=5)",
                                               "seats": ["human", {"ai": agent}]})
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "bad_seats" and cap in error["message"] and "cap" in \
        error["message"]


def test_levels_and_budgets_within_the_cap_are_fine(client):
    for agent in ("mcts(level=5)", "mcts(time=10)", "mcts(iterations=200000)"):
        create(client, "carteso(size=5)", ["human", {"ai": agent}])


# Agreed draws --------------------------------------------------------------------------------
def test_the_record_of_an_agreed_draw_replays_to_a_drawn_end(client):
    game = create(client, "carteso(size=5)", ["human", "human"])
    with socket(client, game, 0) as first, socket(client, game, 1) as second:
        first.receive_json(), second.receive_json()
        play(first, 0, "Bc3", 0, "a")
        until(first, "update"), until(second, "update")
        second.send_json({"type": "offer_draw", "seat": 1})
        until(first, "draw")
        first.send_json({"type": "accept_draw", "seat": 0, "key": "d"})
        view = until(first, "update")["view"]
    assert view["result"]["reason"] == "agreement" and view["to_move"] is None
    record = client.get(f"/api/games/{game['id']}/record").json()
    assert record["format"] == "boardlab-record/2" and record["agreed_draw"] is True
    assert record["moves"] == ["Bc3"] and record["meta"]["agreed_draw"]
    state = check_record(record)
    assert state.is_terminal() and state.returns() == [0.0, 0.0]
    assert state.view(None)["result"] == view["result"]
    assert state.view(None)["winner"] is None and state.view(None)["phase"] == "over"
    with pytest.raises(RecordError, match="agreed_draw"):
        check_record({**record, "format": "boardlab-record/1"})
    old = {key: value for key, value in record.items() if key != "agreed_draw"}
    with pytest.raises(RecordError, match="result"):      # the moves alone: not over
        check_record({**old, "format": "boardlab-record/1"})
    assert not check_record({**old, "format": "boardlab-record/1", "result": None}) \
        .is_terminal()                                       # version 1 still reads


def test_an_agreed_draw_only_where_the_game_allows_one():
    state = boardlab.make("carteso(size=3)").new_initial_state()
    state.play("Bb2")
    state.agree_draw()
    assert state.is_terminal() and state.winners() == [] and state.end_reason() == "agreement"
    with pytest.raises(IllegalMoveError, match="over"):
        state.agree_draw()
    assert state.clone().is_terminal()
    three = boardlab.make("cartagena(players=3)")
    assert not three.agreed_draws and not three.facts()["agreed_draws"]
    with pytest.raises(IllegalMoveError, match="no agreed draw"):
        three.new_initial_state(seed=1).agree_draw()
