"""The ``boardlab`` command: a thin layer over the library.

Subcommands: games, agents, play, replay, show, bench, duel, match, tournament,
standings, komi, serve, connect, soak, train, report, db, user. Game options are given as
``--name value`` (or in a spec string) and are checked by the game.

One module per command group, each with its ``cmd_*`` handlers and an
``add_parsers(sub)`` that adds its subcommands: ``play`` (games, agents, play),
``records`` (replay, show), ``bench``, ``arena`` (duel, match, tournament, standings,
komi), ``serve`` (serve, connect), ``soak``, ``train``, ``report``; ``common`` holds
what they share. :func:`main` parses and dispatches.
"""
from __future__ import annotations

import argparse
import sys

from ..core.errors import BoardlabError
from . import arena, bench, db, play, records, report, serve, soak, train, users
from .common import interrupt_on_termination

__all__ = ["build_parser", "main"]

#: the handler of each subcommand but play and komi (which also take the game's options)
HANDLERS = {"games": play.cmd_games, "agents": play.cmd_agents, "replay": records.cmd_replay,
            "show": records.cmd_show, "bench": bench.cmd_bench, "duel": arena.cmd_duel,
            "match": arena.cmd_match, "tournament": arena.cmd_tournament,
            "standings": arena.cmd_standings, "serve": serve.cmd_serve,
            "connect": serve.cmd_connect, "soak": soak.cmd_soak,
            "train": train.cmd_train, "report": report.cmd_report, "db": db.cmd_db,
            "user": users.cmd_user}


def build_parser() -> argparse.ArgumentParser:
    """The whole command line: every subcommand and its options (what ``--help`` shows)."""
    parser = argparse.ArgumentParser(prog="boardlab", description="Play, study and write AI "
                                     "for Carteso, Rumbo, Cartagena and CTOR.")
    sub = parser.add_subparsers(dest="command", required=True)
    play.add_parsers(sub)
    records.add_parsers(sub)
    bench.add_parsers(sub)
    arena.add_parsers(sub)
    serve.add_parsers(sub)
    soak.add_parsers(sub)
    train.add_parsers(sub)
    report.add_parsers(sub)
    db.add_parsers(sub)
    users.add_parsers(sub)
    return parser


def main(argv=None) -> int:
    """Run the command line ``argv`` (default ``sys.argv[1:]``); the exit code: 0 done,
    1 a check or a game failed, 2 an error (printed), 130 interrupted."""
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    try:
        if getattr(args, "agents_from", None):       # (the agents load only when used)
            from ..agents import load_agents_from
            load_agents_from(args.agents_from)
        if args.command == "play":
            return play.cmd_play(args, extra)
        if args.command in ("match", "tournament", "duel", "komi", "report"):
            interrupt_on_termination()      # SIGTERM ends a long run like Ctrl-C
        if args.command == "komi":
            return arena.cmd_komi(args, extra)
        if args.command == "report":             # the game's options, and the command line
            args.argv = list(sys.argv[1:] if argv is None else argv)
            args.extra, extra = extra, []
        if extra:
            parser.error(f"unrecognized arguments: {' '.join(extra)}")
        return HANDLERS[args.command](args)
    except BoardlabError as error:
        print(f"boardlab: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:                      # e.g. piped into head
        sys.stderr.close()
        return 0
