"""Two `boardlab serve` processes over one PostgreSQL database share their games.

A move made through one reaches the clients of the other (LISTEN/NOTIFY), and the
database serializes a game's actions across them: of two actions for one seat sent
at once to the two processes, exactly one is accepted.
"""
from __future__ import annotations

import asyncio
import json

import pytest

from postgres_server import server_processes

httpx = pytest.importorskip("httpx")
websockets = pytest.importorskip("websockets.asyncio.client")

WAIT = 60.0          # seconds: only bounds a stuck test, never a pass condition


@pytest.fixture(scope="module")
def two_servers(postgres, tmp_path_factory):
    """The URLs of two servers on the module's PostgreSQL database."""
    with server_processes(postgres, tmp_path_factory) as servers:
        yield [server.url for server in servers]


def _create(url: str, seats=("human", "human"), hotseat=False) -> dict:
    answer = httpx.post(url + "api/games", json={"spec": "carteso(size=5)", "seats": list(seats),
                                                  "hotseat": hotseat, "seed": 1}, timeout=WAIT)
    assert answer.status_code == 201, answer.text
    return answer.json()


def _ws(url: str, game_id: str, token: str | None = None) -> str:
    base = url.replace("http", "ws", 1).rstrip("/")
    return f"{base}/ws/{game_id}" + (f"?token={token}" if token else "")


def _connect(url: str, game_id: str, token: str | None = None):
    """The game socket (its handshake bounded by WAIT, not websockets' 10 s, which a loaded
    machine can miss)."""
    return websockets.connect(_ws(url, game_id, token), open_timeout=WAIT)


async def _next(socket, kind: str) -> dict:
    while True:
        message = json.loads(await asyncio.wait_for(socket.recv(), WAIT))
        if message["type"] == kind:
            return message


def test_a_move_made_through_one_process_reaches_the_other(two_servers):
    a, b = two_servers
    game = _create(a)
    tokens = [seat["token"] for seat in game["seats"]]

    async def play():
        async with _connect(a, game["id"], tokens[0]) as first, \
                _connect(b, game["id"], tokens[1]) as second, \
                _connect(b, game["id"]) as watcher:
            for socket in (first, second, watcher):
                await _next(socket, "sync")
            await first.send(json.dumps({"type": "action", "seat": 0, "move": "Bc3",
                                         "version": 0, "key": "m1"}))
            assert (await _next(first, "ack"))["version"] == 1
            seen = await _update(watcher, 1)                 # on the other process
            assert seen["version"] == 1 and seen["view"]["history"] == ["Bc3"]
            await _next(second, "update")
            await second.send(json.dumps({"type": "action", "seat": 1, "move": "Wa1",
                                          "version": 1, "key": "m2"}))
            assert (await _next(second, "ack"))["version"] == 2
            back = await _update(first, 2)                   # and back to the first
            assert back["version"] == 2 and back["view"]["history"] == ["Bc3", "Wa1"]

    asyncio.run(play())
    for url in two_servers:
        state = httpx.get(f"{url}api/games/{game['id']}", timeout=WAIT).json()
        assert state["version"] == 2


def test_an_action_through_one_process_ends_the_draw_offer_on_the_other(two_servers):
    """An offer stands until the next action: the other process's update of that action
    carries no offer (it once carried the one the action had just ended)."""
    a, b = two_servers
    game = _create(a)
    tokens = [seat["token"] for seat in game["seats"]]

    async def play():
        async with _connect(a, game["id"], tokens[0]) as first, \
                _connect(b, game["id"], tokens[1]) as second:
            for socket in (first, second):
                await _next(socket, "sync")
            await second.send(json.dumps({"type": "offer_draw", "seat": 1}))
            assert (await _next(second, "draw"))["draw_offer"] is not None
            assert (await _next(first, "draw"))["event"] == "offered"    # across processes
            await first.send(json.dumps({"type": "action", "seat": 0, "move": "Bc3",
                                         "version": 0, "key": "d1"}))
            assert (await _next(first, "ack"))["version"] == 1
            return (await _update(first, 1))["draw_offer"], \
                (await _update(second, 1))["draw_offer"]

    assert asyncio.run(play()) == (None, None)


def test_two_processes_accept_exactly_one_of_two_racing_actions(two_servers):
    a, b = two_servers
    trials = 20
    game = _create(a, hotseat=True)
    token = game["seats"][0]["token"]

    async def race():
        outcomes = []
        async with _connect(a, game["id"], token) as one, \
                _connect(b, game["id"], token) as two:
            version = (await _next(one, "sync"))["version"]
            await _next(two, "sync")
            points = [f"{column}{row}" for row in range(1, 6) for column in "abcde"]
            for trial in range(trials):
                point = points[trial]            # an empty point: two colours, two moves
                moves = [f"B{point}", f"W{point}"]
                seat = trial % 2
                messages = [{"type": "action", "seat": seat, "move": move, "version": version,
                             "key": f"t{trial}-{n}"} for n, move in enumerate(moves)]
                await asyncio.gather(one.send(json.dumps(messages[0])),
                                     two.send(json.dumps(messages[1])))
                answers = await asyncio.gather(_answer(one, messages[0]["key"]),
                                               _answer(two, messages[1]["key"]))
                accepted = [m["move"] for m, r in zip(messages, answers) if r["type"] == "ack"]
                assert len(accepted) == 1, answers
                refused = [r for r in answers if r["type"] == "error"]
                assert refused[0]["code"] == "stale_version", refused
                outcomes.append(accepted[0])
                version += 1
                await _caught_up(one, version)
                await _caught_up(two, version)
        return outcomes

    outcomes = asyncio.run(race())
    record = httpx.get(f"{a}api/games/{game['id']}", timeout=WAIT).json()
    assert record["version"] == trials
    assert record["view"]["history"] == outcomes


async def _update(socket, version: int) -> dict:
    """The first update of ``version`` or later."""
    while True:
        message = await _next(socket, "update")
        if message["version"] >= version:
            return message


SEEN: dict[int, int] = {}       # id of a connection -> the highest version it was sent


async def _answer(socket, key: str) -> dict:
    while True:
        message = json.loads(await asyncio.wait_for(socket.recv(), WAIT))
        _saw(socket, message)
        if message.get("key") == key and message["type"] in ("ack", "error"):
            return message


async def _caught_up(socket, version: int) -> None:
    """Read updates until the connection has seen ``version``."""
    while SEEN.get(id(socket), -1) < version:
        _saw(socket, json.loads(await asyncio.wait_for(socket.recv(), WAIT)))


def _saw(socket, message: dict) -> None:
    if message["type"] in ("update", "sync"):
        SEEN[id(socket)] = max(SEEN.get(id(socket), -1), message["version"])
