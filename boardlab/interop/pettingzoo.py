"""Every boardlab game as a PettingZoo environment (``pip install boardlab[pettingzoo]``).

>>> from boardlab.interop import pettingzoo as bz         # doctest: +SKIP
>>> env = bz.env("cartagena", players=3)                    # doctest: +SKIP
>>> env.reset(seed=1)                                       # doctest: +SKIP

Agents are the seat names. An observation is ``{"observation": float32 vector,
"action_mask": int8 vector}``, both built only from ``state.view(seat)``
(:mod:`boardlab.nn.encoding`); the whole view is in ``infos[agent]["view"]``
when ``with_views=True``. Rewards are the game's returns, given once, when the game
ends (then every agent is terminated; games end by their own rules, so nothing is
truncated). ``reset(seed=...)`` seeds the game's own chance (Cartagena's deal) and
any chance node; ``render()`` is the spectator's text board.

:func:`env` is the AEC form (one agent acts at a time; in a simultaneous round the
acting seats commit one after another, and no seat sees another's pending choice).
:func:`parallel_env` is the Parallel form, for simultaneous rounds (CTOR's
``team_protocol=simultaneous``): each step takes an action from every agent and
applies those of the seats that act. Since ``parallel_seed_test`` samples actions
without masks, an illegal action in the Parallel form forfeits the game for that
seat's team (``infos[agent]["illegal"]`` says why), as PettingZoo's classic
environments do; pass ``illegal="raise"`` to get the :class:`IllegalMoveError`.
"""
from __future__ import annotations

import random

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv

from ..core.errors import BoardlabError
from ..core.game import Game
from ..core.registry import make
from ..nn.encoding import ViewEncoder

_ILLEGAL = ("forfeit", "raise")


def _game(name: str | Game, options: dict) -> Game:
    if isinstance(name, Game):
        if options:
            raise BoardlabError("options go with a game name, not with a made Game")
        return name
    return make(name, **options)


class _Table:
    """What both forms share: the game, its spaces, a state and how to observe it."""

    def __init__(self, game: Game, render_mode: str | None, with_views: bool):
        if render_mode not in (None, "ansi"):
            raise BoardlabError(f"render_mode {render_mode!r}: only 'ansi' (text) is offered")
        self.game = game
        self.render_mode = render_mode
        self.with_views = with_views
        self.encoder = ViewEncoder(game)
        self.possible_agents = list(game.seat_names)
        self.seat = {name: seat for seat, name in enumerate(self.possible_agents)}
        box = spaces.Box(-np.inf, np.inf, self.encoder.shape, np.float32)
        mask = spaces.Box(0, 1, (game.num_actions,), np.int8)
        self._observation_spaces = {a: spaces.Dict({"observation": box, "action_mask": mask})
                                    for a in self.possible_agents}
        self._action_spaces = {a: spaces.Discrete(game.num_actions) for a in self.possible_agents}
        self.state = None
        self._rng = random.Random()

    def new_game(self, seed: int | None) -> None:
        if seed is not None:
            self._rng = random.Random(seed)
        self.state = self.game.new_initial_state(seed=self._rng.randrange(2 ** 31))
        self.settle()

    def settle(self) -> None:
        """Resolve chance nodes (games with explicit chance) from the env's own generator."""
        while self.state.is_chance():
            self.state.apply(self.state.sample_chance(self._rng))

    def observe_seat(self, agent: str) -> dict:
        view = self.state.view(self.seat[agent])
        mask = np.zeros(self.game.num_actions, dtype=np.int8)
        mask[view["legal_actions"]] = 1
        return {"observation": self.encoder.encode(view), "action_mask": mask}

    def info(self, agent: str) -> dict:
        return {"view": self.state.view(self.seat[agent])} if self.with_views else {}

    def returns(self) -> dict:
        returns = self.state.returns()
        return {a: float(returns[s]) for a, s in self.seat.items()}

    def text(self) -> str | None:
        return None if self.state is None else self.state.render(seat=None)


class _OnTable:
    """The members both environments answer alike from their :class:`_Table`."""

    _table: _Table

    def _seat_table(self, game: Game, render_mode: str | None, with_views: bool) -> None:
        self._table = _Table(game, render_mode, with_views)
        self.game = game
        self.render_mode = render_mode
        self.metadata = dict(self.metadata, name=f"boardlab_{game.name}_v0")
        self.possible_agents = list(self._table.possible_agents)

    def observation_space(self, agent):
        return self._table._observation_spaces[agent]

    def action_space(self, agent):
        return self._table._action_spaces[agent]

    @property
    def state_now(self):
        """The boardlab State being played (for tests and analysis)."""
        return self._table.state

    def render(self):
        return self._table.text()

    def close(self):
        self._table.state = None


