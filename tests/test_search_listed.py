"""The listed search walk changes nothing (issue 24, ISMCTS on Cartagena).

Cartagena moves a search on in one kernel call that applies the action and lists
the next legal actions (``apply_listed``, ``CartagenaState.search_step``); its
legal listing has fewer branches; the rollout ranks its end in the kernel; and
UCT without solver or priors keeps each node's columns by action
(``MCTS._iterate_listed``, ``mcts_tree.visit``). Each is checked here against the
code it replaced: the former listing, apply and legal called apart, the compiled
``select`` and the generic walk, down to whole trees.
"""
from __future__ import annotations

import random

import numpy as np
import pytest

import boardlab
from boardlab.agents import make_agent, mcts_tree
from boardlab.agents.search_state import state_from_view
from boardlab.games import cartagena_kernel as K

SPECS = ["cartagena(profile=basic,players=2)", "cartagena(players=4)",
         "cartagena(profile=advanced,players=3)", "cartagena(profile=original,players=5)",
         "cartagena(profile=original,visibility=tortuga,retreat_from_end=true)",
         "cartagena(profile=advanced,hand_limit=7,allow_voluntary_pass=true,"
         "visibility=hispaniola)", "cartagena(profile=basic,players=3,max_turns=30)"]


def reference_back_target(buf, cfg, x):
    """The former ``back_target``: down from x to the first space with tokens."""
    occ = K.META + int(cfg[K.C_L]) + 2
    for y in range(x - 1, 0, -1):
        k = int(buf[occ + y])
        if k == 0:
            continue
        if k < 3:
            return y
        if cfg[K.C_SKIP] == 0:
            return -1
    return -1


def reference_legal(buf, cfg):
    """The former ``legal``, position by position, each back target looked for apart."""
    if buf[K.M_OVER]:
        return []
    L, S, p = int(cfg[K.C_L]), int(cfg[K.C_S]), int(buf[K.M_TO_MOVE])
    layout = K.layout(cfg)
    hand = [int(buf[layout["hand"] + p * S + s]) for s in range(S)]
    mine = [int(buf[layout["mine"] + p * (L + 2) + x]) for x in range(L + 2)]
    if buf[K.M_DISCARDING]:
        return [int(K.encode(cfg, K.DISCARD, s, 0)) for s in range(S) if hand[s] > 0]
    out = [int(K.encode(cfg, K.PLAY, s, x)) for s in range(S) if hand[s] > 0
           for x in range(L + 1) if mine[x] > 0]
    top = L + 1 if cfg[K.C_FROM_END] else L
    out += [int(K.encode(cfg, K.BACK, 0, x)) for x in range(1, top + 1)
            if mine[x] > 0 and reference_back_target(buf, cfg, x) > 0]
    if buf[K.M_DONE] > 0:
        out.append(int(K.encode(cfg, K.END, 0, 0)))
    elif not out or cfg[K.C_VOLUNTARY]:
        out.append(int(K.encode(cfg, K.PASS, 0, 0)))
    return out


def _positions(spec, games=6, seed=0):
    """Positions of random games of ``spec`` (the state after every move)."""
    game, rng = boardlab.make(spec), random.Random(seed)
    for g in range(games):
        state = game.new_initial_state(seed=seed * 100 + g)
        while not state.is_terminal() and len(state.history) < 400:
            yield state
            state.apply(rng.choice(state.legal_actions()))
        yield state


@pytest.mark.parametrize("spec", SPECS)
def test_the_legal_listing_and_the_back_targets_are_the_former_ones(spec):
    seen = 0
    for state in _positions(spec):
        cfg = state.game.cfg
        assert state.legal_actions() == reference_legal(state.buf, cfg)
        for x in range(1, state.game.L + 2):
            assert K.back_target(state.buf, cfg, x) == reference_back_target(state.buf, cfg, x)
        seen += 1
    assert seen > 100


@pytest.mark.parametrize("spec", SPECS)
def test_a_listed_step_is_apply_then_legal(spec):
    rng = random.Random(3)
    drew = over = 0
    for state in _positions(spec, games=3, seed=1):
        if state.is_terminal():
            continue
        cfg = state.game.cfg
        action = rng.choice(state.legal_actions())
        a, b = state.buf.copy(), state.buf.copy()
        log_a, log_b = K.new_log(), K.new_log()
        out = np.empty(state.game.num_actions, dtype=np.int32)
        code = K.apply_listed(a, cfg, action, log_a, out)
        K.apply_logged(b, cfg, action, log_b)
        assert np.array_equal(a, b) and np.array_equal(log_a, log_b)
        assert code & 1 == (log_b[0] > 0)
        assert bool(code & 2) == bool(b[K.M_OVER])
        if not code & 2:
            assert code >> 2 & 15 == b[K.M_TO_MOVE]
            assert out[:code >> 6].tolist() == reference_legal(b, cfg)
        drew += code & 1
        over += code >> 1 & 1
    assert drew and over


