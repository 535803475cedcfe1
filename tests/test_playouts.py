"""Playout policies (``Game.playouts``, ``State.rollout(..., policy)``, ``mcts(playout=...)``).

``pick_best`` (a greedy playout's choice, shared by the kernels) first. Cartagena's
``guided`` playout judges each legal action by the spaces it gains at once
(``cartagena_kernel._worth``): checked here against what the engine actually does with
the action, then the playout itself (its choices, its determinism, that it leaves the
state alone), and the agents' option (its default per game, clear errors elsewhere).

The compiled kernels cannot be interrupted, so the bodies run in forked children with a
time limit (``isolated``), as in test_cartagena.py.
"""
from __future__ import annotations

import random

import numpy as np
import pytest

import boardlab
from boardlab.agents import make_agent
from boardlab.core.errors import OptionError
from boardlab.games import cartagena as cartagena_module
from boardlab.games import cartagena_kernel as K
from boardlab.games import ctor_kernel
from boardlab.games.kernels import pick_best, rng_seed
from isolation import isolated

CARD = cartagena_module.GUIDED_CARD


def test_pick_best_takes_a_largest_worth_and_breaks_ties_at_random():
    worth = np.array([2, 5, 1, 5, 5, 9], dtype=np.int64)
    picks = {int(pick_best(worth, 5, np.uint64(rng_seed(seed)))[0]) for seed in range(60)}
    assert picks == {1, 3, 4}                         # k=5: the 9 is not among them
    assert pick_best(worth, 6, np.uint64(7))[0] == 5
    assert pick_best(worth, 1, np.uint64(7))[0] == 0


def _positions(spec: str, games: int, seed: int):
    """Positions of random games of ``spec`` (each one a few actions apart)."""
    game = boardlab.make(spec)
    rnd = random.Random(seed)
    for g in range(games):
        state = game.new_initial_state(seed=seed + g)
        while not state.is_terminal():
            yield state
            state.apply(rnd.choice(state.legal_actions()))


def _effect(state, action):
    """(spaces the mover's tokens went forward in all, cards the mover holds more) of
    ``action`` as the engine plays it, on a copy."""
    seat = state.current_player()
    after = state.clone()
    after.apply(action)
    spaces = lambda s: sum(x * int(n) for x, n in enumerate(s.mine(seat)))   # noqa: E731
    return spaces(after) - spaces(state), int(after.hand(seat).sum()) - int(state.hand(seat).sum())


@isolated()
def test_worth_is_the_spaces_gained_at_once_with_cards_drawn_at_their_price():
    kinds = set()
    for state in _positions("cartagena", games=6, seed=700):
        cfg, buf = state.game.cfg, state.buf
        for action in state.legal_actions():
            kind = K.decode(cfg, action)[0]
            moved, cards = _effect(state, action)
            worth = K._worth(buf, cfg, action, CARD)
            if kind == K.PLAY:
                assert cards == -1 and worth == moved > 0, (state.action_to_string(action),)
            elif kind == K.BACK:
                assert cards in (1, 2) and moved < 0
                assert worth == CARD * cards + moved, (state.action_to_string(action),)
            else:
                assert worth == 0
            kinds.add(kind)
    assert {K.PLAY, K.BACK} <= kinds


def _one_action(state, greed, seed):
    """The position after the guided playout's first action from ``state`` (its turn
    cap set one turn ahead; basic Cartagena has one action a turn)."""
    buf = state.buf.copy()
    cfg = state.game.cfg.copy()
    cfg[K.C_MAX_TURNS] = int(buf[K.M_TURNS]) + 1
    K.guided_playout(buf, cfg, seed, greed, CARD)
    return buf


def _same_position(a, b):
    keep = np.ones(a.shape[0], dtype=bool)
    keep[[K.M_OVER, K.M_RNG_LO, K.M_RNG_HI]] = False
    return np.array_equal(a[keep], b[keep])


