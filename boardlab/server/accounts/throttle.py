"""Sign-in and sign-up attempts, rate-limited per client address and per username.

Every attempt counts (before its password is checked: a flood costs no Argon2 time), in
windows on the server's clock. The counts are per server process.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..clients import Clock, Window

KEPT = 10_000                   # keys whose windows are kept (then all are forgotten)


@dataclass(frozen=True)
class Limits:
    """Attempts a minute: sign-ins per address and per username, sign-ups per address."""

    logins_per_address: int = 30
    logins_per_name: int = 10
    signups_per_address: int = 10


class Throttle:
    """At most ``count`` attempts a ``seconds`` per key."""

    def __init__(self, count: int, clock: Clock, seconds: float = 60.0):
        self.count, self.clock, self.seconds = count, clock, seconds
        self.windows: dict[str, Window] = {}

    def allow(self, key: str) -> bool:
        window = self.windows.get(key)
        if window is None:
            if len(self.windows) > KEPT:
                self.windows.clear()
            window = self.windows[key] = Window(self.count, self.seconds, self.clock)
        return window.allow()
