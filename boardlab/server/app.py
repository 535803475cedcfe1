"""The ASGI app: the REST lobby under /api, one WebSocket per client at /ws/{id}.

:func:`create_app` builds it over a database URL (see store.py); :func:`serve`
runs it on uvicorn (``boardlab serve``). The protocol is in
docs/server-protocol.md.
"""
from __future__ import annotations

import contextlib
import gc
import os
import random
import socket
import threading
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse
from starlette.middleware import Middleware
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles

from ..core.errors import BoardlabError
from ..core.registry import games as game_classes
from .accounts import play
from .accounts.guard import Guard
from .accounts.routes import ROUTES as account_routes, Accounts
from .accounts.seats import rate_missed, rate_when_over
from .ai import Thinker
from . import review
from .api_games import (analyse_game, create_game, game_record, game_sgf, join_game,
                        list_games, request_review, show_game, show_review)
from .clients import Clock, Limits
from .hub import MAX_SEED, Hub
from .lifecycle import Lifecycle
from .rest import ApiError, api_error, show_catalog, show_facts
from .store import Store
from .tournaments.director import Director
from .tournaments.routes import ROUTES as tournament_routes
from .websocket import game_socket

STATIC = Path(__file__).parent / "static"      # the web app: plain ES modules, no build step


async def lobby_page(request: Request) -> FileResponse:
    """/: the lobby (create a game, watch one)."""
    return FileResponse(STATIC / "index.html")


async def game_page(request: Request) -> FileResponse:
    """/game/{id}: the board; the seat token travels in the fragment (#token=...)."""
    return FileResponse(STATIC / "game.html")




# The app ------------------------------------------------------------------------------------
def create_app(db_url: str, ai_processes: int | None = None,
               thinker: Thinker | None = None, clock: Clock | None = None,
               limits: Limits | None = None,
               review_budget: review.Budget | None = None, https: bool = False,
               lifecycle: Lifecycle | None = None) -> Starlette:
    """The server over the database at ``db_url`` (a SQLAlchemy URL).

    AI seats think in ``ai_processes`` worker processes (0: threads; default: the
    cores but one, at least one), or in the ``thinker`` given. ``clock`` is the
    server's time (``now()`` and ``async sleep(s)``; tests pass a fake one).
    ``limits``: the flood limits (default ``Limits()``; ``Limits.off()`` for load checks).
    ``review_budget``: a game review's search of each position (default
    ``review.Budget()``).
    ``https``: the server is behind HTTPS (session cookies are Secure).
    ``lifecycle``: the first-move limit and when the lobby drops idle games
    (``Lifecycle()``: 120 s, 7 days).
    """
    store = Store(db_url)
    accounts = Accounts.open(store, secure=https, clock=clock)
    if ai_processes is None:
        ai_processes = max(1, (os.cpu_count() or 2) - 1)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette):
        app.state.hub = Hub(store, thinker or Thinker(ai_processes), clock, limits,
                            review_budget, lifecycle)
        app.state.tournaments = Director(app)
        app.state.hub.on_end.extend([rate_when_over, play.end_listener(app),
                                     app.state.tournaments.on_end])
        app.state.creates = {}                  # client address -> its create Window
        await app.state.hub.start()
        await app.state.hub.resume()
        await rate_missed(app.state.hub)
        await app.state.tournaments.recover()
        try:
            yield
        finally:
            await app.state.hub.close()

    routes = [Route("/", lobby_page), Route("/game/{game_id}", game_page),
              Mount("/static", StaticFiles(directory=STATIC), name="static"),
              Route("/api/catalog", show_catalog), Route("/api/facts", show_facts),
              Route("/api/games", create_game, methods=["POST"]),
              Route("/api/games", list_games), Route("/api/games/{game_id}", show_game),
              Route("/api/games/{game_id}/record", game_record),
              Route("/api/games/{game_id}/record.sgf", game_sgf),
              Route("/api/games/{game_id}/analysis", analyse_game, methods=["POST"]),
              Route("/api/games/{game_id}/join", join_game, methods=["POST"]),
              Route("/api/games/{game_id}/review", request_review, methods=["POST"]),
              Route("/api/games/{game_id}/review", show_review),
              WebSocketRoute("/ws/{game_id}", game_socket), *account_routes,
              *play.ROUTES, *tournament_routes]
    handlers: dict[Any, Any] = {ApiError: api_error}     # starlette types them loosely
    app = Starlette(routes=routes, lifespan=lifespan, exception_handlers=handlers,
                    middleware=[Middleware(Guard)])
    app.state.database, app.state.accounts = store.safe_url, accounts
    return app


def serve(host: str, port: int, db_url: str, limits: Limits | None = None,
          review_budget: review.Budget | None = None, https: bool = False,
          lifecycle: Lifecycle | None = None) -> int:
    """Run the server until interrupted; print the URL to open once it listens."""
    import uvicorn
    app = create_app(db_url, limits=limits, review_budget=review_budget, https=https,
                     lifecycle=lifecycle)
    sock = _listen(host, port)
    shown = f"[{host}]" if ":" in host else host
    print(f"boardlab server: open http://{shown}:{sock.getsockname()[1]}/ (database "
          f"{app.state.database}; Ctrl-C stops it)", flush=True)
    # no permessage-deflate: a view is a few kilobytes, and compressing every frame cost
    # about a tenth of the server's CPU per action under load (docs/server-checks.md)
    config = uvicorn.Config(app, log_level="warning", access_log=False, ws_max_size=65536,
                            ws_per_message_deflate=False, lifespan="on")
    tune_gc()
    threading.Thread(target=warm_up, name="boardlab-warm-up", daemon=True).start()
    uvicorn.Server(config).run(sockets=[sock])
    return 0


def warm_up(moves: int = 4) -> None:
    """Import every game and run its kernels a few moves, in a thread while the server
    already answers: without it the first game of a kind loads its kernels in the event
    loop (and after an upgrade compiles them, for seconds), stalling every game.
    """
    rng = random.Random(0)
    for cls in game_classes():
        try:
            state = cls().new_initial_state(seed=rng.randrange(MAX_SEED))
            for _ in range(moves):
                if state.is_terminal():
                    break
                state.apply(state.sample_chance(rng) if state.is_chance()
                            else rng.choice(state.legal_actions()))
            state.view(None)
        except Exception:                   # pragma: no cover - a broken game says so
            continue                        # when it is played, not here
    gc.freeze()                             # what start-up made lives as long as the server


#: the collector's thresholds in a server (CPython's are 700, 10, 10)
GC_THRESHOLDS = (20_000, 20, 10)


def tune_gc() -> None:
    """Collect garbage less often: the server's objects are mostly acyclic and freed by
    reference counting (a view, a frame), yet with CPython's thresholds the young
    generation was collected every few hundred allocations (6% of a sampled profile's
    busy samples under load: docs/server-checks.md). What start-up made (modules,
    compiled kernels) is moved out of the collector's sight once the warm-up is done
    (:func:`warm_up`), so full collections walk only the games."""
    gc.set_threshold(*GC_THRESHOLDS)


def _listen(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(2048)                   # connections wait while the games load
    except OSError as error:
        sock.close()
        raise BoardlabError(f"cannot listen on {host}:{port}: {error.strerror or error}") \
            from None
    return sock
