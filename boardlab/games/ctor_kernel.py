"""The CTOR engine (RULES.md §4) as compiled functions over one int32 buffer.

Squares are cells 0..P-1 (square number - 1, row by row from the top left) of
an n x n torus; ``nbr`` and ``diag`` are the torus tables of
:mod:`boardlab.games.topology`. Team t plays colour t + 1 on the board.

Actions: ``cell`` = put (or, during a Landing, the target), ``P + 4*cell + d``
= move one step in direction d, ``5P + cell`` = lift a chip for a Landing,
``6P + cell`` = replace, ``7P`` = end the turn, ``7P + 1 + cell`` = pick a
secret square.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .kernels import rng_below, rng_next, rng_seed

(C_N, C_QPUT, C_QMOVE, C_QLAND, C_OPEN3, C_AFTER_OP, C_END_CHECK, C_MAX_TURNS, C_SECRETS,
 C_FIRST, C_AUTO_REPLACE, C_NULL_END, C_QPUT_2, C_QMOVE_2, C_QLAND_2) = range(15)
NCFG = 15
END_AFTER_REPLACES, END_IMMEDIATE, END_OF_TURN = 0, 1, 2
PH_SECRET, PH_OPENING, PH_REGULAR, PH_OVER = 0, 1, 2, 3

META = 24
(M_PHASE, M_TEAM, M_PUT, M_MOVE, M_LAND, M_OPS, M_LIFTS, M_TURNS, M_NULLS, M_REPLACED,
 M_FULL, M_COUNT, M_COUNT_2, M_STEP, M_PICKS, M_EMPTY, M_OVER_REASON) = range(17)
OVER_FULL, OVER_NULL, OVER_CAP = 1, 2, 3
A_BOARD, A_SECRET, A_SECRET_2, A_PENDING = range(4)
NARR = 4


def buffer_size(n: int) -> int:
    return META + NARR * n * n


@njit(cache=True, inline="always")
def _o(k, P):
    return META + k * P


@njit(cache=True, inline="always")
def _own_around(buf, nbr, diag, cell, colour):
    """How many of the 8 torus neighbours of ``cell`` hold ``colour``."""
    k = 0
    for d in range(4):
        k += buf[META + nbr[cell, d]] == colour
        k += buf[META + diag[cell, d]] == colour
    return k


@njit(cache=True, inline="always")
def can_replace(buf, nbr, diag, cell, team):
    return buf[META + cell] == 2 - team and _own_around(buf, nbr, diag, cell, team + 1) >= 5


@njit(cache=True)
def _any_replace(buf, cfg, nbr, diag, team):
    P = cfg[C_N] * cfg[C_N]
    for x in range(P):
        if can_replace(buf, nbr, diag, x, team):
            return True
    return False


@njit(cache=True)
def _start_turn(buf, cfg, team, phase):
    buf[M_TEAM] = team
    buf[M_PHASE] = phase
    buf[M_OPS] = 0
    buf[M_REPLACED] = 0
    buf[M_LIFTS] = 0
    if phase == PH_OPENING:
        buf[M_PUT] = buf[M_STEP] + 1          # the opening puts exactly 1, 2 (, 3) chips
        buf[M_MOVE] = 0
        buf[M_LAND] = 0
    else:                                      # each team's quota row (the same by default)
        row = C_QPUT if team == 0 else C_QPUT_2
        buf[M_PUT] = cfg[row]
        buf[M_MOVE] = cfg[row + 1]
        buf[M_LAND] = cfg[row + 2]


@njit(cache=True)
def init(buf, cfg):
    """An empty field: secret picks first (if enabled), else the opening."""
    buf[:] = 0
    P = cfg[C_N] * cfg[C_N]
    buf[M_EMPTY] = P
    first = cfg[C_FIRST]
    if cfg[C_SECRETS] > 0:
        buf[M_PHASE] = PH_SECRET
        buf[M_TEAM] = first
        buf[M_PICKS] = cfg[C_SECRETS]
    else:
        _start_turn(buf, cfg, first, PH_OPENING)


@njit(cache=True)
def legal(buf, cfg, nbr, diag, out):
    """Write the legal actions to ``out``; return how many."""
    n = cfg[C_N]
    P = n * n
    phase, team = buf[M_PHASE], buf[M_TEAM]
    colour = team + 1
    ob = META
    k = 0
    if phase == PH_OVER:
        return 0
    if phase == PH_SECRET:
        os_ = _o(A_SECRET + team, P)
        for x in range(P):
            if buf[os_ + x] == 0:
                out[k] = 7 * P + 1 + x
                k += 1
        return k
    if buf[M_LIFTS] == 1:
        for x in range(P):
            if buf[ob + x] == colour:
                out[k] = 5 * P + x
                k += 1
        return k
    if buf[M_LIFTS] == 2 or phase == PH_OPENING:
        for x in range(P):
            if buf[ob + x] == 0:
                out[k] = x
                k += 1
        return k
    if buf[M_FULL] == 0:
        if buf[M_PUT] > 0:
            for x in range(P):
                if buf[ob + x] == 0:
                    out[k] = x
                    k += 1
        if buf[M_MOVE] > 0:
            for x in range(P):
                if buf[ob + x] == colour:
                    for d in range(4):
                        if buf[ob + nbr[x, d]] == 0:
                            out[k] = P + 4 * x + d
                            k += 1
        if buf[M_LAND] > 0 and buf[M_COUNT + team] >= 2:
            for x in range(P):
                if buf[ob + x] == colour:
                    out[k] = 5 * P + x
                    k += 1
    if buf[M_OPS] > 0 or cfg[C_AFTER_OP] == 0:
        for x in range(P):
            if can_replace(buf, nbr, diag, x, team):
                out[k] = 6 * P + x
                k += 1
    out[k] = 7 * P
    return k + 1


@njit(cache=True, inline="always")
def _arrive(buf, cfg, cell, team):
    """A chip of ``team`` ends on ``cell`` by Put, Move or Landing: secret-square trigger."""
    P = cfg[C_N] * cfg[C_N]
    if cfg[C_SECRETS] > 0 and buf[_o(A_SECRET + 1 - team, P) + cell] == 1:
        buf[_o(A_PENDING, P) + cell] = 1


@njit(cache=True)
def _finish(buf, reason):
    buf[M_PHASE] = PH_OVER
    buf[M_OVER_REASON] = reason


@njit(cache=True)
def _flip_secrets(buf, cfg, team):
    """End of ``team``'s turn: the opponent's triggered secret squares flip and are spent."""
    P = cfg[C_N] * cfg[C_N]
    if cfg[C_SECRETS] == 0:
        return
    osec, opend = _o(A_SECRET + 1 - team, P), _o(A_PENDING, P)
    for x in range(P):
        if buf[opend + x]:
            buf[opend + x] = 0
            buf[osec + x] = 2
            if buf[META + x] == team + 1:
                buf[META + x] = 2 - team
                buf[M_COUNT + team] -= 1
                buf[M_COUNT + 1 - team] += 1


@njit(cache=True)
def end_turn(buf, cfg):
    team, phase = buf[M_TEAM], buf[M_PHASE]
    _flip_secrets(buf, cfg, team)
    if phase == PH_REGULAR:
        if buf[M_OPS] == 0 and buf[M_REPLACED] == 0:
            buf[M_NULLS] += 1
        else:
            buf[M_NULLS] = 0
    buf[M_TURNS] += 1
    if buf[M_FULL]:
        _finish(buf, OVER_FULL)
        return
    if cfg[C_NULL_END] and buf[M_NULLS] >= 2:
        _finish(buf, OVER_NULL)
        return
    if buf[M_TURNS] >= cfg[C_MAX_TURNS]:
        _finish(buf, OVER_CAP)
        return
    if phase == PH_OPENING:
        buf[M_STEP] += 1
        last = 3 if cfg[C_OPEN3] else 2
        if buf[M_STEP] < last:
            _start_turn(buf, cfg, 1 - team, PH_OPENING)
            return
    _start_turn(buf, cfg, 1 - team, PH_REGULAR)


@njit(cache=True)
def _after_fill(buf, cfg, nbr, diag):
    """The field just filled up: only Replaces may follow (RULES §4.5, T-A9)."""
    buf[M_FULL] = 1
    check = cfg[C_END_CHECK]
    if check == END_IMMEDIATE or (check == END_AFTER_REPLACES and
                                  not _any_replace(buf, cfg, nbr, diag, buf[M_TEAM])):
        end_turn(buf, cfg)


@njit(cache=True)
def _replace_closure(buf, cfg, nbr, diag):
    """Option auto_replace_closure: flip every reachable opponent chip (RULES 4.3)."""
    P = cfg[C_N] * cfg[C_N]
    team = buf[M_TEAM]
    flipped = True
    while flipped and buf[M_PHASE] == PH_REGULAR and buf[M_TEAM] == team:
        flipped = False
        for x in range(P):
            if can_replace(buf, nbr, diag, x, team):
                _apply_one(buf, cfg, nbr, diag, 6 * P + x)
                flipped = True
                break


@njit(cache=True)
def apply(buf, cfg, nbr, diag, action):
    """Apply a legal action (with the automatic Replaces, if that option is on)."""
    _apply_one(buf, cfg, nbr, diag, action)
    if cfg[C_AUTO_REPLACE] and buf[M_PHASE] == PH_REGULAR and \
            action < 5 * cfg[C_N] * cfg[C_N]:             # after a Put, Move step or Landing
        _replace_closure(buf, cfg, nbr, diag)


@njit(cache=True)
def _apply_one(buf, cfg, nbr, diag, action):
    """Apply one legal action."""
    n = cfg[C_N]
    P = n * n
    team = buf[M_TEAM]
    colour = team + 1
    ob = META
    if action == 7 * P:
        end_turn(buf, cfg)
        return
    if action > 7 * P:                                   # secret pick
        buf[_o(A_SECRET + team, P) + action - 7 * P - 1] = 1
        buf[M_PICKS] -= 1
        if buf[M_PICKS] == 0:
            if team == cfg[C_FIRST]:
                buf[M_TEAM] = 1 - team
                buf[M_PICKS] = cfg[C_SECRETS]
            else:
                _start_turn(buf, cfg, cfg[C_FIRST], PH_OPENING)
        return
    if action < P:                                       # put, or a Landing's target
        buf[ob + action] = colour
        buf[M_COUNT + team] += 1
        buf[M_EMPTY] -= 1
        _arrive(buf, cfg, action, team)
        if buf[M_LIFTS] == 2:
            buf[M_LIFTS] = 0
        else:
            buf[M_PUT] -= 1
        buf[M_OPS] += 1
        if buf[M_PHASE] == PH_OPENING:
            if buf[M_PUT] == 0 or buf[M_EMPTY] == 0:
                end_turn(buf, cfg)
            return
        if buf[M_EMPTY] == 0:
            _after_fill(buf, cfg, nbr, diag)
        return
    if action < 5 * P:                                   # one Move step
        x, d = (action - P) // 4, (action - P) % 4
        y = nbr[x, d]
        buf[ob + x] = 0
        buf[ob + y] = colour
        buf[M_MOVE] -= 1
        buf[M_OPS] += 1
        _arrive(buf, cfg, y, team)
        return
    if action < 6 * P:                                   # lift a chip for a Landing
        buf[ob + action - 5 * P] = 0
        buf[M_COUNT + team] -= 1
        buf[M_EMPTY] += 1
        if buf[M_LIFTS] == 0:
            buf[M_LAND] -= 1
        buf[M_LIFTS] += 1
        return
    x = action - 6 * P                                   # replace
    buf[ob + x] = colour
    buf[M_COUNT + team] += 1
    buf[M_COUNT + 1 - team] -= 1
    buf[M_REPLACED] += 1
    if buf[M_FULL] and cfg[C_END_CHECK] == END_AFTER_REPLACES and \
            not _any_replace(buf, cfg, nbr, diag, team):
        end_turn(buf, cfg)


@njit(cache=True)
def playout(buf, cfg, nbr, diag, seed):
    """Uniformly random legal actions to the end; returns the actions made."""
    P = cfg[C_N] * cfg[C_N]
    out = np.empty(8 * P + 1, np.int32)
    s = rng_seed(seed)
    moves = 0
    while buf[M_PHASE] != PH_OVER:
        k = legal(buf, cfg, nbr, diag, out)
        s = rng_next(s)
        apply(buf, cfg, nbr, diag, out[rng_below(s, k)])
        moves += 1
    return moves


@njit(cache=True)
def playouts(buf, cfg, nbr, diag, count, seed):
    """``count`` random games from copies of ``buf``; returns the actions made."""
    moves = 0
    for i in range(count):
        work = buf.copy()
        moves += playout(work, cfg, nbr, diag, seed * 1000003 + i)
    return moves
