"""What Carteso's and Rumbo's vector kernels share (``Game.vector_kernel``).

A row is the kernel's buffer, then two entries of the game's own: the moves made
(the view's ``moves``) and the last action (-1 before any: the ``last`` mark). The
observation is that of :class:`~boardlab.nn.encoding.ViewEncoder` from the view:
the stones (planes ``B`` and ``W``), the last placement, each claimed stone's owner,
and the scalars :data:`SCALARS` (both games' views are the same for every seat).
"""
from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from ..core.game import VectorKernel
from .kernels import find_at

#: the planes in kernel order: a stone's colour value - 1, then ``last``, then
#: ``owner:`` + the side's name by side number
PLANES = ("B", "W", "last", "owner:vertical", "owner:horizontal")
#: the view's numbers in kernel order (Rumbo has no ``passes``)
SCALARS = (("komi",), ("moves",), ("scores", "vertical"), ("scores", "horizontal"),
           ("size",), ("passes",))
#: the view's keys that the encoding reads as 0 in every position (text or None)
ZEROS = (("last_move",), ("resigned",), ("returns",), ("winner",), ("button",))
#: the row's own entries after the kernel's buffer: the moves made, the last action, and
#: what the observation last written shows (both sides' scores, packed, and the last
#: action it marks), from which :func:`observe_step` brings it up to date
X_MOVES, X_LAST, X_SEEN_SCORES, X_SEEN_LAST = 0, 1, 2, 3
#: the most points of a board whose rows may be int16 (the packed scores, below
#: (P + 1) ** 2, and the moves made, fewer than 2 ** 15, fit)
NARROW_POINTS = 169
#: the game's constants (``cfg``, int64): board size, komi in half points, the buffer size
C_N, C_KOMI, C_BASE = 0, 1, 2


def declare(game: Any, functions: Any, tables: tuple, buffer: np.ndarray,
            passes: bool, narrow: bool) -> VectorKernel:
    """The vector kernel of a territory game in play (a fixed komi): the row starts as
    ``buffer`` (a new state's, set-ups included), no moves made; ``passes``: the view
    counts the passes in a row (Carteso's); ``narrow``: every value of the kernel's
    buffer fits an int16 (then the vector environment's rows are int16; the row's own
    entries do where the board has at most 169 points: see :func:`packed_scores`)."""
    initial = np.concatenate((buffer, np.array([0, -1, -1, -1], dtype=np.int32)))
    order = game.draw_order                               # description index -> kernel cell
    cells = np.empty(game.points, dtype=np.int64)
    cells[list(order)] = np.arange(game.points)
    narrow = narrow and game.n * game.n <= NARROW_POINTS
    return VectorKernel(functions, tables, initial, PLANES, tuple(cells.tolist()),
                        SCALARS if passes else SCALARS[:-1], ZEROS,
                        np.int16 if narrow else None)


def config(game: Any, base: int) -> np.ndarray:
    """The ``cfg`` table of a territory game (see ``C_*``)."""
    return np.array([game.n, game.komi_half, base], dtype=np.int64)


def state_row(state, row):
    """Write the row of ``state`` (a game in play) into ``row``: its buffer, the moves
    made and the last action (``nn.kernel_observe`` reads positions so)."""
    buf, history = state.buf, state.history
    base = len(buf)
    row[:base] = buf
    row[base + X_MOVES] = len(history)
    row[base + X_LAST] = history[-1][1] if history else -1
    row[base + X_SEEN_SCORES] = row[base + X_SEEN_LAST] = -1


@njit(cache=True)
def search_row(buf, moves, last, row):
    """Write the row of the compiled search's position ``buf`` (``State.search_kernel``'s
    buffer, as the search plays on it) after ``moves`` moves, the last ``last`` (-1
    before any): the state of :func:`state_row`, for the observation of a leaf."""
    base = buf.shape[0]
    row[:base] = buf
    row[base + X_MOVES] = moves
    row[base + X_LAST] = last
    row[base + X_SEEN_SCORES] = -1
    row[base + X_SEEN_LAST] = -1


@njit(cache=True, inline="always")
def returns(lead, komi_half, out):
    """Returns of a finished game from Vertical's lead in half points, komi aside."""
    lead -= komi_half
    value = 1.0 if lead > 0 else -1.0 if lead < 0 else 0.0
    out[0] = value
    out[1] = -value


@njit(cache=True, inline="always")
def packed_scores(row, score_at, P):
    """Both sides' scores (stones in claimed groups, the kernel's two entries from
    ``score_at``, each at most ``P``) as one number (below (P + 1) ** 2: it fits an
    int16 row where P <= 169)."""
    return row[score_at] * (P + 1) + row[score_at + 1]


