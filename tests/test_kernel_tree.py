"""The compiled tree search (boardlab/agents/kernel_tree.py) that ``mcts`` runs on
Carteso and Rumbo: its statistics, its proofs, its reuse, where it runs."""
from __future__ import annotations

import random
import shutil

import numpy as np
import pytest

import boardlab
from boardlab.agents import make_agent
from boardlab.agents import kernel_tree
from boardlab.agents.kernel_tree import FIRST, SIBLING, ACTION, Tree, simulator

from test_solver import value


def _position(spec, plies, seed):
    """A position of ``spec`` in play, ``plies`` random moves in (no passes)."""
    state = boardlab.make(spec).new_initial_state(seed=seed)
    chooser = random.Random(seed)
    while state.phase() != "play":
        state.apply(chooser.choice(state.legal_actions()))
    for _ in range(plies):
        legal = [a for a in state.legal_actions() if state.action_to_string(a) != "pass"]
        state.apply(chooser.choice(legal or state.legal_actions()))
    return state


def _search(state, sims, seed=1, c=1.4, solve=True):
    """Run ``sims`` compiled simulations from ``state``: (tree, side totals)."""
    kernel, buf, scratch, n, nbr, aux, komi, _ = state.search_kernel()
    game = state.game
    tree = Tree(1 << 10)
    while tree.capacity < sims + 2:
        tree.grow()
    totals = np.zeros(2)
    ran = simulator(kernel)(
        buf, buf.copy(), scratch, n, nbr, aux, komi, np.empty(game.num_actions + 1, np.int32),
        np.zeros(game.num_actions + 2, np.int64), np.zeros(game.max_game_length + 2, np.int64),
        tree.links, tree.stats, tree.used, tree.root, np.zeros(game.num_actions + 1, np.uint8),
        sims, c, 0.0, solve, seed, totals)
    assert ran == sims
    return tree, totals


def _walk(tree, node, state):
    """Every node below ``node`` (its position ``state``) with its position."""
    yield node, state
    child = int(tree.links[FIRST, node])
    while child:
        after = state.clone()
        after.apply(int(tree.links[ACTION, child]))
        yield from _walk(tree, child, after)
        child = int(tree.links[SIBLING, child])


@pytest.mark.parametrize("spec, plies", [("carteso(size=4)", 10), ("carteso(size=5)", 19),
                                         ("rumbo(size=4)", 11), ("rumbo(size=5)", 20)])
def test_every_compiled_proof_agrees_with_an_exhaustive_search(spec, plies):
    checked = 0
    for seed in range(3):
        state = _position(spec, plies, seed)
        tree, _ = _search(state, 1500, seed)
        side_seat = state.seat_of_side
        for node, position in _walk(tree, tree.root, state):
            proof = tree.proof(node)
            if proof is None:
                continue
            seat = side_seat[0]                  # a proof is side 0's value
            expected = position.returns()[seat] if position.is_terminal() else \
                value(position) * (1 if position.current_player() == seat else -1)
            assert proof[0] == expected, (state.history_text(), position.history_text())
            checked += 1
    assert checked > 20


@pytest.mark.parametrize("spec, plies", [("carteso(size=5)", 4), ("rumbo(size=5)", 6),
                                         ("carteso(size=9)", 20)])
def test_the_statistics_add_up(spec, plies):
    """Each simulation counts once in every node of its path: a node's visits are its
    children's plus the one simulation that made it (none for the root), except where it
    is proven or the game is over (simulations stop there); the returns add up too."""
    state = _position(spec, plies, 2)
    tree, totals = _search(state, 2000, 3, solve=False)
    assert tree.stats[0, tree.root] == 2000 and totals[0] == -totals[1]
    for node, position in _walk(tree, tree.root, state):
        children = tree.children(node)
        below = sum(v for v, _, _ in children.values())
        if node == tree.root:
            assert below == 2000
        elif not position.is_terminal():
            assert tree.stats[0, node] == below + 1
    # the root's children's values are the returns of the side to move at the root
    mover_side = state.search_kernel()[-1].index(state.current_player())
    assert sum(w for _, w, _ in tree.children(tree.root).values()) == totals[mover_side]


def test_the_same_seed_gives_the_same_search_and_the_same_game():
    game = boardlab.make("rumbo(size=7)")
    moves = []
    for _ in range(2):
        state = game.new_initial_state(seed=3)
        agents = [make_agent("mcts(iterations=300)", game, s, seed=5 + s) for s in range(2)]
        while not state.is_terminal():
            seat = state.current_player()
            state.apply(agents[seat].act(state.view(seat)))
        moves.append(state.history_text())
    assert moves[0] == moves[1] and len(moves[0]) >= 49


