"""The server's games as an append-only action log, through SQLAlchemy.

SQLite (a file) by default, PostgreSQL by URL. One row per game (its full spec,
seed, seats, clock, status and rating pool) and one row per accepted action (the seat, the
move in notation or a server entry such as ``!undo 4``, the client's
idempotency key, and the remaining clocks after it). A game's position is never
stored: it is the replay of its actions. Chat messages have a table of their own
(game, index, channel, team, sender, text, time). The tables are prefixed ``server_`` so
that a database shared with the arena's tournaments keeps both apart. The schema is
upgraded when a store opens (migrations/: Alembic).
"""
from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, UTC

from sqlalchemy import (JSON, BigInteger, Column, DateTime, ForeignKey, Integer, MetaData,
                        String, Table, UniqueConstraint, bindparam, create_engine, event, func,
                        delete, insert, or_, select, update)
from sqlalchemy.exc import ArgumentError, IntegrityError, SQLAlchemyError

from ..core.errors import BoardlabError
from . import fanout, migrations, pg_append, sqlite_append

DEFAULT_DB = "boardlab-server.db"
ACTIVE, OVER, ABORTED = "active", "over", "aborted"    # a game's status

metadata = MetaData()

games = Table(
    "server_games", metadata,
    Column("id", String(32), primary_key=True),
    Column("spec", String(500), nullable=False),
    Column("seed", BigInteger, nullable=False),
    Column("seats", JSON, nullable=False),
    Column("status", String(16), nullable=False, index=True),
    Column("clock", JSON),                      # None, or {"base": s, "increment": s}
    Column("rematch", String(32)),              # the id of the rematch, once asked for
    Column("pool", String(40)),                 # a rated game's rating pool; None: casual
    Column("result", JSON),                     # a finished game's result, for the lobby
    Column("created", DateTime(timezone=True), nullable=False),
    Column("updated", DateTime(timezone=True), nullable=False),
)

actions = Table(
    "server_actions", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("game_id", ForeignKey("server_games.id"), nullable=False),
    Column("idx", Integer, nullable=False),
    Column("seat", Integer, nullable=False),
    Column("move", String(200), nullable=False),
    Column("key", String(64)),
    Column("clocks", JSON),                     # remaining seconds per seat, after it
    Column("created", DateTime(timezone=True), nullable=False),
    UniqueConstraint("game_id", "idx"),
    UniqueConstraint("game_id", "key"),
)


chat = Table(
    "server_chat", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("game_id", ForeignKey("server_games.id"), nullable=False),
    Column("idx", Integer, nullable=False),
    Column("channel", String(16), nullable=False),   # players, team or spectators
    Column("team", Integer),                         # the team of a team message
    Column("sender", String(64), nullable=False),    # a seat name, or "spectator"
    Column("text", String(2000), nullable=False),
    Column("created", DateTime(timezone=True), nullable=False),
    UniqueConstraint("game_id", "idx"),
)


