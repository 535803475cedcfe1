"""Carteso (RULES.md §1): claim finished groups by their shape.

>>> import boardlab
>>> state = boardlab.make("carteso(size=5,button=off,komi=0.5)").new_initial_state()
>>> _ = state.play("pass"); _ = state.play("pass")
>>> state.summary()["winner"]
'horizontal'
"""
from __future__ import annotations

import numpy as np

from ..core.errors import OptionError
from ..core.registry import register
from ..core.options import Option
from . import carteso_kernel as K
from . import carteso_vector as V
from . import territory_vector as TV
from .direct_call import direct
from .grid_notation import point_name
from .territory import SIDES, TerritoryGame, TerritoryState, territory_options


_SCRATCH: dict[int, tuple[np.ndarray, np.ndarray]] = {}

# the kernels of legal_actions and apply, replaced by their compiled entry points
# (direct_call: called without numba's dispatch) when the first state is made
_legal, _is_legal, _play_if_legal = K.legal, K.is_legal, K.play_if_legal


def _scratch(n: int) -> tuple[np.ndarray, np.ndarray]:
    """The flood-fill work space and the legal-move list shared by all states of size n
    (one thread; neither is part of a position)."""
    if n not in _SCRATCH:
        _SCRATCH[n] = K.new_scratch(n), np.empty(2 * n * n + 1, dtype=np.int32)
    return _SCRATCH[n]


def _default_komi(options) -> float:
    return 7.0 if options["button"] else 7.5


class CartesoState(TerritoryState):
    game: Carteso

    def _init_buffer(self):
        game = self.game
        self.scratch, self.move_list = _scratch(game.n)
        K.init(self.buf, game.n, int(game.options["button"]))
        # the fixed arguments of the kernels of legal_actions and apply (the hot path)
        self._n, self._nbr, self._diag = game.n, self.topo.nbr, self.topo.diag
        global _legal, _is_legal, _play_if_legal
        if _legal is K.legal:
            _legal = direct(K.legal, self.buf, game.n, self.move_list)
            _is_legal = direct(K.is_legal, self.buf, game.n, 0)
            _play_if_legal = direct(K.play_if_legal, self.buf, self.scratch, game.n,
                                    self._nbr, self._diag, 0)

    def _setup(self, board, marks):
        n = self.game.n
        self.board[:] = board
        K.rebuild(self.buf, self.scratch, n, self.topo.nbr)
        claimed = set()
        for side, cell in marks:
            root = K.group_root(self.buf, n, cell)
            if root in claimed:
                raise OptionError(f"option 'claims': the group at {point_name(cell, n)} "
                                  f"is claimed twice")
            if not K.is_finished(self.buf, n, cell):
                raise OptionError(f"option 'claims': the group at {point_name(cell, n)} is "
                                  f"not finished, so it cannot be claimed")
            claimed.add(root)
            K.claim_at(self.buf, n, cell, side)
        for cell in np.flatnonzero(board):
            root = K.group_root(self.buf, n, int(cell))
            if root not in claimed and K.is_finished(self.buf, n, int(cell)):
                raise OptionError(f"option 'position': the group at {point_name(int(cell), n)}"
                                  f" is finished but not in 'claims' (add V or H)")

    def _legal_play(self) -> list[int]:
        listed = self.move_list
        return listed[:_legal(self.buf, self._n, listed)].tolist()

    def _play_legal(self, action: int) -> bool:
        return _is_legal(self.buf, self._n, action)

    def _play_reason(self, action: int) -> str:
        n = self.game.n
        kind, cell, _ = K.decode(n, action)
        if kind == K.PLACE:
            return f"{point_name(cell, n)} is occupied"
        if kind == K.PASS:
            return "no passing until someone has taken the button"
        if not self.buf[K.M_BUTTON_ON]:
            return "this game is played without the button"
        return "the button has already been taken"

    def _apply_play(self, action: int) -> None:
        K.play(self.buf, self.scratch, self.game.n, self.topo.nbr, self.topo.diag, action)

    def _play_if_legal(self, action: int) -> bool:
        return _play_if_legal(self.buf, self.scratch, self._n, self._nbr, self._diag, action)

    def _over(self) -> bool:
        return self.buf.item(K.M_OVER) != 0

    def _play_out(self, seed: int) -> None:
        K.playout(self.buf, self.scratch, self.game.n, self.topo.nbr, self.topo.diag, seed)

    def _search_tables(self):
        return self.scratch, self.topo.diag

    def _bonus(self):
        holder = int(self.buf[K.M_BUTTON])
        return (int(holder == 0), int(holder == 1))

    def _extra_summary(self) -> dict:
        holder = int(self.buf[K.M_BUTTON])
        return {"button": None if not self.buf[K.M_BUTTON_ON] else
                (SIDES[holder] if holder >= 0 else "untaken"),
                "passes": int(self.buf[K.M_PASSES])}


