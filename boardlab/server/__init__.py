"""The game server (``boardlab serve``): seats, views only, an action log, AI seats,
clocks, undo against AIs, draws, leave and rematch.

:func:`create_app` builds the ASGI app over a database URL; :func:`serve` runs
it. The wire protocol is in docs/server-protocol.md.
"""
from .app import create_app, serve

__all__ = ["create_app", "serve"]
