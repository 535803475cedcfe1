"""PUCT whose whole simulation runs compiled, a network valuing the leaves.

:mod:`.kernel_tree` runs UCT with rollouts compiled; this is its counterpart for a
trained network (``mcts(evaluator=net)``): selection by PUCT over the network's
priors, the leaf's features written from the search's own buffer, the network's
forward pass (:mod:`boardlab.nn.compiled_net`) and the back-up, all in one compiled
call per batch of simulations, with no view, no encoder and no Python on the way.

The features: a game whose vector kernel (``Game.vector_kernel``) has, beside
``vec_observe``, a compiled ``search_row(buf, moves, last, row)`` (write the vector
row of the search's position ``buf`` after ``moves`` moves, the last ``last``) gets
its leaves observed by the kernel exactly as :class:`~boardlab.nn.kernel_observe.
KernelObserver` observes a state, the same numbers as the view's
(tests/test_compiled_eval.py); the moves are the root's plus the leaf's depth, the
last action the one that led to the leaf. :func:`available` says where that holds.

The tree: each node keeps its first child and how many (all the legal actions at
once, each with its prior: with priors when the node is first evaluated, without
(UCB1) on its second visit, as :mod:`.kernel_tree` grows, so that a leaf valued once
costs no children), how many of them were tried (UCB1), the action that led to it, the
side to move, its visits and the sum of the values of the side that chose it.
Selection is ``mcts_tree.select_puct``'s: ``q + c_puct * prior *
sqrt(n) / (1 + visits)``, an unvisited child's ``q`` the mean of the tried ones less
``fpu``, the priors the softmax of the network's logits over the legal actions; or
(``priors=false``) UCB1 as in :mod:`.kernel_tree` (``c``), untried actions first. A
leaf is valued by the network (each side its own seat's value), mixed where asked
(``mix``) with a random playout's result as in the Python tree; a finished game by its
result.
"""
from __future__ import annotations

import hashlib
import math
import types
from typing import Any, NamedTuple

import numpy as np
from numba import njit

from ..core.errors import BoardlabError
from ..core.game import Game
from ..nn import compiled_net
from ..nn.features import BoardFeatures
from ..nn.kernel_layout import layout
from ..nn.net import Network
from ..games.kernels import rng_below, rng_next, rng_seed
from .kernel_tree import PACKAGE_ROOT, source_closure

# The kernel functions the compiled code calls (placeholders here: each compiled copy
# gets a game's own; see ``_compiled``).
search_over: Any = None
search_turn: Any = None
search_legal: Any = None
search_play: Any = None
search_lead: Any = None
search_playout: Any = None
search_row: Any = None
vec_observe: Any = None
observe_leaf: Any = None

NODE_ROWS = ("first", "count", "action", "side", "tried")
FIRST, COUNT, ACTION, SIDE, TRIED = range(len(NODE_ROWS))
NEW, VALUED = -1, -2          # a node's count before it is expanded: not valued, valued
VISITS, VALUE, PRIOR = range(3)


