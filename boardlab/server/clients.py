"""A server's connections and their flood limits: :class:`Client`, :class:`Limits`, and the
:class:`TokenBucket` and :class:`Window` that count on the server's :class:`Clock`."""
from __future__ import annotations

import asyncio
import time
from collections import deque
from dataclasses import dataclass

from .wire import encode


@dataclass(frozen=True)
class Limits:
    """The server's flood limits (None: no limit; see docs/server-protocol.md).

    Every WebSocket frame takes a token from its connection's bucket
    (``frames_per_second``, at most ``frames_burst`` saved up); a frame without one is
    refused with ``rate_limited`` and dropped, and ``refused_to_close`` such refusals in
    a row close the connection (code 4429). Chat: at most ``chat_messages`` per
    connection in ``chat_seconds``. REST: at most ``creates_per_minute`` games created
    per client address. ``analyses``: analyses running at once (then 429 ``busy``);
    ``reviews``: game reviews running at once, ``reviews_waiting`` more waiting for a turn
    (then 429 ``busy``).
    """

    frames_per_second: float | None = 20.0
    frames_burst: int = 40
    refused_to_close: int = 200
    chat_messages: int | None = 5
    chat_seconds: float = 10.0
    creates_per_minute: int | None = 30
    analyses: int = 2
    reviews: int = 2
    reviews_waiting: int = 8

    @classmethod
    def off(cls) -> Limits:
        """No flood limits (for load checks); analyses and reviews stay capped."""
        return cls(frames_per_second=None, chat_messages=None, creates_per_minute=None)


class TokenBucket:
    """``rate`` tokens a second, at most ``burst`` saved up (on the server's clock)."""

    def __init__(self, rate: float | None, burst: int, clock: Clock):
        self.rate, self.burst, self.clock = rate, burst, clock
        self.tokens, self.at = float(burst), clock.now()

    def take(self) -> bool:
        """Take a token if there is one."""
        if self.rate is None:
            return True
        now = self.clock.now()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


class Window:
    """At most ``count`` events in any ``seconds`` (on the server's clock)."""

    def __init__(self, count: int | None, seconds: float, clock: Clock):
        self.count, self.seconds, self.clock = count, seconds, clock
        self.times: deque[float] = deque()

    def allow(self) -> bool:
        """Count an event if the window has room for it."""
        if self.count is None:
            return True
        now = self.clock.now()
        while self.times and self.times[0] <= now - self.seconds:
            self.times.popleft()
        if len(self.times) >= self.count:
            return False
        self.times.append(now)
        return True


class Clock:
    """The server's time: a monotonic ``now()`` and ``sleep``. Tests pass their own."""

    def now(self) -> float:
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


class Client:
    """One WebSocket connection: the seats it holds and its outgoing messages."""

    MAX_BACKLOG = 256      # a client this far behind is dropped (it reconnects and syncs)

    def __init__(self, seats: tuple[int, ...], limits: Limits | None = None,
                 clock: Clock | None = None):
        self.seats = seats
        self.focus = seats[0] if seats else None
        self.outbox: asyncio.Queue[str | None] = asyncio.Queue()
        self.dropped = False
        self.spectator_chat = False             # a seat holder reads the spectators' chat
        limits, clock = limits or Limits(), clock or Clock()
        self.frames = TokenBucket(limits.frames_per_second, limits.frames_burst, clock)
        self.chats = Window(limits.chat_messages, limits.chat_seconds, clock)
        self.refused = 0                        # frames refused in a row for flooding

    def admit(self) -> bool:
        """Whether the next frame is within the flood limit (counts refusals in a row)."""
        if self.frames.take():
            self.refused = 0
            return True
        self.refused += 1
        return False

    def seat_for(self, acting: list[int]) -> int | None:
        """The seat whose view this client gets: a held seat that acts now, else its focus."""
        return next((seat for seat in self.seats if seat in acting), self.focus)

    def send(self, message: dict) -> None:
        self.send_text(encode(message))

    def send_text(self, text: str) -> None:
        """Queue a frame; a client that does not keep up is dropped."""
        if self.dropped:
            return
        if self.outbox.qsize() >= self.MAX_BACKLOG:
            self.dropped = True
            self.outbox.put_nowait(None)
            return
        self.outbox.put_nowait(text)

