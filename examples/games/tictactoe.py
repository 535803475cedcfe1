"""Tic-tac-toe on a board of 3x3 to 5x5, ``line`` in a row to win: a game of one's own.

The worked example of docs/adding-a-game.md. It declares what every game declares (its
options, seats, action space, board description, rules and notation) and passes the
conformance suite (``tests/test_conformance.py`` runs it). It is not registered: importing
this file defines the class and nothing else, so ``boardlab games`` does not list it
(docs/adding-a-game.md says how to register it). The class itself is a game:

>>> state = TicTacToe(size=4).new_initial_state()
>>> for move in ["b2", "a1", "b3", "a2"]:
...     _ = state.play(move)
>>> print(state)
. . . .
. x . .
o x . .
o . . .
"""
import copy
from functools import cached_property

from boardlab import TERMINAL, Game, NotationError, Option, OptionError, State
from boardlab.core.board import gesture, grid

PIECES = ".xo"          # an empty cell, then the stone of seat 0 and of seat 1


class TicTacToe(Game):
    """Immutable facts of one configured board: options, seats, actions, the drawing."""

    name = "tictactoe"
    title = "Tic-tac-toe"
    description = "x and o take turns; the first with `line` stones in a row wins"
    declared_options = (
        Option("size", int, 3, "the board's width and height", minimum=3, maximum=5,
               common=True),
        Option("line", int, 3, "how many stones in a row win", minimum=3, maximum=5),
    )
    rules_summary = ("x and o place a stone each in turn on an empty cell. The first to "
                     "have `line` stones in a row (across, down or diagonally) wins; a full "
                     "board without one is a draw.")
    notation_guide = "A move is the cell: its column letter, then its row number (b2)."
    conformance_specs = ("tictactoe", "tictactoe(size=4)", "tictactoe(size=5,line=4)")
    bench_specs = ("tictactoe",)

    def validate(self):
        if self.options["line"] > self.options["size"]:
            raise OptionError(f"option 'line': {self.options['line']} is longer than the "
                              f"board ({self.options['size']})")

    @property
    def seat_names(self):
        return ("x", "o")

    @property
    def num_actions(self):          # action a is the cell a: row by row from the top left
        return self.options["size"] ** 2

    @property
    def max_game_length(self):
        return self.num_actions

    @cached_property
    def cell_names(self):
        n = self.options["size"]
        return [f"{'abcde'[col]}{n - row}" for row in range(n) for col in range(n)]

    @cached_property
    def lines(self):
        """Every run of ``line`` cells in a row, as tuples of cell numbers."""
        n, k = self.options["size"], self.options["line"]
        runs = []
        for row in range(n):
            for col in range(n):
                for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                    cells = [(row + i * dr, col + i * dc) for i in range(k)]
                    if all(0 <= r < n and 0 <= c < n for r, c in cells):
                        runs.append(tuple(r * n + c for r, c in cells))
        return runs

    def new_initial_state(self, seed=None):
        return TicTacToeState(self, seed)

    def board_description(self):
        n = self.options["size"]
        return grid("square", n, n, self.cell_names,
                    {"x": {"label": "x stone", "owner": "x"},
                     "o": {"label": "o stone", "owner": "o"}},
                    [gesture("place", ["cell"], "{0}", "click an empty cell")], [])


class TicTacToeState(State):
    """One position: ``cells[a]`` is 0 (empty), 1 (x) or 2 (o)."""

    def __init__(self, game, seed=None):
        super().__init__(game, seed)
        self.cells = [0] * game.num_actions
        self.winner = None                   # the seat with a line, once there is one

    def _current_player(self):
        if self.winner is not None or 0 not in self.cells:
            return TERMINAL
        return self.cells.count(1) - self.cells.count(2)    # x starts: seat 0, then 1

    def _returns(self):
        if self.winner is None:
            return [0.0, 0.0]
        return [1.0 if seat == self.winner else -1.0 for seat in (0, 1)]

    def legal_actions(self):
        if self._current_player() == TERMINAL:
            return []
        return [a for a, piece in enumerate(self.cells) if piece == 0]

    def illegal_reason(self, action):
        return "that cell is taken" if self.cells[action] else None

    def _apply(self, action):
        seat = self._current_player()
        self.cells[action] = seat + 1
        if any(action in run and all(self.cells[c] == seat + 1 for c in run)
               for run in self.game.lines):
            self.winner = seat

    def _action_text(self, action):
        return self.game.cell_names[action]

    def string_to_action(self, text):
        names = self.game.cell_names
        if not isinstance(text, str) or text.strip().lower() not in names:
            raise NotationError(f"{text!r} is not a cell of the {self.game.options['size']}"
                                f"x{self.game.options['size']} board (a cell is like b2)")
        return names.index(text.strip().lower())

    def clone(self):
        twin = copy.copy(self)                   # every field, then new lists of its own
        twin.cells, twin.history = list(self.cells), list(self.history)
        return twin

    def board_view(self, seat):
        last = [self.game.cell_names[self.history[-1].action]] \
            if self.history and self.history[-1].action >= 0 else []
        return {"kind": "square", "cells": [PIECES[p] if p else None for p in self.cells],
                "marks": {"last": last}}

    def summary(self):
        n = self.game.options["size"]
        rows = [" ".join(PIECES[p] for p in self.cells[r * n:(r + 1) * n]) for r in range(n)]
        player = self.current_player()
        return {"spec": self.game.spec, "board": rows, "moves": self.history_text(),
                "to_move": self.game.seat_names[player] if player >= 0 else None,
                "returns": self.returns()}
