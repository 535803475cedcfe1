"""The single-game API's shortcuts agree with the general protocol: ``is_terminal()`` is
``current_player() == TERMINAL`` in every position of random games, after a resignation
and after an agreed draw (territory.py and cartagena.py answer it without
current_player)."""
import random

import pytest

from boardlab.core.game import TERMINAL
from boardlab.core.registry import make

SPECS = ["carteso(size=5)", "rumbo(size=5)", "rumbo(size=5,komi_protocol=bid)",
         "cartagena(profile=basic,players=2)", "ctor(size=8)"]


@pytest.mark.parametrize("spec", SPECS)
def test_is_terminal_is_current_player_terminal(spec):
    game, rng = make(spec), random.Random(5)
    for seed in range(3):
        state = game.new_initial_state(seed=seed)
        while True:
            assert state.is_terminal() == (state.current_player() == TERMINAL)
            if not state.is_terminal():
                for end in ("resign", "draw"):
                    other = state.clone()
                    if end == "resign":
                        other.resign(other.current_player())
                    else:
                        other.agree_draw()
                    assert other.is_terminal() and other.current_player() == TERMINAL
            if state.is_terminal():
                break
            state.apply(rng.choice(state.legal_actions()))
