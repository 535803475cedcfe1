"""The fair-komi finder (boardlab.arena.komi): grid, design, fit, interval, CLI."""
import json
import math
import random
from pathlib import Path

import numpy as np
import pytest

import boardlab
from boardlab.arena import komi as K
from boardlab.cli import main
from boardlab.core import board as boards
from boardlab.core import registry
from boardlab.core.errors import BoardlabError, NotationError
from boardlab.core.game import TERMINAL, Game, KomiFacts, State
from boardlab.core.options import Option


# Games, options, grid -----------------------------------------------------------

def test_komi_games_are_exactly_the_games_declaring_komi():
    names = K.komi_games()
    assert {"carteso", "rumbo"} <= set(names)
    for cls in boardlab.games():
        declares = boardlab.make(cls.name).komi is not None
        assert (cls.name in names) == declares


@pytest.mark.parametrize("game, options, message", [
    ("cartagena", {}, "no komi option"),
    ("carteso", {"komi": "3"}, "do not set the komi"),
    ("rumbo(size=5,komi=2)", {}, "do not set the komi"),
    ("carteso", {"komi_protocol": "bid"}, "komi_protocol=fixed"),
    ("carteso", {"size": "0"}, "option 'size'"),
    ("chess", {}, "unknown game"),
])
def test_bad_games_and_options_are_clear_errors(game, options, message):
    with pytest.raises(BoardlabError, match=message):
        K.base_game(game, options)


def test_spec_with_komi_is_fixed_and_keeps_the_user_options():
    game = K.base_game("carteso", {"size": "9", "button": "off"})
    assert K.spec_with_komi(game, -7) == "carteso(size=9,button=false,komi=-3.5)"
    assert boardlab.make(K.spec_with_komi(game, 15)).options["komi"] == 7.5
    assert K.default_plot_name(game) == "komi-carteso-9-nobutton.png"
    assert K.default_plot_name(K.base_game("rumbo(size=11)")) == "komi-rumbo-11.png"


@pytest.mark.parametrize("text, expected", [("-5:15", (-10, 30)), ("0.5:2", (1, 4)),
                                            (" 1 : 3 ", (2, 6))])
def test_parse_range(text, expected):
    assert K.parse_range(text) == expected


@pytest.mark.parametrize("text", ["5", "a:b", "5:1", "3:3", "0.3:2", "1:nan"])
def test_parse_range_rejects_bad_ranges(text):
    with pytest.raises(BoardlabError):
        K.parse_range(text)


def test_grid_follows_the_default_komi_form():
    # Carteso with the button: whole numbers; without: x.5; step 0.5: every half point.
    assert K.allowed_grid(14, 2, -3, 5) == [-2, 0, 2, 4]
    assert K.allowed_grid(15, 2, -3, 5) == [-3, -1, 1, 3, 5]
    assert K.allowed_grid(14, 1, -1, 2) == [-1, 0, 1, 2]
    assert K.nearest_allowed(6.4, 14, 2) == 12
    assert K.nearest_allowed(6.6, 15, 2) == 13
    assert K.nearest_allowed(-0.4, 14, 2) == 0


def test_default_range_is_centred_on_the_default_komi_and_grows_with_the_board():
    small, big = K.base_game("carteso(size=9)"), K.base_game("carteso(size=13)")
    lo, hi = K.default_range(small)
    assert (lo + hi) / 4 == 7 and lo % 2 == 0 and hi % 2 == 0
    assert K.default_range(big)[1] - K.default_range(big)[0] > hi - lo
    lo, hi = K.default_range(K.base_game("carteso(size=9,button=off)"))
    assert (lo + hi) / 4 == 7.5


# The design -----------------------------------------------------------------------

@pytest.mark.parametrize("total, rounds", [(2, 4), (3, 4), (20, 4), (201, 4), (50, 1),
                                           (10, 7)])
def test_round_sizes_add_up(total, rounds):
    sizes = K.round_sizes(total, rounds)
    assert sum(sizes) == total and sizes[0] >= 2 and all(s > 0 for s in sizes)
    assert len(sizes) <= rounds


