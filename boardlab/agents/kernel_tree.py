"""UCT whose whole simulation runs compiled: selection, expansion, rollout, back-up.

The Python tree of :mod:`boardlab.agents.mcts` spends about three quarters of a
simulation's time in the interpreter on Carteso and Rumbo (a copy of the state,
a move or two through the game API, a node's bookkeeping), around a compiled
rollout that takes the rest. Where a game's kernel offers the compiled search's
view of a position (``State.search_kernel``), ``mcts`` runs its simulations here
instead: a batch of them in one compiled call, on a tree kept in flat arrays.

The game's part is six compiled functions of its kernel module, each taking the
same arguments in every game (``buf`` the position, ``scratch``, ``n``, ``nbr``
and ``aux`` the game's tables): ``search_over(buf)``, ``search_turn(buf)`` (the
side to move, 0 or 1), ``search_legal(buf, scratch, n, nbr, aux, out)`` (writes
the legal actions, returns how many), ``search_play(..., action)``,
``search_playout(..., seed)`` (random play to the end) and ``search_lead(buf)``
(side 0's lead in half points at the end, before the komi). :func:`simulator`
compiles the loop below once per kernel module with those six as its globals
(numba caches it on disk under a name of its own, which changes with the source of
every module the compiled code reaches: :func:`cache_name`).

The tree: node 0 is free, each node keeps its first child and next sibling (the
tried actions, newest first), the action that led to it, its visits and the sum
of the returns of the side that chose it, the side to move there (-1 until
visited) and, once known, how many legal actions it has and how many were tried.
Selection is UCB1 as in ``mcts_tree`` (``value / visits + c * sqrt(log(N) /
visits)``, ``N`` the visits of the node, first highest in tried order): untried
actions first, uniformly at random, or with ``urgency > 0`` only while no tried
action scores that much. At the root the actions flagged in ``banned`` (the
solver's proven losses) are never chosen while another is left. Returns are
those of a two-sided game: +1 for the side ahead after the komi, -1 for the
other, 0 for a draw.
"""
from __future__ import annotations

import ast
import hashlib
import math
import types
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

from ..games.kernels import rng_below, rng_next, rng_seed

# The six functions of a game kernel that the loop calls (placeholders here: each
# compiled copy of the loop gets a kernel module's own; see ``simulator``).
search_over: Any = None
search_turn: Any = None
search_legal: Any = None
search_play: Any = None
search_playout: Any = None
search_lead: Any = None

NODE_ROWS = ("first", "sibling", "action", "side", "legal", "tried", "proven", "worth", "plies")
FIRST, SIBLING, ACTION, SIDE, LEGAL, TRIED, PROVEN, WORTH, PLIES = range(len(NODE_ROWS))
REUSE_NODES = 1 << 21   # a tree of more nodes is not kept for the next move (about 100 MB)


class Tree:
    """The arrays of one compiled tree (``capacity`` nodes, grown by :meth:`grow`)."""

    def __init__(self, capacity: int = 1 << 14):
        self.links = np.zeros((len(NODE_ROWS), capacity), dtype=np.int32)
        self.stats = np.zeros((2, capacity), dtype=np.float64)     # visits, value
        self.used = np.ones(1, dtype=np.int64)       # nodes in use (node 0 is never one)
        self.root = self.new_node()

    @property
    def capacity(self) -> int:
        return self.links.shape[1]

    def new_node(self) -> int:
        node = int(self.used[0])
        if node >= self.capacity:
            self.grow()
        self.links[:, node] = 0
        self.links[(ACTION, SIDE, LEGAL), node] = -1
        self.stats[:, node] = 0.0
        self.used[0] = node + 1
        return node

    def grow(self) -> None:
        """Double the room for nodes."""
        size = self.capacity
        self.links = np.concatenate((self.links, np.zeros_like(self.links)), axis=1)
        self.stats = np.concatenate((self.stats, np.zeros_like(self.stats)), axis=1)
        assert self.capacity == 2 * size

    def children(self, node: int) -> dict:
        """``{action: (visits, value, worth)}`` of ``node``'s tried actions, oldest
        first: ``worth`` is None, or for a proven child (its value for side 0, how many
        moves its proof takes to the end)."""
        size = max(int(self.links[TRIED, node]), 1)
        acts = np.empty(size, dtype=np.int64)
        found = np.empty((5, size), dtype=np.float64)
        count = _children(self.links, self.stats, node, acts, found)
        rows = found[:, :count].tolist()
        return {a: (int(v), w, (int(x), int(p)) if proven else None)
                for a, v, w, proven, x, p in zip(acts[:count].tolist(), *rows)}

    def proof(self, node: int):
        """None, or ``node``'s proven value for side 0 and its proof's length."""
        if not self.links[PROVEN, node]:
            return None
        return int(self.links[WORTH, node]), int(self.links[PLIES, node])

    def child(self, node: int, action: int) -> int:
        """The child of ``node`` for ``action``, 0 if untried."""
        child = int(self.links[FIRST, node])
        while child and int(self.links[ACTION, child]) != action:
            child = int(self.links[SIBLING, child])
        return child


