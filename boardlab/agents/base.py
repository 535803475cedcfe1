"""The agent protocol and its registry.

An agent is made for one game and one seat. :meth:`Agent.act` receives that
seat's view (plain data from ``state.view(seat)``: never hidden information)
and an optional budget, and returns an action number from
``view["legal_actions"]``. It must not keep references that let it change
the game.
"""
from __future__ import annotations

import random

from ..core.errors import OptionError, UnknownAgentError
from ..core.game import Game
from ..core.options import Option, parse_spec, resolve

_AGENTS: dict[str, type["Agent"]] = {}
RESERVED = frozenset({"game", "seat", "seed", "self"})   # set by whoever makes the agent


class Agent:
    """Base class: subclasses set ``name``, ``declared_options`` and ``act``."""

    name = ""
    description = ""
    declared_options: tuple[Option, ...] = ()

    def __init__(self, game: Game, seat: int, seed: int | None = None, **options):
        self.game = game
        self.seat = seat
        self.options = resolve(self.declared_options, options, f"agent {self.name!r}")
        self.rng = random.Random(seed)

    def act(self, view: dict, budget: dict | None = None) -> int:
        raise NotImplementedError

    def close(self, returns: list[float] | None = None) -> None:
        """The game is over (``returns``) or abandoned (None): release resources."""

    def __repr__(self):
        return f"<{type(self).__name__} seat {self.seat}>"


def register_agent(cls):
    _AGENTS[cls.name] = cls
    return cls


def agents() -> list[type[Agent]]:
    return [_AGENTS[name] for name in sorted(_AGENTS)]


def make_agent(spec: str, game: Game, seat: int, seed: int | None = None) -> Agent:
    """An agent from a spec string such as ``random``."""
    name, raw = parse_spec(spec)
    if name not in _AGENTS:
        raise UnknownAgentError(f"unknown agent {name!r} (known agents: "
                               f"{', '.join(sorted(_AGENTS))})")
    reserved = sorted(set(raw) & RESERVED)
    if reserved:
        raise OptionError(f"agent {name!r}: {reserved[0]!r} is not an agent option; the "
                          f"runner sets an agent's game, seat and seed (e.g. --seed)")
    try:
        return _AGENTS[name](game, seat, seed=seed, **raw)
    except OptionError as error:
        if str(error).startswith(f"agent {name!r}"):
            raise
        raise OptionError(f"agent {name!r}: {error}") from None