@isolated()
def test_a_fully_greedy_playout_takes_a_best_judged_action_and_ties_at_random():
    tied = 0
    for state in _positions("cartagena", games=3, seed=710):
        cfg, buf = state.game.cfg, state.buf
        legal = state.legal_actions()
        worths = {a: K._worth(buf, cfg, a, CARD) for a in legal}
        best = [a for a in legal if worths[a] == max(worths.values())]
        afters = {}
        for a in legal:
            after = state.clone()
            after.apply(a)
            afters[a] = after.buf
        taken = set()
        for seed in range(8):
            buf = _one_action(state, 1000, seed)
            chosen = [a for a in best if _same_position(buf, afters[a])]
            assert chosen, f"the playout did not take a best-judged action ({worths})"
            taken.add(chosen[0])
        tied += len(taken) > 1
    assert tied > 0, "ties were never broken two ways in eight seeds"


@isolated()
def test_a_guided_rollout_leaves_the_state_alone_and_repeats_with_its_seed():
    game = boardlab.make("cartagena")
    state = game.new_initial_state(seed=3)
    for _ in range(9):
        state.apply(state.legal_actions()[0])
    before = state.buf.copy()
    results = [state.rollout(seed, 200, "guided") for seed in range(40)]
    assert np.array_equal(state.buf, before)
    assert results == [state.rollout(seed, 200, "guided") for seed in range(40)]
    assert all(sorted(r) in ([-1.0, 1.0], [0.0, 0.0]) for r in results)
    assert len({tuple(r) for r in results}) > 1
    assert results != [state.rollout(seed, 200, "random") for seed in range(40)]


@isolated()
def test_the_guided_policy_as_a_player_beats_random_play():
    """What the policy is for: its playouts look like play (it won 174 of 200 games
    as a player against uniformly random play in a first trial)."""
    game = boardlab.make("cartagena")
    cfg, out = game.cfg, np.empty(game.num_actions, np.int32)
    rnd = random.Random(5)
    wins = 0
    for g in range(60):
        guided = g % 2                                  # the guided seat alternates
        buf = game.new_initial_state(seed=900 + g).buf.copy()
        while buf[K.M_OVER] == 0:
            legal = out[:K.legal(buf, cfg, out)].tolist()
            if buf[K.M_TO_MOVE] == guided and rnd.random() < 0.9:
                worths = [K._worth(buf, cfg, a, CARD) for a in legal]
                legal = [a for a, w in zip(legal, worths) if w == max(worths)]
            K.apply(buf, cfg, rnd.choice(legal))
        wins += K.first_ranked(buf, cfg) == 1 << guided
    assert wins >= 42, wins


def test_each_game_declares_its_playouts_and_mcts_takes_the_games_own():
    for cls in boardlab.games():
        game = boardlab.make(cls.conformance_specs[0] if cls.conformance_specs else cls.name)
        assert "random" in game.playouts and game.playout in game.playouts
        agent = make_agent("mcts(iterations=10)", game, 0)
        assert agent.options["playout"] == game.playout
        assert agent.evaluator.policy == game.playout
    assert boardlab.make("cartagena").playouts == ("random", "guided")
    assert boardlab.make("cartagena").playout == "guided"
    assert boardlab.make("ctor(size=8)").playouts == ("random", "guided", "tactical")
    assert boardlab.make("ctor(size=8)").playout == "guided"
    assert boardlab.make("carteso(size=9)").playout == boardlab.make("rumbo").playout == "random"


def test_a_playout_the_game_does_not_offer_is_a_clear_error():
    with pytest.raises(OptionError, match="playout 'guided' is not one carteso offers"):
        make_agent("mcts(playout=guided)", boardlab.make("carteso(size=5)"), 0)
    with pytest.raises(OptionError, match="it offers: random, guided"):
        make_agent("ismcts(playout=smart)", boardlab.make("cartagena"), 0)
    for spec in ("cartagena", "ctor(size=8)", "rumbo(size=5)"):
        state = boardlab.make(spec).new_initial_state(seed=1)
        before = state.summary()
        with pytest.raises(OptionError, match="playout 'smart' is not one"):
            state.rollout(1, None, "smart")
        assert state.summary() == before


