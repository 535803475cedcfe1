"""``mcts(evaluator=ntuple)`` outside the compiled search: the n-tuple network's value
of a state read through the game's vector kernel (:class:`.kernel_observe.
KernelObserver`); a position it cannot read so (not in play, several seats to act) is
valued by a random rollout instead."""
from __future__ import annotations

import random

from ..core.game import Game, State
from .kernel_observe import KernelObserver
from .ntuple import NTupleNet


class NTupleEvaluator:
    """Leaf values from an n-tuple network (see the module)."""

    name = "ntuple"

    def __init__(self, game: Game, net: NTupleNet):
        self.game, self.net = game, net
        self.observer = KernelObserver.for_game(game, net.features.encoder)

    def evaluate(self, state: State, rng: random.Random) -> list[float]:
        acting = state.acting_seats()
        obs = self.observer.encode(state, acting[0]) \
            if self.observer is not None and len(acting) == 1 else None
        if obs is None:
            return state.rollout(rng.randrange(2**31))
        v = self.net.value(obs, acting[0])
        return [v, -v]
