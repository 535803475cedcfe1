"""The n-tuple network evaluator (nn.ntuple, nn.ntuple_td, agents.kernel_ntuple): its
lookups against a plain reference, its symmetries, the TD step, its files and the
compiled search that uses it."""
from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

import boardlab
from boardlab.agents.kernel_ntuple import CompiledNTuple
from boardlab.agents.mcts import MCTS
from boardlab.core.errors import BoardlabError
from boardlab.nn.kernel_observe import KernelObserver
from boardlab.nn.ntuple import NTupleNet, load_ntuple, parse_shapes, reference_value
from boardlab.nn.ntuple_eval import NTupleEvaluator
from boardlab.nn.ntuple_td import Trainer, td_update


def _net(spec: str, shapes: str = "2x3,3x2", seed: int = 5) -> NTupleNet:
    game = boardlab.make(spec)
    net = NTupleNet(game, shapes)
    rng = np.random.default_rng(seed)
    # (CTOR's 512 images of one table: smaller weights keep the sum off tanh's bounds)
    net.weights[:] = rng.normal(0.0, 0.05 if net.group_size <= 8 else 0.002, net.weights.shape)
    net.bias[:] = (0.1, -0.2)
    return net


def _states(game, count: int, seed: int):
    """Positions in play of random games (the acting seat's observer can read them)."""
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        state = game.new_initial_state()
        for _ in range(rng.randrange(0, len(game.board_description()["cells"]))):
            if state.is_terminal():
                break
            state.apply(rng.choice(state.legal_actions()))
        if not state.is_terminal():
            found.append(state)
    return found


@pytest.mark.parametrize("spec", ["carteso(size=5)", "rumbo(size=5)", "ctor(size=8)"])
def test_compiled_lookups_equal_the_plain_reference(spec):
    net = _net(spec)
    game = boardlab.make(spec)
    observer = KernelObserver.for_game(game, net.features.encoder)
    marked = 0                              # positions whose last state plane is not empty
    for state in _states(game, 25, seed=2):
        seat = state.acting_seats()[0]
        obs = observer.encode(state, seat)
        last = net.plane_at[-1]
        marked += int(obs[last:last + net.features.encoder.cells].sum() > 0)
        assert net.value(obs, seat) == pytest.approx(reference_value(net, obs, seat), abs=1e-5)
    assert marked > 0           # some positions had owned stones (CTOR: white chips)


def test_tuples_share_tables_over_the_declared_symmetries():
    game = boardlab.make("carteso(size=5)")
    net = NTupleNet(game, "2x3,3x2")
    assert net.group_size == len(game.symmetries()) + 1 == 8
    # 12 placements of each shape fall into orbits of the board's turns
    assert net.tables < 24 and net.lookups.shape[0] == net.tables * net.group_size
    assert net.weights.size == net.tables * net.states ** 6


def test_a_torus_gets_tuples_across_its_seams(monkeypatch):
    game = boardlab.make("ctor(size=8)")
    net = NTupleNet(game, "2x3,3x2")         # one table: the torus's shifts and turns
    assert (net.tables, net.states, net.group_size) == (1, 3, 512)
    # without the declared symmetries, every placement is its own table, those that cross
    # the seams included: each cell read equally often
    monkeypatch.setattr(game, "symmetries", lambda: ())
    plain = NTupleNet(game, "2x3,3x2")
    assert plain.tables == 2 * 64
    assert set(np.bincount(plain.lookups.ravel(), minlength=64)) == {12}
    with pytest.raises(BoardlabError, match="does not fit"):
        NTupleNet(game, "1x9")


@pytest.mark.parametrize("spec", ["carteso(size=5)", "rumbo(size=5)", "ctor(size=8)"])
def test_symmetric_positions_get_equal_values(spec):
    net = _net(spec, seed=9)
    game = boardlab.make(spec)
    vectors, _ = net.features.symmetry_indices(game)
    observer = KernelObserver.for_game(game, net.features.encoder)
    for state in _states(game, 10, seed=4):
        seat = state.acting_seats()[0]
        obs = observer.encode(state, seat)
        values = [net.value(obs[vector], seat) for vector in vectors]
        assert values == pytest.approx([values[0]] * len(values), abs=1e-5)
        # and the weights matter: another mover or position changes the value
        assert net.value(obs, 1 - seat) != pytest.approx(values[0], abs=1e-6)


def test_the_td_step_moves_the_value_toward_its_target():
    net = _net("carteso(size=5)")
    game = boardlab.make("carteso(size=5)")
    observer = KernelObserver.for_game(game, net.features.encoder)
    state = _states(game, 1, seed=6)[0]
    seat = state.acting_seats()[0]
    obs = observer.encode(state, seat)
    pack = net.pack()
    for target in (1.0, -1.0):
        before = net.value(obs, seat)
        idx = pack[10].copy()               # the lookups of the last value
        td_update(pack, idx, seat, target, before, 0.5)
        after = net.value(obs, seat)
        assert abs(target - after) < abs(target - before)


def test_a_few_training_games_learn_and_the_weights_round_trip(tmp_path):
    game = boardlab.make("carteso(size=5)")
    net = NTupleNet(game, "2x2")
    error = Trainer(game, net).run(20, candidates=2, seed=3)
    assert error > 0 and np.abs(net.weights).sum() > 0
    path = tmp_path / "w.npz"
    net.save(path)
    again = load_ntuple(game, str(path))
    assert np.allclose(again.weights, net.weights, atol=1e-3) and again.shapes == "2x2"
    with pytest.raises(BoardlabError, match="not rumbo"):
        NTupleNet.load(boardlab.make("rumbo(size=5)"), path)


