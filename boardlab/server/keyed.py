"""The keyed actions of a game room: ``action``, ``resign``, ``undo``, ``accept_draw`` and
``leave``, each of which the room commits to its log under the client's idempotency key.

A message whose key the room accepted already is acknowledged again (nothing is played
twice), unless the key was used for another action (``duplicate_key``). Otherwise the
message is checked (the seat held, the game running, the version current, the seat to
act) and its log entry committed by the room (:meth:`Room.commit`).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from .clients import Client
from .events import Events, Reply
from .log_entries import DRAW, RESIGN, LogEntry, move, undo
from .messages import Message, ProtocolError, required
from .resends import same_action

if TYPE_CHECKING:
    from .room import Room


class KeyedActions:
    """The handlers of the room's keyed messages (routes ``on_*``)."""

    def __init__(self, room: Room):
        self.room = room

    async def on_action(self, client: Client, message: Message) -> Events:
        def played(seat: int | None = None) -> LogEntry:
            return move(required(message.move, "move"))
        return await self._commit(client, message, played, played, turn=True)

    async def on_resign(self, client: Client, message: Message) -> Events:
        return await self._commit(client, message, lambda: RESIGN, lambda seat: RESIGN)

    async def on_undo(self, client: Client, message: Message) -> Events:
        return await self._commit(client, message, lambda: undo(0),
                                  lambda seat: undo(self.room.takebacker.target(seat)))

    async def on_accept_draw(self, client: Client, message: Message) -> Events:
        def entry(seat: int) -> LogEntry:
            self.room.drawer.check_accept(seat)
            return DRAW
        return await self._commit(client, message, lambda: DRAW, entry)

    async def on_leave(self, client: Client, message: Message) -> Events:
        """Give a seat up; in a running game the seat resigns first."""
        room = self.room
        if room.over:
            seat = required(message.seat, "seat")
            room.hold(client, seat)
            return await room.seating.leave(seat, message.key) + room.rematcher.maker_left()
        seat, key = self.checked(client, message, lambda: RESIGN)
        if key in room.keys:
            return [Reply(room.ack(key))]
        await room.commit(seat, RESIGN, key, client)
        return await room.seating.leave(seat, key)

    async def _commit(self, client: Client, message: Message, asked: Callable[[], LogEntry],
                      entry: Callable[[int], LogEntry], turn: bool = False) -> Events:
        """Acknowledge a key accepted already, else commit ``entry(seat)`` under it."""
        seat, key = self.checked(client, message, asked, turn)
        if key in self.room.keys:
            return [Reply(self.room.ack(key))]
        await self.room.commit(seat, entry(seat), key, client)
        return []

    def checked(self, client: Client, message: Message, asked: Callable[[], LogEntry],
                turn: bool = False) -> tuple[int, str]:
        """The seat and key of a message asking for the log entry ``asked()`` (an undo's
        target aside) that may be accepted, or acknowledged again when its key was
        accepted already; ProtocolError when it is refused. ``turn``: a move, which
        must be of the current version and of a seat to act."""
        room = self.room
        seat, key = required(message.seat, "seat"), required(message.key, "key")
        room.hold(client, seat)
        held = room.keys.get(key)
        if held is not None and held[0] not in client.seats:
            raise ProtocolError("duplicate_key", "this key was used for another action")
        if held is not None:
            logged = room.actions[held[1] - 1]
            if logged.seat != seat or not same_action(logged.move, asked()):
                raise ProtocolError("duplicate_key", f"this key was accepted for another "
                                    f"action (version {held[1]}): use a fresh key for "
                                    f"each action")
            return seat, key
        if room.over:
            raise ProtocolError("game_over", "the game is over")
        if turn and message.version != room.version:
            raise ProtocolError("stale_version", f"the game is at version {room.version}, "
                                f"not {message.version}: sync and choose again")
        if turn and seat not in room.acting():
            raise ProtocolError("not_your_turn", f"{room.name(seat)} does not act now")
        return seat, key
