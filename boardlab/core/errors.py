"""Exceptions raised by boardlab. Every error a user can cause is a BoardlabError."""
from __future__ import annotations


class BoardlabError(Exception):
    """Base class of all errors boardlab raises on bad input."""


class UnknownGameError(BoardlabError, KeyError):
    """A game name that is not in the registry."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "unknown game"


class UnknownAgentError(BoardlabError, KeyError):
    """An agent name that is not in the agent registry."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "unknown agent"


class OptionError(BoardlabError, ValueError):
    """A bad game option: unknown name, wrong type or a value that is not allowed."""


class SpecError(BoardlabError, ValueError):
    """A spec string such as ``carteso(size=9,komi=7)`` that cannot be parsed."""


class NotationError(BoardlabError, ValueError):
    """A move text that does not follow the game's notation."""


class IllegalMoveError(BoardlabError, ValueError):
    """A well-formed move that the rules do not allow in this position."""

    def __init__(self, message: str, move: object = None, index: int | None = None,
                 reason: str | None = None):
        super().__init__(message)
        self.move = move
        self.index = index
        self.reason = reason


class RecordError(BoardlabError, ValueError):
    """A game record that is malformed, of an unknown version, or does not replay."""
