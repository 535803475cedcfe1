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
from ..core.view import View


def state_from_view(game: Game, view: View, rng: random.Random) -> State:
    """A state consistent with ``view`` (exact for perfect information)."""
    if not (game.perfect_information or game.can_sample):
        raise BoardlabError(f"{game.spec}: this agent cannot search a game with hidden "
                            f"information it cannot sample")
    if game.perfect_information:              # exact: nothing to draw
        return game.determinize(view, 0)
    return game.determinize(view, rng.randrange(2**31))


def pregame_hint(state: State, rng: random.Random) -> int | None:
    """The game's own choice in a pre-game phase it knows how to play (a komi bid), else None."""
    return state.pregame_action(rng.randrange(2**31))


class Sampler:
    """Further states consistent with one view, each as cheap as it can be.

    ``base`` is a determinization of the view. With ``worlds=0`` a state
    that can ``redeal(viewer, seed)`` what the viewer cannot see (Cartagena)
    gives a new, independent sample every time at the cost of a copy. With
    ``worlds=K`` (and always for a state that cannot redeal, such as CTOR's
    secret squares, where a determinization replays the game; there
    ``K=64`` when 0 is asked for) the first ``K`` samples are new and later
    ones cycle through them, so every move of the search is tried on the
    same few worlds.
    """

    FALLBACK_WORLDS = 64

    def __init__(self, base: State, view: View, rng: random.Random, worlds: int = 0):
        self.base, self.view, self.rng = base, view, rng
        self.fresh = worlds == 0 and base.game.cheap_resample
        self.size = worlds or self.FALLBACK_WORLDS
        self.pool: list[State] = [base]
        self.drawn = 0

    def sample(self) -> State:
        self.drawn += 1
        if self.fresh:
            return self._new()
        if len(self.pool) < self.size:
            self.pool.append(self._new())
            return self.pool[-1].clone()
        return self.pool[self.drawn % self.size].clone()

    def _new(self) -> State:
        """A new, independent sample of the view."""
        if self.base.game.cheap_resample:
            state = self.base.clone()
            state.redeal(self.view["seat"], self.rng.randrange(2**31))
            return state
        return state_from_view(self.base.game, self.view, self.rng)
