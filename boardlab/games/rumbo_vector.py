"""Rumbo's vector kernel (``Game.vector_kernel``): the rules are ``rumbo_kernel``'s; here
only the row's own entries and the observation (see ``territory_vector``)."""
from __future__ import annotations

from numba import njit

from . import rumbo_kernel as K
from .territory_vector import (C_BASE, C_KOMI, C_N, X_LAST, X_MOVES, observe, observe_step,
                               returns, scalars)
from .territory_vector import search_row as search_row   # the compiled search's leaves
from .territory_vector import state_row as state_row   # the observer's (nn.kernel_observe)


@njit(cache=True)
def vec_reset(row, tables, initial, seed):
    row[:] = initial


@njit(cache=True)
def vec_legal(row, tables, out):
    nbr, degree, cfg = tables
    return K.legal(row, cfg[C_N], nbr, degree, out)


@njit(cache=True)
def vec_play(row, tables, action):
    nbr, degree, cfg = tables
    K.play(row, cfg[C_N], nbr, action)
    base = cfg[C_BASE]
    row[base + X_MOVES] += 1
    row[base + X_LAST] = action


@njit(cache=True)
def vec_player(row, tables):
    return -1 if row[K.M_NEMPTY] == 0 else row[K.M_TURN]


@njit(cache=True)
def vec_returns(row, tables, out):
    returns(K.search_lead(row), tables[2][C_KOMI], out)


@njit(cache=True)
def vec_observe(row, tables, seat, obs, planes_at, cells_at, scalars_at):
    cfg = tables[2]
    n = cfg[C_N]
    P = n * n
    observe(row, n, K.META + K.A_BOARD * P, K.META + K.A_PARENT * P,
            K.META + K.A_OWNER * P, cfg[C_BASE], obs, planes_at, cells_at, K.M_SCORE_V)
    scalars(row, cfg, 2 * row[K.M_SCORE_V], 2 * row[K.M_SCORE_H] + cfg[C_KOMI], obs,
            scalars_at)


@njit(cache=True)
def vec_observe_step(row, tables, seat, obs, planes_at, cells_at, scalars_at):
    cfg = tables[2]
    n = cfg[C_N]
    if not observe_step(row, n, K.META + K.A_BOARD * n * n, K.M_SCORE_V, cfg[C_BASE], obs,
                        planes_at, cells_at):
        return False
    scalars(row, cfg, 2 * row[K.M_SCORE_V], 2 * row[K.M_SCORE_H] + cfg[C_KOMI], obs,
            scalars_at)
    return True
