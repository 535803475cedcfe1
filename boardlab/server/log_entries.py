"""The entries of a game's action log, typed, with their stable encoding in the database.

A log entry is a move in the game's notation, a resignation, or one of the server's own
entries: a loss on time, an undo back to a history length, an agreed draw, an abort (no
first move in time). The database holds each as the text it always had (``Bc3``,
``resign``, ``!timeout``, ``!undo 4``, ``!draw``, ``!abort``): :meth:`LogEntry.encode`
writes exactly that text and :meth:`LogEntry.decode` reads it back, so a database written
before entries were typed still loads.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from ..core.driver import GameDriver
from ..core.errors import BoardlabError
from .messages import SERVER_ENTRY

RESIGN_TEXT = "resign"
TIMEOUT_TEXT, UNDO_TEXT, DRAW_TEXT, ABORT_TEXT = "!timeout", "!undo ", "!draw", "!abort"


class Kind(Enum):
    """What a log entry does when it is performed."""

    MOVE = "move"              # a move in the game's notation
    RESIGN = "resign"          # the seat resigns (on its turn or not)
    TIMEOUT = "timeout"        # the seat's clock ran out: it forfeits
    UNDO = "undo"              # back to the first ``target`` history entries
    DRAW = "draw"              # a draw offer was accepted
    ABORT = "abort"            # a first move did not come in time: over, no winner


class LogEntryError(BoardlabError):
    """Stored text that is no log entry (a server entry this server does not know)."""


@dataclass(frozen=True)
class LogEntry:
    """One log entry: its kind, the notation of a move, the history length of an undo."""

    kind: Kind
    notation: str = ""         # a move's notation
    target: int = 0            # an undo's history length

    @property
    def played(self) -> bool:
        """Whether this is a move of the game (charged the mover's thinking time)."""
        return self.kind is Kind.MOVE

    def encode(self) -> str:
        """The entry's text in the database (the same text as before entries were typed)."""
        if self.kind is Kind.MOVE:
            return self.notation
        if self.kind is Kind.UNDO:
            return f"{UNDO_TEXT}{self.target}"
        return _TEXTS[self.kind]

    @classmethod
    def decode(cls, text: str) -> LogEntry:
        """The entry stored as ``text`` (LogEntryError for an unknown server entry)."""
        kind = _KINDS.get(text)
        if kind is not None:
            return _FIXED[kind]
        if not text.startswith(SERVER_ENTRY):
            return cls(Kind.MOVE, notation=text)
        target = text[len(UNDO_TEXT):]
        if text.startswith(UNDO_TEXT) and target.isdigit():
            return cls(Kind.UNDO, target=int(target))
        raise LogEntryError(f"unknown server log entry {text!r}")


def move(notation: str) -> LogEntry:
    """A move in notation (``resign`` is a resignation)."""
    return RESIGN if notation == RESIGN_TEXT else LogEntry(Kind.MOVE, notation=notation)


def undo(target: int) -> LogEntry:
    """An undo back to the first ``target`` history entries."""
    return LogEntry(Kind.UNDO, target=target)


_TEXTS = {Kind.RESIGN: RESIGN_TEXT, Kind.TIMEOUT: TIMEOUT_TEXT, Kind.DRAW: DRAW_TEXT,
          Kind.ABORT: ABORT_TEXT}
_KINDS = {text: kind for kind, text in _TEXTS.items()}
_FIXED = {kind: LogEntry(kind) for kind in _TEXTS}
RESIGN, TIMEOUT, DRAW = _FIXED[Kind.RESIGN], _FIXED[Kind.TIMEOUT], _FIXED[Kind.DRAW]
ABORT = _FIXED[Kind.ABORT]


def perform(driver: GameDriver, seat: int, entry: LogEntry | str,
            used: float | None = None) -> None:
    """Perform a logged entry (or its stored text) on ``driver``: a move, a resignation
    (on the seat's turn or not), a loss on time, an undo, an agreed draw or an abort. ``used``
    seconds are charged to the mover's clock."""
    if isinstance(entry, str):
        entry = LogEntry.decode(entry)
    kind = entry.kind
    if kind is Kind.MOVE:
        driver.submit(seat, entry.notation, used=used)
    elif kind is Kind.DRAW:
        driver.agree_draw()
    elif kind is Kind.ABORT:
        driver.abort()
    elif kind is Kind.TIMEOUT:
        driver.forfeit(seat, "time", "ran out of time")
        if driver.clocks[seat] is not None:
            driver.clocks[seat] = 0.0
    elif kind is Kind.UNDO:                    # an undo gives no time back
        clocks = list(driver.clocks)
        driver.undo(entry.target)
        driver.clocks = clocks
    elif seat in driver.acting():
        driver.resign(seat)
    else:
        driver.forfeit(seat, "resign", "resigned while another seat was to act")
