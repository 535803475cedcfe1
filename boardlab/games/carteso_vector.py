"""Carteso's vector kernel (``Game.vector_kernel``): the rules are ``carteso_kernel``'s;
here only the row's own entries and the observation (see ``territory_vector``)."""
from __future__ import annotations

from numba import njit

from . import carteso_kernel as K
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
    return K.legal(row, tables[3][C_N], out)


@njit(cache=True, inline="always")
def vec_play(row, tables, action):
    scratch, nbr, diag, cfg = tables
    n = cfg[C_N]
    P = n * n
    if action < 2 * P:                    # a placement, the kernel's own inlined
        K.place_inline(row, scratch, n, nbr, action % P, 1 + action // P)
    elif action == 2 * P:
        K.pass_turn(row)
    else:
        K.take_button(row)
    base = cfg[C_BASE]
    row[base + X_MOVES] += 1
    row[base + X_LAST] = action


@njit(cache=True, inline="always")
def vec_player(row, tables):
    return -1 if row[K.M_OVER] != 0 else row[K.M_TURN]


@njit(cache=True, inline="always")
def vec_returns(row, tables, out):
    returns(K.search_lead(row), tables[3][C_KOMI], out)


@njit(cache=True, inline="always")
def vec_observe(row, tables, seat, obs, planes_at, cells_at, scalars_at):
    cfg = tables[3]
    n = cfg[C_N]
    P = n * n
    observe(row, n, K.META + K.A_BOARD * P, K.META + K.A_PARENT * P,
            K.META + K.A_OWNER * P, cfg[C_BASE], obs, planes_at, cells_at, K.M_SCORE_V)
    _numbers(row, cfg, obs, scalars_at)


@njit(cache=True, inline="always")
def vec_observe_step(row, tables, seat, obs, planes_at, cells_at, scalars_at):
    cfg = tables[3]
    n = cfg[C_N]
    P = n * n
    observe_step(row, n, tables[1], K.META + K.A_BOARD * P, K.META + K.A_PARENT * P,
                 K.META + K.A_OWNER * P, K.M_SCORE_V, cfg[C_BASE], obs, planes_at, cells_at)
    _numbers(row, cfg, obs, scalars_at)
    return True


@njit(cache=True, inline="always")
def _numbers(row, cfg, obs, scalars_at):
    holder = row[K.M_BUTTON]
    scalars(row, cfg, 2 * row[K.M_SCORE_V] + (holder == 0),
            2 * row[K.M_SCORE_H] + cfg[C_KOMI] + (holder == 1), obs, scalars_at)
    if scalars_at[5] >= 0:
        obs[scalars_at[5]] = row[K.M_PASSES]


@njit(cache=True, inline="always")
def vec_mask_step(row, tables, action, mask, count):
    """The mask after ``action`` (the game goes on): a placement empties its cell for
    both colours; the pass or the button (one of them) is legal by the button's state.
    Returns the new count."""
    P = tables[3][C_N] * tables[3][C_N]
    if action < 2 * P:
        x = action % P
        mask[x] = False
        mask[P + x] = False
        count -= 2
    button = K.button_open(row)
    mask[2 * P] = not button
    mask[2 * P + 1] = button
    return count


@njit(cache=True, inline="always")
def vec_sample(row, tables, mask, count, s):
    """A uniformly random legal action from the row's list of empty points (a stone of
    either colour on one of them, or the pass or the button): ``(action, s)``."""
    n = tables[3][C_N]
    P = n * n
    empties = row[K.M_NEMPTY]
    if count != 2 * empties + 1:
        return -1, s
    s = rng_next(s)
    r = rng_below(s, count)
    if r == 2 * empties:
        return (2 * P if mask[2 * P] else 2 * P + 1), s
    return row[K.META + K.A_EMPTY * P + (r >> 1)] + (r & 1) * P, s