@njit(cache=True)
def _children(links, stats, node, acts, out):
    """Write ``node``'s tried actions, oldest first, and for each its visits, value,
    whether it is proven, its proven value for side 0 and its proof's length."""
    count = links[TRIED, node]
    child = links[FIRST, node]
    i = count
    while child:
        i -= 1
        acts[i] = links[ACTION, child]
        out[0, i] = stats[0, child]
        out[1, i] = stats[1, child]
        out[2, i] = links[PROVEN, child]
        out[3, i] = links[WORTH, child]
        out[4, i] = links[PLIES, child]
        child = links[SIBLING, child]
    return count


@njit(cache=True, inline="always")
def _worth(links, child, mover):
    """The proven value of ``child`` for side ``mover``."""
    return links[WORTH, child] if mover == 0 else -links[WORTH, child]


@njit(cache=True, inline="always")
def _mark_tried(links, stamp, node):
    """Stamp the actions of ``node``'s tried children (``stamp[1 + action]``) with a new
    mark; return the mark."""
    stamp[0] += 1
    mark = stamp[0]
    child = links[FIRST, node]
    while child:
        stamp[1 + links[ACTION, child]] = mark
        child = links[SIBLING, child]
    return mark


@njit(cache=True, inline="always")
def _best(links, stats, node, c, log_n, banned, ban, mover, skip_lost):
    """``node``'s tried child of the highest UCB score, and the score (0 and -inf if none);
    with ``skip_lost`` none banned (where ``ban``) or proven lost for ``mover``."""
    best, best_score = 0, -np.inf
    child = links[FIRST, node]
    while child:
        if not (skip_lost and (ban and banned[links[ACTION, child]] or
                               links[PROVEN, child] and _worth(links, child, mover) < 0)):
            visits = stats[0, child]
            score = stats[1, child] / visits + c * math.sqrt(log_n / visits)
            if score > best_score:
                best, best_score = child, score
        child = links[SIBLING, child]
    return best, best_score


@njit(cache=True)
def _prove_up(links, path, depth):
    """Carry the proof of ``path[depth]`` up the path as far as it proves the nodes
    above (as ``solver.prove``: a child that wins for the mover proves its parent; so
    do children that are all proven, worth the best of them for the mover, of several
    losses the one that ends the game latest)."""
    for d in range(depth, 0, -1):
        child, parent = path[d], path[d - 1]
        if links[PROVEN, parent]:
            return
        mover = links[SIDE, parent]
        if _worth(links, child, mover) < 1:
            if links[TRIED, parent] < links[LEGAL, parent]:
                return
            best, best_key = 0, -1e18
            other = links[FIRST, parent]
            while other:
                if not links[PROVEN, other]:
                    return
                worth = _worth(links, other, mover)
                key = worth * 1e9 + (links[PLIES, other] if worth < 0 else 0)
                if key > best_key:
                    best, best_key = other, key
                other = links[SIBLING, other]
            child = best
        links[PROVEN, parent] = 1
        links[WORTH, parent] = links[WORTH, child]
        links[PLIES, parent] = links[PLIES, child] + 1


