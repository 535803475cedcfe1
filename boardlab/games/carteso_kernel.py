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

from .kernels import find, flood, rng_below, rng_next, rng_seed

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


def buffer_size(n: int) -> int:
    return META + NARR * n * n


def new_scratch(n: int) -> np.ndarray:
    """Work space for the flood fills: a stamp counter, marks and four queues.

    Not part of the position: states of one size may share it (single thread).
    """
    return np.zeros(1 + (1 + MAX_SEARCHES) * n * n, dtype=np.int64)


@njit(cache=True, inline="always")
def _arr(buf, k, P):
    return buf[META + k * P: META + (k + 1) * P]


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
def _new_label(buf, P, ci):
    buf[M_NFREE + ci] -= 1
    return _arr(buf, A_FREE + ci, P)[buf[M_NFREE + ci]]


@njit(cache=True, inline="always")
def _free_label(buf, P, ci, label):
    _arr(buf, A_FREE + ci, P)[buf[M_NFREE + ci]] = label
    buf[M_NFREE + ci] += 1


@njit(cache=True, inline="always")
def _remove_empty(buf, P, cell):
    empty, epos = _arr(buf, A_EMPTY, P), _arr(buf, A_EPOS, P)
    last = buf[M_NEMPTY] - 1
    i = epos[cell]
    moved = empty[last]
    empty[i] = moved
    epos[moved] = i
    empty[last] = cell
    epos[cell] = last
    buf[M_NEMPTY] = last


@njit(cache=True, inline="always")
def _claim(buf, P, root, mover):
    """Claim the unclaimed finished group at ``root`` for its current owner."""
    h = _arr(buf, A_MAXR, P)[root] - _arr(buf, A_MINR, P)[root]
    w = _arr(buf, A_MAXC, P)[root] - _arr(buf, A_MINC, P)[root]
    owner = VERTICAL if h > w else HORIZONTAL if w > h else 1 - mover
    _arr(buf, A_OWNER, P)[root] = owner
    buf[M_SCORE_V + owner] += _arr(buf, A_SIZE, P)[root]


@njit(cache=True)
def _merge(buf, P, ra, rb):
    """Union two group roots; a claim survives and counts the absorbed stones."""
    size, owner = _arr(buf, A_SIZE, P), _arr(buf, A_OWNER, P)
    if size[ra] < size[rb]:
        ra, rb = rb, ra
    _arr(buf, A_PARENT, P)[rb] = ra
    oa, ob = owner[ra], owner[rb]
    if oa >= 0 and ob < 0:
        buf[M_SCORE_V + oa] += size[rb]
    elif ob >= 0 and oa < 0:
        buf[M_SCORE_V + ob] += size[ra]
        owner[ra] = ob
    elif oa >= 0 and ob >= 0:
        raise AssertionError("two claimed groups merged (impossible, RULES 1.7d)")
    size[ra] += size[rb]
    lo, hi = _arr(buf, A_MINR, P), _arr(buf, A_MAXR, P)
    lo[ra] = min(lo[ra], lo[rb])
    hi[ra] = max(hi[ra], hi[rb])
    lo, hi = _arr(buf, A_MINC, P), _arr(buf, A_MAXC, P)
    lo[ra] = min(lo[ra], lo[rb])
    hi[ra] = max(hi[ra], hi[rb])
    return ra


@njit(cache=True, inline="always")
def _same_box(buf, P, root, ci, label):
    box = A_CBOX + 4 * ci
    return (_arr(buf, A_MINR, P)[root] == _arr(buf, box, P)[label]
            and _arr(buf, A_MAXR, P)[root] == _arr(buf, box + 1, P)[label]
            and _arr(buf, A_MINC, P)[root] == _arr(buf, box + 2, P)[label]
            and _arr(buf, A_MAXC, P)[root] == _arr(buf, box + 3, P)[label])


@njit(cache=True, inline="always")
def _passable(board, x, blocker):
    return x >= 0 and board[x] != blocker


@njit(cache=True)
def _line_has(comp, start, step, lo, hi, label):
    """Whether some cell start + k*step, k in lo..hi, carries ``label``."""
    for k in range(lo, hi + 1):
        if comp[start + k * step] == label:
            return True
    return False


@njit(cache=True)
def _locally_connected(board, nbr, diag, cell, c):
    """True when the cells around ``cell`` not holding ``c`` join up around it."""
    pn = _passable(board, nbr[cell, 0], c)
    pe = _passable(board, nbr[cell, 1], c)
    ps = _passable(board, nbr[cell, 2], c)
    pw = _passable(board, nbr[cell, 3], c)
    k = int(pn) + int(pe) + int(ps) + int(pw)
    if k <= 1:
        return True
    links = 0
    if pn and pe and _passable(board, diag[cell, 0], c):
        links += 1
    if pe and ps and _passable(board, diag[cell, 1], c):
        links += 1
    if ps and pw and _passable(board, diag[cell, 2], c):
        links += 1
    if pw and pn and _passable(board, diag[cell, 3], c):
        links += 1
    return links >= k - 1


