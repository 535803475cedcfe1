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
from . import rumbo_vector as V
from . import territory_vector as TV
from .direct_call import direct
from .grid_notation import point_name
from .territory import TerritoryGame, TerritoryState, territory_options


_NO_SCRATCH = np.zeros(1, dtype=np.int64)     # the compiled search's scratch: unused here

# the kernels of legal_actions and apply, replaced by their compiled entry points
# (direct_call: called without numba's dispatch) when the first state is made
_legal, _play_if_legal, _is_legal_action = K.legal, K.play_if_legal, K.is_legal_action


def _default_komi(options) -> float:
    return 6.0 if options["size"] % 2 else 7.0


class RumboState(TerritoryState):
    game: Rumbo

    def _init_buffer(self):
        game = self.game
        K.init(self.buf, game.n)
        self._out = np.empty(2 * game.points, dtype=np.int32)    # legal-move scratch
        # the fixed arguments of the kernels of legal_actions and apply (the hot path)
        self._n, self._nbr, self._degree = game.n, self.topo.nbr, self.topo.degree
        global _legal, _play_if_legal, _is_legal_action
        if _legal is K.legal:
            example = (self.buf, game.n, self._nbr, self._degree)
            _legal = direct(K.legal, *example, self._out)
            _play_if_legal = direct(K.play_if_legal, *example, 0)
            _is_legal_action = direct(K.is_legal_action, *example, 0)

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
        out = self._out
        return out[:_legal(self.buf, self._n, self._nbr, self._degree, out)].tolist()

    def _play_legal(self, action: int) -> bool:
        return _is_legal_action(self.buf, self._n, self._nbr, self._degree, action)

    def _play_reason(self, action: int) -> str:
        n, topo = self.game.n, self.topo
        kind, cell, colour = K.decode(n, action)
        if kind != K.PLACE:
            return "Rumbo has no passing and no button"
        if self.board[cell]:
            return f"{point_name(cell, n)} is occupied"
        walled = np.empty(4, dtype=np.int64)
        count = K.holes(self.buf, n, topo.nbr, topo.degree, cell, colour, walled)
        return f"it would make a hole at {', '.join(point_name(int(q), n) for q in walled[:count])}"

    def _apply_play(self, action: int) -> None:
        K.play(self.buf, self.game.n, self.topo.nbr, action)

    def _play_if_legal(self, action: int) -> bool:
        return _play_if_legal(self.buf, self._n, self._nbr, self._degree, action)

    def _over(self) -> bool:
        return self.buf.item(K.M_NEMPTY) == 0

    def _search_tables(self):
        return _NO_SCRATCH, self.topo.degree

    def _play_out(self, seed: int) -> None:
        K.playout(self.buf, self.game.n, self.topo.nbr, self.topo.degree, seed)


@register
class Rumbo(TerritoryGame):
    name = "rumbo"
    rating_options = ('size',)
    title = "Rumbo"
    description = "no holes allowed; a surrounded group goes by the directions it touches"
    conformance_specs = ("rumbo", "rumbo(size=2)", "rumbo(size=5,komi=0.5)",
                         "rumbo(size=6,komi_protocol=bid)")
    bench_specs = ("rumbo(size=9)", "rumbo(size=11)", "rumbo(size=13)")
    setup_examples = ("rumbo(size=5,position=BW.../W..../...../..B../.....,claims=Ha5)",)
    declared_options = territory_options(_default_komi)
    kernel = K
    # the chiral tie-break (NE and SW to Vertical, NW and SE to Horizontal) survives a
    # half turn but not a flip, which swaps NE with NW
    board_symmetries = ("rotate_180",)
    rules_summary = (
        "Two sides, Vertical (moves first) and Horizontal, take turns placing a black or a "
        "white stone (either side may use either colour) on an empty point; there is no "
        "passing. A placement must not make a hole: an empty point whose neighbours all hold "
        "one colour. The goal is to claim groups (stones of one colour linked along the "
        "lines): after a placement on p, every unclaimed group left without liberties is "
        "claimed, and its owner follows from the directions (N, E, S, W) in which p touches "
        "it: more north-south goes to Vertical, more east-west to Horizontal, and with one of "
        "each NE and SW go to Vertical, NW and SE to Horizontal. When the board is full each "
        "side scores the stones in the groups it has claimed, Horizontal adds the komi, the "
        "higher score wins and equal scores draw.")
    notation_guide = (
        "A move is a colour and a point: Bc3 puts a black stone on c3, Wa1 a white one on a1. "
        "Columns are letters a, b, c... from the left; rows are numbers 1, 2, 3... from the "
        "bottom, and north is up (towards higher rows), which matters for who claims. There is "
        "no pass and no button. With komi_protocol=bid the game opens with a bid: the first "
        "player proposes Horizontal's komi with komi=K (a multiple of 0.5, e.g. komi=6), then "
        "the second picks a side with side=vertical or side=horizontal. resign resigns.")

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

    def vector_kernel(self):
        """Play with a fixed komi (a bid is a pre-game phase played in Python): the
        rows start as a new state's buffer, set-ups included (``territory_vector``)."""
        if self.bidding:
            return None
        state = self.new_initial_state()
        cfg = TV.config(self, len(state.buf))
        tables = (self.topology.nbr, self.topology.degree, cfg)
        return TV.declare(self, V, tables, state.buf, passes=False,
                          narrow=True)     # counts, sizes and cells: at most 4P

    def bench_playouts(self, count: int, seed: int) -> int:
        state = self.new_initial_state()
        return K.playouts(state.buf, self.n, self.topology.nbr, self.topology.degree, count,
                          seed)