def _simulate(root_buf, work, scratch, n, nbr, aux, komi_half, out, stamp, path,
              links, stats, used, root, banned, sims, c, urgency, solve, seed, totals):
    """Run up to ``sims`` simulations from ``root`` (whose position is ``root_buf``);
    return how many ran (fewer when the node arrays are full). ``totals[0]`` gains
    side 0's returns, ``totals[1]`` side 1's. With ``solve`` the tree proves won and
    lost positions (two sides, nothing hidden: ``_prove_up``); a simulation that
    reaches a proven node takes its value, and selection skips the children proven
    lost for the mover while another is left."""
    capacity = links.shape[1]
    s = rng_seed(seed)
    done = 0
    banning = False              # some legal actions are banned, not all (all: none is)
    if not search_over(root_buf):
        count = search_legal(root_buf, scratch, n, nbr, aux, out)
        flagged = 0
        for i in range(count):
            flagged += banned[out[i]] != 0
        banning = 0 < flagged < count
    for _ in range(sims):
        if used[0] + 1 >= capacity:
            break
        work[:] = root_buf
        node = root
        mark = 0
        depth = 0
        path[0] = root
        over = search_over(work)
        known = False                            # the value is a proof's, not a playout's
        while not over:
            if links[PROVEN, node]:
                known = True
                break
            if links[SIDE, node] < 0:
                links[SIDE, node] = search_turn(work)
            mover = links[SIDE, node]
            at_root = node == root
            count = -1
            if links[LEGAL, node] < 0:
                count = search_legal(work, scratch, n, nbr, aux, out)
                links[LEGAL, node] = count
            untried = links[LEGAL, node] - links[TRIED, node]
            ban = at_root and banning
            if ban:                              # the banned ones count as tried
                if count < 0:
                    count = search_legal(work, scratch, n, nbr, aux, out)
                mark = _mark_tried(links, stamp, node)
                untried = 0
                for i in range(count):
                    a = out[i]
                    if stamp[1 + a] != mark and not banned[a]:
                        untried += 1
            best, best_score = 0, -np.inf
            if untried == 0 or urgency > 0.0:
                log_n = math.log(max(stats[0, node], 1.0))
                best, best_score = _best(links, stats, node, c, log_n, banned, ban, mover, True)
                if best == 0 and untried == 0:   # everything lost: choose among them all
                    best, best_score = _best(links, stats, node, c, log_n, banned, ban, mover,
                                             False)
            if untried > 0 and (best == 0 or best_score < urgency):
                if count < 0:
                    count = search_legal(work, scratch, n, nbr, aux, out)
                if not ban:
                    mark = _mark_tried(links, stamp, node)
                s = rng_next(s)
                k = rng_below(s, untried)
                chosen = -1
                for i in range(count):
                    a = out[i]
                    if stamp[1 + a] == mark or ban and banned[a]:
                        continue
                    if k == 0:
                        chosen = a
                        break
                    k -= 1
                new = used[0]
                used[0] = new + 1
                links[:, new] = 0
                links[ACTION, new] = chosen
                links[SIDE, new] = -1
                links[LEGAL, new] = -1
                stats[0, new] = 0.0
                stats[1, new] = 0.0
                links[SIBLING, new] = links[FIRST, node]
                links[FIRST, node] = new
                links[TRIED, node] += 1
                search_play(work, scratch, n, nbr, aux, chosen)
                depth += 1
                path[depth] = new
                node = new
                over = search_over(work)
                if not over:
                    s = rng_next(s)
                    search_playout(work, scratch, n, nbr, aux, np.int64(s >> np.uint64(1)))
                    break
                continue                         # the game ended: proven below
            if best == 0:
                raise ValueError("a position that is not over has no legal action")
            search_play(work, scratch, n, nbr, aux, links[ACTION, best])
            node = best
            depth += 1
            path[depth] = node
            over = search_over(work)
        if known:
            result = float(links[WORTH, node])
        else:
            lead = search_lead(work) - komi_half
            result = 1.0 if lead > 0 else -1.0 if lead < 0 else 0.0
            if over and solve and depth > 0 and not links[PROVEN, node]:
                links[PROVEN, node] = 1          # the game ended here
                links[WORTH, node] = int(result)
                links[PLIES, node] = 0
                _prove_up(links, path, depth)
        totals[0] += result
        totals[1] -= result
        stats[0, path[0]] += 1.0
        for d in range(1, depth + 1):
            parent, node = path[d - 1], path[d]
            stats[0, node] += 1.0
            stats[1, node] += result if links[SIDE, parent] == 0 else -result
        done += 1
    return done


