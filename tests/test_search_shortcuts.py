"""The search's shortcuts change nothing: the unchecked apply, Cartagena's quicker
rollout, ranking and redeal, and whole ISMCTS games recorded before them.

See also tests/test_mcts_tree_arrays.py (the tree statistics in arrays).
"""
from __future__ import annotations

import hashlib
import random

import numpy as np
import pytest

import boardlab
from boardlab.agents.search_state import Sampler, state_from_view
from boardlab.arena.game_runner import run_game
from boardlab.bench import bench_search
from boardlab.core.errors import IllegalMoveError
from boardlab.core.game import SIMULTANEOUS
from boardlab.games import cartagena_kernel as K


# The unchecked apply ------------------------------------------------------------------------

SPECS = ["carteso(size=5)", "rumbo(size=5)", "cartagena(profile=basic,players=2)",
         "cartagena(players=3)", "ctor(size=8)",
         "ctor(size=8,teams=2v2,team_protocol=simultaneous)"]


def _same_position(a, b):
    assert a.history == b.history
    assert a.current_player() == b.current_player()
    assert a.summary() == b.summary()
    if hasattr(a, "buf"):
        assert np.array_equal(a.buf, b.buf)


@pytest.mark.parametrize("spec", SPECS)
def test_the_unchecked_apply_makes_the_same_moves_and_history_as_apply(spec):
    game = boardlab.make(spec)
    simultaneous = 0
    for seed in range(3):
        checked = game.new_initial_state(seed=seed)
        unchecked = game.new_initial_state(seed=seed)
        chooser = random.Random(seed)
        for ply in range(120):
            if checked.is_terminal():
                break
            seat = chooser.choice(checked.acting_seats())
            action = chooser.choice(checked.legal_actions_for(seat))
            several = checked.current_player() == SIMULTANEOUS
            simultaneous += several
            checked.apply(action, seat=seat)
            if ply % 2 or several:        # with the player asked here, or left to it
                unchecked.apply_unchecked(action, seat if several else None)
            else:
                unchecked.apply_unchecked(action, None, unchecked.current_player())
            _same_position(checked, unchecked)
    assert simultaneous or "simultaneous" not in spec


def test_apply_still_refuses_an_illegal_action_and_changes_nothing():
    state = boardlab.make("cartagena(profile=basic,players=2)").new_initial_state(seed=1)
    illegal = next(a for a in range(state.game.num_actions) if a not in state.legal_actions())
    before = state.buf.copy()
    with pytest.raises(IllegalMoveError):
        state.apply(illegal)
    assert np.array_equal(state.buf, before) and state.history == []


# Cartagena's rollout, ranking and redeal against the former code ---------------------------

def reference_ranking_key(state, seat, buf):
    """(tokens in the boat, sum of positions), as the former code summed them."""
    game = state.game
    width = game.L + 2
    mine = buf[game.layout["mine"] + seat * width:][:width]
    return int(mine[game.L + 1]), int(sum(x * int(mine[x]) for x in range(width)))


def reference_returns(state, buf):
    if buf[K.M_OVER] == K.OVER_WIN:
        first = [int(buf[K.M_WINNER])]
    else:
        keys = [reference_ranking_key(state, s, buf) for s in range(state.game.num_seats)]
        first = [s for s, key in enumerate(keys) if key == max(keys)]
    seats = state.game.num_seats
    if len(first) == seats:
        return [0.0] * seats
    return [1.0 if s in first else -1.0 for s in range(seats)]


def reference_rollout(state, seed, max_turns):
    """The former ``rollout``: a copy of the state played out, then ranked."""
    other = state.clone()
    cfg = state.game.cfg
    if max_turns is not None:
        cfg = cfg.copy()
        cfg[K.C_MAX_TURNS] = min(cfg[K.C_MAX_TURNS], int(state.buf[K.M_TURNS]) + max_turns)
    if not other.is_terminal():
        K.seed_rng(other.buf, seed)
        K.playout(other.buf, cfg, seed)
        if other.buf[K.M_OVER] == 0:
            other.buf[K.M_OVER] = K.OVER_CAP
        return reference_returns(other, other.buf)
    return other.returns()


@pytest.mark.parametrize("spec", ["cartagena(profile=basic,players=2)", "cartagena(players=3)",
                                  "cartagena(players=4,tokens=3)"])
def test_rollouts_and_returns_are_those_of_the_former_code(spec):
    game = boardlab.make(spec)
    rng = random.Random(7)
    kinds = set()
    for seed in range(12):
        state = game.new_initial_state(seed=seed)
        for _ in range(rng.randrange(0, 150)):
            if state.is_terminal():
                break
            state.apply(rng.choice(state.legal_actions()))
        before = state.buf.copy()
        for turns in (None, 1, 5, 200):
            rollout_seed = rng.randrange(2**31)
            assert state.rollout(rollout_seed, turns) == \
                reference_rollout(state, rollout_seed, turns)
            assert np.array_equal(state.buf, before)          # the state is left as it was
        played, cfg = state.clone(), game.cfg.copy()
        if seed % 2:                                   # a game ended by the turn cap
            cfg[K.C_MAX_TURNS] = int(state.buf[K.M_TURNS]) + rng.randrange(1, 20)
        K.seed_rng(played.buf, seed)
        K.playout(played.buf, cfg, seed)
        kinds.add(int(played.buf[K.M_OVER]))
        assert played.returns() == reference_returns(played, played.buf)
        for seat in range(game.num_seats):
            assert played.ranking_key(seat) == reference_ranking_key(played, seat, played.buf)
    assert K.OVER_WIN in kinds and len(kinds) > 1      # won games and ranked ones


