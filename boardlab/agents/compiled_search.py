"""The bridge between ``mcts`` and the compiled search (:mod:`.kernel_tree`).

Where a game's kernel offers a compiled view of the position, whole simulations run
compiled, a batch at a time; between batches the compiled root's statistics come back
to a Python :class:`~.search_node.Node`, where the budget, the early stop and the
solver work as in the Python tree.
"""
from __future__ import annotations

import random
import time

import numpy as np

from ..core.game import Game
from . import kernel_tree
from .budgets import CHECK_EVERY, Budgets, settled, simulations_left
from .search_node import Node, mover_of
from .solver import Solver, prove


class CompiledSearch(Budgets, Solver):
    """The compiled-search part of a search agent (a mixin of ``MCTS``): it keeps to the
    budget (``_limits``) and asks the solver (``_scan``, ``_choice``, ``_open``)."""

    game: Game
    options: dict
    rng: random.Random
    solving: bool
    simulations: int
    iterations_done: int
    roots: list
    root_history: list | None
    ktree: kernel_tree.Tree | None
    kroot: int | None
    kmoves: list | None
    _checked: set

    def _search_compiled(self, position, base, view, budget, called, totals) -> dict:
        """:meth:`_search` with the simulations run compiled (``kernel_tree``), a batch
        at a time; between batches the root's statistics go to a Python node
        (``self.roots[0]``), where the budget, the early stop and the solver's looks
        ahead (``_scan``, ``_choice``) work as in the Python tree, the moves they prove
        lost being banned from the next batches."""
        kernel, buf, scratch, n, nbr, aux, komi_half, seat_of_side = position
        legal = view["legal_actions"]
        seconds, limit = self._limits(budget)
        deadline = called + seconds if seconds else None
        tree, node = self._compiled_root(base)
        simulate = kernel_tree.simulator(kernel)
        size = self.game.num_actions + 1
        work = buf.copy()
        out = np.empty(size, dtype=np.int32)
        stamp = np.zeros(size + 1, dtype=np.int64)
        path = np.zeros(self.game.max_game_length + 2, dtype=np.int64)
        banned = np.zeros(size, dtype=np.uint8)
        sides = np.zeros(2)
        root = Node()
        self.roots, self.root_history = [root], list(view["history"])
        self._checked = set()
        if self.solving:
            self._scan(root, base)               # the moves that end the game at once
        done, start = 0, time.perf_counter()
        batch = 1 if root.proven is not None else CHECK_EVERY   # proven: one is enough
        while True:
            count = batch if not limit else min(batch, limit - done)
            while tree.used[0] + count + 1 >= tree.capacity:
                tree.grow()
            for action in root.lost or ():       # proven losses: never chosen at the root
                banned[action] = 1
            if root.proven is not None:          # proven: the simulations follow the proof
                banned[:] = 1
                banned[root.best] = 0
            ran = simulate(buf, work, scratch, n, nbr, aux, komi_half, out, stamp, path,
                             tree.links, tree.stats, tree.used, node, banned, count,
                             self.options["c"], self.options["urgency"], self.solving,
                             self.rng.randrange(2 ** 62), sides)
            done += ran
            self.simulations += ran
            self._shadow(root, tree.children(node), base, legal, seat_of_side)
            now = time.perf_counter()
            if limit and done >= limit or deadline and now >= deadline:
                break
            if self.solving and root.proven is not None and self.options["early_stop"]:
                break
            if self.solving:                     # the leader gets a look at its replies
                self._choice(root, base, legal)
            if self.options["early_stop"]:
                left = simulations_left(done, limit, start, now, deadline)
                if settled(root, self._open(root, legal), left):
                    break
            if deadline:                         # about a hundredth of the time left
                rate = done / max(now - start, 1e-9)
                batch = int(min(4 * CHECK_EVERY, max(CHECK_EVERY, rate * (deadline - now) / 100)))
            else:
                batch = 4 * CHECK_EVERY
        self.iterations_done = done
        if totals is not None:
            for side, seat in enumerate(seat_of_side):
                totals[seat] += sides[side]
        return {a: s for a, s in root.stats.items() if a in legal}

    def _shadow(self, root, children, base, legal, seat_of_side):
        """Give the Python ``root`` the compiled root's statistics, a child node for each
        tried action (for ``_check``) and the proofs found below it (``prove``)."""
        root.stats = {a: [v, w, v] for a, (v, w, _) in children.items()}
        mover = None
        for action, (_, _, worth) in children.items():
            child = root.children.get(action)
            if child is None:
                child = root.children[action] = Node()
            if worth is None or child.proven is not None:
                continue
            returns = [0.0, 0.0]
            returns[seat_of_side[0]], returns[seat_of_side[1]] = worth[0], -worth[0]
            child.proven, child.plies = tuple(float(r) for r in returns), worth[1]
            if mover is None:
                mover = mover_of(base)
            prove(root, action, legal, mover, self.game.utility_bounds)

    def _compiled_root(self, base):
        """The compiled tree and the node of ``base``: the subtree of the moves played
        since the last search where ``reuse`` keeps it, else a new tree."""
        moves = [move[1] for move in base.history]
        tree, node = self.ktree, self.kroot
        if self.options["reuse"] and tree is not None and self.kmoves is not None and \
                moves[:len(self.kmoves)] == self.kmoves and \
                tree.used[0] < kernel_tree.REUSE_NODES:
            for action in moves[len(self.kmoves):]:
                node = tree.child(node, action) if node else 0
        else:
            node = 0
        if not node:
            tree = kernel_tree.Tree()
            node = tree.root
        self.ktree, self.kroot, self.kmoves = tree, node, moves
        return tree, node
