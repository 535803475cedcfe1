"""The compiled loops over all the games of a vector environment.

:func:`stepper` compiles :func:`_run` once per game kernel module (its ``vec_*``
functions become the loop's globals, as ``agents.kernel_tree`` does for the compiled
search), so that one call steps or resets every game, writing the legal actions,
the masks, the rewards and the observations into the environment's arrays.
:func:`sampler` compiles :func:`_sample` so too; :func:`first_illegal` is the same for
every game.
"""
from __future__ import annotations

import hashlib
import types
from typing import Any

import numpy as np
from numba import njit

from ..agents.kernel_tree import source_closure
from ..games.kernels import rng_below, rng_next, rng_seed
from .prefetch import prefetch

# The game's six functions (placeholders here: each compiled copy of the loop gets a
# kernel module's own; see ``stepper`` and ``core.game.VectorKernel``).
vec_reset: Any = None
vec_legal: Any = None
vec_play: Any = None
vec_player: Any = None
vec_returns: Any = None
vec_observe: Any = None
vec_observe_step: Any = None
vec_mask_step: Any = None
vec_sample: Any = None

NAMES = ("vec_reset", "vec_legal", "vec_play", "vec_player", "vec_returns", "vec_observe")
#: the optional ones, brought up to date in place after a move (the default where a
#: kernel module has none: always write afresh): the observation, and the mask
#: (and a random legal action picked from the row where it is cheaper than counting
#: through the mask)
OPTIONAL = {"vec_observe_step": "no_update", "vec_mask_step": "no_mask_update",
            "vec_sample": "no_sample"}


@njit(cache=True)
def no_update(row, tables, seat, obs, planes_at, cells_at, scalars_at):
    """``vec_observe_step`` of a kernel that has none: always write afresh."""
    return False


@njit(cache=True)
def no_mask_update(row, tables, action, mask, count):
    """``vec_mask_step`` of a kernel that has none: always write afresh."""
    return -1


@njit(cache=True)
def no_sample(row, tables, mask, count, s):
    """``vec_sample`` of a kernel that has none: count through the mask."""
    return -1, s


def _run(rows, tables, initial, rng, episode, actions, every, done, legal, counts, masks,
         obs, rewards, terminated, seats, planes_at, cells_at, scalars_at):
    """Step every game (``every`` false) or reset every game (``every`` true).

    A game that ended at the previous call (``done``) is reset and its action ignored
    (as EnvPool does); any other plays ``actions[i]``. Then each game's acting seat,
    or at the end the seat that moved last (``seats``), its rewards (the returns at
    the end, else 0), ``terminated``, its legal actions (``masks``, and how many in
    ``counts``) and the observation of the seat in ``seats``: after a move that did not
    end the game, each brought up to date in place where the kernel's ``vec_mask_step``
    and ``vec_observe_step`` can (the row's last mask and observation are still in
    ``masks`` and ``obs``), else written afresh. ``counts[i]`` is negative where the
    mask was brought up to date (then ``legal[i]`` is stale: the mask has the
    ``-1 - counts[i]`` legal actions), else the legal actions are ``legal[i, :counts[i]]``
    too."""
    nseats = rewards.shape[1]
    n = rows.shape[0]
    for i in range(n):
        if i + AHEAD < n:        # the rows of a game further on, into the cache meanwhile
            fetch_ahead(rows[i + AHEAD], obs[i + AHEAD], masks[i + AHEAD])
        row = rows[i]
        over = False
        fresh = True
        mover = 0
        if every or done[i]:
            s = rng_next(rng[i])
            rng[i] = s
            episode[i] = np.int64(s >> np.uint64(33))
            vec_reset(row, tables, initial, episode[i])
            rewards[i, :] = 0.0
            seat = vec_player(row, tables)
        else:
            mover = seats[i]
            vec_play(row, tables, actions[i])
            seat = vec_player(row, tables)
            if seat < 0:
                over = True
                vec_returns(row, tables, rewards[i])
                seat = mover
            else:
                rewards[i, :] = 0.0
                fresh = False
        done[i] = over
        terminated[i] = over
        seats[i] = seat
        mask = masks[i]
        count = -1
        if not fresh:
            before = counts[i]
            count = vec_mask_step(row, tables, actions[i], mask,
                                  before if before >= 0 else -1 - before)
        if count >= 0:
            counts[i] = -1 - count
        else:
            mask[:] = False
            count = 0
            if not over:
                out = legal[i]
                count = vec_legal(row, tables, out)
                for k in range(count):
                    mask[out[k]] = True
            counts[i] = count
        o = obs[i]
        if not fresh:            # the mover's view before: its header entries move on
            o[mover] = 0.0
            o[nseats + mover] = 0.0
            o[seat] = 1.0
            o[nseats + seat] = 1.0
            if vec_observe_step(row, tables, seat, o, planes_at, cells_at, scalars_at):
                continue
        o[:] = 0.0
        o[seat] = 1.0
        if over:
            best, worst = rewards[i, 0], rewards[i, 0]
            for s in range(1, nseats):
                best = max(best, rewards[i, s])
                worst = min(worst, rewards[i, s])
            if best > worst:
                for s in range(nseats):
                    if rewards[i, s] == best:
                        o[2 * nseats + s] = 1.0
            o[3 * nseats] = 1.0
        else:
            o[nseats + seat] = 1.0
        vec_observe(row, tables, seat, o, planes_at, cells_at, scalars_at)


