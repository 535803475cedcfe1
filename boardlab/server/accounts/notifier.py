"""Wake-ups of an account's event streams (stream.py) in this server process: a challenge,
a seek taken, a game started or ended. A stream also reads the database every few seconds,
so a change made by another server process reaches it too, a little later."""
from __future__ import annotations

import asyncio
from collections.abc import Iterable


class Notifier:
    """Account id -> the events of its open streams."""

    def __init__(self):
        self.waiting: dict[int, set[asyncio.Event]] = {}

    def subscribe(self, user_id: int) -> asyncio.Event:
        event = asyncio.Event()
        self.waiting.setdefault(user_id, set()).add(event)
        return event

    def unsubscribe(self, user_id: int, event: asyncio.Event) -> None:
        events = self.waiting.get(user_id)
        if events is not None:
            events.discard(event)
            if not events:
                del self.waiting[user_id]

    def notify(self, user_ids: Iterable[int | None]) -> None:
        """Wake every stream of these accounts."""
        for user_id in user_ids:
            for event in self.waiting.get(user_id, ()) if user_id is not None else ():
                event.set()
