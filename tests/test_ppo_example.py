"""examples/train_ppo_carteso.py without PyTorch: its self-play advantages (the sign of
the next position's value by whose turn it is) and its match against random play through
the vector environment."""
import importlib.util
import pathlib

import numpy as np

PATH = pathlib.Path(__file__).resolve().parent.parent / "examples" / "train_ppo_carteso.py"


def example():
    spec = importlib.util.spec_from_file_location("train_ppo_carteso", PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_advantages_flip_the_next_value_where_the_other_side_acts():
    ppo = example()
    # one game: seat 0 moves, seat 1 moves and wins (its return +1); then a new game
    # whose first position (seat 0 to act) is read after the last step
    rewards = np.array([[0.0], [1.0], [0.0]], np.float32)
    values = np.array([[0.2], [0.5], [0.1]], np.float32)
    seats = np.array([[0], [1], [0]])
    done = np.array([[0.0], [1.0], [0.0]], np.float32)
    adv, ret = ppo.advantages(rewards, values, seats, done, np.array([0.4], np.float32),
                              np.array([1]), gamma=1.0, lam=1.0)
    # step 2 (seat 0): the next position is seat 1's, valued 0.4 for it: -0.4 for seat 0
    assert np.isclose(adv[2, 0], -0.4 - 0.1)
    # step 1 ends the game: its reward alone, nothing after it
    assert np.isclose(adv[1, 0], 1.0 - 0.5)
    # step 0 (seat 0): seat 1's win is seat 0's loss, through the flipped sign
    assert np.isclose(ret[0, 0], -1.0)
    np.testing.assert_allclose(ret, adv + values)


def test_a_policy_is_matched_against_random_play_on_both_sides():
    ppo = example()
    seen = []

    def first_legal(obs, mask):
        seen.append((obs.shape, mask.shape))
        return mask.argmax(1)

    result = ppo.play_against_random(first_legal, 6, seed=3)
    assert result["games"] == 6 and result["wins"] + result["draws"] + result["losses"] == 6
    assert 0.0 <= result["score"] <= 1.0
    assert seen and all(shape == ((6, 142), (6, 155)) for shape in seen)
