"""``explain``: why a click on the board begins no legal move (the game's own reason).

The web app turns clicks into moves from the board description's gestures; when a click
continues no legal move it asks here, and the game answers from its rules
(``State.pick_reason``, core/picks.py), so that the page never re-implements them."""
from __future__ import annotations

from typing import TYPE_CHECKING

from .clients import Client
from .events import Events, Reply
from .messages import Message, required

if TYPE_CHECKING:
    from .room import Room


class Explainer:
    """The ``explain`` messages of one room."""

    def __init__(self, room: Room):
        self.room = room

    async def on_explain(self, client: Client, message: Message) -> Events:
        """``{"type": "explanation", "version", "seat", "picks", "reason"}``: why the
        picks of a held seat begin no legal move at this version (``reason`` null: some
        legal move begins with them)."""
        room = self.room
        seat = required(message.seat, "seat")
        room.hold(client, seat)
        picks = list(required(message.picks, "picks"))
        reason = room.driver.state.pick_reason(seat, picks)
        return [Reply({"type": "explanation", "version": room.version, "seat": seat,
                       "picks": [{"kind": kind, "value": value} for kind, value in picks],
                       "reason": reason})]
