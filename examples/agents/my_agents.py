"""Agents of your own, in Python: load them with ``--agents-from``.

    boardlab play carteso --size 9 --vs lowest --agents-from examples/agents/my_agents.py
    boardlab match "rumbo(size=7)" lowest "onestep(keep=0.5)" --games 20 --jobs 2 \\
        --agents-from examples/agents/my_agents.py

An agent is made for a game and a seat. ``act`` gets that seat's view (plain
data: never another seat's secrets) and a budget, and returns one of
``view["legal_actions"]``. Options are declared like the built-in agents' and
given in the spec: ``onestep(keep=0.5)``.
"""
from boardlab.agents import Agent, register_agent
from boardlab.agents.search_state import state_from_view
from boardlab.core.options import Option


@register_agent
class Lowest(Agent):
    """Always the legal action with the lowest number: predictable, for testing."""

    name = "lowest"
    description = "the legal action with the lowest number (an example)"

    def act(self, view, budget=None):
        return min(view["legal_actions"])


@register_agent
class OneStep(Agent):
    """Looks one action ahead on a state rebuilt from the view (a sample of the hidden
    cards or squares where there are any), keeping a random action now and then."""

    name = "onestep"
    description = "one action ahead by the game's heuristic, sometimes random (an example)"
    declared_options = (Option("keep", float, 0.0, "chance of a random legal action instead",
                               minimum=0, maximum=1),)

    def act(self, view, budget=None):
        legal = view["legal_actions"]
        if self.rng.random() < self.options["keep"]:
            return self.rng.choice(legal)
        state = state_from_view(self.game, view, self.rng)

        def value(action):
            child = state.clone()
            child.apply(action, seat=self.seat)
            return child.returns()[self.seat] if child.is_terminal() else \
                child.heuristic(self.seat)
        return max(legal, key=value)
