"""Agents both ways between boardlab and OpenSpiel (``pip install boardlab[openspiel]``).

- :class:`OpenSpielAgent` (agent spec ``openspiel(bot=mcts, time=1)``, ``bot=ismcts``
  for hidden information: its samples come from the game's own sampler): an OpenSpiel
  bot playing a seat in ``boardlab match``/``tournament``. Importing this module
  registers it; on the command line load it with ``--agents-from
  boardlab.interop.agents``. Like every agent it gets only its seat's view: the
  position it hands the bot is ``game.determinize(view, seed)`` (the view's history
  replayed when nothing is hidden, a state sampled consistently with the view
  otherwise), wrapped as an OpenSpiel state.
- :class:`BoardlabBot`: any boardlab agent spec as a ``pyspiel.Bot`` for OpenSpiel
  games made by :mod:`boardlab.interop.openspiel`; it sees only
  ``state.view(player)``.

OpenSpiel's Python MCTS and ISMCTS count simulations, not seconds: with ``time`` set, the
agent measures its own rate on each move and sizes the next move's simulations to
fit the time (the first move uses ``simulations``).
"""
from __future__ import annotations

import time as clock

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from ..agents.base import Agent, make_agent, register_agent
from ..core.errors import BoardlabError
from ..core.options import Option
from ..core.view import Budget, View
from . import openspiel as adapter

BOTS = ("mcts", "ismcts", "random")


def openspiel_game(game) -> adapter.BoardlabOpenSpielGame:
    """The OpenSpiel game of a boardlab game (same configuration)."""
    return adapter.load(game.spec)


def openspiel_state(os_game, native) -> adapter.BoardlabOpenSpielState:
    """An OpenSpiel state standing for the boardlab state ``native`` (which it owns).

    OpenSpiel's own history of it is empty: the bots here only clone it and play
    on from it."""
    state = os_game.new_initial_state()
    state.native = native
    return state


@register_agent
class OpenSpielAgent(Agent):
    """An OpenSpiel bot as a boardlab agent."""

    name = "openspiel"
    description = ("an OpenSpiel bot: its Python MCTS or ISMCTS (random rollouts), or "
                   "uniform random")
    declared_options = (
        Option("bot", str, "mcts", "which OpenSpiel bot", choices=BOTS),
        Option("time", float, 0.0, "seconds per move (0: a fixed number of simulations)",
               minimum=0),
        Option("simulations", int, 1000, "(IS)MCTS simulations per move (the first move's, "
               "with a time set)", minimum=1),
        Option("rollouts", int, 1, "random rollouts per (IS)MCTS leaf", minimum=1),
        Option("uct_c", float, 2.0, "(IS)MCTS exploration constant", minimum=0),
    )

    def __init__(self, game, seat, seed=None, **options):
        super().__init__(game, seat, seed=seed, **options)
        self.os_game = openspiel_game(game)
        self.np_rng = np.random.RandomState(self.rng.randrange(2 ** 31))
        self.simulations = self.options["simulations"]
        bot = self.options["bot"]
        if bot != "random" and \
                self.os_game.get_type().dynamics != pyspiel.GameType.Dynamics.SEQUENTIAL:
            raise BoardlabError(f"openspiel(bot={bot}): OpenSpiel's {bot.upper()} plays "
                                f"sequential games only, and {game.spec} has simultaneous rounds")
        if bot == "ismcts" and not game.can_sample and not game.perfect_information:
            raise BoardlabError(f"openspiel(bot=ismcts): {game.spec} cannot sample states "
                                f"from a view")

    def act(self, view: View, budget: Budget | None = None) -> int:
        legal = view["legal_actions"]
        if self.options["bot"] == "random" or len(legal) == 1:
            return int(self.rng.choice(legal))
        native = self.game.determinize(view, seed=self.rng.randrange(2 ** 31))
        state = openspiel_state(self.os_game, native)
        bot = self._bot()
        started = clock.perf_counter()
        action = int(bot.step(state))
        spent = clock.perf_counter() - started
        if self.options["time"] > 0:          # size the next move's search to the time
            rate = self.simulations / max(spent, 1e-6)
            self.simulations = max(1, int(rate * self.options["time"]))
        if action not in legal:
            raise BoardlabError(f"openspiel bot chose {action}, not a legal action here")
        return action


    def _bot(self) -> pyspiel.Bot:
        evaluator = mcts.RandomRolloutEvaluator(self.options["rollouts"], self.np_rng)
        if self.options["bot"] == "ismcts":    # resamples through the game's own sampler
            return ismcts.ISMCTSBot(self.os_game, evaluator, self.options["uct_c"],
                                    self.simulations, random_state=self.np_rng,
                                    allow_inconsistent_action_sets=True)
        return mcts.MCTSBot(self.os_game, self.options["uct_c"], self.simulations, evaluator,
                            random_state=self.np_rng, solve=False)


class BoardlabBot(pyspiel.Bot):
    """A boardlab agent (a spec such as ``mcts(time=1)``) as an OpenSpiel bot for one
    player of a game made by :mod:`boardlab.interop.openspiel`."""

    def __init__(self, os_game, player: int, spec: str, seed: int | None = None):
        pyspiel.Bot.__init__(self)
        self.player = player
        self.spec = spec
        self.seed = seed
        self.agent = make_agent(spec, os_game.boardlab, player, seed=seed)
        self.os_game = os_game

    def step(self, state):
        return int(self.agent.act(state.view(self.player)))

    def restart_at(self, state):
        self.agent.close(None)
        self.agent = make_agent(self.spec, self.os_game.boardlab, self.player, seed=self.seed)

    def inform_action(self, state, player, action):
        """Agents read the whole view on each move: nothing to keep."""

    def provides_policy(self):
        return False

    def is_clonable(self):
        return False
