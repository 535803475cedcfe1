"""Self-play games that teach a network: positions, search targets and outcomes.

:func:`play_game` plays one game between copies of one search agent (any spec of
``mcts``: the plain rollout search as the first expert, the network-guided one
after). At every searched decision it keeps the acting seat's features (the
encoder vector of its view, nothing hidden), the search's visit distribution over
the action numbers (the policy target), the search's own estimate of the position
for that seat (``q``: its mean return over the root's simulations) and for every
seat (``v``: each seat's mean return over them, where the agent tells), whether it is
the first decision of its team's turn (``start``: the team that acted last is another,
or nobody has acted), and at the end the game's returns (``z``, one per seat). The
first ``explore`` decisions of a game sample the move in proportion to the visits, for
variety; after them the agent's own choice is played. Everything is seeded: the same
seed gives the same samples.

:func:`generate` plays many games over worker processes (forked, so each inherits
the compiled kernels), or as Ray tasks on a cluster (``ray_address``: the arena's Ray
runner, :mod:`boardlab.arena.ray_runner`: batches of games a task, spread over the
nodes, a batch lost with its node played again elsewhere, each game kept once by its
key), for a number of games or until a deadline. Game ``i`` has seed ``seed + i``
wherever it is played, and the samples are joined in the order of the seeds, so the
same seed gives the same samples on one process, on many, or on a cluster.
"""
from __future__ import annotations

import multiprocessing
import os
import random
import time

import numpy as np

from ..agents.base import load_agents_from, loaded_agent_sources, make_agent, public_game
from ..core.game import Game
from ..core.registry import make
from ..nn.features import BoardFeatures
from ..nn.kernel_observe import KernelObserver


SAMPLE_KEYS = ("x", "pi", "q", "v", "z", "seat", "start")


def play_game(game: Game, agent_spec: str, seed: int, explore: int = 8) -> dict:
    """One self-play game: ``{"x": (n, features), "pi": (n, actions), "q": (n,),
    "v": (n, seats), "z": (n, seats), "seat": (n,), "start": (n,), "returns": [...] ,
    "length": plies}``
    ("v" only where the agent gives its search's estimate for every seat)."""
    rng = random.Random(seed)
    state = game.new_initial_state(seed=rng.randrange(2**31))
    public = public_game(game)
    agents = [make_agent(agent_spec, public, seat, seed=rng.randrange(2**31))
              for seat in range(game.num_seats)]
    features = BoardFeatures(public)
    observer = KernelObserver.for_game(public, features.encoder)   # else through the view
    xs, pis, qs, vs, seats, starts = [], [], [], [], [], []
    plies, last_team = 0, None
    while not state.is_terminal():
        if state.is_chance():
            state.apply(state.sample_chance(rng))
            continue
        seat = state.acting_seats()[0]
        agent = agents[seat]
        view = state.view(seat)
        before = getattr(agent, "simulations", None)
        action = agent.act(view)
        root = getattr(agent, "root", None)
        if before is not None and agent.simulations > before and root is not None:
            searched = {a: s for a, s in root.stats.items() if a in view["legal_actions"]}
            stats = {a: s[0] for a, s in searched.items()}
            total = sum(stats.values())
            if total > 0:
                qs.append(sum(s[1] for s in searched.values()) / total)
                vs.append(getattr(agent, "estimate", None))
                pi = np.zeros(game.num_actions, dtype=np.float32)
                for a, visits in stats.items():
                    pi[a] = visits / total
                x = observer.encode(state, seat) if observer is not None else None
                xs.append(features.encoder.encode(view) if x is None else x)
                pis.append(pi)
                seats.append(seat)
                starts.append(game.team_of(seat) != last_team)
                if plies < explore:
                    actions = list(stats)
                    action = rng.choices(actions, weights=[stats[a] for a in actions])[0]
        state.apply(action, seat=seat)
        plies, last_team = plies + 1, game.team_of(seat)
    returns = [float(r) for r in state.returns()]
    for agent in agents:
        agent.close(returns)
    n = len(xs)
    out = {"x": np.array(xs, dtype=np.float32).reshape(n, features.encoder.size),
           "pi": np.array(pis, dtype=np.float32).reshape(n, game.num_actions),
           "q": np.array(qs, dtype=np.float32),
           "z": np.tile(np.array(returns, dtype=np.float32), (n, 1)),
           "seat": np.array(seats, dtype=np.int8), "start": np.array(starts, dtype=np.int8),
           "returns": returns, "length": plies}
    if all(v is not None for v in vs):
        out["v"] = np.array(vs, dtype=np.float32).reshape(n, game.num_seats)
    return out


