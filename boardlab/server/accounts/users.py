"""The accounts in the database (synchronous: the routes run these in threads).

Passwords are Argon2 hashes (argon2-cffi); a session is stored as the SHA-256 of its id.
Deleting an account keeps its games and ratings history under no name: its name becomes a
hash (never given out again), its password and sessions go.
"""
from __future__ import annotations

import secrets
from datetime import UTC, datetime, timedelta

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import Engine, delete, insert, select, update
from sqlalchemy.exc import IntegrityError

from ..store import StoreError, games, players
from .names import deleted_key, name_key
from .schema import history, ratings, sessions, settings, users
from .sessions import LIFETIME

HASHER = PasswordHasher()
#: verified against when the name is unknown, so that a wrong name costs the same time
DUMMY_HASH = HASHER.hash("not a password of anyone")


class NameTaken(StoreError):
    """The username (or one differing only in case) is taken."""


def now() -> datetime:
    return datetime.now(UTC)


def _aware(when: datetime) -> datetime:
    """SQLite gives datetimes back without their zone (they were stored in UTC)."""
    return when if when.tzinfo else when.replace(tzinfo=UTC)


class Users:
    """The accounts, sessions and settings of one database."""

    def __init__(self, engine: Engine):
        self.engine = engine

    # The server's key ------------------------------------------------------------------------
    def setting(self, name: str, make) -> str:
        """A server setting, made by ``make()`` and stored the first time it is asked for."""
        with self.engine.begin() as db:
            found = db.execute(select(settings.c.value).where(settings.c.name == name)).scalar()
            if found is not None:
                return found
        try:
            with self.engine.begin() as db:
                db.execute(insert(settings).values(name=name, value=make()))
        except IntegrityError:                  # another server process made it first
            pass
        with self.engine.begin() as db:
            return db.execute(select(settings.c.value).where(settings.c.name == name)).scalar_one()

    def signing_key(self) -> str:
        return self.setting("session_signing_key", lambda: secrets.token_urlsafe(48))

    # Accounts ----------------------------------------------------------------------------------
    def create(self, username: str, password: str | None, bot: bool = False) -> int:
        """A new account's id (NameTaken when the name is taken, in any case)."""
        key = name_key(username)
        hashed = None if password is None else HASHER.hash(password)
        try:
            with self.engine.begin() as db:
                if db.execute(select(users.c.id).where(
                        users.c.name_key == deleted_key(key))).first() is not None:
                    raise NameTaken(f"the name {username!r} is taken")
                made = db.execute(insert(users).values(
                    username=username, name_key=key, password=hashed, bot=bot,
                    disabled=False, deleted=False, created=now())).inserted_primary_key
                assert made is not None
                return made[0]
        except IntegrityError:
            raise NameTaken(f"the name {username!r} is taken") from None

    def find(self, username: str):
        """The live account of ``username`` (any case), or None."""
        with self.engine.connect() as db:
            return db.execute(select(users).where(users.c.name_key == name_key(username),
                                                  users.c.deleted.is_(False))).first()

    def names(self, ids) -> dict[int, str]:
        """Account id -> name (a deleted account has none)."""
        ids = sorted(set(ids))
        if not ids:
            return {}
        with self.engine.connect() as db:
            return {row.id: row.username for row in db.execute(
                select(users.c.id, users.c.username).where(users.c.id.in_(ids),
                                                           users.c.deleted.is_(False)))}

    def check_password(self, username: str, password: str):
        """The account when ``password`` is its password (and it is enabled), else None.
        Unknown names cost an Argon2 verification too."""
        user = self.find(username)
        try:
            HASHER.verify(user.password if user is not None and user.password
                          else DUMMY_HASH, password)
        except (VerificationError, InvalidHashError):
            return None
        if user is None or not user.password or user.disabled:
            return None
        if HASHER.check_needs_rehash(user.password):
            self.set_password(user.id, password, end_sessions=False)
        return user

    def set_password(self, user_id: int, password: str, end_sessions: bool = True,
                     keep: str | None = None) -> None:
        """A new password; every session but ``keep`` (a session hash) ends."""
        hashed = HASHER.hash(password)
        with self.engine.begin() as db:
            db.execute(update(users).where(users.c.id == user_id).values(password=hashed))
            if end_sessions:
                db.execute(delete(sessions).where(sessions.c.user_id == user_id,
                                                  sessions.c.id != (keep or "")))

    def disable(self, user_id: int) -> None:
        """The account can no longer sign in; its sessions end."""
        with self.engine.begin() as db:
            db.execute(update(users).where(users.c.id == user_id).values(disabled=True))
            db.execute(delete(sessions).where(sessions.c.user_id == user_id))

    def delete(self, user_id: int) -> None:
        """Anonymise the account: no name, no password, no sessions, no ratings; its games
        and their rating history stay, under no name."""
        with self.engine.begin() as db:
            row = db.execute(select(users.c.name_key).where(users.c.id == user_id)).first()
            if row is None:
                return
            db.execute(update(users).where(users.c.id == user_id).values(
                username=None, name_key=deleted_key(row.name_key), password=None,
                deleted=True, disabled=True))
            db.execute(delete(sessions).where(sessions.c.user_id == user_id))
            db.execute(delete(ratings).where(ratings.c.user_id == user_id))

    # Sessions ----------------------------------------------------------------------------------
    def open_session(self, user_id: int, hashed: str) -> None:
        when = now()
        with self.engine.begin() as db:
            db.execute(insert(sessions).values(id=hashed, user_id=user_id, created=when,
                                               expires=when + timedelta(seconds=LIFETIME)))

    def session_user(self, hashed: str):
        """The account of a live session, or None (unknown, expired, account disabled)."""
        query = select(users).join(sessions, sessions.c.user_id == users.c.id) \
            .where(sessions.c.id == hashed, users.c.disabled.is_(False),
                   users.c.deleted.is_(False)).add_columns(sessions.c.expires)
        with self.engine.connect() as db:
            row = db.execute(query).first()
        if row is None or _aware(row.expires) <= now():
            return None
        return row

    def close_session(self, hashed: str) -> None:
        with self.engine.begin() as db:
            db.execute(delete(sessions).where(sessions.c.id == hashed))

    # Profiles ----------------------------------------------------------------------------------
    def ratings_of(self, user_id: int) -> list:
        with self.engine.connect() as db:
            return list(db.execute(select(ratings).where(ratings.c.user_id == user_id)
                                   .order_by(ratings.c.pool)))

    def history_of(self, user_id: int, limit: int = 500) -> list:
        """The account's rating after each of its newest rated games, oldest first."""
        query = select(history.c.pool, history.c.rating, history.c.created) \
            .where(history.c.user_id == user_id) \
            .order_by(history.c.created.desc(), history.c.id.desc()).limit(limit)
        with self.engine.connect() as db:
            return list(reversed(list(db.execute(query))))

    def games_of(self, user_id: int, limit: int = 50) -> list:
        """The account's newest games: (game row, its seats held by the account, the rating
        change of a rated one or None)."""
        query = select(games.c.id, games.c.spec, games.c.status, games.c.pool,
                       games.c.created, players.c.seat) \
            .join(players, players.c.game_id == games.c.id) \
            .where(players.c.user_id == user_id) \
            .order_by(games.c.created.desc(), games.c.id).limit(limit * 8)
        changes = select(history).where(history.c.user_id == user_id)
        with self.engine.connect() as db:
            rows = list(db.execute(query))
            changed = {row.game_id: row for row in db.execute(changes.where(
                history.c.game_id.in_({row.id for row in rows})))}
        listed: dict[str, tuple] = {}
        for row in rows:
            seats = listed.get(row.id, (row, [], changed.get(row.id)))[1]
            seats.append(row.seat)
            listed[row.id] = (row, seats, changed.get(row.id))
        return list(listed.values())[:limit]

    def seated(self, game_id: str) -> dict[int, int]:
        """Seat -> account of a game's seats held by accounts."""
        with self.engine.connect() as db:
            return {row.seat: row.user_id for row in db.execute(
                select(players).where(players.c.game_id == game_id))}

    def leaderboard(self, pool: str, limit: int = 100) -> list:
        query = select(ratings, users.c.username, users.c.bot) \
            .join(users, users.c.id == ratings.c.user_id) \
            .where(ratings.c.pool == pool, users.c.deleted.is_(False),
                   users.c.disabled.is_(False)) \
            .order_by(ratings.c.rating.desc(), users.c.username).limit(limit)
        with self.engine.connect() as db:
            return list(db.execute(query))