def test_spread_design_covers_the_range_and_focus_design_the_estimate():
    grid = list(range(-20, 21, 2))
    spread = K.spread_design(grid, 18)
    assert len(spread) == 18 and min(spread) == -20 and max(spread) == 20
    assert len(set(spread)) == K.FIRST_ROUND_VALUES
    assert sorted(set(K.spread_design(grid, 2))) == [-20, 20]
    focus = K.focus_design(grid, 3.4, 8)
    assert sorted(set(focus)) == [4, 6, 8, 10] and len(focus) == 8


# The model -----------------------------------------------------------------------

def exact_data(a, b, xs, n=1000):
    """Grouped data whose points equal the expected value: the MLE is (a, b) exactly."""
    return xs, [n] * len(xs), [n / (1 + math.exp(-(a - b * x))) for x in xs]


def test_fit_recovers_known_parameters():
    a, b = K.fit_logistic(*exact_data(2.4, 0.4, [-4, 0, 2, 5, 6, 9, 14]))
    assert a == pytest.approx(2.4, abs=1e-6) and b == pytest.approx(0.4, abs=1e-6)
    a, b = K.fit_logistic(*exact_data(-30.0, -2.0, [10, 14, 15, 16, 20]))
    assert a / b == pytest.approx(15, abs=1e-6)


def test_draws_count_half():
    # Two draws weigh like one win and one loss.
    with_draws = K.fit_logistic([0, 4], [4, 4], [3.5, 1.0])
    as_points = K.fit_logistic([0, 4], [8, 8], [7, 2])
    a1, b1 = with_draws
    a2, b2 = as_points
    assert a1 / b1 == pytest.approx(a2 / b2)
    table = K.aggregate([(0, 1.0), (0, 0.5), (0, 0.0), (2, 0.5)])
    assert table == {0: [3, 1.5, 1], 2: [1, 0.5, 1]}


@pytest.mark.parametrize("y, kind, bounds", [
    ([3, 3, 3], "all-first", (4.0, None)),
    ([0, 0, 0], "all-second", (None, 0.0)),
    ([3, 3, 0], "separated", (2.0, 4.0)),
    ([3, 1, 0], "separated", (2.0, 2.0)),
    ([0, 0, 3], "rising", (None, None)),
])
def test_degenerate_data_is_named(y, kind, bounds):
    with pytest.raises(K.DegenerateData) as info:
        K.fit_logistic([0, 2, 4], [3, 3, 3], y)
    assert info.value.kind == kind and info.value.bounds == bounds


def test_flat_data_is_degenerate():
    with pytest.raises(K.DegenerateData, match="does not change"):
        K.fit_logistic([0, 2], [4, 4], [2, 2])


def test_estimate_gives_a_number_in_every_case():
    assert K.estimate([0, 2, 4], [3, 3, 3], [3, 3, 3]) == math.inf
    assert K.estimate([0, 2, 4], [3, 3, 3], [0, 0, 0]) == -math.inf
    assert K.estimate([0, 2, 4], [3, 3, 3], [3, 3, 0]) == 3.0
    assert math.isnan(K.estimate([0, 2, 4], [3, 3, 3], [0, 0, 3]))
    assert K.estimate(*exact_data(1.0, 0.5, [0, 1, 3, 5])) == pytest.approx(2.0)


def synthetic(fair, scale, komis, games_each, seed):
    rng = random.Random(seed)
    return [(k, float(rng.random() < 1 / (1 + math.exp((k / 2 - fair) / scale))))
            for k in komis for _ in range(games_each)]


def test_summary_finds_the_fair_komi_with_an_interval():
    outcomes = synthetic(3.3, 2.0, range(-8, 25, 2), 60, seed=5)
    result = K.summarise(outcomes, 14, 2, 300, seed=1)
    low, high = result["interval"]
    assert result["status"] == "ok" and low < 3.3 < high and high - low < 2.5
    assert low < result["fair_komi"] < high
    assert result["nearest_komi"] == round(result["fair_komi"])
    assert abs(result["nearest_rate"] - 0.5) < 0.15
    assert K.summarise(outcomes, 14, 2, 300, seed=1)["interval"] == [low, high]
    fewer = K.summarise(outcomes[::6], 14, 2, 300, seed=1)["interval"]
    assert fewer[1] - fewer[0] > high - low
    assert [r["komi"] for r in result["per_komi"]] == [k / 2 for k in range(-8, 25, 2)]


