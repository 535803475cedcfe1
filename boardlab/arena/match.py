"""Matches: agents on the sides in rotation, and the older two-agent ``duel``.

Each agent only ever gets its own seat's view. :func:`run_match` plays the
rotations of the participants over the sides, every game with a deal of its
own (``seed + i``) in games with hidden information, else all rotations of a
round with one chance seed (``seed``, ``seed + 1``, ... per round; ``deals``
chooses), and writes every record as soon as its game ends. :func:`duel`
(``boardlab duel``) alternates two agents and gives game i the seed ``seed + i``.
"""
from __future__ import annotations

import fcntl
import json
import math
import os
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from functools import partial
from types import SimpleNamespace

from ..agents.base import load_agents_from, loaded_agent_sources
from ..core.errors import BoardlabError, RecordError
from ..core.record import load as load_record
from ..core.registry import make
from .executor import execute, stop_pool, stoppable, worker_start
from .game_runner import TimeControl, run_game
from .ratings import Sprt
from .schedule import side_scores, sides_of
from .tournament import Progress, game_task, schedule_of, standings, tournament_config


def play_game(spec: str, agent_specs: list[str], seed: int, max_actions: int | None = None):
    """Play one game; ``agent_specs[s]`` plays seat s. Returns (returns, actions)."""
    result = run_game(spec, agent_specs, seed, max_actions=max_actions)
    return result.returns, result.actions


def _sides(game, a_first: bool):
    """Seat -> side (0 = agent A) with the sides alternating over seats or teams."""
    groups = sides_of(game)
    if len(groups) != 2:
        raise BoardlabError(f"a duel needs two sides: {game.spec} has {len(groups)}")
    side_of = {seat: side for side, seats in enumerate(groups) for seat in seats}
    return [(side_of[s] + (0 if a_first else 1)) % 2 for s in range(game.num_seats)]


def _one(args):
    """A's score in one game of a duel, its length, and its forfeit (side 0 or 1, why)."""
    spec, a, b, seed, index, in_process = args
    game = make(spec)
    sides = _sides(game, index % 2 == 0)
    result = run_game(spec, [a if side == 0 else b for side in sides], seed,
                      in_process=in_process)
    mine = [r for r, side in zip(result.returns, sides) if side == 0]
    theirs = [r for r, side in zip(result.returns, sides) if side == 1]
    score = 0.5 if max(mine) == max(theirs) else 1.0 if max(mine) > max(theirs) else 0.0
    forfeit = result.forfeit and (sides[game.seat_names.index(result.forfeit["seat"])],
                                  f"{result.forfeit['kind']}: {result.forfeit['reason']}")
    return score, result.actions, forfeit


