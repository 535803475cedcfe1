"""The compiled entry points called without numba's dispatch (games/direct_call.py):
the same kernel, the same answers, as the dispatcher."""
import random

import numpy as np

from boardlab.core.registry import make
from boardlab.games import rumbo_kernel as K
from boardlab.games.direct_call import direct


def test_direct_is_the_dispatchers_compiled_code():
    game = make("rumbo(size=5)")
    state = game.new_initial_state(seed=3)
    args = (state.buf, game.n, state.topo.nbr, state.topo.degree)
    legal = direct(K.legal, *args, state._out)
    assert direct(K.legal, *args, state._out) is legal            # made once per types
    rng = random.Random(3)
    while not state.is_terminal():
        ours, theirs = np.empty_like(state._out), np.empty_like(state._out)
        count = legal(*args[:1], game.n, *args[2:], ours)
        assert count == K.legal(*args, theirs)
        assert ours[:count].tolist() == theirs[:count].tolist() == state.legal_actions()
        for action in range(2 * game.points):
            assert direct(K.is_legal_action, *args, 0)(*args, action) == \
                K.is_legal_action(*args, action)
        state.apply(rng.choice(state.legal_actions()))
        args = (state.buf, game.n, state.topo.nbr, state.topo.degree)


def test_a_plain_function_is_returned_as_it_is():
    def plain(x):
        return x + 1
    assert direct(plain, 1) is plain


def test_a_cartagena_state_still_pickles():
    """The entry points live in the modules, not in a game or a state."""
    import pickle
    game = make("cartagena(profile=basic,players=2)")
    state = game.new_initial_state(seed=1)
    state.apply(state.legal_actions()[0])
    again = pickle.loads(pickle.dumps(state))
    assert again.legal_actions() == state.legal_actions()
    pickle.dumps(game)