def test_random_playouts_stay_available_and_the_compiled_tree_needs_them():
    cartagena = boardlab.make("cartagena")
    assert make_agent("mcts(playout=random)", cartagena, 0).evaluator.policy == "random"
    carteso = boardlab.make("carteso(size=5)")
    assert make_agent("mcts(playout=random)", carteso, 0).compiled


# CTOR --------------------------------------------------------------------------------------

def test_ctor_guided_playouts_rank_the_kinds_replace_put_then_the_rest_and_landing_last():
    w = ctor_kernel.WORTH
    K_ = ctor_kernel
    assert w[K_.KIND_REPLACE] > w[K_.KIND_PUT] > w[K_.KIND_MOVE] == w[K_.KIND_END] > \
        w[K_.KIND_LIFT]


def _ctor_rollouts_leave_the_state_alone_and_repeat(policy: str, seed: int):
    """A CTOR 8x8 state 30 random actions in, after 20 rollouts of ``policy`` from it
    were checked to change nothing and to repeat with their seeds."""
    game = boardlab.make("ctor(size=8)")
    assert policy in game.playouts
    state = game.new_initial_state(seed=seed)
    rnd = random.Random(seed)
    for _ in range(30):
        state.apply(rnd.choice(state.legal_actions()))
    before = state.buf.copy()
    results = [state.rollout(s, None, policy) for s in range(20)]
    assert np.array_equal(state.buf, before)
    assert results == [state.rollout(s, None, policy) for s in range(20)]
    return state


@isolated()
def test_a_ctor_guided_rollout_leaves_the_state_alone_repeats_and_uses_its_turns():
    state = _ctor_rollouts_leave_the_state_alone_and_repeat("guided", 4)
    # random play ends turns with Puts left; the guided one spends them, so its games
    # fill the field in far fewer actions (553 against 220 in a first trial of 40)
    lengths = {}
    for greed in (0, 900):
        lengths[greed] = sum(ctor_kernel.guided_playout(state.clone().buf, *state._tables(),
                                                        seed, greed) for seed in range(20))
    assert lengths[900] < 0.6 * lengths[0], lengths


def test_mcts_takes_ctor_guided_playouts_when_asked():
    game = boardlab.make("ctor(size=8)")
    agent = make_agent("mcts(iterations=30,playout=guided)", game, 0)
    assert agent.evaluator.policy == "guided"
    state = game.new_initial_state(seed=2)
    assert agent.act(state.view(0)) in state.legal_actions()


def _replaceable(buf, tables, team) -> int:
    """How many opponent chips ``team`` could replace on ``buf``'s board."""
    nbr, diag = tables
    return sum(bool(ctor_kernel.can_replace(buf, nbr, diag, x, team)) for x in range(nbr.shape[0]))


def _tactical_oracle(state, action) -> int:
    """``tactical_worth`` of ``action`` the long way: the Replaces the board offers each
    team with and without the chip put or moved, counted over the whole board."""
    K_ = ctor_kernel
    buf, (cfg, nbr, diag) = state.buf, state._tables()
    team, P, colour = int(buf[K_.M_TEAM]), int(cfg[K_.C_N]) ** 2, int(buf[K_.M_TEAM]) + 1
    kind, x, y = (int(v) for v in K_.decode(action, P, nbr))
    if kind == K_.KIND_REPLACE:
        return K_.T_REPLACE
    if kind == K_.KIND_LIFT:
        return -1
    if kind not in (K_.KIND_PUT, K_.KIND_MOVE):
        return 0
    after = buf.copy()
    if kind == K_.KIND_MOVE:
        after[K_.META + x] = 0
    at = x if kind == K_.KIND_PUT else y
    after[K_.META + at] = colour
    enables = _replaceable(after, (nbr, diag), team) - _replaceable(buf, (nbr, diag), team)
    danger_after = int(K_.can_replace(after, nbr, diag, at, 1 - team))
    if kind == K_.KIND_PUT:
        return K_.T_PUT + K_.T_ENABLES * enables + int(K_._own_around(buf, nbr, diag, x, colour)) \
            - K_.T_DANGER * danger_after
    danger_before = int(K_.can_replace(buf, nbr, diag, x, 1 - team))
    return K_.T_ENABLES * enables + K_.T_DANGER * (danger_before - danger_after)


