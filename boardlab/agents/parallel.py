"""Root parallelism: one move searched by several processes at once.

``mcts(workers=N)`` (and ``ismcts(workers=N)``) keeps N - 1 helper processes, each
with a search of its own (its own seed, its own tree, kept from move to move like the
agent's). For a move, every process searches the same view under the same budget;
their root statistics are then added up (:func:`merge`). Root parallelism shares
nothing while it searches, so it needs no locks and plays the same for the same seeds
under an iteration budget; its gain is that of more, partly redundant, simulations.

The helpers are fresh interpreters (nothing of the agent's process, such as a
server's threads or the real state of a game, is copied into them), started the
first time the agent acts and stopped by ``close``, or when the agent's process
exits (their pipe closes). A helper gets what the agent gets: the view and the
budget.
"""
from __future__ import annotations

import os
import subprocess
import sys
import time
from collections import Counter, defaultdict
from multiprocessing.connection import Connection
from pathlib import Path

from ..core.errors import BoardlabError
from ..core.view import Budget, View
from .search_types import SearchSummary

_PACKAGE_ROOT = str(Path(__file__).resolve().parents[2])
#: seconds past the move's time limit that the agent waits for its helpers' answers
GRACE = 0.05


class WorkerError(BoardlabError):
    """A helper process of a parallel search failed or went away."""


def _serve(inbox: Connection, outbox: Connection) -> None:
    """A helper's loop: its agent first, then ``(tag, view, budget, spent, sent)`` in and the
    search's summary out, until ``None`` or the end of the pipe (the agent's process is
    gone)."""
    from ..core.registry import make
    cls, spec, seat, seed, options = inbox.recv()
    agent = cls(make(spec), seat, seed=seed, **options)
    while True:
        try:
            message = inbox.recv()
        except (EOFError, KeyboardInterrupt):
            return
        if message is None:
            return
        tag, view, budget, spent, sent = message
        # the deadline the agent keeps: the time it had spent when it asked, and the time the
        # message waited (a helper still starting, a busy machine) are this search's too
        called = time.perf_counter() - spent - max(0.0, time.time() - sent)
        try:
            outbox.send({**agent.summary(view, budget, called), "tag": tag})
        except Exception as error:                   # told to the agent, which raises it
            outbox.send({"error": f"{type(error).__name__}: {error}", "tag": tag})


class Helpers:
    """The helper processes of one agent, one per seed.

    Each is a fresh interpreter (``python -m boardlab.agents.parallel``, not a fork:
    nothing of this process, such as a server's threads, its other games, or the main
    module of a script, is copied or imported), spoken to through two pipes.
    """

    def __init__(self, cls, spec: str, seat: int, seeds: list[int], options: dict):
        env = dict(os.environ)
        if not _PACKAGE_ROOT.endswith("-packages"):    # a source tree: the helper finds it
            env["PYTHONPATH"] = os.pathsep.join(filter(None, (_PACKAGE_ROOT,
                                                             env.get("PYTHONPATH"))))
        self.conns, self.processes, self.tag = [], [], 0
        try:
            for seed in seeds:
                down_r, down_w = os.pipe()
                up_r, up_w = os.pipe()
                process = subprocess.Popen(
                    [sys.executable, "-m", "boardlab.agents.parallel", str(down_r), str(up_w)],
                    pass_fds=(down_r, up_w), stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL, env=env)
                os.close(down_r)
                os.close(up_w)
                self.processes.append(process)
                self.conns.append((Connection(down_w, readable=False),
                                   Connection(up_r, writable=False)))
                self.conns[-1][0].send((cls, spec, seat, seed, options))
        except BaseException:
            self.close()
            raise

    def ask(self, view: View, budget: Budget | None, called: float) -> None:
        """Start every helper on a search of ``view`` (``gather`` collects them)."""
        self.tag += 1
        spent, sent = time.perf_counter() - called, time.time()
        for conn, _ in self.conns:
            try:
                conn.send((self.tag, view, budget, spent, sent))
            except OSError:
                raise WorkerError("a helper process of the parallel search went away") \
                    from None

    def gather(self, deadline: float | None) -> list[dict]:
        """The summaries of the search ``ask`` started, of every helper that answers by
        ``deadline`` (``time.perf_counter``; None: of all, however long they take). A
        late one (a helper still starting, on its first move) is left out; its answer is
        dropped when it comes."""
        answers = []
        for _, conn in self.conns:
            while True:
                left = None if deadline is None else max(0.0, deadline - time.perf_counter())
                if left is not None and not conn.poll(left):
                    break
                summary = self._answer(conn)
                if summary["tag"] == self.tag:
                    answers.append(summary)
                    break
        return answers

    @staticmethod
    def _answer(conn) -> dict:
        try:
            summary = conn.recv()
        except (EOFError, OSError):
            raise WorkerError("a helper process of the parallel search went away") from None
        if "error" in summary:
            raise WorkerError(f"a helper process of the parallel search failed: "
                              f"{summary['error']}")
        return summary

    def close(self) -> None:
        """Stop every helper (told to; killed if it has not gone in 5 s)."""
        for pair in self.conns:
            for conn in pair:
                try:
                    if conn.writable:
                        conn.send(None)
                    conn.close()
                except OSError:
                    pass
        for process in self.processes:
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self.conns, self.processes = [], []


def merge(summaries: list[SearchSummary], legal: list[int], rng) -> int:
    """The move of several searches of one position.

    A root that some search proved decides (a proof is exact, so every proof of it
    agrees on its value). Otherwise the move is the one with the most simulations in
    all, ties by the summed value, among the moves no search proved lost (all of them
    where all are); a move that no search tried is played only where every tried one
    is proven lost.
    """
    for summary in summaries:
        choice = summary["choice"]
        if summary["proven"] and choice is not None:    # (a proven root has a choice)
            return choice
    lost = set().union(*(summary["lost"] for summary in summaries))
    visits: Counter[int] = Counter()
    values: defaultdict[int, float] = defaultdict(float)
    for summary in summaries:
        for action, (count, value) in summary["stats"].items():
            visits[action] += count
            values[action] += value
    allowed = [a for a in legal if a not in lost] or list(legal)
    tried = [a for a in allowed if visits[a]]
    if not tried:
        return rng.choice(allowed)
    return max(tried, key=lambda a: (visits[a], values[a]))


if __name__ == "__main__":
    _serve(Connection(int(sys.argv[1]), writable=False),
           Connection(int(sys.argv[2]), readable=False))
