"""The Rumbo engine (RULES.md §2) as compiled functions over one int32 buffer.

Groups are a union-find with size, pseudo-liberties (stone/empty-neighbour
pairs: zero exactly when the group has no liberty) and owner at the root.
``count[c][x]`` is how many neighbours of x hold colour c, which makes the
hole test of a placement four look-ups.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .kernels import drop_empty, find, find_at, index_empties, rng_below, rng_next, rng_seed
from .territory_actions import (BUTTON, KOMI, PASS, PLACE, SIDE, decode, encode,  # noqa: F401
                                max_komi_half, num_actions)

EMPTY, BLACK, WHITE = 0, 1, 2
VERTICAL, HORIZONTAL = 0, 1

META = 8
M_TURN, M_NEMPTY, M_SCORE_V, M_SCORE_H, M_NPLACED = range(5)
A_BOARD, A_PARENT, A_SIZE, A_LIBS, A_OWNER, A_COUNT, _A_COUNT_W, A_EMPTY, A_EPOS = range(9)
NARR = 9

# Owner of a set of adjacencies as a bitmask N=1, E=2, S=4, W=8 (RULES §2.2);
# -1 for the unreachable empty and full sets.
OWNER_OF_MASK = np.array([-1, 0, 1, 0, 0, 0, 1, 0, 1, 1, 1, 1, 0, 0, 1, -1], dtype=np.int32)


# Action numbers: see territory_actions (numbered as Carteso's; 2P and 2P + 1 are
# never legal in Rumbo).


def buffer_size(n: int) -> int:
    return META + NARR * n * n




@njit(cache=True, inline="always")
def _arr(buf, k, P):
    return buf[META + k * P: META + (k + 1) * P]


@njit(cache=True)
def array(buf, n, k):
    """Array ``k`` (an ``A_`` constant) of the position in ``buf``, as a view."""
    return _arr(buf, k, n * n)


@njit(cache=True)
def init(buf, n):
    """An empty board, Vertical to move."""
    P = n * n
    buf[:] = 0
    buf[M_NEMPTY] = P
    empty, epos = _arr(buf, A_EMPTY, P), _arr(buf, A_EPOS, P)
    for x in range(P):
        empty[x] = x
        epos[x] = x
    _arr(buf, A_OWNER, P)[:] = -1


@njit(cache=True, inline="always")
def _holes_made(buf, P, degree, q):
    """The colours (a mask: BLACK | WHITE) that, put down next to point ``q`` (-1: off
    the board), make ``q`` a hole (RULES §2.3): ``q`` is empty and its other neighbours
    all hold that colour."""
    if q < 0 or buf[_o(A_BOARD, P) + q] != EMPTY:
        return 0
    full = degree[q] - 1
    return (BLACK if buf[_o(A_COUNT, P) + q] == full else 0) | \
        (WHITE if buf[_o(A_COUNT + 1, P) + q] == full else 0)


@njit(cache=True, inline="always")
def _makes_hole(buf, P, degree, q, c):
    """Whether colour ``c`` put down next to point ``q`` makes ``q`` a hole."""
    return (_holes_made(buf, P, degree, q) & c) != 0


@njit(cache=True, inline="always")
def _o(k, P):
    """Offset of array ``k`` in the buffer."""
    return META + k * P


@njit(cache=True, inline="always")
def is_legal(buf, n, nbr, degree, cell, c):
    """Whether colour ``c`` may go on ``cell``: it is empty and makes no hole."""
    P = n * n
    if buf[_o(A_BOARD, P) + cell] != EMPTY:
        return False
    for d in range(4):
        if _makes_hole(buf, P, degree, nbr[cell, d], c):
            return False
    return True


@njit(cache=True)
def holes(buf, n, nbr, degree, cell, c, out):
    """Write the points that colour ``c`` on ``cell`` would make holes to ``out``;
    return how many (0 exactly when the placement breaks no hole rule)."""
    P = n * n
    k = 0
    for d in range(4):
        q = nbr[cell, d]
        if _makes_hole(buf, P, degree, q, c):
            out[k] = q
            k += 1
    return k


@njit(cache=True)
def is_legal_action(buf, n, nbr, degree, action):
    """Whether a play action is legal in play (only placements are Rumbo moves)."""
    kind, cell, colour = decode(n, action)
    return kind == PLACE and is_legal(buf, n, nbr, degree, cell, colour)


@njit(cache=True)
def play_if_legal(buf, n, nbr, degree, action):
    """:func:`play` of ``action`` (in range) if :func:`is_legal_action` allows it (in
    play, not over); whether it did (one call for a checked move)."""
    if not is_legal_action(buf, n, nbr, degree, action):
        return False
    play(buf, n, nbr, action)
    return True


@njit(cache=True, inline="always")
def legal_colours(buf, n, nbr, degree, cell):
    """Whether a black stone, and whether a white one, may go on ``cell`` (as
    :func:`is_legal` for each, in one pass)."""
    P = n * n
    if buf[_o(A_BOARD, P) + cell] != EMPTY:
        return False, False
    made = 0
    for d in range(4):
        made |= _holes_made(buf, P, degree, nbr[cell, d])
    return (made & BLACK) == 0, (made & WHITE) == 0


@njit(cache=True)
def legal(buf, n, nbr, degree, out):
    """Write the legal play actions (black stones, then white stones) to ``out``; return
    how many. ``out`` holds 2P: the white ones wait in its second half.

    :func:`is_legal` for both colours in one pass over the empty points.
    """
    P = n * n
    ob = _o(A_BOARD, P)
    kb = kw = 0
    for x in range(P):
        if buf[ob + x] != EMPTY:
            continue
        made = 0
        for d in range(4):
            made |= _holes_made(buf, P, degree, nbr[x, d])
        if not made & BLACK:
            out[kb] = encode(n, PLACE, x, BLACK)
            kb += 1
        if not made & WHITE:
            out[P + kw] = encode(n, PLACE, x, WHITE)
            kw += 1
    for i in range(kw):                # kb <= P: moving down never overwrites a later one
        out[kb + i] = out[P + i]
    return kb + kw


@njit(cache=True)
def play(buf, n, nbr, action):
    """Apply a legal play action (a placement)."""
    _, cell, colour = decode(n, action)
    place(buf, n, nbr, cell, colour)


@njit(cache=True, inline="always")
def _claim(buf, P, root, mask):
    owner = OWNER_OF_MASK[mask]
    if owner < 0:
        raise AssertionError("unreachable adjacency set (RULES 2.7b)")
    _arr(buf, A_OWNER, P)[root] = owner
    buf[M_SCORE_V + owner] += _arr(buf, A_SIZE, P)[root]


@njit(cache=True)
def place(buf, n, nbr, cell, c):
    """Place colour ``c`` on ``cell`` (assumed legal) and claim liberty-less groups."""
    place_inline(buf, n, nbr, cell, c)


@njit(cache=True, inline="always")
def place_inline(buf, n, nbr, cell, c):
    """:func:`place`, inlined into the playouts and the vector step (direct offsets into
    ``buf``; the roots of the neighbouring stones are found once)."""
    P = n * n
    ob, opar, osz = _o(A_BOARD, P), _o(A_PARENT, P), _o(A_SIZE, P)
    olib, oown, ocnt = _o(A_LIBS, P), _o(A_OWNER, P), _o(A_COUNT + c - 1, P)
    buf[ob + cell] = c
    drop_empty(buf, _o(A_EMPTY, P), _o(A_EPOS, P), M_NEMPTY, cell)
    buf[opar + cell] = cell
    buf[osz + cell] = 1
    buf[oown + cell] = -1
    own = 0
    mine = 0
    theirs = 0
    q0, q1, q2, q3 = nbr[cell, 0], nbr[cell, 1], nbr[cell, 2], nbr[cell, 3]
    r0 = r1 = r2 = r3 = -1                 # the roots of the stones next to cell
    for d in range(4):
        q = q0 if d == 0 else q1 if d == 1 else q2 if d == 2 else q3
        if q < 0:
            continue
        buf[ocnt + q] += 1
        v = buf[ob + q]
        if v == EMPTY:
            own += 1
        else:
            rq = find_at(buf, opar, q)
            buf[olib + rq] -= 1
            if d == 0:
                r0 = rq
            elif d == 1:
                r1 = rq
            elif d == 2:
                r2 = rq
            else:
                r3 = rq
            if v == c:
                mine |= 1 << d
            else:
                theirs |= 1 << d
    buf[olib + cell] = own
    root = cell
    for d in range(4):
        if mine & (1 << d):
            rq = r0 if d == 0 else r1 if d == 1 else r2 if d == 2 else r3
            rq = find_at(buf, opar, rq)
            if rq != root:
                if buf[osz + root] < buf[osz + rq]:
                    root, rq = rq, root
                buf[opar + rq] = root
                buf[osz + root] += buf[osz + rq]
                buf[olib + root] += buf[olib + rq]
    if buf[olib + root] == 0:
        _claim(buf, P, root, mine)
    for d in range(4):
        if not theirs & (1 << d):
            continue
        rq = r0 if d == 0 else r1 if d == 1 else r2 if d == 2 else r3
        if buf[olib + rq] != 0 or buf[oown + rq] >= 0:
            continue
        mask = (theirs & 1 if r0 == rq else 0) | (theirs & 2 if r1 == rq else 0) | \
            (theirs & 4 if r2 == rq else 0) | (theirs & 8 if r3 == rq else 0)
        _claim(buf, P, rq, mask)
    buf[M_TURN] = 1 - buf[M_TURN]
    buf[M_NPLACED] += 1


@njit(cache=True)
def playout(buf, n, nbr, degree, seed):
    """Random play to the end, uniform over legal placements (by rejection)."""
    P = n * n
    empty = _arr(buf, A_EMPTY, P)
    s = rng_seed(seed)
    moves = 0
    while buf[M_NEMPTY] > 0:
        s = rng_next(s)
        r = rng_below(s, 2 * buf[M_NEMPTY])
        cell, c = empty[r >> 1], 1 + (r & 1)
        if is_legal(buf, n, nbr, degree, cell, c):
            place_inline(buf, n, nbr, cell, c)
            moves += 1
    return moves


@njit(cache=True)
def playouts(buf, n, nbr, degree, count, seed):
    """``count`` random playouts from copies of ``buf``; returns the moves made."""
    moves = 0
    for i in range(count):
        work = buf.copy()
        moves += playout(work, n, nbr, degree, seed * 1000003 + i)
    return moves


@njit(cache=True)
def rebuild(buf, n, nbr):
    """Recompute groups, liberties, counts and empties from the board (set-ups).

    Claims are cleared; the caller applies them with :func:`claim_at`.
    """
    P = n * n
    board, parent = _arr(buf, A_BOARD, P), _arr(buf, A_PARENT, P)
    size, libs, owner = _arr(buf, A_SIZE, P), _arr(buf, A_LIBS, P), _arr(buf, A_OWNER, P)
    empty, epos = _arr(buf, A_EMPTY, P), _arr(buf, A_EPOS, P)
    buf[M_SCORE_V] = 0
    buf[M_SCORE_H] = 0
    for x in range(P):
        parent[x] = x
        size[x] = 1
        owner[x] = -1
        libs[x] = 0
        for c in (BLACK, WHITE):
            _arr(buf, A_COUNT + c - 1, P)[x] = 0
    buf[M_NEMPTY] = index_empties(board, empty, epos)
    for x in range(P):
        for d in range(4):
            q = nbr[x, d]
            if q >= 0 and board[q] != EMPTY:
                _arr(buf, A_COUNT + board[q] - 1, P)[x] += 1
            if board[x] != EMPTY and q >= 0 and board[q] == EMPTY:
                libs[x] += 1
    for x in range(P):
        for d in range(4):
            q = nbr[x, d]
            if board[x] != EMPTY and q >= 0 and board[q] == board[x]:
                ra, rb = find(parent, x), find(parent, q)
                if ra != rb:
                    parent[rb] = ra
                    size[ra] += size[rb]
                    libs[ra] += libs[rb]


@njit(cache=True)
def group_root(buf, n, cell):
    return find(_arr(buf, A_PARENT, n * n), cell)


@njit(cache=True)
def claim_at(buf, n, cell, owner):
    """Set-ups: put ``owner``'s marker on the group at ``cell``."""
    P = n * n
    root = find(_arr(buf, A_PARENT, P), cell)
    _arr(buf, A_OWNER, P)[root] = owner
    buf[M_SCORE_V + owner] += _arr(buf, A_SIZE, P)[root]


# The compiled search's view of a position (``agents.kernel_tree``): the same arguments
# for every game that has one, ``aux`` being this game's degree table. ---------------------

@njit(cache=True)
def search_over(buf):
    return buf[M_NEMPTY] == 0


@njit(cache=True)
def search_turn(buf):
    return buf[M_TURN]


@njit(cache=True)
def search_legal(buf, scratch, n, nbr, aux, out):
    return legal(buf, n, nbr, aux, out)


@njit(cache=True)
def search_play(buf, scratch, n, nbr, aux, action):
    play(buf, n, nbr, action)


@njit(cache=True)
def search_playout(buf, scratch, n, nbr, aux, seed):
    playout(buf, n, nbr, aux, seed)


@njit(cache=True)
def search_lead(buf):
    """Vertical's lead in half points, komi aside."""
    return 2 * (buf[M_SCORE_V] - buf[M_SCORE_H])
