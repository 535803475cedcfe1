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
test cannot rule it out. The re-flood grows bit rows (``A_ROWS``: each colour's
stones as one bit mask per row, n <= 26) rather than visiting cells one by one.

A random playout fills the board first and settles the claims at the end (see
:func:`playout`): it keeps no components on the way.
"""
from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros

from .kernels import (drop_empty, find, find_at, flood, index_empties, rng_below, rng_next,
                      rng_seed)
from .territory_actions import (BUTTON, KOMI, PASS, PLACE, SIDE, decode, encode,  # noqa: F401
                                max_komi_half, num_actions)

EMPTY, BLACK, WHITE = 0, 1, 2
VERTICAL, HORIZONTAL = 0, 1

META = 16
M_TURN, M_PASSES, M_BUTTON, M_NEMPTY, M_SCORE_V, M_SCORE_H, M_NFREE, _M_NFREE_W, M_OVER, \
    M_BUTTON_ON, M_NPLACED, M_ROW_MUL = range(12)
(A_BOARD, A_PARENT, A_SIZE, A_MINR, A_MAXR, A_MINC, A_MAXC, A_OWNER,
 A_COMP, _A_COMP_W, A_CBOX, _cb1, _cb2, _cb3, _cb4, _cb5, _cb6, _cb7,
 A_FREE, _A_FREE_W, A_EMPTY, A_EPOS, A_ROWS) = range(23)
NARR = 23
NO_BUTTON = -1
MAX_SEARCHES = 4

# Action numbers: see territory_actions (shared with Rumbo).


def buffer_size(n: int) -> int:
    return META + NARR * n * n




def new_scratch(n: int) -> np.ndarray:
    """Work space for the flood fills: a stamp counter, marks and four queues (the set-up
    flood of :func:`rebuild`; a split keeps its regions' bit rows where the queues are),
    then five small arrays of MAX_SEARCHES entries, then the playout's arrays
    (``X_`` constants, P entries each).

    Not part of the position: states of one size may share it (single thread).
    """
    return np.zeros(_offline_base(n * n) + X_SIZE * n * n, dtype=np.int64)


# The playout's arrays in the work space (see playout and _settle_claims): per group root,
# the placement since which a part of it spans its bbox and that part's root then (TQ,
# QS); per cell, its placement (TPLACE, -1: before the playout), the cell of each
# placement (ORDER), the root that absorbed it and when (BY, AT), the placement that
# finished its component's bbox (T1); per colour, the reverse union-find (RPAR, RBOX
# four arrays, PEND: the group whose bbox it has, RSIZE) and when each cell stops
# being passable (LIVE).
X_TQ, X_QS, X_TPLACE, X_ORDER, X_BY, X_AT, X_T1, X_RPAR, X_RBOX, X_PEND, X_RSIZE, X_LIVE, \
    X_SIZE = 0, 1, 2, 3, 4, 5, 6, 7, 9, 17, 19, 21, 23


@njit(cache=True, inline="always")
def _offline_base(P):
    return 1 + (1 + MAX_SEARCHES) * P + 5 * MAX_SEARCHES


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
    buf[M_ROW_MUL] = (65536 + n - 1) // n          # row = cell * this >> 16 (n <= 26)
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
    drop_empty(buf, _o(A_EMPTY, P), _o(A_EPOS, P), M_NEMPTY, cell)


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
def _line_has(buf, oc, start, step, lo, hi, label):
    """Whether some cell start + k*step, k in lo..hi, carries ``label`` (at offset oc)."""
    for k in range(lo, hi + 1):
        if buf[oc + start + k * step] == label:
            return True
    return False


def _local_table() -> np.ndarray:
    """For each 3x3 pattern of passable cells around a point (bit 3*dr + dc for row
    row-1+dr, column col-1+dc; the centre ignored): 1 when the passable orthogonal
    neighbours join up through the diagonal ones (or there are at most one), plus twice
    how many orthogonal neighbours are passable."""
    table = np.zeros(512, dtype=np.int32)
    for pattern in range(512):
        def at(dr, dc, pattern=pattern):
            return (pattern >> (3 * (dr + 1) + dc + 1)) & 1
        pn, pe, ps, pw = at(1, 0), at(0, 1), at(-1, 0), at(0, -1)
        k = pn + pe + ps + pw
        links = (pn & pe & at(1, 1)) + (pe & ps & at(-1, 1)) + (ps & pw & at(-1, -1)) \
            + (pw & pn & at(1, -1))
        table[pattern] = int(k <= 1 or links >= k - 1) | k << 1
    return table


LOCAL = _local_table()


@njit(cache=True, inline="always")
def _locally_connected(buf, P, n, row, col, c):
    """True when the cells around (row, col) not holding ``c`` join up around it.

    Also returns how many of its four neighbours are passable, and the pattern of
    passable cells around it (see ``_local_table``). Reads the stone rows.
    """
    orow = _o(A_ROWS, P) + (c - 1) * n
    full = (np.int64(1) << n) - 1
    pattern = (((full & ~np.int64(buf[orow + row])) << 1) >> col & 7) << 3
    if row > 0:
        pattern |= ((full & ~np.int64(buf[orow + row - 1])) << 1) >> col & 7
    if row < n - 1:
        pattern |= (((full & ~np.int64(buf[orow + row + 1])) << 1) >> col & 7) << 6
    v = LOCAL[pattern]
    return (v & 1) != 0, v >> 1, pattern


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
def _fill_row(m, s, n):
    """The runs of set bits of row mask ``m`` (n bits) that hold a bit of ``s`` (s in m)."""
    up = (((m + s) ^ m) | s) & m       # the carries: from each run's lowest seed to its top
    g, q = s, m                        # and down from its highest seed (Kogge-Stone)
    g |= q & (g >> 1)
    q &= q >> 1
    g |= q & (g >> 2)
    q &= q >> 2
    g |= q & (g >> 4)
    q &= q >> 4
    g |= q & (g >> 8)
    if n > 16:
        q &= q >> 8
        g |= q & (g >> 16)
    return g | up


@njit(cache=True, inline="always")
def _grow_row(buf, scratch, orow, full, n, off, lo, hi, r):
    """Add to region row ``r`` what its neighbouring rows reach; whether it grew.

    Only rows lo..hi of the region are in use (the others count as empty).
    """
    cur = scratch[off + r] if lo <= r <= hi else 0
    s = cur
    if lo <= r - 1 <= hi:
        s |= scratch[off + r - 1]
    if lo <= r + 1 <= hi:
        s |= scratch[off + r + 1]
    m = full & ~np.int64(buf[orow + r])
    s &= m
    if s == cur:
        return False
    scratch[off + r] = _fill_row(m, s, n)
    return True


@njit(cache=True, inline="always")
def _grow(buf, scratch, orow, full, n, off, lo, hi, up):
    """One sweep of the region rows at ``scratch[off:off+n]`` (rows lo..hi in use)
    through the cells not blocked by the stones at ``buf[orow:]``, upward or downward.

    Returns whether it grew, and its new lo and hi.
    """
    grew = False
    if up:
        r = max(lo - 1, 0)
        while r <= min(hi + 1, n - 1):
            if _grow_row(buf, scratch, orow, full, n, off, lo, hi, r):
                grew = True
                lo, hi = min(lo, r), max(hi, r)
            r += 1
    else:
        r = min(hi + 1, n - 1)
        while r >= max(lo - 1, 0):
            if _grow_row(buf, scratch, orow, full, n, off, lo, hi, r):
                grew = True
                lo, hi = min(lo, r), max(hi, r)
            r -= 1
    return grew, lo, hi


@njit(cache=True)
def _settle_rows(buf, scratch, n, ci, off, lo, hi, label, mover):
    """Give the cells of region rows ``scratch[off:]`` (lo..hi) component ``label``,
    fit its bbox, and claim the groups that now fill it."""
    P = n * n
    oc = _o(A_COMP + ci, P)
    minr, maxr, cols = n, -1, np.int64(0)
    for r in range(lo, hi + 1):
        bits = scratch[off + r]
        if bits == 0:
            continue
        minr, maxr = min(minr, r), max(maxr, r)
        cols |= bits
        while bits:
            col = trailing_zeros(bits)
            buf[oc + r * n + col] = label
            bits &= bits - 1
    box = A_CBOX + 4 * ci
    buf[_o(box, P) + label], buf[_o(box + 1, P) + label] = minr, maxr
    buf[_o(box + 2, P) + label] = trailing_zeros(cols)
    buf[_o(box + 3, P) + label] = 63 - leading_zeros(cols)
    ob, opar, oow = _o(A_BOARD, P), _o(A_PARENT, P), _o(A_OWNER, P)
    bits = scratch[off + maxr]         # a finished group touches every side: its top row
    while bits:
        x = maxr * n + trailing_zeros(bits)
        bits &= bits - 1
        if buf[ob + x] == ci + 1:
            root = find_at(buf, opar, x)
            if buf[oow + root] < 0 and _same_box(buf, P, root, ci, label):
                _claim(buf, P, root, mover)


@njit(cache=True)
def _split(buf, scratch, n, cell, row, col, c, label, mover):
    """The other colour's component ``label`` lost ``cell`` at (row, col): find the pieces.

    A region starts at each passable neighbour and grows by sweeps of bit rows,
    the narrowest first; regions that meet join. As soon as at most one joined
    region is still growing, every finished one is a separate piece (relabelled)
    and the growing one is the rest of the old component, which keeps ``label``
    without being explored further.
    """
    P = n * n
    ob = _o(A_BOARD, P)
    ci = 2 - c
    orow = _o(A_ROWS, P) + (c - 1) * n           # the blockers: colour c's stones
    full = (np.int64(1) << n) - 1
    reg = _queue_at(P, 0)                         # region i: rows reg + i*n ..
    small = 1 + (1 + MAX_SEARCHES) * P
    lo, hi, link = small, small + MAX_SEARCHES, small + 2 * MAX_SEARCHES
    done, sweeps = small + 3 * MAX_SEARCHES, small + 4 * MAX_SEARCHES
    k = 0
    for d in range(4):                            # north, east, south, west
        if d == 0:
            r, q, on = row + 1, cell + n, row < n - 1
        elif d == 1:
            r, q, on = row, cell + 1, col < n - 1
        elif d == 2:
            r, q, on = row - 1, cell - n, row > 0
        else:
            r, q, on = row, cell - 1, col > 0
        if on and buf[ob + q] != c:
            scratch[reg + k * n + r] = _fill_row(full & ~np.int64(buf[orow + r]),
                                                 np.int64(1) << (q - r * n), n)
            scratch[lo + k] = r
            scratch[hi + k] = r
            scratch[link + k] = k
            scratch[done + k] = 0
            scratch[sweeps + k] = 0
            k += 1
    while True:
        i, running, growing = -1, -1, 0           # grow the narrowest growing region
        for j in range(k):
            if scratch[link + j] == j and not scratch[done + j]:
                running = j
                growing += 1
                if i < 0 or scratch[hi + j] - scratch[lo + j] < scratch[hi + i] - scratch[lo + i]:
                    i = j
        if growing <= 1:
            break
        up = scratch[sweeps + i] % 2 == 0
        scratch[sweeps + i] += 1
        oi = reg + i * n
        grew, a, b = _grow(buf, scratch, orow, full, n, oi, scratch[lo + i], scratch[hi + i], up)
        scratch[lo + i], scratch[hi + i] = a, b
        if not grew:
            scratch[done + i] = 1                 # closed: a whole piece
            continue
        for j in range(k):                        # regions that meet join
            if j == i or scratch[link + j] != j:
                continue
            meet = False
            for r in range(max(a, scratch[lo + j]), min(b, scratch[hi + j]) + 1):
                if scratch[oi + r] & scratch[reg + j * n + r]:
                    meet = True
                    break
            if not meet:
                continue
            for r in range(scratch[lo + j], scratch[hi + j] + 1):
                if a <= r <= b:
                    scratch[oi + r] |= scratch[reg + j * n + r]
                else:
                    scratch[oi + r] = scratch[reg + j * n + r]
            a, b = min(a, scratch[lo + j]), max(b, scratch[hi + j])
            scratch[lo + i], scratch[hi + i] = a, b
            scratch[done + i] |= scratch[done + j]    # a closed region is the whole piece
            scratch[link + j] = i
    sides = _box_sides(buf, P, ci, label, row, col)     # the sides that lost cells
    box = A_CBOX + 4 * ci
    for i in range(k):
        if scratch[link + i] == i and i != running:
            new = _new_label(buf, P, ci)
            _settle_rows(buf, scratch, n, ci, reg + i * n, scratch[lo + i], scratch[hi + i],
                         new, mover)
            for e in range(4):
                if buf[_o(box + e, P) + new] == buf[_o(box + e, P) + label]:
                    sides |= 1 << e
    if running < 0:
        _free_label(buf, P, ci, label)
    elif sides:
        _shrink(buf, n, ci, label, mover, sides)


@njit(cache=True)
def place(buf, scratch, n, nbr, diag, cell, c):
    """Place colour ``c`` (BLACK or WHITE) on empty ``cell`` and claim what finished.

    (``diag`` is no longer read: the local test reads the stone rows.)
    """
    place_inline(buf, scratch, n, nbr, cell, c)


@njit(cache=True, inline="always")
def place_inline(buf, scratch, n, nbr, cell, c):
    """:func:`place`, inlined into the playouts and the vector step."""
    P = n * n
    mover = buf[M_TURN]
    ob, opar = _o(A_BOARD, P), _o(A_PARENT, P)
    buf[ob + cell] = c
    _remove_empty(buf, P, cell)
    row = (cell * buf[M_ROW_MUL]) >> 16
    col = cell - row * n
    buf[_o(A_ROWS, P) + (c - 1) * n + row] |= 1 << col
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
    connected, k, around = _locally_connected(buf, P, n, row, col, c)
    if not connected:
        _split(buf, scratch, n, cell, row, col, c, label, mover)
    elif k == 0:
        _free_label(buf, P, ci, label)
    else:
        sides = _box_sides(buf, P, ci, label, row, col)
        if around & (1 << 3 | 1 << 5):        # a passable west or east neighbour keeps
            sides &= ~3                       # the component on this row,
        if around & (1 << 1 | 1 << 7):        # a south or north one on this column
            sides &= ~12
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
def play_if_legal(buf, scratch, n, nbr, diag, action):
    """:func:`play` of ``action`` (in range) if :func:`is_legal` says it may be played
    (in play, not over); whether it was (one call for a checked move)."""
    if not is_legal(buf, n, action):
        return False
    play(buf, scratch, n, nbr, diag, action)
    return True


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
def _claims_consistent(buf, n):
    """Whether exactly the finished groups are claimed (true of every position reached
    by play; a hand-made set-up may claim otherwise)."""
    P = n * n
    if buf[M_NEMPTY] == P:
        return True
    ob, opar, oow = _o(A_BOARD, P), _o(A_PARENT, P), _o(A_OWNER, P)
    for x in range(P):
        c = buf[ob + x]
        if c != EMPTY and buf[opar + x] == x:
            if _same_box(buf, P, x, c - 1, buf[_o(A_COMP + c - 1, P) + x]) \
                    != (buf[oow + x] >= 0):
                return False
    return True


@njit(cache=True)
def playout(buf, scratch, n, nbr, diag, seed):
    """Random play to the end: uniform placements until full, the button, passes.

    Returns the number of moves made.

    The claims are settled once the board is full, from the order of the placements
    (the same claims, owner marks and scores as placing move by move, which
    :func:`_playout_steps` does after a set-up whose claims are not exactly its
    finished groups).
    The placements join the groups as :func:`place` does. A group G of the full
    board, with bbox Q, was claimed at the first placement after which (a) one of the
    groups it is made of spans Q and (b) the component of G's colour that holds G has
    bbox Q (RULES 1.7a: then that group is finished, and before, none is). (a) is kept
    with the joins; (b) comes from undoing the placements in reverse order: a
    colour's components then only join (a union-find), and G's keeps bbox Q until the
    undo of the placement that made it so.
    """
    if not _claims_consistent(buf, n):
        return _playout_steps(buf, scratch, n, nbr, diag, seed)
    P = n * n
    oe, opos = _o(A_EMPTY, P), _o(A_EPOS, P)
    ob, opar, osz, oow = _o(A_BOARD, P), _o(A_PARENT, P), _o(A_SIZE, P), _o(A_OWNER, P)
    omr, oxr, omc, oxc = _o(A_MINR, P), _o(A_MAXR, P), _o(A_MINC, P), _o(A_MAXC, P)
    orows = _o(A_ROWS, P)
    base = _offline_base(P)
    tq, qs, tplace = base + X_TQ * P, base + X_QS * P, base + X_TPLACE * P
    order, by, at = base + X_ORDER * P, base + X_BY * P, base + X_AT * P
    ne = buf[M_NEMPTY]
    moves = 0
    if buf[M_OVER] == 0 and ne > 0:
        for x in range(P):
            scratch[tq + x] = -1           # the groups there now: their bbox is as old
            scratch[qs + x] = x
            scratch[tplace + x] = -1
        rowmul = buf[M_ROW_MUL]
        s = rng_seed(seed)
        for m in range(ne):
            s = rng_next(s)
            r = rng_below(s, 2 * (ne - m))
            cell = buf[oe + (r >> 1)]
            drop_empty(buf, oe, opos, M_NEMPTY, cell)
            c = 1 + (r & 1)
            buf[ob + cell] = c
            row = (cell * rowmul) >> 16
            col = cell - row * n
            buf[orows + (c - 1) * n + row] |= 1 << col
            buf[opar + cell] = cell
            buf[osz + cell] = 1
            buf[omr + cell] = row
            buf[oxr + cell] = row
            buf[omc + cell] = col
            buf[oxc + cell] = col
            buf[oow + cell] = -1
            scratch[tq + cell] = m
            scratch[qs + cell] = cell
            scratch[tplace + cell] = m
            scratch[order + m] = cell
            root = cell
            for d in range(4):
                q = nbr[cell, d]
                if q < 0 or buf[ob + q] != c:
                    continue
                rq = find_at(buf, opar, q)
                if rq == root:
                    continue
                a0, a1, a2, a3 = buf[omr + root], buf[oxr + root], buf[omc + root], \
                    buf[oxc + root]
                b0, b1, b2, b3 = buf[omr + rq], buf[oxr + rq], buf[omc + rq], buf[oxc + rq]
                n0, n1, n2, n3 = min(a0, b0), max(a1, b1), min(a2, b2), max(a3, b3)
                if n0 == a0 and n1 == a1 and n2 == a2 and n3 == a3:
                    t_new, s_new = scratch[tq + root], scratch[qs + root]
                elif n0 == b0 and n1 == b1 and n2 == b2 and n3 == b3:
                    t_new, s_new = scratch[tq + rq], scratch[qs + rq]
                else:
                    t_new, s_new = m, -1
                keep = _merge(buf, P, root, rq)     # (claims made before the playout
                gone = rq if keep == root else root     # carry over as in place)
                scratch[by + gone] = keep
                scratch[at + gone] = m
                scratch[tq + keep] = t_new
                scratch[qs + keep] = keep if s_new < 0 else s_new
                root = keep
        buf[M_NPLACED] += ne
        buf[M_PASSES] = 0
        first_turn = buf[M_TURN]
        buf[M_TURN] = first_turn ^ (ne & 1)
        _settle_claims(buf, scratch, n, nbr, ne, first_turn)
        moves = ne
    return moves + _end_turns(buf)


@njit(cache=True, inline="always")
def _end_turns(buf):
    """A playout's moves once the board is full: the button if it is open, then passes
    to the end; returns how many."""
    moves = 0
    while buf[M_OVER] == 0:
        if button_open(buf):
            take_button(buf)
        else:
            pass_turn(buf)
        moves += 1
    return moves


@njit(cache=True, inline="always")
def _still_pending(scratch, t1, t, g, same_box):
    """Group ``g`` (-1: none) pending on a component that joins another at undo ``t``:
    still pending (returned) if the join keeps the component's bbox, else its component
    reached bbox Q at ``t`` (written to ``t1``) and -1."""
    if g < 0 or same_box:
        return g
    scratch[t1 + g] = t
    return -1


@njit(cache=True)
def _settle_claims(buf, scratch, n, nbr, m, first_turn):
    """The claims of a playout that filled the board with ``m`` placements (see
    :func:`playout`), and the components of the full board."""
    P = n * n
    ob, opar, osz, oow = _o(A_BOARD, P), _o(A_PARENT, P), _o(A_SIZE, P), _o(A_OWNER, P)
    omr = _o(A_MINR, P)
    base = _offline_base(P)
    tq, qs, tplace = base + X_TQ * P, base + X_QS * P, base + X_TPLACE * P
    order, by, at = base + X_ORDER * P, base + X_BY * P, base + X_AT * P
    rbox, t1 = base + X_RBOX * P, base + X_T1 * P
    # each colour's components of the full board: its groups, each pending (bbox Q);
    # they are also the components the position keeps (labelled by the group roots)
    nfree0, nfree1 = 0, 0
    free0, free1 = _o(A_FREE, P), _o(A_FREE + 1, P)
    for x in range(P):
        ci = buf[ob + x] - 1
        root = find_at(buf, opar, x)
        scratch[base + (X_RPAR + ci) * P + x] = root
        buf[_o(A_COMP + ci, P) + x] = root
        buf[_o(A_COMP + 1 - ci, P) + x] = -1
        scratch[base + (X_LIVE + ci) * P + x] = P     # passable for its colour throughout,
        scratch[base + (X_LIVE + 1 - ci) * P + x] = scratch[tplace + x]   # until placed
        for e in range(4):
            v = buf[omr + e * P + x]
            buf[_o(A_CBOX + 4 * ci + e, P) + x] = v
            scratch[rbox + (4 * ci + e) * P + x] = v
        scratch[base + (X_PEND + ci) * P + x] = x
        scratch[base + (X_RSIZE + ci) * P + x] = buf[osz + x]
        scratch[t1 + x] = -1
        buf[free0 + nfree0] = x
        nfree0 += not (ci == 0 and root == x)
        buf[free1 + nfree1] = x
        nfree1 += not (ci == 1 and root == x)
    buf[M_NFREE] = nfree0
    buf[M_NFREE + 1] = nfree1
    # undo the placements: the cell joins the other colour's passable set
    for t in range(m - 1, -1, -1):
        x = scratch[order + t]
        ci = 2 - buf[ob + x]               # the other colour's index
        rp, pend = base + (X_RPAR + ci) * P, base + (X_PEND + ci) * P
        rsz, live = base + (X_RSIZE + ci) * P, base + (X_LIVE + ci) * P
        bx = rbox + 4 * ci * P
        row = (x * buf[M_ROW_MUL]) >> 16
        col = x - row * n
        rx = -1                            # x's component, once it has joined one
        for d in range(4):
            y = nbr[x, d]
            if y < 0 or scratch[live + y] <= t:
                continue
            ry = find_at(scratch, rp, y)
            if rx < 0:                         # x alone joins ry's component
                scratch[rp + x] = ry
                scratch[rsz + ry] += 1
                a0, a1 = scratch[bx + ry], scratch[bx + P + ry]
                a2, a3 = scratch[bx + 2 * P + ry], scratch[bx + 3 * P + ry]
                if row < a0 or row > a1 or col < a2 or col > a3:
                    scratch[bx + ry], scratch[bx + P + ry] = min(a0, row), max(a1, row)
                    scratch[bx + 2 * P + ry], scratch[bx + 3 * P + ry] = min(a2, col), max(a3, col)
                    g = scratch[pend + ry]
                    if g >= 0:
                        scratch[t1 + g] = t       # its component reached bbox Q at t
                        scratch[pend + ry] = -1
                rx = ry
                continue
            if ry == rx:
                continue
            if scratch[rsz + rx] > scratch[rsz + ry]:
                rx, ry = ry, rx
            scratch[rp + rx] = ry            # the smaller component joins the larger
            scratch[rsz + ry] += scratch[rsz + rx]
            a0, a1 = scratch[bx + rx], scratch[bx + P + rx]
            a2, a3 = scratch[bx + 2 * P + rx], scratch[bx + 3 * P + rx]
            c0, c1 = scratch[bx + ry], scratch[bx + P + ry]
            c2, c3 = scratch[bx + 2 * P + ry], scratch[bx + 3 * P + ry]
            b0, b1, b2, b3 = min(a0, c0), max(a1, c1), min(a2, c2), max(a3, c3)
            kept = _still_pending(scratch, t1, t, scratch[pend + rx],
                                  b0 == a0 and b1 == a1 and b2 == a2 and b3 == a3)
            kept_y = _still_pending(scratch, t1, t, scratch[pend + ry],
                                    b0 == c0 and b1 == c1 and b2 == c2 and b3 == c3)
            scratch[pend + ry] = kept_y if kept_y >= 0 else kept
            scratch[bx + ry], scratch[bx + P + ry] = b0, b1
            scratch[bx + 2 * P + ry], scratch[bx + 3 * P + ry] = b2, b3
            rx = ry
        if rx < 0:                             # x alone: a component of its own
            scratch[rp + x] = x
            scratch[pend + x] = -1
            scratch[rsz + x] = 1
            scratch[bx + x] = row
            scratch[bx + P + x] = row
            scratch[bx + 2 * P + x] = col
            scratch[bx + 3 * P + x] = col
    # the claims made during the playout: at the later of (a) and (b), on the group
    # that then spans Q; the mark follows it into the groups that absorb it
    for x in range(P):
        if buf[opar + x] != x or buf[oow + x] >= 0:
            continue
        when = max(scratch[t1 + x], scratch[tq + x])
        if when < 0:
            raise AssertionError("a finished group was unclaimed (engine invariant broken)")
        h = buf[omr + P + x] - buf[omr + x]
        w = buf[omr + 3 * P + x] - buf[omr + 2 * P + x]
        owner = VERTICAL if h > w else HORIZONTAL if w > h else 1 - ((first_turn + when) & 1)
        buf[M_SCORE_V + owner] += buf[osz + x]
        g = scratch[qs + x]
        while g != x and scratch[at + g] <= when:
            g = scratch[by + g]
        buf[oow + g] = owner
        while g != x:
            g = scratch[by + g]
            buf[oow + g] = owner


@njit(cache=True)
def _playout_steps(buf, scratch, n, nbr, diag, seed):
    """:func:`playout`, placing move by move."""
    P = n * n
    oe = _o(A_EMPTY, P)
    s = rng_seed(seed)
    moves = 0
    while buf[M_OVER] == 0 and buf[M_NEMPTY] > 0:    # nobody passes while points are empty
        s = rng_next(s)
        r = rng_below(s, 2 * buf[M_NEMPTY])
        place(buf, scratch, n, nbr, diag, np.int64(buf[oe + (r >> 1)]), 1 + (r & 1))
        moves += 1
    return moves + _end_turns(buf)


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
    rows = _arr(buf, A_ROWS, P)
    rows[:] = 0
    for x in range(P):
        if board[x] != EMPTY:
            rows[(board[x] - 1) * n + x // n] |= 1 << (x % n)
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


# The compiled search's view of a position (``agents.kernel_tree``): the same arguments
# for every game that has one, ``aux`` being this game's diagonal table. -------------------

@njit(cache=True)
def search_over(buf):
    return buf[M_OVER] != 0


@njit(cache=True)
def search_turn(buf):
    return buf[M_TURN]


@njit(cache=True)
def search_legal(buf, scratch, n, nbr, aux, out):
    return legal(buf, n, out)


@njit(cache=True)
def search_play(buf, scratch, n, nbr, aux, action):
    play(buf, scratch, n, nbr, aux, action)


@njit(cache=True)
def search_playout(buf, scratch, n, nbr, aux, seed):
    playout(buf, scratch, n, nbr, aux, seed)


@njit(cache=True)
def search_lead(buf):
    """Vertical's lead in half points, komi aside (the button's half point in)."""
    holder = buf[M_BUTTON]
    return 2 * (buf[M_SCORE_V] - buf[M_SCORE_H]) + (holder == 0) - (holder == 1)
