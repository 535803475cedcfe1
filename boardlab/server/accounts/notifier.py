"""Wake-ups of an account's event streams (stream.py).

A change in this server process (a challenge made, answered or cancelled, a seek taken, a
game started or ended) wakes the streams of its accounts at once (:meth:`Notifier.notify`);
a stream reads the database only when woken. For changes made by another server process
(several processes over one PostgreSQL database) one shared watcher per process reads the
database every ``period`` seconds, while any stream is open: which accounts had a
challenge change, or a game start or end, since its last look (with one period of overlap,
for commits that land late and clocks that differ a little); it wakes only their streams.
So N idle streams cost one small read per period, not N.
"""
from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from datetime import timedelta

from sqlalchemy import Engine, or_, select, union

from ..store import ACTIVE, games, players
from .schema import challenges
from .users import now

log = logging.getLogger("boardlab.server")

FALLBACK = 2.0                  # seconds between the shared watcher's reads


def changed_accounts(engine: Engine, since) -> set[int]:
    """The accounts with a challenge changed, or a game started or ended, since ``since``."""
    query = union(
        select(challenges.c.challenger.label("user_id")).where(challenges.c.updated >= since),
        select(challenges.c.challenged.label("user_id")).where(challenges.c.updated >= since),
        select(players.c.user_id).join(games, games.c.id == players.c.game_id)
        .where(or_(games.c.created >= since,
                   (games.c.status != ACTIVE) & (games.c.updated >= since))))
    with engine.connect() as db:
        return {row.user_id for row in db.execute(query)}


class Notifier:
    """Account id -> the events of its open streams; the process's shared watcher."""

    def __init__(self, engine: Engine | None = None, period: float = FALLBACK):
        self.engine, self.period = engine, period
        self.waiting: dict[int, set[asyncio.Event]] = {}
        self.watcher: asyncio.Task | None = None
        self.looks = 0                          # the watcher's reads so far

    def subscribe(self, user_id: int) -> asyncio.Event:
        event = asyncio.Event()
        self.waiting.setdefault(user_id, set()).add(event)
        if self.engine is not None and (self.watcher is None or self.watcher.done()):
            self.watcher = asyncio.get_running_loop().create_task(self._watch())
        return event

    def unsubscribe(self, user_id: int, event: asyncio.Event) -> None:
        events = self.waiting.get(user_id)
        if events is not None:
            events.discard(event)
            if not events:
                del self.waiting[user_id]
        if not self.waiting and self.watcher is not None:
            self.watcher.cancel()
            self.watcher = None

    def notify(self, user_ids: Iterable[int | None]) -> None:
        """Wake every stream of these accounts."""
        for user_id in user_ids:
            for event in self.waiting.get(user_id, ()) if user_id is not None else ():
                event.set()

    async def _watch(self) -> None:
        """Every period while streams are open: wake those another process changed."""
        assert self.engine is not None
        overlap = timedelta(seconds=self.period)
        since = now() - overlap
        while self.waiting:
            await asyncio.sleep(self.period)
            looked = now()
            try:
                changed = await asyncio.to_thread(changed_accounts, self.engine, since)
            except Exception:                   # a database hiccup: look again next time
                log.exception("the event streams' watcher could not read the database")
                continue
            self.looks += 1
            since = looked - overlap
            self.notify(changed)
