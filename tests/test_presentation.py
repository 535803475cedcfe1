"""Status lines and renderings over every configuration: the lines a caller builds from a
view it already has (``status_lines(seat, view)``, what the server does) are the lines
built alone, for every seat and the spectator, at every step of random games; and the
terminal rendering works for each of them."""
import random

import pytest

from boardlab.core.registry import make
from game_specs import conformance_specs


@pytest.mark.parametrize("spec", conformance_specs())
def test_status_lines_from_a_given_view_are_the_lines_built_alone(spec):
    game = make(spec)
    rng = random.Random(spec)
    state = game.new_initial_state(seed=rng.randrange(2 ** 31))
    seats = [None, *range(game.num_seats)]
    for step in range(40):  # noqa: B007 (read after the loop)
        for seat in seats:
            alone = state.status_lines(seat)
            assert state.status_lines(seat, state.view(seat)) == alone
            assert isinstance(state.render(seat=seat), str)
        if state.is_terminal():
            break
        if state.is_chance():
            state.apply(state.sample_chance(rng))
            continue
        seat = rng.choice(state.acting_seats())
        state.apply(rng.choice(state.legal_actions_for(seat)), seat)
    assert step > 0
