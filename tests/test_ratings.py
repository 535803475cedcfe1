"""Elo, Bradley–Terry, SPRT and OpenSkill ratings, and their table and plot."""
import math
import random

import numpy as np
import pytest

from boardlab.arena.ratings import (
    Rating,
    Sprt,
    bradley_terry,
    elo_from_score,
    expected_score,
    format_table,
    match_elo,
    openskill_ratings,
    plot_ratings,
    sprt_llr,
)

ELO_PER_NAT = 400 / math.log(10)


def naive_expected(d):
    return 1 / (1 + 10 ** (-d / 400))


def naive_elo(p):
    return -400 * math.log10(1 / p - 1)


def repeat(a, b, wins, losses, draws=0):
    return [(a, b, 1)] * wins + [(a, b, 0)] * losses + [(a, b, 0.5)] * draws


def by_name(ratings):
    return {r.name: r for r in ratings}


# --- Elo helpers --------------------------------------------------------------

@pytest.mark.parametrize("d", [-800, -190.85, -1, 0, 0.5, 100, 400, 1200])
def test_expected_score_matches_the_formula_and_round_trips(d):
    assert expected_score(d) == pytest.approx(naive_expected(d), rel=1e-12)
    assert elo_from_score(expected_score(d)) == pytest.approx(d, abs=1e-8)


def test_known_elo_values():
    assert elo_from_score(0.75) == pytest.approx(190.85, abs=0.005)
    assert elo_from_score(0.64) == pytest.approx(100, abs=0.5)
    assert elo_from_score(0.5) == 0
    assert expected_score(math.inf) == 1 and expected_score(-math.inf) == 0


@pytest.mark.parametrize("p", [0, 1, -0.1, 1.5])
def test_elo_from_score_rejects_scores_without_a_finite_elo(p):
    with pytest.raises(ValueError, match="strictly between 0 and 1"):
        elo_from_score(p)


def test_match_elo_from_first_principles():
    # W=60 D=20 L=20: score 0.7, per-game variance
    # 0.6*0.3^2 + 0.2*0.2^2 + 0.2*0.7^2 = 0.16, standard error sqrt(0.16/100) = 0.04.
    margin = 1.959963984540054 * 0.04
    expected = (naive_elo(0.7), naive_elo(0.7 - margin), naive_elo(0.7 + margin))
    assert match_elo(60, 20, 20) == pytest.approx(expected, rel=1e-12)
    assert match_elo(60, 20, 20) == pytest.approx((147.19, 86.2, 218.3), abs=0.05)


def test_match_elo_is_antisymmetric_and_centred_for_even_results():
    elo, low, high = match_elo(10, 5, 10)
    assert elo == 0 and low == pytest.approx(-high)
    elo, low, high = match_elo(60, 20, 20)
    assert match_elo(20, 20, 60) == pytest.approx((-elo, -high, -low))


def test_match_elo_degenerate_results():
    assert match_elo(5, 0, 0) == (math.inf, math.inf, math.inf)
    assert match_elo(0, 0, 5) == (-math.inf, -math.inf, -math.inf)
    assert match_elo(0, 0, 0) == (0, -math.inf, math.inf)
    elo, low, high = match_elo(9, 0, 1)  # interval reaches past a score of 1
    assert math.isfinite(elo) and math.isfinite(low) and high == math.inf
    with pytest.raises(ValueError):
        match_elo(-1, 2, 3)


# --- Bradley–Terry ------------------------------------------------------------

def chain_games(scale=1):
    """A 3:1 over B, B 3:1 over C, A 9:1 over C: exactly +190.85 Elo per step."""
    return (repeat("A", "B", 300 * scale, 100 * scale) + repeat("B", "C", 300 * scale, 100 * scale)
            + repeat("C", "A", 40 * scale, 360 * scale))


def test_bradley_terry_recovers_known_strengths():
    ratings = bradley_terry(chain_games(), prior_games=0)
    assert [r.name for r in ratings] == ["A", "B", "C"]
    step = naive_elo(0.75)
    assert [r.rating for r in ratings] == pytest.approx([step, 0, -step], abs=1e-6)
    assert [(r.games, r.points) for r in ratings] == [(800, 660), (800, 400), (800, 140)]


def test_bradley_terry_two_player_interval_by_hand():
    # One pair: the strength gap d has variance 1 / (n p (1-p)); each centred rating is ±d/2.
    ratings = by_name(bradley_terry(repeat("a", "b", 75, 25), prior_games=0))
    se = ELO_PER_NAT / math.sqrt(100 * 0.75 * 0.25) / 2
    a = ratings["a"]
    assert a.rating == pytest.approx(naive_elo(0.75) / 2)
    assert (a.low, a.high) == pytest.approx((a.rating - 1.96 * se, a.rating + 1.96 * se), abs=0.01)
    assert ratings["b"].rating == pytest.approx(-a.rating)