def test_bad_shapes_and_missing_weights_are_refused():
    with pytest.raises(BoardlabError, match="ROWSxCOLUMNS"):
        parse_shapes("2by3")
    with pytest.raises(BoardlabError, match="1 to 9 points"):
        parse_shapes("4x4")
    with pytest.raises(BoardlabError, match="no n-tuple weights"):
        load_ntuple(boardlab.make("carteso(size=5)"), "/nonexistent/w.npz")


def test_the_compiled_search_values_a_leaf_as_the_python_evaluator(tmp_path):
    net = _net("carteso(size=5)")
    game = boardlab.make("carteso(size=5)")
    compiled = CompiledNTuple(game, net)
    python = NTupleEvaluator(game, net)
    for state in _states(game, 6, seed=8):
        assert compiled.leaf_value(state) == pytest.approx(
            python.evaluate(state, random.Random(0))[0], abs=1e-5)
    path = tmp_path / "w.npz"
    net.save(path)
    state = _states(game, 1, seed=1)[0]
    seat = state.acting_seats()[0]
    agent = MCTS(game, seat, seed=1, evaluator="ntuple", net=str(path), iterations=300)
    assert isinstance(agent.cnet, CompiledNTuple)
    assert agent.act(state.view(seat)) in state.legal_actions()
    assert agent.iterations_done == 300


def test_a_game_without_the_compiled_search_asks_the_lookups_from_the_python_tree(tmp_path):
    game = boardlab.make("ctor(size=8)")          # (CTOR offers no compiled search)
    net = _net("ctor(size=8)")
    path = tmp_path / "w.npz"
    net.save(path)
    state = _states(game, 1, seed=3)[0]
    seat = state.acting_seats()[0]
    agent = MCTS(game, seat, seed=1, evaluator="ntuple", net=str(path), iterations=100)
    assert agent.cnet is None and isinstance(agent.evaluator.first, NTupleEvaluator)
    assert agent.act(state.view(seat)) in state.legal_actions()
    assert agent.iterations_done == 100


def _game_specs() -> list[str]:
    """Every registered game's default configuration and each configuration listed in
    the table of ``evaluator=best``."""
    from boardlab.agents.evaluators import BEST
    from boardlab.core.registry import games
    return sorted({cls.name for cls in games()} | set(BEST))


def test_every_row_of_best_names_a_game_and_shipped_weights():
    from boardlab.agents.evaluators import BEST, best_rows, evaluator_for
    assert len(best_rows()) == len(BEST)          # no two spellings of one configuration
    for spec, rows in BEST.items():
        game = boardlab.make(spec)
        assert [r.simulations for r in rows] == sorted(r.simulations for r in rows)
        for row in rows:                              # its evaluator can be made
            options = {"net": "", "mix": 0.0, "rollout_turns": 0, "playout": "random",
                       "horizon": True, **row.options}
            evaluator_for(row.name, game, options)


@pytest.mark.parametrize("spec", _game_specs())
def test_evaluator_best_resolves_for_each_game(spec):
    from boardlab.agents import make_agent
    from boardlab.agents.evaluators import BEST, best_evaluator
    from boardlab.agents.evaluators import best_rows
    game = boardlab.make(spec)
    rows = best_rows().get(game.spec, ())
    assert rows == BEST.get(spec, rows)
    for simulations in sorted({50, 100_000} | {row.simulations for row in rows}):
        agent = make_agent(f"mcts(evaluator=best,iterations={simulations})", game, 0, seed=1)
        name, _ = best_evaluator(game, simulations)
        assert agent.options["evaluator"] == name
        covered = [row for row in rows if simulations <= row.simulations]
        if covered:
            assert name == covered[0].name != "rollout"
            assert (Path(__file__).parents[1] / covered[0].record / "README.md").exists()
            assert agent.cnet is not None       # compiled as that evaluator would be
        else:                                   # no row: rollouts, as plain mcts
            assert name == "rollout"
            plain = make_agent(f"mcts(iterations={simulations})", game, 0)
            assert agent.compiled == plain.compiled
        capped = make_agent(f"mcts(evaluator=best,time=5,iterations={simulations})", game, 0)
        assert capped.options["evaluator"] == name     # a time and a cap: by the cap
    # a level is a number of simulations: the same rule
    level = make_agent("mcts(evaluator=best,level=1)", game, 0)
    assert level.options["evaluator"] == best_evaluator(game, game.level_budgets[0])[0]
    # bounded by time alone: rollouts (what a second buys depends on the machine)
    assert make_agent("mcts(evaluator=best,time=0.05)", game, 0).options[
        "evaluator"] == "rollout"


def test_an_unknown_evaluator_still_errors_clearly():
    from boardlab.agents import make_agent
    with pytest.raises(BoardlabError, match="'bogus' is not allowed.*best"):
        make_agent("mcts(evaluator=bogus)", boardlab.make("carteso(size=5)"), 0)


def test_evaluator_best_is_documented():
    root = Path(__file__).parents[1]
    text = (root / "docs" / "learning.md").read_text()
    assert "evaluator=best" in text and "evaluator=ntuple" in text
    assert "evaluator=best" in (root / "docs" / "agents.md").read_text()
