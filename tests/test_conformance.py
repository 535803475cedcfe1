"""The API suite every registered game runs: seeded random games and their invariants."""
import json
import random

import pytest

import boardlab
from boardlab.core.game import TERMINAL

from conftest import conformance_specs

SPECS = conformance_specs()


def random_game(spec, seed):
    game = boardlab.make(spec)
    rng = random.Random(seed)
    state = game.new_initial_state(seed=seed)
    trace = []
    while not state.is_terminal():
        seats = state.acting_seats()
        assert seats, f"{spec}: nobody acts in a running game"
        seat = rng.choice(seats)
        legal = state.legal_actions_for(seat)
        assert legal, f"{spec}: no legal action in a running game"
        assert len(set(legal)) == len(legal)
        assert all(0 <= a < game.num_actions for a in legal)
        assert state.returns() == [0.0] * game.num_seats, "returns before the end"
        action = rng.choice(legal)
        trace.append((seat, action))
        if state.current_player() == boardlab.SIMULTANEOUS:
            state.apply(action, seat=seat)
        else:
            assert state.legal_actions() == legal
            state.apply(action)
        assert len(trace) <= game.max_game_length, f"{spec}: longer than its declared maximum"
    return game, state, trace


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("seed", range(4))
def test_random_games_end_properly(spec, seed):
    game, state, trace = random_game(spec, seed)
    assert state.current_player() == TERMINAL
    assert state.legal_actions() == []
    returns = state.returns()
    assert len(returns) == game.num_seats
    assert all(r in (-1.0, 0.0, 1.0) for r in returns)
    assert sum(returns) == 0 if game.num_seats == 2 else True


@pytest.mark.parametrize("spec", SPECS)
def test_same_seed_same_game(spec):
    assert random_game(spec, 7)[2] == random_game(spec, 7)[2]


@pytest.mark.parametrize("spec", SPECS)
def test_record_round_trip(spec):
    game, state, _ = random_game(spec, 11)
    record, loaded = boardlab.loads(boardlab.dumps(state, players=["a", "b"], seed=11))
    assert record["format"] == "boardlab-record/1"
    assert loaded.summary() == state.summary()
    assert loaded.history == state.history
    assert json.loads(json.dumps(loaded.summary())) == loaded.summary()


@pytest.mark.parametrize("spec", SPECS)
def test_notation_round_trips_and_clone_is_independent(spec):
    game = boardlab.make(spec)
    state = game.new_initial_state(seed=3)
    rng = random.Random(3)
    for _ in range(12):
        if state.is_terminal():
            break
        seat = state.acting_seats()[0]
        for action in state.legal_actions_for(seat):
            assert state.string_to_action(state.action_to_string(action)) == action
        copy = state.clone()
        before = copy.summary()
        state.play(f"{game.seat_names[seat]}:"
                   f"{state.action_to_string(rng.choice(state.legal_actions_for(seat)))}")
        assert copy.summary() == before


@pytest.mark.parametrize("spec", SPECS)
def test_illegal_action_changes_nothing(spec):
    game = boardlab.make(spec)
    state = game.new_initial_state(seed=5)
    before = state.summary()
    illegal = [a for a in range(game.num_actions) if a not in set(state.legal_actions())]
    for action in illegal[:50] + [-1, game.num_actions, 10**9]:
        with pytest.raises(boardlab.IllegalMoveError):
            state.apply(action)
    with pytest.raises(boardlab.IllegalMoveError):
        state.apply("Bc3")
    assert state.summary() == before and state.history == []


@pytest.mark.parametrize("spec", SPECS)
def test_views_are_plain_data_and_only_the_mover_gets_actions(spec):
    game, state, _ = random_game(spec, 2)
    fresh = game.new_initial_state(seed=2)
    acting = fresh.acting_seats()
    for seat in list(range(game.num_seats)) + [None]:
        view = fresh.view(seat)
        json.dumps(view)
        expected = fresh.legal_actions_for(seat) if seat in acting else []
        assert view["legal_actions"] == expected
        assert bool(expected) == (seat in acting)


@pytest.mark.parametrize("spec", SPECS)
def test_resignation_ends_the_game(spec):
    game = boardlab.make(spec)
    state = game.new_initial_state(seed=1)
    seat = state.current_player()
    state.play("resign")
    assert state.is_terminal() and state.returns()[seat] == -1.0
    record, loaded = boardlab.loads(boardlab.dumps(state))
    assert record["moves"][-1] == "resign" and loaded.returns() == state.returns()


@pytest.mark.parametrize("name", ["carteso", "rumbo"])
def test_the_largest_board(name):
    game = boardlab.make(name, size=26, komi=0.5)
    state = game.new_initial_state()
    state.play("Bz26")
    state.play("Wa1")
    assert state.summary()["board"][0].endswith("B") and state.board[0] == 2
    assert game.bench_playouts(2, seed=1) >= 2 * 676
    with pytest.raises(boardlab.NotationError, match="not on the 26x26 board"):
        state.play("Ba27")