def test_a_redeal_takes_the_deal_its_knowledge_asks_for():
    """Samples keep whether their knowledge is more than the plain deal; a redeal by it
    deals exactly as the former check on the knowledge did."""
    game = boardlab.make("cartagena(profile=basic,players=2)")
    state, rng = game.new_initial_state(seed=3), random.Random(3)
    grouped = plain = 0
    while not state.is_terminal() and len(state.history) < 400:
        seat = state.current_player()
        view = state.view(seat)
        sample = state_from_view(game, view, random.Random(len(state.history)))
        if sample.sampled_for is not None:
            assert sample._deal_arrays[3] == (not sample.sampled_for.trivial())
            grouped += sample._deal_arrays[3]
            plain += not sample._deal_arrays[3]
        copy, reference = sample.clone(), sample.clone()
        copy.redeal(seat, 11)
        knowledge = reference.sampled_for
        if knowledge is not None and knowledge.viewer == seat and not knowledge.trivial():
            from boardlab.games.cartagena_sample import deal_known
            deal_known(reference, knowledge, 11)
        else:
            hidden = np.array([game.hidden_hands and p != seat for p in range(game.num_seats)],
                              dtype=np.int32)
            K.redeal(reference.buf, game.cfg, hidden, 11)
        assert np.array_equal(copy.buf, reference.buf)
        state.apply(rng.choice(state.legal_actions()))
    assert grouped and plain


def test_samples_of_a_sampler_are_independent_of_the_masks_kept():
    game = boardlab.make("cartagena(profile=basic,players=3)")
    state = game.new_initial_state(seed=5)
    view = state.view(0)
    first = [s.buf.copy() for s in _samples(game, view, 5)]
    game.hidden_masks.clear()
    assert all(np.array_equal(a, b) for a, b in zip(first, [s.buf for s in _samples(
        game, view, 5)]))
    assert any(not np.array_equal(first[0], b) for b in first[1:])


def _samples(game, view, count):
    rng = random.Random(1)
    sampler = Sampler(state_from_view(game, view, rng), view, rng)
    return [sampler.sample() for _ in range(count)]


# Whole games against moves recorded before these changes -----------------------------------

RECORDED = [    # (spec, players, seed, moves, sha256 of the moves joined by spaces: first 32)
    ("cartagena(profile=basic,players=2)",
     ["ismcts(iterations=60,playout=random)", "greedy"], 1, 315,
     "32bcde22d8f955cee4502933db1bd719"),
    ("cartagena(profile=basic,players=2)",
     ["greedy", "ismcts(iterations=60,opponents=informed,own=split,playout=random)"], 2, 1000,
     "4b6256d3744a709606351eb33323ae6c"),
    ("cartagena(profile=basic,players=3)",
     ["ismcts(iterations=40,evaluator=heuristic)", "random",
      "ismcts(iterations=40,worlds=8,playout=random)"], 3, 108,
     "243ff68503c65289320f6f42d26925a2"),
    ("cartagena(players=2)", ["mcts(iterations=40,determinizations=2,playout=random)",
                              "ismcts(iterations=40,reuse=false,playout=random)"], 4, 60,
     "3ba476151d807e164b3c5074a67e49b5"),
]


@pytest.mark.parametrize("spec, players, seed, length, digest", RECORDED)
def test_a_fixed_seed_cartagena_game_plays_the_recorded_moves(spec, players, seed, length,
                                                              digest):
    """Recorded before the unchecked apply and Cartagena's quicker rollout and redeal
    (fixed iteration budgets, kernel rollouts: random ones, which the agents then played;
    ``playout=random`` since the guided playouts became Cartagena's default)."""
    moves = run_game(spec, players, seed).record["moves"]
    assert len(moves) == length
    assert hashlib.sha256(" ".join(moves).encode()).hexdigest()[:32] == digest


# The benchmark ---------------------------------------------------------------------------------

def test_the_search_benchmark_reports_cpu_simulations_per_second():
    result = bench_search("rumbo(size=5)", "mcts", seconds=0.05, runs=1)
    assert result["sims_per_s"] > 0 and result["cpu_sims_per_s"] > 0
    assert set(result) == {"spec", "agent", "sims_per_s", "cpu_sims_per_s", "runs"}


def test_the_search_benchmark_takes_an_agent_with_options():
    # e.g. --search "mcts(evaluator=heuristic)": the benchmark's budget options are set on it
    result = bench_search("rumbo(size=5)", "mcts(evaluator=heuristic,c=2)", seconds=0.05, runs=1)
    assert result["agent"] == "mcts(evaluator=heuristic,c=2)" and result["sims_per_s"] > 0
