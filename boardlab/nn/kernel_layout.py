"""Where a game's vector kernel writes in an observation: the encoder's layout.

:class:`~boardlab.nn.encoding.ViewEncoder` lays a view out as a header (the viewer,
the seats that act, the winners, whether the game is over, ``3 * seats + 1``
entries), the board block (one plane of ``cells`` entries per piece code, then per
mark; on a ``track`` board one per seat, then per legend symbol) and the view's
numbers by path. A game's :class:`~boardlab.core.game.VectorKernel` names its planes
and numbers the same way; :func:`layout` turns those names into the offsets the
kernel writes at, and refuses a kernel that leaves some entry of the encoding
unaccounted for (a view key added without a kernel that writes it).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..core.errors import BoardlabError
from ..core.game import VectorKernel
from .encoding import ViewEncoder


class Layout(NamedTuple):
    """Offsets into an observation (int64 arrays, -1 where the encoding has no entry)."""

    planes_at: np.ndarray     # per kernel plane: where its first cell goes (every one has)
    cells_at: np.ndarray      # per kernel cell: its index within a plane
    scalars_at: np.ndarray    # per kernel scalar: its index


def plane_names(encoder: ViewEncoder) -> list[str]:
    """The encoder's board planes in order: pieces then marks (square and torus
    boards), or seats then legend symbols (track boards)."""
    if encoder.kind == "track":
        return [f"tokens:{seat}" for seat in encoder.seats] + \
            [f"symbol:{code}" for code in encoder.legend]
    return list(encoder.pieces) + list(encoder.marks)


def layout(game_spec: str, encoder: ViewEncoder, kernel: VectorKernel) -> Layout:
    """The offsets ``kernel`` writes at to give ``encoder``'s vectors."""
    seats = len(encoder.seats)
    board_at = 3 * seats + 1
    names = plane_names(encoder)
    if sorted(names) != sorted(kernel.planes):
        raise BoardlabError(f"{game_spec}: the vector kernel's planes "
                            f"{', '.join(kernel.planes)} are not the encoding's "
                            f"{', '.join(names)}")
    planes_at = np.array([board_at + names.index(p) * encoder.cells for p in kernel.planes],
                         dtype=np.int64)
    if len(kernel.cells) != encoder.cells or sorted(kernel.cells) != list(range(encoder.cells)):
        raise BoardlabError(f"{game_spec}: the vector kernel's cells are not the board's "
                            f"{encoder.cells}")
    cells_at = np.asarray(kernel.cells, dtype=np.int64)
    paths_at = board_at + len(names) * encoder.cells
    known = set(kernel.scalars) | set(kernel.zeros)
    unknown = [p for p in encoder.paths if p not in known]
    if unknown:
        raise BoardlabError(f"{game_spec}: the vector kernel writes no number at "
                            f"{'.'.join(unknown[0])!r} of the encoding")
    scalars_at = np.array([paths_at + encoder.paths.index(p) if p in encoder.paths else -1
                           for p in kernel.scalars], dtype=np.int64)
    return Layout(planes_at, cells_at, scalars_at)
