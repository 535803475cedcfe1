"""``boardlab serve`` (the game server) and ``connect`` (an engine plays a seat on one)."""
from __future__ import annotations

import argparse

from .common import interrupt_on_termination


def positive_seconds(text: str) -> float:
    """A number of seconds above 0 and at most 10 (argparse's type)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 < value <= 10:
        raise argparse.ArgumentTypeError("seconds above 0 and at most 10")
    return value


def cmd_serve(args) -> int:
    """Run the game server until it is stopped."""
    from ..arena.storage import database_url
    from ..server import serve
    from ..server.review import Budget
    from ..server.store import DEFAULT_DB
    return serve(args.host, args.port, database_url(args.db or DEFAULT_DB),
                 review_budget=Budget(args.review_level, args.review_seconds),
                 https=args.https)


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
    serve.add_argument("--review-level", type=int, default=3, choices=range(1, 6),
                       metavar="1..5", help="a game review searches each position as "
                       "mcts(level=N) would (default 3)")
    serve.add_argument("--review-seconds", type=positive_seconds, default=0.25,
                       metavar="S", help="and at most S seconds a position (default 0.25)")
    serve.add_argument("--https", action="store_true", help="the server is reached through "
                       "HTTPS (a proxy in front): session cookies are sent over HTTPS only")
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
