"""Several server processes: a notice of new actions carries them, and the other process
applies them without reading the log; PostgreSQL's appends are one statement that stores
the actions and sends their notices together (or neither)."""
from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime

import pytest

from boardlab.server import fanout
from boardlab.server.ai import Thinker
from boardlab.server.clients import Limits
from boardlab.server.hub import Hub
from boardlab.server.replicas import following, noticed
from boardlab.server.store import Action, Conflict, Store

HUMANS = [{"kind": "human", "token": "x"}, {"kind": "human", "token": "y"}]
NOW = datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=UTC)


def _detail(first: int, moves: list[str]) -> str:
    return fanout.actions_detail([(first + n, (first + n) % 2, text, f"k{first + n}", None,
                                   NOW.isoformat()) for n, text in enumerate(moves)])


# The notices -------------------------------------------------------------------------------
def test_an_action_notice_carries_its_actions_and_an_overlong_one_goes_without():
    detail = _detail(0, ["Bc3"])
    text = fanout.payload("g1", "action", detail)
    assert fanout.parse(text.replace(fanout.ORIGIN, "other", 1)) == ("g1", "action", detail)
    assert fanout.parse(text) is None                           # our own notice
    assert fanout.parse("other g1 seats") == ("g1", "seats", None)
    assert fanout.parse("other g1") is None
    long = fanout.payload("g1", "action", _detail(0, ["x" * 200] * 40))
    assert long == f"{fanout.ORIGIN} g1 action"                 # read from the log instead
    assert noticed(detail) == [(0, Action(0, "Bc3", "k0", None, NOW))]
    assert noticed("not json") is None and noticed(None) is None


@pytest.mark.parametrize("first, count, version, expected", [
    (0, 2, 0, 2), (1, 2, 2, 1), (1, 2, 3, 0), (2, 1, 1, None)])
def test_only_told_actions_that_follow_the_room_are_applied(first, count, version, expected):
    known = noticed(_detail(first, ["a"] * count))
    new = following(known, version)
    assert (None if new is None else len(new)) == expected
    assert following(None, 0) is None
    gapped = [(0, Action(0, "a")), (2, Action(0, "b"))]
    assert following(gapped, 0) is None


# The replica ---------------------------------------------------------------------------------
async def _room(tmp_path, reads: list):
    store = Store(f"sqlite:///{tmp_path / 'replica.db'}")
    hub = Hub(store, Thinker(0), limits=Limits.off())
    room = await hub.create("carteso(size=5)", [dict(seat) for seat in HUMANS], seed=1)
    client = hub.client((0,))
    await room.connect(client)
    client.outbox.get_nowait()                                  # its sync
    log = store.log

    def counted(game_id, start=0):
        reads.append(start)
        return log(game_id, start)

    store.log = counted
    return store, hub, room, client


def test_a_notice_of_the_next_actions_is_applied_without_reading_the_log(tmp_path):
    reads: list[int] = []

    async def play():
        store, hub, room, client = await _room(tmp_path, reads)
        store.append(room.id, 0, Action(0, "Bc3", "k0"), "active")  # "the other process"
        store.append(room.id, 1, Action(1, "Wa1", "k1"), "active")
        await room.replica.catch_up("action", _detail(0, ["Bc3", "Wa1"]))
        update = json.loads(client.outbox.get_nowait())
        await room.replica.catch_up("action", _detail(1, ["Wa1"]))  # known already
        await hub.close()
        return room.version, update, client.outbox.empty()

    version, update, quiet = asyncio.run(play())
    assert reads == [] and version == 2 and quiet
    assert update["type"] == "update" and update["view"]["history"] == ["Bc3", "Wa1"]


def test_a_notice_after_a_gap_reads_the_log(tmp_path):
    reads: list[int] = []

    async def play():
        store, hub, room, client = await _room(tmp_path, reads)
        store.append(room.id, 0, Action(0, "Bc3", "k0"), "active")
        store.append(room.id, 1, Action(1, "Wa1", "k1"), "active")
        await room.replica.catch_up("action", _detail(1, ["Wa1"]))  # its notice of 0 lost
        await hub.close()
        return room.version

    assert asyncio.run(play()) == 2 and reads == [0]