def test_bradley_terry_interval_with_prior_by_hand():
    # n even games and w virtual draws each: the information is n/4 between the players and
    # w/4 on each diagonal, so the centred rating (θa - θb)/2 has variance 2 / (2n + w).
    n, w = 10, 3
    a = by_name(bradley_terry(repeat("a", "b", 5, 5), prior_games=w))["a"]
    margin = 1.959963984540054 * ELO_PER_NAT * math.sqrt(2 / (2 * n + w))
    assert (a.rating, a.low, a.high) == pytest.approx((0, -margin, margin), abs=1e-9)


def random_games(strength, count=400, seed=7):
    """Games between random pairs; the win / draw / loss odds follow ``strength`` (Elo)."""
    rng = random.Random(seed)
    players, games = list(strength), []
    for _ in range(count):
        a, b = rng.sample(players, 2)
        p, u = naive_expected(strength[a] - strength[b]), rng.random()
        games.append((a, b, 1 if u < p - 0.1 else 0.5 if u < p + 0.1 else 0))
    return games


@pytest.mark.parametrize("prior", [0, 1.5])
def test_bradley_terry_matches_an_independent_mm_fit(prior):
    strength = {"p": 0, "q": 150, "r": -100, "s": 300, "t": 50}
    games = random_games(strength)
    ratings = bradley_terry(games, prior_games=prior)
    assert [r.rating for r in ratings] == sorted((r.rating for r in ratings), reverse=True)
    assert [r.name for r in ratings][:2] == ["s", "q"]
    expected = mm_bradley_terry(games, list(strength), prior)
    assert {r.name: r.rating for r in ratings} == pytest.approx(expected, abs=1e-4)


def mm_bradley_terry(games, players, prior, iterations=3000):
    """Hunter's MM iteration, draws as half points, centred Elo. The prior is a player
    fixed at strength 1 who draws ``prior`` games with everyone."""
    points = dict.fromkeys(players, prior / 2)
    pairs = {(p, "virtual"): prior for p in players}
    for a, b, s in games:
        points[a] += s
        points[b] += 1 - s
        pairs[a, b] = pairs.get((a, b), 0) + 1
    gamma = dict.fromkeys(players, 1.0)
    for _ in range(iterations):
        denom = dict.fromkeys(players, 0.0)
        for (a, b), n in pairs.items():
            share = n / (gamma[a] + gamma.get(b, 1.0))
            for p in (a, b):
                if p in denom:
                    denom[p] += share
        gamma = {p: points[p] / denom[p] for p in players}
    logs = {p: ELO_PER_NAT * math.log(g) for p, g in gamma.items()}
    mean = sum(logs.values()) / len(logs)
    return {p: v - mean for p, v in logs.items()}


def test_bradley_terry_gradient_is_that_of_the_log_likelihood():
    # White-box: the step-halving search relies on the log-likelihood agreeing with the gradient.
    from boardlab.arena.ratings import _bt_gradient, _bt_loglik, _tally
    _, points, counts = _tally(random_games({"a": 0, "b": 100, "c": 200}, count=60), None)
    theta, h = np.array([0.3, -0.2, 0.5]), 1e-6
    numeric = [(_bt_loglik(theta + h * e, points, 2.0) - _bt_loglik(theta - h * e, points, 2.0))
               / (2 * h) for e in np.eye(3)]
    assert numeric == pytest.approx(_bt_gradient(theta, points, counts, 2.0), abs=1e-6)


def test_bradley_terry_intervals_shrink_with_more_games():
    few, many = (by_name(bradley_terry(chain_games(k), prior_games=0)) for k in (1, 4))
    for name in "ABC":
        width = many[name].high - many[name].low
        assert width == pytest.approx((few[name].high - few[name].low) / 2, rel=1e-6)
        assert many[name].rating == pytest.approx(few[name].rating, abs=1e-6)


def test_bradley_terry_symmetric_results_give_equal_ratings():
    games = repeat("x", "y", 5, 5, 2) + repeat("y", "z", 5, 5, 2) + repeat("z", "x", 5, 5, 2)
    for prior in (0, 1):
        ratings = bradley_terry(games, prior_games=prior)
        assert [r.rating for r in ratings] == pytest.approx([0, 0, 0], abs=1e-9)
        assert len({round(r.high - r.low, 9) for r in ratings}) == 1
        assert all(r.low < 0 < r.high for r in ratings)


