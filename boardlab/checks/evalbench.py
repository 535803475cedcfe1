"""The cost of a network's evaluation in search, part by part (``boardlab bench --eval``).

For one game configuration, CPU microseconds a simulation of:

- ``rollout``: the compiled rollout search (``mcts``, ``kernel_tree``);
- ``compiled``: the compiled network search (``agent``: by default
  ``mcts(evaluator=net,compiled_net=true)`` with the shipped network; another network
  by its ``net`` option, without the policy head by ``priors=false``),
  split into the leaf's ``features`` (written by the kernel from the search's buffer),
  the ``network`` (its compiled forward pass) and the ``tree`` (the rest: selection,
  expansion with priors, moves, back-up);
- ``python``: the Python tree asking the network (``agent`` without ``compiled_net``);
- with an n-tuple search (``mcts(evaluator=ntuple,...)``, compiled by default) as
  ``agent``: ``compiled`` is its search, ``network`` its lookups, ``python`` the Python
  tree asking it (``compiled=false``), and no ``small``;
- ``small``: the compiled network search with an untrained network of ``small``
  (channels, blocks), what a network of that size would cost;

and ``ratio``, ``compiled`` over ``rollout`` (the issue's target: 5 or less). Each is
the median of ``runs`` searches of ``seconds`` from positions a few random moves in, by
one agent of each seat after an untimed search (as in a game: compiled, its arrays
grown), timed in CPU seconds of this process (steadier than wall time on a busy machine).
"""
from __future__ import annotations

import random
import statistics
import time

from ..core.errors import BoardlabError
from ..core.options import _FALSE, parse_spec, with_options
from ..core.registry import make

#: the compiled network search timed by default
AGENT = "mcts(evaluator=net,compiled_net=true)"


def _positions(game, runs: int, seed: int) -> list:
    """``runs`` positions of random games, 4 to 20 moves in, not over."""
    rng, found = random.Random(seed), []
    while len(found) < runs:
        state = game.new_initial_state(seed=rng.randrange(2 ** 31))
        for _ in range(rng.randrange(4, 21)):
            if state.is_terminal():
                break
            state.apply(rng.choice(state.legal_actions()))
        if not state.is_terminal() and len(state.legal_actions()) > 1:
            found.append(state)
    return found


def _search_cost(game, spec: str, states: list, seconds: float) -> float:
    """Median CPU microseconds a simulation of agent ``spec`` over ``states``: one agent
    for them all, as in a game (its arrays grown and its code compiled by a first search
    that is not timed), searching each of the seat that acts there."""
    from ..agents import make_agent
    from ..core.options import with_options

    costs = []
    for seat in sorted({state.acting_seats()[0] for state in states}):
        agent = make_agent(with_options(spec, time=seconds, iterations=0, reuse=False,
                                        early_stop=False), game, seat, seed=1)
        mine = [state for state in states if state.acting_seats()[0] == seat]
        agent.act(mine[0].view(seat))                     # the warm-up
        for state in mine:
            cpu = time.process_time()
            agent.act(state.view(seat))
            costs.append((time.process_time() - cpu) / max(agent.iterations_done, 1) * 1e6)
    return statistics.median(costs)


def _part_costs(game, states: list, times: int = 400, net: str = "",
                policy: bool = True) -> tuple[float, float]:
    """CPU microseconds of a leaf's features and of the forward pass of network ``net``
    (a file; "": the shipped one), with its policy head or not (each repeated ``times``
    times in compiled code, the median over ``states``)."""
    from ..agents.compiled_eval import CompiledNet
    from ..nn.compiled_net import forward_repeat
    from ..nn.features import BoardFeatures
    from ..nn.net import load_network

    features = BoardFeatures(game)
    search = CompiledNet(game, load_network(game, net, features), features)
    leaf = search.leaf
    board = leaf.obs[leaf.geom[1]:leaf.geom[2]]
    observed, forward = [], []
    for state in states:
        kernel, buf = state.search_kernel()[:2]
        history, seat = state.history, state.acting_seats()[0]
        observe = search.compiled(kernel)[3]
        args = (buf.copy(), len(history), history[-1][1] if history else -1, seat, leaf)
        observe(*args, 1)
        cpu = time.process_time()
        observe(*args, times)
        observed.append((time.process_time() - cpu) / times * 1e6)
        forward_repeat(leaf.net, board, leaf.scalars, leaf.work, leaf.logits, leaf.values, 1,
                       policy)
        cpu = time.process_time()
        forward_repeat(leaf.net, board, leaf.scalars, leaf.work, leaf.logits, leaf.values,
                       times, policy)
        forward.append((time.process_time() - cpu) / times * 1e6)
    return statistics.median(observed), statistics.median(forward)


