"""Fixed-size numeric observations built only from ``state.view(seat)``.

The adapters (OpenSpiel, PettingZoo) need a tensor of one shape per game
configuration. :class:`ViewEncoder` makes one from what every game declares,
never from the game's name or its hidden state:

- who the view is for, who acts now and whether the game is over (one-hot by seat);
- the board block, read through the board description: for ``square``/``torus``
  boards one plane per piece code and one per mark, for ``track`` boards one plane
  per seat counting its tokens on each cell and, when the symbols are dealt per
  game, one plane per legend symbol;
- every other number or flag in the view (the board block's own extras and the
  game's keys beside the envelope): a fixed list of paths, read from the views of
  the first positions of one seeded game, each ``0`` when absent or not a number.

Everything is read from the view, so two states that a seat cannot tell apart
give that seat the same tensor, and nothing hidden from it can leak in. Text
values and lists outside the board block (a history, a list of picks) are left
out: the information-state *string* (the whole view) carries them.
"""
from __future__ import annotations

import json
import random

import numpy as np

from ..core.game import Game, State

#: envelope keys the encoder reads in its own way (or not at all)
_ENVELOPE = {"game", "spec", "seats", "teams", "seat", "to_move", "acting", "legal",
             "legal_actions", "history", "terminal", "result", "clocks", "board"}
#: board-block keys read through the board description
_BOARD_READ = {"kind", "cells", "marks", "tokens", "symbols"}
#: how many positions of one seeded random game the scalar paths are read from
_SCHEMA_PLIES = 12


def view_key(view: dict, keep_history: bool = True) -> str:
    """A canonical string of a view (clocks left out): the information-state string
    with the history, the observation string without it."""
    shown = {k: v for k, v in view.items() if k != "clocks" and (keep_history or k != "history")}
    return json.dumps(shown, sort_keys=True, separators=(",", ":"))


def _scalars(value, path: tuple, out: dict) -> None:
    """Collect the numbers and flags under ``value`` by path (dicts only)."""
    if isinstance(value, dict):
        for key, item in value.items():
            _scalars(item, path + (str(key),), out)
    elif value is None or isinstance(value, (bool, int, float)):
        out[path] = 0.0 if value is None else float(value)


def _view_scalars(view: dict) -> dict:
    out: dict = {}
    for key, value in view.items():
        if key not in _ENVELOPE:
            _scalars(value, (key,), out)
    for key, value in view["board"].items():
        if key not in _BOARD_READ:
            _scalars(value, ("board", key), out)
    return out


def first_positions(game: Game, plies: int = _SCHEMA_PLIES, seed: int = 0) -> list[State]:
    """The first positions of one seeded random game (chance resolved)."""
    rng, state = random.Random(seed), game.new_initial_state(seed=seed)
    states: list[State] = []
    while not state.is_terminal() and len(states) < plies:
        if state.is_chance():
            state.apply(state.sample_chance(rng))
            continue
        states.append(state.clone())
        seat = rng.choice(state.acting_seats())
        state.apply(rng.choice(state.legal_actions_for(seat)), seat=seat)
    return states + [state]


class ViewEncoder:
    """Turns a view of one game configuration into a float32 vector of fixed size."""

    def __init__(self, game: Game):
        self.game = game
        self.seats = list(game.seat_names)
        description = game.board_description()
        self.kind = description["kind"]
        self.cells = len(description["cells"])
        self.cell_index = {str(name): i for i, name in enumerate(description["cells"])}
        self.pieces = sorted(description.get("pieces", {}))
        self.legend = sorted(description.get("legend", {})) \
            if description.get("symbols") is None else []
        views = [s.view(seat) for s in first_positions(game) for seat in range(len(self.seats))]
        self.marks = sorted({m for v in views for m in (v["board"].get("marks") or {})})
        self.paths = sorted({p for v in views for p in _view_scalars(v)})
        self.size = 3 * len(self.seats) + 1 + self._board_size() + len(self.paths)

    def _board_size(self) -> int:
        if self.kind == "track":
            return self.cells * (len(self.seats) + len(self.legend))
        return self.cells * (len(self.pieces) + len(self.marks))

    @property
    def shape(self) -> tuple[int]:
        return (self.size,)

    def encode(self, view: dict) -> np.ndarray:
        """The vector of ``view`` (a view of this encoder's game)."""
        out = np.zeros(self.size, dtype=np.float32)
        n = len(self.seats)
        if view["seat"] is not None:
            out[view["seat"]] = 1.0
        for name in view["acting"]:
            out[n + self.seats.index(name)] = 1.0
        for name in (view["result"] or {}).get("winners", []):
            out[2 * n + self.seats.index(name)] = 1.0
        out[3 * n] = float(view["terminal"])
        at = 3 * n + 1
        at = self._encode_board(view["board"], out, at)
        scalars = _view_scalars(view)
        out[at:at + len(self.paths)] = [scalars.get(p, 0.0) for p in self.paths]
        return out

    def _encode_board(self, block: dict, out: np.ndarray, at: int) -> int:
        cells = self.cells
        if self.kind == "track":
            for index, name in enumerate(self.seats):
                for cell in block.get("tokens", {}).get(name, []):
                    out[at + index * cells + cell] += 1.0
            at += len(self.seats) * cells
            symbols = block.get("symbols") or []
            for code_index, code in enumerate(self.legend):
                for cell, symbol in enumerate(symbols):
                    if symbol == code:
                        out[at + code_index * cells + cell] = 1.0
            return at + len(self.legend) * cells
        for cell, piece in enumerate(block["cells"]):
            if piece is not None:
                out[at + self.pieces.index(piece) * cells + cell] = 1.0
        at += len(self.pieces) * cells
        for mark_index, mark in enumerate(self.marks):
            for name in (block.get("marks") or {}).get(mark, []):
                out[at + mark_index * cells + self.cell_index[str(name)]] = 1.0
        return at + len(self.marks) * cells
