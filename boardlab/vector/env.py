"""Many games of one configuration stepped in one compiled call (see the package's text)."""
from __future__ import annotations

import random
from typing import NamedTuple

import numpy as np

from ..core.errors import BoardlabError, IllegalMoveError
from ..core.game import Game
from ..core.registry import make as make_game
from ..nn.encoding import ViewEncoder
from . import loop
from ..nn.kernel_layout import layout


class IllegalActionError(IllegalMoveError):
    """An action of a batch that is not legal in its game: ``env_index`` and ``action``
    say which; nothing was stepped."""

    def __init__(self, message: str, env_index: int, action: int):
        super().__init__(message, move=action, reason="not a legal action")
        self.env_index = env_index
        self.action = action


class Step(NamedTuple):
    """What :meth:`VectorEnv.reset` and :meth:`VectorEnv.step` return, one row per game.

    The arrays are the environment's own, read-only, rewritten by the next call:
    copy what you keep."""

    obs: np.ndarray          # float32 (n, size): the view of ``seat``, encoded
    mask: np.ndarray         # bool (n, num_actions): the legal actions of ``seat``
    rewards: np.ndarray      # float32 (n, seats): the returns on the step that ends a game
    terminated: np.ndarray   # bool (n,): the game ended at this step
    truncated: np.ndarray    # bool (n,): always false (games end by their own rules)
    seat: np.ndarray         # int32 (n,): the seat to act (at the end: the last to move)


def _read_only(array: np.ndarray) -> np.ndarray:
    view = array.view()
    view.flags.writeable = False
    return view


