"""The vector environments (boardlab.vector): move by move they agree with the game's own
API (observations as the adapters encode views, masks, rewards, ends, the seat to act),
seeds reproduce, an illegal action in a batch changes nothing and says where it is."""
import numpy as np
import pytest

import boardlab
import boardlab.vector as bv
from boardlab.core.errors import BoardlabError
from boardlab.nn.encoding import ViewEncoder

#: every game and configuration with a vector kernel, small enough to end often
CONFIGS = (
    "carteso(size=5)",
    "carteso(size=4,button=off,komi=0)",
    "carteso(size=5,position=BW.../W..../...../..B../.....,claims=Va5)",
    "rumbo(size=4,komi=0.5)",
    "rumbo(size=5,position=BW.../W..../...../..B../.....,claims=Ha5,turn=horizontal)",
    "ctor(size=8,max_turns=10)",
    "ctor(size=8,teams=2v2,max_turns=8)",
    "ctor(size=10,teams=2v3,end_check=end_of_turn,first_team=2,max_turns=6)",
    "ctor(size=8,auto_replace_closure=true,replace_only_after_op=true,max_turns=8)",
    "ctor(size=8,team_protocol=simultaneous,max_turns=6)",     # 1v1: nobody acts at once
    "ctor(size=8,position=B......./......../......../......../......../......../"
    "......../.......W,turn=2,max_turns=6)",
    "cartagena(max_turns=25)",
    "cartagena(players=4,visibility=hispaniola,hand_limit=4,max_turns=25)",
    "cartagena(profile=original,players=3,visibility=tortuga,retreat_from_end=true,"
    "max_turns=12)",
    "cartagena(profile=advanced,players=4,allow_voluntary_pass=true,cards_per_symbol=4,"
    "max_turns=15)",
)
#: configurations without one (hidden information, simultaneous play, a pre-game bid)
WITHOUT = ("ctor(size=8,secret_squares=true)", "ctor(size=8,teams=1v2,team_protocol=simultaneous)",
           "carteso(size=5,komi_protocol=bid)", "rumbo(size=5,komi_protocol=bid)",
           "cartagena(hands=DC/HH)", "cartagena(positions=0,3,9,11/0,9,13,15)")


def expected(game, encoder, state):
    """What the vector environment should show of ``state``: the seat, its encoded view,
    its mask, the rewards and whether the game is over."""
    over = state.is_terminal()
    seat = state.history[-1].seat if over else state.current_player()
    mask = np.zeros(game.num_actions, dtype=bool)
    mask[state.legal_actions()] = True
    rewards = state.returns() if over else [0.0] * game.num_seats
    return seat, encoder.encode(state.view(seat, texts=False)), mask, rewards, over


@pytest.mark.parametrize("spec", CONFIGS)
def test_agrees_with_the_game_move_by_move(spec):
    game = boardlab.make(spec)
    encoder = ViewEncoder(game)
    env = bv.make(game, 4, seed=7)
    step = env.reset()
    states = [game.new_initial_state(seed=int(s)) for s in env.episode_seeds]
    ends = 0
    for ply in range(121):
        for i, state in enumerate(states):
            seat, obs, mask, rewards, over = expected(game, encoder, state)
            where = f"{spec}, game {i}, step {ply}"
            assert step.seat[i] == seat, where
            assert step.terminated[i] == over and not step.truncated[i], where
            np.testing.assert_array_equal(step.obs[i], obs, err_msg=where)
            np.testing.assert_array_equal(step.mask[i], mask, err_msg=where)
            np.testing.assert_array_equal(step.rewards[i], rewards, err_msg=where)
            assert env.legal_actions(i) == ([] if over else state.legal_actions()), where
        actions = env.sample()
        before = step.terminated.copy()
        step = env.step(actions)
        for i in range(env.n):
            if before[i]:          # reset at this step: a new game, its action ignored
                states[i] = game.new_initial_state(seed=int(env.episode_seeds[i]))
            else:
                states[i].apply(int(actions[i]))    # the game's own check: a legal action
                ends += states[i].is_terminal()
    assert ends >= 2, f"{spec}: too few games ended to check the ends"


