"""Group commit: the actions of every live game stored a batch at a time.

A room awaits :meth:`Committer.append` before it acknowledges an action, as it awaited
``Store.append`` before; nothing is acknowledged before its commit. The committer runs
one batch at a time in a worker thread: the actions that arrive while a batch commits
wait and go together in the next one, in one transaction with one disk sync
(:meth:`~boardlab.server.store.Store.append_many`). With few actions a batch holds one and
nothing waits longer than before; under load, the cost of a commit (the database round
trip, SQLAlchemy's work, SQLite's sync to disk) is shared by the batch. A conflict or a
failure fails only its own action.

When the server is busy (the last batch began less than :data:`BUSY` seconds ago), a
batch first waits :data:`WINDOW` seconds for more actions to join it, as PostgreSQL's
``commit_delay`` does: a SQLite commit costs 0.15 to 0.4 ms of CPU whether it holds one
action or sixteen (its sync to disk), so under load a few milliseconds more before the
ack buy a good part of an action's CPU. A quiet server commits at once.
"""
from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

from .clients import Clock
from .store import Action, Store, StoreError

MAX_BATCH = 256             # actions in one transaction
WINDOW = 0.005              # seconds a busy server's batch waits for more actions
BUSY = 0.05                 # busy: the last batch began less than this many seconds ago


class Committer:
    """Stores actions for the rooms of one hub, a batch at a time."""

    def __init__(self, store: Store, window: float = WINDOW, busy: float = BUSY,
                 clock: Clock | None = None):
        self.store, self.window, self.busy = store, window, busy
        self.clock = clock or Clock()
        self.began: float | None = None     # when the last batch began (clock.now())
        self.waiting: list[tuple[tuple[str, int, Action, str], asyncio.Future]] = []
        self.running: asyncio.Task | None = None
        self.batches = 0                    # batches committed (for checks)
        self.closed = False
        #: one thread of its own: every batch on the same warm thread, never queued
        #: behind the loaded games' reads in the loop's shared pool
        self.thread = ThreadPoolExecutor(1, thread_name_prefix="boardlab-commit")

    async def append(self, game_id: str, index: int, action: Action, status: str) -> None:
        """Store one action (see ``Store.append``): returns once it is committed, raises
        its :class:`~boardlab.server.store.Conflict` or ``StoreError`` otherwise. A caller
        cancelled before its batch began takes its action back (it is not stored)."""
        if self.closed:
            raise StoreError("the server is stopping: the action was not stored")
        entry = ((game_id, index, action, status),
                 asyncio.get_running_loop().create_future())
        self.waiting.append(entry)
        if self.running is None or self.running.done():
            self.running = asyncio.get_running_loop().create_task(self._drain())
        try:
            await entry[1]
        except asyncio.CancelledError:
            if entry in self.waiting:
                self.waiting.remove(entry)
            raise

    async def close(self) -> None:
        """Take no more actions, and wait for the batch being committed and those waiting
        (at shutdown, before the store closes: an action the database took is never left
        half told)."""
        self.closed = True
        if self.running is not None:
            await asyncio.gather(self.running, return_exceptions=True)
        self.thread.shutdown(wait=False)

    async def _drain(self) -> None:
        """Commit batches until nothing waits."""
        loop = asyncio.get_running_loop()
        while self.waiting:
            if self.window and self.began is not None and len(self.waiting) < MAX_BATCH \
                    and self.clock.now() - self.began < self.busy:
                try:                            # busy: let more actions join this batch
                    await self.clock.sleep(self.window)
                except asyncio.CancelledError:  # the loop stops: nothing of it was stored
                    for _, future in self.waiting:
                        future.cancel()
                    self.waiting = []
                    raise
            self.began = self.clock.now()
            batch, self.waiting = self.waiting[:MAX_BATCH], self.waiting[MAX_BATCH:]
            work = loop.run_in_executor(     # no task of its own
                self.thread, self.store.append_many, [entry for entry, _ in batch])
            try:
                outcomes = await asyncio.shield(work)
            except asyncio.CancelledError:      # the loop stops: each room is told what the
                outcomes = await work           # thread did; those still waiting, nothing
                self._settle(batch, outcomes)
                for _, future in self.waiting:
                    future.cancel()
                self.waiting = []
                raise
            except Exception as error:          # the worker thread failed: the whole batch
                failed = StoreError(f"the actions could not be stored: {error}")
                outcomes = [failed] * len(batch)
            self.batches += 1
            self._settle(batch, outcomes)

    @staticmethod
    def _settle(batch, outcomes) -> None:
        """Tell each waiting room its action's outcome."""
        for (_, future), outcome in zip(batch, outcomes):
            if future.done():
                continue
            if outcome is None:
                future.set_result(None)
            else:
                future.set_exception(outcome)
