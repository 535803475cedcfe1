"""Declared game options and spec strings.

A game declares its options as :class:`Option` objects; :func:`parse_spec` turns
``"carteso(size=9,komi=7)"`` into a name and a dict of raw values, and
:func:`resolve` checks and converts them.

>>> name, raw = parse_spec("carteso(size=9, komi=7.5)")
>>> name, raw
('carteso', {'size': '9', 'komi': '7.5'})
"""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NoReturn

from .errors import OptionError, SpecError


class FrozenOptions(dict[str, Any]):
    """A game's resolved options: a plain dict (JSON, equality) that cannot change."""

    def _frozen(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise TypeError("a game's options are frozen: make a new game with other options")

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = _frozen
    __ior__ = _frozen

    def __hash__(self) -> int:  # type: ignore[override]  # dict says it is unhashable
        return hash(tuple(sorted((k, repr(v)) for k, v in self.items())))

    def __reduce__(self) -> tuple[type[FrozenOptions], tuple[dict[str, Any]]]:
        return FrozenOptions, (dict(self),)   # pickles (worker processes) as a new frozen dict

    def __copy__(self) -> FrozenOptions:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> FrozenOptions:
        return self

_TRUE = {"true", "on", "yes", "1"}
_FALSE = {"false", "off", "no", "0"}


@dataclass(frozen=True)
class Option:
    """One option of a game.

    ``type`` is int, float, bool or str. ``default`` is a value, or a callable
    taking the other resolved options (for defaults that depend on them).
    ``choices`` lists the allowed values; ``check`` is an extra validator that
    returns an error message or None.
    """

    name: str
    type: type
    default: Any
    help: str
    choices: tuple[Any, ...] | None = None
    minimum: float | None = None
    maximum: float | None = None
    check: Callable[[Any], str | None] | None = None
    analysis: bool = False  # set-up options for analysis and tests
    common: bool = False    # one of the few a front end shows first (size, players, ...)

    def allowed(self) -> str:
        """A short text of the allowed values, used in help and errors."""
        if self.choices is not None:
            return "|".join(_show(c) for c in self.choices)
        if self.minimum is not None or self.maximum is not None:
            lo = "" if self.minimum is None else _show(self.minimum)
            hi = "" if self.maximum is None else _show(self.maximum)
            return f"{self.type.__name__} {lo}..{hi}"
        return self.type.__name__

    def convert(self, value: Any) -> Any:
        """Convert and validate one value; raise OptionError naming the option."""
        try:
            value = _convert(self.type, value)
        except (TypeError, ValueError):
            raise OptionError(
                f"option {self.name!r}: {value!r} is not a valid {self.type.__name__} "
                f"(allowed: {self.allowed()})") from None
        if self.choices is not None and value not in self.choices:
            raise OptionError(f"option {self.name!r}: {_show(value)!r} is not allowed "
                              f"(allowed: {self.allowed()})")
        if self.minimum is not None and value < self.minimum or \
                self.maximum is not None and value > self.maximum:
            raise OptionError(f"option {self.name!r}: {_show(value)} is out of range "
                              f"(allowed: {self.allowed()})")
        problem = self.check(value) if self.check else None
        if problem:
            raise OptionError(f"option {self.name!r}: {problem}")
        return value


def _show(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _convert(kind: type, value: Any) -> Any:
    if kind is bool:
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
        raise ValueError(value)
    if kind is int:
        if isinstance(value, bool) or isinstance(value, float) and not value.is_integer():
            raise ValueError(value)
        return int(str(value).strip()) if isinstance(value, str) else int(value)
    if kind is float:
        if isinstance(value, bool):
            raise ValueError(value)
        result = float(value)
        if result != result or result in (float("inf"), float("-inf")):
            raise ValueError(value)
        return result
    return str(value)


def resolve(declared: tuple[Option, ...], given: dict[str, Any], game: str) -> dict[str, Any]:
    """Return the full option dict: given values checked, the others defaulted."""
    by_name = {o.name: o for o in declared}
    unknown = [k for k in given if k not in by_name]
    if unknown:
        known = f"options: {', '.join(by_name)}" if by_name else "it takes no options"
        raise OptionError(f"{game}: unknown option {unknown[0]!r} ({known})")
    values = {k: by_name[k].convert(v) for k, v in given.items()}
    for option in declared:
        if option.name not in values and not callable(option.default):
            values[option.name] = option.default
    for option in declared:
        if option.name not in values:
            values[option.name] = option.convert(option.default(values))
    return {o.name: values[o.name] for o in declared}


# Options are split at commas followed by "key=", so values may hold commas (e.g. 0,3,9).
_OPTION_SPLIT = re.compile(r",(?=\s*[A-Za-z_][\w-]*\s*=)")
_SPEC = re.compile(r"^\s*([A-Za-z_][\w-]*)\s*(?:\((.*)\))?\s*$", re.S)


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Split ``name(k=v,...)`` into the name and a dict of raw string values."""
    if not isinstance(spec, str):
        raise SpecError(f"a spec must be a string, not {type(spec).__name__}")
    match = _SPEC.match(spec)
    if not match:
        raise SpecError(f"bad spec {spec!r}: expected NAME or NAME(key=value,...)")
    name, body = match.group(1).lower(), match.group(2)
    raw: dict[str, Any] = {}
    parts = _OPTION_SPLIT.split(body or "")
    for index, part in enumerate(parts):
        if not part.strip():
            continue
        key, sep, value = part.partition("=")
        key = key.strip().lower()                 # like the name: TIME=1 is time=1
        if not sep or not key:
            raise SpecError(f"bad spec {spec!r}: {part.strip()!r} is not key=value")
        if key in raw:
            raise SpecError(f"bad spec {spec!r}: option {key!r} given twice")
        if value.rstrip().endswith(",") and index < len(parts) - 1:     # time=1,,c=1
            raise SpecError(f"bad spec {spec!r}: a stray comma after "
                            f"{part.strip()[:-1].rstrip()!r}")
        raw[key] = value.strip()
    return name, raw


def with_options(spec: str, **options: Any) -> str:
    """``spec`` with ``options`` set (replacing any it gives), as a spec string.

    >>> with_options("mcts(evaluator=net,time=2)", time=1, reuse=False)
    'mcts(evaluator=net,time=1,reuse=false)'
    >>> with_options("random", seed=3)
    'random(seed=3)'
    """
    name, raw = parse_spec(spec)
    raw.update({key: _show(value) for key, value in options.items()})
    body = ",".join(f"{key}={value}" for key, value in raw.items())
    return f"{name}({body})" if body else name


def split_specs(text: str) -> list[str]:
    """Comma-separated specs, split only outside parentheses; empty parts are dropped.

    >>> split_specs("random,mcts(time=1,c=2), greedy")
    ['random', 'mcts(time=1,c=2)', 'greedy']
    """
    parts: list[str] = []
    depth = start = 0
    for i, char in enumerate(text):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def option_value(option: Option, value: Any) -> Any:
    """``value`` converted as the option would; None when it is not valid."""
    try:
        return option.convert(value)
    except OptionError:
        return None


def format_spec(name: str, options: dict[str, Any], declared: tuple[Option, ...]) -> str:
    """The canonical spec: options that differ from their default, in declared order."""
    def default(option: Option) -> Any:
        return option.default(options) if callable(option.default) else option.default

    parts = [f"{o.name}={_show(options[o.name])}" for o in declared
             if options[o.name] != option_value(o, default(o))]
    return f"{name}({','.join(parts)})" if parts else name
