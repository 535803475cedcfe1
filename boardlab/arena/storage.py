"""Tournament results in a real database, through SQLAlchemy.

SQLite by default (a file), PostgreSQL (or anything SQLAlchemy speaks) by URL.
A tournament row holds its whole configuration; a game row is written, with
its record, in one transaction when the game ends, so an interrupted
tournament loses at most the games that were being played. A runner holds a
tournament while it plays it (:meth:`Store.hold`): a row of ``tournament_locks``
names the holder (host, process, since), so a second runner is refused and told
who.
"""
from __future__ import annotations

import os
import socket
from collections.abc import Callable
from contextlib import contextmanager
from datetime import UTC, datetime

from sqlalchemy import (JSON, Column, Connection, DateTime, Float, ForeignKey, Integer,
                        MetaData, String, Table, UniqueConstraint, create_engine, delete,
                        insert, select, update)
from sqlalchemy.exc import ArgumentError, IntegrityError, OperationalError, SQLAlchemyError

from ..core.errors import BoardlabError

DEFAULT_DB = "boardlab-tournaments.db"

metadata = MetaData()

tournaments = Table(
    "tournaments", metadata,
    Column("id", Integer, primary_key=True),
    Column("name", String(200), nullable=False, unique=True),
    Column("config", JSON, nullable=False),
    Column("created", DateTime(timezone=True), nullable=False),
)

games = Table(
    "games", metadata,
    Column("id", Integer, primary_key=True),
    Column("tournament_id", ForeignKey("tournaments.id"), nullable=False),
    Column("idx", Integer, nullable=False),
    Column("sides", JSON, nullable=False),
    Column("seed", Integer, nullable=False),
    Column("returns", JSON, nullable=False),
    Column("scores", JSON, nullable=False),
    Column("forfeit", JSON),
    Column("actions", Integer, nullable=False),
    Column("seconds", Float, nullable=False),
    Column("record", JSON, nullable=False),
    Column("finished", DateTime(timezone=True), nullable=False),
    UniqueConstraint("tournament_id", "idx"),
)

locks = Table(
    "tournament_locks", metadata,
    Column("tournament_id", ForeignKey("tournaments.id"), primary_key=True),
    Column("host", String(255), nullable=False),
    Column("pid", Integer, nullable=False),
    Column("since", DateTime(timezone=True), nullable=False),
)

#: configuration keys added later, with the value a tournament stored before had
LATER_KEYS = {"deals": "duplicate", "in_process": False}


class LockedError(BoardlabError):
    """Another runner holds the tournament."""


def database_url(text: str | None) -> str:
    """A SQLAlchemy URL from ``--db``: a URL as it is, a plain path as a SQLite file."""
    text = text or DEFAULT_DB
    if text.startswith(("postgresql://", "postgres://")):   # psycopg 3 is the driver we ship
        return "postgresql+psycopg://" + text.split("://", 1)[1]
    if "://" in text:
        return text
    return "sqlite:///" + os.path.abspath(text)


