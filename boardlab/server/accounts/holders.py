"""The account names of a game's seats, which anyone may see (usernames are public): each
seat held by an account shows its name and whether it is a bot (public_seats's
``account``). A room keeps the names it has looked up (``Room.holders``), so a seat change
told to every connection carries them without a database read; a deleted account has no
name, and its seat shows none."""
from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from sqlalchemy import select

from .schema import users

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine

    from ..room import Room


def names_of(engine: Engine, ids: set[int]) -> dict[int, dict]:
    """``{id: {"username", "bot"}}`` of the accounts ``ids`` that still have a name."""
    if not ids:
        return {}
    query = select(users.c.id, users.c.username, users.c.bot).where(
        users.c.id.in_(sorted(ids)), users.c.username.is_not(None))
    with engine.connect() as db:
        return {row.id: {"username": row.username, "bot": bool(row.bot)}
                for row in db.execute(query)}


async def holders_of(room: Room) -> dict[int, dict]:
    """The names of ``room``'s seat holders, those not known yet read from the database."""
    ids = {seat["user"] for seat in room.seats if seat.get("user") is not None}
    missing = ids - set(room.holders)
    if missing:
        room.holders.update(await asyncio.to_thread(names_of, room.hub.store.engine, missing))
    return room.holders
