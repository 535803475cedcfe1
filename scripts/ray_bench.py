"""Benchmark: an engine tournament of N short games on a two-node Ray cluster on this
machine against the same tournament with ``--jobs`` (a process pool), games/s per core.

    .venv/bin/python scripts/ray_bench.py --games 10000          # the issue's figure
    .venv/bin/python scripts/ray_bench.py --games 400            # a quick check

The cluster is a head and a worker node (``--nodes``, ``--cpus`` each) on 127.0.0.1
(boardlab.arena.ray_cluster); the pool has as many workers as the cluster has CPUs, so
"per core" divides by the same number. Both runs store every game in a SQLite file, as
``boardlab tournament`` does, in a temporary folder in memory (/dev/shm) unless ``--db-dir``
says where: a disk's commit (tens of milliseconds on a busy one) would bound both runs by
the one process that writes, and hide what is compared, how the games are played. Both
are timed from the start of ``Tournament.run`` to its end (the pool's start included; the
cluster's start not: a cluster is up before a tournament is sent to it), and their steady
rate is taken from the first game stored to the last (start-up left out of both). Afterwards each
database must hold every scheduled game once, and the two the same results game by game
(same seeds): nothing lost, nothing doubled. The Ray run's batches (games per Ray task)
are reported; ``--batch N`` fixes them. Prints a table and one JSON line (``--json-out``
appends it to a file too).

``--selfplay``: ``boardlab train``'s self-play instead (boardlab.learn.selfplay.generate,
``--games`` games of ``--agent``, default ``mcts(iterations=200)``) on ``--nodes`` x
``--cpus`` local processes against the same games as Ray tasks on the cluster; the
samples of the two must be the same, game by game.

    .venv/bin/python scripts/ray_bench.py --selfplay --games 400 --cpus 4
"""
from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from boardlab.arena.storage import Store
from boardlab.arena.tournament import Tournament, tournament_config


class _Batches(logging.Handler):
    """Keeps the Ray runner's closing line (its batch sizes)."""

    def __init__(self):
        super().__init__()
        self.lines: list[str] = []

    def emit(self, record):
        self.lines.append(record.getMessage())