#: how many games ahead :func:`_run` prefetches (a row, an observation and a mask of a
#: game of 9x9 Carteso are some 10 KB: a thousand games are past the core's own cache)
AHEAD = 3


@njit(cache=True, inline="always")
def fetch_ahead(row, seen, mask):
    """Ask for every cache line of a game's row, observation and mask (a step touches
    lines all over them, each a wait otherwise)."""
    for k in range(0, row.shape[0], 16):
        prefetch(row, k)
    for k in range(0, seen.shape[0], 16):
        prefetch(seen, k)
    for k in range(0, mask.shape[0], 64):
        prefetch(mask, k)


@njit(cache=True)
def first_illegal(actions, done, masks):
    """The index of the first game whose action is not legal (games that ended at the
    previous call are not asked), or -1."""
    size = masks.shape[1]
    for i in range(actions.shape[0]):
        if done[i]:
            continue
        a = actions[i]
        if a < 0 or a >= size or not masks[i, a]:
            return i
    return -1


@njit(cache=True)
def seed_all(seed, rng):
    """One generator state per game from ``seed``."""
    s = rng_seed(seed)
    for i in range(rng.shape[0]):
        s = rng_next(s)
        rng[i] = rng_seed(s ^ np.uint64(i))


def _sample(rows, tables, counts, legal, masks, flat, words, state, out):
    """A uniformly random legal action per game (0 where none: a game that ended),
    from the generator ``state[0]``: from the list ``legal[i]``, or where it is stale
    (``counts[i] < 0``, see :func:`_run`) from the kernel's ``vec_sample`` (the row's
    own lists), else the legal actions counted in increasing order in the mask
    (``flat``: every game's mask in a row, ``words``: the same memory as uint64,
    padded)."""
    s = state[0]
    size = legal.shape[1]
    for i in range(counts.shape[0]):
        count = counts[i]
        if count == 0:
            out[i] = 0
            continue
        if count > 0:
            s = rng_next(s)
            out[i] = legal[i, rng_below(s, count)]
            continue
        a, s = vec_sample(rows[i], tables, masks[i], -1 - count, s)
        if a < 0:
            s = rng_next(s)
            a = nth_set(flat, words, i * size, (i + 1) * size, rng_below(s, -1 - count))
        out[i] = a
    state[0] = s


_ONES = np.uint64(0x0101010101010101)


@njit(cache=True, inline="always")
def nth_set(flat, words, start, end, rank):
    """The index from ``start`` of the ``rank``-th true entry (from 0) of
    ``flat[start:end]`` (a bool array; there are more than ``rank``), eight entries
    at a time where aligned (a word of 0/1 bytes holds as many trues as its bytes
    sum to)."""
    b = start
    while b < end and b & 7:
        if flat[b]:
            if rank == 0:
                return b - start
            rank -= 1
        b += 1
    while b + 8 <= end:
        c = np.int64((words[b >> 3] * _ONES) >> np.uint64(56))
        if rank < c:
            break
        rank -= c
        b += 8
    while b < end:
        if flat[b]:
            if rank == 0:
                return b - start
            rank -= 1
        b += 1
    return -1


_COMPILED: dict = {}


def stepper(functions) -> Any:
    """:func:`_run` compiled with the functions of the kernel module ``functions``."""
    return _compiled(_run, functions)


def sampler(functions) -> Any:
    """:func:`_sample` compiled with the functions of the kernel module ``functions``."""
    return _compiled(_sample, functions)


def _compiled(loop_fn, functions) -> Any:
    """``loop_fn`` compiled with the ``vec_*`` functions of the module ``functions`` as
    its globals (cached on disk under a name that changes with the source of every
    module the compiled code reaches, as ``agents.kernel_tree.simulator`` does)."""
    digest = hashlib.sha1()
    for name, path in sorted(source_closure([functions.__name__, __name__]).items()):
        digest.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    key = f"{loop_fn.__name__}_{functions.__name__.rsplit('.', 1)[-1]}_" \
          f"{digest.hexdigest()[:10]}"
    if key not in _COMPILED:
        glob = dict(loop_fn.__globals__)
        glob.update({name: getattr(functions, name) for name in NAMES})
        glob.update({name: getattr(functions, name, globals()[default])
                     for name, default in OPTIONAL.items()})
        fn = types.FunctionType(loop_fn.__code__, glob, key)
        fn.__qualname__ = key
        fn.__module__ = __name__
        fn.__doc__ = loop_fn.__doc__
        _COMPILED[key] = njit(cache=True)(fn)
    return _COMPILED[key]
