"""CTOR's vector kernel (``Game.vector_kernel``): one agent per team, no secret squares.

The rules are ``ctor_kernel``'s; here only the row's own entry (the last action that
names squares: the view's ``last`` mark) and the observation, as
:class:`~boardlab.nn.encoding.ViewEncoder` makes it from the view: chips by colour,
the ``last``, ``revealed`` and ``secret`` marks, and the numbers :func:`scalars` names.
"""
from __future__ import annotations

import sys
from typing import Any

import numpy as np
from numba import njit

from ..core.game import VectorKernel
from . import ctor_kernel as K

#: the row's own entry after the kernel's buffer
X_LAST = 0
#: the game's constants (``consts``, int64): the buffer size, the first team's size
D_BASE, D_FIRST = 0, 1


def declare(game: Any, buffer: np.ndarray) -> VectorKernel:
    """The vector kernel of ``game`` (a CTOR configuration without hidden information),
    its rows starting as ``buffer`` (a new state's, set-ups included)."""
    consts = np.array([len(buffer), game.team_sizes[0]], dtype=np.int64)
    initial = np.concatenate((buffer, np.array([-1], dtype=np.int32)))
    planes = (*game.letters, "last", "revealed", "secret")
    first, second = game.colours
    scalars = (("counts", first), ("counts", second), ("field_full",), ("landing_lifts",),
               ("picks_left",), ("quotas_left", "landing"), ("quotas_left", "move"),
               ("quotas_left", "put"), ("turn",))
    tables = (game.cfg, game.topology.nbr, game.topology.diag, consts)
    return VectorKernel(sys.modules[__name__], tables, initial, planes,
                        tuple(range(game.P)), scalars, (("end_reason",), ("winner",)))


def state_row(state, row):
    """Write the row of ``state`` (a game in play) into ``row``: its buffer and the last
    action that names squares (``nn.kernel_observe`` reads positions so)."""
    buf, history = state.buf, state.history
    base = len(buf)
    row[:base] = buf
    end = 7 * state.game.P
    last = -1
    for k in range(len(history) - 1, -1, -1):
        if history[k][1] != end:
            last = history[k][1]
            break
    row[base + X_LAST] = last


@njit(cache=True, inline="always")
def vec_reset(row, tables, initial, seed):
    row[:] = initial


@njit(cache=True, inline="always")
def vec_legal(row, tables, out):
    cfg, nbr, diag, _ = tables
    return K.legal(row, cfg, nbr, diag, out)


@njit(cache=True, inline="always")
def vec_play(row, tables, action):
    cfg, nbr, diag, consts = tables
    K.apply(row, cfg, nbr, diag, action)
    if action != 7 * cfg[K.C_N] * cfg[K.C_N]:                 # every action but end
        row[consts[D_BASE] + X_LAST] = action


@njit(cache=True, inline="always")
def vec_player(row, tables):
    if row[K.M_PHASE] == K.PH_OVER:
        return -1
    return 0 if row[K.M_TEAM] == 0 else tables[3][D_FIRST]


@njit(cache=True, inline="always")
def vec_returns(row, tables, out):
    a, b = row[K.M_COUNT], row[K.M_COUNT_2]
    value = 1.0 if a > b else -1.0 if a < b else 0.0
    first = tables[3][D_FIRST]
    for s in range(out.shape[0]):
        out[s] = value if s < first else -value


@njit(cache=True, inline="always")
def vec_observe(row, tables, seat, obs, planes_at, cells_at, scalars_at):
    cfg, nbr, diag, consts = tables
    P = cfg[K.C_N] * cfg[K.C_N]
    for x in range(P):                   # an empty square: a 0 where there is one (no branch)
        c = row[K.META + x]
        obs[planes_at[max(c - 1, 0)] + cells_at[x]] = 1.0 if c != 0 else 0.0
    if cfg[K.C_SECRETS] > 0:
        team = 0 if seat < consts[D_FIRST] else 1
        for t in range(2):
            at = K.META + (K.A_SECRET + t) * P
            for x in range(P):
                mark = row[at + x]
                if mark == 2:
                    obs[planes_at[3] + cells_at[x]] = 1.0
                elif mark == 1 and t == team:
                    obs[planes_at[4] + cells_at[x]] = 1.0
    last = row[consts[D_BASE] + X_LAST]
    if last >= 0:
        kind, cell, target = K.decode(last, P, nbr)
        obs[planes_at[2] + cells_at[cell]] = 1.0
        if kind == K.KIND_MOVE:
            obs[planes_at[2] + cells_at[target]] = 1.0
    over = row[K.M_PHASE] == K.PH_OVER
    picks = row[K.M_PICKS] if row[K.M_PHASE] == K.PH_SECRET and not over else 0
    values = (float(row[K.M_COUNT]), float(row[K.M_COUNT_2]), 1.0 if row[K.M_FULL] != 0 else 0.0,
              float(row[K.M_LIFTS]), float(picks), float(row[K.M_LAND]), float(row[K.M_MOVE]),
              float(row[K.M_PUT]), float(row[K.M_TURNS] + 1))
    for k in range(9):
        if scalars_at[k] >= 0:
            obs[scalars_at[k]] = values[k]
