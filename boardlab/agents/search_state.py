"""Turning a view back into a state an agent may search (never the real one).

Perfect-information games replay the view's public history; games with
hidden information sample a full state consistent with the view
(``game.determinize``): the agent only ever sees what its seat may know.
:class:`Sampler` gives further samples of the same view cheaply.
"""
from __future__ import annotations

import random

from ..core.errors import BoardlabError
from ..core.game import Game, State


def state_from_view(game: Game, view: dict, rng: random.Random) -> State:
    """A state consistent with ``view`` (exact for perfect information)."""
    if hasattr(game, "determinize"):
        return game.determinize(view, rng.randrange(2**31))
    if not game.perfect_information:
        raise BoardlabError(f"{game.spec}: this agent cannot search a game with hidden "
                            f"information it cannot sample")
    state = game.new_initial_state(seed=0)
    for text in view["history"]:
        state.play(text)
    return state


class Sampler:
    """Further states consistent with one view, each as cheap as it can be.

    ``base`` is a determinization of the view. A state that can
    ``redeal(viewer, seed)`` what the viewer cannot see (Cartagena) gives a
    new, independent sample at the cost of a copy. Otherwise (CTOR's secret
    squares, where a determinization replays the game) the first ``pool``
    samples are new determinizations and later ones cycle through them.
    """

    def __init__(self, base: State, view: dict, rng: random.Random, pool: int = 64):
        self.base, self.view, self.rng, self.size = base, view, rng, pool
        self.pool: list[State] = [base]
        self.drawn = 0

    def sample(self) -> State:
        self.drawn += 1
        if hasattr(self.base, "redeal"):
            state = self.base.clone()
            state.redeal(self.view["seat"], self.rng.randrange(2**31))
            return state
        if len(self.pool) < self.size:
            self.pool.append(state_from_view(self.base.game, self.view, self.rng))
            return self.pool[-1].clone()
        return self.pool[self.drawn % self.size].clone()
