"""What a game room tells its connections: the events its handlers return.

A handler of a client message (or of another server process's change) does not send
anything itself: it changes the room's state under the room's lock and returns these
small values, and the room's one ``publish`` (room.py) turns them into frames, in order.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .clients import Client
    from .store import ChatMessage


@dataclass(frozen=True)
class Reply:
    """A message to the connection whose message is being handled."""

    message: dict


@dataclass(frozen=True)
class Send:
    """A message to one connection."""

    client: Client
    message: dict


@dataclass(frozen=True)
class Tell:
    """The same message to every connection (its JSON built once)."""

    message: dict


@dataclass(frozen=True)
class Update:
    """Every connection's view after an accepted action, with the announcements of the
    history entries from ``before`` on."""

    before: int


@dataclass(frozen=True)
class Sync:
    """A full sync: to ``client`` (of ``seat``, else the seat it would be updated with),
    or to every connection when ``client`` is None."""

    client: Client | None
    seat: int | None = None


@dataclass(frozen=True)
class ChatLine:
    """A stored chat message, to the connections that may read its channel."""

    entry: ChatMessage


@dataclass(frozen=True)
class Announce:
    """Tell the other server processes something that is not stored (a draw offer)."""

    what: str


Event = Reply | Send | Tell | Update | Sync | ChatLine | Announce
Events = list[Event]      # a handler's answer: the events to publish, in order