@pytest.mark.parametrize("spec", SPECS[:4])
def test_the_search_step_moves_as_the_unchecked_apply(spec):
    """On the game's own states (with each seat's knowledge) and on samples of a view."""
    game, rng = boardlab.make(spec), random.Random(5)
    for seed in range(3):
        real = game.new_initial_state(seed=seed)
        sample = state_from_view(game, real.view(real.current_player()), random.Random(seed))
        for state in (real, sample):
            stepped, applied = state.clone(), state.clone()
            player, count, acts = stepped.search_listed()
            while player >= 0:
                assert acts[:count].tolist() == applied.legal_actions()
                assert player == applied.current_player()
                action = rng.choice(applied.legal_actions())
                applied.apply_unchecked(action, None, player)
                player, count = stepped.search_step(action, player)
                assert np.array_equal(stepped.buf, applied.buf)
                assert stepped.history == applied.history
                assert stepped.drew_at == applied.drew_at
                assert stepped.sampled_for is applied.sampled_for
                if len(applied.history) > 300:
                    break
            assert player == applied.current_player()
            if player < 0:
                assert count == 0 and stepped.returns() == applied.returns()


def test_the_rollout_ranks_as_the_returns_of_the_ended_game():
    game = boardlab.make("cartagena(profile=basic,players=3)")
    rng, kinds = random.Random(9), set()
    for seed in range(40):
        state = game.new_initial_state(seed=seed)
        for _ in range(rng.randrange(0, 80)):
            if state.is_terminal():
                break
            state.apply(rng.choice(state.legal_actions()))
        if state.is_terminal():
            continue
        turns = rng.choice([None, 1, 3, 200])
        rollout_seed = rng.randrange(2**31)
        played, cfg = state.clone(), game.cfg.copy()
        if turns is not None:
            cfg[K.C_MAX_TURNS] = min(cfg[K.C_MAX_TURNS], int(state.buf[K.M_TURNS]) + turns)
        K.seed_rng(played.buf, rollout_seed)
        K.playout(played.buf, cfg, rollout_seed)
        if played.buf[K.M_OVER] == 0:
            played.buf[K.M_OVER] = K.OVER_CAP
        kinds.add(int(played.buf[K.M_OVER]))
        assert state.rollout(rollout_seed, turns) == played.returns()
    assert K.OVER_WIN in kinds and K.OVER_CAP in kinds


def test_the_visit_chooses_as_the_compiled_select():
    rng = random.Random(21)
    ucb = untried = 0
    for _ in range(3000):
        size = 40
        legal = rng.sample(range(size), rng.randint(1, 12))
        tried = [a for a in legal if rng.random() < 0.6] if rng.random() < 0.5 else list(legal)
        extra = [a for a in range(size) if a not in legal and rng.random() < 0.1]
        columns = tried + extra
        rng.shuffle(columns)
        table = np.zeros((3, len(columns) + 1))
        slot_map = mcts_tree.new_slot_map(size)
        for slot, action in enumerate(columns):
            visits = rng.randint(1, 30)
            table[:, slot] = (visits, rng.randint(-visits, visits) * rng.choice((1, 0.5)),
                              visits + rng.randint(0, 3))
            slot_map[action] = slot
        where = np.array([slot_map[a] for a in legal], dtype=np.int32)
        acts = np.array(legal + [0] * 5, dtype=np.int32)       # only the first count count
        expected_table, got_table = table.copy(), table.copy()
        used = len(columns)
        code = mcts_tree.visit(slot_map, got_table, acts, len(legal), 1.4, mcts_tree.LOGS)
        k = -1
        if code < 0:
            assert -code == int((where < 0).sum())
            k = rng.randrange(-code)
            action = int(mcts_tree.try_untried(slot_map, got_table, acts, len(legal), k, used))
            slot = used
            untried += 1
        else:
            action, slot = code >> 32, code & 0xFFFFFFFF
            ucb += 1
        i, expected_slot = mcts_tree.select(where, expected_table, mcts_tree.NO_MASK, 1.4,
                                            mcts_tree.LOGS, k, -1, used)
        expected_table[mcts_tree.VISITS, expected_slot] += 1     # visit counts the visit
        assert (action, slot) == (legal[i], expected_slot)
        assert slot_map[action] == slot
        assert np.array_equal(got_table, expected_table)
    assert ucb > 1000 and untried > 1000


def _tree(node, depth=3):
    """A node's statistics and, ``depth`` levels down, its children's, comparable."""
    if depth == 0 or node is None:
        return None
    return (sorted(node.stats.items()),
            sorted((repr(key), _tree(child, depth - 1)) for key, child in node.children.items()
                   if not (isinstance(key, tuple) and key[0] == "text")))


@pytest.mark.parametrize("spec, agent", [
    ("cartagena(profile=basic,players=2)", "ismcts(iterations=400)"),
    ("cartagena(profile=basic,players=3)", "ismcts(iterations=300,opponents=informed,"
                                           "own=split)"),
    ("cartagena(profile=advanced,players=2)", "ismcts(iterations=300,worlds=6)"),
    ("cartagena(players=2)", "mcts(iterations=200,determinizations=2)"),
])
def test_the_listed_walk_grows_the_tree_of_the_generic_walk(spec, agent):
    game, searched = boardlab.make(spec), 0
    for seed in range(3):
        state = game.new_initial_state(seed=seed)
        rng = random.Random(seed)
        for _ in range(rng.randrange(0, 30)):
            state.apply(rng.choice(state.legal_actions()))
        seat = state.current_player()
        trees, moves = [], []
        for listed in (True, False):
            searcher = make_agent(agent, game, seat, seed=seed)
            assert searcher.listed
            searcher.listed = listed
            view = state.view(seat)
            moves.append(searcher.act(view))
            trees.append([_tree(root) for root in searcher.roots])
        assert moves[0] == moves[1] and trees[0] == trees[1]
        searched += bool(trees[0])
    assert searched
