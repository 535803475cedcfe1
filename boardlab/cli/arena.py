"""``boardlab duel``, ``match``, ``tournament``, ``standings`` and ``komi``: agents against
each other, with records, ratings and the fair komi."""
from __future__ import annotations

import json
import os
import sys

from ..core.errors import BoardlabError
from ..core.registry import make
from .common import (agents_from, check_runner_args, in_process, options_from_args,
                     runner_options, time_control)


def cmd_duel(args) -> int:
    """Agent A against agent B, seats alternating: the score with a 95% interval."""
    from ..arena import duel

    check_runner_args(args)
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


def cmd_match(args) -> int:
    """A match between agents, seats rotating, every game saved as a record."""
    from datetime import datetime

    from ..arena.standings import LiveBoard, standings_text
    from ..arena.match import run_match, wilson_interval
    from ..arena.ratings import match_elo_bounded
    from ..arena.schedule import parse_participants, sides_of
    from ..arena.tournament import ratings_kind

    check_runner_args(args)
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
                            time_control=time_control(args), jobs=args.jobs, out_dir=out,
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
    """The SPRT of ``--sprt ELO0,ELO1[,ALPHA,BETA]``."""
    from ..arena.ratings import Sprt

    try:
        values = [float(v) for v in text.split(",")]
        return Sprt(*values)
    except (TypeError, ValueError) as error:
        raise BoardlabError(f"--sprt wants ELO0,ELO1[,ALPHA,BETA], e.g. 0,10: {error}") \
            from None


def cmd_tournament(args) -> int:
    """Run (or resume) a tournament stored in a database, with live standings."""
    from ..arena.standings import LiveBoard, standings_text
    from ..arena.schedule import sides_of
    from ..arena.tournament import ratings_kind

    check_runner_args(args)
    store, tournament = _resumed_tournament(args) if args.resume else _new_tournament(args)
    game, name = tournament.game, tournament.name
    sides, kind = len(sides_of(game)), ratings_kind(game)
    try:
        with tournament.held():        # a second runner of it is refused, named the holder
            shown = " (and the server's tables: its /tournaments page)" \
                if tournament.mirror is not None else ""
            print(f"tournament {name!r}: {game.spec}, {len(tournament.games)} games, "
                  f"{len(tournament.pending())} to play; results in {store.safe_url}{shown}",
                  file=sys.stderr)
            with LiveBoard(f"{name}", sides, kind) as board:
                standings = tournament.run(args.jobs, args.ray, on_game=board,
                                           ray_batch=args.ray_batch)
    except KeyboardInterrupt:
        print(f"\ninterrupted: finished games are stored; continue with\n  boardlab "
              f"tournament --resume {name} --db {args.db or store.url}", file=sys.stderr)
        return 130
    print(standings_text(standings, sides, kind), end="")
    mirror = tournament.mirror
    if mirror is not None:
        print(f"on the server's pages: {mirror.where()}")
    _plot(standings, kind, args.plot or f"{name}.png", f"{name}: {game.spec}")
    return 0


def _mirror(store):
    """The server's copy when ``store`` is a server's database (docs/arena.md)."""
    from ..server.tournaments.arena_link import server_mirror
    return server_mirror(store)


def _resumed_tournament(args):
    """The store and the tournament ``--resume NAME`` continues (no other settings)."""
    from ..arena.storage import Store
    from ..arena.tournament import Tournament

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
    return store, Tournament.resume(store, args.resume, _mirror(store))


def _new_tournament(args):
    """The store and a new tournament from the command line (checked before any file)."""
    from datetime import datetime

    from ..arena.schedule import parse_participants
    from ..arena.storage import Store
    from ..arena.tournament import Tournament, tournament_config

    if not args.spec or len(args.agents) < 2:
        raise BoardlabError("give a game spec and at least two agents, or --resume NAME")
    config = tournament_config(args.spec, parse_participants(args.agents),
                               args.format or "round-robin", args.rounds or 1,
                               1 if args.seed is None else args.seed, time_control(args),
                               args.max_actions, deals=args.deals,
                               in_process=args.in_process)
    name = args.name or f"{make(args.spec).name}-{args.format or 'round-robin'}-" \
        f"{datetime.now():%Y%m%d-%H%M%S}"
    store = Store(args.db)
    return store, Tournament(store, name, config, _mirror(store))