@isolated()
def test_ctor_tactical_worth_is_what_the_action_does_to_the_replaces_on_the_board():
    K_ = ctor_kernel
    game = boardlab.make("ctor(size=8)")
    cnt = np.zeros((2, game.P), np.int32)
    rnd = random.Random(11)
    checked = {K_.KIND_PUT: 0, K_.KIND_MOVE: 0, K_.KIND_REPLACE: 0}
    enabling = 0
    for g in range(3):
        state = game.new_initial_state(seed=g)
        while not state.is_terminal():
            buf, (cfg, nbr, diag) = state.buf, state._tables()
            if buf[K_.M_PHASE] == K_.PH_REGULAR and buf[K_.M_LIFTS] == 0:
                K_.count_around(buf, game.P, nbr, diag, cnt)
                before = buf.copy()
                for action in state.legal_actions():
                    worth = int(K_.tactical_worth(buf, cfg, nbr, diag, cnt, action))
                    assert worth == _tactical_oracle(state, action), (g, action)
                    kind = int(K_.decode(action, game.P, nbr)[0])
                    if kind in checked:
                        checked[kind] += 1
                    enabling += worth >= K_.T_PUT + K_.T_ENABLES and kind != K_.KIND_REPLACE
                assert np.array_equal(buf, before)
            state.apply(rnd.choice(state.legal_actions()))
    assert min(checked.values()) > 50, checked        # every kind met, many times
    assert enabling > 20                              # and actions that set up a Replace


@isolated()
def test_a_ctor_tactical_rollout_leaves_the_state_alone_and_repeats():
    state = _ctor_rollouts_leave_the_state_alone_and_repeat("tactical", 5)
    seat = state.current_player()
    agent = make_agent("mcts(iterations=30,playout=tactical)", state.game, seat)
    assert agent.evaluator.policy == "tactical"
    assert agent.act(state.view(seat)) in state.legal_actions()


def test_a_capped_ctor_rollout_stops_after_a_round_and_is_worth_the_chips_ahead():
    """``rollout(seed, k)`` plays as a game whose rules cap it (``max_turns``) at the end
    of the first round at least k turns on would, and is then worth tanh(chips ahead /
    CAPPED_SCALE) to each team; a game over before the cap is ranked as ever."""
    from boardlab.games.ctor import CAPPED_SCALE
    game = boardlab.make("ctor(size=8)")
    rnd = random.Random(8)
    capped_by_us = ended_first = 0
    for start in range(3):
        state = game.new_initial_state(seed=start)
        actions = []
        # 12 and 72 actions in, and the third a field of 58 chips or more (near the end)
        while len(actions) < (12, 72, 10**6)[start] and sum(state.counts()) < 58:
            action = rnd.choice(state.legal_actions())
            actions.append(action)
            state.apply(action)
        turns = int(state.buf[ctor_kernel.M_TURNS])
        for k in (1, 2, 5, 8):
            cap = turns + k + (turns + k) % 2
            assert cap % 2 == 0 and cap - turns in (k, k + 1)
            rules = boardlab.make(f"ctor(size=8,max_turns={cap})").new_initial_state(
                seed=start)
            for action in actions:
                rules.apply(action)
            for policy in game.playouts:
                for seed in range(4):
                    result = state.rollout(seed, k, policy)
                    end = rules.played_out_to(seed, None, policy)   # the rules' game
                    assert end.is_terminal()
                    black, white = end.counts()
                    if int(end.buf[ctor_kernel.M_TURNS]) == cap and not end.buf[ctor_kernel.M_FULL]:
                        capped_by_us += 1
                        worth = np.tanh((black - white) / CAPPED_SCALE)
                        assert result == pytest.approx([worth, -worth]), (start, k, policy)
                    else:
                        ended_first += 1
                        assert result == end.returns()
    assert capped_by_us > 50 and ended_first > 0
    state = game.new_initial_state(seed=1)
    assert [state.rollout(s, 10**6, "guided") for s in range(5)] == \
        [state.rollout(s, None, "guided") for s in range(5)]
    assert all(v in (-1.0, 0.0, 1.0) for s in range(5) for v in state.rollout(s, None))


