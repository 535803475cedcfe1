"""The OpenSpiel adapter: OpenSpiel's own random simulation test (with serialization)
for every game in a representative set of configurations, the declared facts,
agreement with the native game, no leaks, and the agents both ways."""
import random

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel",
                              reason="pip install boardlab[openspiel] to test the adapter")

import boardlab  # noqa: E402
from boardlab.agents import make_agent  # noqa: E402
from boardlab.interop import agents as bridge  # noqa: E402
from boardlab.interop import openspiel as bo  # noqa: E402

from interop_configs import CONFIGS, HIDDEN  # noqa: E402

Kind = pyspiel.GameType


@pytest.mark.parametrize("spec", CONFIGS)
def test_random_sim_test_with_serialization(spec):
    pyspiel.random_sim_test(bo.load(spec), num_sims=1, serialize=True, verbose=False)


def test_games_load_by_name_with_every_option_as_a_parameter():
    game = pyspiel.load_game("boardlab_carteso", {"size": 9})
    native = boardlab.make("carteso(size=9)")
    assert game.num_distinct_actions() == native.num_actions
    assert game.max_game_length() == native.max_game_length
    assert game.num_players() == 2 and game.max_chance_outcomes() == 0
    assert (game.min_utility(), game.max_utility()) == native.utility_bounds
    registered = {kind.short_name: kind for kind in pyspiel.registered_games()}
    for cls in boardlab.games():
        declared = {o.name for o in cls.declared_options}
        assert declared <= set(registered[bo.short_name(cls)].parameter_specification)
    with pytest.raises(pyspiel.SpielError):
        pyspiel.load_game("boardlab_carteso", {"sizes": 9})
    with pytest.raises(pyspiel.SpielError):
        pyspiel.load_game("boardlab_cartagena", {"deals": 0})
    with pytest.raises(boardlab.OptionError):
        pyspiel.load_game("boardlab_carteso", {"size": 99})


def test_text_options_and_computed_defaults_round_trip():
    game = pyspiel.load_game("boardlab_cartagena(profile=advanced,players=3)")
    assert game.boardlab == boardlab.make("cartagena(profile=advanced,players=3)")
    assert game.num_players() == 3
    ctor = bo.load("ctor(size=8,quota_table=1,1,0/2,2,0/3,3,0)")
    again = pyspiel.load_game(str(ctor))
    assert again.boardlab == ctor.boardlab == \
        boardlab.make("ctor(size=8,quota_table=1,1,0/2,2,0/3,3,0)")
    assert bo.load("carteso(size=5,komi=0)").boardlab.options["komi"] == 0


@pytest.mark.parametrize("spec, dynamics, chance, information, utility", [
    ("carteso(size=5)", Kind.Dynamics.SEQUENTIAL, Kind.ChanceMode.DETERMINISTIC,
     Kind.Information.PERFECT_INFORMATION, Kind.Utility.ZERO_SUM),
    ("cartagena", Kind.Dynamics.SEQUENTIAL, Kind.ChanceMode.EXPLICIT_STOCHASTIC,
     Kind.Information.IMPERFECT_INFORMATION, Kind.Utility.ZERO_SUM),
    ("cartagena(players=3)", Kind.Dynamics.SEQUENTIAL, Kind.ChanceMode.EXPLICIT_STOCHASTIC,
     Kind.Information.IMPERFECT_INFORMATION, Kind.Utility.GENERAL_SUM),
    ("ctor(size=8,teams=2v2)", Kind.Dynamics.SEQUENTIAL, Kind.ChanceMode.DETERMINISTIC,
     Kind.Information.PERFECT_INFORMATION, Kind.Utility.ZERO_SUM),
    ("ctor(size=8,teams=1v2)", Kind.Dynamics.SEQUENTIAL, Kind.ChanceMode.DETERMINISTIC,
     Kind.Information.PERFECT_INFORMATION, Kind.Utility.GENERAL_SUM),
    ("ctor(size=8,teams=2v2,team_protocol=simultaneous)", Kind.Dynamics.SIMULTANEOUS,
     Kind.ChanceMode.DETERMINISTIC, Kind.Information.IMPERFECT_INFORMATION,
     Kind.Utility.ZERO_SUM),
])
def test_game_types_follow_the_declared_facts(spec, dynamics, chance, information, utility):
    kind = bo.load(spec).get_type()
    assert (kind.dynamics, kind.chance_mode, kind.information, kind.utility) == \
        (dynamics, chance, information, utility)
    assert kind.reward_model == Kind.RewardModel.TERMINAL
    assert kind.provides_information_state_string and kind.provides_observation_tensor


