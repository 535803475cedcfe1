"""Turning a view back into a state an agent may search (never the real one).

Perfect-information games replay the view's public history; games with
hidden information sample a full state consistent with the view
(``game.determinize``): the agent only ever sees what its seat may know.
A state that can ``redeal(viewer, seed)`` what the viewer cannot see gives
further samples cheaply from one such determinization.
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


def resampled(base: State, view: dict, rng: random.Random) -> State:
    """Another state consistent with ``view``; ``base`` is a determinization of it."""
    if hasattr(base, "redeal"):
        state = base.clone()
        state.redeal(view["seat"], rng.randrange(2**31))
        return state
    return state_from_view(base.game, view, rng)
