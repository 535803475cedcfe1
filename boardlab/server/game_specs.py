"""The server's games by spec: one :class:`~boardlab.core.game.Game` instance a spec, shared
by every room of that spec.

A game is its options and the tables it derives from them once and keeps (the notation of
every action, the board's symmetries, ...): building a new instance for each room built
those tables again, about 2 ms of a new room's CPU (against 0.1 ms for the room itself
and its first view). A game's state never lives in it: each room's driver has a state of
its own.
"""
from __future__ import annotations

import functools

from ..core.game import Game
from ..core.registry import make


@functools.lru_cache(maxsize=64)
def game_of(spec: str) -> Game:
    """The game of ``spec`` (``registry.make``), the same instance each time."""
    return make(spec)