@pytest.mark.parametrize("spec, dtype", [("carteso(size=9)", np.int16),
                                          ("rumbo(size=9)", np.int16),
                                          ("carteso(size=13)", np.int16),
                                          ("carteso(size=2)", np.int32),
                                          ("carteso(size=15)", np.int32),
                                          ("rumbo(size=15)", np.int32)])
def test_territory_rows_are_int16_where_every_value_fits(spec, dtype):
    env = bv.make(spec, 2, seed=1)
    assert env._rows.dtype == dtype


@pytest.mark.parametrize("spec", ["carteso(size=13,button=off)", "rumbo(size=13)"])
def test_the_widest_int16_rows_agree_with_the_game_to_the_end(spec):
    """Boards of 169 points, the most an int16 row holds (the packed scores, the moves):
    whole games agree move by move, the observation brought up to date in place."""
    game = boardlab.make(spec)
    encoder = ViewEncoder(game)
    env = bv.make(game, 1, seed=3)
    step = env.reset()
    state = game.new_initial_state(seed=int(env.episode_seeds[0]))
    while True:
        seat, obs, mask, rewards, over = expected(game, encoder, state)
        where = f"{spec}, move {len(state.history)}"
        assert step.seat[0] == seat and step.terminated[0] == over, where
        np.testing.assert_array_equal(step.obs[0], obs, err_msg=where)
        np.testing.assert_array_equal(step.mask[0], mask, err_msg=where)
        np.testing.assert_array_equal(step.rewards[0], rewards, err_msg=where)
        if over:
            break
        action = env.sample()
        step = env.step(action)
        state.apply(int(action[0]))
    assert len(state.history) > 100 and any(rewards)


def test_the_configurations_cover_every_game_with_a_vector_kernel():
    names = {boardlab.make(spec).name for spec in CONFIGS}
    offered = {cls.name for cls in boardlab.games() if cls().vector_kernel() is not None}
    assert names == offered


@pytest.mark.parametrize("spec", WITHOUT)
def test_configurations_without_a_vector_kernel_are_refused(spec):
    with pytest.raises(BoardlabError, match="has no vector kernel"):
        bv.make(spec, 2)


def play(spec, seed, steps=60, n=3):
    env = bv.make(spec, n, seed=seed)
    seen = [np.array(env.reset().obs)]
    for _ in range(steps):
        step = env.step(env.sample())
        seen += [np.array(a) for a in step]
    return seen, np.array(env.episode_seeds)


@pytest.mark.parametrize("spec", ["carteso(size=4)", "ctor(size=8,max_turns=6)",
                                  "cartagena(players=3)"])
def test_a_seed_reproduces_every_game(spec):
    first, seeds = play(spec, 11)
    again, seeds_again = play(spec, 11)
    other, _ = play(spec, 12)
    assert all(np.array_equal(a, b) for a, b in zip(first, again))
    assert np.array_equal(seeds, seeds_again)
    assert not all(np.array_equal(a, b) for a, b in zip(first, other))


@pytest.mark.parametrize("spec", ["carteso(size=4)", "rumbo(size=4)", "ctor(size=8)"])
@pytest.mark.parametrize("steps", [0, 5])
def test_sample_draws_every_legal_action_about_equally_often(spec, steps):
    """Right after a reset (the legal list written afresh) and some moves later (the mask
    brought up to date in place, the kernel's own draw or a count through the mask)."""
    env = bv.make(spec, 3, seed=2)
    env.reset()
    for _ in range(steps):
        env.step(env.sample())
    draws = np.array([env.sample() for _ in range(6000)])
    for i in range(env.n):
        legal = env.legal_actions(i)
        actions, counts = np.unique(draws[:, i], return_counts=True)
        assert actions.tolist() == sorted(legal), f"game {i}"
        expect = len(draws) / len(legal)
        assert counts.min() > 0.7 * expect and counts.max() < 1.3 * expect, f"game {i}"


def test_reset_with_a_seed_starts_over():
    env = bv.make("carteso(size=4)", 3, seed=5)

    def run():
        seen = [np.array(env.reset(seed=5).obs)]
        for _ in range(8):
            seen.append(np.array(env.step(env.sample()).obs))
        return seen

    first = run()
    assert all(np.array_equal(a, b) for a, b in zip(first, run()))


