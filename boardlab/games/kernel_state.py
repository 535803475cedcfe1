"""The base of states whose whole position is one kernel buffer (a numpy array)."""
from __future__ import annotations

import numpy as np

from ..core.game import State


class KernelState(State):
    """A state kept in ``self.buf``; copying it is one array copy.

    Subclasses may keep a scratch array ``_out`` for legal-move generation
    (never shared between copies) and extend :meth:`_cloned`.
    """

    buf: np.ndarray
    _out: np.ndarray

    def clone(self):
        other = object.__new__(type(self))
        other.__dict__.update(self.__dict__)
        other.buf = self.buf.copy()
        other.history = list(self.history)
        if "_out" in self.__dict__:
            other._out = np.empty_like(self._out)
        self._cloned(other)
        return other

    def _cloned(self, other) -> None:
        """Copy whatever else a subclass keeps outside the buffer."""
