"""A game room's chat: stored messages, their channels, and who reads what.

``players``: the seat holders; ``team``: the holders of the sender's team's seats (for
games whose teams have several seats); ``spectators``: spectators, and seat holders who
asked for it (``spectator_chat``). A player's chat never reaches a spectator, a team's
never the other team. Every message is stored before anyone gets it; a live game keeps
the newest :data:`CHAT_KEPT` in memory, and a sync carries the newest :data:`CHAT_SYNCED`
its connection may read.
"""
from __future__ import annotations

import asyncio
import logging
from collections import deque
from datetime import datetime, UTC
from typing import TYPE_CHECKING

from sqlalchemy.exc import SQLAlchemyError

from ..core.errors import BoardlabError
from .clients import Client
from .events import ChatLine, Events, Sync
from .messages import Message, ProtocolError, chat_text, required
from .store import ChatMessage, Conflict
from .wire import encode

if TYPE_CHECKING:
    from .room import Room

log = logging.getLogger("boardlab.server")

CHAT_SYNCED = 200          # the newest readable chat messages a sync carries
CHAT_KEPT = 2000           # the newest chat messages a live game keeps in memory
SPECTATOR = "spectator"    # the sender of a spectator's chat message


def chat_message(entry: ChatMessage) -> dict:
    """The ``chat`` message of a stored chat message."""
    created = entry.created
    if created.tzinfo is not None:
        created = created.astimezone(UTC).replace(tzinfo=None)
    return {"type": "chat", "channel": entry.channel, "from": entry.sender,
            "text": entry.text, "at": created.isoformat(timespec="seconds") + "Z"}


class Chat:
    """The chat of one room: how many messages it has, and the newest kept."""

    def __init__(self, room: Room, count: int = 0, kept: list[ChatMessage] | None = None):
        self.room = room
        self.reload(count, kept or [])

    def reload(self, count: int, kept: list[ChatMessage]) -> None:
        """The chat as the database has it: ``count`` messages, the newest ``kept``."""
        self.count, self.kept = count, deque(kept, maxlen=CHAT_KEPT)

    def reads(self, client: Client, entry: ChatMessage) -> bool:
        """Whether ``client`` may read a chat message."""
        if entry.channel == "players":
            return bool(client.seats)
        if entry.channel == "team":
            return any(self.room.driver.game.team_of(s) == entry.team for s in client.seats)
        return not client.seats or client.spectator_chat

    def synced(self, client: Client) -> list[dict]:
        """The newest messages ``client`` may read, for its sync."""
        readable = [entry for entry in self.kept if self.reads(client, entry)]
        return [chat_message(entry) for entry in readable[-CHAT_SYNCED:]]

    def deliver(self, entry: ChatMessage) -> None:
        """Send a stored message to every connection that may read it."""
        text = encode(chat_message(entry))
        for client in list(self.room.clients):
            if self.reads(client, entry):
                client.send_text(text)

    async def on_chat(self, client: Client, message: Message) -> Events:
        """A chat message: checked, stored, then published to the connections its
        channel reaches."""
        room, channel, seat = self.room, required(message.channel, "channel"), message.seat
        if seat is not None:
            room.hold(client, seat)
        elif client.seats:
            raise ProtocolError("bad_message", "'chat' message: a seat holder names the "
                                "seat that speaks (seat)")
        if seat is None and channel != "spectators":
            raise ProtocolError("forbidden", "spectators chat only on the spectators' "
                                "channel")
        game = room.driver.game
        team = game.team_of(seat) if channel == "team" and seat is not None else None
        if team is not None and len(game.teams[team]) < 2:
            raise ProtocolError("bad_message", "the team channel is for games whose teams "
                                "have several seats")
        text = chat_text(required(message.text, "text"))
        if not client.chats.allow():
            raise ProtocolError("rate_limited", f"at most {client.chats.count} chat "
                                f"messages in {client.chats.seconds:g} s")
        sender = SPECTATOR if seat is None else room.name(seat)
        return [ChatLine(await self._store(channel, team, sender, text))]

    async def _store(self, channel: str, team: int | None, sender: str,
                     text: str) -> ChatMessage:
        """Store a chat message as the game's next one (lock held). When another server
        process took that index first, load the chat again and take the next one."""
        store, game_id = self.room.hub.store, self.room.id
        for _ in range(2):
            entry = ChatMessage(self.count, channel, team, sender, text,
                                datetime.now(UTC))
            try:
                await asyncio.to_thread(store.add_chat, game_id, entry)
            except Conflict:                    # another process's message took the index:
                count, kept = await asyncio.to_thread(store.chat, game_id, CHAT_KEPT)
                for other in kept:              # it reaches this process's readers first
                    if other.index >= self.count:
                        self.deliver(other)
                self.reload(count, kept)
                continue
            except (BoardlabError, SQLAlchemyError) as error:
                log.error("game %s: cannot store a chat message: %s", game_id, error)
                break
            self.count += 1
            self.kept.append(entry)
            return entry
        raise ProtocolError("server_error", "the chat message could not be stored; try "
                            "again")

    async def on_spectator_chat(self, client: Client, message: Message) -> Events:
        """A seat holder turns its reading of the spectators' chat on or off; a sync
        follows (with the chat it may now read)."""
        if not client.seats:
            raise ProtocolError("forbidden", "spectators read the spectators' chat always")
        client.spectator_chat = required(message.on, "on")
        return [Sync(client)]

    async def catch_up(self) -> Events:
        """Read the chat again (another server process added to it); its new messages."""
        count, kept = await asyncio.to_thread(self.room.hub.store.chat, self.room.id,
                                              CHAT_KEPT)
        new = [entry for entry in kept if entry.index >= self.count]
        self.reload(count, kept)
        return [ChatLine(entry) for entry in new]
