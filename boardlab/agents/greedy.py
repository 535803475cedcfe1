"""One-ply greedy play on the game's own heuristic (``State.heuristic``)."""
from __future__ import annotations

from ..core.view import Budget, View
from .base import Agent, register_agent
from .search_state import pregame_hint, state_from_view


@register_agent
class GreedyAgent(Agent):
    """Tries every legal action once and keeps the best by the game's heuristic.

    A pre-game phase the game knows how to play (the komi bid) uses the game's
    own choice, as search does: one ply of a heuristic cannot price a komi.
    """

    name = "greedy"
    description = "one ply ahead, by each game's heuristic (claimed points, progress, chips)"

    def act(self, view: View, budget: Budget | None = None) -> int:
        state = state_from_view(self.game, view, self.rng)
        action = pregame_hint(state, self.rng)
        if action is not None:
            return action
        best, best_value = [], None
        for action in view["legal_actions"]:
            child = state.clone()
            child.apply(action, seat=self.seat)
            value = child.returns()[self.seat] * 2 if child.is_terminal() else \
                child.heuristic(self.seat)
            if best_value is None or value > best_value:
                best, best_value = [action], value
            elif value == best_value:
                best.append(action)
        return self.rng.choice(best)
