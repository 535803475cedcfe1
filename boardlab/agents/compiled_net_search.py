"""The bridge between ``mcts(evaluator=net,compiled_net=true)`` and the compiled network
search (:mod:`.compiled_eval`, :mod:`.kernel_eval_tree`).

Where the game's leaves can be observed in compiled code (a vector kernel with
``search_row``) and the position offers the compiled search's view, whole PUCT
simulations run compiled, the network valuing each new leaf; between batches the
root's statistics come back to a Python :class:`~.search_node.Node`, where the budget
and the early stop work as in the Python tree. No solver and no reuse of the tree
between moves here.
"""
from __future__ import annotations

import random
import time
from typing import Any

import numpy as np

from ..core.game import Game
from .budgets import CHECK_EVERY, Budgets, settled, simulations_left
from .compiled_eval import CompiledNet
from .kernel_ntuple import CompiledNTuple
from .search_node import Node


class CompiledNetSearch(Budgets):
    """The compiled-network part of a search agent (a mixin of ``MCTS``)."""

    game: Game
    options: dict
    evaluator: Any
    rng: random.Random
    simulations: int
    iterations_done: int
    roots: list
    root_history: list | None
    cnet: CompiledNet | None
    fixed: bool

    def _compiled_net(self, given_evaluator) -> CompiledNet | None:
        """The compiled search of this agent's network where the options ask for it
        and the game allows it, else None (the Python tree)."""
        inner = getattr(self.evaluator, "first", self.evaluator)    # (under a blend)
        if self.options["evaluator"] == "ntuple":
            if not self.options["compiled"] or not self.fixed or \
                    given_evaluator is not None or self.options["playout"] != "random":
                return None
            return CompiledNTuple.for_ntuple(self.game, inner.net, mix=self.options["mix"],
                                             c=self.options["c"])
        network = getattr(inner, "network", None)
        if not self.options.get("compiled_net") or not self.fixed or \
                given_evaluator is not None or \
                self.options["evaluator"] != "net" or network is None or \
                self.options["net_at"] != "leaf" or self.options["playout"] != "random":
            return None
        return CompiledNet.for_game(self.game, network, getattr(inner, "features", None),
                                    c_puct=self.options["c_puct"], fpu=self.options["fpu"],
                                    priors=self.options["priors"], mix=self.options["mix"],
                                    c=self.options["c"])

    def _search_compiled_net(self, base, view, budget, called, totals) -> dict | None:
        """:meth:`_search` with PUCT simulations run compiled, a batch at a time; None
        where ``base`` offers no compiled search (the Python tree then)."""
        assert self.cnet is not None
        run = self.cnet.start(base, self.rng.randrange(2 ** 62))
        if run is None:
            return None
        legal = view["legal_actions"]
        seconds, limit = self._limits(budget)
        deadline = called + seconds if seconds else None
        root = Node()
        self.roots, self.root_history = [root], list(view["history"])
        done, start, batch = 0, time.perf_counter(), CHECK_EVERY
        while True:
            count = batch if not limit else min(batch, limit - done)
            ran = run.simulate(count)
            done += ran
            self.simulations += ran
            now = time.perf_counter()
            if limit and done >= limit or deadline and now >= deadline:
                break
            if self.options["early_stop"]:
                left = simulations_left(done, limit, start, now, deadline)
                if settled(_Entries(*run.tree.entries(run.tree.root)), legal, left):
                    break
            if deadline:                         # about a hundredth of the time left
                rate = done / max(now - start, 1e-9)
                batch = int(min(4 * CHECK_EVERY, max(CHECK_EVERY,
                                                      rate * (deadline - now) / 100)))
            else:
                batch = 4 * CHECK_EVERY
        root.stats = {a: [v, w, v] for a, (v, w, _) in run.children().items() if v}
        self.iterations_done = done
        if totals is not None:
            for side, seat in enumerate(run.seat_of_side.tolist()):
                totals[seat] += float(run.results[side])
        return {a: s for a, s in root.stats.items() if a in legal}


class _Entries:
    """The root's tried children as ``settled`` reads them (``Node.entries``), straight
    from the compiled tree's arrays (cheaper between batches than a Python node)."""

    def __init__(self, actions, visits, values):
        self.actions, self.visits, self.values = actions, visits, values

    def entries(self, legal) -> tuple[list, list]:
        tried = self.visits > 0
        tried &= np.isin(self.actions, np.asarray(legal))
        return self.visits[tried].astype(int).tolist(), self.values[tried].tolist()