def test_a_seeded_game_starts_with_one_chance_node_drawing_the_deal():
    game = bo.load("cartagena", deals=16)
    state = game.new_initial_state()
    assert state.is_chance_node()
    outcomes = state.chance_outcomes()
    assert [a for a, _ in outcomes] == list(range(16))
    assert sum(p for _, p in outcomes) == pytest.approx(1.0)
    state.apply_action(7)
    assert state.native.seed == 7 and not state.is_chance_node()
    assert state.information_state_string(0) != state.information_state_string(1)


@pytest.mark.parametrize("spec", CONFIGS)
def test_adapter_agrees_with_the_native_game(spec):
    """Same legal actions at every node, the same end and the same returns."""
    game = bo.load(spec)
    state, rng = game.new_initial_state(), random.Random(3)
    native = None
    while not state.is_terminal():
        if state.is_chance_node():
            action = rng.choice([a for a, _ in state.chance_outcomes()])
            state.apply_action(action)
            native = native or game.boardlab.new_initial_state(seed=action)
            continue
        native = native or game.boardlab.new_initial_state()
        if state.is_simultaneous_node():
            acting = native.acting_seats()
            joint = []
            for player in range(game.num_players()):
                legal = state.legal_actions(player)
                assert legal == sorted(native.legal_actions_for(player))
                assert bool(legal) == (player in acting)
                joint.append(rng.choice(legal) if legal else 0)
            for seat in acting:
                if joint[seat] in native.legal_actions_for(seat):
                    native.apply(joint[seat], seat=seat)
            state.apply_actions(joint)
        else:
            player = state.current_player()
            assert [player] == native.acting_seats()
            assert state.legal_actions() == sorted(native.legal_actions_for(player))
            action = rng.choice(state.legal_actions())
            native.apply(action, seat=player)
            state.apply_action(action)
        assert state.native.history == native.history
    assert native.is_terminal() and state.returns() == native.returns()


@pytest.mark.parametrize("spec", HIDDEN)
def test_observations_ignore_what_a_seat_cannot_see(spec):
    """Strings and tensors of a seat are the same for states sampled from its view."""
    game = bo.load(spec)
    native = game.boardlab.new_initial_state(seed=4)
    rng, differing = random.Random(0), 0
    for number in range(150):
        if native.is_terminal():
            break
        viewer = number % game.num_players()
        sample = game.boardlab.determinize(native.view(viewer), number)
        one, two = bridge.openspiel_state(game, native), bridge.openspiel_state(game, sample)
        assert one.information_state_string(viewer) == two.information_state_string(viewer)
        assert one.observation_string(viewer) == two.observation_string(viewer)
        assert one.observation_tensor(viewer) == two.observation_tensor(viewer)
        differing += any(one.information_state_string(p) != two.information_state_string(p)
                         for p in range(game.num_players())) or \
            sample.played_out(0).history != native.played_out(0).history
        seat = rng.choice(native.acting_seats())
        native.apply(rng.choice(native.legal_actions_for(seat)), seat=seat)
    assert differing, f"{spec}: no sample changed what a seat cannot see"


def test_serialize_clone_and_tensor_shape():
    game = bo.load("cartagena(players=3,max_turns=20)")
    state = game.new_initial_state()
    state.apply_action(11)
    for _ in range(2):
        state.apply_action(state.legal_actions()[-1])
    again = game.deserialize_state(state.serialize())
    assert again.native.history == state.native.history
    assert again.information_state_string(1) == state.information_state_string(1)
    clone = state.clone()
    clone.apply_action(clone.legal_actions()[0])
    assert len(clone.native.history) == len(state.native.history) + 1
    assert len(state.observation_tensor(0)) == game.observation_tensor_size()
    assert np.any(state.observation_tensor(0))


def test_an_openspiel_bot_plays_as_a_boardlab_agent():
    game = boardlab.make("carteso(size=3)")
    agents = [make_agent("openspiel(bot=mcts,simulations=30)", game, 0, seed=1),
              make_agent("random", game, 1, seed=2)]
    state = game.new_initial_state(seed=0)
    while not state.is_terminal():
        seat = state.current_player()
        action = agents[seat].act(state.view(seat))
        assert action in state.legal_actions()
        state.apply(action)
    cartagena = boardlab.make("cartagena(max_turns=20)")
    state = cartagena.new_initial_state(seed=3)
    seat = state.current_player()
    agent = make_agent("openspiel(bot=ismcts,simulations=20)", cartagena, seat, seed=1)
    assert agent.act(state.view(seat)) in state.legal_actions()
    with pytest.raises(boardlab.BoardlabError):
        make_agent("openspiel(bot=mcts)", boardlab.make(
            "ctor(size=8,teams=2v2,team_protocol=simultaneous)"), 0)


