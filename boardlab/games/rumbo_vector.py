"""Rumbo's vector kernel (``Game.vector_kernel``): the rules are ``rumbo_kernel``'s; here
only the row's own entries and the observation (see ``territory_vector``)."""
from __future__ import annotations

from numba import njit

from . import rumbo_kernel as K
from .kernels import rng_below, rng_next
from .territory_vector import (C_BASE, C_KOMI, C_N, X_LAST, X_MOVES, observe, observe_step,
                               returns, scalars)
from .territory_vector import search_row as search_row   # the compiled search's leaves
from .territory_vector import state_row as state_row   # the observer's (nn.kernel_observe)


@njit(cache=True, inline="always")
def vec_reset(row, tables, initial, seed):
    row[:] = initial


@njit(cache=True, inline="always")
def vec_legal(row, tables, out):
    nbr, degree, cfg = tables
    return K.legal(row, cfg[C_N], nbr, degree, out)


@njit(cache=True, inline="always")
def vec_mask_step(row, tables, action, mask, count):
    """The mask after the placement ``action`` (the game goes on). A point's legality
    reads the point and what its empty neighbours' stone counts say (the holes a stone
    next to them would make); the placement fills its cell and changes its neighbours'
    counts, so only its cell, its empty neighbours and their empty neighbours can
    change (a stone's count makes no hole). Returns the new count."""
    nbr, degree, cfg = tables
    n = cfg[C_N]
    P = n * n
    x = action % P
    count -= (1 if mask[x] else 0) + (1 if mask[P + x] else 0)
    mask[x] = False
    mask[P + x] = False
    ob = K.META + K.A_BOARD * P
    for d in range(4):
        q = nbr[x, d]
        if q < 0 or row[ob + q] != K.EMPTY:
            continue
        count += _recheck(row, n, nbr, degree, q, mask)
        for e in range(4):
            y = nbr[q, e]
            if y >= 0 and y != x and row[ob + y] == K.EMPTY:
                count += _recheck(row, n, nbr, degree, y, mask)
    return count


@njit(cache=True, inline="always")
def _recheck(row, n, nbr, degree, y, mask):
    """Write the empty point ``y``'s legality for both colours to the mask; how many
    legal actions that adds (or, negative, takes away)."""
    P = n * n
    black, white = K.legal_colours(row, n, nbr, degree, y)
    change = (1 if black else 0) - (1 if mask[y] else 0) + (1 if white else 0) \
        - (1 if mask[P + y] else 0)
    mask[y] = black
    mask[P + y] = white
    return change


@njit(cache=True, inline="always")
def vec_play(row, tables, action):
    nbr, degree, cfg = tables
    n = cfg[C_N]
    P = n * n
    K.place_inline(row, n, nbr, action % P, 1 + action // P)    # (every action places)
    base = cfg[C_BASE]
    row[base + X_MOVES] += 1
    row[base + X_LAST] = action


@njit(cache=True, inline="always")
def vec_player(row, tables):
    return -1 if row[K.M_NEMPTY] == 0 else row[K.M_TURN]


@njit(cache=True, inline="always")
def vec_returns(row, tables, out):
    returns(K.search_lead(row), tables[2][C_KOMI], out)


@njit(cache=True, inline="always")
def vec_observe(row, tables, seat, obs, planes_at, cells_at, scalars_at):
    cfg = tables[2]
    n = cfg[C_N]
    P = n * n
    observe(row, n, K.META + K.A_BOARD * P, K.META + K.A_PARENT * P,
            K.META + K.A_OWNER * P, cfg[C_BASE], obs, planes_at, cells_at, K.M_SCORE_V)
    scalars(row, cfg, 2 * row[K.M_SCORE_V], 2 * row[K.M_SCORE_H] + cfg[C_KOMI], obs,
            scalars_at)


@njit(cache=True, inline="always")
def vec_observe_step(row, tables, seat, obs, planes_at, cells_at, scalars_at):
    cfg = tables[2]
    n = cfg[C_N]
    P = n * n
    observe_step(row, n, tables[0], K.META + K.A_BOARD * P, K.META + K.A_PARENT * P,
                 K.META + K.A_OWNER * P, K.M_SCORE_V, cfg[C_BASE], obs, planes_at, cells_at)
    scalars(row, cfg, 2 * row[K.M_SCORE_V], 2 * row[K.M_SCORE_H] + cfg[C_KOMI], obs,
            scalars_at)
    return True


@njit(cache=True, inline="always")
def vec_sample(row, tables, mask, count, s):
    """A uniformly random legal action: a stone of a random colour on a random empty
    point from the row's list, drawn again while the mask says no (at most 16 draws,
    then ``-1``: the caller counts through the mask): ``(action, s)``."""
    n = tables[2][C_N]
    P = n * n
    empties = row[K.M_NEMPTY]
    at = K.META + K.A_EMPTY * P
    for _ in range(16):
        s = rng_next(s)
        r = rng_below(s, 2 * empties)
        action = row[at + (r >> 1)] + (r & 1) * P
        if mask[action]:
            return action, s
    return -1, s