class VectorEnv:
    """``n`` games of one configuration, stepped together (:func:`make`)."""

    def __init__(self, game: Game, n: int, seed: int | None = None):
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise BoardlabError(f"a vector environment needs n >= 1 games, not {n!r}")
        kernel = game.vector_kernel()
        if kernel is None:
            raise BoardlabError(f"{game.spec} has no vector kernel: only configurations in "
                                f"which the seat to act sees all it needs, and plays alone, "
                                f"are offered (see docs/interop.md)")
        if game.new_initial_state(seed=0).is_terminal():
            raise BoardlabError(f"{game.spec}: the game is over before it starts (a set-up "
                                f"with no move left), so there is nothing to step")
        self.game, self.n, self.kernel = game, n, kernel
        self.encoder = ViewEncoder(game)
        self.layout = layout(game.spec, self.encoder, kernel)
        self.num_actions = game.num_actions
        self.num_seats = game.num_seats
        self.observation_size = self.encoder.size
        self._run = loop.stepper(kernel.functions)
        self._sample = loop.sampler(kernel.functions)
        initial = np.asarray(kernel.initial)
        if kernel.row_dtype is not None:                  # every value fits (the kernel's word)
            initial = initial.astype(kernel.row_dtype)
        self._initial = initial
        self._rows = np.empty((n, len(initial)), dtype=initial.dtype)
        self._rng = np.zeros(n, dtype=np.uint64)
        self._episode = np.zeros(n, dtype=np.int64)
        self._done = np.zeros(n, dtype=np.bool_)
        self._legal = np.zeros((n, self.num_actions), dtype=np.int32)
        self._counts = np.zeros(n, dtype=np.int64)
        store = np.zeros(-(-n * self.num_actions // 8) * 8, dtype=np.bool_)
        self._mask_flat = store[:n * self.num_actions]        # every mask, one by one,
        self._mask_words = store.view(np.uint64)              # and as words (sample)
        self._masks = self._mask_flat.reshape(n, self.num_actions)
        self._obs = np.zeros((n, self.observation_size), dtype=np.float32)
        self._rewards = np.zeros((n, self.num_seats), dtype=np.float32)
        self._terminated = np.zeros(n, dtype=np.bool_)
        self._truncated = np.zeros(n, dtype=np.bool_)
        self._seats = np.zeros(n, dtype=np.int32)
        self._no_actions = np.zeros(n, dtype=np.int64)
        self._sampler = np.zeros(1, dtype=np.uint64)
        self._seed = seed
        self._step = Step(*(_read_only(a) for a in (
            self._obs, self._masks, self._rewards, self._terminated, self._truncated,
            self._seats)))
        self._started = False

    def __repr__(self) -> str:
        return f"<VectorEnv {self.game.spec} n={self.n}>"

    @property
    def episode_seeds(self) -> np.ndarray:
        """The seed of each game now played (``game.new_initial_state(seed)`` starts it
        the same way)."""
        return _read_only(self._episode)

    def reset(self, seed: int | None = None) -> Step:
        """Start every game afresh; with ``seed``, reseed first (else the seed given to
        :func:`make` the first time, then the generators carry on)."""
        if seed is not None or not self._started:
            chosen = self._seed if seed is None else seed
            if chosen is None:
                chosen = random.randrange(2 ** 63)
            loop.seed_all(np.uint64(int(chosen) & (2 ** 64 - 1)), self._rng)
            self._sampler[0] = np.uint64((int(chosen) * 0x9E3779B97F4A7C15 + 1)
                                         & (2 ** 64 - 1)) or np.uint64(1)
        self._started = True
        self._call(self._no_actions, True)
        return self._step

    def step(self, actions) -> Step:
        """Play ``actions[i]`` in game ``i``; a game that ended at the previous call is
        reset instead (its action ignored, its row the new game's first position).
        An action that is not legal raises :class:`IllegalActionError` naming the
        first such game, and nothing is stepped."""
        if not self._started:
            raise BoardlabError("call reset() before step()")
        acts = np.asarray(actions)
        if acts.shape != (self.n,) or not np.issubdtype(acts.dtype, np.integer):
            raise BoardlabError(f"step() takes {self.n} integer actions, one per game "
                                f"(got an array of {acts.dtype} and shape {acts.shape})")
        acts = acts.astype(np.int64, copy=False)
        bad = loop.first_illegal(acts, self._done, self._masks)
        if bad >= 0:
            action = int(acts[bad])
            raise IllegalActionError(
                f"environment {bad}: action {action} is not legal there "
                f"({self._reason(bad, action)}); nothing was stepped", bad, action)
        self._call(acts, False)
        return self._step

    def _reason(self, index: int, action: int) -> str:
        if not 0 <= action < self.num_actions:
            return f"outside 0..{self.num_actions - 1}"
        return f"{self._count(index)} legal actions there, see the mask"

    def _count(self, index: int) -> int:
        count = int(self._counts[index])
        return count if count >= 0 else -1 - count

    def _call(self, actions: np.ndarray, every: bool) -> None:
        lay, kernel = self.layout, self.kernel
        self._run(self._rows, kernel.tables, self._initial, self._rng, self._episode,
                  actions, every, self._done, self._legal, self._counts, self._masks,
                  self._obs, self._rewards, self._terminated, self._seats, lay.planes_at,
                  lay.cells_at, lay.scalars_at)

    def sample(self) -> np.ndarray:
        """A uniformly random legal action for every game (0 for a game that just ended),
        from the environment's own generator (seeded with it)."""
        out = np.empty(self.n, dtype=np.int64)
        self._sample(self._rows, self.kernel.tables, self._counts, self._legal, self._masks,
                     self._mask_flat, self._mask_words, self._sampler, out)
        return out

    def legal_actions(self, index: int) -> list[int]:
        """The legal actions of game ``index`` now, in the game's own order."""
        if not 0 <= index < self.n:
            raise BoardlabError(f"no game {index!r}: there are {self.n}, from 0")
        count = int(self._counts[index])
        if count >= 0:
            return self._legal[index, :count].tolist()
        out = np.zeros(self.num_actions, dtype=np.int32)
        count = self.kernel.functions.vec_legal(self._rows[index], self.kernel.tables, out)
        return out[:count].tolist()


def make(spec: str | Game, n: int, seed: int | None = None) -> VectorEnv:
    """``n`` games of the configuration ``spec`` (a spec string or a made Game), stepped
    together; ``seed`` makes every game and :meth:`VectorEnv.sample` reproducible."""
    game = make_game(spec) if isinstance(spec, str) else spec
    if not isinstance(game, Game):
        raise BoardlabError(f"make() takes a spec or a Game, not {spec!r}")
    return VectorEnv(game, n, seed)
