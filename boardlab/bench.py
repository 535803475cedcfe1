"""Speed benchmarks: random playouts per second through each game's own kernel.

Each game declares ``bench_specs`` (the configurations to measure) and
``bench_playouts(count, seed) -> moves``. A run is calibrated to last about
``seconds``; the figure is the median of ``runs`` runs, on one thread.
A second figure times the Python protocol (``legal_actions`` + ``apply``).
"""
from __future__ import annotations

import random
import statistics
import time

from .core.registry import games, make


def default_specs() -> list[str]:
    return [spec for cls in games() for spec in cls.bench_specs]


def _timed(game, count: int, seed: int) -> tuple[float, int]:
    start = time.perf_counter()
    moves = game.bench_playouts(count, seed)
    return time.perf_counter() - start, moves


def bench_kernel(spec: str, seconds: float = 1.0, runs: int = 5, seed: int = 1) -> dict:
    """Median random playouts/s and moves/s of the game's kernel."""
    game = make(spec)
    game.bench_playouts(2, seed)                        # compile / warm up
    count = 16
    while True:
        elapsed, _ = _timed(game, count, seed)
        if elapsed >= seconds / 4 or count > 10**7:
            break
        count *= 4
    count = max(1, int(count * seconds / max(elapsed, 1e-9)))
    rates, lengths = [], []
    for run in range(runs):
        elapsed, moves = _timed(game, count, seed + run)
        rates.append((count / elapsed, moves / elapsed))
        lengths.append(moves / count)
    return {"spec": game.spec, "playouts_per_s": statistics.median(r[0] for r in rates),
            "moves_per_s": statistics.median(r[1] for r in rates),
            "mean_length": statistics.mean(lengths), "runs": runs, "playouts_per_run": count}


def bench_api(spec: str, seconds: float = 1.0, seed: int = 1) -> dict:
    """Random games through the Python protocol (legal_actions + apply): moves/s."""
    game, rng = make(spec), random.Random(seed)
    moves, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_initial_state(seed=rng.randrange(2**31))
        while not state.is_terminal():
            state.apply(rng.choice(state.legal_actions()))
            moves += 1
    return {"spec": game.spec, "api_moves_per_s": moves / (time.perf_counter() - start)}


def bench_search(spec: str, agent: str = "mcts", seconds: float = 1.0, runs: int = 3,
                 seed: int = 1) -> dict:
    """Median simulations per second of a search agent from the initial position."""
    from .agents import make_agent

    game = make(spec)
    warm = game.new_initial_state(seed=seed)          # compile the kernels outside the timing
    make_agent(f"{agent}(iterations=20)", game, warm.acting_seats()[0], seed=seed).act(
        warm.view(warm.acting_seats()[0]))
    rates = []
    for run in range(runs):
        state = game.new_initial_state(seed=seed + run)
        seat = state.acting_seats()[0]
        searcher = make_agent(f"{agent}(time={seconds},iterations=0,reuse=false,"
                              f"early_stop=false)", game, seat,
                              seed=seed + run)
        start = time.perf_counter()
        searcher.act(state.view(seat))
        rates.append(searcher.iterations_done / (time.perf_counter() - start))
    return {"spec": spec, "agent": agent, "sims_per_s": statistics.median(rates), "runs": runs}
