"""The action numbers Carteso and Rumbo share, compiled: one layout, one encode/decode.

Rumbo numbers its actions as Carteso does; 2P and 2P + 1 (Carteso's pass and
button) are never legal in Rumbo.
"""
from __future__ import annotations

from numba import njit

# Action numbers: the whole action space, P = n * n. ``decode`` gives
# (kind, value, colour); ``encode`` is its inverse. Only these two know the layout.
#   cell              a black stone on cell         (PLACE, cell, BLACK)
#   P + cell          a white stone on cell         (PLACE, cell, WHITE)
#   2P                pass                          (PASS, 0, 0)
#   2P + 1            take the button               (BUTTON, 0, 0)
#   2P + 2 + side     pre-game: choose a side       (SIDE, VERTICAL or HORIZONTAL, 0)
#   4P + 4 + h        pre-game: propose a komi of   (KOMI, h, 0)
#                     h half points, |h| <= 2P
PLACE, PASS, BUTTON, SIDE, KOMI = range(5)


def num_actions(n: int) -> int:
    """The size of the action space on an n x n board."""
    return 6 * n * n + 5


def max_komi_half(n: int) -> int:
    """The largest komi a pre-game proposal may name, in half points (every point)."""
    return 2 * n * n


@njit(cache=True, inline="always")
def encode(n, kind, value, colour):
    """The action number of a move (see the table above); ``colour`` only for PLACE."""
    P = n * n
    if kind == PLACE:
        return value + (colour - 1) * P
    if kind == PASS:
        return 2 * P
    if kind == BUTTON:
        return 2 * P + 1
    if kind == SIDE:
        return 2 * P + 2 + value
    return 4 * P + 4 + value


@njit(cache=True, inline="always")
def decode(n, action):
    """(kind, value, colour) of an action number in range(num_actions(n))."""
    P = n * n
    if action < 2 * P:
        return PLACE, action % P, 1 + action // P
    if action == 2 * P:
        return PASS, 0, 0
    if action == 2 * P + 1:
        return BUTTON, 0, 0
    if action < 2 * P + 4:
        return SIDE, action - 2 * P - 2, 0
    return KOMI, action - 4 * P - 4, 0
