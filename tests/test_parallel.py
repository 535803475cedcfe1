"""Root parallelism (boardlab/agents/parallel.py): ``mcts(workers=N)``.

1. How several searches' roots are added up (``merge``): a proof decides, moves proven
   lost are left out, the most simulations in all wins.
2. A parallel agent plays legal moves to the end of a game and stops its helpers when
   the game is over; under an iteration budget the same seed plays the same game.
3. It never plays the pass that the reply pass wins (the solver's look-ahead runs in
   every process).
4. Bad set-ups and a helper that dies are clear errors.
"""
from __future__ import annotations

import os
import random
import signal
import time

import pytest

import boardlab
from boardlab import OptionError
from boardlab.agents import make_agent
from boardlab.agents.mcts import MCTS
from boardlab.agents.parallel import WorkerError, merge

from test_solver import BEHIND, replayed


def summary(stats, proven=False, choice=None, lost=()):
    return {"stats": stats, "proven": proven, "choice": choice, "lost": list(lost)}


# 1. Adding up the roots -------------------------------------------------------------------
def test_the_most_simulations_in_all_win():
    a = summary({1: (10, 6.0), 2: (12, 2.0)})
    b = summary({1: (9, 5.0), 2: (3, 1.0), 3: (1, 1.0)})
    assert merge([a, b], [1, 2, 3], random.Random(1)) == 1      # 19 against 15
    assert merge([a], [1, 2, 3], random.Random(1)) == 2


def test_ties_go_to_the_summed_value():
    a = summary({1: (5, 1.0), 2: (5, 3.0)})
    b = summary({1: (5, 1.0), 2: (5, -2.0)})
    assert merge([a, b], [1, 2], random.Random(1)) == 1         # 2.0 against 1.0


def test_a_proof_decides_and_a_proven_loss_is_left_out():
    busy = summary({1: (40, 9.0), 2: (2, 0.0)})
    assert merge([busy, summary({1: (3, 1.0)}, proven=True, choice=2)], [1, 2],
                 random.Random(1)) == 2
    assert merge([busy, summary({1: (3, 1.0)}, lost=[1])], [1, 2], random.Random(1)) == 2


def test_where_every_tried_move_is_lost_an_untried_one_is_played():
    lost = summary({1: (9, -9.0), 2: (9, -9.0)}, lost=[1, 2])
    assert merge([lost], [1, 2, 3], random.Random(1)) == 3
    # all legal moves lost: the most visited of them
    assert merge([summary({1: (9, -9.0), 2: (4, -4.0)}, lost=[1, 2])], [1, 2],
                 random.Random(1)) == 1


# 2. Whole games -----------------------------------------------------------------------------
def play(spec, agent_spec, seed):
    game = boardlab.make(spec)
    agent = make_agent(agent_spec, game, 0, seed=seed)
    other = make_agent("random", game, 1, seed=seed)
    state, moves = game.new_initial_state(seed=seed), []
    try:
        while not state.is_terminal():
            seat = state.current_player()
            view = state.view(seat)
            action = (agent if seat == 0 else other).act(view)
            assert action in view["legal_actions"]
            state.apply(action)
            moves.append(action)
        helpers = agent.helpers.processes
        assert len(helpers) == 1 and helpers[0].poll() is None
    finally:
        agent.close(state.returns() if state.is_terminal() else None)
    assert agent.helpers is None and all(p.poll() is not None for p in helpers)
    return moves


def test_a_parallel_search_plays_a_game_to_the_end_and_repeats_it():
    spec, agent = "carteso(size=4,button=false,komi=0.5)", "mcts(iterations=60,workers=2)"
    first = play(spec, agent, seed=3)
    assert play(spec, agent, seed=3) == first


def test_ismcts_searches_in_parallel_with_hidden_cards():
    play("cartagena(profile=basic,max_turns=12)", "ismcts(iterations=40,workers=2)", seed=5)


# 3. The solver's guarantee holds ----------------------------------------------------------------
@pytest.mark.parametrize("spec, moves", BEHIND[:2])
def test_a_pass_that_the_reply_pass_wins_is_never_played_in_parallel(spec, moves):
    state = replayed(spec, moves)
    seat = state.current_player()
    agent = make_agent("mcts(level=1,workers=2)", state.game, seat, seed=7)
    try:
        played = [state.action_to_string(agent.act(state.view(seat))) for _ in range(6)]
    finally:
        agent.close()
    assert "pass" not in played, played


# 4. Errors ---------------------------------------------------------------------------------------
def test_workers_need_a_named_evaluator():
    game = boardlab.make("carteso(size=4)")

    class Flat:
        def evaluate(self, state, rng):
            return [0.0, 0.0]

    with pytest.raises(OptionError, match="'workers' needs a named evaluator"):
        MCTS(game, 0, evaluator=Flat(), workers=2)
    with pytest.raises(OptionError, match="workers"):
        make_agent("mcts(workers=0)", game, 0)


def test_a_helper_that_dies_is_a_clear_error():
    game = boardlab.make("carteso(size=4,button=false)")
    state = game.new_initial_state()
    agent = make_agent("mcts(iterations=30,workers=2)", game, 0, seed=1)
    try:
        agent.act(state.view(0))
        helper = agent.helpers.processes[0]
        os.kill(helper.pid, signal.SIGKILL)
        helper.wait()
        with pytest.raises(WorkerError, match="went away"):
            agent.act(state.view(0))
    finally:
        agent.close()


def test_an_answer_that_comes_after_its_move_is_dropped():
    """A helper left out of a move (late under a time limit) answers it later: the next
    move's gathering drops that answer and keeps the one of its own search."""
    from boardlab.agents.parallel import Helpers
    game = boardlab.make("carteso(size=4,button=false)")
    view = game.new_initial_state().view(0)
    helpers = Helpers(MCTS, game.spec, 0, [1], {"iterations": 20, "reuse": False,
                                                  "workers": 1})
    processes = list(helpers.processes)
    try:
        helpers.ask(view, None, time.perf_counter())          # never gathered: "late"
        helpers.ask(view, None, time.perf_counter())
        answers = helpers.gather(None)
        assert [a["tag"] for a in answers] == [2]
        assert sum(visits for visits, _ in answers[0]["stats"].values()) == 20
    finally:
        helpers.close()
    assert all(p.poll() is not None for p in processes)