def cmd_standings(args) -> int:
    """The standings of a stored tournament (no name: list the tournaments)."""
    from ..arena.standings import standings_text
    from ..arena.schedule import sides_of
    from ..arena.storage import Store
    from ..arena.tournament import Tournament, ratings_kind

    store = Store(args.db, create=False)
    if not args.name:
        for name in store.names():
            print(name)
        return 0
    tournament = Tournament.resume(store, args.name)
    if args.games:
        from ..arena.standings import game_lines, games_json

        rows = tournament.rows()
        print(json.dumps(games_json(rows)) if args.json else "\n".join(game_lines(rows)))
        return 0
    standings = tournament.standings()
    game = tournament.game
    if args.json:
        print(json.dumps([{"name": s.name, "games": s.games, "points": s.points,
                           "wins": s.wins, "draws": s.draws, "losses": s.losses,
                           "forfeits": s.forfeits, "buchholz": s.buchholz,
                           "sonneborn_berger": s.sonneborn_berger,
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


def _plot(standings, kind: str, path: str, title: str) -> None:
    """Write the ratings plot to ``path`` when any line is rated."""
    from ..arena.ratings import plot_ratings

    rated = [line.rating for line in standings if line.rating]
    if rated:
        plot_ratings(rated, path, title=title, unit=kind)
        print(f"ratings plot: {path}")


def cmd_komi(args, extra) -> int:
    """Find a game's fair komi by self-play; print it and plot it."""
    from ..arena.komi import find_fair_komi, format_report, plot_result

    def progress(done, total, note):
        print(f"\rkomi: {done}/{total} games, {note}   ", end="", file=sys.stderr, flush=True)

    result = find_fair_komi(args.game, options_from_args(extra, args.game), agent=args.agent,
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


def add_parsers(sub) -> None:
    """The subcommands duel, match, tournament, standings and komi."""
    duel = sub.add_parser("duel", help="agent A against agent B, seats alternating, with "
                          "a 95%% interval (a long run, not a test)")
    duel.add_argument("spec", help="game spec, e.g. 'carteso(size=9)'")
    duel.add_argument("a", help="agent A, e.g. 'mcts(time=1)'")
    duel.add_argument("b", help="agent B, e.g. random")
    duel.add_argument("--games", type=int, default=20, help="games to play (default 20)")
    duel.add_argument("--seed", type=int, default=1, help="seed of the first game; game i "
                      "uses seed+i (default 1)")
    agents_from(duel)
    in_process(duel)
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
    runner_options(match)
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
                            "boardlab-tournaments.db); a server's database (boardlab db "
                            "upgrade, or serve): the tournament shows on its pages too")
    tournament.add_argument("--seed", type=int, help="chance seed of the first round "
                            "(default 1)")
    tournament.add_argument("--max-actions", type=int, help="stop (unfinished) games this "
                            "long")
    tournament.add_argument("--plot", help="ratings plot file (default NAME.png)")
    runner_options(tournament, jobs=os.cpu_count() or 1)
    tournament.add_argument("--ray-batch", type=int, metavar="N", help="with --ray: N games "
                            "in one Ray task (default: as many as play in about half a "
                            "second, from the games so far)")
    standings = sub.add_parser("standings", help="standings and ratings of a stored "
                               "tournament (no name: list them)")
    standings.add_argument("name", nargs="?")
    standings.add_argument("--db", help="database URL or SQLite file")
    standings.add_argument("--plot", help="also save the ratings plot here (PNG)")
    standings.add_argument("--json", action="store_true")
    standings.add_argument("--games", action="store_true", help="list the games instead: "
                           "sides, scores, forfeit and the Ray node that played each")
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
    agents_from(komi)
    komi.add_argument("--jobs", type=int, default=1, help="games played in parallel")
    komi.add_argument("--bootstrap", type=int, default=2000, help="bootstrap resamples for "
                      "the interval (default 2000)")
    komi.add_argument("--plot", help="plot file (default komi-GAME-SIZE[-OPTIONS].png)")
    komi.add_argument("--no-plot", action="store_true", help="do not write a plot")
    komi.add_argument("--json", action="store_true", help="print the result as JSON")
