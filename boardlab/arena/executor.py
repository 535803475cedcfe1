"""Run many games: in this process, in a local process pool, or on a Ray cluster
(:mod:`~boardlab.arena.ray_runner`).

A task is a plain dict (``spec``, ``players``, ``seed``, ``time_control``,
``index``, ``in_process``), so it travels to other processes and machines unchanged; the
result is a plain dict too. :func:`execute` yields ``(task, result)`` as games
finish, in any order; the caller stores them. Stopping early (an
exception or Ctrl-C in the caller) cancels the games not yet started.
"""
from __future__ import annotations

import itertools
import multiprocessing
import os
import signal
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from collections.abc import Iterable, Iterator

from ..agents.base import load_agents_from, loaded_agent_sources
from .game_runner import TimeControl, run_game


def play_task(task: dict, agents_from: tuple[str, ...] = ()) -> dict:
    """Play the game a task describes (runs in a worker, which first imports the
    agent modules the caller had loaded: ``--agents-from``)."""
    load_agents_from(agents_from)
    control = TimeControl(**task.get("time_control", {}))
    result = run_game(task["spec"], task["players"], task["seed"], control,
                      max_actions=task.get("max_actions"), meta=task.get("meta"),
                      in_process=task.get("in_process", False))
    return {"returns": result.returns, "actions": result.actions, "record": result.record,
            "forfeit": result.forfeit, "seconds": result.seconds}


def execute(tasks: Iterable[dict], jobs: int = 1, ray_address: str | None = None,
            batch: int | None = None) -> Iterator[tuple[dict, dict]]:
    """Yield ``(task, result)`` for every task as it finishes.

    ``ray_address``: None for this machine's process pool of ``jobs`` workers;
    ``"local"`` for a one-machine Ray instance started here with ``jobs`` CPUs;
    anything else is a Ray cluster address (``"auto"``, ``"ray://host:10001"``); there
    ``batch`` games go in one Ray task (None: sized from the games' length; see
    :mod:`~boardlab.arena.ray_runner`), and each result names its ``node``.
    """
    tasks, sources = list(tasks), loaded_agent_sources()
    if ray_address is not None:
        from .ray_runner import on_ray

        yield from on_ray(tasks, ray_address, jobs, sources, batch)
    elif jobs <= 1:
        for task in tasks:
            yield task, play_task(task)
    else:
        yield from _in_pool(tasks, jobs, sources)


def worker_start() -> None:
    """In each pool worker: Ctrl-C is the parent's business; SIGTERM unwinds cleanly.

    Unwinding runs the game runner's ``finally``, which kills the game's engines; the
    worker then exits (:func:`stoppable`).
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def stop(signum, frame):
        global _stopping
        _stopping = True
        raise SystemExit(1)
    signal.signal(signal.SIGTERM, stop)


_stopping = False           # this pool worker got SIGTERM (worker_start)


def stoppable(function, *args):
    """``function(*args)`` in a pool worker. A worker stopped by SIGTERM leaves once the
    call has unwound: the pool catches any exception of a call, SystemExit too, and
    would hand the worker its next game."""
    try:
        return function(*args)
    finally:
        if _stopping:
            os._exit(1)


def _in_pool(tasks: list[dict], jobs: int, sources) -> Iterator[tuple[dict, dict]]:
    """At most ``jobs`` games at once, and as many more waiting in the pool, so a worker
    that finishes a game starts the next at once, while the caller stores the result (a
    database commit can take longer than a short game); new ones are submitted as others
    finish, before their results go to the caller.

    The workers come from a fork server (no threads or database connections of
    this process are inherited). If the caller stops early (Ctrl-C, an SPRT
    decision, an error), games not started are cancelled and running ones are
    stopped with SIGTERM, which lets them kill their engines.
    """
    context = multiprocessing.get_context("forkserver")
    pool = ProcessPoolExecutor(jobs, mp_context=context, initializer=worker_start)
    pending, queue, finished = {}, iter(tasks), False

    def submit(count: int) -> None:
        for task in itertools.islice(queue, count):
            pending[pool.submit(stoppable, play_task, task, sources)] = task
    try:
        submit(2 * jobs)
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                task = pending.pop(future)
                result = future.result()
                submit(1)                         # the pool stays full while we store
                yield task, result
        finished = True
    finally:
        if not finished:
            stop_pool(pool, pending)
        pool.shutdown(wait=True, cancel_futures=True)


def stop_pool(pool: ProcessPoolExecutor, pending: Iterable[Future]) -> None:
    """Cancel the ``pending`` games not started and stop the pool's workers with
    SIGTERM (:func:`worker_start`: each unwinds, killing its game's engines)."""
    for future in pending:
        future.cancel()
    for process in list(getattr(pool, "_processes", {}).values()):
        try:
            process.terminate()                   # SIGTERM: the worker unwinds
        except (OSError, ValueError):
            pass