def test_a_ctor_search_stops_every_rollout_at_one_turn_after_a_reply():
    """With ``until`` (a search's ``rollout_horizon``) a rollout plays as the rules'
    game capped at that turn would, or from a position past it at the next end of a
    turn of the same team; the horizon is the end of the answer to the turn in play."""
    from boardlab.games.ctor import CAPPED_SCALE
    game = boardlab.make("ctor(size=8)")
    rnd = random.Random(9)
    state = game.new_initial_state(seed=3)
    actions = []
    while len(actions) < 40:
        action = rnd.choice(state.legal_actions())
        actions.append(action)
        state.apply(action)
    turn = int(state.buf[ctor_kernel.M_TURNS])
    assert state.rollout_horizon(1) == turn + 2 and state.rollout_horizon(3) == turn + 4
    checked = set()
    for until, cap in ((turn + 2, turn + 2), (turn + 3, turn + 3), (turn, turn + 2),
                       (turn - 1, turn + 1), (turn + 1, turn + 1)):
        rules = boardlab.make(f"ctor(size=8,max_turns={cap})").new_initial_state(seed=3)
        for action in actions:
            rules.apply(action)
        for seed in range(4):
            end = rules.played_out_to(seed, None, "guided")
            result = state.rollout(seed, 5, "guided", until=until)   # until wins
            if int(end.buf[ctor_kernel.M_TURNS]) == cap and not end.buf[ctor_kernel.M_FULL]:
                black, white = end.counts()
                worth = np.tanh((black - white) / CAPPED_SCALE)
                assert result == pytest.approx([worth, -worth]), (until, seed)
                checked.add(until)
            else:
                assert result == end.returns()
    assert len(checked) >= 4
    # a horizon past the rules' own cap leaves the rules to end and rank the game
    short = boardlab.make(f"ctor(size=8,max_turns={turn + 2})").new_initial_state(seed=3)
    for action in actions:
        short.apply(action)
    for seed in range(4):
        end = short.played_out_to(seed, None, "guided")
        assert end.buf[ctor_kernel.M_OVER_REASON] == ctor_kernel.OVER_CAP
        assert short.rollout(seed, None, "guided", until=turn + 10) == end.returns()


def test_mcts_gives_its_evaluator_the_position_searched_before_each_move():
    """``begin(root)`` (where an evaluator has it) comes once a move, before any
    ``evaluate``; ``horizon=false`` leaves the rollouts counted from their own start."""
    game = boardlab.make("ctor(size=8)")
    calls = []

    class Spy:
        def begin(self, root):
            calls.append(("begin", int(root.buf[ctor_kernel.M_TURNS])))

        def evaluate(self, state, rng):
            calls.append(("evaluate", None))
            return [0.0, 0.0]

    agent = make_agent("mcts(iterations=30)", game, 0)
    agent.evaluator = Spy()
    state = game.new_initial_state(seed=1)
    agent.act(state.view(0))
    assert calls[0] == ("begin", 0) and calls.count(("begin", 0)) == 1
    assert len(calls) > 1 and all(kind == "evaluate" for kind, _ in calls[1:])
    assert make_agent("mcts", game, 0).evaluator.horizon is True
    plain = make_agent("mcts(horizon=false)", game, 0).evaluator
    plain.begin(state)
    assert plain.until is None
    capped = make_agent("mcts", game, 0).evaluator
    capped.begin(state)
    assert capped.until == state.rollout_horizon(game.rollout_turns) == 2
    assert make_agent("mcts(rollout_turns=1000)", game, 0).evaluator.turns == 1000
