"""The network evaluated inside the compiled search (agents.kernel_eval_tree,
nn.compiled_net): its features, its forward pass and the search that uses them."""
from __future__ import annotations

import random

import numpy as np
import pytest

import boardlab
from boardlab.agents import kernel_eval_tree as ket
from boardlab.agents.compiled_eval import CompiledNet
from boardlab.nn import compiled_net
from boardlab.nn.features import BoardFeatures
from boardlab.nn.net import load_network


def _network(game, features):
    """The shipped network of ``game``, else a small untrained one."""
    try:
        return load_network(game, "", features)
    except boardlab.core.errors.OptionError:
        return compiled_net.random_network(features, game.spec, game.num_actions, 8, 2, seed=3)


def _positions(game, games: int, seed: int):
    """(state, search position) pairs of random games, the search position's buffer
    reached by the search kernel's own moves (``search_play``) from a few moves back."""
    rng = random.Random(seed)
    for _ in range(games):
        state = game.new_initial_state()
        back = None
        while not state.is_terminal():
            if back is None or rng.random() < 0.2:
                back = (state.clone(), [])
            yield state, back
            action = rng.choice(state.legal_actions())
            state.apply(action)
            back[1].append(action)


@pytest.mark.parametrize("spec,games", [("carteso(size=9)", 5), ("carteso(size=5)", 20),
                                        ("rumbo(size=9)", 4)])
def test_leaf_features_equal_the_views(spec, games):
    game = boardlab.make(spec)
    assert ket.available(game)
    features = BoardFeatures(game)
    network = _network(game, features)
    features.scale = network.scale
    search = CompiledNet(game, network, features)
    leaf = search.leaf
    checked = 0
    for state, (origin, moves) in _positions(game, games, seed=7):
        kernel, buf, scratch, n, nbr, aux, _, _ = origin.search_kernel()
        work = buf.copy()
        for action in moves:                       # the search's own moves
            kernel.search_play(work, scratch, n, nbr, aux, action)
        seat = state.acting_seats()[0]
        history = state.history
        observe = search.compiled(kernel)[0]
        observe(work, len(history), history[-1][1] if history else -1, seat, leaf)
        view = state.view(seat)
        assert np.array_equal(leaf.obs, features.encoder.encode(view))
        planes = features.encode(view)
        board = leaf.obs[features.board_cells].reshape(features.board_planes, -1)
        assert np.array_equal(board, planes[:features.board_planes].reshape(
            features.board_planes, -1))
        assert np.allclose(leaf.scalars * network.scale, planes[features.board_planes:, 0, 0])
        checked += 1
    assert checked >= 100


@pytest.mark.parametrize("spec,size", [("carteso(size=9)", None), ("rumbo(size=9)", None),
                                       ("carteso(size=5)", (16, 3)), ("carteso(size=5)", (2, 1))])
