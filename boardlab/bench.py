"""Speed benchmarks: random playouts per second through each game's own kernel.

Each game declares ``bench_specs`` (the configurations to measure) and
``bench_playouts(count, seed) -> moves``. A run is calibrated to last about
``seconds``; the figure is the median of ``runs`` runs, on one thread, after a
warm-up (compilation, caches) that is not timed. A second figure times the
Python protocol (``legal_actions`` + ``apply``), beside OpenSpiel's C++ Go 9x9 driven
from Python the same way where pyspiel is installed, and a third a search agent.

Each measurement can be kept as one JSON object (:func:`measurement`), so that
runs on different days and commits can be compared.
"""
from __future__ import annotations

import json
import os
import platform
import random
import statistics
import subprocess
import time
from datetime import datetime, UTC

from .core.errors import BoardlabError
from .core.registry import games, make


def default_specs() -> list[str]:
    return [spec for cls in games() for spec in cls.bench_specs]


def _timed(game, count: int, seed: int) -> tuple[float, int, float]:
    """(elapsed, moves, CPU seconds of this process) of ``count`` kernel playouts."""
    start, cpu = time.perf_counter(), time.process_time()
    moves = game.bench_playouts(count, seed)
    return time.perf_counter() - start, moves, time.process_time() - cpu


def bench_kernel(spec: str, seconds: float = 1.0, runs: int = 5, seed: int = 1) -> dict:
    """Median random playouts/s and moves/s of the game's kernel (and playouts per CPU
    second, the steadier figure on a busy machine)."""
    game = make(spec)
    game.bench_playouts(2, seed)                        # compile / warm up
    count = 16
    while True:
        elapsed, _, _ = _timed(game, count, seed)
        if elapsed >= seconds / 4 or count > 10**7:
            break
        count *= 4
    count = max(1, int(count * seconds / max(elapsed, 1e-9)))
    rates, lengths = [], []
    for run in range(runs):
        elapsed, moves, cpu = _timed(game, count, seed + run)
        rates.append((count / elapsed, moves / elapsed, count / max(cpu, 1e-9)))
        lengths.append(moves / count)
    return {"spec": game.spec, "playouts_per_s": statistics.median(r[0] for r in rates),
            "moves_per_s": statistics.median(r[1] for r in rates),
            "cpu_playouts_per_s": statistics.median(r[2] for r in rates),
            "mean_length": statistics.mean(lengths), "runs": runs, "playouts_per_run": count}


def _api_games(game, seconds: float, rng: random.Random) -> tuple[float, float, int]:
    """Whole random games through the protocol for about ``seconds``:
    (elapsed, CPU seconds of this process, moves)."""
    moves, start, cpu = 0, time.perf_counter(), time.process_time()
    while True:
        state = game.new_initial_state(seed=rng.randrange(2**31))
        while not state.is_terminal():
            state.apply(rng.choice(state.legal_actions()))
            moves += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return elapsed, time.process_time() - cpu, moves


def _openspiel_reference(name: str | None):
    """The pyspiel game ``name``, or None (no name, or pyspiel not installed)."""
    if name is None:
        return None
    try:
        import pyspiel  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        return None
    return pyspiel.load_game(name)


def _api_figures(spec: str, rates: list, cpu_costs: list, runs: int) -> dict:
    rate = statistics.median(rates)
    return {"spec": spec, "api_moves_per_s": rate, "us_per_move": 1e6 / rate,
            "cpu_us_per_move": statistics.median(cpu_costs), "runs": runs}


def bench_api(spec: str, seconds: float = 1.0, runs: int = 5, seed: int = 1,
              reference: str | None = None) -> dict:
    """Random games through the Python protocol (legal_actions + apply).

    After a warm-up of about a quarter of a run, ``runs`` runs of whole games,
    each about ``seconds`` long: the median moves/s and its cost per move in µs, in
    wall-clock time and in CPU time (the steadier figure on a busy machine).

    With ``reference`` (an OpenSpiel game name, where pyspiel is installed) every run of
    the game comes right after a run of the reference through the same loop, so that a
    load that comes and goes weighs on both alike: ``result["reference"]`` has the
    reference's figures and ``result["x"]`` the median over the runs of the game's CPU
    cost a move over the reference's in the same pair (None without pyspiel).
    """
    game = make(spec)
    other = _openspiel_reference(reference)
    _api_games(game, seconds / 4, random.Random(seed - 1))      # compile / warm up
    if other is not None:
        _openspiel_games(other, seconds / 4, random.Random(seed - 1))
    rates, cpu_costs, ref_rates, ref_costs, ratios = [], [], [], [], []
    for run in range(runs):
        if other is not None:
            elapsed, cpu, moves = _openspiel_games(other, seconds, random.Random(seed + run))
            ref_rates.append(moves / elapsed)
            ref_costs.append(1e6 * cpu / moves)
        elapsed, cpu, moves = _api_games(game, seconds, random.Random(seed + run))
        rates.append(moves / elapsed)
        cpu_costs.append(1e6 * cpu / moves)
        if other is not None:
            ratios.append(cpu_costs[-1] / ref_costs[-1])
    result = _api_figures(game.spec, rates, cpu_costs, runs)
    if reference is not None:
        result["reference"] = None if other is None else \
            _api_figures(f"openspiel:{reference}", ref_rates, ref_costs, runs)
        result["x"] = statistics.median(ratios) if ratios else None
    return result


#: the reference of ``bench --api``: OpenSpiel's C++ Go on 9x9, driven from Python
OPENSPIEL_REFERENCE = "go(board_size=9)"


