"""A state's encoding written by its game's compiled vector kernel, not through its view.

:class:`~boardlab.nn.encoding.ViewEncoder` reads a view, a dict that ``State.view``
builds in Python: some 100 µs a position on a 9x9 board, a third of a network
evaluation's cost. A game whose :class:`~boardlab.core.game.VectorKernel` module also
has ``state_row(state, row)`` (write the row of a state in play into ``row``, as the
vector environment keeps it) can have that vector written by the kernel's
``vec_observe`` straight from the state's buffer instead, the same numbers
(tests/test_vector.py checks them against the encoder's): :class:`KernelObserver`.
The network evaluator and self-play read positions so where the game allows
(:meth:`KernelObserver.for_game` is None where not: no vector kernel, or none that
reads a state).

>>> import boardlab
>>> game = boardlab.make("carteso(size=5)")
>>> observer = KernelObserver.for_game(game, ViewEncoder(game))
>>> state = game.new_initial_state()
>>> bool((observer.encode(state, 0) == ViewEncoder(game).encode(state.view(0))).all())
True
"""
from __future__ import annotations

import numpy as np

from ..core.game import Game, State
from .encoding import ViewEncoder
from .kernel_layout import layout


class KernelObserver:
    """The encoder's vector of the acting seat's view, written by the vector kernel."""

    def __init__(self, game: Game, encoder: ViewEncoder, kernel):
        self.size = encoder.size
        self.seats = len(encoder.seats)
        self.lay = layout(game.spec, encoder, kernel)
        self.tables = kernel.tables
        self.row = np.array(kernel.initial, copy=True)
        self._write_row = kernel.functions.state_row
        self._observe = kernel.functions.vec_observe

    @classmethod
    def for_game(cls, game: Game, encoder: ViewEncoder) -> KernelObserver | None:
        """The observer of ``game``, or None where its states cannot be read so."""
        kernel = game.vector_kernel()
        if kernel is None or getattr(kernel.functions, "state_row", None) is None:
            return None
        return cls(game, encoder, kernel)

    def encode(self, state: State, seat: int) -> np.ndarray | None:
        """``encoder.encode(state.view(seat))`` where ``seat`` is the one seat to act in a
        game in play, else None (ask the encoder)."""
        if state.is_terminal() or state.acting_seats() != [seat]:
            return None
        row = self.row
        self._write_row(state, row)
        out = np.zeros(self.size, dtype=np.float32)
        out[seat] = 1.0
        out[self.seats + seat] = 1.0
        lay = self.lay
        self._observe(row, self.tables, seat, out, lay.planes_at, lay.cells_at, lay.scalars_at)
        return out
