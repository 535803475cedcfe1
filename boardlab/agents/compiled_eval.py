"""A network search run compiled (:mod:`.kernel_eval_tree`), driven from Python.

:class:`CompiledNet` holds one game's compiled leaf (the kernel's observation and the
packed network) and runs batches of PUCT simulations from a position that offers
the compiled search's view (``State.search_kernel``); ``mcts(evaluator=net)`` uses it
where :func:`kernel_eval_tree.available` holds (``CompiledSearch``), the benchmark
(``boardlab bench --eval``) to time it part by part.
"""
from __future__ import annotations

import numpy as np

from ..core.game import Game, State
from ..nn.features import BoardFeatures
from ..nn.net import Network
from . import kernel_eval_tree as ket


class CompiledNet:
    """The compiled PUCT search of ``game`` with ``network`` (see the module)."""

    def __init__(self, game: Game, network: Network, features: BoardFeatures | None = None,
                 c_puct: float = 1.5, fpu: float = 0.2, priors: bool = True,
                 mix: float = 0.0, c: float = 0.0):
        features = features or BoardFeatures(game)
        features.scale = network.scale
        self.game, self.network, self.features = game, network, features
        self.c_puct, self.fpu, self.priors, self.mix = c_puct, fpu, priors, mix
        self.c = c or game.exploration       # UCB's, where priors=false
        self.leaf = ket.prepare(game, network, features)
        kernel = game.vector_kernel()
        assert kernel is not None             # (ket.prepare refuses a game without one)
        self.functions = kernel.functions
        self.last_tree: ket.EvalTree | None = None

    @classmethod
    def for_game(cls, game: Game, network: Network, features: BoardFeatures | None = None,
                 **options) -> CompiledNet | None:
        """The compiled search of ``game``, or None where its leaves cannot be observed in
        compiled code (:func:`kernel_eval_tree.available`)."""
        return cls(game, network, features, **options) if ket.available(game) else None

    def compiled(self, kernel) -> tuple:
        """``kernel_eval_tree.compiled``'s functions for the search kernel ``kernel``."""
        return ket.compiled(kernel, self.functions)

    def start(self, state: State, seed: int = 0):
        """The search of ``state`` (a position that offers ``search_kernel``): a
        :class:`Run` whose :meth:`Run.simulate` runs batches; None where it offers none."""
        position = state.search_kernel()
        if position is None:
            return None
        history = state.history
        return Run(self, position, len(history), history[-1][1] if history else -1, seed)

    def search(self, state: State, simulations: int, seed: int = 0) -> dict:
        """``{action: (visits, value, prior)}`` at the root after ``simulations``."""
        run = self.start(state, seed)
        if run is None:
            raise ValueError(f"{self.game.spec}: this position offers no compiled search")
        run.simulate(simulations)
        return run.children()


class Run:
    """One search (a cleared tree, the arrays of the last one: a new :meth:`CompiledNet.
    start` ends this one) and its batches of simulations."""

    def __init__(self, owner: CompiledNet, position: tuple, moves: int, last: int,
                 seed: int = 0):
        kernel, buf, scratch, n, nbr, aux, komi_half, seat_of_side = position
        self.owner = owner
        self.simulator = owner.compiled(kernel)[2]
        self.args = (buf, buf.copy(), scratch, n, nbr, aux, int(komi_half))
        self.out = np.empty(owner.game.num_actions + 1, dtype=np.int32)
        self.path = np.zeros(owner.game.max_game_length + 2, dtype=np.int64)
        self.seat_of_side = np.asarray(seat_of_side, dtype=np.int64)
        self.moves, self.last = moves, last
        if owner.last_tree is None:
            owner.last_tree = ket.EvalTree()
        self.tree = owner.last_tree              # one search at a time: its arrays kept
        self.tree.clear()
        self.results = np.zeros(2)
        self.done = 0
        self.seed = seed % 2 ** 62
        self.rng = np.zeros(1, dtype=np.uint64)     # the compiled loop's random state

    def simulate(self, count: int) -> int:
        """Run ``count`` simulations (the tree grows as needed); return how many ran."""
        tree, owner, ran = self.tree, self.owner, 0
        while ran < count:
            while tree.used[0] + self.out.shape[0] + 2 >= tree.capacity:
                tree.grow()
            ran += self.simulator(*self.args, self.out, self.path, tree.links, tree.stats,
                                  tree.used, tree.root, count - ran, owner.c_puct,
                                  owner.fpu, self.seat_of_side, self.moves, self.last,
                                  owner.leaf, self.results, not owner.priors, owner.c,
                                  owner.mix, self.seed, self.rng)
        self.done += ran
        return ran

    def children(self) -> dict:
        """``{action: (visits, value, prior)}`` of the root."""
        return self.tree.children(self.tree.root)
