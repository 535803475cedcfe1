"""The ``boardlab`` command: a thin layer over the library.

Subcommands: games, agents, play, replay, show, bench, duel, match,
tournament, standings, komi, report. Game options are
given as ``--name value`` (or in a spec string) and are checked by the game.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import shlex
import signal
import sys

from .core.errors import BoardlabError
from .core.options import parse_spec, resolve, split_specs
from .core.record import load, replay_moves
from .core.registry import game_class, games, make


def _options_from_args(extra: list[str], game: str | None = None) -> dict:
    """``--size 9 --komi-protocol bid`` -> {'size': '9', 'komi_protocol': 'bid'}.

    With ``game`` (a name or spec), an option the game does not declare is
    reported as unknown even when its value is missing.
    """
    declared = game_class(parse_spec(game)[0]).declared_options if game else None
    options, i = {}, 0
    while i < len(extra):
        word = extra[i]
        if not word.startswith("--") or len(word) < 3:
            raise BoardlabError(f"unexpected argument {word!r} (game options look like "
                                f"--size 9)")
        key, sep, value = word[2:].partition("=")
        if declared is not None and key.replace("-", "_") not in {o.name for o in declared}:
            resolve(declared, {key.replace("-", "_"): value}, parse_spec(game)[0])
        if not sep:
            if i + 1 >= len(extra):
                raise BoardlabError(f"option {word} needs a value")
            value = extra[i + 1]
            i += 1
        options[key.replace("-", "_")] = value
        i += 1
    return options


def _print_options(declared) -> None:
    for option in declared:
        default = "depends on other options" if callable(option.default) else option.default
        if isinstance(default, bool):
            default = "true" if default else "false"
        shown = f"'{default}'" if default == "" else default
        tag = "set-up, " if option.analysis else ""
        print(f"  {option.name} ({tag}{option.allowed()}, default {shown})")
        print(f"      {option.help}")


def cmd_games(args) -> int:
    for cls in games():
        print(f"{cls.name}: {cls.description}")
        _print_options(cls.declared_options)
        print()
    return 0


def cmd_agents(args) -> int:
    from . import agents as agent_registry

    for cls in agent_registry.agents():
        print(f"{cls.name}: {cls.description}")
        _print_options(cls.declared_options)
        print()
    print("per game (what mcts and ismcts read from the game: simulations a move at "
          "level=1..5, the exploration constant c, the playout policies offered, the "
          "default first, the turns a rollout plays):")
    for line in _search_facts():
        print(f"  {line}")
    return 0


def _search_facts() -> list[str]:
    """A line per registered game: the facts the searches read from it."""
    lines = []
    for cls in games():
        playouts = [cls.playout] + [p for p in cls.playouts if p != cls.playout]
        lines.append(f"{cls.name}: level 1-5 = {', '.join(map(str, cls.level_budgets))} "
                     f"simulations; c {cls.exploration:g}; playout {', '.join(playouts)}; "
                     f"rollout_turns {cls.rollout_turns or 'to the end'}")
    return lines


def cmd_replay(args) -> int:
    if args.record:
        _, state = load(args.record)
        if args.moves:
            for text in args.moves:
                state.play(text)
    else:
        if not args.spec:
            raise BoardlabError("give a game spec and moves, or --record FILE")
        state = replay_moves(args.spec, args.moves, seed=args.seed)
    summary = state.summary()
    if args.json:
        print(json.dumps(summary))
    else:
        print(state.render())
        for line in state.status_lines():
            print(line)
    return 0


def cmd_show(args) -> int:
    record, state = load(args.record)
    print(f"{record['spec']}: {len(record['moves'])} moves, players "
          f"{record.get('players') or 'unknown'}")
    print(state.render())
    for line in state.status_lines():
        print(line)
    return 0


def cmd_play(args, extra) -> int:
    from . import agents as agent_registry
    from .terminal import TerminalGame

    name, raw = parse_spec(args.game)
    raw.update(_options_from_args(extra, args.game))
    game = make(name, **raw)
    vs = split_specs(args.vs or "")
    human_seats = [args.seat] if args.seat is not None else None
    if vs and human_seats is None:
        human_seats = list(range(game.num_seats - len(vs)))
    if vs and len(vs) + len(human_seats) != game.num_seats:
        raise BoardlabError(f"{game.name} has {game.num_seats} seats: give "
                            f"{game.num_seats - len(human_seats)} agent(s) with --vs")
    if human_seats and not all(0 <= s < game.num_seats for s in human_seats):
        raise BoardlabError(f"--seat must be between 0 and {game.num_seats - 1}")
    agent_seats = [s for s in range(game.num_seats) if vs and s not in human_seats]
    seed = args.seed
    agents = {seat: agent_registry.make_agent(spec, game, seat, seed=None if seed is None
                                              else seed + seat)
              for seat, spec in zip(agent_seats, vs)}
    agent_registry.make_agent(args.hint, game, 0).close()       # a bad --hint fails now

    def hint(seat, position):
        return agent_registry.make_agent(args.hint, game, seat, seed=position)
    session = TerminalGame(game, agents, seed=seed,
                           colour=False if args.no_colour else None, hint=hint)
    session.run()
    session.finish(args.save, ask=not args.no_save)
    return 1 if session.failure else 0


def cmd_bench(args) -> int:
    from .bench import (append_json_line, bench_api, bench_kernel, bench_search, default_specs,
                        git_commit, measurement)

    if args.runs < 1:
        raise BoardlabError(f"--runs must be at least 1, not {args.runs}")
    if not 0 < args.seconds < math.inf:
        raise BoardlabError(f"--seconds must be a positive number, not {args.seconds:g}")
    specs = args.specs or default_specs()
    commit = git_commit() if args.json_out else None

    def keep(mode: str, result: dict) -> None:
        """Append one figure to --json-out as soon as it is measured."""
        if args.json_out:
            append_json_line(args.json_out, measurement(mode, result, args.seconds, commit))
    if args.search:
        print(f"{args.search} simulations per second (wall, CPU) from the initial position, "
              f"one thread, median of {args.runs} runs of {args.seconds:g} s")
        for spec in specs:
            result = bench_search(spec, args.search, seconds=args.seconds, runs=args.runs)
            keep("search", result)
            print(f"{spec:<40} {result['sims_per_s']:>12,.0f} {result['cpu_sims_per_s']:>12,.0f}",
                  flush=True)
        return 0
    print(f"random playouts, one thread, after a warm-up, median of {args.runs} runs of "
          f"~{args.seconds:g} s")
    print(f"{'game':<40} {'playouts/s':>12} {'moves/s':>12} {'mean length':>12}"
          f"{'  api moves/s  us/move  cpu us/move' if args.api else ''}")
    for spec in specs:
        result = bench_kernel(spec, seconds=args.seconds, runs=args.runs)
        keep("kernel", result)
        line = (f"{spec:<40} {result['playouts_per_s']:>12,.0f} "
                f"{result['moves_per_s']:>12,.0f} {result['mean_length']:>12.1f}")
        if args.api:
            api = bench_api(spec, seconds=args.seconds, runs=args.runs)
            keep("api", api)
            line += (f"  {api['api_moves_per_s']:>11,.0f} {api['us_per_move']:>8.2f} "
                     f"{api['cpu_us_per_move']:>12.2f}")
        print(line, flush=True)
    return 0


def cmd_duel(args) -> int:
    from .arena import duel

    _check_runner_args(args)
    live = sys.stderr.isatty()            # a line rewritten in place, else a line a game

    def progress(done, total, points):
        line = f"{done}/{total} games, {args.a}: {points:g} of {done} points"
        print("\r" + line if live else line, end="" if live else "\n", file=sys.stderr,
              flush=True)

    result = duel(args.spec, args.a, args.b, args.games, seed=args.seed, jobs=args.jobs,
                  progress=progress, in_process=args.in_process)
    if live:
        print(file=sys.stderr)
    low, high = result["interval"]
    print(f"{result['spec']}: {args.a} vs {args.b}: {result['points']:g}/{result['games']} "
          f"= {100 * result['rate']:.1f}% (95% interval {100 * low:.1f}-{100 * high:.1f}%), "
          f"{result['mean_actions']:.0f} actions a game")
    for agent, (count, reason) in zip((args.a, args.b), result["forfeits"]):
        if count:
            print(f"{agent} forfeited {count} game(s); the first: {reason}")
    return 0


def _time_control(args):
    from .core.driver import TimeControl

    return TimeControl(move=args.move_time, game=args.game_time,
                       increment=args.increment or 0.0)


def _check_runner_args(args) -> None:
    """Refuse numbers that make no sense before anything starts."""
    if args.jobs < 1:
        raise BoardlabError(f"--jobs must be at least 1, not {args.jobs}")
    for flag in ("games", "rounds", "max_actions"):
        value = getattr(args, flag, None)
        if value is not None and value < 1:
            raise BoardlabError(f"--{flag.replace('_', '-')} must be at least 1, not {value}")
    seed = getattr(args, "seed", None)
    if seed is not None and not 0 <= seed < 2**31 - 10**6:
        raise BoardlabError(f"--seed must be between 0 and {2**31 - 10**6 - 1}, not {seed}")


def _plot(standings, kind: str, path: str, title: str) -> None:
    from .arena.ratings import plot_ratings

    rated = [line.rating for line in standings if line.rating]
    if rated:
        plot_ratings(rated, path, title=title, unit=kind)
        print(f"ratings plot: {path}")


def cmd_match(args) -> int:
    from datetime import datetime

    from .arena.standings import LiveBoard, standings_text
    from .arena.match import run_match, wilson_interval
    from .arena.ratings import match_elo_bounded
    from .arena.schedule import parse_participants, sides_of
    from .arena.tournament import ratings_kind

    _check_runner_args(args)
    game = make(args.spec)
    participants = parse_participants(args.agents)
    for flag in ("resume", "report"):
        if getattr(args, flag) and not args.out:
            raise BoardlabError(f"--{flag} needs --out: the folder of the match's records")
    out = args.out or f"boardlab-matches/{game.name}-{datetime.now():%Y%m%d-%H%M%S}"
    sprt = _sprt(args.sprt) if args.sprt else None
    sides, kind = len(sides_of(game)), ratings_kind(game)
    with LiveBoard(f"match {game.spec}", sides, kind) as board:
        outcome = run_match(args.spec, participants, args.games, seed=args.seed,
                            time_control=_time_control(args), jobs=args.jobs, out_dir=out,
                            ray_address=args.ray, sprt=sprt, on_game=board,
                            resume=args.resume, play=not args.report, deals=args.deals,
                            in_process=args.in_process)
    if not outcome.rows:
        print(f"no games in {out}/ yet: nothing to report")
        return 0
    print(standings_text(outcome.standings, sides, kind), end="")
    if sides == 2:
        first = next(line for line in outcome.standings if line.name == list(participants)[0])
        points = first.wins + first.draws / 2
        s_low, s_high = wilson_interval(points, first.games) if first.games else (0.0, 1.0)
        elo, low, high = match_elo_bounded(first.wins, first.draws, first.losses, s_low, s_high)
        print(f"{first.name}: {points:g}/{first.games} = {points / max(first.games, 1):.1%} "
              f"(95% Wilson interval {s_low:.1%} .. {s_high:.1%}) against "
              f"{list(participants)[1]}; {elo:+.0f} Elo (95% interval {low:+.0f} .. "
              f"{high:+.0f})")
    if outcome.stopped:
        print(outcome.stopped)
    forfeits = [r for r in outcome.rows if r.forfeit]
    for row in forfeits:
        print(f"game {row.idx + 1}: {row.forfeit['seat']} forfeited ({row.forfeit['kind']}: "
              f"{row.forfeit['reason']})")
    print(f"{len(outcome.rows)} records in {out}/")
    return 0


def _sprt(text: str):
    from .arena.ratings import Sprt

    try:
        values = [float(v) for v in text.split(",")]
        return Sprt(*values)
    except (TypeError, ValueError) as error:
        raise BoardlabError(f"--sprt wants ELO0,ELO1[,ALPHA,BETA], e.g. 0,10: {error}") \
            from None


def cmd_tournament(args) -> int:
    from .arena.standings import LiveBoard, standings_text
    from .arena.schedule import sides_of
    from .arena.tournament import ratings_kind

    _check_runner_args(args)
    store, tournament = _resumed_tournament(args) if args.resume else _new_tournament(args)
    game, name = tournament.game, tournament.name
    sides, kind = len(sides_of(game)), ratings_kind(game)
    try:
        with tournament.held():        # a second runner of it is refused, named the holder
            print(f"tournament {name!r}: {game.spec}, {len(tournament.games)} games, "
                  f"{len(tournament.pending())} to play; results in {store.safe_url}",
                  file=sys.stderr)
            with LiveBoard(f"{name}", sides, kind) as board:
                standings = tournament.run(args.jobs, args.ray, on_game=board)
    except KeyboardInterrupt:
        print(f"\ninterrupted: finished games are stored; continue with\n  boardlab "
              f"tournament --resume {name} --db {args.db or store.url}", file=sys.stderr)
        return 130
    print(standings_text(standings, sides, kind), end="")
    _plot(standings, kind, args.plot or f"{name}.png", f"{name}: {game.spec}")
    return 0


def _resumed_tournament(args):
    """The store and the tournament ``--resume NAME`` continues (no other settings)."""
    from .arena.storage import Store
    from .arena.tournament import Tournament

    settings = (("a game", args.spec), ("agents", args.agents), ("--format", args.format),
                ("--rounds", args.rounds), ("--seed", args.seed),
                ("--max-actions", args.max_actions), ("--move-time", args.move_time),
                ("--game-time", args.game_time), ("--increment", args.increment),
                ("--deals", args.deals), ("--in-process", args.in_process or None))
    given = [flag for flag, value in settings if value not in (None, [])]
    if given:
        raise BoardlabError(f"--resume takes the whole configuration from the database: "
                            f"do not give {', '.join(given)}")
    store = Store(args.db, create=False)          # checked first: bad input makes no file
    return store, Tournament.resume(store, args.resume)


def _new_tournament(args):
    """The store and a new tournament from the command line (checked before any file)."""
    from datetime import datetime

    from .arena.schedule import parse_participants
    from .arena.storage import Store
    from .arena.tournament import Tournament, tournament_config

    if not args.spec or len(args.agents) < 2:
        raise BoardlabError("give a game spec and at least two agents, or --resume NAME")
    config = tournament_config(args.spec, parse_participants(args.agents),
                               args.format or "round-robin", args.rounds or 1,
                               1 if args.seed is None else args.seed, _time_control(args),
                               args.max_actions, deals=args.deals,
                               in_process=args.in_process)
    name = args.name or f"{make(args.spec).name}-{args.format or 'round-robin'}-" \
        f"{datetime.now():%Y%m%d-%H%M%S}"
    store = Store(args.db)
    return store, Tournament(store, name, config)


def cmd_standings(args) -> int:
    from .arena.standings import standings_text
    from .arena.schedule import sides_of
    from .arena.storage import Store
    from .arena.tournament import Tournament, ratings_kind

    store = Store(args.db, create=False)
    if not args.name:
        for name in store.names():
            print(name)
        return 0
    tournament = Tournament.resume(store, args.name)
    standings = tournament.standings()
    game = tournament.game
    if args.json:
        print(json.dumps([{"name": s.name, "games": s.games, "points": s.points,
                           "wins": s.wins, "draws": s.draws, "losses": s.losses,
                           "forfeits": s.forfeits,
                           "rating": s.rating.rating if s.rating else None,
                           "interval": [s.rating.low, s.rating.high] if s.rating else None}
                          for s in standings]))
        return 0
    done = len(tournament.rows())
    print(f"{tournament.name}: {game.spec}, {done}/{len(tournament.games)} games played")
    print(standings_text(standings, len(sides_of(game)), ratings_kind(game)), end="")
    if args.plot:
        _plot(standings, ratings_kind(game), args.plot, f"{tournament.name}: {game.spec}")
    return 0


def _agents_from(parser) -> None:
    parser.add_argument("--agents-from", action="append", default=[], metavar="FILE.py",
                        help="import agents of your own from a Python file or module "
                        "(repeatable; see docs/agents.md)")


def _runner_options(parser, jobs: int = 1) -> None:
    _agents_from(parser)
    parser.add_argument("--move-time", type=float, help="seconds per move for every agent")
    parser.add_argument("--game-time", type=float, help="seconds per game and seat (a clock)")
    parser.add_argument("--increment", type=float, help="seconds added to the clock after "
                        "each move (with --game-time)")
    parser.add_argument("--jobs", type=int, default=jobs, help=f"games played in parallel "
                        f"(default {jobs})")
    parser.add_argument("--ray", metavar="ADDRESS", help="play on a Ray cluster ('auto', "
                        "'ray://host:10001', or 'local' for a Ray instance on this machine)")
    parser.add_argument("--deals", choices=["fresh", "duplicate"], help="fresh: every game "
                        "its own chance seed (the default in games with hidden information); "
                        "duplicate: the seat rotations of a pairing share one (see "
                        "docs/arena.md for the risk)")
    _in_process(parser)


def _in_process(parser) -> None:
    parser.add_argument("--in-process", action="store_true", help="run agents of your own "
                        "(--agents-from) in this process also in games with hidden "
                        "information, where they could read the real state (default: a "
                        "process of their own; see docs/agents.md)")


def cmd_komi(args, extra) -> int:
    from .arena.komi import find_fair_komi, format_report, plot_result

    def progress(done, total, note):
        print(f"\rkomi: {done}/{total} games, {note}   ", end="", file=sys.stderr, flush=True)

    result = find_fair_komi(args.game, _options_from_args(extra, args.game), agent=args.agent,
                            games=args.games, seed=args.seed, jobs=args.jobs,
                            komi_range=args.range, step=args.step, rounds=args.rounds,
                            resamples=args.bootstrap, progress=progress)
    print(file=sys.stderr)
    path = None if args.no_plot else args.plot or result["plot_name"]
    result["plot"] = path
    print(json.dumps(result) if args.json else "\n".join(format_report(result)), flush=True)
    if path:                                     # after the results: a bad path loses nothing
        try:
            plot_result(result, path)
        except (OSError, ValueError) as error:
            raise BoardlabError(f"the results are above, but the plot could not be written: "
                                f"{error}") from None
        if not args.json:
            print(f"plot: {path}")
    return 0


def cmd_report(args) -> int:
    """Measure a game (self-play, komi by size, speed, levels) into a Markdown report."""
    from .report import parse_int_list, plan_report, run_report

    options = _options_from_args(args.extra, args.game)
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


def _report_parser(sub) -> None:
    from .report import (DEFAULT_LEVELS, DEFAULT_SIZES, DEFAULT_STRENGTHS,
                               DEFAULT_STRONG, SECTIONS)

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
    _agents_from(report)
    report.add_argument("--jobs", type=int, default=1, help="games played in parallel")


def cmd_train(args) -> int:
    from .learn.train import run

    for flag in ("generations", "games", "epochs", "window", "channels", "blocks"):
        if getattr(args, flag) < 1:
            raise BoardlabError(f"--{flag} must be at least 1, not {getattr(args, flag)}")
    if args.workers is not None and args.workers < 1:
        raise BoardlabError(f"--workers must be at least 1, not {args.workers}")
    if args.explore < 0:
        raise BoardlabError(f"--explore must be at least 0, not {args.explore}")
    if not 0 < args.sharpen <= 1:
        raise BoardlabError(f"--sharpen must be above 0 and at most 1, not {args.sharpen}")
    if not 0 <= args.holdout < 1:
        raise BoardlabError(f"--holdout must be at least 0 and below 1, not {args.holdout}")
    for flag in ("candidates", "gate_games"):
        if getattr(args, flag) < 1:
            raise BoardlabError(f"--{flag.replace('_', '-')} must be at least 1, not "
                                f"{getattr(args, flag)}")
    if not 0 < args.lr <= 1:
        raise BoardlabError(f"--lr must be above 0 and at most 1, not {args.lr}")
    run(args.spec, args.out, args.generations, args.games, args.expert, args.player,
        workers=args.workers, explore=args.explore, epochs=args.epochs, window=args.window,
        seconds=args.seconds, channels=args.channels, blocks=args.blocks, seed=args.seed,
        sharpen=args.sharpen, holdout=args.holdout, value_target=args.value_target,
        lr=args.lr, schedule=args.schedule, augment=args.augment, candidates=args.candidates,
        gate_games=args.gate_games, gate_agent=args.gate_agent,
        gate_opponent=args.gate_opponent, positions=args.positions,
        log=lambda line: print(line, flush=True))
    return 0


def _train_parser(sub) -> None:
    train = sub.add_parser("train", help="train a policy/value network by self-play "
                           "(expert iteration; needs PyTorch: pip install boardlab[train])",
                           epilog="Runs on the CPU, or a GPU when PyTorch sees one; run it "
                           "again with the same --out to resume. See docs/learning.md.")
    train.add_argument("spec", help="the game, e.g. 'carteso(size=9)'")
    train.add_argument("--out", required=True, help="the training folder (net.npz, "
                       "checkpoint.pt, data-*.npz, log.jsonl)")
    train.add_argument("--generations", type=int, default=3, help="generations in all, "
                       "those already in --out included (default 3)")
    train.add_argument("--games", type=int, default=200, help="self-play games a generation "
                       "(default 200)")
    train.add_argument("--seconds", type=float, help="or stop a generation's self-play "
                       "after this long")
    train.add_argument("--expert", default="mcts(iterations=800)", help="generation 0's "
                       "player (default mcts(iterations=800))")
    train.add_argument("--player", default="mcts(evaluator=net,iterations=200)",
                       help="later generations' player, given the last network as net=... "
                       "(default mcts(evaluator=net,iterations=200))")
    train.add_argument("--explore", type=int, default=8, help="decisions a game whose move "
                       "is drawn by visits (default 8)")
    train.add_argument("--epochs", type=int, default=4, help="passes over the samples a "
                       "generation (default 4)")
    train.add_argument("--window", type=int, default=4, help="generations of samples "
                       "trained on (default 4)")
    train.add_argument("--sharpen", type=float, default=0.25, help="the policy learns the "
                       "search's visits to the power 1/SHARPEN, renormalized (default 0.25; "
                       "1: the visits as they are)")
    train.add_argument("--holdout", type=float, default=0.1, help="share of a generation's "
                       "last games kept out of training to measure it (default 0.1)")
    train.add_argument("--value-target", choices=("outcome", "search", "mix"),
                       default="outcome", help="what the value learns: the game's outcome "
                       "(every seat), the search's estimate (every seat's), or their mean "
                       "(default outcome)")
    train.add_argument("--positions", choices=("all", "turn-starts"), default="all",
                       help="the positions learned from: every searched one, or only the "
                       "first decision of each team's turn, for a network that values the "
                       "horizon of a rollout (mcts(evaluator=net,net_at=horizon); default all)")
    train.add_argument("--lr", type=float, default=2e-3, help="the learning rate at the "
                       "start of each generation's training (AdamW; default 0.002)")
    train.add_argument("--schedule", choices=("constant", "cosine"), default="constant",
                       help="the learning rate along a generation's training: constant, or "
                       "falling to zero along half a cosine by its last batch (default "
                       "constant)")
    train.add_argument("--augment", action="store_true", help="train on the images of "
                       "the samples under the game's symmetries too (turns and flips of the board, "
                       "shifts of a torus, swapped colours: those the game declares), one "
                       "drawn at random "
                       "for each sample each time")
    train.add_argument("--candidates", type=int, default=1, help="networks trained a "
                       "generation, seeds --seed, --seed + 1, ...; the one that scores "
                       "most in the gate's duel is kept (default 1: no gate)")
    train.add_argument("--gate-games", type=int, default=20, help="games of each candidate "
                       "in the gate (default 20)")
    train.add_argument("--gate-agent", default="mcts(evaluator=net,priors=false,mix=0.5,"
                       "iterations=200)", help="the candidate's player in the gate, given "
                       "the candidate as net=... (default: %(default)s)")
    train.add_argument("--gate-opponent", default="mcts(iterations=200)", help="its "
                       "opponent in the gate (default: %(default)s)")
    train.add_argument("--channels", type=int, default=32, help="network width (default 32)")
    train.add_argument("--blocks", type=int, default=4, help="3x3 convolutions (default 4)")
    train.add_argument("--workers", type=int, help="self-play processes (default: one a core)")
    train.add_argument("--seed", type=int, default=1)


def cmd_serve(args) -> int:
    from .arena.storage import database_url
    from .server import serve
    from .server.store import DEFAULT_DB
    return serve(args.host, args.port, database_url(args.db or DEFAULT_DB))


def cmd_connect(args) -> int:
    from .clients.connect import connect
    _interrupt_on_termination()          # SIGTERM ends it like Ctrl-C: the engine is killed
    return connect(args.url, args.engine, token=args.seat_token, seconds=args.time,
                   log=args.log, on_failure=args.on_failure)


def cmd_soak(args) -> int:
    """Durability, concurrency, secrets or load soak of a real server (a child process)."""
    _interrupt_on_termination()          # SIGTERM ends it like Ctrl-C: the server is killed
    if args.check == "reliability":
        return _reliability(args)
    from .checks import soak
    if args.check == "durability":
        if args.restarts < 1 or args.games < 1:
            raise BoardlabError("--restarts and --games must be at least 1")
        report = soak.durability(args.spec, args.restarts, args.games, db=args.db,
                                 seed=args.seed, processes=args.processes)
    elif args.check == "concurrency":
        if args.trials < 1:
            raise BoardlabError("--trials must be at least 1")
        report = soak.concurrency(args.spec, args.trials, db=args.db, seed=args.seed,
                                  processes=args.processes)
    elif args.check == "secrets":
        from .checks.secrets_check import secrets
        if min(args.cartagena, args.ctor) < 0 or args.cartagena + args.ctor < 1 or \
                args.parallel < 1:
            raise BoardlabError("--cartagena and --ctor must be at least 0 (one game in "
                                "all), --parallel at least 1")
        report = secrets([(_valid_specs(SECRETS_CARDS), args.cartagena),
                          (_valid_specs(SECRETS_SQUARES), args.ctor)],
                         parallel=args.parallel, seed=args.seed)
    else:
        from .checks.loadbench import load
        if args.games < 1 or args.seconds <= 0 or args.think < 0:
            raise BoardlabError("--games must be at least 1, --seconds above 0 and --think "
                                "at least 0")
        report = load(args.spec, args.games, args.seconds, db=args.db, seed=args.seed,
                      think=args.think, processes=args.processes)
    print(json.dumps(report, indent=1))
    print("soak " + args.check + (": OK" if report["ok"] else ": FAILED"))
    return 0 if report["ok"] else 1


def _reliability(args) -> int:
    """Record fuzzing, hidden views, hostile engines and killed tournaments, in turn."""
    from .checks.reliability import reliability
    if args.minutes <= 0:
        raise BoardlabError("--minutes must be above 0")
    outcomes = reliability(args.minutes, seed=args.seed)
    ok = not any(outcome.failed for outcome in outcomes)
    print("soak reliability" + (": OK" if ok else ": FAILED"))
    return 0 if ok else 1


def _valid_specs(specs: list[str]) -> list[str]:
    """The specs of ``specs`` that make a game (not every profile takes every count)."""
    import boardlab
    valid = []
    for spec in specs:
        try:
            boardlab.make(spec)
        except BoardlabError:
            continue
        valid.append(spec)
    return valid


SOAK_SPEC = "carteso(size=5)"     # a short two-seat game for the soak bots
LOAD_SPEC = "carteso(size=9)"     # the load benchmark's game
#: the secrets check's games: hidden hands and a pile (every profile and player count) ...
SECRETS_CARDS = [f"cartagena(profile={profile},players={players})"
                 for players in range(2, 6) for profile in ("basic", "advanced", "original")]
#: ... and secret squares with simultaneous team turns
SECRETS_SQUARES = [
    "ctor(size=8,teams=2v2,team_protocol=simultaneous,secret_squares=true,secret_count=1)",
    "ctor(size=8,teams=3v3,team_protocol=simultaneous,secret_squares=true,secret_count=2)",
    "ctor(size=8,secret_squares=true,secret_count=2)"]


def _processes_argument(parser, what: str) -> None:
    parser.add_argument("--processes", type=int, default=1, choices=(1, 2),
                        help="`boardlab serve` processes on one database (default 1); 2 "
                        f"needs --db postgresql://...: {what}")


def _soak_parser(sub) -> None:
    soak = sub.add_parser("soak", help="soak a real server: SIGKILL-and-restart durability, "
                          "two simultaneous actions for one seat, secrets in every frame, "
                          "or latencies under load; or the reliability checks",
                          epilog="Runs `boardlab serve` on 127.0.0.1 as a child process in a "
                          "temporary folder (reliability: no server). Exit code 0 when every "
                          "invariant held, 1 if not. See docs/server-checks.md.")
    checks = soak.add_subparsers(dest="check", required=True)
    durable = checks.add_parser("durability", help="kill the server with SIGKILL and restart it "
                                "while bot clients play; every acknowledged action must stay")
    durable.add_argument("--restarts", type=int, default=200, help="kills and restarts "
                         "(default 200)")
    durable.add_argument("--games", type=int, default=4, help="games played at once, two "
                         "WebSocket clients each (default 4)")
    durable.add_argument("--db", help="database URL or SQLite file (default: a file in a "
                         "temporary folder)")
    durable.add_argument("--seed", type=int, help="seed of the bots and the kill times")
    _processes_argument(durable, "the bots use both; each restart kills one in turn, every "
                        "fourth both")
    durable.add_argument("--spec", default=SOAK_SPEC, help="the game the bots play, two "
                         f"seats (default {SOAK_SPEC})")
    racing = checks.add_parser("concurrency", help="two connections of one seat send two "
                               "different actions at one version; exactly one is accepted")
    racing.add_argument("--trials", type=int, default=1000, help="trials (default 1000)")
    racing.add_argument("--seed", type=int, help="seed of the moves chosen")
    racing.add_argument("--db", help="database URL or SQLite file (default: a file in a "
                        "temporary folder)")
    _processes_argument(racing, "the two racing connections go to different ones")
    racing.add_argument("--spec", default=SOAK_SPEC, help="the game played, two seats "
                        f"(default {SOAK_SPEC})")
    hidden = checks.add_parser("secrets", help="bots play games with hidden information; "
                               "every frame each connection receives must hold only what its "
                               "seat may know")
    hidden.add_argument("--cartagena", type=int, default=1000, help="games with hidden hands "
                        "and a pile, every profile and player count (default 1000)")
    hidden.add_argument("--ctor", type=int, default=1000, help="games with secret squares and "
                        "simultaneous team turns (default 1000)")
    hidden.add_argument("--parallel", type=int, default=8, help="games played at once "
                        "(default 8)")
    hidden.add_argument("--seed", type=int, help="seed of the games and the bots")
    loaded = checks.add_parser("load", help="many games at once for a while: latencies of "
                               "acks and updates, errors, the server's peak memory")
    loaded.add_argument("--games", type=int, default=200, help="games played at once, two "
                        "WebSocket bots each (default 200)")
    loaded.add_argument("--seconds", type=float, default=180, help="how long (default 180)")
    loaded.add_argument("--db", help="database URL or SQLite file (default: a file in a "
                        "temporary folder)")
    loaded.add_argument("--spec", default=LOAD_SPEC, help="the game played, two seats "
                        f"(default {LOAD_SPEC})")
    loaded.add_argument("--think", type=float, default=1.0, help="mean seconds a bot "
                        "thinks before a move, uniform over 0 to twice it (default 1: a "
                        "quick person; 0: it answers at once, a saturation test)")
    _processes_argument(loaded, "each game's two seats play through different ones")
    loaded.add_argument("--seed", type=int, help="seed of the bots")
    reliable = checks.add_parser("reliability", help="in turn, for a bounded time: fuzzed "
                                 "records, hidden views of random positions, hostile "
                                 "engines, tournaments killed with SIGKILL and resumed")
    reliable.add_argument("--minutes", type=float, default=10.0, help="the whole run, shared "
                          "equally by the four checks (default 10)")
    reliable.add_argument("--seed", type=int, help="seed of every check")


def _connect_parser(sub) -> None:
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


def _serve_parser(sub) -> None:
    serve = sub.add_parser("serve", help="run the game server (lobby API and WebSockets)",
                           epilog="PostgreSQL: --db postgresql://user@host/db. The protocol: "
                           "docs/server-protocol.md")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on "
                       "(default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8000, help="port (default 8000; 0: any "
                       "free port)")
    serve.add_argument("--db", help="database URL or SQLite file (default "
                       "boardlab-server.db in the current folder)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="boardlab", description="Play, study and write AI "
                                     "for Carteso, Rumbo, Cartagena and CTOR.")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("games", help="list the games and their options")
    agents_cmd = sub.add_parser("agents", help="list the agents and their options")
    _agents_from(agents_cmd)
    play = sub.add_parser("play", help="play in the terminal (game options as --size 9)",
                          epilog="Game options go as --name value (for example --size 9 "
                          "--komi 7.5 --button off); 'boardlab games' lists each game's "
                          "options. Example: boardlab play carteso --size 9 --vs random")
    play.add_argument("game", help="game name or spec, e.g. carteso or 'carteso(size=9)'")
    play.add_argument("--vs", help="agent(s) for the other seat(s), comma-separated, "
                      "e.g. random or 'mcts(time=1,c=1.4),greedy'")
    play.add_argument("--seat", type=int, help="your seat number when playing agents "
                      "(default 0: you move first)")
    play.add_argument("--seed", type=int, help="seed for the agents and any chance")
    play.add_argument("--hint", default="mcts(iterations=1000)", metavar="AGENT",
                      help="the agent that answers 'hint' (default mcts(iterations=1000))")
    _agents_from(play)
    play.add_argument("--save", help="save the record to this file at the end")
    play.add_argument("--no-save", action="store_true", help="do not offer to save")
    play.add_argument("--no-colour", action="store_true", help="plain text board")
    replay = sub.add_parser("replay", help="replay moves and print the final position")
    replay.add_argument("spec", nargs="?", help="game spec, e.g. 'carteso(size=9,komi=7)'")
    replay.add_argument("moves", nargs="*", help="moves in notation, e.g. Bc3 Wa1 pass")
    replay.add_argument("--json", action="store_true", help="print the summary as JSON")
    replay.add_argument("--record", help="start from a saved record instead of a spec")
    replay.add_argument("--seed", type=int, default=0,
                        help="seed for games with chance (default 0)")
    show = sub.add_parser("show", help="check a saved record and show its final position")
    show.add_argument("record")
    bench = sub.add_parser("bench", help="measure random playouts/s per game")
    bench.add_argument("specs", nargs="*", help="game specs (default: each game's set)")
    bench.add_argument("--runs", type=int, default=5, help="runs per game; the median is "
                       "printed (default 5)")
    bench.add_argument("--seconds", type=float, default=1.0, help="length of one run in seconds (default 1)")
    bench.add_argument("--api", action="store_true", help="also time the Python protocol "
                       "(legal_actions then apply): moves/s and microseconds a move")
    bench.add_argument("--search", metavar="AGENT", help="measure a search agent's "
                       "simulations/s instead, e.g. --search mcts")
    bench.add_argument("--json-out", metavar="FILE", help="also append each figure to FILE "
                       "as a JSON line (spec, mode, rate, runs, date, commit, load)")
    duel = sub.add_parser("duel", help="agent A against agent B, seats alternating, with "
                          "a 95%% interval (a long run, not a test)")
    duel.add_argument("spec", help="game spec, e.g. 'carteso(size=9)'")
    duel.add_argument("a", help="agent A, e.g. 'mcts(time=1)'")
    duel.add_argument("b", help="agent B, e.g. random")
    duel.add_argument("--games", type=int, default=20, help="games to play (default 20)")
    duel.add_argument("--seed", type=int, default=1, help="seed of the first game; game i "
                      "uses seed+i (default 1)")
    _agents_from(duel)
    _in_process(duel)
    duel.add_argument("--jobs", type=int, default=1, help="games played in parallel")
    match = sub.add_parser("match", help="agents or engines against each other, seats "
                           "rotating, every game saved as a record",
                           epilog="Agents are spec strings (see 'boardlab agents'), "
                           "optionally named: fast=mcts(time=0.1). An external program: "
                           "'engine(cmd=./my_engine)' (docs/engine-protocol.md).")
    match.add_argument("spec", help="game spec, e.g. 'carteso(size=9)'")
    match.add_argument("agents", nargs="+", help="one agent per side (seat or team)")
    match.add_argument("--games", type=int, default=10, help="number of games (default 10)")
    match.add_argument("--seed", type=int, default=1, help="chance seed of the first game "
                       "(then +1 per game; with --deals duplicate +1 per round of rotations, "
                       "so that each agent meets the same deals from every side)")
    match.add_argument("--out", help="folder for the records (default "
                       "boardlab-matches/GAME-TIME)")
    match.add_argument("--sprt", metavar="ELO0,ELO1", help="stop when an SPRT on the first "
                       "agent decides (two sides), e.g. 0,10 (alpha=beta=0.05)")
    match.add_argument("--resume", action="store_true", help="go on with an interrupted "
                       "match: the games already in --out count, the rest are played (same "
                       "spec, agents, --games, --seed and --deals)")
    match.add_argument("--report", action="store_true", help="play nothing: the summary of "
                       "the games already in --out (safe while the match is still playing)")
    _runner_options(match)
    tournament = sub.add_parser("tournament", help="round robin or gauntlet; results in a "
                                "database; resumable", epilog="Example: boardlab tournament "
                                "'rumbo(size=7)' random greedy 'mcts(time=0.1)' --rounds 4 "
                                "--jobs 2. After an interruption: boardlab tournament --resume "
                                "NAME. PostgreSQL: --db postgresql://user@host/db")
    tournament.add_argument("spec", nargs="?", help="game spec, e.g. 'cartagena(players=3)'")
    tournament.add_argument("agents", nargs="*", help="participants (agent specs, "
                            "optionally name=spec)")
    tournament.add_argument("--format", choices=["round-robin", "gauntlet"],
                            help="round-robin (default), or gauntlet: the first participant "
                            "against all the others")
    tournament.add_argument("--rounds", type=int, help="each pairing is played in every seat "
                            "rotation, this many times (default 1)")
    tournament.add_argument("--name", help="tournament name (default GAME-FORMAT-TIME)")
    tournament.add_argument("--resume", metavar="NAME", help="continue a stored tournament")
    tournament.add_argument("--db", help="database URL or SQLite file (default "
                            "boardlab-tournaments.db)")
    tournament.add_argument("--seed", type=int, help="chance seed of the first round "
                            "(default 1)")
    tournament.add_argument("--max-actions", type=int, help="stop (unfinished) games this "
                            "long")
    tournament.add_argument("--plot", help="ratings plot file (default NAME.png)")
    _runner_options(tournament, jobs=os.cpu_count() or 1)
    standings = sub.add_parser("standings", help="standings and ratings of a stored "
                               "tournament (no name: list them)")
    standings.add_argument("name", nargs="?")
    standings.add_argument("--db", help="database URL or SQLite file")
    standings.add_argument("--plot", help="also save the ratings plot here (PNG)")
    standings.add_argument("--json", action="store_true")
    komi = sub.add_parser("komi", help="find the fair komi by self-play over a range of komi "
                          "values (a long run, not a test)",
                          epilog="Game options go as --name value, e.g. boardlab komi "
                          "carteso --size 9 --button off. A negative range needs '=': "
                          "--range=-10:20. See docs/komi.md.")
    komi.add_argument("game", help="a game with a komi option, e.g. carteso or rumbo")
    komi.add_argument("--agent", default="mcts(iterations=300)", help="the agent in both "
                      "seats (default mcts(iterations=300))")
    komi.add_argument("--games", type=int, default=200, help="games in all (default 200)")
    komi.add_argument("--range", help="komi values LO:HI to test (default: the game's "
                      "default komi +- a quarter of the board's points); a negative LO needs "
                      "'=': --range=-10:20")
    komi.add_argument("--step", type=float, default=1.0, help="spacing of the allowed komi "
                      "values from the game's default komi (default 1; 0.5 for every "
                      "half point)")
    komi.add_argument("--rounds", type=int, default=4, help="adaptive rounds (default 4)")
    komi.add_argument("--seed", type=int, default=1, help="game i uses seed+i (default 1)")
    _agents_from(komi)
    komi.add_argument("--jobs", type=int, default=1, help="games played in parallel")
    komi.add_argument("--bootstrap", type=int, default=2000, help="bootstrap resamples for "
                      "the interval (default 2000)")
    komi.add_argument("--plot", help="plot file (default komi-GAME-SIZE[-OPTIONS].png)")
    komi.add_argument("--no-plot", action="store_true", help="do not write a plot")
    komi.add_argument("--json", action="store_true", help="print the result as JSON")
    _serve_parser(sub)
    _connect_parser(sub)
    _soak_parser(sub)
    _train_parser(sub)
    _report_parser(sub)
    return parser


def _interrupt_on_termination() -> None:
    """SIGTERM and SIGHUP end the command like Ctrl-C: cleanup (engines) runs, results stay."""
    def interrupt(signum, frame):
        raise KeyboardInterrupt
    for name in ("SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), interrupt)


def main(argv=None) -> int:
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    try:
        if getattr(args, "agents_from", None):       # (the agents load only when used)
            from .agents import load_agents_from
            load_agents_from(args.agents_from)
        if args.command == "play":
            return cmd_play(args, extra)
        if args.command in ("match", "tournament", "duel", "komi", "report"):
            _interrupt_on_termination()      # SIGTERM ends a long run like Ctrl-C
        if args.command == "komi":
            return cmd_komi(args, extra)
        if args.command == "report":             # the game's options, and the command line
            args.argv = list(sys.argv[1:] if argv is None else argv)
            args.extra, extra = extra, []
        if extra:
            parser.error(f"unrecognized arguments: {' '.join(extra)}")
        handler = {"games": cmd_games, "agents": cmd_agents, "replay": cmd_replay,
                   "show": cmd_show, "bench": cmd_bench, "duel": cmd_duel,
                   "match": cmd_match, "tournament": cmd_tournament,
                   "standings": cmd_standings, "serve": cmd_serve,
                   "connect": cmd_connect, "soak": cmd_soak,
                   "train": cmd_train, "report": cmd_report}[args.command]
        return handler(args)
    except BoardlabError as error:
        print(f"boardlab: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:                      # e.g. piped into head
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    sys.exit(main())
