"""``boardlab report``: an analysis report of a game (first seat, komi, speed, levels)."""
from __future__ import annotations

import shlex
import sys

from ..core.options import split_specs
from .common import agents_from, options_from_args


def cmd_report(args) -> int:
    """Measure a game (self-play, komi by size, speed, levels) into a Markdown report."""
    from ..report import parse_int_list, plan_report, run_report

    options = options_from_args(args.extra, args.game)
    plan = plan_report(args.game, options, out=args.out, games=args.games,
                       komi_games=args.komi_games, sizes=parse_int_list(args.sizes, "--sizes"),
                       strengths=split_specs(args.strengths), strong=args.strong,
                       levels=parse_int_list(args.levels, "--levels"),
                       skip=[s.strip() for s in args.skip.split(",") if s.strip()],
                       jobs=args.jobs, seed=args.seed, speed_seconds=args.speed_seconds,
                       command=shlex.join(["boardlab", *args.argv]))
    print(f"report of {plan.game.spec} into {plan.out}/", file=sys.stderr, flush=True)
    try:
        run_report(plan, log=lambda line: print(line, file=sys.stderr, flush=True))
    except KeyboardInterrupt:
        print(f"\ninterrupted: what was measured is in {plan.out}/report.md", file=sys.stderr)
        raise
    print(f"{plan.out}/report.md")
    return 0


def add_parsers(sub) -> None:
    """The subcommand report."""
    from ..report import (DEFAULT_LEVELS, DEFAULT_SIZES, DEFAULT_STRENGTHS, DEFAULT_STRONG,
                          SECTIONS)

    report = sub.add_parser("report", help="an analysis report of a game: first-seat win "
                            "rate, fair komi by size, speed, levels (a long run, not a test)",
                            epilog="Game options go as --name value, e.g. boardlab report "
                            "carteso --size 9. Writes report.md and PNG plots into --out. "
                            "See docs/report.md.", allow_abbrev=False)   # --size is not --sizes
    report.add_argument("game", help="game name or spec, e.g. carteso or 'rumbo(size=9)'")
    report.add_argument("--out", help="the report's folder (default report-GAME-SIZE)")
    report.add_argument("--games", type=int, default=100, help="games per self-play and "
                        "per level duel (default 100)")
    report.add_argument("--komi-games", type=int, default=100, help="games per size for "
                        "the fair komi (default 100)")
    report.add_argument("--sizes", default=",".join(map(str, DEFAULT_SIZES)), help="board "
                        "sizes for the fair komi, those the game allows (default "
                        "%(default)s)")
    report.add_argument("--strengths", default=",".join(DEFAULT_STRENGTHS), help="the "
                        "agents of the first-seat self-play, comma-separated (default "
                        "%(default)s)")
    report.add_argument("--strong", default=DEFAULT_STRONG, help="the komi finder's agent; "
                        "the levels are of its kind (default %(default)s)")
    report.add_argument("--levels", default=",".join(map(str, DEFAULT_LEVELS)), help="levels "
                        "compared, each against the next (default %(default)s)")
    report.add_argument("--skip", default="", help=f"sections to leave out, comma-separated "
                        f"({', '.join(SECTIONS)})")
    report.add_argument("--speed-seconds", type=float, default=1.0, help="length of one "
                        "speed measurement (default 1)")
    report.add_argument("--seed", type=int, default=1, help="game i of a measurement uses "
                        "seed+i (default 1)")
    agents_from(report)
    report.add_argument("--jobs", type=int, default=1, help="games played in parallel")