def _worker(job):
    spec, agent_spec, seed, explore = job
    return play_game(make(spec), agent_spec, seed, explore) | {"seed": seed}


def ray_game(task: dict, agents_from: tuple[str, ...] = ()) -> dict:
    """One self-play game in a Ray worker (the arena's Ray runner calls it): the task is
    ``{"index", "seed", "spec", "agent", "explore"}``; the result :func:`play_game`'s,
    with its ``seed`` and ``seconds``."""
    load_agents_from(agents_from)
    started = time.perf_counter()
    result = _worker((task["spec"], task["agent"], task["seed"], task["explore"]))
    return result | {"seconds": time.perf_counter() - started}


def _on_ray(jobs: list, address: str, workers: int, batch: int | None):
    """The results of ``jobs`` played on the Ray cluster at ``address``, as they come
    back, each game once (the runner drops a game that comes back twice by its key)."""
    from ..arena.ray_runner import on_ray

    tasks = [{"index": i, "seed": job_seed, "spec": job_spec, "agent": agent, "explore": ex}
             for i, (job_spec, agent, job_seed, ex) in enumerate(jobs)]
    for _, result in on_ray(tasks, address, workers, loaded_agent_sources(), batch,
                            player=ray_game):
        yield result


def generate(spec: str, agent_spec: str, games: int, seed: int, workers: int = 1,
             explore: int = 8, deadline: float | None = None, progress=None,
             ray_address: str | None = None, ray_batch: int | None = None) -> dict:
    """Play up to ``games`` self-play games (seeds ``seed``, ``seed + 1``, ...) on
    ``workers`` processes, or on the Ray cluster at ``ray_address`` (``"local"``: a
    Ray instance started here with ``workers`` CPUs; ``ray_batch`` games a Ray task,
    None: sized from the games' length), stopping early at ``deadline``
    (``time.time()``); the samples of all finished games, concatenated in the order of
    their seeds, and ``games``/``first_seat_points``/``mean_length``/``seeds`` (of the
    games kept, in order)/``nodes`` (on Ray: the node that played each of them, as
    ``{"node", "node_ip"}``).
    """
    jobs = [(spec, agent_spec, seed + i, explore) for i in range(games)]
    parts, done, first, seen = [], 0, 0.0, set()
    if ray_address is not None:
        pool, results = None, _on_ray(jobs, ray_address, workers, ray_batch)
    elif workers > 1 and "fork" in multiprocessing.get_all_start_methods():
        warm_up(spec)                            # compiled once, inherited by the workers
        context = multiprocessing.get_context("fork")
        pool = context.Pool(workers)
        results = pool.imap_unordered(_worker, jobs)
    else:
        pool, results = None, map(_worker, jobs)
    try:
        for result in results:
            if result["seed"] in seen:           # each game once, however it came back
                continue
            seen.add(result["seed"])
            parts.append(result)
            done += 1
            first += (result["returns"][0] + 1) / 2
            if progress:
                progress(done, games, result)
            if deadline is not None and time.time() >= deadline:
                break
    finally:
        if pool is not None:
            pool.terminate()
            pool.join()
        close = getattr(results, "close", None)
        if close is not None:                    # a Ray run: cancel the batches still out
            close()
    if not parts:
        raise RuntimeError("no self-play game finished")
    parts.sort(key=lambda part: part["seed"])  # the order of the seeds, not of finishing
    keys = [key for key in SAMPLE_KEYS if all(key in p for p in parts)]
    out = {key: np.concatenate([p[key] for p in parts]) for key in keys} | {
        "games": done, "first_seat_points": first,
        "mean_length": float(np.mean([p["length"] for p in parts])),
        "seeds": [p["seed"] for p in parts]}
    if ray_address is not None:
        out["nodes"] = [{"node": p["node"], "node_ip": p["node_ip"]} for p in parts]
    return out


def warm_up(spec: str) -> None:
    """Compile the game's kernels and the search's pieces in this process."""
    game = make(spec)
    public = public_game(game)
    state = game.new_initial_state(seed=0)
    while state.is_chance():
        state.apply(state.sample_chance(random.Random(0)))
    if not state.is_terminal():
        seat = state.acting_seats()[0]
        make_agent("mcts(iterations=40)", public, seat, seed=0).act(state.view(seat))


def default_workers() -> int:
    return max(1, len(os.sched_getaffinity(0)))