def _small_cost(game, states: list, seconds: float, size: tuple[int, int]) -> float:
    """Median CPU microseconds a compiled simulation with an untrained network of
    ``size`` (channels, blocks)."""
    from ..agents.compiled_eval import CompiledNet
    from ..nn.compiled_net import random_network
    from ..nn.features import BoardFeatures

    features = BoardFeatures(game)
    search = CompiledNet(game, random_network(features, game.spec, game.num_actions, *size),
                         features)
    search.search(states[0], 2000)                     # compiled, its arrays grown
    costs = []
    for state in states:
        run = search.start(state)
        cpu, done = time.process_time(), 0
        while time.process_time() - cpu < seconds:
            done += run.simulate(64)
        costs.append((time.process_time() - cpu) / done * 1e6)
    return statistics.median(costs)


def _ntuple_parts(game, states: list, net: str, times: int = 400) -> tuple[float, float]:
    """CPU microseconds of a leaf's features and of the n-tuple lookups of weights
    ``net`` (a file; "": the shipped ones), medians over ``states``."""
    from ..agents.kernel_eval_tree import compiled as ket_compiled
    from ..agents.kernel_ntuple import CompiledNTuple
    from ..nn.ntuple import load_ntuple, value_repeat

    search = CompiledNTuple(game, load_ntuple(game, net))
    leaf = search.leaf
    observed, looked = [], []
    for state in states:
        kernel, buf = state.search_kernel()[:2]
        history, seat = state.history, state.acting_seats()[0]
        observe = ket_compiled(kernel, search.functions)[3]
        args = (buf.copy(), len(history), history[-1][1] if history else -1, seat, leaf)
        observe(*args, 1)
        cpu = time.process_time()
        observe(*args, times)
        observed.append((time.process_time() - cpu) / times * 1e6)
        value_repeat(leaf.obs, seat, leaf.net, 1)
        cpu = time.process_time()
        value_repeat(leaf.obs, seat, leaf.net, times)
        looked.append((time.process_time() - cpu) / times * 1e6)
    return statistics.median(observed), statistics.median(looked)


def network_options(agent: str) -> tuple[str, bool]:
    """(the ``net`` option, the ``priors`` option) of the network search ``agent``."""
    name, raw = parse_spec(agent)
    if name != "mcts" or str(raw.get("evaluator", "")).lower() not in ("net", "ntuple"):
        raise BoardlabError(f"--eval-agent {agent!r}: an mcts(evaluator=net,...) or "
                            f"mcts(evaluator=ntuple,...) search")
    priors = str(raw.get("priors", "true")).lower() not in _FALSE
    return str(raw.get("net", "")), priors


def bench_eval(spec: str, seconds: float = 1.0, runs: int = 3, seed: int = 1,
               small: tuple[int, int] = (8, 2), agent: str = AGENT) -> dict:
    """The figures of the module's text for ``spec`` (a game whose leaves the compiled
    search can observe, with the network ``agent`` names or one shipped for it)."""
    from ..nn.net import _one_blas_thread

    _one_blas_thread()                      # as a search with a network has
    game = make(spec)
    states = _positions(game, runs, seed)
    rollout = _search_cost(game, "mcts", states, seconds)
    net, policy = network_options(agent)
    if "evaluator=ntuple" in agent.replace(" ", ""):     # lookups, not a network
        compiled = _search_cost(game, agent, states, seconds)
        python = _search_cost(game, with_options(agent, compiled=False), states, seconds)
        features, lookups = _ntuple_parts(game, states, net)
        return {"spec": spec, "runs": runs, "agent": agent, "rollout_us": rollout,
                "compiled_us": compiled, "features_us": features, "network_us": lookups,
                "tree_us": compiled - features - lookups, "python_us": python,
                "small": [], "small_us": float("nan"), "ratio": compiled / rollout}
    compiled = _search_cost(game, with_options(agent, compiled_net=True), states, seconds)
    python = _search_cost(game, with_options(agent, compiled_net=False), states,
                          seconds)
    features, network = _part_costs(game, states, net=net, policy=policy)
    return {"spec": spec, "runs": runs, "agent": agent, "rollout_us": rollout,
            "compiled_us": compiled,
            "features_us": features, "network_us": network,
            "tree_us": compiled - features - network, "python_us": python,
            "small": list(small), "small_us": _small_cost(game, states, seconds, small),
            "ratio": compiled / rollout}
