"""Several server processes over one PostgreSQL database: LISTEN/NOTIFY fan-out.

Every process keeps the games its clients use in memory. When one of them
commits something about a game (an action, a seat, a rematch, a chat line), the
same transaction sends ``NOTIFY boardlab_server, '<origin> <game id> <what>'``;
PostgreSQL delivers it to every listening process once the transaction commits,
and only then, in the order of the commits. Each listener (this module) hands the
notice to its hub, which reads the game's new rows from the database and tells its
own clients. A notice of new actions carries them too (``<what> <detail>``, the detail
from :func:`actions_detail`): a process that holds the game up to the first of them
applies them without reading the database. The
database, not a broker of ours, orders a game's actions: the unique
``(game, index)`` constraint lets exactly one process append action N, and the
others find a :class:`~boardlab.server.store.Conflict` and catch up.

A notice may be lost when the listening connection drops; the listener then
reconnects and asks the hub to catch up on every game it holds.
"""
from __future__ import annotations

import asyncio
import collections
import contextlib
import functools
import logging
import secrets
from datetime import datetime
from collections.abc import Awaitable, Callable

import orjson
from sqlalchemy import text

log = logging.getLogger("boardlab.server")

CHANNEL = "boardlab_server"
ORIGIN = secrets.token_hex(6)          # this process: its own notices are not news to it

MAX_PAYLOAD = 7900          # bytes: PostgreSQL refuses a notice's payload of 8,000 or more

#: (game id, what, detail or None) → catch up
Handler = Callable[[str, str, str | None], Awaitable[None]]


def payload(game_id: str, what: str, detail: str | None = None) -> str:
    """The text of a notice; a ``detail`` too long for a notice is left out (the
    listeners then read the change from the database)."""
    plain = f"{ORIGIN} {game_id} {what}"
    if detail is None:
        return plain
    full = f"{plain} {detail}"
    return full if len(full.encode()) <= MAX_PAYLOAD else plain


def notify(db, game_id: str, what: str, detail: str | None = None) -> None:
    """Within an open PostgreSQL transaction ``db``: tell the other processes, on
    commit, that ``what`` changed in game ``game_id`` (``action``, ``seats``, ...)."""
    db.execute(text("SELECT pg_notify(:channel, :payload)"),
               {"channel": CHANNEL, "payload": payload(game_id, what, detail)})


def actions_detail(entries: list[tuple[int, int, str, str | None, list | None, str]]
                   ) -> str:
    """The detail of an ``action`` notice: the new log entries, each ``(index, seat,
    move, key, clocks, created)`` (``created`` in ISO 8601), as JSON."""
    return json_text(entries)


def action_notices(entries, now: datetime) -> list[tuple[str, str]]:
    """``(game id, detail)`` of the notices of new actions, one per game (``entries``:
    the store's ``(game_id, index, action, status)``)."""
    created = now.isoformat()
    by_game: dict[str, list[tuple]] = {}
    for game_id, index, action, _ in entries:
        by_game.setdefault(game_id, []).append(
            (index, action.seat, action.move, action.key, action.clocks, created))
    return [(game_id, actions_detail(new)) for game_id, new in by_game.items()]


def json_text(value) -> str:
    """``value`` as JSON text (a stored column's, a notice's detail)."""
    return orjson.dumps(value).decode()


def parse(payload: str) -> tuple[str, str, str | None] | None:
    """``(game id, what, detail)`` of another process's notice (``detail``: None when it
    has none); None for our own or a bad one."""
    parts = payload.split(" ", 3)
    if len(parts) < 3 or parts[0] == ORIGIN:
        return None
    return parts[1], parts[2], parts[3] if len(parts) == 4 else None


class Listener:
    """LISTENs on the channel and hands every other process's notice to ``handle``;
    ``resync`` is called after each connection (notices may have been missed)."""

    def __init__(self, conninfo: str, handle: Handler, resync: Callable[[], Awaitable[None]]):
        self.conninfo, self.handle, self.resync = conninfo, handle, resync
        self.task: asyncio.Task | None = None
        self.ready = asyncio.Event()           # set once LISTEN is in place

    def start(self) -> None:
        self.task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        import psycopg
        delay = 0.1
        while True:
            try:
                async with await psycopg.AsyncConnection.connect(self.conninfo,
                                                                 autocommit=True) as conn:
                    early: collections.deque[str] = collections.deque()
                    conn.add_notify_handler(functools.partial(_keep, early))
                    await conn.execute(f"LISTEN {CHANNEL}")
                    delay = 0.1
                    self.ready.set()
                    await self.resync()         # what changed while nobody listened
                    await self._listen(conn, early)
            except asyncio.CancelledError:
                raise
            except Exception as error:          # the database went away: retry, slower
                log.warning("LISTEN connection lost (%s); retrying in %.1f s", error, delay)
                await asyncio.sleep(delay)
                delay = min(delay * 2, 5.0)

    async def _listen(self, conn, pending: collections.deque[str]) -> None:
        """Hand the notices to ``handle``, one at a time in the order they came, until
        the connection fails (its error is raised). The socket is read here, not by
        psycopg's ``notifies()``: a wake-up reads every notice that came, and this
        process's own are dropped at once (psycopg's generator cost about a tenth of the
        server's CPU with two processes, half of it for the process's own notices)."""
        loop, pgconn = asyncio.get_running_loop(), conn.pgconn
        encoding, own = conn.info.encoding, f"{ORIGIN} "
        wake, failed = asyncio.Event(), []

        def readable() -> None:
            try:
                pgconn.consume_input()
            except Exception as error:              # the connection is gone
                failed.append(error)
                loop.remove_reader(socket)
                wake.set()
                return
            while (notice := pgconn.notifies()) is not None:
                payload = notice.extra.decode(encoding)
                if not payload.startswith(own):
                    pending.append(payload)
            wake.set()

        socket = pgconn.socket
        loop.add_reader(socket, readable)
        try:
            readable()                              # whatever came before the reader
            while True:
                while pending:
                    parsed = parse(pending.popleft())
                    if parsed is not None:
                        try:
                            await self.handle(*parsed)
                        except Exception:           # one bad game never stops the rest
                            log.exception("catching up on game %s failed", parsed[0])
                if failed:
                    raise failed[0]
                wake.clear()
                await wake.wait()
        finally:
            loop.remove_reader(socket)

    async def close(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task


def _keep(pending: collections.deque[str], notice) -> None:
    """A notice psycopg read while it ran a command (the LISTEN): handed on later."""
    pending.append(notice.payload)


def conninfo(engine) -> str:
    """The libpq connection string of a SQLAlchemy PostgreSQL engine."""
    return engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