@njit(cache=True)
def _shrink(buf, n, ci, label, mover):
    """Fit component ``label``'s bbox after it lost cells; claim a group that now fits it."""
    P = n * n
    comp, box = _arr(buf, A_COMP + ci, P), A_CBOX + 4 * ci
    minr, maxr = _arr(buf, box, P)[label], _arr(buf, box + 1, P)[label]
    minc, maxc = _arr(buf, box + 2, P)[label], _arr(buf, box + 3, P)[label]
    old = (minr, maxr, minc, maxc)
    while not _line_has(comp, maxr * n, 1, minc, maxc, label):
        maxr -= 1
    while not _line_has(comp, minr * n, 1, minc, maxc, label):
        minr += 1
    while not _line_has(comp, maxc, n, minr, maxr, label):
        maxc -= 1
    while not _line_has(comp, minc, n, minr, maxr, label):
        minc += 1
    if (minr, maxr, minc, maxc) == old:
        return
    _arr(buf, box, P)[label], _arr(buf, box + 1, P)[label] = minr, maxr
    _arr(buf, box + 2, P)[label], _arr(buf, box + 3, P)[label] = minc, maxc
    board, parent, owner = _arr(buf, A_BOARD, P), _arr(buf, A_PARENT, P), _arr(buf, A_OWNER, P)
    for col in range(minc, maxc + 1):       # a finished group touches every side
        x = maxr * n + col
        if comp[x] == label and board[x] == ci + 1:
            root = find(parent, x)
            if owner[root] < 0 and _same_box(buf, P, root, ci, label):
                _claim(buf, P, root, mover)


@njit(cache=True, inline="always")
def _queue(scratch, P, i):
    """Search queue ``i`` inside the scratch space."""
    return scratch[1 + (1 + i) * P: 1 + (2 + i) * P]


@njit(cache=True)
def _settle(buf, scratch, n, ci, tail, members, label, mover):
    """Give the cells of the finished searches ``members`` component ``label``; claim."""
    P = n * n
    comp, board = _arr(buf, A_COMP + ci, P), _arr(buf, A_BOARD, P)
    minr, maxr, minc, maxc = n, -1, n, -1
    for j in range(MAX_SEARCHES):
        if members[j]:
            queue = _queue(scratch, P, j)
            for i in range(tail[j]):
                x = queue[i]
                comp[x] = label
                row, col = x // n, x % n
                minr, maxr = min(minr, row), max(maxr, row)
                minc, maxc = min(minc, col), max(maxc, col)
    box = A_CBOX + 4 * ci
    _arr(buf, box, P)[label], _arr(buf, box + 1, P)[label] = minr, maxr
    _arr(buf, box + 2, P)[label], _arr(buf, box + 3, P)[label] = minc, maxc
    parent, owner = _arr(buf, A_PARENT, P), _arr(buf, A_OWNER, P)
    for j in range(MAX_SEARCHES):
        if members[j]:
            queue = _queue(scratch, P, j)
            for i in range(tail[j]):
                x = queue[i]
                if board[x] == ci + 1:
                    root = find(parent, x)
                    if owner[root] < 0 and _same_box(buf, P, root, ci, label):
                        _claim(buf, P, root, mover)


@njit(cache=True)
def _class_of(link, i):
    while link[i] != i:
        i = link[i]
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
    o = 3 - c
    ci = o - 1
    board = _arr(buf, A_BOARD, P)
    scratch[0] += MAX_SEARCHES
    base = scratch[0]
    mark = scratch[1:1 + P]
    starts = np.empty(MAX_SEARCHES, np.int64)
    head = np.zeros(MAX_SEARCHES, np.int64)
    tail = np.zeros(MAX_SEARCHES, np.int64)
    link = np.arange(MAX_SEARCHES)
    k = 0
    for d in range(4):
        q = nbr[cell, d]
        if q >= 0 and board[q] != c:
            starts[k] = q
            queue = _queue(scratch, P, k)
            queue[0] = q
            tail[k] = 1
            mark[q] = base + k
            k += 1
    while True:
        running = -1
        many = False
        for i in range(k):
            if head[i] < tail[i]:
                root = _class_of(link, i)
                if running >= 0 and running != root:
                    many = True
                running = root
        if not many:
            break
        for i in range(k):
            if head[i] >= tail[i]:
                continue
            queue = _queue(scratch, P, i)
            x = queue[head[i]]
            head[i] += 1
            for d in range(4):
                y = nbr[x, d]
                if y < 0 or board[y] == c:
                    continue
                seen = mark[y] - base
                if 0 <= seen < MAX_SEARCHES:
                    a, b = _class_of(link, i), _class_of(link, seen)
                    if a != b:
                        link[max(a, b)] = min(a, b)
                else:
                    mark[y] = base + i
                    queue[tail[i]] = y
                    tail[i] += 1
    settled = np.zeros(MAX_SEARCHES, np.bool_)
    members = np.zeros(MAX_SEARCHES, np.bool_)
    for i in range(k):
        root = _class_of(link, i)
        if root == running or settled[root]:
            continue
        settled[root] = True
        for j in range(MAX_SEARCHES):
            members[j] = j < k and _class_of(link, j) == root
        _settle(buf, scratch, n, ci, tail, members, _new_label(buf, P, ci), mover)
    if running < 0:
        _free_label(buf, P, ci, label)
    else:
        _shrink(buf, n, ci, label, mover)


