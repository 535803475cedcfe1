"""Run many games: in this process, in a local process pool, or on a Ray cluster.

A task is a plain dict (``spec``, ``players``, ``seed``, ``time_control``,
``index``), so it travels to other processes and machines unchanged; the
result is a plain dict too. :func:`execute` yields ``(task, result)`` as games
finish, in any order; the caller stores them. Stopping early (an
exception or Ctrl-C in the caller) cancels the games not yet started.
"""
from __future__ import annotations

from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from typing import Iterable, Iterator

from ..core.errors import BoardlabError
from .game_runner import TimeControl, run_game


def play_task(task: dict) -> dict:
    """Play the game a task describes (runs in a worker)."""
    control = TimeControl(**task.get("time_control", {}))
    result = run_game(task["spec"], task["players"], task["seed"], control,
                      max_actions=task.get("max_actions"), meta=task.get("meta"))
    return {"returns": result.returns, "actions": result.actions, "record": result.record,
            "forfeit": result.forfeit, "seconds": result.seconds}


def execute(tasks: Iterable[dict], jobs: int = 1,
            ray_address: str | None = None) -> Iterator[tuple[dict, dict]]:
    """Yield ``(task, result)`` for every task as it finishes.

    ``ray_address``: None for this machine's process pool of ``jobs`` workers;
    ``"local"`` for a one-machine Ray instance started here with ``jobs`` CPUs;
    anything else is a Ray cluster address (``"auto"``, ``"ray://host:10001"``).
    """
    tasks = list(tasks)
    if ray_address is not None:
        yield from _on_ray(tasks, ray_address, jobs)
    elif jobs <= 1:
        for task in tasks:
            yield task, play_task(task)
    else:
        yield from _in_pool(tasks, jobs)


def _in_pool(tasks: list[dict], jobs: int) -> Iterator[tuple[dict, dict]]:
    """At most ``jobs`` games at once; new ones are submitted as others finish."""
    pending, queue = {}, iter(tasks)
    with ProcessPoolExecutor(jobs) as pool:
        try:
            for task in queue:
                pending[pool.submit(play_task, task)] = task
                if len(pending) >= jobs:
                    break
            while pending:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    task = pending.pop(future)
                    yield task, future.result()
                    for task in queue:
                        pending[pool.submit(play_task, task)] = task
                        break
        finally:
            for future in pending:
                future.cancel()


def _on_ray(tasks, address, jobs) -> Iterator[tuple[dict, dict]]:
    """The same on Ray (which has no local_mode any more: "local" starts a real instance)."""
    try:
        import ray
    except ImportError:
        raise BoardlabError("--ray needs Ray: pip install 'boardlab[ray]'") from None
    started_here = not ray.is_initialized()
    if started_here:
        options = {"include_dashboard": False, "num_cpus": max(1, jobs)} \
            if address == "local" else {"address": address}
        ray.init(ignore_reinit_error=True, log_to_driver=False, **options)
    remote = ray.remote(play_task)
    try:
        refs = {remote.remote(task): task for task in tasks}
        while refs:
            done, _ = ray.wait(list(refs), num_returns=1)
            for ref in done:
                yield refs.pop(ref), ray.get(ref)
    finally:
        for ref in refs:
            try:
                ray.cancel(ref, force=True)
            except Exception:                     # already finished
                pass
        if started_here:
            ray.shutdown()
