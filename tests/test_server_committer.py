"""The group commit (server/committer.py): batches under load, nothing acknowledged before
its commit, and a conflict fails only its own action."""
import asyncio
import sqlite3

import pytest

from boardlab.server.clients import Clock
from boardlab.server.committer import Committer
from boardlab.server.store import Action, Conflict, Store, StoreError


@pytest.fixture
def store(tmp_path):
    store = Store(f"sqlite:///{tmp_path / 'server.db'}")
    for number in range(20):
        store.create_game(f"g{number}", "carteso(size=5)", 1,
                          [{"kind": "open"}, {"kind": "open"}])
    yield store
    store.dispose()


def test_concurrent_appends_share_transactions_and_all_land_in_order(store):
    async def play():
        committer = Committer(store)

        async def game(number):
            for index in range(10):
                await committer.append(f"g{number}", index,
                                       Action(index % 2, f"m{index}", f"k{index}"), "active")
        await asyncio.gather(*(game(number) for number in range(20)))
        return committer.batches

    batches = asyncio.run(play())
    assert batches < 200                # 200 actions, but they waited for each other's commit
    for number in range(20):
        assert [a.move for a in store.log(f"g{number}")] == [f"m{i}" for i in range(10)]


def test_a_conflict_fails_only_its_own_action(store):
    store.append("g0", 0, Action(0, "taken", "k0"), "active")

    async def play():
        committer = Committer(store)
        return await asyncio.gather(
            committer.append("g0", 0, Action(1, "late", "k1"), "active"),   # index taken
            committer.append("g1", 0, Action(0, "fine", "k2"), "active"),
            committer.append("g2", 0, Action(0, "also fine", "k3"), "over"),
            return_exceptions=True)

    outcomes = asyncio.run(play())
    assert isinstance(outcomes[0], Conflict)
    assert outcomes[1:] == [None, None]
    assert [a.move for a in store.log("g0")] == ["taken"]
    assert [a.move for a in store.log("g1")] == ["fine"]
    assert [a.move for a in store.log("g2")] == ["also fine"]
    assert store.game("g2").status == "over"


def test_a_failing_database_fails_the_batch_and_stores_nothing(store, monkeypatch):
    def broken(entries):
        raise StoreError("the disk is gone")
    monkeypatch.setattr(store, "append_many", broken)

    async def play():
        committer = Committer(store)
        return await asyncio.gather(*(committer.append(f"g{n}", 0, Action(0, "m"), "active")
                                      for n in range(3)), return_exceptions=True)

    assert all(isinstance(outcome, StoreError) for outcome in asyncio.run(play()))
    assert all(store.log(f"g{n}") == [] for n in range(3))


def test_an_unexpected_failure_is_a_store_error_for_each_action(store, monkeypatch):
    """Whatever the worker raises, each room gets a StoreError (it rebuilds from its log)."""
    def broken(entries):
        raise RuntimeError("a bug")
    monkeypatch.setattr(store, "append_many", broken)

    async def play():
        committer = Committer(store)
        return await asyncio.gather(*(committer.append(f"g{n}", 0, Action(0, "m"), "active")
                                      for n in range(2)), return_exceptions=True)

    outcomes = asyncio.run(play())
    assert all(isinstance(outcome, StoreError) and "a bug" in str(outcome)
               for outcome in outcomes)


def test_a_failing_database_in_the_one_by_one_path_is_a_store_error(store, monkeypatch):
    def broken(*args):
        raise OSError("disk full")
    monkeypatch.setattr(store, "append", broken)
    outcome, = store.append_many([("g0", 0, Action(0, "m"), "active")])
    assert isinstance(outcome, StoreError) and "disk full" in str(outcome)


def test_a_caller_cancelled_before_its_batch_takes_its_action_back(store):
    async def play():
        committer = Committer(store)
        first = asyncio.ensure_future(committer.append("g0", 0, Action(0, "kept"), "active"))
        await asyncio.sleep(0)                  # the first batch (g0) is in the thread now
        second = asyncio.ensure_future(committer.append("g1", 0, Action(0, "gone"), "active"))
        await asyncio.sleep(0)
        second.cancel()
        await asyncio.gather(first, second, return_exceptions=True)
        await committer.close()
        return second.cancelled()

    assert asyncio.run(play())
    assert [a.move for a in store.log("g0")] == ["kept"]
    assert store.log("g1") == []


