"""``boardlab serve`` (the game server) and ``connect`` (an engine plays a seat on one)."""
from __future__ import annotations

import argparse
import math

from .common import interrupt_on_termination

FIRST_MOVE_LIMIT, ABANDONED_DAYS = 120.0, 7.0   # the defaults of server/lifecycle.py's Lifecycle


def _seconds(text: str) -> float:
    """A number of seconds >= 0 (argparse type)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 <= value < math.inf:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds >= 0")
    return value


def _days(text: str) -> float:
    """A number of days > 0 (argparse type)."""
    value = _seconds(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of days > 0")
    return value


def cmd_serve(args) -> int:
    """Run the game server until it is stopped."""
    from ..arena.storage import database_url
    from ..server import serve
    from ..server.lifecycle import Lifecycle
    from ..server.store import DEFAULT_DB
    lifecycle = Lifecycle(first_move_limit=args.first_move_limit,
                          abandoned_after=args.abandoned_after * 86400)
    return serve(args.host, args.port, database_url(args.db or DEFAULT_DB),
                 lifecycle=lifecycle)


def cmd_connect(args) -> int:
    """Play a seat of a server game with an engine, to the end of the game."""
    from ..clients.connect import connect
    interrupt_on_termination()          # SIGTERM ends it like Ctrl-C: the engine is killed
    return connect(args.url, args.engine, token=args.seat_token, seconds=args.time,
                   log=args.log, on_failure=args.on_failure)


def add_parsers(sub) -> None:
    """The subcommands serve and connect."""
    serve = sub.add_parser("serve", help="run the game server (lobby API and WebSockets)",
                           epilog="PostgreSQL: --db postgresql://user@host/db. The protocol: "
                           "docs/server-protocol.md")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on "
                       "(default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8000, help="port (default 8000; 0: any "
                       "free port)")
    serve.add_argument("--db", help="database URL or SQLite file (default "
                       "boardlab-server.db in the current folder)")
    serve.add_argument("--first-move-limit", type=_seconds, default=FIRST_MOVE_LIMIT,
                       metavar="SECONDS", help="a timed game whose acting seat makes no move "
                       "within this many seconds before every side has moved is aborted "
                       f"(default {FIRST_MOVE_LIMIT:g}; 0: never)")
    serve.add_argument("--abandoned-after", type=_days, default=ABANDONED_DAYS,
                       metavar="DAYS", help="an unfinished game in which nothing happened for "
                       "this many days leaves the lobby's list (default "
                       f"{ABANDONED_DAYS:g})")
    connect = sub.add_parser("connect", help="play a seat of a server game with an engine "
                             "(docs/engine-protocol.md)",
                             epilog="Example: boardlab connect 'ws://127.0.0.1:8000/ws/GAME?"
                             "token=TOKEN' --engine 'python3 examples/engines/random_engine.py'"
                             ". Exit code 0 when the game is over, 1 when the engine failed, "
                             "2 on an error (a refused token, a lost connection).")
    connect.add_argument("url", help="the seat link (ws://HOST/ws/GAME?token=TOKEN), or the "
                         "game's ws:// or http://HOST/api/games/GAME URL with --seat-token")
    connect.add_argument("--engine", required=True, metavar="CMD", help="the engine's command "
                         "line (split like a shell line, no shell runs it)")
    connect.add_argument("--seat-token", metavar="TOKEN", help="the seat's secret token "
                         "(when the URL does not carry it)")
    connect.add_argument("--time", type=float, help="seconds per move for the engine when the "
                         "game has no clock (default 1)")
    connect.add_argument("--log", help="append the engine's stderr and the dialogue to FILE")
    connect.add_argument("--on-failure", choices=("resign", "stop"), default="resign",
                         help="when the engine fails: resign its seat (default) or stop and "
                         "leave the seat as it is")
