"""A game room's AI seats: asking each acting AI seat's agent for a move (in the hub's
thinker, off the event loop) and playing it through the room's commit.

A move stands while the seat's view is the one it was chosen from (a team mate's hidden
commit in a simultaneous round changes nothing it knew); otherwise the agent is asked
again. An agent that fails or chooses an illegal move resigns its seat.
"""
from __future__ import annotations

import logging
from concurrent.futures import BrokenExecutor
from typing import TYPE_CHECKING

from ..core.errors import BoardlabError
from . import ai
from .log_entries import RESIGN, LogEntry, move
from .messages import ProtocolError
from .seats import AI

if TYPE_CHECKING:
    from .room import Room

log = logging.getLogger("boardlab.server")


def unclocked(view: dict) -> dict:
    """A view without its clocks (another seat's clock moving changes nothing known)."""
    return {key: value for key, value in view.items() if key != "clocks"}


class AiSeats:
    """The AI seats of one room that are thinking now."""

    def __init__(self, room: Room):
        self.room = room
        self.thinking: set[int] = set()

    def schedule(self) -> None:
        """Ask the agent of every AI seat that acts now and is not thinking yet."""
        room = self.room
        for seat in room.acting():
            if room.seats[seat]["kind"] == AI and seat not in self.thinking:
                self.thinking.add(seat)
                task = ai.request(room.spec, room.seats[seat]["agent"], seat, room.seed,
                                  room.version, room.driver.view(seat),
                                  room.driver.budget(seat))
                room.hub.spawn(self._think(seat, task))

    async def _think(self, seat: int, task: dict) -> None:
        """Get the agent's move and play it (a failing agent resigns its seat)."""
        room = self.room
        try:
            action, failure = await room.hub.thinker.think(task), None
        except BrokenExecutor as error:         # the server's trouble: asked again on restart
            log.error("game %s: AI worker broken: %s", room.id, error)
            self.thinking.discard(seat)
            return
        except Exception as error:              # the agent's own failure
            action, failure = None, error
        async with room.lock:
            self.thinking.discard(seat)
            if seat not in room.acting() or \
                    unclocked(room.driver.view(seat)) != unclocked(task["view"]):
                self.schedule()                 # the position moved on: think again
                return
            await self._play(seat, action, failure)

    async def _play(self, seat: int, action, failure: Exception | None) -> None:
        """Play the agent's move; an agent that failed or chose an illegal move resigns."""
        room = self.room
        if failure:
            log.warning("game %s: the agent of seat %d failed (%s): it resigns", room.id,
                        seat, failure)
        for entry in ((RESIGN,) if failure else (self._entry(action), RESIGN)):
            try:
                await room.commit(seat, entry)
                return
            except ProtocolError as error:
                log.warning("game %s: seat %d's agent: %s", room.id, seat, error.message)
                if error.code != "illegal_move":
                    return

    def _entry(self, action) -> LogEntry:
        """The agent's action as a log entry (a resignation when it has no notation)."""
        try:
            return move(self.room.driver.state.action_to_string(action))
        except (BoardlabError, ValueError, IndexError, TypeError):
            return RESIGN
