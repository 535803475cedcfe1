"""First-play urgency in UCT (``mcts(urgency=U)``): an untried move is chosen only while
no tried move scores U or more by UCB."""
import random

import numpy as np
import pytest

from boardlab.agents import make_agent
from boardlab.agents import mcts_tree as tree
from boardlab.core.errors import OptionError
from boardlab.core.registry import make


def _node(visits_values, untried):
    """A ``where``/``table`` pair: tried actions with (visits, value), then ``untried`` more."""
    n = len(visits_values) + untried
    where = tree.untried_row(n)
    table = np.zeros((3, n + 1))
    for slot, (visits, value) in enumerate(visits_values):
        where[slot] = slot
        table[:, slot] = visits, value, visits
    return where, table


def test_a_tried_move_above_the_urgency_is_chosen_over_a_new_one():
    where, table = _node([(4, 3.0), (4, -4.0)], untried=3)    # means 0.75 and -1
    chosen, slot = tree.select(where, table, tree.NO_MASK, 0.1, tree.LOGS, 1, -1, 2, 0.5)
    assert (chosen, slot) == (0, 0)
    assert list(where) == [0, 1, -1, -1, -1]                  # nothing new tried


def test_below_the_urgency_the_drawn_untried_move_is_tried():
    where, table = _node([(4, 0.0), (4, -4.0)], untried=3)    # best score 0 + c * ...
    chosen, slot = tree.select(where, table, tree.NO_MASK, 0.1, tree.LOGS, 1, -1, 2, 0.9)
    assert (chosen, slot) == (3, 2)                           # the second untried one
    assert where[3] == 2


def test_without_urgency_untried_moves_come_first():
    where, table = _node([(4, 4.0)], untried=2)
    chosen, _ = tree.select(where, table, tree.NO_MASK, 0.1, tree.LOGS, 0, -1, 1)
    assert chosen == 1


@pytest.mark.parametrize("spec", ["carteso(size=7)", "rumbo(size=7)"])
def test_an_unreachable_urgency_searches_as_none(spec):
    """No UCB score reaches 100 (returns are at most 1, the exploration term small):
    the search must be the one without urgency, simulation for simulation."""
    game = make(spec)
    state = game.new_initial_state(seed=5)
    rng = random.Random(5)
    while state.phase() != "play" or state.acting_seats()[0] != 0:
        state.apply(rng.choice(state.legal_actions()))
    view = state.view(0)
    plain = make_agent("mcts(iterations=400,early_stop=false)", game, 0, seed=3)
    high = make_agent("mcts(iterations=400,early_stop=false,urgency=100)", game, 0, seed=3)
    assert plain.act(view) == high.act(view)
    assert plain.root.stats == high.root.stats


def test_urgency_narrows_the_root():
    """With a low urgency the root keeps playing moves that did well instead of trying
    every one of Carteso 9x9's ~160 moves first."""
    game = make("carteso(size=9)")
    state = game.new_initial_state(seed=5)
    rng = random.Random(5)
    while state.phase() != "play":
        state.apply(rng.choice(state.legal_actions()))
    seat = state.acting_seats()[0]
    legal = state.legal_actions()
    agent = make_agent("mcts(iterations=150,early_stop=false,urgency=0.3)", game, seat, seed=1)
    agent.act(state.view(seat))
    assert len(agent.root.stats) < len(legal) - 10


def test_a_negative_urgency_is_refused():
    with pytest.raises(OptionError, match="urgency"):
        make_agent("mcts(urgency=-1)", make("carteso(size=5)"), 0)
