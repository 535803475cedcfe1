"""The agent protocol and its registry.

An agent is made for one game and one seat. :meth:`Agent.act` receives that
seat's view (plain data from ``state.view(seat)``: never hidden information)
and an optional budget, and returns an action number from
``view["legal_actions"]``. It must not keep references that let it change
the game. Its ``game`` is the public game (:func:`public_game`): set-up options
that would reveal hidden information (dealt hands, a deck order, secret squares)
are left out, as in the view's ``spec``.
"""
from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import random
import re
import sys
import traceback

from ..core.errors import BoardlabError, OptionError, UnknownAgentError
from ..core.game import Game
from ..core.options import Option, parse_spec, resolve
from ..core.view import Budget, View

_AGENTS: dict[str, type[Agent]] = {}
_SOURCE: dict[str, str] = {}       # agent name -> the file or module that registered it
_IMPORTING: list[str] = []         # the source being imported now (see _import)
RESERVED = frozenset({"game", "seat", "seed", "self"})   # set by whoever makes the agent
#: agents shipped with boardlab that need an optional library: imported when first named
LAZY_AGENTS = {"openspiel": ("boardlab.interop.agents", "openspiel")}


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

    spec = ""    # the spec string it was made from (make_agent sets it unless already set)
    last_think: float | None = None      # seconds the last act() thought, when it knows better
    time_tolerance: float | None = None  # agents held to a game clock forfeit past -this

    def act(self, view: View, budget: Budget | None = None) -> int:
        raise NotImplementedError

    def close(self, returns: list[float] | None = None) -> None:
        """The game is over (``returns``) or abandoned (None): release resources."""

    def __repr__(self):
        return f"<{type(self).__name__} seat {self.seat}>"


def register_agent(cls):
    """Class decorator: make ``cls`` available by its ``name`` in agent specs."""
    taken = _AGENTS.get(cls.name)
    if taken is not None and taken is not cls:
        raise BoardlabError(f"agent name {cls.name!r} is taken (by {taken.__module__}."
                            f"{taken.__qualname__}): give {cls.__qualname__} another name")
    _AGENTS[cls.name] = cls
    if _IMPORTING:
        _SOURCE[cls.name] = _IMPORTING[-1]
    return cls


def agent_source(spec: str) -> str | None:
    """The file or module (``--agents-from``) that registered the agent of ``spec``;
    None for an agent that comes with boardlab or was registered by the program itself."""
    return _SOURCE.get(parse_spec(spec)[0])


def public_game(game: Game) -> Game:
    """The game as every seat may know it: ``make(game.public_spec)``.

    An agent gets this game, never one made with set-up options that hide
    information (Cartagena's ``hands``/``deck``, CTOR's ``secrets``). The public
    game must describe the same game, only with less known: where it cannot be
    made, or declares other facts (a set-up deck of another size changes the
    length of a game), the agent gets ``game`` itself, as before, rather than a
    game whose states cannot hold what the views show.
    """
    if game.public_spec == game.spec:
        return game
    from ..core.registry import make
    try:
        public = make(game.public_spec)
    except OptionError:
        return game
    mine, theirs = game.facts(), public.facts()
    return public if {**mine, "spec": None} == {**theirs, "spec": None} else game


def agents() -> list[type[Agent]]:
    load_agents_from_env()
    return [_AGENTS[name] for name in sorted(_AGENTS)]


def make_agent(spec: str, game: Game, seat: int, seed: int | None = None) -> Agent:
    """An agent from a spec string such as ``random``, for the public game of ``game``."""
    name, raw = parse_spec(spec)
    if name not in _AGENTS:
        load_agents_from_env()
    if name not in _AGENTS and name in LAZY_AGENTS:
        module, extra = LAZY_AGENTS[name]
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as error:
            raise UnknownAgentError(f"agent {name!r} needs the library {error.name!r}: "
                                    f"pip install 'boardlab[{extra}]'") from None
    if name not in _AGENTS:
        raise UnknownAgentError(f"unknown agent {name!r} (known agents: "
                               f"{', '.join(sorted(_AGENTS))}; an agent of your own is "
                               f"loaded with --agents-from FILE.py)")
    reserved = sorted(set(raw) & RESERVED)
    if reserved:
        raise OptionError(f"agent {name!r}: {reserved[0]!r} is not an agent option; the "
                          f"runner sets an agent's game, seat and seed (e.g. --seed)")
    public = public_game(game)
    try:
        agent = _AGENTS[name](public, seat, seed=seed, **raw)
    except OptionError as error:
        if str(error).startswith(f"agent {name!r}"):
            raise
        raise OptionError(f"agent {name!r}: {error}") from None
    if not agent.spec:
        agent.spec = spec.strip()
    return agent


# Agents of your own -----------------------------------------------------------------
ENV = "BOARDLAB_AGENTS"          # files or modules to import, separated by os.pathsep
_LOADED: set[str] = set()


def load_agents_from(sources) -> None:
    """Import agent modules (``my_agents.py`` files or importable module names), so
    that the agents they register with :func:`register_agent` can be named in specs.

    The arena's worker processes load the same (:func:`loaded_agent_sources`).
    """
    for source in sources:
        key = os.path.abspath(source) if source.endswith(".py") else source
        if key not in _LOADED:
            _import(key, source)
            _LOADED.add(key)


def loaded_agent_sources() -> tuple[str, ...]:
    """The agent files and modules loaded so far (for worker processes to load)."""
    return tuple(sorted(_LOADED))


def load_agents_from_env() -> None:
    """Load what ``BOARDLAB_AGENTS`` names (a worker process, or a user's setting)."""
    sources = [s for s in os.environ.get(ENV, "").split(os.pathsep) if s]
    if sources and not set(sources) <= _LOADED:
        load_agents_from(sources)


def _import(key: str, shown: str) -> None:
    _IMPORTING.append(key)           # the agents it registers come from ``key``
    try:
        if key.endswith(".py"):
            if not os.path.isfile(key):
                raise BoardlabError(f"cannot load agents from {shown}: no such file")
            name = "boardlab_user_" + re.sub(r"\W", "_", os.path.basename(key)[:-3]) + \
                "_" + hashlib.sha1(key.encode()).hexdigest()[:8]
            spec = importlib.util.spec_from_file_location(name, key)
            if spec is None or spec.loader is None:
                raise BoardlabError(f"cannot load agents from {shown}: not a Python module")
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            try:
                spec.loader.exec_module(module)
            except BaseException:
                del sys.modules[name]
                raise
        else:
            importlib.import_module(key)
    except BoardlabError:
        raise
    except Exception as error:
        where = traceback.extract_tb(error.__traceback__)[-1]
        line = f" (line {where.lineno})" if where.filename == key else ""
        if isinstance(error, SyntaxError):
            line = f" (line {error.lineno})"
        hint = " (a module is looked for on Python's path, not in the current folder: " \
            "give a file as FILE.py)" if isinstance(error, ModuleNotFoundError) and \
            error.name == key.split(".")[0] else ""
        raise BoardlabError(f"cannot load agents from {shown}{line}: "
                            f"{type(error).__name__}: {error}{hint}") from None
    finally:
        _IMPORTING.pop()
