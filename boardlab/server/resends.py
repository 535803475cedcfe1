"""Idempotency keys: whether an action resent under a key the game has accepted asks for
the logged action again (acknowledged again, nothing more) or for another one (refused
with ``duplicate_key``: a key names one action).

Two entries are one action when both are undos (whatever history length each went back
to), or when their texts are one up to letter case and runs of blanks, as every game's
notation reads a move (``bc3`` is ``Bc3``, `` Resign `` a resignation).
"""
from __future__ import annotations

from .log_entries import Kind, LogEntry


def same_move(first: str, second: str) -> bool:
    """Whether two move texts are one text up to letter case and runs of blanks."""
    return " ".join(first.split()).casefold() == " ".join(second.split()).casefold()


def same_action(logged: str, asked: LogEntry | str) -> bool:
    """Whether the logged entry's text and ``asked`` (an entry, or another logged text)
    are one action."""
    first = LogEntry.decode(logged)
    second = asked if isinstance(asked, LogEntry) else LogEntry.decode(asked)
    if Kind.UNDO in (first.kind, second.kind):
        return first.kind is second.kind
    return same_move(first.encode(), second.encode())
