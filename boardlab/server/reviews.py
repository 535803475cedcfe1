"""The server's game reviews (review.py): requested for a finished game, run in the
background in the AI workers a position at a time, with their progress, and kept in the
database once done (the table ``server_reviews``, migration 0003, so a review survives a restart).

One review per game at a time (a second request joins the first); at most
``limits.reviews`` run at once and ``limits.reviews_waiting`` more wait for a turn; a
request beyond that is refused with ``busy``. Each review keeps at most
``positions_at_once`` of its positions in the workers at once, so AI seats' moves are
not stuck behind a whole review. With several server processes (PostgreSQL) each runs
its own reviews; the first one stored is the one kept.
"""
from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from sqlalchemy import JSON, Column, DateTime, String, Table, insert, select
from sqlalchemy.exc import IntegrityError

from ..core.game import CHANCE
from ..core.registry import make
from . import review
from .messages import ProtocolError
from .store import metadata

if TYPE_CHECKING:
    from .hub import Hub
    from .room import Room

log = logging.getLogger("boardlab.server")

QUEUED, RUNNING, DONE, FAILED, NONE = "queued", "running", "done", "failed", "none"
KEPT = 64                  # finished reviews kept in memory (the rest are read when asked)

reviews = Table(
    "server_reviews", metadata,
    Column("game_id", String(32), primary_key=True),
    Column("review", JSON, nullable=False),
    Column("created", DateTime(timezone=True), nullable=False),
)


@dataclass
class Job:
    """One review on its way: its positions' tasks and the results so far."""

    game_id: str
    spec: str
    moves: list[str]
    movers: list[int | None]
    returns: list[float]
    tasks: list[dict]
    status: str = QUEUED
    results: list[dict | None] = field(default_factory=list)
    done: int = 0
    message: str | None = None
    finished: asyncio.Event = field(default_factory=asyncio.Event)   # done or failed

    def answer(self) -> dict:
        answer = {"status": self.status, "done": self.done, "total": len(self.moves) + 1,
                  "review": None}
        if self.message:
            answer["message"] = self.message
        return answer


class Reviews:
    """A server process's reviews: the ones running or waiting, the finished ones kept."""

    def __init__(self, hub: Hub, budget: review.Budget | None = None):
        self.hub, self.budget = hub, budget or review.Budget()
        self.jobs: dict[str, Job] = {}
        self.finished: dict[str, dict] = {}     # game id -> review, the newest KEPT
        self.slots = asyncio.Semaphore(hub.limits.reviews)
        self.positions_at_once = max(1, getattr(hub.thinker, "processes", 1) // 2)

    def known(self, game_id: str) -> dict | None:
        """Where a review running, waiting or kept in memory stands (None: ask the room
        and the database): a page polling its progress needs neither."""
        job = self.jobs.get(game_id)
        if job is not None and job.status != FAILED:
            return job.answer()
        return _done(self.finished[game_id]) if game_id in self.finished else None

    async def status(self, room: Room) -> dict:
        """Where the review of ``room``'s game stands (``none`` if never asked for)."""
        job = self.jobs.get(room.id)
        if job is not None:
            return job.answer()
        await self._check_over(room)
        found = await self._stored(room.id)
        return _done(found) if found else {"status": NONE, "done": 0, "total":
                                           len(room.driver.state.history) + 1, "review": None}

    async def request(self, room: Room) -> dict:
        """Start the review of ``room``'s finished game unless it runs or is done; where
        it stands. ProtocolError ``not_over`` for a running game, ``busy`` when as many
        reviews as allowed run and wait."""
        known = self.known(room.id)
        if known is not None:
            return known
        async with room.lock:
            if not room.over:
                raise ProtocolError("not_over", "a game is reviewed once it is over")
            moves, movers = room.driver.state.history_text(), room.driver.movers()
            returns = list(room.driver.state.returns())
        found = await self._stored(room.id)
        known = self.known(room.id)                 # asked for meanwhile (no await below)
        if known is not None:
            return known
        if found is not None:
            return _done(found)
        waiting = sum(job.status in (QUEUED, RUNNING) for job in self.jobs.values())
        if self.hub.limits.reviews < 1 or \
                waiting >= self.hub.limits.reviews + self.hub.limits.reviews_waiting:
            raise ProtocolError("busy", f"{waiting} reviews are running or waiting: try "
                                f"again in a moment")
        movers_of = [None if seat == CHANCE else seat for seat in movers]
        job = Job(room.id, room.spec, moves, movers_of, returns,
                  review.tasks(room.spec, room.seed, moves, movers_of, self.budget))
        job.results = [None] * len(job.tasks)
        self.jobs[room.id] = job
        self.hub.spawn(self._run(job))
        return job.answer()

    async def _check_over(self, room: Room) -> None:
        async with room.lock:
            if not room.over:
                raise ProtocolError("not_over", "a game is reviewed once it is over")

    async def _stored(self, game_id: str) -> dict | None:
        """The finished review of a game: kept in memory, or read from the database."""
        if game_id in self.finished:
            return self.finished[game_id]
        found = await asyncio.to_thread(self._read, game_id)
        if found is not None:
            self._keep(game_id, found)
        return found

    def _read(self, game_id: str) -> dict | None:
        with self.hub.store.engine.connect() as db:
            return db.execute(select(reviews.c.review)
                              .where(reviews.c.game_id == game_id)).scalar()

    def _save(self, game_id: str, found: dict) -> None:
        """Store a finished review (another process's stored first: that one stays)."""
        try:
            with self.hub.store.engine.begin() as db:
                db.execute(insert(reviews).values(game_id=game_id, review=found,
                                                  created=datetime.now(UTC)))
        except IntegrityError:
            pass

    def _keep(self, game_id: str, found: dict) -> None:
        self.finished[game_id] = found
        while len(self.finished) > KEPT:
            self.finished.pop(next(iter(self.finished)))

    async def _run(self, job: Job) -> None:
        """Wait for a slot, search every position (a few at once), summarize, store."""
        try:
            async with self.slots:
                job.status = RUNNING
                queue = iter(enumerate(job.tasks))
                async with asyncio.TaskGroup() as group:    # one fails: the others stop
                    for _ in range(self.positions_at_once):
                        group.create_task(self._work(job, queue))
                found = review.summarize(make(job.spec), job.moves, job.movers, job.returns,
                                         [r for r in job.results if r is not None],
                                         self.budget)
                await asyncio.to_thread(self._save, job.game_id, found)
            self._keep(job.game_id, found)
            del self.jobs[job.game_id]
        except asyncio.CancelledError:
            raise
        except Exception as error:              # a worker or the database failed
            log.error("game %s: the review failed: %s", job.game_id, error)
            job.status, job.message = FAILED, "the review failed: ask again"
            job.tasks, job.results = [], []
        finally:
            job.finished.set()

    async def _work(self, job: Job, queue) -> None:
        """Search the positions of ``queue`` one after another in the AI workers."""
        for at, task in queue:
            job.results[at] = await self.hub.thinker.run(review.evaluate, task)
            job.done += 1


def _done(found: dict) -> dict:
    total = len(found["positions"])
    return {"status": DONE, "done": total, "total": total, "review": found}