def test_an_illegal_action_names_its_game_and_steps_nothing():
    env = bv.make("carteso(size=4)", 3, seed=2)
    env.reset()
    actions = env.sample()
    env.step(actions)
    before = [np.array(a) for a in env.step(env.sample())]
    rows = env._rows.copy()
    bad = env.sample()
    bad[1] = int(np.flatnonzero(~env._masks[1])[0])      # occupied, or not offered
    with pytest.raises(bv.IllegalActionError, match=rf"environment 1: action {bad[1]} ") as caught:
        env.step(bad)
    assert (caught.value.env_index, caught.value.action) == (1, bad[1])
    with pytest.raises(bv.IllegalActionError, match="environment 2: action 9999 .*outside"):
        env.step(np.array([bad[0], bad[0], 9999]))
    assert np.array_equal(rows, env._rows)
    assert all(np.array_equal(a, np.asarray(b)) for a, b in
               zip(before, (env._obs, env._masks, env._rewards, env._terminated,
                            env._truncated, env._seats)))


def test_a_finished_game_is_reset_at_the_next_step_whatever_its_action():
    env = bv.make("carteso(size=2)", 1, seed=4)
    step = env.reset()
    first = np.array(step.obs)
    while not step.terminated[0]:
        step = env.step(env.sample())
    assert not step.mask[0].any()
    step = env.step(np.array([-5]))             # ignored: the game is reset
    assert not step.terminated[0] and not step.rewards[0].any()
    assert np.array_equal(step.obs, first)


def test_bad_calls_are_refused():
    with pytest.raises(BoardlabError, match="over before it starts"):
        bv.make("rumbo(size=2,position=BW/WB,claims=Va2+Hb2+Hb1+Va1)", 2)
    with pytest.raises(BoardlabError, match="n >= 1"):
        bv.make("carteso(size=4)", 0)
    env = bv.make("carteso(size=4)", 2)
    with pytest.raises(BoardlabError, match="reset"):
        env.step(np.zeros(2, dtype=np.int64))
    env.reset()
    with pytest.raises(BoardlabError, match="2 integer actions"):
        env.step(np.zeros(3, dtype=np.int64))
    with pytest.raises(BoardlabError, match="2 integer actions"):
        env.step(np.zeros(2))
    with pytest.raises(ValueError):
        env.reset().obs[0, 0] = 1.0                 # the arrays are read-only
    for index in (-1, 2):
        with pytest.raises(BoardlabError, match="no game"):
            env.legal_actions(index)


def test_the_gymnasium_vector_env_steps_and_rewards_the_mover():
    pytest.importorskip("gymnasium")
    from boardlab.interop.gymnasium_vector import GymVectorEnv

    envs = GymVectorEnv("carteso(size=3)", num_envs=2, seed=3)
    obs, infos = envs.reset()
    assert envs.observation_space.shape == obs.shape == (2, envs.env.observation_size)
    assert envs.metadata["autoreset_mode"].name == "NEXT_STEP"
    ended = 0
    for _ in range(80):
        mask = infos["action_mask"]
        actions = np.array([int(np.flatnonzero(m)[0]) if m.any() else 0 for m in mask])
        obs, rewards, terminated, truncated, infos = envs.step(actions)
        for i in np.flatnonzero(terminated):
            assert rewards[i] == infos["rewards"][i, infos["seat"][i]]
            ended += 1
        assert not rewards[~terminated].any() and not truncated.any()
    assert ended


def test_the_vector_benchmark_measures_each_game_with_a_vector_kernel(capsys):
    from boardlab.bench import bench_vector, vector_specs
    from boardlab.cli import main

    assert sorted(vector_specs()) == ["cartagena(profile=basic,players=2)", "carteso(size=9)",
                                      "ctor(size=8)", "rumbo(size=9)"]
    result = bench_vector("carteso(size=4)", n=8, seconds=0.02, runs=1)
    assert result["steps_per_s"] > 0 and result["n"] == 8
    assert main(["bench", "--vector", "8", "--runs", "1", "--seconds", "0.02",
                 "rumbo(size=4)"]) == 0
    assert "rumbo(size=4)" in capsys.readouterr().out


