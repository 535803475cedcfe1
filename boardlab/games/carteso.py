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
from .grid_notation import point_name
from .territory import SIDES, TerritoryGame, TerritoryState, territory_options


_SCRATCH: dict[int, np.ndarray] = {}


def _scratch(n: int) -> np.ndarray:
    """The flood-fill work space shared by all states of size n (one thread)."""
    if n not in _SCRATCH:
        _SCRATCH[n] = K.new_scratch(n)
    return _SCRATCH[n]


def _default_komi(options) -> float:
    return 7.0 if options["button"] else 7.5


class CartesoState(TerritoryState):
    kernel = K

    def _init_buffer(self):
        self.scratch = _scratch(self.game.n)
        K.init(self.buf, self.game.n, int(self.game.options["button"]))

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

    def _button_open(self) -> bool:
        return bool(self.buf[K.M_BUTTON_ON]) and self.buf[K.M_BUTTON] == K.NO_BUTTON

    def _legal_play(self) -> list[int]:
        P = self.game.points
        empty = np.flatnonzero(self.board == 0)
        last = self.game.button_action if self._button_open() else self.game.pass_action
        return np.concatenate((empty, empty + P)).tolist() + [last]

    def _play_reason(self, action: int) -> str | None:
        P = self.game.points
        if action < 2 * P:
            cell = action % P
            return f"{point_name(cell, self.game.n)} is occupied" if self.board[cell] else None
        if action == self.game.pass_action:
            return "no passing until someone has taken the button" if self._button_open() \
                else None
        if not self.buf[K.M_BUTTON_ON]:
            return "this game is played without the button"
        return None if self._button_open() else "the button has already been taken"

    def _apply_play(self, action: int) -> None:
        P, topo = self.game.points, self.topo
        if action < 2 * P:
            K.place(self.buf, self.scratch, self.game.n, topo.nbr, topo.diag, action % P, 1 + action // P)
        elif action == self.game.pass_action:
            K.pass_turn(self.buf)
        else:
            K.take_button(self.buf)

    def _over(self) -> bool:
        return bool(self.buf[K.M_OVER])

    def _play_out(self, seed: int) -> None:
        K.playout(self.buf, self.scratch, self.game.n, self.topo.nbr, self.topo.diag, seed)

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
    title = "Carteso"
    description = "claim finished groups: taller ones for Vertical, wider ones for Horizontal"
    has_pass = True
    conformance_specs = ("carteso", "carteso(size=5)", "carteso(size=7,button=off,komi=0)",
                         "carteso(size=4,komi_protocol=bid)", "carteso(size=2)")
    bench_specs = ("carteso(size=9)", "carteso(size=11)", "carteso(size=13)")
    declared_options = territory_options(_default_komi)[:1] + (
        Option("button", bool, True, "the button edition (seed 000); off = the older rules "
               "(seed 001)"),) + territory_options(_default_komi)[1:]

    @property
    def max_game_length(self) -> int:
        return 2 * (self.points + 1) + 1 + 2

    @property
    def has_button(self) -> bool:
        return self.options["button"]

    def new_initial_state(self, seed=None) -> CartesoState:
        return CartesoState(self, seed)

    def bench_playouts(self, count: int, seed: int) -> int:
        """Random playouts from the empty board (the bench policy); returns the moves."""
        state = self.new_initial_state()
        return K.playouts(state.buf, state.scratch, self.n, self.topology.nbr, self.topology.diag, count, seed)