def wilson_interval(points: float, games: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a win rate (draws count half)."""
    if games == 0:
        return 0.0, 1.0
    p = points / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / \
        (1 + z * z / games)
    return max(0.0, min(centre - half, p)), min(1.0, max(centre + half, p))   # no float slip


def duel(spec: str, a: str, b: str, games: int, seed: int = 1, jobs: int = 1, progress=None,
         in_process: bool = False):
    """Agent A against agent B over ``games`` games, seats alternating (every game
    with a deal of its own: game i has the chance seed ``seed + i``).

    Returns a dict with A's points (win 1, draw 0.5), rate, interval, mean length and
    ``forfeits``: per side (A, B), the games lost by a crash, a timeout or an illegal
    action, with the first reason. ``in_process``: see ``run_game``.
    """
    _sides(make(spec), True)                     # two sides, or a clear error now
    tasks = [(spec, a, b, seed + i, i, in_process) for i in range(games)]
    results = []
    if jobs > 1:
        for result in _in_pool(tasks, jobs):
            results.append(result)
            if progress:
                progress(len(results), games, sum(r[0] for r in results))
    else:
        for task in tasks:
            results.append(_one(task))
            if progress:
                progress(len(results), games, sum(r[0] for r in results))
    points = sum(r[0] for r in results)
    low, high = wilson_interval(points, games)
    return {"spec": spec, "a": a, "b": b, "games": games, "points": points,
            "rate": points / games if games else 0.0, "interval": (low, high),
            "mean_actions": sum(r[1] for r in results) / max(1, games),
            "forfeits": [_forfeits_of(results, side) for side in (0, 1)]}


def _in_pool(tasks: list[tuple], jobs: int):
    """The duel's games in a pool of ``jobs`` worker processes, their results in the
    tasks' order. Stopped early (Ctrl-C, SIGTERM, an error), the games not started are
    cancelled and the running ones stopped with SIGTERM (each unwinds and kills its
    engines) instead of played to their end."""
    pool = ProcessPoolExecutor(jobs, initializer=_duel_worker_start,
                               initargs=(loaded_agent_sources(),))
    futures, finished = [pool.submit(stoppable, _one, task) for task in tasks], False
    try:
        for future in futures:
            yield future.result()
        finished = True
    finally:
        if not finished:
            stop_pool(pool, futures)
        pool.shutdown(wait=True, cancel_futures=True)


def _duel_worker_start(sources) -> None:
    """A duel's worker: the caller's agent modules loaded, its signals as every pool
    worker's (``executor.worker_start``)."""
    load_agents_from(sources)
    worker_start()


def _forfeits_of(results, side: int) -> tuple[int, str]:
    """How many games ``side`` forfeited, and why the first one was."""
    reasons = [r[2][1] for r in results if r[2] and r[2][0] == side]
    return len(reasons), reasons[0] if reasons else ""


@dataclass
class MatchOutcome:
    """The finished games of a match (rows like the database's), and why it stopped."""

    rows: list
    standings: list
    stopped: str = ""


def run_match(spec: str, participants: dict[str, str], games: int, seed: int = 1,
              time_control: TimeControl | None = None, jobs: int = 1,
              out_dir: str | None = None, ray_address: str | None = None,
              sprt: Sprt | None = None, on_game=None, resume: bool = False,
              play: bool = True, deals: str | None = None,
              in_process: bool = False) -> MatchOutcome:
    """One participant per side, rotating over the sides game by game.

    Every record is written to ``out_dir`` as ``game-0001.json`` ... as soon as
    its game ends; while it plays, the match holds ``out_dir`` (a second match
    on the same folder is refused). With ``resume``, the games whose records
    are already in ``out_dir`` (the same match: spec, players, seed and time control
    checked) count as played and only the others are played; ``play=False``
    only counts them (a report, safe while the match is still being played).
    With ``sprt`` (two sides only) the match stops as soon as the test decides,
    and ``stopped`` says which way. ``deals`` and ``in_process``: see
    ``tournament_config``.
    """
    if games < 1:
        raise BoardlabError(f"--games must be at least 1, not {games}")
    config = tournament_config(spec, participants, "match", rounds=1, seed=seed,
                               time_control=time_control, deals=deals,
                               in_process=in_process)
    game, names = make(config["game"]), list(participants)
    if sprt is not None and len(sides_of(game)) != 2:
        raise BoardlabError("an SPRT needs a game with two sides")
    schedule = schedule_of({**config, "rounds": -(-games // len(names))})[:games]
    tasks = [game_task(config, game, g, {"match_game": g.index + 1}) for g in schedule]
    _check_folder(out_dir, resume, play)
    rows: list[SimpleNamespace] = []
    stopped, total = "", len(tasks)
    with _holding(out_dir) if out_dir and play else nullcontext():
        if resume or not play:            # read under the hold: no match adds records now
            assert out_dir is not None, "_check_folder wants a folder to resume or report"
            rows, tasks = _already_played(game, tasks, out_dir)
            tasks = tasks if play else []
        for task, result in execute(tasks, jobs, ray_address):
            row = _store_row(game, task, result, out_dir)
            rows.append(row)
            if on_game:
                so_far = partial(standings, game, names, rows[:])
                on_game(Progress(len(rows), total, so_far,
                                 {**result, "sides": row.sides, "scores": row.scores}))
            stopped = _sprt_decision(sprt, names, rows)
            if stopped:
                break
    rows.sort(key=lambda r: r.idx)
    return MatchOutcome(rows, standings(game, names, rows), stopped)


def _already_played(game, tasks: list[dict], out_dir: str) -> tuple[list, list[dict]]:
    """The rows of the games whose records ``out_dir`` holds, and the tasks still to play."""
    done = {task["index"]: _stored_result(task, out_dir) for task in tasks}
    rows = [_store_row(game, task, result, None)
            for task in tasks if (result := done[task["index"]]) is not None]
    return rows, [task for task in tasks if done[task["index"]] is None]


def _check_folder(out_dir: str | None, resume: bool, play: bool) -> None:
    """Make ``out_dir`` for a match that plays; refuse a folder that does not fit.

    A resume or a report needs the folder; a new match never writes over the
    records of another one.
    """
    if not out_dir:
        if resume or not play:
            raise BoardlabError("resuming a match needs the folder of its records (--out)")
        return
    if not play:
        if not os.path.isdir(out_dir):
            raise BoardlabError(f"no records to report: {out_dir} is not a folder")
        return
    os.makedirs(out_dir, exist_ok=True)
    if not resume and any(name.startswith("game-") for name in os.listdir(out_dir)):
        raise BoardlabError(f"{out_dir} already holds the records of a match: --resume "
                            f"goes on with it, --report sums it up; or give another --out")


LOCK = ".match-lock"


@contextmanager
def _holding(out_dir: str):
    """Hold ``out_dir`` while a match writes to it; refuse if another match holds it.

    The hold is an ``flock`` on the lock file, so it ends with its process, even
    a killed one; the file also names the holder's process for the error.
    """
    path = os.path.join(out_dir, LOCK)
    handle = _lock(path, out_dir)
    os.ftruncate(handle, 0)
    os.write(handle, str(os.getpid()).encode())
    try:
        yield
    finally:
        try:
            os.remove(path)             # while still locked: see _lock
        except FileNotFoundError:
            pass
        os.close(handle)


def _lock(path: str, out_dir: str) -> int:
    """An open descriptor of ``path`` holding its exclusive lock.

    A file removed by its last holder between our open and our lock is not the
    lock any more: then open again.
    """
    while True:
        handle = os.open(path, os.O_CREAT | os.O_RDWR, 0o644)
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(handle, 32).decode(errors="replace").strip() or "?"
            os.close(handle)
            raise BoardlabError(f"{out_dir} is being written by another match (process "
                                f"{holder}); wait for it to end, or give another --out "
                                f"(--report reads the records so far)") from None
        try:
            if os.fstat(handle).st_ino == os.stat(path).st_ino:
                return handle
        except FileNotFoundError:
            pass
        os.close(handle)


def _stored_result(task: dict, out_dir: str) -> dict | None:
    """The result of a game already in ``out_dir`` (checked and replayed like any
    record), None if absent; an error if it belongs to another match."""
    path = os.path.join(out_dir, f"game-{task['index'] + 1:04d}.json")
    if not os.path.exists(path):
        return None
    try:
        record, state = load_record(path)
    except RecordError as error:
        raise BoardlabError(f"cannot resume from {path}: {error}") from None
    if (record["spec"], record.get("players"), record.get("seed")) != \
            (make(task["spec"]).spec, task["players"], task["seed"]):
        raise BoardlabError(f"cannot resume: {path} is a game of another match "
                            f"({record['spec']}, {record.get('players')}, "
                            f"seed {record.get('seed')}; give the match's own --seed and "
                            f"--deals)")
    played = (record.get("meta") or {}).get("time_control")
    wanted = TimeControl(**task["time_control"]).describe()
    if played is not None and played != wanted:
        raise BoardlabError(f"cannot resume: {path} was played at {played}, not {wanted} "
                            f"(give the match's own --move-time/--game-time)")
    return {"returns": state.returns(), "actions": len(record["moves"]), "record": record,
            "forfeit": (record.get("meta") or {}).get("forfeit"), "seconds": 0.0}


def _store_row(game, task: dict, result: dict, out_dir: str | None):
    row = SimpleNamespace(idx=task["index"], sides=task["meta"]["sides"], seed=task["seed"],
                          scores=side_scores(game, result["returns"]), **result)
    if out_dir:                    # whole or not at all: a resume trusts what it finds
        path = os.path.join(out_dir, f"game-{task['index'] + 1:04d}.json")
        with open(path + ".part", "w", encoding="utf-8") as handle:
            json.dump(result["record"], handle, indent=1)
            handle.write("\n")
        os.replace(path + ".part", path)
    return row


def _sprt_decision(sprt: Sprt | None, names: list[str], rows: list) -> str:
    """'' to go on, else the SPRT's decision about the first participant."""
    if sprt is None:
        return ""
    first = [r.scores[r.sides.index(names[0])] for r in rows]
    wins, draws = first.count(1.0), first.count(0.5)
    status, llr = sprt.status(wins, draws, len(first) - wins - draws)
    if status == "continue":
        return ""
    return f"SPRT accepted {status} (LLR {llr:.2f}) after {len(rows)} games"
