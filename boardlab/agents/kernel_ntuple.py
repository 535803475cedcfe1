"""The compiled search with an n-tuple network valuing its leaves (``evaluator=ntuple``).

:mod:`.kernel_eval_tree`'s compiled simulations (UCB1 selection, untried actions
first, the leaf observed from the search's own buffer by the game's vector kernel),
with :func:`boardlab.nn.ntuple.value` where the convolutional network's forward pass
was: a few hundred table lookups a leaf. ``mix`` adds a share of a random playout's
result as there. :class:`CompiledNTuple` plays :class:`~.compiled_eval.CompiledNet`'s
part for :class:`~.compiled_eval.Run` and ``mcts`` (``compiled_net_search``).
"""
from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from ..core.game import Game
from ..nn import ntuple
from ..nn.ntuple import NTupleNet
from . import kernel_eval_tree as ket
from .compiled_eval import CompiledNet

# placeholders: each compiled copy gets a game's own (see :func:`compiled`)
observe_leaf: Any = None
search_turn: Any = None
ntuple_value = ntuple.value


def _evaluate_ntuple(buf, moves, last, seat, leaf, policy):
    """``leaf.values`` of the search's position ``buf``: the n-tuple value of the side
    to move's seat ``seat`` and its negation for the other (two seats)."""
    observe_leaf(buf, moves, last, seat, leaf)
    mover = search_turn(buf)
    v = ntuple_value(leaf.obs, mover, leaf.net)        # side 0's value
    own = v if mover == 0 else -v
    leaf.values[seat] = own
    leaf.values[1 - seat] = -own


_COMPILED: dict = {}


def compiled(kernel, functions) -> tuple:
    """``(evaluate, simulate)`` compiled for the search kernel ``kernel`` and the vector
    kernel ``functions`` (cached on disk under a name that changes with the sources)."""
    key = (kernel.__name__, functions.__name__)
    if key not in _COMPILED:
        digest = hashlib.sha1(Path(__file__).read_bytes() +
                              Path(ntuple.__file__).read_bytes()).hexdigest()[:8]
        name = f"{ket._cache_name(kernel, functions)}_nt{digest}"
        observe = ket.compiled(kernel, functions)[0]
        glob = dict(globals(), observe_leaf=observe, search_turn=kernel.search_turn)
        evaluate = ket._copy(_evaluate_ntuple, glob, name)
        sim_glob = dict(ket._simulate.__globals__)
        sim_glob.update({k: getattr(kernel, k) for k in
                         ("search_over", "search_turn", "search_legal", "search_play",
                          "search_lead", "search_playout")})
        sim_glob.update(_evaluate=evaluate, observe_leaf=observe)
        _COMPILED[key] = (evaluate, ket._copy(ket._simulate, sim_glob, name + "n"))
    return _COMPILED[key]


class CompiledNTuple(CompiledNet):
    """The compiled UCB1 search of ``game`` with the n-tuple network ``net`` at its leaves
    (``mix``: a share of a random playout's result)."""

    def __init__(self, game: Game, net: NTupleNet, mix: float = 0.0, c: float = 0.0):
        self.game, self.features = game, net.features
        self.network: Any = None                 # (no convolutional network here)
        self.c_puct, self.fpu, self.priors, self.mix = 0.0, 0.0, False, mix
        self.c = c or game.exploration
        kernel = game.vector_kernel()
        assert kernel is not None
        base = ket.prepare_observer(game, net.features)
        self.leaf = base._replace(net=net.pack(), work=())
        self.functions = kernel.functions
        self.last_tree = None
        self.net = net

    @classmethod
    def for_ntuple(cls, game: Game, net: NTupleNet, **options) -> CompiledNTuple | None:
        """The compiled search, or None where its leaves cannot be observed compiled."""
        return cls(game, net, **options) if ket.available(game) else None

    def compiled(self, kernel) -> tuple:
        """``(observe_leaf, evaluate, simulate)`` as :meth:`CompiledNet.compiled` gives."""
        evaluate, simulate = compiled(kernel, self.functions)
        return (None, evaluate, simulate)

    def leaf_value(self, state) -> float:
        """Seat 0's value of ``state`` (in play, offering the compiled search) as the
        compiled search values a leaf (for tests)."""
        position = state.search_kernel()
        kernel = position[0]
        evaluate = self.compiled(kernel)[1]
        history = state.history
        side = int(kernel.search_turn(position[1]))
        seat = int(position[7][side])
        evaluate(position[1], len(history), history[-1][1] if history else -1, seat,
                 self.leaf, False)
        return float(self.leaf.values[0])

