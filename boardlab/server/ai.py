"""AI seats think off the event loop: in worker processes, or in threads.

A request is plain data (the game's spec, the agent spec, the seat, a seed and
the seat's view with its budget), so it travels to a worker process unchanged.
The agent is made afresh for every move from a seed derived from the game's
seed, the seat and the version: after a restart the same request is asked
again and gives the same move.

An analysis (:func:`analyse`) runs the MCTS search of one position in the same
workers and answers with its estimate and most visited moves in notation.
"""
from __future__ import annotations

import asyncio
import ctypes
import multiprocessing
import os
import secrets
import signal
import sys
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from ..agents import make_agent
from ..agents.base import load_agents_from, loaded_agent_sources
from ..agents.mcts import ISMCTS, MCTS
from ..core.registry import make

ANALYSED_MOVES = 5         # the most visited moves an analysis lists


def request(spec: str, agent: str, seat: int, seed: int, version: int, view: dict,
            budget: dict | None) -> dict:
    """A thinking request for ``seat`` at ``version``."""
    return {"spec": spec, "agent": agent, "seat": seat, "view": view, "budget": budget,
            "seed": (seed * 1_000_003 + seat * 7_919 + version) % 2 ** 31}


def choose(task: dict) -> int:
    """The agent's action for the request (runs in a worker)."""
    game = make(task["spec"])
    agent = make_agent(task["agent"], game, task["seat"], seed=task["seed"])
    try:
        return agent.act(task["view"], task["budget"])
    finally:
        agent.close()


def analysis_request(spec: str, seat: int, view: dict, seconds: float) -> dict:
    """An analysis of ``view`` (the acting ``seat``'s) for ``seconds``. The search's
    seed is fresh (never derived from the game's)."""
    return {"spec": spec, "seat": seat, "view": view, "seconds": seconds,
            "seed": secrets.randbelow(2 ** 31)}


def analyse(task: dict) -> dict:
    """``{"estimate", "moves": [{"move", "visits", "win"}]}`` of an analysis request
    (runs in a worker): MCTS where nothing is hidden, information-set MCTS otherwise."""
    game = make(task["spec"])
    searcher = MCTS if game.perfect_information else ISMCTS
    agent = searcher(game, task["seat"], seed=task["seed"])
    view = task["view"]
    try:
        found = agent.analyse(view, {"time": task["seconds"]})
    finally:
        agent.close()
    notation = dict(zip(view["legal_actions"], view["legal"]))
    return {"estimate": found["estimate"],
            "moves": [{"move": notation[move["action"]], "visits": move["visits"],
                       "win": move["win"]} for move in found["moves"][:ANALYSED_MOVES]]}


PR_SET_PDEATHSIG = 1        # prctl(2): the signal a process gets when its parent ends


def worker_start(server: int, sources: tuple[str, ...]) -> None:
    """In each worker: end with the server, however it ends (a SIGKILL leaves no time to
    shut the pool down), then load the agent modules the server had loaded."""
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL))
        except (OSError, AttributeError):   # pragma: no cover - no prctl: as before
            pass
    if os.getppid() != server:              # the server ended before the line above
        os._exit(1)
    load_agents_from(sources)


class Thinker:
    """Runs :func:`choose` in ``processes`` worker processes (0: in threads)."""

    def __init__(self, processes: int = 1):
        self.pool = None
        self.processes = processes          # the workers (0: threads)
        if processes > 0:
            context = multiprocessing.get_context("spawn")    # no fork of a threaded server
            self.pool = ProcessPoolExecutor(processes, mp_context=context,
                                            initializer=worker_start,
                                            initargs=(os.getpid(), loaded_agent_sources()))
            for _ in range(processes):          # start the workers now, not at the first move
                self.pool.submit(int)

    async def think(self, task: dict) -> int:
        """The action the request's agent chooses."""
        if self.pool is None:
            return await asyncio.to_thread(choose, task)
        return await asyncio.get_running_loop().run_in_executor(self.pool, choose, task)

    async def analyse(self, task: dict) -> dict:
        """The answer to an analysis request."""
        return await self.run(analyse, task)

    async def run(self, function: Callable[[dict], Any], task: dict) -> Any:
        """``function(task)`` in a worker (a module-level function of plain data)."""
        if self.pool is None:
            return await asyncio.to_thread(function, task)
        return await asyncio.get_running_loop().run_in_executor(self.pool, function, task)

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)   # at most one move
