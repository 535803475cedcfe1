"""The game driver: one way to run a game in progress, for every front end."""
import json
import random

import pytest

import boardlab
from boardlab.core.driver import GameDriver, TimeControl, UndoError
from boardlab.core.game import CHANCE, RESIGN, Move, State

from chance_game import GambleGame


def _play_randomly(driver, moves, seed=1):
    rng = random.Random(seed)
    for _ in range(moves):
        if driver.over:
            break
        seat = rng.choice(driver.acting())
        driver.submit(seat, rng.choice(driver.state.legal_actions_for(seat)))


def test_moves_by_notation_or_number_and_illegal_ones_change_nothing():
    driver = GameDriver(boardlab.make("carteso(size=5)"))
    assert driver.submit(0, "Bc3") == Move(0, driver.state.string_to_action("Bc3"))
    assert driver.submit(1, driver.state.string_to_action("Wa1")).seat == 1
    before = driver.state.summary()
    for seat, move in ((0, "Bc3"), (1, "Bb2"), (0, "nonsense"), (0, 10**6), (7, "Bb2")):
        with pytest.raises(boardlab.BoardlabError):
            driver.submit(seat, move)
    assert driver.state.summary() == before and len(driver.state.history) == 2


def test_undo_replays_from_the_nearest_kept_copy_not_the_whole_game(monkeypatch):
    game = boardlab.make("rumbo(size=9)")
    driver = GameDriver(game)
    _play_randomly(driver, 60)
    moves = driver.state.history_text()
    assert len(moves) >= 50
    replayed = []
    original = State.replay_entry
    monkeypatch.setattr(State, "replay_entry",
                        lambda self, entry: (replayed.append(entry), original(self, entry)))
    assert driver.undo(37) == len(moves) - 37
    assert len(replayed) < GameDriver.SNAPSHOT_EVERY
    assert driver.state.summary() == boardlab.replay(game.spec, moves[:37])
    driver.submit(driver.acting()[0], driver.state.legal_actions()[0])   # the game goes on
    assert len(driver.state.history) == 38


def test_undo_refuses_what_it_cannot_take_back_and_changes_nothing():
    driver = GameDriver(boardlab.make("carteso(size=3)"))
    with pytest.raises(UndoError, match="nothing to take back"):
        driver.undo(0)
    driver.submit(0, "Bb2")
    with pytest.raises(UndoError, match="cannot go back"):
        driver.undo(5)
    assert driver.state.history_text() == ["Bb2"]


def test_undo_never_goes_back_past_the_games_floor():
    driver = GameDriver(boardlab.make("cartagena"), seed=3)
    _play_randomly(driver, 30, seed=3)
    floor = driver.undo_floor()
    assert 0 < floor <= len(driver.state.history)      # cards were drawn in 30 actions
    before = driver.state.summary()
    with pytest.raises(UndoError, match="reveal of hidden information or a draw of cards"):
        driver.undo(floor - 1)
    assert driver.state.summary() == before


def test_a_forfeit_ends_the_game_for_the_whole_team_and_goes_in_the_record():
    game = boardlab.make("ctor(size=8,teams=2v2)")
    driver = GameDriver(game, seed=1)
    _play_randomly(driver, 5)
    loser = game.teams[1][1]                             # not the seat that acts now
    driver.forfeit(loser, "timeout", "used up its clock")
    returns = driver.state.returns()
    assert driver.over and all(returns[s] == -1.0 for s in game.teams[1])
    assert all(returns[s] == 1.0 for s in game.teams[0])
    record = driver.record(players=["a", "b", "c", "d"])
    assert record["meta"]["forfeit"]["kind"] == "timeout"
    assert record["moves"][-1] == f"{game.seat_names[loser]}:resign"   # not its turn
    _, loaded = boardlab.loads(json.dumps(record))
    assert loaded.returns() == returns


def test_resignation_is_team_aware_in_core():
    game = boardlab.make("ctor(size=8,teams=2v2)")
    state = game.new_initial_state()
    seat = state.acting_seats()[0]
    state.resign(seat)
    team = game.team_of(seat)
    assert state.returns() == [-1.0 if game.team_of(s) == team else 1.0
                               for s in range(game.num_seats)]
    assert state.history[-1] == Move(seat, RESIGN)


