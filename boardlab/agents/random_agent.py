"""The uniformly random agent."""
from __future__ import annotations

from ..core.view import Budget, View
from .base import Agent, register_agent


@register_agent
class RandomAgent(Agent):
    """Picks uniformly among the legal actions of its view (seeded)."""

    name = "random"
    description = "uniformly random legal moves"

    def act(self, view: View, budget: Budget | None = None) -> int:
        legal = view["legal_actions"]
        if not legal:
            raise ValueError("random agent asked to move with no legal action")
        return self.rng.choice(legal)
