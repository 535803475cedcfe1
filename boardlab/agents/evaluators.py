"""Leaf evaluators for tree search: a state in, one value per seat out.

An evaluator is any object with ``evaluate(state, rng) -> list[float]``:
values in the game's return range ([-1, 1]), one per seat, for a state that
is not over. It may play on a copy but must leave ``state`` as it was. MCTS
takes one by name (``mcts(evaluator=heuristic)``) or, from Python, as an
object (``MCTS(game, seat, evaluator=MyNetwork())``).

>>> import boardlab, random
>>> state = boardlab.make("rumbo(size=5)").new_initial_state()
>>> len(RolloutEvaluator().evaluate(state, random.Random(1)))
2
"""
from __future__ import annotations

import random

from ..core.errors import OptionError
from ..core.game import State


class RolloutEvaluator:
    """Random play to the end through the game's fast kernel (``State.rollout``).

    ``turns`` caps games whose random play can run long: after that many
    more turns the position is valued as the game's ``rollout`` says (None:
    to the end). ``policy`` is one of the game's ``playouts`` (``random``:
    uniformly random legal actions).
    """

    name = "rollout"

    def __init__(self, turns: int | None = None, policy: str = "random",
                 horizon: bool = True):
        self.turns = turns
        self.policy = policy
        self.horizon = horizon
        self.until = None

    def begin(self, root: State) -> None:
        """Called by a search before a move's simulations, with the position searched:
        with ``horizon``, a game that offers one (``State.rollout_horizon``) gets every
        rollout of the search stopped at the same turn."""
        self.until = root.rollout_horizon(self.turns) \
            if self.horizon and self.turns is not None else None

    def evaluate(self, state: State, rng: random.Random) -> list[float]:
        if self.until is None:
            return state.rollout(rng.randrange(2**31), self.turns, self.policy)
        return state.rollout(rng.randrange(2**31), self.turns, self.policy, until=self.until)


class HeuristicEvaluator:
    """The game's own quick estimate (``State.heuristic``) for every seat: no playout."""

    name = "heuristic"

    def __init__(self, turns: int = 0, policy: str = "random", horizon: bool = True):
        del turns, policy, horizon                   # same signature as the others

    def evaluate(self, state: State, rng: random.Random) -> list[float]:
        return [state.heuristic(seat) for seat in range(state.game.num_seats)]


EVALUATORS = {cls.name: cls for cls in (RolloutEvaluator, HeuristicEvaluator)}


def make_evaluator(name: str, turns: int, policy: str = "random", horizon: bool = True):
    """The evaluator called ``name`` (``rollout`` or ``heuristic``)."""
    if name not in EVALUATORS:
        raise OptionError(f"unknown evaluator {name!r} (known: {', '.join(EVALUATORS)})")
    return EVALUATORS[name](turns, policy, horizon)