def test_a_kernel_that_does_not_cover_the_encoding_is_refused():
    from boardlab.nn.kernel_layout import layout

    game = boardlab.make("carteso(size=4)")
    encoder, kernel = ViewEncoder(game), game.vector_kernel()
    layout(game.spec, encoder, kernel)
    with pytest.raises(BoardlabError, match="planes"):
        layout(game.spec, encoder, kernel._replace(planes=kernel.planes[:-1]))
    with pytest.raises(BoardlabError, match="writes no number at 'moves'"):
        layout(game.spec, encoder, kernel._replace(
            scalars=tuple(p for p in kernel.scalars if p != ("moves",))))


@pytest.mark.parametrize("spec", ["cartagena(players=3)",
                                  "cartagena(players=4,visibility=hispaniola,hand_limit=4)"])
def test_no_observation_changes_with_another_seats_hidden_cards_or_knowledge(spec):
    """The cards the acting seat cannot see (other hands, the pile below the face-up row)
    dealt again, and what the other seats know scrambled: its observation stays."""
    from boardlab.games import cartagena_kernel as K

    game = boardlab.make(spec)
    env = bv.make(game, 6, seed=3)
    kernel, lay = env.kernel, env.layout
    size, step_size = game.layout["size"], game.knowledge_size
    rng = np.random.default_rng(0)

    def observe(row, seat):
        obs = np.zeros(env.observation_size, dtype=np.float32)
        kernel.functions.vec_observe(row, kernel.tables, seat, obs, lay.planes_at,
                                     lay.cells_at, lay.scalars_at)
        return obs

    step, changed = env.reset(), 0
    for ply in range(40):
        for i in range(env.n):
            row, seat = env._rows[i].copy(), int(step.seat[i])
            seen = observe(row, seat)
            other = row.copy()
            hidden = np.array([p != seat for p in range(game.num_seats)], dtype=np.int32)
            K.redeal(other, game.cfg, hidden, 100 * ply + i)
            for p in range(game.num_seats):
                if p != seat:
                    block = slice(size + p * step_size, size + (p + 1) * step_size)
                    other[block] = rng.integers(0, 9, step_size)
            changed += not np.array_equal(other[:size], row[:size])
            np.testing.assert_array_equal(observe(other, seat), seen, err_msg=f"{ply}, {i}")
            np.testing.assert_array_equal(seen[3 * game.num_seats + 1:],
                                          step.obs[i][3 * game.num_seats + 1:])
        step = env.step(env.sample())
    assert changed > 100          # the deals did change hidden cards


@pytest.mark.parametrize("spec", ["carteso(size=9)", "carteso(size=7,button=off)",
                                  "rumbo(size=9)", "rumbo(size=6)"])
def test_the_observation_and_mask_kept_in_place_are_those_written_afresh(spec):
    """Over many whole games, the observation and the mask brought up to date after each
    move (the owners shown where stones gained one, the legal actions near the move)
    equal the kernel's own written from the row."""
    env = bv.make(spec, 32, seed=5)
    kernel, lay = env.kernel, env.layout
    step, ends = env.reset(), 0
    for ply in range(300):
        for i in range(env.n):
            if step.terminated[i]:
                continue                  # (written afresh at the end)
            where = f"{spec}, {ply}, {i}"
            row, seat = env._rows[i].copy(), int(step.seat[i])
            obs = np.zeros(env.observation_size, dtype=np.float32)
            obs[seat] = obs[env.num_seats + seat] = 1.0
            kernel.functions.vec_observe(row, kernel.tables, seat, obs, lay.planes_at,
                                         lay.cells_at, lay.scalars_at)
            np.testing.assert_array_equal(step.obs[i], obs, err_msg=where)
            legal = np.zeros(env.num_actions, dtype=np.int32)
            count = kernel.functions.vec_legal(row, kernel.tables, legal)
            mask = np.zeros(env.num_actions, dtype=bool)
            mask[legal[:count]] = True
            np.testing.assert_array_equal(step.mask[i], mask, err_msg=where)
            assert env._count(i) == count, where
        ends += int(step.terminated.sum())
        step = env.step(env.sample())
    assert ends >= 32