def test_bradley_terry_prior_keeps_an_unbeaten_player_finite():
    games = repeat("ace", "b", 10, 0) + repeat("ace", "c", 10, 0) + repeat("b", "c", 6, 4)
    with pytest.raises(ValueError, match="prior_games"):
        bradley_terry(games, prior_games=0)
    ratings = bradley_terry(games)
    assert ratings[0].name == "ace"
    assert all(math.isfinite(x) for r in ratings for x in (r.rating, r.low, r.high))
    assert ratings[0].low > ratings[1].rating
    assert sum(r.rating for r in ratings) == pytest.approx(0, abs=1e-9)


def test_bradley_terry_prior_shrinks_ratings_towards_the_mean():
    plain = by_name(bradley_terry(chain_games(), prior_games=0))
    shrunk = by_name(bradley_terry(chain_games(), prior_games=20))
    assert 0 < shrunk["A"].rating < plain["A"].rating


def test_bradley_terry_names_and_bad_input():
    ratings = bradley_terry(repeat("a", "b", 1, 1), names=["idle", "a"])
    assert by_name(ratings)["idle"].games == 0
    assert bradley_terry([]) == []
    for bad in [("a", "a", 1), ("a", "b", 2), ("a", "b", -0.5)]:
        with pytest.raises(ValueError):
            bradley_terry([bad])
    with pytest.raises(ValueError):
        bradley_terry(repeat("a", "b", 1, 1), prior_games=-1)


# --- SPRT ---------------------------------------------------------------------

def naive_llr(wins, draws, losses, elo0, elo1):
    """Gaussian log-likelihood ratio of the individual game scores, variance by ML."""
    scores = [1.0] * wins + [0.5] * draws + [0.0] * losses
    mean = sum(scores) / len(scores)
    var = sum((x - mean) ** 2 for x in scores) / len(scores)
    s0, s1 = naive_expected(elo0), naive_expected(elo1)
    return sum(((x - s0) ** 2 - (x - s1) ** 2) / (2 * var) for x in scores)


def test_sprt_bounds():
    assert Sprt().bounds == pytest.approx((-2.944, 2.944), abs=5e-4)
    assert Sprt(alpha=0.05, beta=0.1).bounds == pytest.approx((math.log(0.1 / 0.95),
                                                               math.log(0.9 / 0.05)))


@pytest.mark.parametrize("result,elo0,elo1", [((60, 20, 20), 0, 10), ((410, 200, 390), 0, 5),
                                              ((1200, 1500, 1300), -3, 1), ((3, 1, 7), 0, 50)])
def test_sprt_llr_matches_an_independent_implementation(result, elo0, elo1):
    assert sprt_llr(*result, elo0, elo1) == pytest.approx(naive_llr(*result, elo0, elo1), rel=1e-9)


def test_sprt_llr_sign():
    # Midpoint of expected scores at 0 and 10 Elo is ~0.507.
    assert sprt_llr(60, 20, 20, 0, 10) > 0
    assert sprt_llr(20, 20, 60, 0, 10) < 0
    assert sprt_llr(50, 0, 50, 0, 10) < 0
    assert sprt_llr(0, 0, 0, 0, 10) == 0 and sprt_llr(5, 0, 0, 0, 10) == 0


def test_sprt_decisions():
    sprt = Sprt(elo0=0, elo1=10)
    assert sprt.status(300, 100, 100)[0] == "H1"
    assert sprt.status(3000, 2000, 3000)[0] == "H0"
    assert sprt.status(12, 5, 10)[0] == "continue"
    decision, llr = sprt.status(60, 20, 20)
    assert (decision, llr) == ("continue", pytest.approx(sprt_llr(60, 20, 20, 0, 10)))


@pytest.mark.parametrize("kwargs", [{"elo0": 5, "elo1": 5}, {"alpha": 0},
                                    {"alpha": 0.6, "beta": 0.5}])
def test_sprt_rejects_bad_parameters(kwargs):
    with pytest.raises(ValueError):
        Sprt(**kwargs)


# --- OpenSkill ----------------------------------------------------------------

def free_for_all(rounds=12):
    others = ["b", "c", "d"]
    games = []
    for i in range(rounds):
        order = others[i % 3:] + others[:i % 3]
        games.append(([["ace"]] + [[p] for p in order], [1, 2, 3, 4]))
    return games