_COMPILED: dict = {}
_BY_MODULE: dict = {}       # kernel module name -> its compiled copy (this process)
#: the folder that holds the ``boardlab`` package (where module names are looked up)
PACKAGE_ROOT = Path(__file__).resolve().parents[2]


def _imported(name: str, path: Path) -> set[str]:
    """The boardlab modules (and packages) that the module ``name`` (its file ``path``)
    imports anywhere in it, function bodies included."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = (package[:len(package) - node.level + 1] if node.level else [])
            base = base + (node.module.split(".") if node.module else [])
            found.add(".".join(base))
            found.update(".".join(base + [alias.name]) for alias in node.names)
    return {module for module in found if module.split(".")[0] == "boardlab"}


def _source(name: str, root: Path) -> Path | None:
    """The file of the boardlab module or package ``name`` under ``root``, if one."""
    base = root.joinpath(*name.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def source_closure(names, root: Path | None = None) -> dict[str, Path]:
    """The source files of the boardlab modules ``names`` and of every boardlab module
    they import, transitively (imports inside functions too): module name -> file,
    looked up under ``root`` (default: this installation's :data:`PACKAGE_ROOT`).
    A name that is not a module (an imported function's) is skipped."""
    root = PACKAGE_ROOT if root is None else root
    files: dict[str, Path] = {}
    todo = list(names)
    while todo:
        name = todo.pop()
        if name in files:
            continue
        path = _source(name, root)
        if path is None:
            continue
        files[name] = path
        todo.extend(_imported(name, path) - files.keys())
    return files


def cache_name(kernel, root: Path | None = None) -> str:
    """The name of ``kernel``'s compiled copy of the loop: the kernel module's short name
    and a digest of the source of every module that compiled code reaches, that is the
    transitive closure of the boardlab modules imported by the kernel and by this
    module (Carteso's and Rumbo's kernels inline ``territory_actions``; every kernel
    and this loop, ``kernels``)."""
    digest = hashlib.sha1()
    for name, path in sorted(source_closure([kernel.__name__, __name__], root).items()):
        digest.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    return f"{kernel.__name__.rsplit('.', 1)[-1]}_{digest.hexdigest()[:10]}"


def simulator(kernel):
    """:func:`_simulate` compiled with ``kernel``'s six search functions (cached).

    numba's disk cache checks only this file for changes, so the compiled copy is
    named after a digest of the source of every module the compiled code reaches
    (:func:`cache_name`): a change to any of them gets a new copy instead of a stale
    one. The digest is taken once a process per kernel module (reading the sources
    costs some 50 ms: taken at every move, it cost a search at 0.2 s a move a quarter
    of its time)."""
    known = _BY_MODULE.get(kernel.__name__)
    if known is not None:
        return known
    name = cache_name(kernel)
    if name not in _COMPILED:
        names = ("search_over", "search_turn", "search_legal", "search_play",
                 "search_playout", "search_lead")
        glob = dict(_simulate.__globals__)
        glob.update({key: getattr(kernel, key) for key in names})
        fn = types.FunctionType(_simulate.__code__, glob, f"_simulate__{name}")
        fn.__qualname__ = f"_simulate__{name}"     # numba's cache file is named after it
        fn.__module__ = __name__
        fn.__doc__ = _simulate.__doc__
        _COMPILED[name] = njit(cache=True)(fn)
    _BY_MODULE[kernel.__name__] = _COMPILED[name]
    return _COMPILED[name]
