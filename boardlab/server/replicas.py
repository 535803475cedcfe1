"""Several server processes over one PostgreSQL database: catching up on the others' changes.

Another process that commits something about a game sends a notice (fanout.py). The
:class:`Listener` of each process hands it to the hub, which hands it to the game's room
when the game is in memory (a game not in memory is read when it is loaded); the room's
:class:`Replica` reads the change from the database under the room's lock and tells its
own clients (new actions come with their notice: they are applied without reading the
database when they follow what the room holds). What changed: ``action`` (new log
entries), ``seats`` (a seat taken or given up, a rematch), ``chat``, or an offer's event
``draw:offered:SEAT`` / ``draw:declined:SEAT`` / ``rematch:offered|declined|withdrawn:SEAT``
(offers are not stored).
"""
from __future__ import annotations

import asyncio
import logging
from datetime import datetime
from typing import TYPE_CHECKING

import orjson

from . import fanout
from .events import Events, Sync, Tell, Update
from .log_entries import UNDO_TEXT
from .seats import OPEN
from .store import Action

if TYPE_CHECKING:
    from .hub import Hub
    from .room import Room

log = logging.getLogger("boardlab.server")

LISTEN_WAIT = 30             # seconds a starting server waits for its LISTEN connection
CHANGES = ("action", "seats", "chat")   # what a room reads again after a missed notice


class Replica:
    """One room's catch-up on the changes other server processes committed."""

    def __init__(self, room: Room):
        self.room = room

    async def catch_up(self, what: str, detail: str | None = None) -> None:
        """Another server process changed this game: read the change (``detail``: the
        new actions of an ``action`` notice, fanout.actions_detail) and tell this
        process's clients."""
        room = self.room
        async with room.lock:
            if what == "action":
                await self.catch_up_actions(noticed(detail))
            elif what == "seats":
                room.publish(await self._seats())
            elif what == "chat":
                room.publish(await room.chat.catch_up())
            elif what.startswith("draw:"):
                _, event, seat = what.split(":")
                if seat.isdigit() and int(seat) < len(room.seats) and not room.over:
                    room.publish(room.drawer.event(int(seat), event == "offered",
                                                   announce=False))
            elif what.startswith("rematch:"):
                _, event, seat = what.split(":")
                if seat.isdigit() and int(seat) < len(room.seats) and room.over:
                    room.publish(room.rematcher.noted(event, int(seat)))

    async def catch_up_actions(self, known: list[tuple[int, Action]] | None = None) -> None:
        """Apply the log entries another process appended and update every client (lock
        held); a log that does not extend this process's game is replayed from the start.
        ``known``: the new entries with their indexes, as a notice told them; the log is
        read when they are not told, or do not follow what the room holds."""
        room = self.room
        new = following(known, room.version)
        if new is None:
            new = await asyncio.to_thread(room.hub.store.log, room.id, room.version)
        if not new:
            return
        before, reset = len(room.driver.state.history), False
        try:
            for action in new:
                room.replay(action)
                reset = reset or action.move.startswith(UNDO_TEXT)
        except Exception:                       # cannot happen with one log: start over
            log.exception("game %s: the log does not extend this process's game", room.id)
            room.rebuild(await asyncio.to_thread(room.hub.store.log, room.id))
            events: Events = [Sync(None)]
        else:
            room.turns.restart(new[-1].seat, reset=reset)
            events = [Update(before)]
        room.offers.clear()                     # an offer stands until the next action
        room.publish(events)
        room.start()

    async def _seats(self) -> Events:
        room = self.room
        row = await asyncio.to_thread(room.hub.store.game, room.id)
        if row is None:
            return []
        events: Events = []
        if row.rematch and row.rematch != room.rematch:
            room.rematch = row.rematch
            events.append(Tell({"type": "rematch", "id": row.rematch}))
        if row.seats == room.seats:
            return events
        room.seats = row.seats                  # seats given up through another process:
        opened = {s for s, held in enumerate(room.seats) if held["kind"] == OPEN}
        return events + room.seating.given_up(opened, None)


def noticed(detail: str | None) -> list[tuple[int, Action]] | None:
    """The ``(index, action)`` entries an ``action`` notice's detail tells; None when it
    tells none, or cannot be read."""
    if detail is None:
        return None
    try:
        return [(index, Action(seat, move, key, clocks, datetime.fromisoformat(created)))
                for index, seat, move, key, clocks, created in orjson.loads(detail)]
    except (ValueError, TypeError):
        log.warning("an action notice that cannot be read: %.200s", detail)
        return None


def following(known: list[tuple[int, Action]] | None, version: int) -> list[Action] | None:
    """The entries of ``known`` after the first ``version`` ones (none: all are known
    already); None when ``known`` is None, leaves a gap after ``version`` or does not
    number its entries one after the other (the log must be read)."""
    if not known:
        return None
    first = known[0][0]
    if first > version or any(index != first + n for n, (index, _) in enumerate(known)):
        return None
    return [action for index, action in known if index >= version]


class Listener:
    """A hub's LISTEN connection: other processes' notices reach the rooms in memory."""

    def __init__(self, hub: Hub):
        self.hub = hub
        self.fanout: fanout.Listener | None = None

    async def start(self) -> None:
        """Listen (before any game is loaded), waiting at most LISTEN_WAIT seconds."""
        store = self.hub.store
        self.fanout = fanout.Listener(fanout.conninfo(store.engine), self._notice,
                                      self._resync)
        self.fanout.start()
        try:
            await asyncio.wait_for(self.fanout.ready.wait(), LISTEN_WAIT)
        except TimeoutError:
            log.warning("no LISTEN connection after %d s: other server processes' moves "
                        "reach this one's clients once it connects", LISTEN_WAIT)

    async def _notice(self, game_id: str, what: str, detail: str | None) -> None:
        room = self.hub.games.get(game_id)
        if room is not None:                    # a game not in memory is read when loaded
            await room.replica.catch_up(what, detail)

    async def _resync(self) -> None:
        """After a (re)connection: catch up on every game in memory."""
        for room in list(self.hub.games.values()):
            for what in CHANGES:
                await room.replica.catch_up(what)

    async def close(self) -> None:
        if self.fanout is not None:
            await self.fanout.close()
