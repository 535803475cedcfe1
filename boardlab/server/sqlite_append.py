"""SQLite appends straight to the driver, on one connection kept for them.

Through SQLAlchemy an append spent a third of its CPU on per-execution work (building,
keying and converting the statement's parameters). Here the store's two append
statements (the action rows, each game's status) are compiled once for SQLite's
positional ``?`` with their parameters' conversions, and executed by the driver itself
in one transaction. With a SQLite file every append goes through one connection kept
for appends: the pool hands its connections round, and each one's page cache was stale
after the others' commits, so an append read the indexes' pages again.
"""
from __future__ import annotations

import sqlite3
import threading
from collections.abc import Sequence
from datetime import datetime

from sqlalchemy.pool import QueuePool


class Compiled:
    """A statement compiled once for a dialect with positional parameters (SQLite's
    ``?``), and its parameters' conversions: what SQLAlchemy would send the driver,
    without its per-execution work."""

    def __init__(self, statement, keys: tuple[str, ...], dialect):
        compiled = statement.compile(dialect=dialect, column_keys=list(keys))
        self.sql = compiled.string
        processors = compiled._bind_processors
        self.order = [(key, processors.get(key)) for key in compiled.positiontup or ()]
        if sorted(key for key, _ in self.order) != sorted(keys):
            raise ValueError(f"unexpected parameters {self.order} for {keys}")

    def row(self, values: dict) -> tuple:
        """The positional parameters of ``values`` (a dict of the statement's keys)."""
        return tuple(values[key] if convert is None else convert(values[key])
                     for key, convert in self.order)


class Appender:
    """The appends of a SQLite engine (``usable`` says whether its driver takes ``?``).

    :meth:`write` takes ``(game_id, index, action, status)`` entries and raises the
    driver's errors (``sqlite3.IntegrityError``: an index or key taken)."""

    def __init__(self, engine, append, append_keys: tuple[str, ...], touch,
                 touch_keys: tuple[str, ...]):
        self.engine = engine
        self.append = Compiled(append, append_keys, engine.dialect)
        self.touch = Compiled(touch, touch_keys, engine.dialect)
        self._connection = None
        #: a file's engine pools its connections (QueuePool): keep one for the appends
        self._kept = isinstance(engine.pool, QueuePool)
        self._lock = threading.Lock()

    @staticmethod
    def usable(engine) -> bool:
        """Whether ``engine`` is SQLite with positional ``?`` parameters."""
        return engine.dialect.name == "sqlite" and engine.dialect.paramstyle == "qmark"

    def write(self, entries: Sequence[tuple], now: datetime) -> None:
        """Append ``entries`` in one transaction."""
        last = {game_id: status for game_id, _, _, status in entries}
        with self._lock:
            connection = self._connection or self.engine.raw_connection()
            try:
                cursor = connection.cursor()
                try:
                    cursor.executemany(self.append.sql, [self.append.row(
                        {"game_id": game_id, "idx": index, "seat": action.seat,
                         "move": action.move, "key": action.key, "clocks": action.clocks,
                         "created": now}) for game_id, index, action, _ in entries])
                    cursor.executemany(self.touch.sql, [self.touch.row(
                        {"game": game_id, "status": status, "updated": now})
                        for game_id, status in last.items()])
                    connection.commit()
                finally:
                    cursor.close()
            except sqlite3.IntegrityError:
                connection.rollback()
                self._keep(connection)
                raise
            except BaseException:               # whatever else: a fresh connection next
                self._connection = None
                connection.invalidate()
                connection.close()
                raise
            self._keep(connection)

    def _keep(self, connection) -> None:
        """Keep the appends' connection (a SQLite file), else give it back to the pool."""
        if self._kept:
            self._connection = connection
        else:
            connection.close()

    def close(self) -> None:
        with self._lock:
            if self._connection is not None:
                self._connection.close()
                self._connection = None


def pragmas(connection, record) -> None:
    """WAL lets readers run beside the writer; FULL sync keeps every commit on disk."""
    cursor = connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=FULL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()
