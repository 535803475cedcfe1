"""MCTS keeps its tree statistics in arrays (``boardlab.agents.mcts_tree``): the same play.

The search must choose exactly what the plain Python UCT it replaced chose: the
compiled selection is checked against a straightforward reference on random
statistics, whole trees against a reference simulation loop on the same states and
random numbers, and whole games against moves recorded with the former code.
"""
from __future__ import annotations

import math
import random

import numpy as np
import pytest

import boardlab
from boardlab.agents import make_agent, mcts_tree
from boardlab.agents.mcts import MCTS
from boardlab.agents.search_node import Node
from boardlab.agents.search_state import state_from_view
from boardlab.arena.game_runner import run_game


# The reference: UCT as the former code wrote it, statistics in dicts -----------------------

def reference_select(stats, legal, lost, c, rng):
    """An untried legal action (uniformly), else the best UCB; proven losses only where
    all are. ``stats[a] = [visits, value, available]``."""
    if lost:
        legal = [a for a in legal if a not in lost] or legal
    untried = [a for a in legal if a not in stats]
    if untried:
        return rng.choice(untried)
    best, best_score = None, -math.inf
    for action in legal:
        visits, value, available = stats[action]
        score = value / visits + c * math.sqrt(math.log(max(available, 1)) / visits)
        if score > best_score:
            best, best_score = action, score
    return best


class RefNode:
    def __init__(self):
        self.children, self.stats = {}, {}


def reference_iterate(root, state, seat, c, rng, evaluator, split=frozenset()):
    """One simulation of the former ``MCTS._iterate`` without the solver."""
    path, node = [], root
    while not state.is_terminal():
        if state.is_chance():
            action = state.sample_chance(rng)
            state.apply(action)
            node = node.children.setdefault(action, RefNode())
            continue
        mover = state.acting_seats()[0]
        if node is root and seat in state.acting_seats():
            mover = seat
        if mover in split and (node is not root or mover != seat):
            node = node.children.setdefault(("info", state.private_key(mover)), RefNode())
        legal = state.legal_actions_for(mover)
        for action in legal:
            if action in node.stats:
                node.stats[action][2] += 1
        action = reference_select(node.stats, legal, None, c, rng)
        expanding = action not in node.stats
        if expanding:
            node.stats[action] = [0, 0.0, 1]
        path.append((node, action, mover))
        state.apply(action, seat=mover)
        node = node.children.setdefault(action, RefNode())
        if expanding:
            break
    returns = state.returns() if state.is_terminal() else evaluator.evaluate(state, rng)
    for node, action, mover in path:
        node.stats[action][0] += 1
        node.stats[action][1] += returns[mover]
    return returns


def same_tree(node, ref, depth=0):
    """Whether ``node`` (the search's) and ``ref`` hold the same statistics everywhere;
    how many nodes were compared."""
    assert node.stats == ref.stats, f"statistics differ at depth {depth}"
    compared = 1
    for key, child in ref.children.items():
        compared += same_tree(node.children[key], child, depth + 1)
    return compared


# The compiled selection against the reference -----------------------------------------------

def _random_node(rng, size):
    """Random statistics over ``size`` legal actions, with many exact ties."""
    legal = rng.sample(range(4 * size), size)
    stats = {}
    for action in legal:
        if rng.random() < 0.8:
            visits = rng.randint(1, 6)
            stats[action] = [visits, float(rng.randint(-visits, visits)) * rng.choice((1, 0.5)),
                             visits + rng.randint(0, 3)]
    lost = set(rng.sample(legal, rng.randint(0, size))) if rng.random() < 0.3 else set()
    return legal, stats, lost