def test_openskill_player_always_first_ends_highest():
    ratings = openskill_ratings(free_for_all(), names=["zed", "d"])
    assert ratings[0].name == "ace"
    assert [r.rating for r in ratings] == sorted((r.rating for r in ratings), reverse=True)
    assert ratings[0].rating > max(r.rating for r in ratings[1:])
    assert (ratings[0].games, ratings[0].points) == (12, 12)
    assert all(r.low < r.rating < r.high for r in ratings)


def test_openskill_team_games():
    games = [([["a", "b"], ["c", "d"]], [1, 2])] * 5 + [([["a", "c"], ["b", "d"]], [1, 1])]
    ratings = by_name(openskill_ratings(games, names=["bench"]))
    assert ratings["a"].rating > ratings["c"].rating
    assert ratings["a"].rating == pytest.approx(ratings["b"].rating)
    assert (ratings["a"].games, ratings["a"].points) == (6, 5.5)
    assert (ratings["bench"].games, ratings["bench"].rating) == (0, 25)
    a = ratings["a"]
    assert a.high - a.rating == pytest.approx(a.rating - a.low)


def test_openskill_is_deterministic_and_order_dependent():
    games = free_for_all() + [([["d"], ["ace"]], [1, 2])]
    assert openskill_ratings(games) == openskill_ratings(games)
    assert openskill_ratings(games) != openskill_ratings(games[::-1])


@pytest.mark.parametrize("game", [([["a"]], [1]), ([["a"], ["b"]], [1]), ([["a"], ["a"]], [1, 2]),
                                  ([["a"], []], [1, 2])])
def test_openskill_rejects_malformed_games(game):
    with pytest.raises(ValueError):
        openskill_ratings([game])


# --- Output -------------------------------------------------------------------

SAMPLE = [Rating("alpha", 120.25, 80.0, 160.5, 40, 28.5), Rating("b", -3.0, -40.0, math.inf, 7, 3),
          Rating("gamma-long-name", -117.25, -150.0, -80.0, 0, 0)]


def test_format_table_is_aligned_and_complete():
    text = format_table(SAMPLE, title="Round robin")
    lines = text.splitlines()
    assert lines[0] == "Round robin"
    assert len({len(line) for line in lines[1:]}) == 1
    assert set(lines[2]) == {"-"}
    for rank, (line, r) in enumerate(zip(lines[3:], SAMPLE), 1):
        assert line.split()[:3] == [str(rank), r.name, f"{r.rating:+.1f}"]
    assert "[+80.0, +160.5]" in lines[3] and "71.2%" in lines[3] and "+inf]" in lines[4]
    header = lines[1]
    assert "Elo" in header and "95% interval" in header
    cells = [(line, f"{r.rating:+.1f}") for line, r in zip(lines[3:], SAMPLE)]
    assert {line.index(cell) + len(cell) for line, cell in cells} == {header.index("Elo") + 3}


def test_format_table_unit():
    assert "mu" in format_table(SAMPLE, unit="mu").splitlines()[0]


def test_plot_ratings_writes_a_png(tmp_path):
    path = plot_ratings(SAMPLE, tmp_path / "new" / "dir" / "ratings.png", title="test")
    data = path.read_bytes()
    assert path == tmp_path / "new" / "dir" / "ratings.png"
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 1000


def test_a_clean_sweep_takes_its_elo_interval_from_the_score_interval():
    from boardlab.arena.match import wilson_interval
    from boardlab.arena.ratings import match_elo_bounded
    assert match_elo(200, 0, 0) == (math.inf, math.inf, math.inf)      # collapses
    elo, low, high = match_elo_bounded(200, 0, 0, *wilson_interval(200, 200))
    assert elo == high == math.inf and 600 < low < 800
    elo, low, high = match_elo_bounded(0, 0, 50, *wilson_interval(0, 50))
    assert elo == low == -math.inf and -600 < high < -300
    assert match_elo_bounded(60, 20, 20, 0.0, 1.0) == match_elo(60, 20, 20)  # else unchanged


@pytest.mark.parametrize("wins, draws, losses", [(0, 10, 0), (9, 0, 1), (1, 0, 9), (9, 1, 0)])
def test_degenerate_trinomial_intervals_fall_back_to_the_score_interval(wins, draws, losses):
    """All draws (variance 0) or a near sweep (a bound past a score of 0 or 1): the
    Elo interval is finite, has width, and contains the estimate."""
    from boardlab.arena.match import wilson_interval
    from boardlab.arena.ratings import match_elo_bounded
    games = wins + draws + losses
    elo, low, high = match_elo_bounded(wins, draws, losses,
                                       *wilson_interval(wins + draws / 2, games))
    assert -math.inf < low < elo < high < math.inf
    assert f"{elo:+.0f}" != "-0"
