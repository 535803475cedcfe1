"""Idempotency keys: whether a message resent under a key the game has accepted asks for
the same action again (acknowledged again, nothing more) or for another one (refused with
``duplicate_key``: a key names one action).

An action is the same when its seat is the same and so is what it logs: for ``action``
the move, compared up to letter case and blanks (as every game's notation reads a move),
``resign`` and ``leave`` a resignation, ``undo`` an undo, ``accept_draw`` an agreed draw.
"""
from __future__ import annotations

from .log_entries import DRAW_TEXT, RESIGN_TEXT, Kind, LogEntry
from .messages import Message

#: what each keyed message type logs, when it is not a move's own text
LOGGED = {"resign": RESIGN_TEXT, "leave": RESIGN_TEXT, "accept_draw": DRAW_TEXT}


def same_move(first: str, second: str) -> bool:
    """Whether two move texts are one text up to letter case and runs of blanks."""
    return " ".join(first.split()).casefold() == " ".join(second.split()).casefold()


def asks_again(logged_seat: int, logged_move: str, seat: int, message: Message) -> bool:
    """Whether ``message`` (for ``seat``) asks for the logged action again."""
    if logged_seat != seat:
        return False
    entry = LogEntry.decode(logged_move)
    if message.type == "undo":
        return entry.kind is Kind.UNDO
    if entry.kind not in (Kind.MOVE, Kind.RESIGN, Kind.DRAW):
        return False
    wanted = message.move if message.type == "action" else LOGGED.get(message.type)
    return wanted is not None and same_move(entry.encode(), wanted)


def same_entry(first: str, second: str) -> bool:
    """Whether two logged texts are one action: two undos, or one text up to case and
    blanks (a key another server process accepted first, compared with this one's)."""
    kinds = LogEntry.decode(first).kind, LogEntry.decode(second).kind
    return kinds == (Kind.UNDO, Kind.UNDO) or same_move(first, second)