def test_clocks_are_charged_and_shown_in_views():
    driver = GameDriver(boardlab.make("carteso(size=5)"),
                        time_control=TimeControl(game=10, increment=1))
    assert driver.budget(0)["clock"] == 10
    driver.submit(0, "Bc3", used=3.5)
    assert driver.clocks == [7.5, 10]
    assert driver.view(1)["clocks"] == {"vertical": 7.5, "horizontal": 10}
    assert GameDriver(boardlab.make("carteso(size=5)")).view(0)["clocks"] is None


def test_chance_outcomes_are_drawn_by_the_driver_from_its_seed():
    games = []
    for _ in range(2):
        driver = GameDriver(GambleGame(p=0.5), seed=11)
        driver.submit(0, "gamble")
        games.append(driver.state.history_text())
        assert driver.state.history[1].seat == CHANCE
    assert games[0] == games[1]


def test_different_seeds_draw_different_chance_outcomes():
    outcomes = set()
    for seed in range(20):
        driver = GameDriver(GambleGame(p=0.5), seed=seed)
        driver.submit(0, "gamble")
        outcomes.add(driver.state.history_text()[1])
    assert outcomes == {"win", "lose"}


def test_a_forfeit_after_the_end_changes_nothing():
    driver = GameDriver(boardlab.make("carteso(size=3)"))
    driver.resign(0)
    assert driver.forfeit(1, "timeout", "late") is None
    assert driver.forfeit_info is None and driver.state.returns() == [-1.0, 1.0]


def test_the_increment_does_not_pay_for_the_move_that_overran_and_undo_restores_clocks():
    driver = GameDriver(boardlab.make("carteso(size=5)"),
                        time_control=TimeControl(game=2, increment=5))
    assert driver.charge(0, 3) == -1            # overran by 1 s, though 5 s come back
    driver.submit(0, "Bc3")
    assert driver.clocks == [4, 2]
    driver.submit(1, "Wa1", used=1.5)
    assert driver.clocks == [4, 5.5]
    driver.undo(1)
    assert driver.clocks == [4, 2]


def _open_sub_round(game):
    driver = GameDriver(game, seed=1)
    while len(driver.acting()) < 2:
        seat = driver.acting()[0]
        driver.submit(seat, driver.state.legal_actions_for(seat)[0])
    return driver


def test_resigning_in_a_simultaneous_round_names_the_seat_and_replays_the_same():
    game = boardlab.make("ctor(size=8,teams=2v2,team_protocol=simultaneous)")
    driver = _open_sub_round(game)
    first, second = driver.acting()[:2]
    with pytest.raises(boardlab.IllegalMoveError, match="say who resigns"):
        driver.state.play("resign")                      # two seats act: whose?
    driver.submit(second, "resign")
    assert driver.state.history_text()[-1] == f"{game.seat_names[second]}:resign"
    loaded = boardlab.loads(boardlab.dumps(driver.state))[1]
    assert loaded.history[-1] == Move(second, RESIGN) and loaded.returns() == \
        driver.state.returns()


def test_a_commit_cut_short_by_a_resignation_stays_hidden():
    game = boardlab.make("ctor(size=8,teams=2v2,team_protocol=simultaneous)")
    driver = _open_sub_round(game)
    first, second = driver.acting()[:2]
    driver.submit(first, driver.state.legal_actions_for(first)[0])   # a hidden commit
    driver.submit(second, "resign")
    for seat in [None, *range(game.num_seats)]:
        if seat != first:
            assert driver.state.view(seat)["history"][-2] == f"{game.seat_names[first]}:?"
    loaded = boardlab.loads(boardlab.dumps(driver.state))[1]
    assert loaded.history == driver.state.history


@pytest.mark.parametrize("bad", ["zzz", "resign", 2.5, None])
def test_an_agent_that_returns_no_action_number_forfeits(bad, monkeypatch):
    from boardlab.agents.random_agent import RandomAgent
    from boardlab.arena import game_runner
    monkeypatch.setattr(RandomAgent, "act", lambda self, view, budget=None: bad)
    result = game_runner.run_game("carteso(size=3)", ["random", "random"], seed=1)
    assert result.forfeit["kind"] == "illegal" and result.forfeit["seat"] == "vertical"
    assert result.actions == 0 and result.returns == [-1.0, 1.0]
