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
    from ..server.lifecycle import Lifecycle
    from ..server.review import Budget
    from ..server.store import DEFAULT_DB
    lifecycle = Lifecycle(first_move_limit=args.first_move_limit,
                          abandoned_after=args.abandoned_after * 86400)
    return serve(args.host, args.port, database_url(args.db or DEFAULT_DB),
                 review_budget=Budget(args.review_level, args.review_seconds),
                 https=args.https, lifecycle=lifecycle)


def cmd_connect(args) -> int:
    """Play a seat of a server game with an engine, to the end of the game; or, with a bot
    account's token, keep the engine online as the bot."""
    import os
    from ..clients.connect import connect
    interrupt_on_termination()          # SIGTERM ends it like Ctrl-C: the engine is killed
    token = args.token or os.environ.get("BOARDLAB_TOKEN")
    if token:
        from ..clients.bot import Settings, run_bot
        settings = Settings(games=_names(args.games), concurrency=args.concurrency,
                            max_games=args.max_games,
                            **{name: frozenset(value) for name, value in
                               (("speeds", _names(args.speeds)), ("modes", _names(args.modes)))
                               if value is not None})
        return run_bot(args.url, token, args.engine, settings, seconds=args.time,
                       log=args.log)
    return connect(args.url, args.engine, token=args.seat_token, seconds=args.time,
                   log=args.log, on_failure=args.on_failure)


def _names(text: str | None) -> frozenset[str] | None:
    """A comma-separated list (None: not given)."""
    if text is None:
        return None
    return frozenset(word.strip() for word in text.split(",") if word.strip())


def _count(text: str) -> int:
    """A whole number of at least 1 (argparse's type)."""
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of at least 1")
    return int(text)


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
                             ". As a bot account: boardlab connect http://HOST:PORT/ --token "
                             "TOKEN --engine CMD (docs/accounts.md). Exit code 0 when the game "
                             "is over, 1 when the engine failed, 2 on an error (a refused "
                             "token, a lost connection).")
    connect.add_argument("url", help="the seat link (ws://HOST/ws/GAME?token=TOKEN), or the "
                         "game's ws:// or http://HOST/api/games/GAME URL with --seat-token; "
                         "with --token, the server's http://HOST:PORT/")
    connect.add_argument("--engine", required=True, metavar="CMD", help="the engine's command "
                         "line (split like a shell line, no shell runs it)")
    connect.add_argument("--seat-token", metavar="TOKEN", help="the seat's secret token "
                         "(when the URL does not carry it)")
    bot = connect.add_argument_group("as a bot account (docs/accounts.md, Bot accounts)")
    bot.add_argument("--token", metavar="TOKEN", help="a bot account's API token (or the "
                     "environment variable BOARDLAB_TOKEN): stay online as the bot, accept "
                     "the challenges the settings below allow and play them all")
    bot.add_argument("--games", metavar="NAMES", help="the games it accepts, comma-separated "
                     "(default every game)")
    bot.add_argument("--speeds", metavar="SPEEDS", help="the speeds it accepts, of "
                     "ultrabullet, bullet, blitz, rapid, classical, correspondence (default "
                     "all)")
    bot.add_argument("--modes", metavar="MODES", help="rated, casual or both (default both)")
    bot.add_argument("--concurrency", type=_count, default=1, metavar="N",
                     help="games at once (default 1)")
    bot.add_argument("--max-games", type=_count, metavar="N", help="go offline once N games "
                     "are over (default: stay online until stopped)")
    connect.add_argument("--time", type=float, help="seconds per move for the engine when the "
                         "game has no clock (default 1)")
    connect.add_argument("--log", help="append the engine's stderr and the dialogue to FILE")
    connect.add_argument("--on-failure", choices=("resign", "stop"), default="resign",
                         help="when the engine fails: resign its seat (default) or stop and "
                         "leave the seat as it is")
