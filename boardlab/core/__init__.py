"""The core protocol: games, states, options, registry, records. No game here."""
from .errors import (BoardlabError, IllegalMoveError, NotationError, OptionError,
                     RecordError, SpecError, UnknownAgentError, UnknownGameError)
from .game import CHANCE, RESIGN, SIMULTANEOUS, TERMINAL, Game, State
from .options import Option, parse_spec
from .registry import game_class, games, make, register

__all__ = ["BoardlabError", "IllegalMoveError", "NotationError", "OptionError",
           "RecordError", "SpecError", "UnknownAgentError", "UnknownGameError", "CHANCE", "RESIGN",
           "SIMULTANEOUS", "TERMINAL", "Game", "State", "Option", "parse_spec", "game_class",
           "games", "make", "register"]