@njit(cache=True, inline="always")
def observe_step(row, n, nbr, ob, opar, oown, score_at, base, obs, planes_at, cells_at):
    """Bring the board planes of the row's last observation (in ``obs``) up to date after
    one move: the stone placed, the ``last`` mark moved and, where some stone gained an
    owner (either score changed: a claim, or a stone joining a claimed group), the
    owner of every stone not yet shown with one (a claim is for good: a stone once
    owned stays so, by the same side): see :func:`show_owners`."""
    P = n * n
    shown, last = row[base + X_SEEN_LAST], row[base + X_LAST]
    if 0 <= shown < 2 * P:
        obs[planes_at[2] + cells_at[shown % P]] = 0.0
    if 0 <= last < 2 * P:
        x = last % P
        obs[planes_at[row[ob + x] - 1] + cells_at[x]] = 1.0
        obs[planes_at[2] + cells_at[x]] = 1.0
    row[base + X_SEEN_LAST] = last
    scores = packed_scores(row, score_at, P)
    seen = row[base + X_SEEN_SCORES]
    if scores != seen:
        row[base + X_SEEN_SCORES] = scores
        show_owners(row, n, nbr, ob, opar, oown, seen, scores, last, obs, planes_at,
                    cells_at)
    return True


@njit(cache=True)
def show_owners(row, n, nbr, ob, opar, oown, seen, scores, last, obs, planes_at, cells_at):
    """Show the owner of every stone that gained one since the observation showing the
    packed scores ``seen`` (-1: not known) was written; the row's scores are now
    ``scores``, after the action ``last``.

    The scores count the stones in claimed groups, so they grew by as many stones as
    gained an owner. Those of one group are joined through stones not yet shown owned
    (a group claimed whole, or the stones a claimed group absorbed with the placed
    one), so they are flooded from the placed stone and its neighbours: every claim of
    Rumbo's is there, and every one of Carteso's but a far one (a group of the other
    colour whose region shrank to its box); any left are looked for on the whole board,
    until none is."""
    P = n * n
    vertical, horizontal = planes_at[3], planes_at[4]
    left = P + 1                                  # how many to find (unknown: all)
    if seen >= 0:
        left = scores // (P + 1) + scores % (P + 1) - seen // (P + 1) - seen % (P + 1)
    if 0 <= last < 2 * P:
        x = last % P
        stack = np.empty(P, dtype=np.int64)
        for k in range(-1, nbr.shape[1]):
            if left <= 0:
                return
            y = x if k < 0 else nbr[x, k]
            if y < 0:
                continue
            colour = row[ob + y]
            at = cells_at[y]
            if colour == 0 or obs[vertical + at] != 0.0 or obs[horizontal + at] != 0.0:
                continue
            owner = row[oown + find_at(row, opar, y)]
            if owner < 0:
                continue
            plane = planes_at[3 + owner]
            obs[plane + at] = 1.0
            left -= 1
            stack[0] = y
            top = 1
            while top > 0:
                top -= 1
                z = stack[top]
                for d in range(nbr.shape[1]):
                    q = nbr[z, d]
                    if q < 0 or row[ob + q] != colour:
                        continue
                    aq = cells_at[q]
                    if obs[vertical + aq] != 0.0 or obs[horizontal + aq] != 0.0:
                        continue
                    obs[plane + aq] = 1.0
                    left -= 1
                    stack[top] = q
                    top += 1
    for x in range(P):
        if left <= 0:
            return
        if row[ob + x] == 0:
            continue
        at = cells_at[x]
        if obs[vertical + at] != 0.0 or obs[horizontal + at] != 0.0:
            continue
        owner = row[oown + find_at(row, opar, x)]
        if owner >= 0:
            obs[planes_at[3 + owner] + at] = 1.0
            left -= 1


@njit(cache=True)
def observe(row, n, ob, opar, oown, base, obs, planes_at, cells_at, score_at):
    """The board planes: stones by colour, owners of claimed stones, the last placement
    (every plane is in the encoding: the layout checks); what they show is noted in the
    row for :func:`observe_step`."""
    P = n * n
    row[base + X_SEEN_SCORES] = packed_scores(row, score_at, P)
    row[base + X_SEEN_LAST] = row[base + X_LAST]
    for x in range(P):
        c = row[ob + x]
        if c == 0:
            continue
        at = cells_at[x]
        obs[planes_at[c - 1] + at] = 1.0
        owner = row[oown + find_at(row, opar, x)]     # (path halving, as the kernel's finds)
        if owner >= 0:
            obs[planes_at[3 + owner] + at] = 1.0
    last = row[base + X_LAST]
    if 0 <= last < 2 * P:
        obs[planes_at[2] + cells_at[last % P]] = 1.0


@njit(cache=True, inline="always")
def scalars(row, cfg, score_v, score_h, obs, scalars_at):
    """The numbers every territory view has (scores in half points, bonus included)."""
    values = (cfg[C_KOMI] / 2.0, float(row[cfg[C_BASE] + X_MOVES]), score_v / 2.0,
              score_h / 2.0, float(cfg[C_N]))
    for k in range(5):
        if scalars_at[k] >= 0:
            obs[scalars_at[k]] = values[k]