def _openspiel_games(game, seconds: float, rng: random.Random) -> tuple[float, float, int]:
    """:func:`_api_games` for a pyspiel game: whole random games through its
    ``legal_actions()`` and ``apply_action()`` for about ``seconds``."""
    moves, start, cpu = 0, time.perf_counter(), time.process_time()
    while True:
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            moves += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return elapsed, time.process_time() - cpu, moves


def _searchable(game, seed: int, runs: int) -> list[int]:
    """The first ``runs`` seeds from ``seed`` on whose initial position gives the seat to
    act a choice (a position with one legal move is not searched: no rate to measure)."""
    found = []
    for case in range(seed, seed + 50 * runs):
        state = game.new_initial_state(seed=case)
        if len(state.legal_actions_for(state.acting_seats()[0])) > 1:
            found.append(case)
            if len(found) == runs:
                return found
    raise BoardlabError(f"{game.spec}: only {len(found)} of the initial positions of seeds "
                        f"{seed}..{seed + 50 * runs - 1} have more than one legal move, "
                        f"{runs} needed")


def bench_search(spec: str, agent: str = "mcts", seconds: float = 1.0, runs: int = 3,
                 seed: int = 1) -> dict:
    """Median simulations per second of a search agent from the initial position, per
    wall-clock second and per CPU second of this process (``cpu_sims_per_s``, the steadier
    figure on a busy machine)."""
    from .agents import make_agent
    from .core.options import with_options

    game = make(spec)
    warm = game.new_initial_state(seed=seed)          # compile the kernels outside the timing
    seat = warm.acting_seats()[0]
    make_agent(with_options(agent, iterations=20, time=0), game, seat, seed=seed).act(
        warm.view(seat))
    rates, cpu_rates = [], []
    for case in _searchable(game, seed, runs):
        state = game.new_initial_state(seed=case)
        seat = state.acting_seats()[0]
        searcher = make_agent(with_options(agent, time=seconds, iterations=0, reuse=False,
                                           early_stop=False), game, seat, seed=case)
        start, cpu = time.perf_counter(), time.process_time()
        searcher.act(state.view(seat))
        cpu = time.process_time() - cpu
        rates.append(searcher.iterations_done / (time.perf_counter() - start))
        cpu_rates.append(searcher.iterations_done / max(cpu, 1e-9))
    return {"spec": spec, "agent": agent, "sims_per_s": statistics.median(rates),
            "cpu_sims_per_s": statistics.median(cpu_rates), "runs": runs}


def vector_specs() -> list[str]:
    """The configurations ``--vector`` measures by default: each game's first
    ``bench_specs`` entry that has a vector kernel."""
    found = []
    for cls in games():
        for spec in cls.bench_specs:
            if make(spec).vector_kernel() is not None:
                found.append(spec)
                break
    return found


def _vector_steps(env, batches: int) -> tuple[float, float]:
    """(elapsed, CPU seconds) of ``batches`` steps of every game with random legal actions."""
    start, cpu = time.perf_counter(), time.process_time()
    for _ in range(batches):
        env.step(env.sample())
    return time.perf_counter() - start, time.process_time() - cpu


def bench_vector(spec: str, n: int = 1024, seconds: float = 1.0, runs: int = 5,
                 seed: int = 1) -> dict:
    """Median steps/s of ``n`` games in a vector environment (``boardlab.vector``), random
    legal actions, observations and masks written at every step, ended games reset;
    per wall-clock and per CPU second of this process."""
    from .vector import make as make_vector

    env = make_vector(spec, n, seed=seed)
    env.reset()
    batches = 4
    while True:                                   # compile, warm up, calibrate
        elapsed, _ = _vector_steps(env, batches)
        if elapsed >= seconds / 4 or batches > 10**6:
            break
        batches *= 4
    batches = max(1, int(batches * seconds / max(elapsed, 1e-9)))
    rates, cpu_rates = [], []
    for _ in range(runs):
        elapsed, cpu = _vector_steps(env, batches)
        rates.append(batches * n / elapsed)
        cpu_rates.append(batches * n / max(cpu, 1e-9))
    return {"spec": env.game.spec, "n": n, "steps_per_s": statistics.median(rates),
            "cpu_steps_per_s": statistics.median(cpu_rates), "runs": runs,
            "batches_per_run": batches}


# What each mode measures: the result's key of its headline rate, and the rate's unit.
RATES = {"kernel": ("playouts_per_s", "playouts/s"), "api": ("api_moves_per_s", "moves/s"),
         "search": ("sims_per_s", "simulations/s"),
         "eval": ("ratio", "x a rollout simulation"), "vector": ("steps_per_s", "steps/s")}


def git_commit() -> str | None:
    """The checked-out commit of the source tree (with ``-dirty`` if it has changes), or None."""
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=here, capture_output=True,
                                text=True, timeout=10)
        if commit.returncode != 0:
            return None
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                               cwd=here, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return commit.stdout.strip() + ("-dirty" if dirty.stdout.strip() else "")


def measurement(mode: str, result: dict, seconds: float, commit: str | None) -> dict:
    """One benchmark figure as a JSON-ready object: what, how fast, when, where, on what."""
    key, unit = RATES[mode]
    return {"spec": result["spec"], "mode": mode, "rate": result[key], "unit": unit,
            "runs": result["runs"], "seconds": seconds,
            "date": datetime.now(UTC).isoformat(timespec="seconds"),
            "commit": commit, "load": os.getloadavg()[0] if hasattr(os, "getloadavg") else None,
            "python": platform.python_version(), "machine": platform.machine(),
            "result": result}


def append_json_line(path: str, record: dict) -> None:
    """Append ``record`` to the JSON-lines file ``path``, one object per line."""
    with open(path, "a", encoding="utf-8") as out:
        out.write(json.dumps(record, sort_keys=True) + "\n")
