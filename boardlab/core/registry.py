"""The registry of games: :func:`register` a Game class, :func:`make` one by spec.

A game may also be registered lazily, by name and module path
(:func:`register_lazy`): its module is imported the first time the game is
asked for, so that ``import boardlab`` stays light and only the games in use
load their compiled kernels.
"""
from __future__ import annotations

import importlib
from typing import Any

from .errors import OptionError, UnknownGameError
from .game import Game
from .options import parse_spec

_GAMES: dict[str, type[Game]] = {}
_LAZY: dict[str, str] = {}          # name -> module that registers it when imported


def register(cls: type[Game]) -> type[Game]:
    """Class decorator: make ``cls`` available under ``cls.name``."""
    if not cls.name or cls.name in _GAMES and _GAMES[cls.name] is not cls:
        raise ValueError(f"cannot register game {cls.name!r}")
    _GAMES[cls.name] = cls
    return cls


def register_lazy(name: str, module: str) -> None:
    """Make the game ``name`` available; ``module`` registers it when first imported."""
    if not name or name != name.lower() or _LAZY.get(name, module) != module:
        raise ValueError(f"cannot register game {name!r} lazily")
    _LAZY[name] = module


def _load(name: str) -> type[Game] | None:
    """The class registered as ``name``, importing its module if it is lazy."""
    if name not in _GAMES and name in _LAZY:
        importlib.import_module(_LAZY[name])
        if name not in _GAMES:
            raise ValueError(f"module {_LAZY[name]} does not register the game {name!r}")
    return _GAMES.get(name)


def game_class(name: str) -> type[Game]:
    """The Game class registered as ``name``."""
    cls = _load(name.lower())
    if cls is None:
        known = ", ".join(sorted(set(_GAMES) | set(_LAZY))) or "none"
        raise UnknownGameError(f"unknown game {name!r} (known games: {known})")
    return cls


def make(spec: str, **options: Any) -> Game:
    """A configured game from a name or spec string, plus keyword options.

    >>> import boardlab
    >>> boardlab.make("carteso(size=9,komi=7)").spec
    'carteso(size=9)'
    """
    name, raw = parse_spec(spec)
    both = set(raw) & set(options)
    if both:
        raise OptionError(f"option {sorted(both)[0]!r} given in the spec and as a keyword")
    return game_class(name)(**raw, **options)


def games() -> list[type[Game]]:
    """All registered Game classes, by name (lazy ones are imported)."""
    loaded = (_load(name) for name in sorted(set(_GAMES) | set(_LAZY)))
    return [cls for cls in loaded if cls is not None]     # None: never (each name loads)