class BoardlabAEC(_OnTable, AECEnv):
    """A boardlab game as a PettingZoo AEC environment (see the module doc)."""

    metadata = {"render_modes": ["ansi"], "name": "boardlab_v0", "is_parallelizable": False}

    def __init__(self, game: Game, render_mode: str | None = None, with_views: bool = False):
        super().__init__()
        self._seat_table(game, render_mode, with_views)

    def reset(self, seed=None, options=None):
        self._table.new_game(seed)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: self._table.info(a) for a in self.agents}
        self._select()

    def _select(self) -> None:
        state = self._table.state
        if state.is_terminal():
            self.agent_selection = self.agents[0]
        else:
            self.agent_selection = self.possible_agents[state.acting_seats()[0]]

    def observe(self, agent):
        return self._table.observe_seat(agent)

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        table = self._table
        table.state.apply(int(action), seat=table.seat[agent])   # illegal: raises, no change
        table.settle()
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        if table.state.is_terminal():
            self.rewards = table.returns()
            self.terminations = dict.fromkeys(self.agents, True)
        self.infos = {a: table.info(a) for a in self.agents}
        self._select()
        self._accumulate_rewards()


class BoardlabParallel(_OnTable, ParallelEnv):
    """A boardlab game as a PettingZoo Parallel environment (see the module doc)."""

    metadata = {"render_modes": ["ansi"], "name": "boardlab_v0"}

    def __init__(self, game: Game, render_mode: str | None = None, with_views: bool = False,
                 illegal: str = "forfeit"):
        if illegal not in _ILLEGAL:
            raise BoardlabError(f"illegal={illegal!r}: choose one of {', '.join(_ILLEGAL)}")
        self._seat_table(game, render_mode, with_views)
        self.illegal = illegal
        self.agents = []

    def _observations(self) -> dict:
        return {a: self._table.observe_seat(a) for a in self.agents}

    def reset(self, seed=None, options=None):
        self._table.new_game(seed)
        self.agents = list(self.possible_agents)
        return self._observations(), {a: self._table.info(a) for a in self.agents}

    def step(self, actions):
        """Apply the actions of the seats acting now (others' actions are ignored)."""
        table, state = self._table, self._table.state
        infos = {a: table.info(a) for a in self.agents}
        for seat in state.acting_seats():
            agent = self.possible_agents[seat]
            if state.is_terminal() or seat not in state.acting_seats():
                continue                      # the round resolved: this choice came too late
            if agent not in actions:
                raise BoardlabError(f"no action for {agent}, who acts now")
            action = int(actions[agent])
            if action in state.legal_actions_for(seat) or self.illegal == "raise":
                state.apply(action, seat=seat)
                continue
            infos[agent] = dict(infos[agent], illegal=f"action {action} is not legal for {agent}")
            state.resign(seat, out_of_turn=True)
        table.settle()
        done = state.is_terminal()
        rewards = table.returns() if done else dict.fromkeys(self.agents, 0.0)
        observations = self._observations()
        terminations = dict.fromkeys(self.agents, done)
        truncations = dict.fromkeys(self.agents, False)
        infos = {a: dict(table.info(a), **{k: v for k, v in infos[a].items() if k != "view"})
                 for a in self.agents}
        if done:
            self.agents = []
        return observations, rewards, terminations, truncations, infos


def env(name: str | Game, render_mode: str | None = None, with_views: bool = False,
        **options) -> BoardlabAEC:
    """The AEC environment of a game by name or spec (``env("carteso", size=9)``)."""
    return BoardlabAEC(_game(name, options), render_mode=render_mode, with_views=with_views)


def parallel_env(name: str | Game, render_mode: str | None = None, with_views: bool = False,
                 illegal: str = "forfeit", **options) -> BoardlabParallel:
    """The Parallel environment of a game by name or spec (``parallel_env("ctor(size=8,
    teams=2v2,team_protocol=simultaneous)")``)."""
    return BoardlabParallel(_game(name, options), render_mode=render_mode,
                            with_views=with_views, illegal=illegal)
