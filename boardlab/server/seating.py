"""A game room's seat changes: a seat given up (``leave``, or through another server
process) becomes open, and an open seat is taken (``POST /api/games/{id}/join``)."""
from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from sqlalchemy.exc import SQLAlchemyError

from ..core.errors import BoardlabError
from .events import Events, Send, Tell
from .messages import ProtocolError
from .seats import HUMAN, OPEN, SeatError, new_token, public_seats, token_hash

if TYPE_CHECKING:
    from .room import Room

log = logging.getLogger("boardlab.server")


class Seating:
    """Seats given up and taken in one room (every change under the room's lock)."""

    def __init__(self, room: Room):
        self.room = room

    async def leave(self, seat: int, key: str | None) -> Events:
        """Give ``seat`` up (its resignation, if the game ran, is logged already): it
        becomes open, and the connections that held it no longer do."""
        room = self.room
        seats = [dict(s) for s in room.seats]
        seats[seat] = {"kind": OPEN}
        try:
            await asyncio.to_thread(room.hub.store.set_seats, room.id, seats)
        except (BoardlabError, SQLAlchemyError) as error:
            log.error("game %s: cannot open seat %d: %s", room.id, seat, error)
            raise ProtocolError("no_seat", "the seat could not be given up; try again") \
                from None
        room.seats = seats
        return self.given_up({seat}, key)

    def given_up(self, seats: set[int], key: str | None) -> Events:
        """The connections that held ``seats`` no longer do (each told with ``left``);
        every connection gets the public seats."""
        room = self.room
        events: Events = []
        for client in list(room.clients):
            for seat in [s for s in client.seats if s in seats]:
                client.seats = tuple(s for s in client.seats if s != seat)
                if client.focus == seat:
                    client.focus = client.seats[0] if client.seats else None
                events.append(Send(client, {"type": "left", "seat": seat, "key": key,
                                            "seats": list(client.seats)}))
        events.append(Tell({"type": "seats", "version": room.version,
                            "seats": public_seats(room.driver.game, room.seats,
                                                  room.holders)}))
        return events

    async def take(self, seat, user: int | None = None) -> str:
        """Make open ``seat`` a person's (held by the account ``user`` too, if given);
        return its new token."""
        room = self.room
        async with room.lock:
            if isinstance(seat, bool) or not isinstance(seat, int) or \
                    not 0 <= seat < len(room.seats) or room.seats[seat]["kind"] != OPEN:
                raise SeatError(f"seat {seat!r} is not an open seat of this game")
            token = new_token()
            seats = [dict(s) for s in room.seats]
            seats[seat] = {"kind": HUMAN, "token": token_hash(token)}
            if user is not None:
                seats[seat]["user"] = user
            await asyncio.to_thread(room.hub.store.set_seats, room.id, seats)
            room.seats = seats
            return token
