"""Finding and playing games between accounts: the routes of bot tokens, challenges, seeks
and the event stream, and the hub's end listener that wakes the streams (app.py adds
them)."""
from __future__ import annotations

from . import bots, challenges, seeks, stream

ROUTES = [*bots.ROUTES, *challenges.ROUTES, *seeks.ROUTES, *stream.ROUTES]


def end_listener(app):
    """The hub's end listener of ``app`` (its accounts' streams are woken)."""
    return stream.end_listener(app.state.accounts.notifier)
