"""Glicko-2 (boardlab/arena/glicko2.py) against Glickman's worked example and its laws."""
import math

import pytest

from boardlab.arena.glicko2 import LICHESS, PAPER, Rating, provisional, rate_game, update


def test_the_papers_worked_example():
    """'Example of the Glicko-2 system': 1500/200/0.06, tau 0.5, against 1400/30 (won),
    1550/100 (lost), 1700/300 (lost): 1464.06, 151.52, 0.05999."""
    after = update(Rating(1500, 200, 0.06),
                   [(Rating(1400, 30), 1.0), (Rating(1550, 100), 0.0), (Rating(1700, 300), 0.0)],
                   PAPER)
    assert after.rating == pytest.approx(1464.06, abs=0.01)
    assert after.deviation == pytest.approx(151.52, abs=0.01)
    assert after.volatility == pytest.approx(0.05999, abs=0.00001)


def test_no_games_only_widens_the_deviation():
    after = update(Rating(1500, 200, 0.06), [], PAPER)
    assert after.rating == 1500
    assert after.deviation == pytest.approx(173.7178 * math.sqrt((200 / 173.7178) ** 2
                                                                  + 0.06 ** 2))


def test_a_win_moves_both_ratings_apart_and_narrows_the_deviations():
    winner, loser = rate_game(Rating(), Rating(), 1.0)
    assert winner.rating > 1500 > loser.rating
    assert winner.rating - 1500 == pytest.approx(1500 - loser.rating)
    assert winner.deviation < 500 and loser.deviation < 500
    drawn = rate_game(Rating(), Rating(), 0.5)
    assert drawn[0].rating == pytest.approx(1500) and drawn[1].rating == pytest.approx(1500)


def test_upsets_move_more_than_expected_results():
    strong, weak = Rating(1900, 60, 0.06), Rating(1500, 60, 0.06)
    expected = rate_game(strong, weak, 1.0)[0].rating - 1900
    upset = 1900 - rate_game(weak, strong, 1.0)[1].rating    # the strong one lost
    assert 0 < expected < upset


def test_lichess_bounds_and_provisional():
    rating = Rating()
    assert provisional(rating)
    opponent = Rating(1500, 60, 0.06)
    for game in range(60):
        rating = update(rating, [(opponent, game % 2)], LICHESS)
    assert rating.deviation >= LICHESS.min_deviation and not provisional(rating)
