"""The ``boardlab`` command: a thin layer over the library.

Subcommands: games, agents, play, replay, show, bench. Game options are
given as ``--name value`` (or in a spec string) and are checked by the game.
"""
from __future__ import annotations

import argparse
import json
import sys

from . import agents as agent_registry
from .core.errors import BoardlabError
from .core.options import parse_spec
from .core.record import load, replay_moves
from .core.registry import games, make


def _options_from_args(extra: list[str]) -> dict:
    """``--size 9 --komi-protocol bid`` -> {'size': '9', 'komi_protocol': 'bid'}."""
    options, i = {}, 0
    while i < len(extra):
        word = extra[i]
        if not word.startswith("--") or len(word) < 3:
            raise BoardlabError(f"unexpected argument {word!r} (game options look like "
                                f"--size 9)")
        key, sep, value = word[2:].partition("=")
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
    for cls in agent_registry.agents():
        print(f"{cls.name}: {cls.description}")
        _print_options(cls.declared_options)
        print()
    return 0


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
        print(state.render() if hasattr(state, "render") else "\n".join(summary["board"]))
        for line in getattr(state, "status_lines", lambda: [])():
            print(line)
    return 0


def cmd_show(args) -> int:
    record, state = load(args.record)
    print(f"{record['spec']}: {len(record['moves'])} moves, players "
          f"{record.get('players') or 'unknown'}")
    print(state.render() if hasattr(state, "render") else "\n".join(state.summary()["board"]))
    for line in getattr(state, "status_lines", lambda: [])():
        print(line)
    return 0


def cmd_play(args, extra) -> int:
    from .terminal import TerminalGame

    name, raw = parse_spec(args.game)
    raw.update(_options_from_args(extra))
    game = make(name, **raw)
    vs = [v for v in (args.vs or "").split(",") if v]
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
    session = TerminalGame(game, agents, seed=seed,
                           colour=False if args.no_colour else None)
    session.run()
    session.finish(args.save, ask=not args.no_save)
    return 0


def cmd_bench(args) -> int:
    from .bench import bench_api, bench_kernel, bench_search, default_specs

    specs = args.specs or default_specs()
    if args.search:
        print(f"{args.search} simulations per second from the initial position, one thread, "
              f"median of {args.runs} runs of {args.seconds:g} s")
        for spec in specs:
            result = bench_search(spec, args.search, seconds=args.seconds, runs=args.runs)
            print(f"{spec:<40} {result['sims_per_s']:>12,.0f}", flush=True)
        return 0
    print(f"random playouts, one thread, median of {args.runs} runs of ~{args.seconds:g} s")
    print(f"{'game':<40} {'playouts/s':>12} {'moves/s':>12} {'mean length':>12}"
          f"{'  api moves/s' if args.api else ''}")
    for spec in specs:
        result = bench_kernel(spec, seconds=args.seconds, runs=args.runs)
        line = (f"{spec:<40} {result['playouts_per_s']:>12,.0f} "
                f"{result['moves_per_s']:>12,.0f} {result['mean_length']:>12.1f}")
        if args.api:
            line += f"  {bench_api(spec, seconds=args.seconds)['api_moves_per_s']:>11,.0f}"
        print(line, flush=True)
    return 0


def cmd_duel(args) -> int:
    from .arena import duel

    def progress(done, total, points):
        print(f"\r{done}/{total} games, {args.a} {points:g} points", end="", file=sys.stderr,
              flush=True)

    result = duel(args.spec, args.a, args.b, args.games, seed=args.seed, jobs=args.jobs,
                  progress=progress)
    print(file=sys.stderr)
    low, high = result["interval"]
    print(f"{result['spec']}: {args.a} vs {args.b}: {result['points']:g}/{result['games']} "
          f"= {100 * result['rate']:.1f}% (95% interval {100 * low:.1f}-{100 * high:.1f}%), "
          f"{result['mean_actions']:.0f} actions a game")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="boardlab", description="Play, study and write AI "
                                     "for Carteso, Rumbo, Cartagena and CTOR.")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("games", help="list the games and their options")
    sub.add_parser("agents", help="list the agents and their options")
    play = sub.add_parser("play", help="play in the terminal (game options as --size 9)",
                          epilog="Game options go as --name value (for example --size 9 "
                          "--komi 7.5 --button off); 'boardlab games' lists each game's "
                          "options. Example: boardlab play carteso --size 9 --vs random")
    play.add_argument("game", help="game name or spec, e.g. carteso or 'carteso(size=9)'")
    play.add_argument("--vs", help="agent(s) for the other seat(s), comma-separated, e.g. random")
    play.add_argument("--seat", type=int, help="your seat number when playing agents "
                      "(default 0: you move first)")
    play.add_argument("--seed", type=int, help="seed for the agents and any chance")
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
    bench.add_argument("--runs", type=int, default=5)
    bench.add_argument("--seconds", type=float, default=1.0, help="length of one run")
    bench.add_argument("--api", action="store_true", help="also time the Python protocol")
    bench.add_argument("--search", metavar="AGENT", help="measure a search agent's "
                       "simulations/s instead, e.g. --search mcts")
    duel = sub.add_parser("duel", help="agent A against agent B, seats alternating, with "
                          "a 95%% interval (a long run, not a test)")
    duel.add_argument("spec", help="game spec, e.g. 'carteso(size=9)'")
    duel.add_argument("a", help="agent A, e.g. 'mcts(time=1)'")
    duel.add_argument("b", help="agent B, e.g. random")
    duel.add_argument("--games", type=int, default=20)
    duel.add_argument("--seed", type=int, default=1)
    duel.add_argument("--jobs", type=int, default=1, help="games played in parallel")
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    try:
        if args.command == "play":
            return cmd_play(args, extra)
        if extra:
            parser.error(f"unrecognized arguments: {' '.join(extra)}")
        handler = {"games": cmd_games, "agents": cmd_agents, "replay": cmd_replay,
                   "show": cmd_show, "bench": cmd_bench, "duel": cmd_duel}[args.command]
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