@pytest.mark.parametrize("logs", ["table", "beyond the table"])
def test_the_compiled_selection_chooses_as_the_plain_python_one(logs):
    rng = random.Random(11)
    tried_all = chose_ucb = 0
    for case in range(3000):
        legal, stats, lost = _random_node(rng, rng.randint(1, 12))
        if rng.random() < 0.5:                       # every action tried: UCB decides
            for action in legal:
                stats.setdefault(action, [1, 0.0, 1])
        node = Node()
        node.stats = {a: list(e) for a, e in stats.items()}
        node.lost = lost or None
        node.know_legal(list(legal), 0, keep=case % 2 == 0)
        if logs != "table":
            mcts_tree.LOGS, saved = mcts_tree.LOGS[:2], mcts_tree.LOGS   # math.log in the kernel
        try:
            seed = rng.randrange(2**31)
            expected_stats = {a: [e[0], e[1], e[2] + (a in legal)] for a, e in stats.items()}
            expected = reference_select(expected_stats, legal, lost, 1.4, random.Random(seed))
            action, slot, new = node.choose(1.4, random.Random(seed))
        finally:
            if logs != "table":
                mcts_tree.LOGS = saved
        assert action == expected, (legal, stats, lost)
        assert new == (action not in stats)
        if new:
            expected_stats[action] = [0, 0.0, 1]
        assert node.stats == expected_stats
        assert list(node.slots)[slot] == action
        tried_all += all(a in stats for a in legal)
        chose_ucb += not new
    assert tried_all > 1000 and chose_ucb > 1000     # both ways of choosing were exercised


def test_the_log_table_is_pythons_math_log():
    table = mcts_tree.logs_for(10_000)
    assert len(table) > 10_000
    assert table[0] == 0.0 and all(table[k] == math.log(k) for k in range(1, 10_001))


def test_the_root_leader_is_the_plain_max_over_the_statistics():
    rng = random.Random(5)
    for _ in range(2000):
        legal, stats, lost = _random_node(rng, rng.randint(1, 10))
        allowed = set(rng.sample(legal, rng.randint(1, len(legal))))
        candidates = [a for a in stats if a in allowed]
        node = Node()
        node.stats = {a: list(e) for a, e in stats.items()}
        if not candidates:
            with pytest.raises(ValueError):
                node.leader(allowed, lost)
            continue
        expected = max(candidates, key=lambda a: (a not in lost, stats[a][0], stats[a][1]))
        assert node.leader(allowed, lost) == expected


# Whole searches against the reference loop ---------------------------------------------------

def _states(spec, plies, seed):
    """A position ``plies`` random moves into ``spec`` (a game, or the chance toy game)."""
    if spec == "gamble":
        from chance_game import GambleGame
        return GambleGame(p=0.66).new_initial_state()
    state = boardlab.make(spec).new_initial_state(seed=seed)
    chooser = random.Random(seed)
    for _ in range(plies):
        seat = state.acting_seats()[0]
        state.apply(chooser.choice(state.legal_actions_for(seat)), seat=seat)
    return state


