"""The learned evaluator (boardlab/learn, docs/learning.md) and PUCT in ``mcts``.

1. The numpy forward pass computes the network it claims: against a plain
   reference (padded convolutions written out), on a square and a torus board.
2. Features come from the view alone: the planes hold the view's stones where the
   board has them, and a seat's features do not change with what it cannot see.
3. PUCT: ``select_puct`` scores as documented; a search guided by priors follows
   them; the solver still keeps a losing pass out (the positions of test_solver);
   ``priors=false`` and ``mix`` choose what values a leaf, and a blend weighs its two.
4. Shipped networks load by the game's spec and refuse other games; a missing one
   or a wrong file gets a clear error.
5. Self-play data: targets are visit distributions, outcomes the game's returns,
   and the same seed gives the same samples.
6. ``boardlab train`` without PyTorch says how to install it and changes nothing.
"""
from __future__ import annotations

import json
import random

import numpy as np
import pytest

import boardlab
from boardlab.agents import MCTS, make_agent
from boardlab.agents import mcts_tree as tree
from boardlab.agents.base import public_game
from boardlab.agents.evaluators import blended
from boardlab.cli import main
from boardlab.core.errors import BoardlabError, OptionError
from boardlab.nn.features import BoardFeatures
from boardlab.nn.net import (FORMAT, FORMATS, WEIGHTS_DIR, Network, NetworkEvaluator,
                             load_network, shipped)
from boardlab.learn.selfplay import generate, play_game
from boardlab.learn.train import turn_starts, value_targets

from test_solver import BEHIND, replayed


def random_network(game, channels=8, blocks=3, seed=0, layout=FORMAT) -> Network:
    """A network of random weights for ``game`` (the shapes ``boardlab train`` makes)."""
    features = BoardFeatures(game)
    planes, height, width = features.shape
    rng = np.random.default_rng(seed)
    arrays = {"scale": rng.uniform(0.1, 1.0, features.scalars)}
    for i in range(blocks):
        arrays[f"conv{i}.w"] = rng.normal(0, 0.3, (channels, planes if i == 0 else channels, 3, 3))
        arrays[f"conv{i}.b"] = rng.normal(0, 0.1, channels)
    cells = height * width
    for name, shape in (("policy.conv", (2, channels, 1, 1)), ("value.conv", (1, channels, 1, 1)),
                        ("policy.fc", (game.num_actions, 2 * cells)), ("value.fc1", (64, cells)),
                        ("value.fc2", (game.num_seats, 64))):
        arrays[f"{name}.w"] = rng.normal(0, 0.2, shape)
        arrays[f"{name}.b"] = rng.normal(0, 0.1, shape[0])
    meta = {"format": layout, "spec": game.spec, "features": features.signature(),
            "channels": channels, "blocks": blocks}
    return Network(arrays, meta, "random"), arrays


def reference_forward(arrays, planes, blocks, torus, head_relu=False):
    """The network written out plainly: padded 3x3 windows, one output at a time."""
    def conv(x, w, b):
        channels, height, width = x.shape
        padded = np.pad(x, ((0, 0), (1, 1), (1, 1)), mode="wrap" if torus else "constant")
        out = np.zeros((w.shape[0], height, width))
        for o in range(w.shape[0]):
            for y in range(height):
                for x_ in range(width):
                    out[o, y, x_] = (padded[:, y:y + 3, x_:x_ + 3] * w[o]).sum() + b[o]
        return out

    x = planes.astype(np.float64)
    for i in range(blocks):
        y = np.maximum(conv(x, arrays[f"conv{i}.w"], arrays[f"conv{i}.b"]), 0)
        x = y if i == 0 else np.maximum(y + x, 0)

    def head(name, x):
        w = arrays[f"{name}.w"][:, :, 0, 0]
        out = np.einsum("oc,chw->ohw", w, x) + arrays[f"{name}.b"][:, None, None]
        return np.maximum(out, 0) if head_relu else out

    p = head("policy.conv", x).reshape(-1)
    logits = arrays["policy.fc.w"] @ p + arrays["policy.fc.b"]
    v = head("value.conv", x).reshape(-1)
    h = np.maximum(arrays["value.fc1.w"] @ v + arrays["value.fc1.b"], 0)
    return logits, np.tanh(arrays["value.fc2.w"] @ h + arrays["value.fc2.b"])