def test_compiled_forward_equals_numpy(spec, size):
    game = boardlab.make(spec)
    features = BoardFeatures(game)
    network = load_network(game, "", features) if size is None else \
        compiled_net.random_network(features, spec, game.num_actions, *size, seed=5)
    features.scale = network.scale
    packed = compiled_net.pack(network, features.board_planes)
    work = compiled_net.scratch_for(packed)
    # the planes hold the input's board planes too (fewer channels than them: no write
    # past the array, which numba would not catch)
    assert work[0].shape[0] >= max(features.board_planes, network.w["conv0.w"].shape[0])
    logits = np.zeros(game.num_actions, dtype=np.float32)
    values = np.zeros(len(game.seat_names), dtype=np.float32)
    rng = random.Random(11)
    for _ in range(40):
        state = game.new_initial_state()
        for _ in range(rng.randrange(2 * game.points // 3)):
            if state.is_terminal():
                break
            state.apply(rng.choice(state.legal_actions()))
        if state.is_terminal():
            continue
        flat = features.encoder.encode(state.view(state.acting_seats()[0]))
        want_logits, want_values = network.forward(features.planes(flat))
        compiled_net.forward(packed, np.ascontiguousarray(flat[features.board_cells]),
                             np.ascontiguousarray(features.raw_scalars(flat)), work, logits,
                             values, True)
        assert np.allclose(logits, want_logits, atol=1e-4, rtol=1e-4)
        assert np.allclose(values, want_values, atol=1e-5)
        values[:] = 0.0
        compiled_net.forward(packed, np.ascontiguousarray(flat[features.board_cells]),
                             np.ascontiguousarray(features.raw_scalars(flat)), work, logits,
                             values, False)                          # the value head alone
        assert np.allclose(values, want_values, atol=1e-5)


def test_compiled_search_is_legal_and_deterministic():
    game = boardlab.make("carteso(size=9)")
    features = BoardFeatures(game)
    search = CompiledNet(game, load_network(game, "", features), features)
    rng = random.Random(2)
    state = game.new_initial_state()
    for _ in range(10):
        state.apply(rng.choice(state.legal_actions()))
    first = search.search(state, 300)
    assert first == search.search(state, 300)
    assert set(first) == set(state.legal_actions())
    assert sum(v for v, _, _ in first.values()) == 299     # the root's own is the first
    assert abs(sum(p for _, _, p in first.values()) - 1.0) < 1e-6
    best = max(first, key=lambda a: first[a][0])
    assert best in state.legal_actions()


def test_compiled_search_plays_to_the_end():
    """Searches right up to the end of a game: finished positions in the tree are valued
    by their result, the moves stay legal."""
    game = boardlab.make("carteso(size=5)")
    features = BoardFeatures(game)
    network = compiled_net.random_network(features, game.spec, game.num_actions, 8, 2, seed=1)
    search = CompiledNet(game, network, features)
    state = game.new_initial_state()
    while not state.is_terminal():
        children = search.search(state, 60)
        action = max(children, key=lambda a: (children[a][0], -a))
        assert action in state.legal_actions()
        state.apply(action)


def test_the_agent_reaches_the_compiled_network_search():
    """``mcts(evaluator=net,compiled_net=true)`` searches compiled (its simulations are
    the compiled tree's), plays legal moves, and the same seed gives the same game."""
    from boardlab.agents import make_agent

    game = boardlab.make("carteso(size=9)")
    spec = "mcts(evaluator=net,compiled_net=true,iterations=60)"

    def play(seed: int) -> list:
        agents = [make_agent(spec, game, seat, seed=seed + seat) for seat in range(2)]
        assert all(agent.cnet is not None for agent in agents)
        state, moves = game.new_initial_state(), []
        for _ in range(12):
            seat = state.acting_seats()[0]
            action = agents[seat].act(state.view(seat))
            assert action in state.legal_actions()
            assert agents[seat].cnet.last_tree is not None
            moves.append(action)
            state.apply(action)
        return moves

    assert play(4) == play(4)
    plain = make_agent("mcts(evaluator=net)", game, 0)
    assert plain.cnet is None                      # the Python tree unless asked


def test_the_value_mixed_with_a_playout_and_uniform_priors():
    """``priors=false``: UCB1, untried actions first at random; ``mix``: a share of a
    random playout's result (the seed decides which), the Python tree's options."""
    from boardlab.agents import make_agent

    game = boardlab.make("carteso(size=9)")
    agent = make_agent("mcts(evaluator=net,compiled_net=true,priors=false,mix=0.5)", game, 0)
    assert agent.cnet is not None and agent.cnet.mix == 0.5 and not agent.cnet.priors
    state = game.new_initial_state()
    first = agent.cnet.search(state, 200, seed=1)
    assert len({p for _, _, p in first.values()}) == 1               # uniform
    assert first == agent.cnet.search(state, 200, seed=1)
    assert first != agent.cnet.search(state, 200, seed=2)           # the playouts differ
    assert min(v for v, _, _ in first.values()) >= 1                  # each tried once
    guided = CompiledNet(game, agent.cnet.network).search(state, 200, seed=1)
    assert guided == CompiledNet(game, agent.cnet.network).search(state, 200, seed=2)
    assert min(v for v, _, _ in guided.values()) == 0                 # PUCT: not all tried


def test_the_batches_do_not_change_the_search():
    """Simulations run in one call or several (batches, a tree grown between them, the
    arrays of an earlier search reused) give the same tree: the random state is carried."""
    game = boardlab.make("carteso(size=9)")
    features = BoardFeatures(game)
    network = load_network(game, "", features)
    search = CompiledNet(game, network, features, priors=False, mix=0.5)
    state = game.new_initial_state()
    run = search.start(state, seed=3)
    for _ in range(6):
        run.simulate(25)
    split = run.children()
    fresh = CompiledNet(game, network, features, priors=False, mix=0.5)
    assert fresh.search(state, 150, seed=3) == split
    assert search.search(state, 150, seed=3) == split                 # arrays reused


def test_the_eval_bench_times_the_network_it_is_given(tmp_path):
    """``boardlab bench --eval --eval-agent``: the network named by ``net=`` (and without
    its policy head by ``priors=false``) is the one timed, not the shipped one."""
    from boardlab.checks import evalbench
    from boardlab.core.errors import BoardlabError, OptionError
    from boardlab.nn.net import Network

    game = boardlab.make("carteso(size=9)")
    features = BoardFeatures(game)
    small = compiled_net.random_network(features, game.spec, game.num_actions, 2, 1, seed=4)
    path = tmp_path / "small.npz"
    Network.save(path, small.w, small.meta)
    agent = f"mcts(evaluator=net,compiled_net=true,priors=false,net={path})"
    assert evalbench.network_options(agent) == (str(path), False)
    assert evalbench.network_options("mcts(evaluator=net)") == ("", True)
    with pytest.raises(BoardlabError, match="evaluator=net"):
        evalbench.network_options("mcts(iterations=10)")
    states = evalbench._positions(game, 1, seed=2)
    features_us, network_us = evalbench._part_costs(game, states, times=3, net=str(path),
                                                    policy=False)
    assert features_us > 0 and network_us > 0
    with pytest.raises(OptionError, match="missing.npz"):
        evalbench._part_costs(game, states, times=3, net=str(tmp_path / "missing.npz"))


def test_ucb_expands_a_leaf_on_its_second_visit_only():
    """``priors=false``: a leaf valued once has no children (they cost most of a
    simulation when every new leaf got all of them); a node visited twice or more has one
    for each legal action, and its tried ones are its first ``tried``."""
    game = boardlab.make("carteso(size=9)")
    features = BoardFeatures(game)
    search = CompiledNet(game, load_network(game, "", features), features, priors=False)
    state = game.new_initial_state()
    run = search.start(state, seed=5)
    run.simulate(400)
    tree = run.tree
    used = int(tree.used[0])
    links, stats = tree.links[:, 1:used], tree.stats[:, 1:used]      # node 0 is none
    expanded = links[ket.COUNT] >= 0
    assert (stats[ket.VISITS][expanded] >= 2).all()
    assert (links[ket.COUNT][(stats[ket.VISITS] == 1)] == ket.VALUED).all()
    assert used - 2 == links[ket.COUNT][expanded].sum()       # children only of those
    assert tree.links[ket.COUNT, tree.root] == len(state.legal_actions())
    visits = tree.stats[ket.VISITS]
    for node in np.flatnonzero(expanded) + 1:
        first, count, tried = tree.links[(ket.FIRST, ket.COUNT, ket.TRIED), node]
        assert (visits[first:first + tried] >= 1).all()
        assert (visits[first + tried:first + count] == 0).all()
    assert used < 400 * 162 / 2       # (all at once: each of the 400 leaves × 162)
