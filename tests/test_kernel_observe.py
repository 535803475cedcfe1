"""The kernel observer (boardlab.nn.kernel_observe): a state's encoding written by its
game's vector kernel is the encoder's of the acting seat's view, position by position;
where a game's states cannot be read so, there is no observer and the view is used."""
import random

import numpy as np
import pytest

import boardlab
from boardlab.nn.encoding import ViewEncoder
from boardlab.nn.features import BoardFeatures
from boardlab.nn.kernel_observe import KernelObserver

#: configurations whose vector kernel reads a state (every one but Cartagena's, whose
#: rows the kernel deals itself)
CONFIGS = (
    "carteso(size=5)",
    "carteso(size=4,button=off,komi=0)",
    "carteso(size=5,position=BW.../W..../...../..B../.....,claims=Va5)",
    "rumbo(size=4,komi=0.5)",
    "rumbo(size=5,position=BW.../W..../...../..B../.....,claims=Ha5,turn=horizontal)",
    "ctor(size=8,max_turns=10)",
    "ctor(size=8,teams=2v2,max_turns=8)",
    "ctor(size=10,teams=2v3,end_check=end_of_turn,first_team=2,max_turns=6)",
    "ctor(size=8,team_protocol=simultaneous,max_turns=6)",
)
#: no observer: hidden information, a bid, a kernel that deals its own rows
WITHOUT = ("ctor(size=8,secret_squares=true)", "carteso(size=5,komi_protocol=bid)",
           "rumbo(size=5,komi_protocol=bid)", "cartagena(max_turns=25)")


@pytest.mark.parametrize("spec", CONFIGS)
def test_the_kernel_writes_the_encoding_of_the_acting_seats_view(spec):
    game = boardlab.make(spec)
    encoder = ViewEncoder(game)
    observer = KernelObserver.for_game(game, encoder)
    assert observer is not None
    rng, checked = random.Random(3), 0
    for seed in range(3):
        state = game.new_initial_state(seed=seed)
        while not state.is_terminal():
            seat = state.acting_seats()[0]
            np.testing.assert_array_equal(observer.encode(state, seat),
                                          encoder.encode(state.view(seat)),
                                          err_msg=f"{spec}, seed {seed}, ply "
                                                  f"{len(state.history)}")
            checked += 1
            state.apply(rng.choice(state.legal_actions()))
        assert observer.encode(state, 0) is None        # a finished game: ask the view
    assert checked > 20


@pytest.mark.parametrize("spec", WITHOUT)
def test_no_observer_where_the_kernel_cannot_read_a_state(spec):
    game = boardlab.make(spec)
    assert KernelObserver.for_game(game, ViewEncoder(game)) is None


def test_the_network_evaluator_reads_positions_through_the_kernel_with_the_same_values():
    from boardlab.nn.net import NetworkEvaluator, load_network

    game = boardlab.make("carteso(size=9)")
    features = BoardFeatures(game)
    evaluator = NetworkEvaluator(game, load_network(game, "", features), features)
    assert evaluator.observer is not None
    rng = random.Random(0)
    state = game.new_initial_state()
    for _ in range(12):
        state.apply(rng.choice(state.legal_actions()))
    values, logits = evaluator.evaluate_with_priors(state, rng)
    evaluator.observer = None                          # through the view
    values_view, logits_view = evaluator.evaluate_with_priors(state, rng)
    assert values == values_view
    np.testing.assert_array_equal(logits, logits_view)