#: the accounts holding a game's seats (a seat's stored dict says ``"user": ID`` too)
players = Table(
    "server_game_players", metadata,
    Column("game_id", String(32), ForeignKey("server_games.id"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("user_id", Integer, ForeignKey("server_users.id"), nullable=False, index=True),
)


#: the statements of an append, built once: building and keying them anew for every action
#: cost about 0.2 ms of CPU an action (of about 0.4)
APPEND = insert(actions)
TOUCH = update(games).where(games.c.id == bindparam("game")) \
    .values(status=bindparam("status"), updated=bindparam("updated"))
APPEND_KEYS = ("game_id", "idx", "seat", "move", "key", "clocks", "created")
TOUCH_KEYS = ("game", "status", "updated")


class StoreError(BoardlabError):
    """The database refused or failed an operation."""


class Conflict(StoreError):
    """Another writer appended the same action index or idempotency key first."""


@dataclass(frozen=True)
class ChatMessage:
    """One stored chat message; ``team``: the team's index for the team channel."""

    index: int
    channel: str
    team: int | None
    sender: str
    text: str
    created: datetime


@dataclass(frozen=True)
class Action:
    """One logged action: ``seat`` played ``move`` (notation, ``resign``, or a server
    entry starting with ``!``); ``clocks``: the remaining seconds per seat after it;
    ``at``: when it was stored (read from the log; None for one not read back)."""

    seat: int
    move: str
    key: str | None = None
    clocks: list | None = None
    at: datetime | None = field(default=None, compare=False)


class Store:
    """The games and action logs of one database."""

    def __init__(self, url: str):
        self.url = url
        try:
            self.engine = create_engine(url)
            if self.engine.dialect.name == "sqlite":
                event.listen(self.engine, "connect", sqlite_append.pragmas)
            self.revisions = migrations.upgrade(self.engine)
        except (ArgumentError, SQLAlchemyError, ImportError, migrations.Failed) as error:
            raise StoreError(f"cannot open the database {self.safe_url}: "
                             f"{_first_line(error)}") from None
        #: several server processes may share this database (PostgreSQL): every change
        #: is announced to the others with NOTIFY in its own transaction (fanout.py)
        self.shared = self.engine.dialect.name == "postgresql"
        #: SQLite's appends go to the driver directly (the same SQL and parameters)
        self._direct = sqlite_append.Appender(self.engine, APPEND, APPEND_KEYS, TOUCH,
                                              TOUCH_KEYS) \
            if sqlite_append.Appender.usable(self.engine) else None
        #: PostgreSQL's appends: one statement, one round trip, on a connection of their own
        self._shared_appender = pg_append.Appender(
            fanout.conninfo(self.engine), actions.name, games.name, fanout.CHANNEL) \
            if self.shared else None
        #: the appends that bypass SQLAlchemy, and the error they raise for a taken index
        self._writer: tuple[Callable, type[Exception]] | None = \
            (self._direct.write, sqlite3.IntegrityError) if self._direct is not None else \
            (self._write_shared, pg_append.Taken) if self._shared_appender is not None \
            else None

    def _announce(self, db, game_id: str, what: str, detail: str | None = None) -> None:
        """Tell the other server processes, when the transaction ``db`` commits."""
        if self.shared:
            fanout.notify(db, game_id, what, detail)

    def _announce_actions(self, db, entries: list[tuple[str, int, Action, str]],
                          now: datetime) -> None:
        """Tell the other server processes of these new actions (with them: the others
        apply them without reading them back), one notice per game."""
        if self.shared:
            for game_id, detail in fanout.action_notices(entries, now):
                fanout.notify(db, game_id, "action", detail)

    def announce(self, game_id: str, what: str) -> None:
        """Tell the other server processes now (something not stored: a draw offer)."""
        if self.shared:
            with self.engine.begin() as db:
                fanout.notify(db, game_id, what)

    @property
    def safe_url(self) -> str:
        """The URL without its password, for messages."""
        try:
            return self.engine.url.render_as_string(hide_password=True)
        except AttributeError:
            return self.url.split("@")[-1]

    def create_game(self, game_id: str, spec: str, seed: int, seats: list[dict],
                    status: str = ACTIVE, clock: dict | None = None,
                    pool: str | None = None) -> None:
        """Store a new game with an empty log (``pool``: a rated game's rating pool)."""
        now = _now()
        with self.engine.begin() as db:
            db.execute(insert(games).values(id=game_id, spec=spec, seed=seed, seats=seats,
                                            status=status, clock=clock, pool=pool,
                                            created=now,
                                            updated=now))
            _set_players(db, game_id, seats)

    def append(self, game_id: str, index: int, action: Action, status: str) -> None:
        """Log action number ``index`` and the game's new status in one transaction.

        Raises :class:`Conflict` when the index or the key is already taken.
        """
        now = _now()
        if self._writer is not None:
            write, taken = self._writer
            try:
                write([(game_id, index, action, status)], now)
            except taken as error:
                raise Conflict(f"action {index} of game {game_id}: "
                               f"{_first_line(error)}") from None
            return
        try:
            with self.engine.begin() as db:
                db.execute(APPEND, {"game_id": game_id, "idx": index, "seat": action.seat,
                                    "move": action.move, "key": action.key,
                                    "clocks": action.clocks, "created": now})
                db.execute(TOUCH, {"game": game_id, "status": status, "updated": now})
                self._announce_actions(db, [(game_id, index, action, status)], now)
        except IntegrityError as error:
            raise Conflict(f"action {index} of game {game_id}: {_first_line(error)}") from None

    def _write_shared(self, entries: list[tuple[str, int, Action, str]], now) -> None:
        """Append ``entries`` and tell the other server processes, in one statement
        (pg_append.py); raises ``pg_append.Taken`` when an index or key is taken."""
        assert self._shared_appender is not None
        rows = [(game_id, index, action.seat, action.move, action.key,
                 None if action.clocks is None else fanout.json_text(action.clocks))
                for game_id, index, action, _ in entries]
        statuses = {game_id: status for game_id, _, _, status in entries}
        notices = [fanout.payload(game_id, "action", detail)
                   for game_id, detail in fanout.action_notices(entries, now)]
        self._shared_appender.write(rows, statuses, notices, now)

    def append_many(self, entries: list[tuple[str, int, Action, str]]
                    ) -> list[Exception | None]:
        """Log several actions (``(game_id, index, action, status)`` each, as for
        :meth:`append`) in one transaction: one commit, one disk sync, for all of them
        (the group commit of the server's committer). Returns, per entry, None when it
        is stored, else its :class:`Conflict` or :class:`StoreError`.

        When an index or key is taken (another process appended first), the batch is
        split in halves and each half tried again, so one conflict fails only its own
        entry, in a few transactions; any other failure fails the whole batch at once.
        """
        if len(entries) == 1:
            return [self._try_append(*entries[0])]
        now = _now()
        if self._writer is not None:
            write, taken = self._writer
            try:
                write(entries, now)
            except taken:
                half = len(entries) // 2
                return self.append_many(entries[:half]) + self.append_many(entries[half:])
            except Exception as error:          # the database failed: none was stored
                failed = StoreError(f"{len(entries)} actions: {_first_line(error)}")
                return [failed] * len(entries)
            return [None] * len(entries)
        try:
            with self.engine.begin() as db:
                db.execute(APPEND, [
                    {"game_id": game_id, "idx": index, "seat": action.seat,
                     "move": action.move, "key": action.key, "clocks": action.clocks,
                     "created": now} for game_id, index, action, _ in entries])
                last = {game_id: status for game_id, _, _, status in entries}
                db.execute(TOUCH, [{"game": game_id, "status": status, "updated": now}
                                   for game_id, status in last.items()])
                self._announce_actions(db, entries, now)
        except IntegrityError:
            half = len(entries) // 2
            return self.append_many(entries[:half]) + self.append_many(entries[half:])
        except Exception as error:              # the database failed: none was stored
            failed = StoreError(f"{len(entries)} actions: {_first_line(error)}")
            return [failed] * len(entries)
        return [None] * len(entries)

    def _try_append(self, game_id: str, index: int, action: Action,
                    status: str) -> Exception | None:
        """:meth:`append`'s outcome: None, its Conflict, or any failure as a StoreError."""
        try:
            self.append(game_id, index, action, status)
        except StoreError as error:
            return error
        except Exception as error:
            return StoreError(f"action {index} of game {game_id}: {_first_line(error)}")
        return None

    def set_seats(self, game_id: str, seats: list[dict]) -> None:
        """Replace a game's seats (a seat was taken)."""
        with self.engine.begin() as db:
            db.execute(update(games).where(games.c.id == game_id)
                       .values(seats=seats, updated=_now()))
            _set_players(db, game_id, seats)
            self._announce(db, game_id, "seats")

    def set_rematch(self, game_id: str, rematch_id: str) -> str | None:
        """Record the game's rematch unless one is recorded already; the rematch's id (None:
        no such game)."""
        with self.engine.begin() as db:
            done = db.execute(update(games).where(games.c.id == game_id)
                              .where(games.c.rematch.is_(None))
                              .values(rematch=rematch_id, updated=_now()))
            if done.rowcount:
                self._announce(db, game_id, "seats")
                return rematch_id
            return db.execute(select(games.c.rematch).where(games.c.id == game_id)).scalar()

    def set_result(self, game_id: str, result: dict | None) -> None:
        """Store a finished game's result (winners, scores, summary) for the lobby."""
        with self.engine.begin() as db:
            db.execute(update(games).where(games.c.id == game_id).values(result=result))

    def game(self, game_id: str):
        """The game's row, or None."""
        with self.engine.connect() as db:
            return db.execute(select(games).where(games.c.id == game_id)).first()

    def log(self, game_id: str, start: int = 0) -> list[Action]:
        """The game's actions in order, from action number ``start`` on (another server
        process's new actions: only those are read)."""
        query = select(actions.c.seat, actions.c.move, actions.c.key, actions.c.clocks,
                       actions.c.created) \
            .where(actions.c.game_id == game_id, actions.c.idx >= start) \
            .order_by(actions.c.idx)
        with self.engine.connect() as db:
            return [Action(row.seat, row.move, row.key, row.clocks, row.created)
                    for row in db.execute(query)]

    def add_chat(self, game_id: str, message: ChatMessage) -> None:
        """Store one chat message (Conflict when its index is taken)."""
        try:
            with self.engine.begin() as db:
                db.execute(insert(chat).values(
                    game_id=game_id, idx=message.index, channel=message.channel,
                    team=message.team, sender=message.sender, text=message.text,
                    created=message.created))
                self._announce(db, game_id, "chat")
        except IntegrityError as error:
            raise Conflict(f"chat {message.index} of game {game_id}: "
                           f"{_first_line(error)}") from None

    def chat(self, game_id: str, limit: int) -> tuple[int, list[ChatMessage]]:
        """How many chat messages the game has, and the newest ``limit`` in order."""
        query = select(chat).where(chat.c.game_id == game_id) \
            .order_by(chat.c.idx.desc()).limit(limit)
        count = select(func.count()).where(chat.c.game_id == game_id)
        with self.engine.connect() as db:
            rows = list(db.execute(query))
            total = db.execute(count).scalar() or 0
        return total, [ChatMessage(row.idx, row.channel, row.team, row.sender, row.text,
                                   row.created) for row in reversed(rows)]

    def active_ids(self) -> list[str]:
        """The ids of the unfinished games, oldest first."""
        query = select(games.c.id).where(games.c.status == ACTIVE).order_by(games.c.created)
        with self.engine.connect() as db:
            return [row.id for row in db.execute(query)]

    def listing(self, limit: int, idle_since: datetime | None = None) -> list:
        """The newest games (rows with their action counts), newest first; with
        ``idle_since``, without the abandoned ones: aborted games, and unfinished games
        not changed since then."""
        count = select(func.count()).where(actions.c.game_id == games.c.id) \
            .scalar_subquery().label("version")
        query = select(games, count).order_by(games.c.created.desc(), games.c.id).limit(limit)
        if idle_since is not None:
            query = query.where(games.c.status != ABORTED, or_(
                games.c.status != ACTIVE, games.c.updated >= idle_since))
        with self.engine.connect() as db:
            return list(db.execute(query))

    def dispose(self) -> None:
        if self._shared_appender is not None:
            self._shared_appender.close()
        if self._direct is not None:
            self._direct.close()
        self.engine.dispose()


def _set_players(db, game_id: str, seats: list[dict]) -> None:
    """Keep the players table as the seats say (seats held by accounts)."""
    db.execute(delete(players).where(players.c.game_id == game_id))
    held = [{"game_id": game_id, "seat": number, "user_id": seat["user"]}
            for number, seat in enumerate(seats) if seat.get("user") is not None]
    if held:
        db.execute(insert(players), held)


def _now() -> datetime:
    return datetime.now(UTC)


def _first_line(error: Exception) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__
