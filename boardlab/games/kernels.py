"""Compiled helpers shared by the board games: union-find, flood fill, a fast RNG.

Everything here is numba-jitted and works on flat int32 arrays and the
neighbour tables of :mod:`boardlab.games.topology`.
"""
from __future__ import annotations

import numpy as np
from numba import njit

MASK64 = np.uint64(0xFFFFFFFFFFFFFFFF)


@njit(cache=True, inline="always")
def find(parent, x):
    """Root of ``x`` with path halving."""
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


@njit(cache=True, inline="always")
def find_at(buf, off, x):
    """Root of ``x`` in the union-find stored at ``buf[off:]`` (path halving)."""
    while buf[off + x] != x:
        buf[off + x] = buf[off + buf[off + x]]
        x = buf[off + x]
    return x


@njit(cache=True)
def flood(nbr, board, a, b, start, stamp, mark, queue, qstart):
    """Visit the cells connected to ``start`` whose board value is ``a`` or ``b``.

    Visited cells get ``mark[cell] = stamp`` and are appended to ``queue``
    from ``qstart``; returns the end index. ``start`` must qualify.
    """
    mark[start] = stamp
    queue[qstart] = start
    head, tail = qstart, qstart + 1
    while head < tail:
        x = queue[head]
        head += 1
        for d in range(nbr.shape[1]):
            y = nbr[x, d]
            if y >= 0 and mark[y] != stamp and (board[y] == a or board[y] == b):
                mark[y] = stamp
                queue[tail] = y
                tail += 1
    return tail


@njit(cache=True, inline="always")
def drop_empty(buf, oe, op, count_at, cell):
    """Take ``cell`` out of the list of empty points kept in ``buf``: the list at offset
    ``oe``, each point's index in it at offset ``op``, its length at ``buf[count_at]``
    (the last empty point takes the freed place; ``cell`` goes just past the end)."""
    last = buf[count_at] - 1
    i = buf[op + cell]
    moved = buf[oe + last]
    buf[oe + i] = moved
    buf[op + moved] = i
    buf[oe + last] = cell
    buf[op + cell] = last
    buf[count_at] = last


@njit(cache=True)
def index_empties(board, empty, epos):
    """List the empty points (value 0) of ``board`` first in ``empty``, the others after.

    ``epos[x]`` becomes the index of ``x`` in ``empty``; returns how many are empty.
    """
    ne = 0
    for x in range(board.shape[0]):
        if board[x] == 0:
            empty[ne] = x
            epos[x] = ne
            ne += 1
    k = ne
    for x in range(board.shape[0]):
        if board[x] != 0:
            empty[k] = x
            epos[x] = k
            k += 1
    return ne


@njit(cache=True, inline="always")
def rng_seed(seed):
    """A non-zero 64-bit generator state from any integer seed (splitmix64)."""
    z = (np.uint64(seed) + np.uint64(0x9E3779B97F4A7C15)) & MASK64
    z = ((z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)) & MASK64
    z = ((z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)) & MASK64
    z = z ^ (z >> np.uint64(31))
    if z == np.uint64(0):
        z = np.uint64(0x2545F4914F6CDD1D)
    return z


@njit(cache=True, inline="always")
def rng_next(s):
    """xorshift64: the next state."""
    s ^= (s << np.uint64(13)) & MASK64
    s ^= s >> np.uint64(7)
    s ^= (s << np.uint64(17)) & MASK64
    return s


@njit(cache=True, inline="always")
def rng_below(s, m):
    """A number in ``range(m)`` from state ``s`` (multiply-shift, no modulo bias to speak of)."""
    return np.int64(((s >> np.uint64(32)) * np.uint64(m)) >> np.uint64(32))


@njit(cache=True, inline="always")
def pick_best(worth, k, s):
    """The index of a largest of ``worth[:k]`` (``k`` >= 1), ties broken at random by
    generator state ``s``: returns ``(index, s)`` (a greedy playout's choice)."""
    pick, best, ties = 0, worth[0], 1
    for i in range(1, k):
        if worth[i] > best:
            pick, best, ties = i, worth[i], 1
        elif worth[i] == best:
            ties += 1
            s = rng_next(s)
            if rng_below(s, ties) == 0:
                pick = i
    return pick, s