def test_summary_of_degenerate_data_explains_instead_of_crashing(tmp_path):
    outcomes = [(k, 1.0) for k in (0, 2, 4) for _ in range(3)]
    result = K.summarise(outcomes, 14, 2, 200, seed=1)
    assert result["status"] == "all-first" and result["fair_komi"] is None
    assert result["interval"] == [2.0, None]
    result.update(spec="carteso(size=3)", agent="random", seed=1, range=[0, 2], step=1,
                  default_komi=7, mean_actions=9, seconds=1, cpu_seconds=1, jobs=1)
    text = "\n".join(K.format_report(result))
    assert "no fitted fair komi" in text and "above that" in text
    assert K.plot_result(result, str(tmp_path / "flat.png"))
    json.dumps(result, allow_nan=False)


# Playing -------------------------------------------------------------------------

def fake_play(fair, scale):
    """A stand-in for one game: the first seat wins with a known logistic chance."""
    def play(task):
        spec, agent, seed = task
        komi = boardlab.make(spec).options["komi"]
        u = random.Random(seed).random()
        margin = fair + scale * math.log(u / (1 - u))     # logistic: P(margin > komi) as fitted
        play.seeds.append(seed)
        return float(margin > komi), 10, 0.001, margin
    play.seeds = []
    return play


def test_adaptive_rounds_concentrate_near_the_fair_komi(monkeypatch):
    play = fake_play(fair=-4.3, scale=1.5)
    monkeypatch.setattr(K, "_play_one", play)
    notes = []
    result = K.find_fair_komi("carteso", {"size": "5"}, agent="random", games=300, seed=40,
                              komi_range="-20:20", resamples=200,
                              progress=lambda done, total, note: notes.append((done, note)))
    assert play.seeds == list(range(40, 340))
    assert [d for d, _ in notes] == list(range(1, 301)) and "round 4/4" in notes[-1][1]
    assert result["status"] == "ok" and abs(result["fair_komi"] + 4.3) < 1.5
    low, high = result["interval"]
    assert low < -4.3 < high
    later = {r["komi"]: r["games"] for r in result["per_komi"]}
    near = sum(g for k, g in later.items() if abs(k + 4.3) < 3)
    assert near > 150                              # most games near the estimate
    assert set(later) <= set(range(-20, 21))       # whole numbers: the button edition
    assert result["range"] == [-20, 20] and result["default_komi"] == 7


def test_a_fair_komi_outside_the_range_is_flagged(monkeypatch):
    monkeypatch.setattr(K, "_play_one", fake_play(fair=30, scale=1.0))
    result = K.find_fair_komi("rumbo(size=5)", agent="random", games=40, komi_range="0:10",
                              resamples=100)
    assert result["status"] == "all-first" and "above" in result["message"]
    assert {r["komi"] for r in result["per_komi"]} >= {9.0, 10.0}


def test_real_games_are_reproducible_and_jobs_do_not_change_them():
    kwargs = dict(agent="mcts(iterations=5)", games=10, seed=7, komi_range="-3:5",
                  step=0.5, resamples=100)
    one = K.find_fair_komi("carteso(size=3,button=off)", **kwargs)
    two = K.find_fair_komi("carteso(size=3,button=off)", jobs=2, **kwargs)
    assert one["per_komi"] == two["per_komi"] and one["games"] == 10
    assert sum(r["games"] for r in one["per_komi"]) == 10
    assert one["spec"] == "carteso(size=3,button=false)" and one["default_komi"] == 7.5
    assert one["cpu_seconds"] > 0 and one["mean_actions"] > 0


@pytest.mark.parametrize("kwargs, message", [
    (dict(games=1), "at least 2"),
    (dict(rounds=0), "--rounds"),
    (dict(jobs=0), "--jobs"),
    (dict(step=0.3), "multiple of 0.5"),
    (dict(step=0), "--step"),
    (dict(resamples=10), "--bootstrap"),
    (dict(komi_range="1:1.5"), "fewer than two"),
    (dict(agent="genius"), "unknown agent"),
])
def test_bad_settings_are_clear_errors(kwargs, message):
    with pytest.raises(BoardlabError, match=message):
        K.find_fair_komi("carteso(size=3)", **kwargs)


# The command ------------------------------------------------------------------------