class EvalTree:
    """The arrays of one compiled PUCT tree (``capacity`` nodes, grown by :meth:`grow`)."""

    def __init__(self, capacity: int = 1 << 14):
        self.links = np.zeros((len(NODE_ROWS), capacity), dtype=np.int32)
        self.stats = np.zeros((3, capacity), dtype=np.float64)
        self.used = np.full(1, 2, dtype=np.int64)    # node 0 is never one; 1 is the root
        self.root = 1
        self.clear()

    def clear(self) -> None:
        """Forget every node but a new root (the arrays, grown and paged in, are kept:
        a node's entries are all written when it is made)."""
        self.used[0] = 2
        self.links[:, self.root] = 0
        self.links[(COUNT, ACTION, SIDE), self.root] = -1     # not evaluated yet
        self.stats[:, self.root] = 0.0

    @property
    def capacity(self) -> int:
        return self.links.shape[1]

    def grow(self) -> None:
        """Double the room for nodes."""
        self.links = np.concatenate((self.links, np.zeros_like(self.links)), axis=1)
        self.stats = np.concatenate((self.stats, np.zeros_like(self.stats)), axis=1)

    def entries(self, node: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The actions, visits and values of ``node``'s children (views of the arrays)."""
        first, count = int(self.links[FIRST, node]), max(int(self.links[COUNT, node]), 0)
        span = slice(first, first + count)
        return self.links[ACTION, span], self.stats[VISITS, span], self.stats[VALUE, span]

    def children(self, node: int) -> dict:
        """``{action: (visits, value, prior)}`` of ``node``'s children."""
        first, count = int(self.links[FIRST, node]), int(self.links[COUNT, node])
        if count <= 0:
            return {}
        span = slice(first, first + count)
        return {int(a): (int(v), float(w), float(p)) for a, v, w, p in zip(
            self.links[ACTION, span], self.stats[VISITS, span], self.stats[VALUE, span],
            self.stats[PRIOR, span])}


class Leaf(NamedTuple):
    """What the compiled code needs to observe and value a leaf (see :func:`prepare`)."""

    tables: tuple          # the vector kernel's tables
    row: np.ndarray        # a vector row (int32)
    obs: np.ndarray        # the encoder's vector (float32)
    planes_at: np.ndarray
    cells_at: np.ndarray
    scalars_at: np.ndarray
    geom: np.ndarray       # seats, header, where the board planes end, scalars
    scalars: np.ndarray    # the unscaled scalars (float32)
    net: tuple             # compiled_net.pack's
    work: tuple            # compiled_net.scratch_for's
    logits: np.ndarray
    values: np.ndarray


def available(game: Game) -> bool:
    """Whether ``game``'s positions can be observed inside the compiled search: a
    vector kernel with ``search_row`` and a square or torus board."""
    kernel = game.vector_kernel()
    if kernel is None or getattr(kernel.functions, "search_row", None) is None:
        return False
    return game.board_description()["kind"] in ("square", "torus")


def prepare(game: Game, network: Network, features: BoardFeatures | None = None) -> Leaf:
    """The arrays of :class:`Leaf` for ``game`` and ``network`` (see :func:`available`)."""
    features = features or BoardFeatures(game)
    net = compiled_net.pack(network, features.board_planes)
    return prepare_observer(game, features)._replace(net=net,
                                                     work=compiled_net.scratch_for(net))


def prepare_observer(game: Game, features: BoardFeatures) -> Leaf:
    """A :class:`Leaf` that observes ``game``'s leaves, with no network (``net`` and
    ``work`` empty: another evaluator's arrays go there)."""
    kernel = game.vector_kernel()
    if kernel is None:
        raise BoardlabError(f"{game.spec}: no vector kernel observes its positions")
    lay = layout(game.spec, features.encoder, kernel)
    seats = len(features.encoder.seats)
    geom = np.array([seats, features.header, features.board_cells.stop, features.scalars],
                    dtype=np.int64)
    return Leaf(kernel.tables, np.array(kernel.initial, copy=True),
                np.zeros(features.encoder.size, dtype=np.float32), lay.planes_at,
                lay.cells_at, lay.scalars_at, geom,
                np.zeros(features.scalars, dtype=np.float32), (), (),
                np.zeros(game.num_actions, dtype=np.float32),
                np.zeros(seats, dtype=np.float32))


def _observe_leaf(buf, moves, last, seat, leaf):
    """Write the encoder's vector of ``seat``'s view of the search's position ``buf``
    (``moves`` made, the last ``last``) into ``leaf.obs`` and its unscaled scalars into
    ``leaf.scalars``."""
    obs, geom, scalars = leaf.obs, leaf.geom, leaf.scalars
    seats, header, board_stop = geom[0], geom[1], geom[2]
    search_row(buf, moves, last, leaf.row)
    obs[:] = 0.0
    obs[seat] = 1.0
    obs[seats + seat] = 1.0
    vec_observe(leaf.row, leaf.tables, seat, obs, leaf.planes_at, leaf.cells_at,
                leaf.scalars_at)
    for i in range(header):
        scalars[i] = obs[i]
    for i in range(board_stop, obs.shape[0]):
        scalars[header + i - board_stop] = obs[i]


def _evaluate(buf, moves, last, seat, leaf, policy):
    """``leaf.values`` and with ``policy`` ``leaf.logits`` of the position (as
    :func:`_observe_leaf`)."""
    observe_leaf(buf, moves, last, seat, leaf)
    compiled_net.forward(leaf.net, leaf.obs[leaf.geom[1]:leaf.geom[2]], leaf.scalars,
                         leaf.work, leaf.logits, leaf.values, policy)


def _observe_repeat(buf, moves, last, seat, leaf, times):
    """:func:`_observe_leaf` ``times`` times over (to time it without calls from Python)."""
    for _ in range(times):
        observe_leaf(buf, moves, last, seat, leaf)


@njit(cache=True, inline="always")
def _puct(stats, first, count, c_puct, fpu):
    """The child of the highest PUCT score (``mcts_tree.select_puct``'s rule)."""
    tried, value = 0.0, 0.0
    for child in range(first, first + count):
        tried += stats[VISITS, child]
        value += stats[VALUE, child]
    q0 = value / tried - fpu if tried > 0.0 else 0.0
    sq = math.sqrt(tried if tried > 1.0 else 1.0)
    best, best_score = first, -np.inf
    for child in range(first, first + count):
        visits = stats[VISITS, child]
        q = stats[VALUE, child] / visits if visits > 0.0 else q0
        score = q + c_puct * stats[PRIOR, child] * sq / (1.0 + visits)
        if score > best_score:
            best, best_score = child, score
    return best


@njit(cache=True, inline="always")
def _ucb(links, stats, node, first, count, c, s):
    """An untried child at random (``s`` the random state), else the child of the highest
    UCB1 score (``kernel_tree``'s rule); returns it and the random state. The tried
    children are the node's first ``tried``: the one chosen from the others is swapped
    to the front of them (untried children differ only in their action)."""
    tried = links[TRIED, node]
    if tried < count:
        s = rng_next(s)
        pick, k = first + tried, first + tried + rng_below(s, count - tried)
        action = links[ACTION, k]
        links[ACTION, k] = links[ACTION, pick]
        links[ACTION, pick] = action
        links[TRIED, node] = tried + 1
        return pick, s
    log_n = math.log(max(stats[VISITS, node], 1.0))
    best, best_score = first, -np.inf
    for child in range(first, first + count):
        visits = stats[VISITS, child]
        score = stats[VALUE, child] / visits + c * math.sqrt(log_n / visits)
        if score > best_score:
            best, best_score = child, score
    return best, s


@njit(cache=True, inline="always")
def _expand(links, stats, used, node, out, count, logits, uniform):
    """Give ``node`` a child for each of the ``count`` actions in ``out``, each with its
    prior (the softmax of ``logits`` over them, or uniform)."""
    top = -np.inf
    if not uniform:
        for i in range(count):
            top = max(top, logits[out[i]])
    first = used[0]
    for i in range(count):
        child = first + i
        links[FIRST, child] = 0
        links[COUNT, child] = NEW
        links[ACTION, child] = out[i]
        links[SIDE, child] = -1
        links[TRIED, child] = 0
        stats[VISITS, child] = 0.0
        stats[VALUE, child] = 0.0
        stats[PRIOR, child] = 1.0 if uniform else math.exp(logits[out[i]] - top)
    total = 0.0
    for i in range(count):
        total += stats[PRIOR, first + i]
    for i in range(count):
        stats[PRIOR, first + i] /= total
    used[0] = first + count
    links[FIRST, node] = first
    links[COUNT, node] = count
    links[TRIED, node] = 0


def _simulate(root_buf, work, scratch, n, nbr, aux, komi_half, out, path, links, stats,
              used, root, sims, c_puct, fpu, seat_of_side, root_moves, root_last, leaf,
              results, uniform, c, mix, seed, rng):
    """Run up to ``sims`` simulations from ``root`` (whose position is ``root_buf``, after
    ``root_moves`` moves, the last ``root_last``); return how many ran (fewer when the
    node arrays could not hold a new node's children). ``results`` gains each side's
    values. With ``uniform`` the network's logits are unused: selection is UCB1 (an
    untried action first, at random; ``c`` its constant); with ``mix`` > 0 a leaf is
    worth that share of a random playout's result (``seed`` its random numbers) and the
    rest of the network's value. ``rng`` keeps the random state from one call to the
    next (0 at first: then seeded from ``seed``), so that the simulations do not depend
    on how the calls were split."""
    capacity = links.shape[1]
    s = rng[0] if rng[0] != 0 else rng_seed(seed)
    room = out.shape[0] + 1
    values = leaf.values
    done = 0
    for _ in range(sims):
        if used[0] + room >= capacity:
            break
        work[:] = root_buf
        node = root
        depth = 0
        path[0] = root
        while True:
            if search_over(work):
                lead = search_lead(work) - komi_half
                r0 = 1.0 if lead > 0 else -1.0 if lead < 0 else 0.0
                r1 = -r0
                break
            if links[COUNT, node] == NEW:        # a new leaf: the network values it
                mover = search_turn(work)
                links[SIDE, node] = mover
                last = root_last if depth == 0 else links[ACTION, node]
                _evaluate(work, root_moves + depth, last, seat_of_side[mover], leaf,
                          not uniform)
                if uniform:                      # its children on its next visit
                    links[COUNT, node] = VALUED
                else:
                    count = search_legal(work, scratch, n, nbr, aux, out)
                    _expand(links, stats, used, node, out, count, leaf.logits, uniform)
                r0 = values[seat_of_side[0]]
                r1 = values[seat_of_side[1]]
                if mix > 0.0:                    # a share of a random playout's result
                    s = rng_next(s)
                    search_playout(work, scratch, n, nbr, aux, np.int64(s >> np.uint64(1)))
                    lead = search_lead(work) - komi_half
                    played = 1.0 if lead > 0 else -1.0 if lead < 0 else 0.0
                    r0 = (1.0 - mix) * r0 + mix * played
                    r1 = (1.0 - mix) * r1 - mix * played
                break
            if links[COUNT, node] == VALUED:     # a second visit: its children now
                count = search_legal(work, scratch, n, nbr, aux, out)
                _expand(links, stats, used, node, out, count, leaf.logits, uniform)
            first, count = links[FIRST, node], links[COUNT, node]
            if count == 0:
                raise ValueError("a position that is not over has no legal action")
            if uniform:
                best, s = _ucb(links, stats, node, first, count, c, s)
            else:
                best = _puct(stats, first, count, c_puct, fpu)
            search_play(work, scratch, n, nbr, aux, links[ACTION, best])
            node = best
            depth += 1
            path[depth] = node
        results[0] += r0
        results[1] += r1
        stats[VISITS, path[0]] += 1.0
        for d in range(1, depth + 1):
            parent, node = path[d - 1], path[d]
            stats[VISITS, node] += 1.0
            stats[VALUE, node] += r0 if links[SIDE, parent] == 0 else r1
        done += 1
    rng[0] = s
    return done


_COMPILED: dict = {}
#: the compiled copies by module names (the digest of the sources is taken once a process)
_BY_MODULES: dict = {}


def _cache_name(kernel, functions) -> str:
    """A name for the compiled copies of ``kernel`` and ``functions`` (the vector
    kernel's module): a digest of every module the compiled code reaches."""
    digest = hashlib.sha1()
    modules = [kernel.__name__, functions.__name__, __name__]
    for name, path in sorted(source_closure(modules, PACKAGE_ROOT).items()):
        digest.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    return f"{kernel.__name__.rsplit('.', 1)[-1]}_{digest.hexdigest()[:10]}"


def _copy(fn, glob: dict, name: str):
    copy = types.FunctionType(fn.__code__, glob, f"{fn.__name__}__{name}")
    copy.__qualname__ = f"{fn.__name__}__{name}"     # numba's cache file is named after it
    copy.__module__ = __name__
    copy.__doc__ = fn.__doc__
    return njit(cache=True)(copy)


def compiled(kernel, functions) -> tuple:
    """``(observe_leaf, evaluate, simulate, observe_repeat)`` compiled with the search
    kernel ``kernel``'s functions and the vector kernel ``functions``' (cached on disk
    under a name that changes with the source they reach)."""
    known = _BY_MODULES.get((kernel.__name__, functions.__name__))
    if known is not None:
        return known
    name = _cache_name(kernel, functions)
    if name not in _COMPILED:
        glob = dict(_simulate.__globals__)
        glob.update({key: getattr(kernel, key) for key in
                     ("search_over", "search_turn", "search_legal", "search_play",
                      "search_lead", "search_playout")})
        glob.update(search_row=functions.search_row, vec_observe=functions.vec_observe)
        observe = _copy(_observe_leaf, glob, name)
        glob = dict(glob, observe_leaf=observe)
        evaluate = _copy(_evaluate, glob, name)
        glob = dict(glob, _evaluate=evaluate)
        _COMPILED[name] = (observe, evaluate, _copy(_simulate, glob, name),
                           _copy(_observe_repeat, glob, name))
    _BY_MODULES[kernel.__name__, functions.__name__] = _COMPILED[name]
    return _COMPILED[name]