@pytest.mark.parametrize("spec, agent, plies, iterations", [
    ("carteso(size=5)", "mcts", 2, 400),
    ("rumbo(size=5)", "mcts", 3, 400),
    ("gamble", "mcts", 0, 300),
    ("ctor(size=8,teams=2v2,team_protocol=simultaneous)", "mcts", 2, 200),
    ("cartagena", "ismcts(opponents=informed,own=split)", 4, 300),
])
def test_the_search_grows_the_tree_of_the_plain_python_uct(spec, agent, plies, iterations):
    """The same simulations on the same positions with the same random numbers give the
    same statistics in every node; where something is hidden each simulation gets a new
    sample, as in ISMCTS (the node's legal actions change between passes)."""
    state = _states(spec, plies, 3)
    game, seat = state.game, state.acting_seats()[0]
    searcher = make_agent(f"{agent[:-1]},solver=false)" if "(" in agent
                          else f"{agent}(solver=false)", game, seat, seed=1)
    assert searcher.fixed == (spec in ("carteso(size=5)", "rumbo(size=5)", "gamble"))
    view, samples = state.view(seat), random.Random(2)
    root, ref = Node(), RefNode()
    searcher.rng, rng = random.Random(9), random.Random(9)
    for _ in range(iterations):
        position = state_from_view(game, view, samples) if not game.perfect_information \
            else state.clone()
        got = searcher._iterate(root, position.clone())
        assert got == reference_iterate(ref, position, seat, searcher.options["c"], rng,
                                        searcher.evaluator, searcher.split)
    assert same_tree(root, ref) >= (7 if spec == "gamble" else iterations // 3)
    assert sum(entry[0] for entry in root.stats.values()) == iterations


# Whole games against moves recorded with the former code ------------------------------------

RECORDED = [    # (spec, players, seed, the moves the former code played)
    ("carteso(size=5)", ["mcts(iterations=150,evaluator=heuristic,c=1.4)", "greedy"], 3,
     "button Bc2 Wb3 Bb5 Be1 Bb1 Ba2 We2 Wa3 We4 Wb4 Wd2 Wa5 Wb2 We5 We3 Wd5 pass Wc1 Bd1 "
     "Bc4 Bc3 Wa4 Wd4 Bc5 pass pass"),
    ("rumbo(size=5)", ["greedy", "mcts(iterations=150,evaluator=heuristic,c=1.4)"], 4,
     "Wa3 Ba4 Bc3 Wa5 Wb2 Bb5 Wa2 Wb4 We1 Wc5 Be4 Ba1 Wd1 Wb1 Wd4 We2 Wd2 Bb3 Bc1 Bc2 Be3 "
     "Bc4 Bd3 Be5 Bd5"),
    ("carteso(size=7)", ["mcts(iterations=100,evaluator=heuristic,c=0.5)", "greedy"], 5,
     "Wd6 button Wg4 Bf7 We4 Bc5 Bg5 Bd3 Bg3 Wb2 Wc6 Bb4 Wf2 Bd4 Wc3 Bb1 Bd5 Bf1 Wa2 Ba7 "
     "Bg2 Wb3 Wg7 Bd2 Wg6 Wa1 Bf6 We7 Wa4 Wb6 We2 Be5 Be3 Bc1 Bf3 Be1 Wa6 Bc2 We6 Wc7 Ba5 "
     "Wb5 Bf5 Wf4 Wa3 Bb7 pass Wd7 Bg1 pass pass"),
    ("rumbo(size=7)", ["mcts(iterations=100,evaluator=heuristic,reuse=false,c=1.4)", "greedy"], 6,
     "Wa6 Wf2 Bg2 Wd5 Be4 Wb6 Bf6 Wd4 Wd3 Bg4 Bc6 Wb2 Ba7 Wb7 Wc1 Wb1 Wa4 Bf7 Be1 Be6 Be3 "
     "Wg1 Be5 Bf1 Wg3 Bf3 Bb3 Be2 Wf4 Ba3 Wg5 Wc5 Bf5 Bc2 Wg6 Bd6 Wg7 Wd2 Wc3 We7 Bb4 Bd7 "
     "Ba5 Wb5 Ba1 Bc4 Bd1 Wc7 Ba2"),
]


@pytest.mark.parametrize("spec, players, seed, moves", RECORDED)
def test_a_fixed_seed_game_against_greedy_plays_the_recorded_moves(spec, players, seed, moves):
    """Recorded before the statistics moved to arrays (solver, early stop and tree reuse
    on; the heuristic evaluator keeps the record independent of the kernels' playouts;
    c=1.4, the default then)."""
    assert " ".join(run_game(spec, players, seed).record["moves"]) == moves


def test_a_long_search_extends_the_log_table_and_still_counts_every_visit():
    state = _states("rumbo(size=5)", 3, 1)
    seat = state.acting_seats()[0]
    agent = MCTS(state.game, seat, seed=1, iterations=300, early_stop=False, compiled=False)
    agent.simulations = len(mcts_tree.LOGS) - 100        # as if it had searched long before
    agent.act(state.view(seat))
    assert len(mcts_tree.LOGS) > agent.simulations
    assert sum(entry[0] for entry in agent.root.stats.values()) == 300
    assert np.all(agent.root.table[mcts_tree.AVAILABLE, :len(agent.root.slots)] >= 1)


def test_a_move_proven_lost_after_a_pass_is_skipped_from_the_next_pass_on():
    from boardlab.agents.solver import prove
    node = Node()
    node.stats = {0: [5, 4.0, 9], 1: [2, -1.0, 9], 2: [2, 1.0, 9]}      # UCB: 2, then 0
    node.know_legal([0, 1, 2], 0, keep=True)
    for action in (0, 1, 2):
        node.children[action] = Node()
    node.children[1].proven = (-1.0, 1.0)
    assert not prove(node, 1, [0, 1, 2], 0, (-1.0, 1.0))
    assert node.choose(1.4, random.Random(1))[0] == 2
    node.children[2].proven = (-1.0, 1.0)
    assert not prove(node, 2, [0, 1, 2], 0, (-1.0, 1.0))
    assert node.lost == {1, 2}
    assert node.choose(1.4, random.Random(1))[0] == 0