def test_a_pass_that_the_reply_pass_wins_is_never_played_by_the_compiled_search():
    """The root's looks ahead stay in Python (mcts._check): they ban the pass before the
    compiled simulations could choose it (tests/test_solver.py has the positions)."""
    from test_solver import BEHIND, chosen, replayed
    for case in BEHIND:
        state = replayed(*case.values)
        for seed in range(10):
            move, agent = chosen("mcts(iterations=30)", state, seed)
            assert agent.ktree is not None and move != "pass"


@pytest.mark.parametrize("spec, compiled", [
    ("mcts", True), ("ismcts", True), ("mcts(compiled=false)", False),
    ("mcts(evaluator=heuristic)", False), ("mcts(level=1)", True)])
def test_where_the_compiled_search_runs(spec, compiled):
    game = boardlab.make("carteso(size=5)")
    state = game.new_initial_state()
    agent = make_agent(spec, game, 0, seed=1)
    agent.act(state.view(0))
    assert (agent.ktree is not None) is compiled


def test_the_pregame_is_searched_by_the_python_tree():
    game = boardlab.make("rumbo(size=5,komi_protocol=bid)")
    state = game.new_initial_state()
    state.apply(state.legal_actions()[3])                  # a bid: the side choice is next
    assert state.search_kernel() is None
    agent = make_agent("mcts(iterations=50,early_stop=false)", game, 1, seed=1)
    agent.act(state.view(1))
    assert agent.ktree is None and agent.iterations_done == 50


def test_games_without_a_compiled_search_keep_the_python_tree():
    for spec in ("cartagena", "ctor(size=8)"):
        game = boardlab.make(spec)
        state = game.new_initial_state(seed=1)
        seat = state.acting_seats()[0]
        assert state.search_kernel() is None
        agent = make_agent("mcts(iterations=20)", game, seat, seed=1)
        agent.act(state.view(seat))
        assert agent.ktree is None


# The cache key of the compiled loop ---------------------------------------------------
def _copy_of_the_package(tmp_path):
    """A copy of boardlab's Python sources under ``tmp_path`` (its ``boardlab`` folder)."""
    copy = tmp_path / "boardlab"
    shutil.copytree(kernel_tree.PACKAGE_ROOT / "boardlab", copy,
                    ignore=shutil.ignore_patterns("__pycache__", "*.npz", "static"))
    return copy


def _edit(path):
    path.write_text(path.read_text() + "\n# an edit\n")


def test_the_compiled_loop_is_keyed_on_every_module_its_code_reaches(tmp_path):
    """Carteso's kernel inlines ``territory_actions`` into the compiled loop: an edit there
    must give the loop a new name (a cache miss), not reuse the stale compiled copy."""
    from boardlab.games import carteso_kernel
    reached = kernel_tree.source_closure([carteso_kernel.__name__, kernel_tree.__name__])
    assert {"boardlab.games.carteso_kernel", "boardlab.games.kernels",
            "boardlab.games.territory_actions", "boardlab.agents.kernel_tree"} <= set(reached)
    key = kernel_tree.cache_name(carteso_kernel)
    copy = _copy_of_the_package(tmp_path)
    assert kernel_tree.cache_name(carteso_kernel, tmp_path) == key      # same sources
    _edit(copy / "games" / "cartagena_text.py")                       # not reached
    assert kernel_tree.cache_name(carteso_kernel, tmp_path) == key
    _edit(copy / "games" / "territory_actions.py")                    # inlined
    edited = kernel_tree.cache_name(carteso_kernel, tmp_path)
    assert edited != key and edited.startswith("carteso_kernel_")
    assert edited not in kernel_tree._COMPILED                         # a miss: compiled anew


def test_the_key_follows_imports_made_inside_functions(tmp_path):
    from boardlab.games import rumbo_kernel
    copy = _copy_of_the_package(tmp_path)
    key = kernel_tree.cache_name(rumbo_kernel, tmp_path)
    _edit(copy / "games" / "topology.py")                  # not imported by the kernel
    assert kernel_tree.cache_name(rumbo_kernel, tmp_path) == key
    kernels = copy / "games" / "kernels.py"
    kernels.write_text(kernels.read_text() + "\n\ndef _tables():\n"
                       "    from .topology import square_grid\n    return square_grid\n")
    with_import = kernel_tree.cache_name(rumbo_kernel, tmp_path)
    assert with_import != key
    _edit(copy / "games" / "topology.py")                  # now reached, lazily
    assert kernel_tree.cache_name(rumbo_kernel, tmp_path) != with_import


def test_the_sources_are_digested_once_a_process(monkeypatch):
    """``simulator`` is asked at every move: the digest of the sources (some 50 ms) must
    not be taken again each time."""
    from boardlab.games import rumbo_kernel
    first = simulator(rumbo_kernel)
    calls = []
    monkeypatch.setattr(kernel_tree, "cache_name", lambda *a: calls.append(a) or "x")
    assert simulator(rumbo_kernel) is first
    assert not calls