def played(spec, plies, seed=3):
    game = boardlab.make(spec)
    state, rng = game.new_initial_state(seed=seed), random.Random(seed)
    for _ in range(plies):
        seat = state.acting_seats()[0]
        state.apply(rng.choice(state.legal_actions_for(seat)), seat=seat)
    return state


# 1. The forward pass ------------------------------------------------------------------------
@pytest.mark.parametrize("layout", FORMATS)
@pytest.mark.parametrize("spec", ["carteso(size=5)", "ctor(size=8)"])
def test_the_forward_pass_is_the_network_written_out(spec, layout):
    state = played(spec, 6)
    game = public_game(state.game)
    network, arrays = random_network(game, layout=layout)
    features = BoardFeatures(game)
    features.scale = network.scale
    planes = features.encode(state.view(state.acting_seats()[0]))
    logits, values = network.forward(planes)
    want_logits, want_values = reference_forward(arrays, planes, 3, features.torus,
                                                 head_relu=layout == 1)
    assert logits.shape == (game.num_actions,) and values.shape == (game.num_seats,)
    np.testing.assert_allclose(logits, want_logits, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(values, want_values, rtol=1e-4, atol=1e-5)


def test_the_training_twin_computes_the_same_network_and_its_heads_see_the_board():
    torch = pytest.importorskip("torch", reason="PyTorch is the optional [train] extra, "
                                "not installed by ./test.sh")
    from boardlab.learn.train import build_model, export_arrays
    game = boardlab.make("carteso(size=5)")
    features = BoardFeatures(game)
    states = [played("carteso(size=5)", plies, seed=plies) for plies in (2, 9)]
    planes = np.stack([features.encode(s.view(s.acting_seats()[0])) for s in states])
    for layout in FORMATS:
        for seed in range(12):
            torch.manual_seed(seed)
            model = build_model(torch, features, game.num_actions, game.num_seats, 8, 3, layout)
            with torch.no_grad():
                logits, values = model(torch.tensor(planes))
            meta = {"format": layout, "spec": game.spec, "features": features.signature(),
                    "channels": 8, "blocks": 3}
            network = Network(export_arrays(model) | {"scale": features.scale}, meta)
            mine = network.forward(planes[1])
            np.testing.assert_allclose(mine[0], logits[1].numpy(), rtol=1e-4, atol=1e-4)
            np.testing.assert_allclose(mine[1], values[1].numpy(), rtol=1e-4, atol=1e-5)
            if layout == FORMAT:                 # no head dead from the start
                assert not torch.equal(values[0], values[1]), seed
                assert not torch.equal(logits[0], logits[1]), seed


def test_a_network_survives_its_file(tmp_path):
    game = boardlab.make("carteso(size=5)")
    network, arrays = random_network(game)
    Network.save(tmp_path / "n.npz", arrays, network.meta)
    again = load_network(game, str(tmp_path / "n.npz"))
    planes = BoardFeatures(game).encode(game.new_initial_state().view(0))
    for a, b in zip(network.forward(planes), again.forward(planes)):
        np.testing.assert_array_equal(a, b)


# 2. Features --------------------------------------------------------------------------------
def test_the_planes_hold_the_stones_of_the_view():
    game = boardlab.make("carteso(size=5)")
    state = game.new_initial_state()
    state.play("Bc2")
    features = BoardFeatures(game)
    planes = features.encode(state.view(1))
    pieces = features.encoder.pieces
    row, column = 5 - 2, 2                       # c2: third column, second row from below
    stones = planes[pieces.index("B")]
    assert stones[row, column] == 1.0 and stones.sum() == 1.0
    assert planes[pieces.index("W")].sum() == 0.0


def test_a_seat_that_cannot_tell_two_states_apart_gets_the_same_features():
    # CTOR with secret squares: states sampled from seat 0's view differ in seat 1's
    # secret squares (and agree on all seat 0 sees); the features are the same
    from boardlab.agents.search_state import state_from_view
    game = boardlab.make("ctor(size=8,secret_squares=true)")
    state = played("ctor(size=8,secret_squares=true)", 14)
    public = public_game(game)
    features = BoardFeatures(public)
    view = state.view(0)
    worlds = [state_from_view(public, view, random.Random(seed)) for seed in range(6)]
    hidden = {str(w.view(1).get("my_secret_squares")) for w in worlds}
    assert len(hidden) > 1                       # the samples differ in what is hidden
    assert {features.encode(w.view(0)).tobytes() for w in worlds} == \
        {features.encode(view).tobytes()}


# 3. PUCT ------------------------------------------------------------------------------------
def test_select_puct_scores_as_documented():
    where = np.array([0, -1, 1], dtype=np.int32)
    table = np.zeros((3, 4))
    table[tree.VISITS, :2] = [3, 1]
    table[tree.VALUE, :2] = [1.5, -1.0]          # means 0.5 and -1.0; node mean 0.125
    prior = np.array([0.2, 0.5, 0.3])
    c, fpu = 1.5, 0.2
    i, slot = tree.select_puct(where, table, prior, tree.NO_MASK, c, fpu, 2)
    root = np.sqrt(4.0)
    scores = [0.5 + c * 0.2 * root / 4, (0.125 - fpu) + c * 0.5 * root / 1, -1 + c * 0.3 * root / 2]
    assert i == int(np.argmax(scores)) == 1 and slot == 2 and where[1] == 2
    assert list(table[tree.AVAILABLE, :3]) == [1.0, 1.0, 1.0]
    lost = np.array([0, 1, 0], dtype=np.uint8)   # the untried one proven lost: skipped
    i, _ = tree.select_puct(where, table, prior, lost, c, fpu, 3)
    assert i == int(np.argmax([scores[0], -np.inf, scores[2]]))


class Favourite:
    """Priors that all but force one action, values that say nothing."""

    def __init__(self, game, action):
        self.game, self.action = game, action

    def evaluate_with_priors(self, state, rng):
        logits = np.zeros(self.game.num_actions, dtype=np.float32)
        logits[self.action] = 8.0
        return [0.0] * self.game.num_seats, logits

    def evaluate(self, state, rng):
        return [0.0] * self.game.num_seats


def test_a_guided_search_follows_its_priors():
    game = boardlab.make("carteso(size=7)")
    state = game.new_initial_state()
    favourite = state.legal_actions()[17]
    agent = MCTS(game, 0, seed=1, evaluator=Favourite(game, favourite), iterations=200,
                 early_stop=False)
    assert agent.guided
    stats = agent._search(state, state.view(0), None, 0.0)
    visits = {a: s[0] for a, s in stats.items()}
    assert max(visits, key=visits.get) == favourite
    assert visits[favourite] > 100


@pytest.mark.parametrize("spec, moves", BEHIND)
def test_the_solver_keeps_a_losing_pass_out_of_a_guided_search(spec, moves):
    state = replayed(spec, moves)
    game = state.game
    seat = state.current_player()
    passing = state.string_to_action("pass") if "pass" in [
        state.action_to_string(a) for a in state.legal_actions()] else None
    assert passing is not None
    for seed in range(8):                        # priors that push the pass
        agent = MCTS(game, seat, seed=seed, evaluator=Favourite(game, passing), iterations=50)
        assert state.action_to_string(agent.act(state.view(seat))) != "pass"


# 4. Shipped networks ------------------------------------------------------------------------
def test_shipped_networks_load_by_spec_and_play():
    known = shipped()
    assert {"carteso(size=9)", "carteso", "rumbo(size=9)", "rumbo", "ctor(size=8)"} <= set(known)
    for spec in known:
        game = boardlab.make(spec)
        agent = make_agent("mcts(evaluator=net,iterations=30)", game, 0, seed=1)
        at_leaf = load_network(game).asked_at == "leaf"
        assert agent.options["net_at"] == ("leaf" if at_leaf else "horizon")
        assert agent.guided == at_leaf               # the horizon's network gives no priors
        network = agent.evaluator if at_leaf else agent.evaluator.first.inner
        assert isinstance(network, NetworkEvaluator)
        state = game.new_initial_state(seed=1)
        seat = state.acting_seats()[0]
        assert agent.act(state.view(seat)) in state.legal_actions_for(seat)
        values = network.evaluate(state, random.Random(1))
        assert len(values) == game.num_seats and all(-1 <= v <= 1 for v in values)


class Constant:
    """Values fixed per seat; counts its calls and the roots it was shown."""

    def __init__(self, values):
        self.values, self.calls, self.roots = values, 0, []

    def begin(self, root):
        self.roots.append(root)

    def evaluate(self, state, rng):
        self.calls += 1
        return list(self.values)


def test_priors_false_and_mix_choose_what_values_a_leaf():
    game = boardlab.make("carteso(size=9)")
    state = game.new_initial_state(seed=3)
    plain = make_agent("mcts(evaluator=net)", game, 0).evaluator
    own = plain.evaluate(state, random.Random(1))
    value = make_agent("mcts(evaluator=net,priors=false)", game, 0)
    assert not value.guided and not value.compiled
    assert value.evaluator.evaluate(state, random.Random(1)) == own
    for spec in ("mcts(evaluator=net,mix=0.5)", "mcts(evaluator=net,priors=false,mix=0.5)"):
        agent = make_agent(spec, game, 0)
        assert agent.guided == ("priors=false" not in spec)
        rollout = state.rollout(random.Random(1).randrange(2**31))
        mixed = agent.evaluator.evaluate(state, random.Random(1))
        assert mixed == pytest.approx([(a + b) / 2 for a, b in zip(own, rollout)])
    with pytest.raises(OptionError, match="mix"):
        make_agent("mcts(evaluator=net,mix=1.5)", game, 0)


def test_a_blend_weighs_its_two_evaluators_and_begins_both():
    game = boardlab.make("carteso(size=5)")
    state = game.new_initial_state()
    first, second = Constant([1.0, -1.0]), Constant([-0.5, 0.5])
    blend = blended(first, second, 0.25)
    assert blend.evaluate(state, None) == pytest.approx([0.625, -0.625])
    assert not hasattr(blend, "evaluate_with_priors")
    assert blended(first, second, 0.0).evaluate(state, None) == [1.0, -1.0]
    assert second.calls == 1                    # weight 0: the second is not asked
    agent = MCTS(game, 0, seed=1, evaluator=blend, iterations=20)
    agent.act(state.view(0))
    assert first.roots and second.roots and first.roots[0] is second.roots[0]
    guide = Favourite(game, state.legal_actions()[3])
    assert blended(guide, second, 0.0, priors=True) is guide
    values, logits = blended(guide, second, 0.5, priors=True).evaluate_with_priors(state, None)
    assert values == pytest.approx([-0.25, 0.25]) and logits[state.legal_actions()[3]] == 8.0


def test_a_network_for_another_game_is_refused(tmp_path):
    with pytest.raises(OptionError, match="no trained network ships for carteso"):
        make_agent("mcts(evaluator=net)", boardlab.make("carteso(size=7)"), 0)
    other = boardlab.make("rumbo(size=5)")
    network, arrays = random_network(other)
    Network.save(tmp_path / "rumbo.npz", arrays, network.meta)
    with pytest.raises(OptionError, match=r"trained for rumbo\(size=5\), not carteso"):
        make_agent(f"mcts(evaluator=net,net={tmp_path / 'rumbo.npz'})",
                   boardlab.make("carteso(size=5)"), 0)
    (tmp_path / "junk.npz").write_bytes(b"not a network")
    with pytest.raises(OptionError, match="cannot read network"):
        make_agent(f"mcts(evaluator=net,net={tmp_path / 'junk.npz'})",
                   boardlab.make("carteso(size=5)"), 0)


# 4b. A network at the rollout's horizon ------------------------------------------------------
class _Recorder:
    """An inner evaluator that keeps the positions it is asked to value."""

    def __init__(self):
        self.seen = []

    def evaluate(self, state, rng):
        self.seen.append(state.view(state.acting_seats()[0], texts=False))
        return [0.25, -0.25]


def test_the_horizon_evaluator_values_every_leaf_at_one_turn_of_the_searching_team():
    from boardlab.agents.evaluators import HorizonEvaluator
    game = boardlab.make("ctor(size=8)")
    root = played("ctor(size=8)", 40)
    team = root.view(0)["to_move"]
    recorder = _Recorder()
    agent = MCTS(game, root.acting_seats()[0], seed=2, iterations=60,
                 evaluator=HorizonEvaluator(recorder, 1, "guided"))
    agent.act(root.view(root.acting_seats()[0]))
    seen = recorder.seen
    assert len(seen) >= 50
    assert {v["turn"] for v in seen} == {root.view(0)["turn"] + 2}   # after the answer
    assert {v["to_move"] for v in seen} == {team}                   # the searcher's turn again
    assert all(v["quotas_left"]["put"] > 0 and not v["terminal"] for v in seen)


def test_a_rollout_to_the_horizon_is_worth_what_the_position_it_stops_at_is():
    """One implementation of the cut: ``rollout(until=...)`` values the very position
    ``played_to_horizon`` gives (the chip margin, or the returns at the end)."""
    from boardlab.games.ctor import CAPPED_SCALE
    for plies, seed in ((12, 1), (60, 2), (150, 3)):
        state = played("ctor(size=8)", plies, seed)
        until = state.rollout_horizon(1)
        for policy in ("random", "guided", "tactical"):
            stop = state.played_to_horizon(seed, until, policy)
            a, b = stop.counts()
            margin = np.tanh((a - b) / CAPPED_SCALE)
            expected = stop.returns() if stop.is_terminal() else [margin, -margin]
            assert state.rollout(seed, None, policy, until=until) == pytest.approx(expected)
    with pytest.raises(NotImplementedError):
        played("carteso(size=5)", 3).played_to_horizon(1, 5)


@pytest.mark.parametrize("spec, agent, message", [
    ("carteso(size=9)", "mcts(evaluator=net,net_at=horizon)", "rollouts stop at a horizon"),
    ("ctor(size=8)", "mcts(evaluator=net,net_at=horizon,priors=true)", "gives no priors"),
    ("ctor(size=8)", "mcts(evaluator=net,net_at=horizon,horizon=false)",
     "leave out horizon=false"),
])
def test_net_at_horizon_refuses_what_it_cannot_do(spec, agent, message):
    with pytest.raises(OptionError, match=message):
        make_agent(agent, boardlab.make(spec), 0)


def test_a_network_trained_on_turn_starts_is_asked_at_the_horizon_unless_told(tmp_path):
    game = boardlab.make("ctor(size=8)")
    network, arrays = random_network(game, layout=FORMAT)
    for record, expected in (({"learned_from": "turn-starts", "positions": 9000}, "horizon"),
                             ({"learned_from": "all", "positions": 9000}, "leaf"),
                             ({"positions": "turn-starts"}, "horizon"),    # 247243b-d6a345b
                             (None, "leaf")):
        meta = dict(network.meta, trained=[record] if record else [])
        Network.save(tmp_path / "n.npz", arrays, meta)
        path = str(tmp_path / "n.npz")
        assert load_network(game, path).asked_at == expected
        agent = make_agent(f"mcts(evaluator=net,net={path},iterations=5)", game, 0)
        assert agent.options["net_at"] == expected
        assert agent.guided == (expected == "leaf")            # the horizon gives no priors
        told = make_agent(f"mcts(evaluator=net,net={path},net_at=leaf,iterations=5)", game, 0)
        assert told.options["net_at"] == "leaf" and told.guided


def test_a_search_with_the_network_at_the_horizon_plays_a_legal_move():
    game = boardlab.make("ctor(size=8)")
    state = played("ctor(size=8)", 30)
    seat = state.acting_seats()[0]
    agent = make_agent("mcts(evaluator=net,net_at=horizon,iterations=40)", game, seat, seed=1)
    assert agent.act(state.view(seat)) in state.legal_actions_for(seat)
    assert not agent.guided                      # no priors: UCT over the horizon's values
    said = make_agent("mcts(evaluator=net,net_at=horizon,priors=false,iterations=5)", game, 0)
    assert not said.guided                       # priors=false said outright is no error


# 5. Self-play data --------------------------------------------------------------------------
def test_self_play_samples_are_search_targets_and_outcomes():
    game = boardlab.make("carteso(size=5)")
    one = play_game(game, "mcts(iterations=30)", seed=5, explore=4)
    n = len(one["x"])
    assert n > 10 and one["pi"].shape == (n, game.num_actions)
    np.testing.assert_allclose(one["pi"].sum(1), 1.0, rtol=1e-5)
    assert (one["z"] == np.array(one["returns"], dtype=np.float32)).all()
    assert one["q"].shape == (n,) and (np.abs(one["q"]) <= 1.0).all()
    assert len(set(one["q"].tolist())) > 1       # the search's estimates, not a constant
    assert set(one["seat"].tolist()) == {0, 1}
    rows, seats = np.arange(n), one["seat"].astype(np.int64)
    assert one["v"].shape == (n, 2) and (np.abs(one["v"]) <= 1.0).all()
    np.testing.assert_allclose(one["v"].sum(1), 0.0, atol=1e-6)    # Carteso is zero-sum
    assert (np.sign(one["v"][rows, seats]) == np.sign(one["q"])).mean() > 0.9
    again = play_game(game, "mcts(iterations=30)", seed=5, explore=4)
    for key in ("x", "pi", "q", "v", "z", "seat"):
        np.testing.assert_array_equal(one[key], again[key])
    both = generate("carteso(size=5)", "mcts(iterations=30)", games=2, seed=5, workers=1,
                    explore=4)
    assert both["games"] == 2 and len(both["x"]) > n


def test_the_search_value_target_teaches_every_seat_where_a_side_acts_in_a_row():
    """CTOR's team turns: one side acts many times running. The value target of the
    search must still say how the position stands for the other side (the opposite,
    CTOR being zero-sum), not leave its value untaught (a network trained so gave both
    sides the same value, and its search lost 20 games of 20)."""
    one = play_game(boardlab.make("ctor(size=8)"), "mcts(iterations=20)", seed=5, explore=4)
    seats = one["seat"].astype(np.int64)
    assert (seats[1:] == seats[:-1]).mean() > 0.5            # mostly the same side again
    target, mask = value_targets(one, "search")
    assert (mask == 1.0).all()
    rows = np.arange(len(seats))
    np.testing.assert_allclose(target[rows, 1 - seats], -target[rows, seats], atol=1e-6)
    assert len(set(np.round(target[:, 0], 3).tolist())) > 5   # estimates, not the outcome
    mixed, _ = value_targets(one, "mix")
    np.testing.assert_allclose(mixed, (one["v"] + one["z"]) / 2, atol=1e-6)
    outcome, mask = value_targets(one, "outcome")
    assert (outcome == one["z"]).all() and (mask == 1.0).all()


def test_self_play_marks_the_first_decision_of_each_team_s_turn():
    one = play_game(boardlab.make("ctor(size=8)"), "mcts(iterations=20)", seed=5, explore=4)
    start, seats = one["start"].astype(bool), one["seat"].astype(np.int64)
    assert start[0] and 0.05 < start.mean() < 0.6            # a turn is several decisions
    assert start[1:][seats[1:] != seats[:-1]].all()            # a new side: a new turn
    game = boardlab.make("ctor(size=8)")
    assert turn_starts(one, game).tolist() == start.tolist()
    without = {"seat": one["seat"]}                            # samples made before "start"
    assert turn_starts(without, game).tolist() == [True] + (seats[1:] != seats[:-1]).tolist()
    carteso = play_game(boardlab.make("carteso(size=5)"), "mcts(iterations=20)", seed=5)
    assert carteso["start"].all()                              # each move is a turn


def test_samples_without_every_seat_s_estimate_teach_the_acting_seat_only():
    data = {"z": np.array([[1.0, -1.0], [1.0, -1.0]], dtype=np.float32),
            "q": np.array([0.5, -0.25], dtype=np.float32), "seat": np.array([0, 1])}
    target, mask = value_targets(data, "search")
    assert mask.tolist() == [[1.0, 0.0], [0.0, 1.0]]
    assert target[0, 0] == 0.5 and target[1, 1] == -0.25
    target, _ = value_targets(data, "mix")
    assert target[0, 0] == 0.75 and target[1, 1] == pytest.approx(-0.625)


# 6. The command without PyTorch ------------------------------------------------------------
def test_train_without_pytorch_says_how_to_get_it(monkeypatch, tmp_path, capsys):
    monkeypatch.setitem(__import__("sys").modules, "torch", None)
    code = main(["train", "carteso(size=5)", "--out", str(tmp_path / "run")])
    assert code == 2
    assert "pip install 'boardlab[train]'" in capsys.readouterr().err
    assert not (tmp_path / "run").exists()


def test_train_refuses_unknown_positions(tmp_path):
    from boardlab.learn.train import run
    with pytest.raises(BoardlabError, match="positions 'middle': one of all, turn-starts"):
        run("ctor(size=8)", str(tmp_path / "run"), 1, 1, "mcts(iterations=5)",
            "mcts(iterations=5)", positions="middle")
    assert not (tmp_path / "run").exists()


def test_train_refuses_bad_numbers(tmp_path, capsys):
    assert main(["train", "carteso(size=5)", "--out", str(tmp_path), "--games", "0"]) == 2
    assert "--games must be at least 1" in capsys.readouterr().err
    assert main(["train", "carteso(size=5)", "--out", str(tmp_path), "--lr", "0"]) == 2
    assert "--lr must be above 0" in capsys.readouterr().err


def test_train_refuses_a_gate_that_cannot_judge_a_network(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["train", "carteso(size=5)", "--out", str(out), "--candidates", "0"]) == 2
    assert "--candidates must be at least 1" in capsys.readouterr().err
    assert main(["train", "carteso(size=5)", "--out", str(out), "--candidates", "2",
                 "--gate-agent", "mcts(iterations=50)"]) == 2
    assert "does not use the network (it needs evaluator=net)" in capsys.readouterr().err
    assert main(["train", "carteso(size=5)", "--out", str(out), "--candidates", "2",
                 "--gate-opponent", "mcts(bogus=1)"]) == 2
    assert "bogus" in capsys.readouterr().err
    assert not out.exists()


def test_the_gate_keeps_the_candidate_that_scored_most(tmp_path):
    pytest.importorskip("torch", reason="PyTorch is the optional [train] extra, not "
                        "installed by ./test.sh")
    from boardlab.learn.train import run
    folder = tmp_path / "run"
    path = run("carteso(size=5)", str(folder), 1, 3, "mcts(iterations=30)",
               "mcts(evaluator=net,iterations=20)", workers=1, epochs=1, channels=8,
               blocks=1, seed=5, candidates=3, gate_games=4,
               gate_agent="mcts(evaluator=net,iterations=16)",
               gate_opponent="mcts(iterations=16)", log=lambda line: None)
    record = json.loads((folder / "log.jsonl").read_text().splitlines()[-1])
    gate = record["gate"]
    points = [c["points"] for c in gate["candidates"]]
    assert [c["seed"] for c in gate["candidates"]] == [5, 6, 7]
    assert gate["kept"] == points.index(max(points)) + 1
    kept = np.load(folder / f"candidate-000-{gate['kept']}.npz")
    shipped = np.load(path)
    assert all(np.array_equal(kept[k], shipped[k]) for k in kept.files if k != "meta")


def test_a_network_trained_on_turn_starts_learns_from_them_only_and_says_so(tmp_path):
    pytest.importorskip("torch", reason="PyTorch is the optional [train] extra, not "
                        "installed by ./test.sh")
    from boardlab.learn.train import run
    folder = tmp_path / "run"
    path = run("ctor(size=8)", str(folder), 1, 1, "mcts(iterations=8)", "mcts(iterations=8)",
               workers=1, epochs=1, channels=8, blocks=1, seed=5, holdout=0.0,
               value_target="search", positions="turn-starts", log=lambda line: None)
    record = json.loads((folder / "log.jsonl").read_text().splitlines()[-1])
    data = np.load(folder / "data-000.npz")
    assert record["positions"] == len(data["x"]) > record["samples"]
    assert record["samples"] == int(data["start"].sum()) and record["learned_from"] == "turn-starts"
    game = boardlab.make("ctor(size=8)")
    assert load_network(game, str(path)).asked_at == "horizon"


def test_the_cli_gate_defaults_are_the_library_s():
    from boardlab.cli import build_parser
    from boardlab.learn.train import GATE_AGENT, GATE_OPPONENT
    args = build_parser().parse_args(["train", "carteso(size=5)", "--out", "x"])
    assert (args.gate_agent, args.gate_opponent) == (GATE_AGENT, GATE_OPPONENT)


def test_the_cosine_schedule_falls_from_the_rate_to_zero():
    from boardlab.learn.train import learning_rate
    rates = [learning_rate(0.002, "cosine", step, 10) for step in range(11)]
    assert rates[0] == pytest.approx(0.002) and rates[5] == pytest.approx(0.001)
    assert rates[10] == pytest.approx(0.0, abs=1e-12)
    assert all(a > b for a, b in zip(rates, rates[1:]))
    assert {learning_rate(0.002, "constant", step, 10) for step in range(11)} == {0.002}


def test_augment_needs_a_game_with_symmetries(tmp_path, capsys):
    out = tmp_path / "run"
    spec = "cartagena(profile=basic,players=2)"
    assert not boardlab.make(spec).symmetries()
    assert main(["train", spec, "--out", str(out), "--augment"]) == 2
    assert "declares no symmetries" in capsys.readouterr().err
    assert not out.exists()


def test_augmented_training_sees_images_of_the_samples(tmp_path):
    """With augment, every input a training batch feeds the network is the image of a
    sample under one of the game's symmetries, and not always the sample itself."""
    torch = pytest.importorskip("torch", reason="PyTorch is the optional [train] extra, "
                                "not installed by ./test.sh")
    from boardlab.learn.train import Trainer, to_planes
    trainer = Trainer("carteso(size=5)", str(tmp_path), channels=4, blocks=1, seed=3,
                      log=lambda line: None)
    data = generate("carteso(size=5)", "mcts(iterations=20)", games=2, seed=5, workers=1,
                    explore=4)
    seen = []

    def record_inputs(module, inputs, output):
        if module.training:                      # not the figures measured after an epoch
            seen.append(inputs[0].detach())
    trainer.model.convs[0].register_forward_hook(record_inputs)
    held = {k: v[:0] for k, v in data.items() if isinstance(v, np.ndarray)}
    record = trainer.train(data, held, epochs=2, batch=16,
                           augment=True)
    assert record["augment"] is True
    scale = torch.tensor(trainer.scale)
    vectors, _ = trainer.features.symmetry_indices(trainer.public)
    x = torch.tensor(data["x"])
    images = {j: {bytes(row.numpy()) for row in to_planes(torch, x[:, vectors[j]],
                                                          trainer.features, scale)}
              for j in range(len(vectors))}
    rows = [bytes(row.numpy()) for batch in seen for row in batch]
    assert len(rows) == 2 * len(x)
    assert all(any(row in images[j] for j in images) for row in rows)
    assert sum(row not in images[0] for row in rows) > len(rows) // 2


def test_the_default_of_a_spec_is_its_shortest_named_file(tmp_path):
    """Networks shipped beside a spec's default (``carteso-9-small.npz``) never take its
    place, whatever the order of the names; they load by name."""
    import shutil
    for name in ("carteso-9-small.npz", "carteso-9.npz", "carteso-9a-b.npz"):
        shutil.copy(WEIGHTS_DIR / "carteso-9.npz", tmp_path / name)
    assert shipped(tmp_path)["carteso(size=9)"] == tmp_path / "carteso-9.npz"
    (tmp_path / "carteso-9.npz").unlink()
    assert shipped(tmp_path)["carteso(size=9)"] == tmp_path / "carteso-9a-b.npz"
