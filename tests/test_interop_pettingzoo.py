"""The PettingZoo adapter: PettingZoo's own conformance tests for every game in a
representative set of configurations, agreement with the native game, no leaks."""
import contextlib
import io
import random

import numpy as np
import pytest

pytest.importorskip("pettingzoo", reason="pip install boardlab[pettingzoo] to test the adapter")

import boardlab
from boardlab.core.errors import BoardlabError, IllegalMoveError
from boardlab.interop import pettingzoo as bz
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test

from interop_configs import CONFIGS, HIDDEN


def quietly(check, *args, **kwargs):
    with contextlib.redirect_stdout(io.StringIO()):
        check(*args, **kwargs)


@pytest.mark.parametrize("spec", CONFIGS)
def test_aec_api_and_seed(spec):
    quietly(api_test, bz.env(spec), num_cycles=1000)
    quietly(seed_test, lambda: bz.env(spec), num_cycles=500)


@pytest.mark.parametrize("spec", CONFIGS)
def test_parallel_api_and_seed(spec):
    quietly(parallel_api_test, bz.parallel_env(spec), num_cycles=1000)
    quietly(parallel_seed_test, lambda: bz.parallel_env(spec), num_cycles=500)


@pytest.mark.parametrize("spec", CONFIGS)
def test_aec_agrees_with_the_native_game(spec):
    """Same seat to act, same legal actions, same end and the returns as rewards."""
    env = bz.env(spec)
    env.reset(seed=5)
    native = boardlab.make(spec).new_initial_state(seed=env.state_now.seed)
    rng, rewards = random.Random(1), {}
    for agent in env.agent_iter(max_iter=100_000):
        observation, reward, terminated, truncated, _ = env.last()
        if terminated or truncated:
            rewards[agent] = reward
            env.step(None)
            continue
        seat = env.possible_agents.index(agent)
        assert seat == native.acting_seats()[0] and reward == 0
        legal = np.flatnonzero(observation["action_mask"]).tolist()
        assert legal == sorted(native.legal_actions_for(seat))
        action = rng.choice(legal)
        native.apply(action, seat=seat)
        env.step(action)
    assert native.is_terminal() and env.state_now.history == native.history
    assert [rewards[a] for a in env.possible_agents] == native.returns()


def test_an_illegal_action_raises_in_the_aec_form_and_changes_nothing():
    env = bz.env("carteso(size=3)")
    env.reset(seed=0)
    mask = env.observe(env.agent_selection)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    before = list(env.state_now.history)
    with pytest.raises(IllegalMoveError):
        env.step(illegal)
    assert env.state_now.history == before


def test_an_illegal_action_forfeits_in_the_parallel_form():
    env = bz.parallel_env("carteso(size=3)")
    observations, _ = env.reset(seed=0)
    mover = env.possible_agents[env.state_now.acting_seats()[0]]
    illegal = int(np.flatnonzero(observations[mover]["action_mask"] == 0)[0])
    _, rewards, terminations, _, infos = env.step(dict.fromkeys(env.agents, illegal))
    assert all(terminations.values()) and rewards[mover] == -1.0
    assert "illegal" in infos[mover]
    with pytest.raises(BoardlabError):
        bz.parallel_env("carteso(size=3)", illegal="ignore")


def test_the_parallel_form_takes_the_whole_simultaneous_round():
    spec = "ctor(size=8,teams=2v2,team_protocol=simultaneous,max_turns=3)"
    env = bz.parallel_env(spec, illegal="raise")
    observations, _ = env.reset(seed=3)
    rng = random.Random(0)
    rounds_with_two = 0
    while env.agents:
        acting = env.state_now.acting_seats()
        rounds_with_two += len(acting) > 1
        before = len(env.state_now.history)
        actions = {a: rng.choice(np.flatnonzero(o["action_mask"]).tolist() or [0])
                   for a, o in observations.items()}
        observations, *_ = env.step(actions)
        assert len(env.state_now.history) > before
    assert rounds_with_two > 0


@pytest.mark.parametrize("spec", HIDDEN)
def test_a_seat_observation_ignores_what_it_cannot_see(spec):
    """States that differ only in what a seat cannot see (sampled from its view) give
    that seat the same observation, all along a random game; some samples do differ
    (another seat's view or the cards to come), so the check can fail."""
    env = bz.env(spec)
    env.reset(seed=2)
    game, state = env.game, env.state_now
    rng, differing = random.Random(0), 0
    for number in range(150):
        if state.is_terminal():
            break
        viewer = number % game.num_seats
        agent = env.possible_agents[viewer]
        view, mine = state.view(viewer), env.observe(agent)
        sample = env._table.state = game.determinize(view, number)
        other = env.observe(agent)
        assert np.array_equal(other["observation"], mine["observation"])
        assert np.array_equal(other["action_mask"], mine["action_mask"])
        differing += any(sample.view(s) != state.view(s) for s in range(game.num_seats)) or \
            sample.played_out(0).history != state.played_out(0).history
        env._table.state = state
        seat = rng.choice(state.acting_seats())
        state.apply(rng.choice(state.legal_actions_for(seat)), seat=seat)
    assert differing, f"{spec}: no sample changed what a seat cannot see"


def test_render_is_the_spectator_text_and_names_are_options():
    env = bz.env("cartagena", players=3, render_mode="ansi")
    env.reset(seed=1)
    assert env.possible_agents == list(boardlab.make("cartagena(players=3)").seat_names)
    text = env.render()
    assert isinstance(text, str) and text == env.state_now.render(seat=None)
    with pytest.raises(BoardlabError):
        bz.env("carteso", render_mode="human")