def _tournament(folder: str, name: str, args) -> Tournament:
    config = tournament_config(args.spec, dict(enumerate_agents(args.agents)),
                               rounds=-(-args.games // _games_a_round(args)), seed=args.seed)
    return Tournament(Store(os.path.join(folder, f"{name}.db")), name, config)


def enumerate_agents(agents: list[str]) -> list[tuple[str, str]]:
    return [(f"{i + 1}-{agent}", agent) for i, agent in enumerate(agents)]


def _games_a_round(args) -> int:
    from boardlab.arena.schedule import schedule, sides_of
    from boardlab.core.registry import make

    return len(schedule([n for n, _ in enumerate_agents(args.agents)],
                        len(sides_of(make(args.spec))), "round-robin", 1, args.seed))


def _timed(tournament: Tournament, **run) -> tuple[float, float]:
    """The run's seconds, and its steady rate: games/s from the first game stored to the
    last (what start-up costs, worker processes importing the engines, is left out)."""
    stored, add_game = [], tournament.store.add_game

    def timed(*args, **kwargs):
        add_game(*args, **kwargs)
        stored.append(time.perf_counter())
    tournament.store.add_game = timed           # type: ignore[method-assign]
    started = time.perf_counter()
    tournament.run(**run)
    seconds = time.perf_counter() - started
    steady = (len(stored) - 1) / (stored[-1] - stored[0]) if len(stored) > 1 else 0.0
    return seconds, steady


def _check(tournament: Tournament) -> dict:
    stored = [row.idx for row in tournament.store.results(tournament.id)]
    return {"scheduled": len(tournament.games), "stored": len(stored),
            "doubled": len(stored) - len(set(stored)),
            "lost": len({g.index for g in tournament.games} - set(stored))}


def _selfplay_timed(**run) -> tuple[dict, float, float]:
    """Self-play's samples, its seconds and its steady rate (first game to last)."""
    from boardlab.learn.selfplay import generate

    finished: list[float] = []
    started = time.perf_counter()
    data = generate(progress=lambda *_: finished.append(time.perf_counter()), **run)
    seconds = time.perf_counter() - started
    steady = (len(finished) - 1) / (finished[-1] - finished[0]) if len(finished) > 1 else 0.0
    return data, seconds, steady


def selfplay(args) -> int:
    """Self-play games/s per core: local processes against Ray tasks (``--selfplay``)."""
    import numpy as np

    from boardlab.arena.ray_cluster import local_cluster
    from boardlab.learn.selfplay import SAMPLE_KEYS

    cores = args.nodes * args.cpus
    run = dict(spec=args.spec, agent_spec=args.agent, games=args.games, seed=args.seed,
               explore=8)
    print(f"{args.spec}: self-play of {args.agent}, {args.games} games; {cores} processes "
          f"against Ray on {args.nodes} nodes x {args.cpus} CPU", flush=True)
    local, jobs_seconds, jobs_steady = _selfplay_timed(workers=cores, **run)
    with local_cluster(nodes=args.nodes, cpus=args.cpus) as cluster:
        on_ray, ray_seconds, ray_steady = _selfplay_timed(
            ray_address=cluster.address, ray_batch=args.batch, workers=cores, **run)
    same = local["seeds"] == on_ray["seeds"] and all(
        np.array_equal(local[k], on_ray[k]) for k in SAMPLE_KEYS if k in local)
    nodes: dict[str, int] = {}
    for where in on_ray["nodes"]:
        nodes[where["node"]] = nodes.get(where["node"], 0) + 1
    games = args.games
    result = {"selfplay": True, "spec": args.spec, "agent": args.agent, "games": games,
              "cores": cores, "jobs_seconds": round(jobs_seconds, 2),
              "ray_seconds": round(ray_seconds, 2),
              "jobs_games_per_s_per_core": round(games / jobs_seconds / cores, 3),
              "ray_games_per_s_per_core": round(games / ray_seconds / cores, 3),
              "jobs_steady_per_core": round(jobs_steady / cores, 3),
              "ray_steady_per_core": round(ray_steady / cores, 3),
              "ratio": round(jobs_seconds / ray_seconds, 3),
              "steady_ratio": round(ray_steady / jobs_steady, 3) if jobs_steady else None,
              "games_per_node": sorted(nodes.values()), "same_samples": same,
              "load_average": [round(x, 2) for x in os.getloadavg()]}
    print(f"{'':<8}{'seconds':>10}{'games/s':>10}{'per core':>10}{'steady per core':>17}")
    for mode in ("jobs", "ray"):
        seconds = result[f"{mode}_seconds"]
        print(f"{mode:<8}{seconds:>10.2f}{games / seconds:>10.2f}"
              f"{result[f'{mode}_games_per_s_per_core']:>10.3f}"
              f"{result[f'{mode}_steady_per_core']:>17.3f}")
    print(f"Ray per core / processes per core: {result['ratio']:.3f} (whole runs), "
          f"{result['steady_ratio']} (steady); games a node: {result['games_per_node']}; "
          f"the same samples: {same}; load average {result['load_average']}")
    line = json.dumps(result)
    print(line)
    if args.json_out:
        with open(args.json_out, "a") as file:
            file.write(line + "\n")
    return 0 if same and on_ray["games"] == games else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10000)
    parser.add_argument("--spec", default="carteso(size=5)")
    parser.add_argument("--agents", nargs="+", default=["random", "greedy"])
    parser.add_argument("--nodes", type=int, default=2)
    parser.add_argument("--cpus", type=int, default=1, help="CPUs of each node")
    parser.add_argument("--batch", type=int, help="games per Ray task (default: sized "
                        "from the games' length)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--db-dir", help="where the two SQLite files go (default: a "
                        "temporary folder in /dev/shm, removed after)")
    parser.add_argument("--json-out", help="append the JSON line to this file")
    parser.add_argument("--selfplay", action="store_true", help="time boardlab train's "
                        "self-play instead of a tournament")
    parser.add_argument("--agent", default="mcts(iterations=200)", help="with --selfplay: "
                        "the self-play agent (default: %(default)s)")
    args = parser.parse_args()
    if args.selfplay:
        return selfplay(args)
    cores = args.nodes * args.cpus
    handler = _Batches()
    logging.getLogger("boardlab.arena.ray_runner").addHandler(handler)
    logging.getLogger("boardlab.arena.ray_runner").setLevel(logging.INFO)
    memory = "/dev/shm" if os.path.isdir("/dev/shm") else None
    with tempfile.TemporaryDirectory(dir=memory) as scratch:
        folder = args.db_dir or scratch
        pooled = _tournament(folder, "jobs", args)
        print(f"{args.spec}: {' vs '.join(args.agents)}, {len(pooled.games)} games; "
              f"--jobs {cores} against Ray on {args.nodes} nodes x {args.cpus} CPU",
              flush=True)
        jobs_seconds, jobs_steady = _timed(pooled, jobs=cores)
        from boardlab.arena.ray_cluster import local_cluster

        with local_cluster(nodes=args.nodes, cpus=args.cpus) as cluster:
            on_ray = _tournament(folder, "ray", args)
            ray_seconds, ray_steady = _timed(on_ray, ray_address=cluster.address,
                                             ray_batch=args.batch)
            nodes = {}
            for row in on_ray.rows():
                node = row.record["meta"]["node"]
                nodes[node] = nodes.get(node, 0) + 1
        checks = {"jobs": _check(pooled), "ray": _check(on_ray)}
        same = [(r.idx, r.returns) for r in pooled.rows()] == \
            [(r.idx, r.returns) for r in on_ray.rows()]
    games = len(pooled.games)
    result = {"spec": args.spec, "agents": args.agents, "games": games, "cores": cores,
              "jobs_seconds": round(jobs_seconds, 2), "ray_seconds": round(ray_seconds, 2),
              "jobs_games_per_s_per_core": round(games / jobs_seconds / cores, 2),
              "ray_games_per_s_per_core": round(games / ray_seconds / cores, 2),
              "jobs_steady_per_core": round(jobs_steady / cores, 2),
              "ray_steady_per_core": round(ray_steady / cores, 2),
              "ratio": round(jobs_seconds / ray_seconds, 3),
              "steady_ratio": round(ray_steady / jobs_steady, 3) if jobs_steady else None,
              "games_per_node": sorted(nodes.values()), "checks": checks,
              "load_average": [round(x, 2) for x in os.getloadavg()],
              "same_results": same, "batches": handler.lines[-1] if handler.lines else None}
    print(f"{'':<8}{'seconds':>10}{'games/s':>10}{'per core':>10}{'steady per core':>17}")
    for mode in ("jobs", "ray"):
        seconds = result[f"{mode}_seconds"]
        print(f"{mode:<8}{seconds:>10.2f}{games / seconds:>10.1f}"
              f"{result[f'{mode}_games_per_s_per_core']:>10.2f}"
              f"{result[f'{mode}_steady_per_core']:>17.2f}")
    print(f"Ray per core / --jobs per core: {result['ratio']:.3f} (whole runs), "
          f"{result['steady_ratio']} (steady); games a node: {result['games_per_node']}; "
          f"Ray tasks: {result['batches']}")
    print(f"lost: jobs {checks['jobs']['lost']}, ray {checks['ray']['lost']}; doubled: jobs "
          f"{checks['jobs']['doubled']}, ray {checks['ray']['doubled']}; the same results game "
          f"by game: {same}; load average {result['load_average']} (on {os.cpu_count()} "
          f"cores: figures from a busy machine compare badly)")
    line = json.dumps(result)
    print(line)
    if args.json_out:
        with open(args.json_out, "a") as file:
            file.write(line + "\n")
    ok = same and not checks["jobs"]["lost"] and not checks["ray"]["lost"] and \
        checks["ray"]["stored"] == games
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
