"""``boardlab bench``: the speed benchmark (random playouts, the Python protocol, a search)."""
from __future__ import annotations

import math

from ..checks.evalbench import AGENT
from ..core.errors import BoardlabError


def cmd_bench(args) -> int:
    """Print (and with --json-out keep) the speed figures of each spec."""
    from ..bench import (OPENSPIEL_REFERENCE, append_json_line, bench_api, bench_kernel,
                         bench_search, bench_vector, default_specs, git_commit, measurement,
                         vector_specs)
    from importlib.util import find_spec

    if args.runs < 1:
        raise BoardlabError(f"--runs must be at least 1, not {args.runs}")
    if not 0 < args.seconds < math.inf:
        raise BoardlabError(f"--seconds must be a positive number, not {args.seconds:g}")
    if args.vector is not None and args.vector < 1:
        raise BoardlabError(f"--vector takes the number of games, at least 1, not {args.vector}")
    specs = args.specs or (vector_specs() if args.vector else
                           ["carteso(size=9)"] if args.eval else default_specs())
    commit = git_commit() if args.json_out else None

    def keep(mode: str, result: dict) -> None:
        """Append one figure to --json-out as soon as it is measured."""
        if args.json_out:
            append_json_line(args.json_out, measurement(mode, result, args.seconds, commit))
    if args.vector:
        print(f"vector environment steps per second (wall, CPU) of {args.vector} games, "
              f"random legal actions, observations and masks, one thread, median of "
              f"{args.runs} runs of ~{args.seconds:g} s")
        for spec in specs:
            result = bench_vector(spec, args.vector, seconds=args.seconds, runs=args.runs)
            keep("vector", result)
            print(f"{spec:<40} {result['steps_per_s']:>12,.0f} "
                  f"{result['cpu_steps_per_s']:>12,.0f}", flush=True)
        return 0
    if args.eval:
        return _print_eval(args, specs, keep)
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
    paired = args.api and find_spec("pyspiel") is not None
    if paired:
        print(f"the API's reference: openspiel:{OPENSPIEL_REFERENCE} through pyspiel, each "
              f"run of a game right after one of it (ref: its CPU us/move; x: the median "
              f"over the pairs of a game's CPU us/move over it)")
    print(f"{'game':<40} {'playouts/s':>12} {'moves/s':>12} {'mean length':>12}"
          f"{'  api moves/s  us/move  cpu us/move' if args.api else ''}"
          f"{'  ref cpu us      x' if paired else ''}")
    for spec in specs:
        result = bench_kernel(spec, seconds=args.seconds, runs=args.runs)
        keep("kernel", result)
        line = (f"{spec:<40} {result['playouts_per_s']:>12,.0f} "
                f"{result['moves_per_s']:>12,.0f} {result['mean_length']:>12.1f}")
        if args.api:
            api = bench_api(spec, seconds=args.seconds, runs=args.runs,
                            reference=OPENSPIEL_REFERENCE if paired else None)
            reference = api.get("reference")
            if reference is not None:
                keep("api", reference | {"paired_with": api["spec"]})
            keep("api", api)
            line += (f"  {api['api_moves_per_s']:>11,.0f} {api['us_per_move']:>8.2f} "
                     f"{api['cpu_us_per_move']:>12.2f}")
            if reference is not None:
                line += f" {reference['cpu_us_per_move']:>12.2f} {api['x']:>6.2f}"
        print(line, flush=True)
    return 0


def _print_eval(args, specs, keep) -> int:
    """``--eval``: the cost of a network's evaluation in search (``checks.evalbench``)."""
    from ..checks.evalbench import bench_eval

    try:
        small = tuple(int(x) for x in args.eval_small.lower().split("x"))
    except ValueError:
        small = ()
    if len(small) != 2 or min(small) < 1:
        raise BoardlabError(f"--eval-small takes CHANNELSxBLOCKS, e.g. 8x2, not "
                            f"{args.eval_small!r}")
    print(f"CPU microseconds a simulation, median of {args.runs} searches of "
          f"{args.seconds:g} s from positions 4 to 20 random moves in (an agent warmed up "
          f"by one search), one thread; network search: {args.eval_agent}")
    print(f"{'game':<20} {'rollout':>8} {'compiled':>9} {'features':>9} {'network':>8} "
          f"{'tree':>6} {'python':>8} {'small ' + args.eval_small:>11} {'ratio':>6}")
    for spec in specs:
        result = bench_eval(spec, seconds=args.seconds, runs=args.runs, small=small,
                            agent=args.eval_agent)
        keep("eval", result)
        print(f"{spec:<20} {result['rollout_us']:>8.1f} {result['compiled_us']:>9.1f} "
              f"{result['features_us']:>9.2f} {result['network_us']:>8.1f} "
              f"{result['tree_us']:>6.1f} {result['python_us']:>8.1f} "
              f"{_small(result['small_us']):>11} {result['ratio']:>6.2f}", flush=True)
    return 0


def _small(us: float) -> str:
    """The small network's figure, or - where none was timed (an n-tuple search)."""
    return "-" if us != us else f"{us:.1f}"


def add_parsers(sub) -> None:
    """The subcommand bench."""
    bench = sub.add_parser("bench", help="measure random playouts/s per game")
    bench.add_argument("specs", nargs="*", help="game specs (default: each game's set)")
    bench.add_argument("--runs", type=int, default=5, help="runs per game; the median is "
                       "printed (default 5)")
    bench.add_argument("--seconds", type=float, default=1.0, help="length of one run in "
                       "seconds (default 1)")
    bench.add_argument("--api", action="store_true", help="also time the Python protocol "
                       "(legal_actions then apply): moves/s and microseconds a move")
    bench.add_argument("--search", metavar="AGENT", help="measure a search agent's "
                       "simulations/s instead, e.g. --search mcts")
    bench.add_argument("--vector", metavar="N", type=int, nargs="?", const=1024,
                       help="measure vector environments of N games (default 1024) instead: "
                       "steps/s with observations and masks (default specs: each game's "
                       "first benchmark configuration that has one)")
    bench.add_argument("--eval", action="store_true", help="measure what a network's "
                       "evaluation costs in search instead: CPU us a simulation of the "
                       "compiled rollout search, of the compiled network search (features, "
                       "network, tree), of the Python tree with the network, and their "
                       "ratio (default spec: carteso(size=9))")
    bench.add_argument("--eval-small", metavar="CxB", default="8x2", help="--eval: also "
                       "time an untrained network of C channels and B blocks (default 8x2)")
    bench.add_argument("--eval-agent", metavar="AGENT", default=AGENT, help="--eval: the "
                       "network search timed, e.g. with net=FILE (another network) or "
                       "priors=false (no policy head), or an n-tuple search, "
                       "mcts(evaluator=ntuple); run both compiled and not (default: "
                       "%(default)s)")
    bench.add_argument("--json-out", metavar="FILE", help="also append each figure to FILE "
                       "as a JSON line (spec, mode, rate, runs, date, commit, load)")