def test_cli_reports_a_table_and_writes_the_plot(tmp_path, capsys):
    plot = tmp_path / "k.png"
    assert main(["komi", "rumbo", "--size", "3", "--games", "12", "--agent", "random",
                 "--range=-2:6", "--plot", str(plot), "--bootstrap", "100"]) == 0
    captured = capsys.readouterr()
    assert "rumbo(size=3)" in captured.out and "komi" in captured.out
    assert "fair komi" in captured.out and f"plot: {plot}" in captured.out
    assert "12/12 games" in captured.err
    assert plot.stat().st_size > 1000


def test_cli_json(capsys):
    assert main(["komi", "carteso", "--size", "3", "--button", "off", "--games", "6",
                 "--agent", "random", "--no-plot", "--json", "--bootstrap", "100"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["game"] == "carteso" and result["games"] == 6
    assert all(r["komi"] % 1 == 0.5 for r in result["per_komi"])
    assert result["plot"] is None


@pytest.mark.parametrize("args, message", [
    (["komi", "cartagena"], "no komi option"),
    (["komi", "carteso", "--komi", "3"], "do not set the komi"),
    (["komi", "carteso", "--games", "1"], "at least 2"),
    (["komi", "carteso", "--range", "5:1"], "LO must be below HI"),
    (["komi", "carteso", "--colour", "red"], "unknown option 'colour'"),
])
def test_cli_bad_input_exits_2(args, message, capsys):
    assert main(args + ["--no-plot"]) == 2
    assert message in capsys.readouterr().err


def test_numpy_fit_matches_a_brute_force_maximum():
    x, n, y = [0, 1, 2, 3], [5, 5, 5, 5], [4, 3.5, 2, 1]
    a, b = K.fit_logistic(x, n, y)
    design = np.column_stack([np.ones(4), -np.array(x, float)])

    def loglik(aa, bb):
        return K._loglik(design, np.array(n, float), np.array(y, float), np.array([aa, bb]))
    best = loglik(a, b)
    for da in (-0.01, 0.01):
        for db in (-0.01, 0.01):
            assert loglik(a + da, b + db) < best


def test_margin_estimate_finds_the_median_lead(monkeypatch):
    monkeypatch.setattr(K, "_play_one", fake_play(fair=-4.3, scale=3.0))
    result = K.find_fair_komi("carteso", {"size": "5"}, agent="random", games=300, seed=3,
                              komi_range="-20:20", resamples=300)
    margin = result["margin"]
    assert margin["games"] == 300 and abs(margin["fair_komi"] + 4.3) < 1.5
    low, high = margin["interval"]
    assert low < -4.3 < high and high - low < 4
    assert margin["nearest_komi"] in (-4, -5)
    assert "from the board margins" in "\n".join(K.format_report(result))


def test_real_games_report_board_margins():
    result = K.find_fair_komi("rumbo(size=3)", agent="random", games=6, seed=2,
                              komi_range="-4:4", resamples=100)
    margin = result["margin"]
    assert margin["games"] == 6
    assert all(-9 <= v <= 9 for v in (margin["fair_komi"], *margin["interval"]))


def test_wilson_intervals_always_hold_the_observed_rate():
    from boardlab.arena.match import wilson_interval

    for games in range(1, 80):
        for points in (x / 2 for x in range(2 * games + 1)):
            low, high = wilson_interval(points, games)
            assert 0.0 <= low <= points / games <= high <= 1.0


def test_the_plot_takes_rates_of_zero_and_one(tmp_path):
    result = K.find_fair_komi("rumbo(size=3)", agent="random", games=22, seed=2,
                              komi_range="-30:30", resamples=100)
    path = K.plot_result(result, str(tmp_path / "k.png"))
    assert Path(path).read_bytes()[:4] == b"\x89PNG"


# A game of its own: the finder works from the declared facts alone ---------------------

class TugGame(Game):
    """Three picks of 0, 1 or 2 each, north first; the bigger total wins. The komi,
    called ``handicap``, goes to north (the seat that moves first), and ``mode``
    must be ``fixed`` for it to stay as set."""

    name = "tug"
    declared_options = (Option("rounds", int, 3, "picks per seat", minimum=1, maximum=9),
                        Option("handicap", float, 0.5, "points for north"),
                        Option("mode", str, "fixed", "fixed or auction",
                               choices=("fixed", "auction")),
                        Option("loud", bool, False, "nothing"))

    @property
    def seat_names(self):
        return ("north", "south")

    @property
    def num_actions(self):
        return 3

    @property
    def max_game_length(self):
        return 2 * self.options["rounds"]

    @property
    def komi(self):
        return KomiFacts(option="handicap", receiver="north", points=2 * self.options["rounds"],
                         fixed_options=(("mode", "fixed"),))

    def board_description(self):
        return boards.track([], [], {}, [], ["0", "1", "2"])

    def new_initial_state(self, seed=None):
        return TugState(self, seed)


class TugState(State):
    def _current_player(self):
        done = len(self.history)
        return TERMINAL if done >= self.game.max_game_length else done % 2

    def legal_actions(self):
        return [] if self.is_terminal() else [0, 1, 2]

    def _apply(self, action):
        pass

    def _action_text(self, action):
        return str(action)

    def string_to_action(self, text):
        if text.strip() not in ("0", "1", "2"):
            raise NotationError(f"{text!r} is not 0, 1 or 2")
        return int(text)

    def clone(self):
        other = TugState(self.game, self.seed)
        other.history, other.resigned = list(self.history), self.resigned
        return other

    def board_view(self, seat):
        return {"kind": "track", "tokens": {}}

    def scores(self):
        totals = [0.0, 0.0]
        for seat, action in self.history:
            totals[seat] += action
        return {"north": totals[0] + self.game.options["handicap"], "south": totals[1]}

    def _returns(self):
        if not self.is_terminal():
            return [0.0, 0.0]
        north, south = self.scores().values()
        return [0.0, 0.0] if north == south else [1.0, -1.0] if north > south else [-1.0, 1.0]

    def summary(self):
        return {"scores": self.scores(), "winner": None}


@pytest.fixture
def tug(monkeypatch):
    """The tug game, registered for one test only."""
    monkeypatch.setitem(registry._GAMES, "tug", TugGame)
    return TugGame


@pytest.mark.parametrize("game, options, message", [
    ("tug", {"handicap": "2"}, r"do not set the komi \(handicap\)"),
    ("tug", {"mode": "auction"}, "mode=fixed"),
    ("tug(rounds=0)", {}, "option 'rounds'"),
])
def test_a_game_of_its_own_is_checked_by_its_facts(tug, game, options, message):
    with pytest.raises(BoardlabError, match=message):
        K.base_game(game, options)


def test_the_finder_reads_the_komi_facts_of_a_game_of_its_own(tug):
    assert "tug" in K.komi_games()
    game = K.base_game("tug(rounds=4,loud=true)", {"mode": "fixed"})
    assert K.seats_of(game) == (1, 0)                   # south gives the komi to north
    assert K.board_points(game) == 8
    assert K.default_range(game) == (1 - 4, 1 + 4)     # 0.5 +- a quarter of 8, in half points
    assert K.spec_with_komi(game, 3) == "tug(rounds=4,handicap=1.5,loud=true)"
    assert K.default_plot_name(game) == "komi-tug-4-loud.png"
    state = game.new_initial_state()
    for move in ("2", "0", "1", "1", "0", "2", "0", "1"):
        state.play(move)
    assert K.board_margin(state) == 4 - 3              # south's lead, the handicap left out
    result = K.find_fair_komi("tug(rounds=4)", agent="random", games=60, seed=3,
                              komi_range="-4:4", resamples=100)
    assert result["first_seat"] == "south" and result["receiver"] == "north"
    assert result["games"] == 60 and result["default_komi"] == 0.5
    assert {r["komi"] for r in result["per_komi"]} <= {k + 0.5 for k in range(-5, 5)}
    assert result["margin"]["games"] == 60 and abs(result["margin"]["fair_komi"]) <= 4
    assert "first seat south, komi to north" in "\n".join(K.format_report(result))


def test_a_game_without_komi_facts_is_refused_clearly(tug, monkeypatch):
    monkeypatch.setattr(TugGame, "komi", property(lambda self: None))
    assert "tug" not in K.komi_games()
    with pytest.raises(BoardlabError, match="tug has no komi option: it declares no komi"):
        K.base_game("tug")
    with pytest.raises(BoardlabError, match="declares no komi"):
        K.komi_facts(boardlab.make("tug"))