def test_after_close_nothing_more_is_taken(store):
    async def play():
        committer = Committer(store)
        await committer.append("g0", 0, Action(0, "m"), "active")
        await committer.close()
        with pytest.raises(StoreError, match="stopping"):
            await committer.append("g0", 1, Action(1, "late"), "active")

    asyncio.run(play())
    assert [a.move for a in store.log("g0")] == ["m"]


class _BrokenConnection:
    """A kept appends' connection whose database fails (a disk error), recording what the
    store did with it."""

    def __init__(self):
        self.calls: list[str] = []

    def cursor(self):
        raise sqlite3.OperationalError("disk I/O error")

    def invalidate(self):
        self.calls.append("invalidate")

    def close(self):
        self.calls.append("close")


def test_a_failed_append_drops_its_connection_and_the_next_one_is_stored(store):
    """SQLite appends keep one connection; one that failed (not a taken key or index) is
    thrown away, and the next append opens another one."""
    store.append("g0", 0, Action(0, "first", "k0"), "active")
    assert store._direct._connection is not None         # kept for the next appends
    broken = _BrokenConnection()
    store._direct._connection = broken
    outcome, = store.append_many([("g0", 1, Action(1, "lost", "k1"), "active")])
    assert isinstance(outcome, StoreError) and "disk I/O error" in str(outcome)
    assert broken.calls == ["invalidate", "close"] and store._direct._connection is None
    store.append("g0", 1, Action(1, "second", "k1"), "active")
    with pytest.raises(Conflict):
        store.append("g0", 1, Action(0, "taken", "k2"), "active")
    store.append("g0", 2, Action(0, "third", "k3"), "over")
    assert [a.move for a in store.log("g0")] == ["first", "second", "third"]
    assert store.game("g0").status == "over"


class _Gate(Clock):
    """A clock that stands still, whose sleeps last until the test opens the gate."""

    def __init__(self):
        self.at = 0.0
        self.sleeping = asyncio.Event()
        self.opened = asyncio.Event()

    def now(self) -> float:
        return self.at

    async def sleep(self, seconds: float) -> None:
        self.sleeping.set()
        await self.opened.wait()


def test_a_busy_committer_lets_later_actions_join_the_batch(store):
    """Under load a batch waits its window: an action that comes while it waits shares its
    transaction (one commit, one sync to disk, for both)."""
    async def play():
        gate = _Gate()
        committer = Committer(store, window=0.005, busy=0.05, clock=gate)
        await committer.append("g0", 0, Action(0, "alone"), "active")   # quiet: at once
        assert committer.batches == 1 and not gate.sleeping.is_set()
        first = asyncio.ensure_future(committer.append("g1", 0, Action(0, "a"), "active"))
        await gate.sleeping.wait()              # busy (the last batch began just now)
        second = asyncio.ensure_future(committer.append("g2", 0, Action(0, "b"), "active"))
        await asyncio.sleep(0)
        gate.opened.set()
        await asyncio.gather(first, second)
        return committer.batches

    assert asyncio.run(play()) == 2
    assert [a.move for a in store.log("g1")] == ["a"]
    assert [a.move for a in store.log("g2")] == ["b"]


def test_a_quiet_committer_commits_at_once(store):
    async def play():
        gate = _Gate()
        committer = Committer(store, window=0.005, busy=0.05, clock=gate)
        await committer.append("g0", 0, Action(0, "m0"), "active")
        gate.at += 0.06                         # the last batch began longer ago than busy
        await committer.append("g0", 1, Action(1, "m1"), "active")
        return gate.sleeping.is_set(), committer.batches

    assert asyncio.run(play()) == (False, 2)
    assert [a.move for a in store.log("g0")] == ["m0", "m1"]


def test_a_committer_stopped_in_its_window_stores_nothing_of_the_batch(store):
    async def play():
        gate = _Gate()
        committer = Committer(store, clock=gate)
        await committer.append("g0", 0, Action(0, "m0"), "active")
        late = asyncio.ensure_future(committer.append("g0", 1, Action(1, "m1"), "active"))
        await gate.sleeping.wait()
        committer.running.cancel()              # the loop stops while the batch waits
        await asyncio.gather(late, return_exceptions=True)
        return late.cancelled()

    assert asyncio.run(play())
    assert [a.move for a in store.log("g0")] == ["m0"]
