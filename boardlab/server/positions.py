"""A game room's earlier positions: ``look`` (a connection's view of an earlier position)
and analyses (a search of one position in the AI workers, ``POST .../analysis``)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from . import ai
from .clients import Client
from .events import Events, Reply
from .messages import Message, ProtocolError, required

if TYPE_CHECKING:
    from .room import Room


class Positions:
    """Replays of one room's earlier positions."""

    def __init__(self, room: Room):
        self.room = room

    async def on_look(self, client: Client, message: Message) -> Events:
        """``client``'s view of the position after the first ``at`` history entries: the
        view of its focus seat (a spectator's: ``view(None)``), as that seat saw it then."""
        room, at = self.room, required(message.at, "at")
        length = len(room.driver.state.history)
        if not 0 <= at <= length:
            raise ProtocolError("bad_message", f"'look' message: at is a history "
                                f"length from 0 to {length}")
        seat = client.focus
        if at == length:
            view, lines = room.presented(seat)
        else:
            state = self.state_at(at)
            view = state.view(seat)
            lines = state.status_lines(seat, view)
        return [Reply({"type": "position", "at": at, "view": view, "lines": lines})]

    def state_at(self, at: int):
        """A copy of the state after the first ``at`` history entries (replayed)."""
        room = self.room
        state = room.driver.game.new_initial_state(seed=room.seed)
        for entry in room.driver.state.history[:at]:
            state.replay_entry(entry)
        if at == len(room.driver.state.history) and room.driver.state.agreed_draw:
            state.agree_draw()
        return state

    async def analyse(self, at: int, seconds: float, token: str | None) -> dict:
        """A search of the position after ``at`` history entries from its acting seat's
        view, in the AI workers: any position of a finished game; of a running one only
        for a token that holds every seat (a hotseat game with no AI)."""
        room = self.room
        async with room.lock:
            length = len(room.driver.state.history)
            if not 0 <= at <= length:
                raise ProtocolError("bad_request", f"'at' is a history length from 0 to "
                                    f"{length}")
            if not room.over and len(room.seats_of(token)) < len(room.seats):
                raise ProtocolError("forbidden", "a running game is analysed only with a "
                                    "token that holds every seat (a hotseat game, no AI)")
            state = self.state_at(at)
            acting = [] if state.is_terminal() else state.acting_seats()
            if not acting:                      # the end, or a chance node: nothing to search
                return self._final(at, state)
            seat = acting[0]
            task = ai.analysis_request(room.spec, seat, state.view(seat), seconds)
        return {"at": at, "seat": room.name(seat), **await room.hub.analyse(task)}

    def _final(self, at: int, state) -> dict:
        """The analysis of a position where no seat acts: the end's returns, if it is one."""
        game = self.room.driver.game
        low, high = game.utility_bounds
        returns = state.returns() if state.is_terminal() else None
        return {"at": at, "seat": None, "moves": [], "estimate": None if returns is None
                else {name: (value - low) / (high - low)
                      for name, value in zip(game.seat_names, returns)}}
