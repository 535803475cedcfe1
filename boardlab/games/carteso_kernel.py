"""The Carteso engine (RULES.md §1) as compiled functions over one int32 buffer.

The whole position lives in one flat int32 array (cheap to copy for search):
META scalars, then ``NARR`` arrays of P = n*n entries each (see the ``A_``
constants). Groups are a union-find with size, bounding box and owner at the
root. For each colour c the *passable set* (empty or c) is kept as labelled
components with bounding boxes; a label is a cell of its component.

A group G is finished iff bbox(G) == bbox(component of G) (RULES §1.7a).
Placing colour c at p leaves c's passable set unchanged, so only p's merged
group can finish on that side; the other colour loses p from one component,
which may split or shrink; that component is re-flooded only when a local
test cannot rule it out.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .kernels import find, find_at, flood, index_empties, rng_below, rng_next, rng_seed
from .territory_actions import (BUTTON, KOMI, PASS, PLACE, SIDE, decode, encode,  # noqa: F401
                                max_komi_half, num_actions)

EMPTY, BLACK, WHITE = 0, 1, 2
VERTICAL, HORIZONTAL = 0, 1

META = 16
M_TURN, M_PASSES, M_BUTTON, M_NEMPTY, M_SCORE_V, M_SCORE_H, M_NFREE, _M_NFREE_W, M_OVER, \
    M_BUTTON_ON, M_NPLACED = range(11)
(A_BOARD, A_PARENT, A_SIZE, A_MINR, A_MAXR, A_MINC, A_MAXC, A_OWNER,
 A_COMP, _A_COMP_W, A_CBOX, _cb1, _cb2, _cb3, _cb4, _cb5, _cb6, _cb7,
 A_FREE, _A_FREE_W, A_EMPTY, A_EPOS) = range(22)
NARR = 22
NO_BUTTON = -1
MAX_SEARCHES = 4

# Action numbers: see territory_actions (shared with Rumbo).


def buffer_size(n: int) -> int:
    return META + NARR * n * n




def new_scratch(n: int) -> np.ndarray:
    """Work space for the flood fills: a stamp counter, marks and four queues.

    Not part of the position: states of one size may share it (single thread).
    """
    return np.zeros(1 + (1 + MAX_SEARCHES) * n * n + 5 * MAX_SEARCHES, dtype=np.int64)


@njit(cache=True, inline="always")
def _arr(buf, k, P):
    return buf[META + k * P: META + (k + 1) * P]


@njit(cache=True)
def array(buf, n, k):
    """Array ``k`` (an ``A_`` constant) of the position in ``buf``, as a view."""
    return _arr(buf, k, n * n)


@njit(cache=True)
def init(buf, n, button_on):
    """An empty board, Vertical to move."""
    P = n * n
    buf[:] = 0
    buf[M_BUTTON] = NO_BUTTON
    buf[M_BUTTON_ON] = button_on
    buf[M_NEMPTY] = P
    empty, epos = _arr(buf, A_EMPTY, P), _arr(buf, A_EPOS, P)
    for x in range(P):
        empty[x] = x
        epos[x] = x
    for ci in range(2):
        _arr(buf, A_COMP + ci, P)[:] = 0
        _reset_free(buf, P, ci, 1)
        box = A_CBOX + 4 * ci
        _arr(buf, box, P)[0] = 0
        _arr(buf, box + 1, P)[0] = n - 1
        _arr(buf, box + 2, P)[0] = 0
        _arr(buf, box + 3, P)[0] = n - 1
    _arr(buf, A_OWNER, P)[:] = -1


@njit(cache=True)
def _reset_free(buf, P, ci, first):
    """Make component ids first..P-1 free for colour index ``ci``."""
    free = _arr(buf, A_FREE + ci, P)
    k = 0
    for label in range(P - 1, first - 1, -1):
        free[k] = label
        k += 1
    buf[M_NFREE + ci] = k


@njit(cache=True, inline="always")
def _o(k, P):
    """Offset of array ``k`` in the buffer (direct indexing: no views in hot code)."""
    return META + k * P


@njit(cache=True, inline="always")
def _new_label(buf, P, ci):
    buf[M_NFREE + ci] -= 1
    return buf[_o(A_FREE + ci, P) + buf[M_NFREE + ci]]


@njit(cache=True, inline="always")
def _free_label(buf, P, ci, label):
    buf[_o(A_FREE + ci, P) + buf[M_NFREE + ci]] = label
    buf[M_NFREE + ci] += 1


@njit(cache=True, inline="always")
def _remove_empty(buf, P, cell):
    oe, op = _o(A_EMPTY, P), _o(A_EPOS, P)
    last = buf[M_NEMPTY] - 1
    i = buf[op + cell]
    moved = buf[oe + last]
    buf[oe + i] = moved
    buf[op + moved] = i
    buf[oe + last] = cell
    buf[op + cell] = last
    buf[M_NEMPTY] = last


@njit(cache=True, inline="always")
def _claim(buf, P, root, mover):
    """Claim the unclaimed finished group at ``root`` for its current owner."""
    h = buf[_o(A_MAXR, P) + root] - buf[_o(A_MINR, P) + root]
    w = buf[_o(A_MAXC, P) + root] - buf[_o(A_MINC, P) + root]
    owner = VERTICAL if h > w else HORIZONTAL if w > h else 1 - mover
    buf[_o(A_OWNER, P) + root] = owner
    buf[M_SCORE_V + owner] += buf[_o(A_SIZE, P) + root]


@njit(cache=True, inline="always")
def _merge(buf, P, ra, rb):
    """Union two group roots; a claim survives and counts the absorbed stones."""
    osz, oow = _o(A_SIZE, P), _o(A_OWNER, P)
    if buf[osz + ra] < buf[osz + rb]:
        ra, rb = rb, ra
    buf[_o(A_PARENT, P) + rb] = ra
    oa, ob = buf[oow + ra], buf[oow + rb]
    if oa >= 0 and ob < 0:
        buf[M_SCORE_V + oa] += buf[osz + rb]
    elif ob >= 0 and oa < 0:
        buf[M_SCORE_V + ob] += buf[osz + ra]
        buf[oow + ra] = ob
    elif oa >= 0 and ob >= 0:
        raise AssertionError("two claimed groups merged (impossible, RULES 1.7d)")
    buf[osz + ra] += buf[osz + rb]
    for k in range(A_MINR, A_MAXC + 1, 2):      # (min, max) pairs for rows, then columns
        lo, hi = _o(k, P), _o(k + 1, P)
        buf[lo + ra] = min(buf[lo + ra], buf[lo + rb])
        buf[hi + ra] = max(buf[hi + ra], buf[hi + rb])
    return ra


@njit(cache=True, inline="always")
def _same_box(buf, P, root, ci, label):
    box = A_CBOX + 4 * ci
    for k in range(4):
        if buf[_o(A_MINR + k, P) + root] != buf[_o(box + k, P) + label]:
            return False
    return True


@njit(cache=True, inline="always")
def _passable(buf, ob, x, blocker):
    return x >= 0 and buf[ob + x] != blocker


@njit(cache=True, inline="always")
def _line_has(buf, oc, start, step, lo, hi, label):
    """Whether some cell start + k*step, k in lo..hi, carries ``label`` (at offset oc)."""
    for k in range(lo, hi + 1):
        if buf[oc + start + k * step] == label:
            return True
    return False


@njit(cache=True, inline="always")
def _locally_connected(buf, P, nbr, diag, cell, c):
    """True when the cells around ``cell`` not holding ``c`` join up around it.

    Also returns how many of its four neighbours are passable.
    """
    ob = _o(A_BOARD, P)
    pn = _passable(buf, ob, nbr[cell, 0], c)
    pe = _passable(buf, ob, nbr[cell, 1], c)
    ps = _passable(buf, ob, nbr[cell, 2], c)
    pw = _passable(buf, ob, nbr[cell, 3], c)
    k = int(pn) + int(pe) + int(ps) + int(pw)
    if k <= 1:
        return True, k
    links = 0
    if pn and pe and _passable(buf, ob, diag[cell, 0], c):
        links += 1
    if pe and ps and _passable(buf, ob, diag[cell, 1], c):
        links += 1
    if ps and pw and _passable(buf, ob, diag[cell, 2], c):
        links += 1
    if pw and pn and _passable(buf, ob, diag[cell, 3], c):
        links += 1
    return links >= k - 1, k


ALL_SIDES = 15


@njit(cache=True, inline="always")
def _box_sides(buf, P, ci, label, row, col):
    """Bit set of the sides of ``label``'s bbox that (row, col) lies on: 1 low row,
    2 high row, 4 low column, 8 high column."""
    box = A_CBOX + 4 * ci
    return ((row == buf[_o(box, P) + label]) | (row == buf[_o(box + 1, P) + label]) << 1
            | (col == buf[_o(box + 2, P) + label]) << 2
            | (col == buf[_o(box + 3, P) + label]) << 3)


@njit(cache=True)
def _shrink(buf, n, ci, label, mover, sides):
    """Fit component ``label``'s bbox after it lost cells on ``sides``; claim a
    group that now fits it. (A side can only move if a lost cell was on it.)"""
    P = n * n
    oc, box = _o(A_COMP + ci, P), A_CBOX + 4 * ci
    minr, maxr = buf[_o(box, P) + label], buf[_o(box + 1, P) + label]
    minc, maxc = buf[_o(box + 2, P) + label], buf[_o(box + 3, P) + label]
    changed = False
    if sides & 2:
        while not _line_has(buf, oc, maxr * n, 1, minc, maxc, label):
            maxr -= 1
            changed = True
            if maxr < minr:
                raise AssertionError("empty component (engine invariant broken)")
    if sides & 1:
        while not _line_has(buf, oc, minr * n, 1, minc, maxc, label):
            minr += 1
            changed = True
            if minr > maxr:
                raise AssertionError("empty component (engine invariant broken)")
    if sides & 8 or changed:
        while not _line_has(buf, oc, maxc, n, minr, maxr, label):
            maxc -= 1
            changed = True
            if maxc < minc:
                raise AssertionError("empty component (engine invariant broken)")
    if sides & 4 or changed:
        while not _line_has(buf, oc, minc, n, minr, maxr, label):
            minc += 1
            changed = True
            if minc > maxc:
                raise AssertionError("empty component (engine invariant broken)")
    if not changed:
        return
    buf[_o(box, P) + label], buf[_o(box + 1, P) + label] = minr, maxr
    buf[_o(box + 2, P) + label], buf[_o(box + 3, P) + label] = minc, maxc
    ob, opar, oow = _o(A_BOARD, P), _o(A_PARENT, P), _o(A_OWNER, P)
    for col in range(minc, maxc + 1):       # a finished group touches every side
        x = maxr * n + col
        if buf[oc + x] == label and buf[ob + x] == ci + 1:
            root = find_at(buf, opar, x)
            if buf[oow + root] < 0 and _same_box(buf, P, root, ci, label):
                _claim(buf, P, root, mover)


@njit(cache=True, inline="always")
def _queue_at(P, i):
    """Offset of search queue ``i`` in the scratch space."""
    return 1 + (1 + i) * P


@njit(cache=True)
def _settle(buf, scratch, n, ci, tail, members, label, mover):
    """Give the cells of the finished searches ``members`` component ``label``; claim."""
    P = n * n
    oc, ob = _o(A_COMP + ci, P), _o(A_BOARD, P)
    minr, maxr, minc, maxc = n, -1, n, -1
    for j in range(MAX_SEARCHES):
        if scratch[members + j]:
            oq = _queue_at(P, j)
            for i in range(scratch[tail + j]):
                x = scratch[oq + i]
                buf[oc + x] = label
                row, col = x // n, x % n
                minr, maxr = min(minr, row), max(maxr, row)
                minc, maxc = min(minc, col), max(maxc, col)
    box = A_CBOX + 4 * ci
    buf[_o(box, P) + label], buf[_o(box + 1, P) + label] = minr, maxr
    buf[_o(box + 2, P) + label], buf[_o(box + 3, P) + label] = minc, maxc
    opar, oow = _o(A_PARENT, P), _o(A_OWNER, P)
    for j in range(MAX_SEARCHES):
        if scratch[members + j]:
            oq = _queue_at(P, j)
            for i in range(scratch[tail + j]):
                x = scratch[oq + i]
                if buf[ob + x] == ci + 1:
                    root = find_at(buf, opar, x)
                    if buf[oow + root] < 0 and _same_box(buf, P, root, ci, label):
                        _claim(buf, P, root, mover)


@njit(cache=True, inline="always")
def _class_of(scratch, link, i):
    while scratch[link + i] != i:
        i = scratch[link + i]
    return i


@njit(cache=True)
def _split(buf, scratch, n, nbr, cell, c, label, mover):
    """The other colour's component ``label`` lost ``cell``: find the pieces.

    One breadth-first search starts at each passable neighbour; searches that
    meet join. As soon as at most one joined search is still running, every
    finished one is a separate piece (relabelled) and the running one is the
    rest of the old component, which keeps ``label`` without being explored.
    """
    P = n * n
    ob = _o(A_BOARD, P)
    ci = 2 - c
    base = scratch[0] + 1                        # marks base..base+3, all new
    scratch[0] += MAX_SEARCHES
    small = 1 + (1 + MAX_SEARCHES) * P           # offsets of the small arrays
    head, tail, link = small, small + MAX_SEARCHES, small + 2 * MAX_SEARCHES
    settled, members = small + 3 * MAX_SEARCHES, small + 4 * MAX_SEARCHES
    for i in range(MAX_SEARCHES):
        scratch[head + i] = 0
        scratch[tail + i] = 0
        scratch[link + i] = i
        scratch[settled + i] = 0
    k = 0
    for d in range(4):
        q = nbr[cell, d]
        if q >= 0 and buf[ob + q] != c:
            scratch[_queue_at(P, k)] = q
            scratch[tail + k] = 1
            scratch[1 + q] = base + k
            k += 1
    running = -1
    while True:
        running = -1
        many = False
        for i in range(k):
            if scratch[head + i] < scratch[tail + i]:
                root = _class_of(scratch, link, i)
                if running >= 0 and running != root:
                    many = True
                running = root
        if not many:
            break
        for i in range(k):
            h = scratch[head + i]
            if h >= scratch[tail + i]:
                continue
            oq = _queue_at(P, i)
            x = scratch[oq + h]
            scratch[head + i] = h + 1
            for d in range(4):
                y = nbr[x, d]
                if y < 0 or buf[ob + y] == c:
                    continue
                seen = scratch[1 + y] - base
                if 0 <= seen < MAX_SEARCHES:
                    a, b = _class_of(scratch, link, i), _class_of(scratch, link, seen)
                    if a != b:
                        scratch[link + max(a, b)] = min(a, b)
                else:
                    scratch[1 + y] = base + i
                    scratch[oq + scratch[tail + i]] = y
                    scratch[tail + i] += 1
    for i in range(k):
        root = _class_of(scratch, link, i)
        if root == running or scratch[settled + root]:
            continue
        scratch[settled + root] = 1
        for j in range(MAX_SEARCHES):
            scratch[members + j] = j < k and _class_of(scratch, link, j) == root
        _settle(buf, scratch, n, ci, tail, members, _new_label(buf, P, ci), mover)
    if running < 0:
        _free_label(buf, P, ci, label)
    else:
        _shrink(buf, n, ci, label, mover, ALL_SIDES)


@njit(cache=True)
def place(buf, scratch, n, nbr, diag, cell, c):
    """Place colour ``c`` (BLACK or WHITE) on empty ``cell`` and claim what finished."""
    P = n * n
    mover = buf[M_TURN]
    ob, opar = _o(A_BOARD, P), _o(A_PARENT, P)
    buf[ob + cell] = c
    _remove_empty(buf, P, cell)
    row, col = cell // n, cell % n
    buf[opar + cell] = cell
    buf[_o(A_SIZE, P) + cell] = 1
    buf[_o(A_MINR, P) + cell] = row
    buf[_o(A_MAXR, P) + cell] = row
    buf[_o(A_MINC, P) + cell] = col
    buf[_o(A_MAXC, P) + cell] = col
    buf[_o(A_OWNER, P) + cell] = -1
    root = cell
    for d in range(4):
        q = nbr[cell, d]
        if q >= 0 and buf[ob + q] == c:
            rq = find_at(buf, opar, q)
            if rq != root:
                root = _merge(buf, P, root, rq)
    if buf[_o(A_OWNER, P) + root] < 0:
        if _same_box(buf, P, root, c - 1, buf[_o(A_COMP + c - 1, P) + cell]):
            _claim(buf, P, root, mover)
    ci = 2 - c
    oc = _o(A_COMP + ci, P)
    label = buf[oc + cell]
    buf[oc + cell] = -1
    connected, k = _locally_connected(buf, P, nbr, diag, cell, c)
    if not connected:
        _split(buf, scratch, n, nbr, cell, c, label, mover)
    elif k == 0:
        _free_label(buf, P, ci, label)
    else:
        sides = _box_sides(buf, P, ci, label, row, col)
        if sides:
            _shrink(buf, n, ci, label, mover, sides)
    buf[M_TURN] = 1 - mover
    buf[M_PASSES] = 0
    buf[M_NPLACED] += 1


@njit(cache=True, inline="always")
def button_open(buf):
    """Whether the button is in play and nobody has taken it (no passing until then)."""
    return buf[M_BUTTON_ON] == 1 and buf[M_BUTTON] == NO_BUTTON


@njit(cache=True)
def is_legal(buf, n, action):
    """Whether a play action (a placement, pass or the button) is legal in play."""
    kind, cell, _ = decode(n, action)
    if kind == PLACE:
        return buf[_o(A_BOARD, n * n) + cell] == EMPTY
    if kind == PASS:
        return not button_open(buf)
    return kind == BUTTON and button_open(buf)


@njit(cache=True)
def legal(buf, n, out):
    """Write the legal play actions to ``out`` (black stones, white stones, then pass
    or the button); return how many."""
    P = n * n
    ob = _o(A_BOARD, P)
    k = 0
    for c in (BLACK, WHITE):
        for x in range(P):
            if buf[ob + x] == EMPTY:
                out[k] = encode(n, PLACE, x, c)
                k += 1
    out[k] = encode(n, BUTTON if button_open(buf) else PASS, 0, 0)
    return k + 1


@njit(cache=True)
def play(buf, scratch, n, nbr, diag, action):
    """Apply a legal play action: a placement, a pass or taking the button."""
    kind, cell, colour = decode(n, action)
    if kind == PLACE:
        place(buf, scratch, n, nbr, diag, cell, colour)
    elif kind == PASS:
        pass_turn(buf)
    else:
        take_button(buf)


@njit(cache=True)
def pass_turn(buf):
    buf[M_PASSES] += 1
    if buf[M_PASSES] >= 2:
        buf[M_OVER] = 1
    buf[M_TURN] = 1 - buf[M_TURN]


@njit(cache=True)
def take_button(buf):
    buf[M_BUTTON] = buf[M_TURN]
    buf[M_PASSES] = 0
    buf[M_TURN] = 1 - buf[M_TURN]


@njit(cache=True)
def playout(buf, scratch, n, nbr, diag, seed):
    """Random play to the end: uniform placements until full, the button, passes.

    Returns the number of moves made.
    """
    P = n * n
    oe = _o(A_EMPTY, P)
    s = rng_seed(seed)
    moves = 0
    while buf[M_OVER] == 0:
        ne = buf[M_NEMPTY]
        if ne > 0:
            s = rng_next(s)
            r = rng_below(s, 2 * ne)
            place(buf, scratch, n, nbr, diag, buf[oe + (r >> 1)], 1 + (r & 1))
        elif button_open(buf):
            take_button(buf)
        else:
            pass_turn(buf)
        moves += 1
    return moves


@njit(cache=True)
def playouts(buf, scratch, n, nbr, diag, count, seed):
    """``count`` random playouts from copies of ``buf``; returns the moves made."""
    moves = 0
    for i in range(count):
        work = buf.copy()
        moves += playout(work, scratch, n, nbr, diag, seed * 1000003 + i)
    return moves


@njit(cache=True)
def rebuild(buf, scratch, n, nbr):
    """Recompute groups, components and the empty list from the board (set-ups).

    Claims are cleared; the caller applies them with :func:`claim_at`.
    """
    P = n * n
    board, parent = _arr(buf, A_BOARD, P), _arr(buf, A_PARENT, P)
    owner = _arr(buf, A_OWNER, P)
    buf[M_SCORE_V] = 0
    buf[M_SCORE_H] = 0
    empty, epos = _arr(buf, A_EMPTY, P), _arr(buf, A_EPOS, P)
    for x in range(P):
        parent[x] = x
        owner[x] = -1
        _arr(buf, A_SIZE, P)[x] = 1
        _arr(buf, A_MINR, P)[x] = x // n
        _arr(buf, A_MAXR, P)[x] = x // n
        _arr(buf, A_MINC, P)[x] = x % n
        _arr(buf, A_MAXC, P)[x] = x % n
    buf[M_NEMPTY] = index_empties(board, empty, epos)
    for x in range(P):
        if board[x] == EMPTY:
            continue
        for d in range(4):
            q = nbr[x, d]
            if q >= 0 and board[q] == board[x]:
                ra, rb = find(parent, x), find(parent, q)
                if ra != rb:
                    _merge(buf, P, ra, rb)
    mark, queue = scratch[1:1 + P], scratch[_queue_at(P, 0):_queue_at(P, 1)]
    small = 1 + (1 + MAX_SEARCHES) * P
    tail, members = small + MAX_SEARCHES, small + 4 * MAX_SEARCHES
    for j in range(MAX_SEARCHES):
        scratch[members + j] = j == 0
    for c in (BLACK, WHITE):
        comp = _arr(buf, A_COMP + c - 1, P)
        _reset_free(buf, P, c - 1, 0)
        scratch[0] += 1
        stamp = scratch[0]
        for x in range(P):
            comp[x] = -1
        for x in range(P):
            if board[x] == 3 - c or mark[x] == stamp:
                continue
            scratch[tail] = flood(nbr, board, EMPTY, c, x, stamp, mark, queue, 0)
            _settle(buf, scratch, n, c - 1, tail, members, _new_label(buf, P, c - 1), 0)
    owner[:] = -1                      # _settle claimed; set-ups give the claims
    buf[M_SCORE_V] = 0
    buf[M_SCORE_H] = 0


@njit(cache=True)
def group_root(buf, n, cell):
    return find(_arr(buf, A_PARENT, n * n), cell)


@njit(cache=True)
def is_finished(buf, n, cell):
    """Whether the group at stone ``cell`` is finished (bbox equals its region's)."""
    P = n * n
    c = _arr(buf, A_BOARD, P)[cell]
    root = find(_arr(buf, A_PARENT, P), cell)
    return _same_box(buf, P, root, c - 1, _arr(buf, A_COMP + c - 1, P)[cell])


@njit(cache=True)
def claim_at(buf, n, cell, owner):
    """Set-ups: put ``owner``'s marker on the group at ``cell``."""
    P = n * n
    root = find(_arr(buf, A_PARENT, P), cell)
    _arr(buf, A_OWNER, P)[root] = owner
    buf[M_SCORE_V + owner] += _arr(buf, A_SIZE, P)[root]
