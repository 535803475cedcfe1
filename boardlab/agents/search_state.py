"""Turning a view back into a state an agent may search (never the real one).

Perfect-information games replay the view's public history; games with
hidden information sample a full state consistent with the view
(``game.determinize``): the agent only ever sees what its seat may know.
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
