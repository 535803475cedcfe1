"""A vector environment as a Gymnasium ``VectorEnv`` (``pip install boardlab[pettingzoo]``
brings gymnasium).

>>> from boardlab.interop.gymnasium_vector import GymVectorEnv     # doctest: +SKIP
>>> envs = GymVectorEnv("carteso(size=5)", num_envs=8, seed=1)      # doctest: +SKIP
>>> obs, infos = envs.reset()                                       # doctest: +SKIP
>>> obs, rewards, terminated, truncated, infos = envs.step(actions)  # doctest: +SKIP

Gymnasium's vector API has one reward per environment: here the return of the seat that
made the move that ended the game (the seat whose view the final observation is), 0 on
every other step; ``infos["rewards"]`` has every seat's. ``infos["action_mask"]`` is the
legal-action mask and ``infos["seat"]`` the seat to act (an agent playing every seat, as
in self-play, reads its turn there). Games reset on the step after their end
(``metadata["autoreset_mode"]`` is ``NEXT_STEP``), as in :mod:`boardlab.vector`. The
arrays are the environment's own, rewritten at the next step.
"""
from __future__ import annotations

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from ..core.game import Game
from ..vector import Step, make


class GymVectorEnv(VectorEnv):
    """``num_envs`` games of one configuration as a Gymnasium vector environment."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(self, spec: str | Game, num_envs: int, seed: int | None = None):
        self.env = make(spec, num_envs, seed)
        self.num_envs = num_envs
        self.single_observation_space = spaces.Box(-np.inf, np.inf,
                                                   (self.env.observation_size,), np.float32)
        self.single_action_space = spaces.Discrete(self.env.num_actions)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)

    def _infos(self, step: Step) -> dict:
        return {"action_mask": step.mask, "seat": step.seat, "rewards": step.rewards}

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        step = self.env.reset(seed=seed)
        return step.obs, self._infos(step)

    def step(self, actions):
        step = self.env.step(actions)
        mover = step.rewards[np.arange(self.num_envs), step.seat]
        return step.obs, mover, step.terminated, step.truncated, self._infos(step)

    def action_masks(self) -> np.ndarray:
        """The legal actions of every game now (for maskable learners)."""
        return self.env._step.mask