@njit(cache=True)
def place(buf, scratch, n, nbr, diag, cell, c):
    """Place colour ``c`` (BLACK or WHITE) on empty ``cell`` and claim what finished."""
    P = n * n
    mover = buf[M_TURN]
    board, parent = _arr(buf, A_BOARD, P), _arr(buf, A_PARENT, P)
    board[cell] = c
    _remove_empty(buf, P, cell)
    row, col = cell // n, cell % n
    parent[cell] = cell
    _arr(buf, A_SIZE, P)[cell] = 1
    _arr(buf, A_MINR, P)[cell] = row
    _arr(buf, A_MAXR, P)[cell] = row
    _arr(buf, A_MINC, P)[cell] = col
    _arr(buf, A_MAXC, P)[cell] = col
    _arr(buf, A_OWNER, P)[cell] = -1
    root = cell
    for d in range(4):
        q = nbr[cell, d]
        if q >= 0 and board[q] == c:
            rq = find(parent, q)
            if rq != root:
                root = _merge(buf, P, root, rq)
    if _arr(buf, A_OWNER, P)[root] < 0:
        label = _arr(buf, A_COMP + c - 1, P)[cell]
        if _same_box(buf, P, root, c - 1, label):
            _claim(buf, P, root, mover)
    ci = 2 - c
    comp = _arr(buf, A_COMP + ci, P)
    label = comp[cell]
    comp[cell] = -1
    if _locally_connected(board, nbr, diag, cell, c):
        if _passable(board, nbr[cell, 0], c) or _passable(board, nbr[cell, 1], c) or \
                _passable(board, nbr[cell, 2], c) or _passable(board, nbr[cell, 3], c):
            _shrink(buf, n, ci, label, mover)
        else:
            _free_label(buf, P, ci, label)
    else:
        _split(buf, scratch, n, nbr, cell, c, label, mover)
    buf[M_TURN] = 1 - mover
    buf[M_PASSES] = 0
    buf[M_NPLACED] += 1


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
    empty = _arr(buf, A_EMPTY, P)
    s = rng_seed(seed)
    moves = 0
    while buf[M_OVER] == 0:
        ne = buf[M_NEMPTY]
        if ne > 0:
            s = rng_next(s)
            r = rng_below(s, 2 * ne)
            place(buf, scratch, n, nbr, diag, empty[r >> 1], 1 + (r & 1))
        elif buf[M_BUTTON_ON] == 1 and buf[M_BUTTON] == NO_BUTTON:
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
    ne = 0
    for x in range(P):
        parent[x] = x
        owner[x] = -1
        _arr(buf, A_SIZE, P)[x] = 1
        _arr(buf, A_MINR, P)[x] = x // n
        _arr(buf, A_MAXR, P)[x] = x // n
        _arr(buf, A_MINC, P)[x] = x % n
        _arr(buf, A_MAXC, P)[x] = x % n
        if board[x] == EMPTY:
            empty[ne] = x
            epos[x] = ne
            ne += 1
    k = ne
    for x in range(P):
        if board[x] != EMPTY:
            empty[k] = x
            epos[x] = k
            k += 1
    buf[M_NEMPTY] = ne
    for x in range(P):
        if board[x] == EMPTY:
            continue
        for d in range(4):
            q = nbr[x, d]
            if q >= 0 and board[q] == board[x]:
                ra, rb = find(parent, x), find(parent, q)
                if ra != rb:
                    _merge(buf, P, ra, rb)
    mark, queue = scratch[1:1 + P], _queue(scratch, P, 0)
    tail = np.zeros(MAX_SEARCHES, np.int64)
    members = np.zeros(MAX_SEARCHES, np.bool_)
    members[0] = True
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
            tail[0] = flood(nbr, board, EMPTY, c, x, stamp, mark, queue, 0)
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
