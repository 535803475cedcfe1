"""Square-grid point names: columns a, b, c... from the left, rows 1, 2... from the bottom.

>>> point_name(0, 5), point_name(7, 5)
('a1', 'c2')
>>> parse_point("c2", 5)
7
"""
from __future__ import annotations

import re
import string

from ..core.errors import NotationError

LETTERS = string.ascii_lowercase
_POINT = re.compile(r"^([a-z])(\d{1,2})$")


def point_name(cell: int, n: int) -> str:
    """The name of ``cell`` on an n x n board."""
    row, col = divmod(cell, n)
    return f"{LETTERS[col]}{row + 1}"


def parse_point(text: str, n: int) -> int:
    """The cell named ``text``; NotationError if malformed or off the board."""
    match = _POINT.match(text.strip().lower())
    if not match:
        raise NotationError(f"{text!r} is not a point (expected a column letter and a row "
                            f"number, e.g. c3)")
    col, row = LETTERS.index(match.group(1)), int(match.group(2)) - 1
    if col >= n or not 0 <= row < n:
        raise NotationError(f"{text!r} is not on the {n}x{n} board "
                            f"(columns a-{LETTERS[n - 1]}, rows 1-{n})")
    return row * n + col
