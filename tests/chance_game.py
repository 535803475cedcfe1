"""A toy game with an explicit CHANCE node, for the searchers and the runner.

Seat 0 plays ``safe`` (returns +0.2/-0.2) or ``gamble``; a gamble is a chance
move, ``win`` with probability ``p`` or else ``lose`` (-1 for seat 0). After a
win seat 0 must still ``keep`` (+1) rather than ``give`` (-1). Gambling is
right exactly when ``2p - 1 > 0.2`` and the search learns to keep.
"""
from __future__ import annotations

from boardlab.core.game import CHANCE, TERMINAL, Game, State
from boardlab.core.options import Option

MOVES = ("safe", "gamble", "win", "lose", "keep", "give")


class GambleGame(Game):
    name = "gamble"
    chance = "explicit"
    declared_options = (Option("p", float, 0.5, "chance that a gamble wins"),)

    @property
    def seat_names(self):
        return ("first", "second")

    @property
    def num_actions(self):
        return len(MOVES)

    @property
    def max_game_length(self):
        return 3

    def board_description(self):
        return {"kind": "track", "cells": [], "symbols": [], "pieces": {}, "gestures": [],
                "buttons": list(MOVES)}

    def new_initial_state(self, seed=None):
        return GambleState(self)


class GambleState(State):
    def _phase(self):
        moves = [MOVES[a] for _, a in self.history]
        if not moves:
            return "choose"
        if moves[-1] == "gamble":
            return "chance"
        if moves[-1] == "win":
            return "keep"
        return "over"

    def _current_player(self):
        return {"choose": 0, "keep": 0, "chance": CHANCE, "over": TERMINAL}[self._phase()]

    def legal_actions(self):
        return {"choose": [0, 1], "chance": [2, 3], "keep": [4, 5], "over": []}[self._phase()]

    def chance_outcomes(self):
        p = self.game.options["p"]
        return [(2, p), (3, 1 - p)]

    def _apply(self, action):
        pass                                  # the history is the whole state

    def _returns(self):
        if self._phase() != "over":
            return [0.0, 0.0]
        values = {"safe": 0.2, "lose": -1.0, "keep": 1.0, "give": -1.0}
        value = values[MOVES[self.history[-1].action]]
        return [value, -value]

    def _action_text(self, action):
        return MOVES[action]

    def string_to_action(self, text):
        return MOVES.index(text.strip())

    def clone(self):
        return _copy(self)

    def board_view(self, seat):
        return {"kind": "track", "tokens": {}}

    def summary(self):
        return {"history": self.history_text()}


def _copy(state):
    other = GambleState(state.game)
    other.history = list(state.history)
    other.resigned = state.resigned
    return other
