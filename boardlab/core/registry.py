"""The registry of games: :func:`register` a Game class, :func:`make` one by spec."""
from __future__ import annotations

from .errors import OptionError, UnknownGameError
from .game import Game
from .options import parse_spec

_GAMES: dict[str, type[Game]] = {}


def register(cls: type[Game]) -> type[Game]:
    """Class decorator: make ``cls`` available under ``cls.name``."""
    if not cls.name or cls.name in _GAMES and _GAMES[cls.name] is not cls:
        raise ValueError(f"cannot register game {cls.name!r}")
    _GAMES[cls.name] = cls
    return cls


def game_class(name: str) -> type[Game]:
    """The Game class registered as ``name``."""
    try:
        return _GAMES[name.lower()]
    except KeyError:
        known = ", ".join(sorted(_GAMES)) or "none"
        raise UnknownGameError(f"unknown game {name!r} (known games: {known})") from None


def make(spec: str, **options) -> Game:
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
    """All registered Game classes, by name."""
    return [_GAMES[name] for name in sorted(_GAMES)]
