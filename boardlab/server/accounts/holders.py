"""The account names of a game's seats, which anyone may see (usernames are public): each
seat held by an account shows its name and whether it is a bot (public_seats's
``account``). A room keeps the names it has looked up (``Room.holders``), so a seat change
told to every connection carries them without a database read; a deleted account has no
name, and its seat shows none. The lobby's list (``GET /api/games``) names them too, with
each one's rating in a rated game's pool (:func:`listed_holders`)."""
from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from sqlalchemy import select

from .schema import ratings, users

from ...arena.glicko2 import Rating, provisional
from .ratings import public

#: how a rated game's list shows an account with no rating in its pool yet
NEWCOMER = {"rating": round(Rating().rating), "provisional": provisional(Rating())}

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


def listed_holders(engine: Engine, rows) -> dict[str, dict[int, dict]]:
    """For the lobby's rows of games: each game's seat holders ``{id: {"username", "bot"}}``
    and, in a rated game, each one's rating in its pool (``rating``, ``provisional``; a
    newcomer to the pool the rating it starts from). Two reads for the whole list."""
    names = names_of(engine, {seat["user"] for row in rows for seat in row.seats
                              if seat.get("user") is not None})
    pools = {row.pool for row in rows if row.pool is not None}
    found = {}
    if pools and names:
        query = select(ratings).where(ratings.c.pool.in_(sorted(pools)),
                                      ratings.c.user_id.in_(sorted(names)))
        with engine.connect() as db:
            found = {(row.user_id, row.pool): row for row in db.execute(query)}
    listed: dict[str, dict[int, dict]] = {}
    for row in rows:
        holders = listed[row.id] = {}
        for seat in row.seats:
            user = seat.get("user")
            if user not in names:
                continue
            holders[user] = dict(names[user])
            if row.pool is not None:
                rating = found.get((user, row.pool))
                shown = public(rating) if rating is not None else NEWCOMER
                holders[user].update(rating=shown["rating"], provisional=shown["provisional"])
    return listed


async def holders_of(room: Room) -> dict[int, dict]:
    """The names of ``room``'s seat holders, those not known yet read from the database."""
    ids = {seat["user"] for seat in room.seats if seat.get("user") is not None}
    missing = ids - set(room.holders)
    if missing:
        room.holders.update(await asyncio.to_thread(names_of, room.hub.store.engine, missing))
    return room.holders
