"""Rumbo (RULES.md §2): fill the board without holes; the adjacencies decide who claims.

>>> import boardlab
>>> boardlab.replay("rumbo(size=2,komi=1)", ["Ba2", "Wb1", "Ba1", "Wb2"])["scores"]
{'vertical': 2.0, 'horizontal': 3.0}
"""
from __future__ import annotations

import warnings

import numpy as np

from ..core.errors import OptionError
from ..core.registry import register
from . import rumbo_kernel as K
from .grid_notation import point_name
from .territory import TerritoryGame, TerritoryState, territory_options


def _default_komi(options) -> float:
    return 6.0 if options["size"] % 2 else 7.0


class RumboState(TerritoryState):
    kernel = K

    def _init_buffer(self):
        K.init(self.buf, self.game.n)

    def _setup(self, board, marks):
        n, topo = self.game.n, self.topo
        self.board[:] = board
        K.rebuild(self.buf, n, topo.nbr)
        for cell in np.flatnonzero(board == 0):
            colours = {int(board[q]) for q in topo.nbr[cell] if q >= 0}
            if len(colours) == 1 and 0 not in colours:
                raise OptionError(f"option 'position': {point_name(int(cell), n)} is a hole")
        libs = self._arr(K.A_LIBS)
        claimed = set()
        for side, cell in marks:
            root = K.group_root(self.buf, n, cell)
            if root in claimed or libs[root] != 0:
                raise OptionError(f"option 'claims': the group at {point_name(cell, n)} "
                                  f"{'is claimed twice' if root in claimed else 'has liberties'}")
            claimed.add(root)
            K.claim_at(self.buf, n, cell, side)
        for cell in np.flatnonzero(board):
            root = K.group_root(self.buf, n, int(cell))
            if root not in claimed and libs[root] == 0:
                raise OptionError(f"option 'position': the group at {point_name(int(cell), n)}"
                                  f" has no liberties but is not in 'claims' (add V or H)")

    def _legal_play(self) -> list[int]:
        out = np.empty(2 * self.game.points, dtype=np.int32)
        count = K.legal(self.buf, self.game.n, self.topo.nbr, self.topo.degree, out)
        return out[:count].tolist()

    def _play_reason(self, action: int) -> str | None:
        P, n = self.game.points, self.game.n
        if action >= 2 * P:
            return "Rumbo has no passing and no button"
        cell, colour = action % P, 1 + action // P
        if self.board[cell]:
            return f"{point_name(cell, n)} is occupied"
        if not K.is_legal(self.buf, n, self.topo.nbr, self.topo.degree, cell, colour):
            holes = [point_name(int(q), n) for q in self.topo.nbr[cell] if q >= 0
                     and self.board[q] == 0 and all(self.board[r] == colour or r == cell
                                                    for r in self.topo.nbr[q] if r >= 0)]
            return f"it would make a hole at {', '.join(holes)}"
        return None

    def _apply_play(self, action: int) -> None:
        P = self.game.points
        K.place(self.buf, self.game.n, self.topo.nbr, action % P, 1 + action // P)

    def _over(self) -> bool:
        return self.buf[K.M_NEMPTY] == 0

    def _play_out(self, seed: int) -> None:
        K.playout(self.buf, self.game.n, self.topo.nbr, self.topo.degree, seed)


@register
class Rumbo(TerritoryGame):
    name = "rumbo"
    title = "Rumbo"
    description = "no holes allowed; a surrounded group goes by the directions it touches"
    conformance_specs = ("rumbo", "rumbo(size=2)", "rumbo(size=5,komi=0.5)",
                         "rumbo(size=6,komi_protocol=bid)")
    bench_specs = ("rumbo(size=9)", "rumbo(size=11)", "rumbo(size=13)")
    declared_options = territory_options(_default_komi)

    def validate(self):
        super().validate()
        if self.komi_half % 2 == 0 and (self.komi_half // 2) % 2 == self.n % 2:
            warnings.warn(f"rumbo: komi {self.options['komi']:g} has the parity of the board "
                          f"size {self.n}, so a draw is possible", stacklevel=3)

    @property
    def max_game_length(self) -> int:
        return self.points + 2

    def new_initial_state(self, seed=None) -> RumboState:
        return RumboState(self, seed)

    def bench_playouts(self, count: int, seed: int) -> int:
        state = self.new_initial_state()
        return K.playouts(state.buf, self.n, self.topology.nbr, self.topology.degree, count,
                          seed)