class Store:
    """The tournaments and games of one database."""

    def __init__(self, url: str | None = None, create: bool = True):
        self.url = database_url(url)
        path = self.url[len("sqlite:///"):] if self.url.startswith("sqlite:///") else None
        if not create and path and not os.path.exists(path):
            raise BoardlabError(f"no database file {path} (give --db FILE or URL)")
        try:
            self.engine = create_engine(self.url)
            metadata.create_all(self.engine)
        except (ArgumentError, SQLAlchemyError, ImportError) as error:
            raise BoardlabError(f"cannot open the database {self._safe_url()}: "
                                f"{_first_line(error)}") from None

    @property
    def safe_url(self) -> str:
        """The URL without its password, for messages."""
        return self._safe_url()

    def _safe_url(self) -> str:
        try:
            return self.engine.url.render_as_string(hide_password=True)
        except AttributeError:
            return self.url.split("@")[-1]

    def open_tournament(self, name: str, config: dict) -> int:
        """The id of tournament ``name``; created with ``config`` if it is new.

        An existing tournament must have the same configuration.
        """
        try:
            with self.engine.begin() as db:
                row = db.execute(select(tournaments).where(tournaments.c.name == name)).first()
                if row is None:
                    key = db.execute(insert(tournaments).values(
                        name=name, config=config, created=_now())).inserted_primary_key
                    assert key is not None, "an insert gives the new row's key"
                    return key[0]
        except IntegrityError:                # created at the same moment by another runner
            return self.open_tournament(name, config)
        if {**LATER_KEYS, **row.config} != {**LATER_KEYS, **config}:
            raise BoardlabError(f"tournament {name!r} already exists in {self._safe_url()} "
                                f"with another configuration (give another --name, or "
                                f"--resume {name} to continue it)")
        return row.id

    def config(self, name: str) -> dict:
        with self.engine.connect() as db:
            row = db.execute(select(tournaments.c.config)
                             .where(tournaments.c.name == name)).first()
        if row is None:
            raise BoardlabError(f"no tournament named {name!r} in {self._safe_url()}")
        return row.config

    def names(self) -> list[str]:
        with self.engine.connect() as db:
            return [r.name for r in db.execute(select(tournaments.c.name)
                                               .order_by(tournaments.c.id))]

    def finished_games(self, tournament_id: int) -> list:
        """The rows of the finished games, in schedule order."""
        with self.engine.connect() as db:
            return list(db.execute(select(games).where(games.c.tournament_id == tournament_id)
                                   .order_by(games.c.idx)))

    def results(self, tournament_id: int) -> list:
        """The finished games without their records (what standings need)."""
        columns = [games.c.idx, games.c.sides, games.c.scores, games.c.returns,
                   games.c.forfeit]
        with self.engine.connect() as db:
            return list(db.execute(select(*columns).where(games.c.tournament_id ==
                                                          tournament_id).order_by(games.c.idx)))

    def add_game(self, tournament_id: int, index: int, sides, seed: int, scores,
                 result: dict, also: Callable[[Connection], None] | None = None) -> None:
        """Store one finished game with its record (one transaction); ``also(db)`` writes
        more in the same transaction (the server's copy of the game: both or neither)."""
        row = dict(tournament_id=tournament_id, idx=index, sides=list(sides), seed=seed,
                   returns=result["returns"], scores=scores, forfeit=result["forfeit"],
                   actions=result["actions"], seconds=result["seconds"],
                   record=result["record"], finished=_now())
        try:
            with self.engine.begin() as db:
                db.execute(insert(games).values(**row))
                if also is not None:
                    also(db)
        except IntegrityError as error:
            if not self._has_game(tournament_id, index):     # not just stored by another runner
                raise BoardlabError(f"cannot store game {index}: {_first_line(error)}") \
                    from None
        except OperationalError as error:
            raise BoardlabError(f"cannot store game {index}: {_first_line(error)}") from None

    @contextmanager
    def hold(self, tournament_id: int, name: str):
        """Hold the tournament while the block runs; LockedError if another runner does.

        The lock is a row (host, process id, time) taken in a transaction: of two
        runners, the primary key lets one in. A lock left by a process of this host
        that is gone (killed) is taken over; one of another host must be removed by
        hand (its row in ``tournament_locks``) if its runner is gone.
        """
        me = {"host": socket.gethostname(), "pid": os.getpid()}
        self._take(tournament_id, name, me)
        try:
            yield
        finally:
            with self.engine.begin() as db:
                db.execute(delete(locks).where(locks.c.tournament_id == tournament_id,
                                               locks.c.host == me["host"],
                                               locks.c.pid == me["pid"]))

    def _take(self, tournament_id: int, name: str, me: dict) -> None:
        for _ in range(3):                    # another runner may change the row meanwhile
            with self.engine.begin() as db:
                held = db.execute(select(locks).where(locks.c.tournament_id ==
                                                      tournament_id)).first()
            if held is None:
                try:
                    with self.engine.begin() as db:
                        db.execute(insert(locks).values(tournament_id=tournament_id,
                                                        since=_now(), **me))
                    return
                except IntegrityError:        # taken at the same moment
                    continue
            if not _gone(held.host, held.pid):
                since = held.since if held.since.tzinfo else \
                    held.since.replace(tzinfo=UTC)      # SQLite keeps it naive
                since = since.astimezone(UTC)
                raise LockedError(f"tournament {name!r} is being played by process "
                                  f"{held.pid} on {held.host} (since "
                                  f"{since:%Y-%m-%d %H:%M:%S} UTC); wait for it to end "
                                  f"(boardlab standings {name} shows the games so far)")
            with self.engine.begin() as db:   # a dead holder: take over, if still its row
                taken = db.execute(update(locks).where(
                    locks.c.tournament_id == tournament_id, locks.c.host == held.host,
                    locks.c.pid == held.pid, locks.c.since == held.since)
                    .values(since=_now(), **me)).rowcount
            if taken == 1:
                return
        raise LockedError(f"tournament {name!r}: its lock keeps changing hands; try again")

    def _has_game(self, tournament_id: int, index: int) -> bool:
        with self.engine.connect() as db:
            return db.execute(select(games.c.idx).where(games.c.tournament_id == tournament_id,
                                                        games.c.idx == index)).first() \
                is not None

    def dispose(self) -> None:
        self.engine.dispose()


def _gone(host: str, pid: int) -> bool:
    """Whether the process ``pid`` of ``host`` is known to have ended (this host only)."""
    if host != socket.gethostname():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:                   # alive, another user's
        return False
    return False


def _now() -> datetime:
    return datetime.now(UTC)


def _first_line(error: Exception) -> str:
    return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
