"""boardlab: play, study and write AI for Carteso, Rumbo, Cartagena and CTOR.

>>> import boardlab
>>> game = boardlab.make("carteso", size=9, komi=7)
>>> state = game.new_initial_state()
>>> state.play("Bc3") == state.string_to_action("Bc3")
True
"""
from . import games as _games  # noqa: F401  (registers the games)
from .core import (CHANCE, SIMULTANEOUS, TERMINAL, BoardlabError, Game, IllegalMoveError,
                   NotationError, Option, OptionError, RecordError, SpecError, State,
                   UnknownAgentError, UnknownGameError, game_class, games, make, parse_spec,
                   register)
from .core.record import dumps, load, loads, replay, replay_moves, save, to_record

__version__ = "0.1.0"
__all__ = ["CHANCE", "SIMULTANEOUS", "TERMINAL", "BoardlabError", "Game", "IllegalMoveError",
           "NotationError", "Option", "OptionError", "RecordError", "SpecError", "State",
           "UnknownAgentError", "UnknownGameError", "game_class", "games", "make", "parse_spec",
           "register", "dumps", "load", "loads", "replay", "replay_moves", "save", "to_record"]
