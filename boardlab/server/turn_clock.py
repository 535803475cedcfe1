"""A game room's turn clock: when each acting seat's turn began, the seconds it has used,
and the watcher that logs a loss on time (or an abort) with no client message needed.

The driver keeps each seat's remaining clock as it was when the seat's turn began; this
piece knows when that was, on the server's clock (``hub.clock``, a fake one in tests).

**A correspondence clock** (``{"days": N}``, clocks.py) is a clock of N days refilled after
each move; its turns last days, so a restart must not start them again: when a game is
loaded from its log (:meth:`TurnClock.resume`), each acting seat's turn began when the
logged action that gave it the turn was stored (the game's creation when none did), on the
server's wall clock (``lifecycle.wall``); a seat whose days ran out while the server was
down loses on time as soon as the game is loaded.

**The opening** (lifecycle.py): until every side (team) has made a move no clock runs
and no move is charged; a timed game whose acting seat does not move within the
server's first-move limit is then aborted (``!abort``), not lost. The clocks start when
the last side makes its first move.
"""
from __future__ import annotations

import asyncio
import logging
import math
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from .log_entries import ABORT, TIMEOUT
from .messages import ProtocolError

if TYPE_CHECKING:
    from .room import Room

log = logging.getLogger("boardlab.server")
RETRY = 1.0                # seconds before a loss on time that could not be stored is retried


class TurnClock:
    """The turn start times of a room's acting seats and its flag-fall watcher."""

    def __init__(self, room: Room):
        self.room = room
        self.started: dict[int, float] = {}    # when each acting seat's turn began
        self.timer: asyncio.Task | None = None
        self.opening = True                     # some side has not moved yet: no clock runs
        #: a correspondence clock's turns: when (wall time, from the log) each seat's began
        self.began: dict[int, datetime | None] = {}

    def used(self, seat: int) -> float:
        """The seconds ``seat`` has thought in its current turn."""
        now = self.room.hub.clock.now()
        return max(0.0, now - self.started.get(seat, now))

    def left(self, seat: int) -> float:
        """The seconds ``seat`` had on its clock when its turn began (no clock: infinity)."""
        left = self.room.driver.clocks[seat]
        return math.inf if left is None else left

    def charged(self, seat: int) -> float | None:
        """The seconds a move of ``seat`` now is charged (None: no clock, or the opening)."""
        return None if self.opening or not self.room.timed else self.used(seat)

    def elapsed(self) -> dict[str, float]:
        """The seconds each seat whose clock runs has used in this turn, by seat name
        (none in the opening)."""
        if self.opening:
            return {}
        names = self.room.driver.game.seat_names
        return {names[seat]: round(self.used(seat), 3) for seat in self.room.acting()}

    def _opening(self) -> bool:
        """Whether some side has made no move yet."""
        game = self.room.driver.game
        moved = {game.team_of(seat) for seat in self.room.driver.movers() if seat >= 0}
        return len(moved) < len(game.teams)

    def recount(self) -> None:
        """Whether the game is in its opening, found again (the log was replayed)."""
        self.opening = self._opening()

    def restart(self, mover: int | None = None, reset: bool = False) -> None:
        """Start the turn of every seat that acts now and did not act before (or just
        moved and acts again); after an undo (``reset``) or at the end of the opening
        every acting seat's turn."""
        was = self.opening
        self.opening = self._opening() if was or reset else False
        reset = reset or (was and not self.opening)     # the clocks start now
        now, started = self.room.hub.clock.now(), self.started
        self.started = {seat: started[seat]
                        if not reset and seat != mover and seat in started else now
                        for seat in self.room.acting()}

    def resume(self, created: datetime) -> None:
        """A game loaded from its log (``created``: when the game was made): the turns of a
        correspondence clock began when the log says, not now."""
        if not self.room.driver.time_control.refill:
            return
        hub = self.room.hub
        wall, now = hub.lifecycle.wall(), hub.clock.now()
        for seat in self.started:
            began = self.began.get(seat, created)
            if began is not None:
                began = began if began.tzinfo else began.replace(tzinfo=UTC)
                self.started[seat] = now - max(0.0, (wall - began).total_seconds())

    def limit(self, seat: int) -> float:
        """The seconds ``seat`` has in this turn: its clock, or in the opening the
        server's first-move limit (infinity: none); a correspondence clock's days in the
        opening too."""
        if self.opening and not self.room.driver.time_control.refill:
            return self.room.hub.lifecycle.first_move_limit or math.inf
        return self.left(seat)

    def arm(self) -> None:
        """Watch for the first acting seat's clock (in the opening: its first-move limit)
        to run out (no client message needed)."""
        if self.timer is not None and self.timer is not asyncio.current_task():
            self.timer.cancel()
        self.timer = None
        room = self.room
        if not room.timed or room.over or not self.started:
            return
        deadline = min(self.started[seat] + self.limit(seat) for seat in self.started)
        if deadline < math.inf:
            self.timer = room.hub.spawn(self._watch(deadline))

    async def _watch(self, deadline: float) -> None:
        room, clock = self.room, self.room.hub.clock
        await clock.sleep(max(0.0, deadline - clock.now()))
        async with room.lock:
            if self.timer is not asyncio.current_task():
                return                          # an action came first
            self.timer = None
            late = [seat for seat in room.acting()
                    if self.used(seat) >= self.limit(seat)]
            if not late:
                self.arm()
                return
            entry = ABORT if self.opening else TIMEOUT
            try:
                await room.commit(late[0], entry)
            except ProtocolError as error:         # the database failed: try again soon
                log.error("game %s: cannot log %r of %s: %s", room.id, entry.encode(),
                          room.name(late[0]), error.message)
                if not room.over and self.timer is None:
                    self.timer = room.hub.spawn(self._watch(clock.now() + RETRY))