def test_boardlab_agents_play_as_openspiel_bots():
    from open_spiel.python.algorithms import evaluate_bots
    game = bo.load("cartagena(max_turns=20)")
    bots = [bridge.BoardlabBot(game, 0, "mcts(iterations=20)", seed=1),
            bridge.BoardlabBot(game, 1, "random", seed=2)]
    returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots,
                                          np.random.RandomState(0))
    assert len(returns) == 2 and sum(returns) == 0


def test_cfr_runs_on_a_tiny_configuration():
    from open_spiel.python.algorithms import cfr, exploitability
    game = bo.load("rumbo(size=2,komi=0.5)")
    solver = cfr.CFRSolver(game)
    for _ in range(1):
        solver.evaluate_and_update_policy()
    assert exploitability.nash_conv(game, solver.average_policy()) >= 0


def test_resampling_keeps_the_information_state():
    game = bo.load("cartagena(players=3,max_turns=20)")
    state = game.new_initial_state()
    state.apply_action(5)
    for _ in range(4):
        state.apply_action(state.legal_actions()[0])
    player = state.current_player()
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    samples = [state.resample_from_infostate(player, sampler) for _ in range(4)]
    assert {s.information_state_string(player) for s in samples} == \
        {state.information_state_string(player)}
    assert any(s.native.played_out(0).history != state.native.played_out(0).history
               for s in samples)


def test_the_python_examples_in_docs_interop_run(capsys):
    """Every ```python block of docs/interop.md runs as it stands (each on its own)."""
    pytest.importorskip("pettingzoo", reason="the examples use PettingZoo too")
    import pathlib
    import re
    text = (pathlib.Path(__file__).parent.parent / "docs" / "interop.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) >= 6
    for block in blocks:
        exec(compile(block, "docs/interop.md", "exec"), {"__name__": "docs_example"})
    assert capsys.readouterr().out


def test_the_benchmark_script_plays_and_scores():
    import importlib.util
    import pathlib
    path = pathlib.Path(__file__).parent.parent / "scripts" / "interop_bench.py"
    spec = importlib.util.spec_from_file_location("interop_bench", path)
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    low, high = script.wilson_interval(10, 10)        # the arena's, shared
    assert high == 1.0 and 0.69 < low < 0.73          # 10 of 10: [72.2%, 100%]
    assert script.wilson_interval(5, 10) == pytest.approx((0.2366, 0.7634), abs=1e-3)
    score, games = script.bench("carteso(size=3)", 2, "mcts(iterations=50)",
                                "openspiel(bot=random)", seed=0)
    assert games == 2 and 0 <= score <= 2


def test_the_benchmark_script_records_each_game_and_resumes(tmp_path, capsys):
    import importlib.util
    import json
    import pathlib
    path = pathlib.Path(__file__).parent.parent / "scripts" / "interop_bench.py"
    spec = importlib.util.spec_from_file_location("interop_bench", path)
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    out = tmp_path / "bench.jsonl"
    args = ("carteso(size=3)", 3, "mcts(iterations=30)", "openspiel(bot=random)")
    score, games = script.bench(*args, seed=4, out=str(out))
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert games == 3 and sorted(r["game"] for r in records) == [0, 1, 2]
    assert [r["our_side"] for r in sorted(records, key=lambda r: r["game"])] == [0, 1, 0]
    assert score == sum(r["score"] for r in records)
    from boardlab.core.record import replay_moves
    for r in records:                     # each line keeps its game: the moves replay
        state = replay_moves(r["spec"], r["moves"], r["game_seed"])
        assert state.is_terminal() and state.returns() == r["returns"]
        assert r["game_seed"] == 4 + r["game"]
    capsys.readouterr()
    again = script.bench(*args, seed=4, out=str(out))         # resumed: nothing to play
    assert again == (score, 3) and len(out.read_text().splitlines()) == 3
    assert "3 games already in" in capsys.readouterr().out
    script.bench(args[0], 4, *args[2:], seed=4, out=str(out))  # one more game only
    assert len(out.read_text().splitlines()) == 4
