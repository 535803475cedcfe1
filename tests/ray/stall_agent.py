"""``stall(play=AGENT)``: plays as AGENT, but on the Ray node named in the file ``victim``
of ``$BOARDLAB_STALL_DIR`` its Nth game there (``stall_at``) stops before the first move
and waits to be killed with its node (tests/ray/test_cluster.py).

Self-play (tests/ray/test_selfplay.py) reads the search's figures of the agent it plays
as (``simulations``, ``root``, ``estimate``: None where that agent has none).

Only the agent of seat 0 counts the games, so a game counts once however many of its
seats the agent plays. Elsewhere, and with no victim named, it is AGENT and nothing else.
"""
from __future__ import annotations

import json
import os
import time

from boardlab.agents import make_agent
from boardlab.agents.base import Agent, register_agent
from boardlab.core.options import Option

#: a stalled game waits at most this long for its node to be killed, then fails
PATIENCE = 120.0


@register_agent
class StallAgent(Agent):
    name = "stall"
    description = "an agent that stalls in its Nth game on a chosen Ray node (tests only)"
    declared_options = (
        Option("play", str, "random", "the agent it plays as"),
        Option("stall_at", int, 4, "the game on the victim node that stalls", minimum=1),
    )

    def __init__(self, game, seat, seed=None, **options):
        super().__init__(game, seat, seed, **options)
        self.inner = make_agent(self.options["play"], game, seat, seed)
        self.seed, self.checked = seed, False

    def act(self, view, budget=None):
        if not self.checked:
            self.checked = True
            self._maybe_stall()
        return self.inner.act(view, budget)

    def close(self, returns=None):
        self.inner.close(returns)

    @property
    def simulations(self):
        return getattr(self.inner, "simulations", None)

    @property
    def root(self):
        return getattr(self.inner, "root", None)

    @property
    def estimate(self):
        return getattr(self.inner, "estimate", None)

    def _maybe_stall(self) -> None:
        folder = os.environ.get("BOARDLAB_STALL_DIR")
        if self.seat != 0 or not folder or not os.path.exists(f"{folder}/victim"):
            return
        import ray

        if not ray.is_initialized():
            return
        node = ray.get_runtime_context().get_node_id()
        with open(f"{folder}/victim") as file:
            if file.read().strip() != node:
                return
        open(f"{folder}/start-{self.seed}-{os.getpid()}-{time.monotonic_ns()}", "w").close()
        started = sum(name.startswith("start-") for name in os.listdir(folder))
        if started != self.options["stall_at"]:
            return
        with open(f"{folder}/stalled.tmp", "w") as file:
            json.dump({"seed": self.seed, "node": node, "pid": os.getpid()}, file)
        os.replace(f"{folder}/stalled.tmp", f"{folder}/stalled")
        deadline = time.monotonic() + PATIENCE
        while time.monotonic() < deadline:      # the node is killed meanwhile
            time.sleep(0.05)
        raise RuntimeError(f"node {node} was not killed within {PATIENCE:g} s")