# PostgreSQL's appends ------------------------------------------------------------------------
@pytest.fixture(scope="module")
def postgres():
    from postgres_server import throwaway_postgres
    with throwaway_postgres() as server:
        yield server


def test_a_postgresql_append_stores_and_announces_together_or_neither(postgres):
    import psycopg
    from boardlab.arena.storage import database_url
    store = Store(database_url(postgres.url))
    listener = psycopg.connect(postgres.url, autocommit=True)
    try:
        listener.execute(f"LISTEN {fanout.CHANNEL}")
        for game_id in ("p1", "p2"):
            store.create_game(game_id, "carteso(size=5)", 1, [dict(s) for s in HUMANS])
        store.append("p1", 0, Action(0, "Bc3", "k0", [60.0, 59.5]), "active")
        with pytest.raises(Conflict):
            store.append("p1", 0, Action(1, "Wa1", "k1"), "active")
        outcomes = store.append_many([("p1", 1, Action(1, "Wa1", "k1"), "active"),
                                      ("p2", 0, Action(0, "Bc3", None), "over"),
                                      ("p1", 1, Action(1, "Wb1", "k2"), "active")])
        notices = [fanout.parse(n.payload.replace(fanout.ORIGIN, "other", 1))
                   for n in listener.notifies(timeout=2, stop_after=3)]
        assert listener.execute("SELECT 1").fetchone() == (1,)   # nothing more came
        assert [n.payload for n in listener.notifies(timeout=0.5)] == []
        stored = (store.log("p1"), store.log("p2"), store.game("p2").status)
    finally:
        listener.close()
        store.dispose()
    assert [o is None for o in outcomes] == [True, True, False]
    assert isinstance(outcomes[2], Conflict)
    assert stored[0] == [Action(0, "Bc3", "k0", [60.0, 59.5]), Action(1, "Wa1", "k1")]
    assert stored[1] == [Action(0, "Bc3", None)] and stored[2] == "over"
    told = {(game_id, index): action for game_id, what, detail in notices
            for index, action in noticed(detail) or []}
    assert sorted(told) == [("p1", 0), ("p1", 1), ("p2", 0)]   # no notice of a refused one
    assert told[("p1", 0)] == Action(0, "Bc3", "k0", [60.0, 59.5])
    assert told[("p1", 0)].at == stored[0][0].at


def test_the_listener_hands_on_others_notices_and_reconnects_when_cut_off(postgres):
    """The listener reads its socket itself: other processes' notices reach the handler
    in order, its own process's do not; a connection the database drops is opened
    again, and ``resync`` is called each time (notices may have been missed)."""
    import psycopg
    got: list[tuple] = []
    resyncs: list[int] = []

    async def handle(game_id, what, detail):
        got.append((game_id, what, detail))

    async def resync():
        resyncs.append(len(got))

    async def until(condition) -> None:
        for _ in range(600):                    # bounds a stuck test only
            if condition():
                return
            await asyncio.sleep(0.05)
        raise AssertionError("timed out")

    async def play():
        listener = fanout.Listener(postgres.url, handle, resync)
        listener.start()
        await asyncio.wait_for(listener.ready.wait(), 60)
        with psycopg.connect(postgres.url, autocommit=True) as other:
            def send(payload):
                other.execute("SELECT pg_notify(%s, %s)", (fanout.CHANNEL, payload))
            send(fanout.payload("g1", "action", _detail(0, ["Bc3"])).replace(
                fanout.ORIGIN, "other", 1))
            send(fanout.payload("g1", "seats"))                      # our own: dropped
            send("other g2 chat")
            await until(lambda: len(got) == 2)
            other.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                          "WHERE query LIKE 'LISTEN%%' AND pid <> pg_backend_pid()")
            await until(lambda: len(resyncs) == 2)
            send("other g3 seats")
            await until(lambda: len(got) == 3)
        await listener.close()

    asyncio.run(play())
    assert got == [("g1", "action", _detail(0, ["Bc3"])), ("g2", "chat", None),
                   ("g3", "seats", None)]
    assert resyncs == [0, 2]
