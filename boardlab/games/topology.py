"""Board topologies as precomputed neighbour tables.

A board of ``n`` x ``n`` cells is numbered ``cell = row * n + col`` with row 0
at the bottom (the notation's row 1) and col 0 at the left. ``nbr[cell, d]``
is the neighbour in direction ``d`` (NORTH, EAST, SOUTH, WEST: north is
toward higher rows) or -1 off the board; ``diag[cell, k]`` holds the
diagonal neighbours NE, SE, SW, NW. A torus has no -1 entries. Kernels only
ever see the tables, so the same flood fill serves every topology.
"""
from __future__ import annotations

import numpy as np

NORTH, EAST, SOUTH, WEST = 0, 1, 2, 3
_STEPS = ((1, 0), (0, 1), (-1, 0), (0, -1))          # (drow, dcol) by direction
_DIAGONALS = ((1, 1), (-1, 1), (-1, -1), (1, -1))    # NE, SE, SW, NW


def _table(n: int, steps, wrap: bool) -> np.ndarray:
    table = np.full((n * n, len(steps)), -1, dtype=np.int32)
    for row in range(n):
        for col in range(n):
            for k, (dr, dc) in enumerate(steps):
                r, c = row + dr, col + dc
                if wrap:
                    r, c = r % n, c % n
                if 0 <= r < n and 0 <= c < n:
                    table[row * n + col, k] = r * n + c
    return table


class Topology:
    """Neighbour tables and coordinates of one board shape."""

    def __init__(self, n: int, wrap: bool = False):
        self.n = n
        self.size = n * n
        self.wrap = wrap
        self.nbr = _table(n, _STEPS, wrap)
        self.diag = _table(n, _DIAGONALS, wrap)
        self.degree = (self.nbr >= 0).sum(axis=1).astype(np.int32)
        cells = np.arange(n * n, dtype=np.int32)
        self.row = cells // n
        self.col = cells % n


_CACHE: dict = {}


def square_grid(n: int) -> Topology:
    """The n x n square grid (edges, no wrap)."""
    return _cached(n, False)


def torus(n: int) -> Topology:
    """The n x n torus (both axes wrap)."""
    return _cached(n, True)


def _cached(n: int, wrap: bool) -> Topology:
    key = (n, wrap)
    if key not in _CACHE:
        _CACHE[key] = Topology(n, wrap)
    return _CACHE[key]


def square_turns(n: int) -> dict:
    """The eight ways to lay an ``n`` x ``n`` square onto itself (the identity, three
    rotations, four flips), by name: each maps a (row, col) to where it goes. A game
    lists those its rules do not see (``Game.symmetries``).

    >>> square_turns(3)["rotate_90"](0, 0), square_turns(3)["flip_diagonal"](0, 2)
    ((0, 2), (2, 0))
    """
    last = n - 1
    return {"identity": lambda r, c: (r, c),
            "rotate_90": lambda r, c: (c, last - r),
            "rotate_180": lambda r, c: (last - r, last - c),
            "rotate_270": lambda r, c: (last - c, r),
            "flip_rows": lambda r, c: (last - r, c),
            "flip_columns": lambda r, c: (r, last - c),
            "flip_diagonal": lambda r, c: (c, r),
            "flip_antidiagonal": lambda r, c: (last - c, last - r)}