@register
class Carteso(TerritoryGame):
    name = "carteso"
    rating_options = ('size',)
    title = "Carteso"
    description = "claim finished groups: taller ones for Vertical, wider ones for Horizontal"
    kernel = K
    # a group's owner depends on its height and width only, which the flips keep
    board_symmetries = ("flip_rows", "flip_columns", "rotate_180")
    rules_summary = (
        "Two sides, Vertical (moves first) and Horizontal, take turns; each turn places a "
        "black or a white stone (either side may use either colour) on an empty point, "
        "passes, or takes the button. The goal is to claim finished groups. A group (stones "
        "of one colour linked along the lines) is finished when no later placements could "
        "make it taller or wider. After every placement each finished, unclaimed group on "
        "the board is claimed at once: a group taller than wide by Vertical, one wider than "
        "tall by Horizontal, a square one by the opponent of the player who just moved. A "
        "claim is permanent and stones later added to the group count for its owner. In the "
        "button edition nobody may pass until the button has been taken; it is worth half a "
        "point. Two passes in a row end the game: each side scores the stones in the groups "
        "it has claimed, Horizontal adds the komi, the higher score wins and equal scores "
        "draw.")
    notation_guide = (
        "A placement is a colour and a point: Bc3 puts a black stone on c3, Wa1 a white one "
        "on a1. Columns are letters a, b, c... from the left; rows are numbers 1, 2, 3... from "
        "the bottom. pass passes the turn; button takes the button (button edition only). With "
        "komi_protocol=bid the game opens with a bid: the first player proposes Horizontal's "
        "komi with komi=K (a multiple of 0.5, e.g. komi=6.5), then the second picks a side "
        "with side=vertical or side=horizontal. resign resigns.")
    conformance_specs = ("carteso", "carteso(size=5)", "carteso(size=7,button=off,komi=0)",
                         "carteso(size=4,komi_protocol=bid)", "carteso(size=2)")
    bench_specs = ("carteso(size=9)", "carteso(size=11)", "carteso(size=13)")
    setup_examples = ("carteso(size=5,position=BW.../W..../...../..B../.....,claims=Va5)",)
    # With c=0.8 and the compiled search twice the simulations beat Carteso's level below
    # 84-88% of the time; x1.5 steps gave 71-73% (docs/agents.md, "Levels").
    level_budgets = (50, 75, 115, 170, 260)
    declared_options = territory_options(_default_komi)[:1] + (
        Option("button", bool, True, "the button edition (seed 000); off = the older rules "
               "(seed 001)", common=True),) + territory_options(_default_komi)[1:]

    @property
    def max_game_length(self) -> int:
        return 2 * (self.points + 1) + 1 + 2

    @property
    def words(self) -> tuple[str, ...]:
        return ("pass", "button") if self.options["button"] else ("pass",)

    def new_initial_state(self, seed=None) -> CartesoState:
        return CartesoState(self, seed)

    def vector_kernel(self):
        """Play with a fixed komi (a bid is a pre-game phase played in Python): the
        rows start as a new state's buffer, set-ups included (``territory_vector``)."""
        if self.bidding:
            return None
        state = self.new_initial_state()
        cfg = TV.config(self, len(state.buf))
        tables = (state.scratch, self.topology.nbr, self.topology.diag, cfg)
        # int16 rows from 3x3 (the row multiplier of a 2x2 board is 2 ** 15; the bit rows
        # of a board up to 13 wide fit)
        return TV.declare(self, V, tables, state.buf, passes=True, narrow=self.n >= 3)

    def bench_playouts(self, count: int, seed: int) -> int:
        """Random playouts from the empty board (the bench policy); returns the moves."""
        state = self.new_initial_state()
        return K.playouts(state.buf, state.scratch, self.n, self.topology.nbr, self.topology.diag,
                          count, seed)
