"""Monte Carlo tree search for any registered game.

UCT with one value per seat (max^n: each node picks the child best for the
seat that acts there, so several players and teams need no sign flips), a
pluggable leaf evaluator (by default random rollouts through the game's fast
kernel, ``State.rollout``; see ``evaluators``), time and/or iteration
budgets that stop early once the choice is settled, and reuse of the tree
between moves. ``ismcts`` is single-observer information-set MCTS: every
iteration samples a new state consistent with the agent's view and walks
one shared tree of action sequences, counting how often each action was
available (its UCB uses that count).
"""
from __future__ import annotations

import math
import time

from ..core.errors import OptionError
from ..core.options import Option
from .base import Agent, register_agent
from .evaluators import EVALUATORS, make_evaluator
from .search_state import Sampler, pregame_hint, state_from_view

LEVELS = {1: dict(iterations=50, time=0.0), 2: dict(iterations=300, time=0.0),
          3: dict(time=0.3, iterations=0), 4: dict(time=1.0, iterations=0),
          5: dict(time=3.0, iterations=0)}


class Node:
    """Statistics of one tree node; ``stats[a] = [visits, value, available]``."""

    __slots__ = ("children", "stats")

    def __init__(self):
        self.children: dict[int, Node] = {}
        self.stats: dict[int, list] = {}

    def select(self, legal, c, rng):
        """An untried legal action, else the best by UCB among the legal ones."""
        untried = [a for a in legal if a not in self.stats]
        if untried:
            return rng.choice(untried)
        best, best_score = None, -math.inf
        for action in legal:
            visits, value, available = self.stats[action]
            score = value / visits + c * math.sqrt(math.log(max(available, 1)) / visits)
            if score > best_score:
                best, best_score = action, score
        return best


CHECK_EVERY = 32     # simulations between two early-stop checks
DECIDED_VISITS = 20  # each move's simulations before "won (or lost) every one" counts


def _simulations_left(done, limit, start, now, deadline):
    """Simulations the budget still allows (time converted at the rate so far)."""
    left = math.inf
    if limit:
        left = limit - done
    if deadline:
        left = min(left, done / max(now - start, 1e-9) * max(deadline - now, 0.0))
    return left


def settled(root, legal, left) -> bool:
    """Whether more search cannot change the move chosen at ``root``.

    Either the most visited legal action leads the next one by more than the
    ``left`` simulations still to come (the final choice is the most visited),
    or every legal action has had ``DECIDED_VISITS`` simulations and each
    ended in the same extreme return, 1 or -1 (the game is decided, as far as
    the search can tell).
    """
    visits = sorted((root.stats[a][0] for a in legal if a in root.stats), reverse=True)
    if not visits:
        return False
    runner_up = visits[1] if len(visits) > 1 else 0
    if visits[0] - runner_up > left:
        return True
    if len(visits) < len(legal) or visits[-1] < DECIDED_VISITS:
        return False
    means = {root.stats[a][1] / root.stats[a][0] for a in legal}
    return len(means) == 1 and abs(abs(means.pop()) - 1.0) < 1e-9


def _info_node(node, key):
    """``node`` as seen by its mover holding private information ``key``."""
    child = node.children.get(("info", key))
    if child is None:
        child = node.children[("info", key)] = Node()
    return child


def _child(node, state, action, mover):
    """Apply ``action`` to ``state`` and return ``node``'s child for it (made if new).

    A new child is also filed under the move's text, which tree reuse follows.
    """
    child = node.children.get(action)
    if child is not None:
        state.apply(action, seat=mover)
        return child
    text = state.action_to_string(action)
    state.apply(action, seat=mover)
    child = node.children[action] = node.children[("text", text)] = Node()
    return child


def _pooled(roots, legal):
    """``roots[0]``, or with several trees a node whose root statistics are their sums."""
    if len(roots) == 1:
        return roots[0]
    pooled = Node()
    for root in roots:
        for action, (visits, value, available) in root.stats.items():
            if action in legal:
                entry = pooled.stats.setdefault(action, [0, 0.0, 0])
                entry[0] += visits
                entry[1] += value
                entry[2] += available
    return pooled


def _mover(state):
    seats = state.acting_seats()
    return seats[0] if seats else None


@register_agent
class MCTS(Agent):
    """UCT over states rebuilt from the view (exact for perfect information)."""

    name = "mcts"
    description = "Monte Carlo tree search (UCT, per-seat values, kernel rollouts)"
    resample = False
    declared_options = (
        Option("time", float, 0.0, "seconds per move (0: no time limit)", minimum=0),
        Option("iterations", int, 1000, "simulations per move (0: no cap if a time limit "
               "applies, from the spec or --move-time, else 1000; a time alone: no cap)",
               minimum=0),
        Option("c", float, 1.4, "exploration constant of UCB", minimum=0),
        Option("evaluator", str, "rollout", "how a new leaf is valued: rollout (random play "
               "through the game's kernel) or heuristic (the game's quick estimate)",
               choices=tuple(EVALUATORS)),
        Option("rollout_turns", int, 200, "turns a rollout may play before it is ranked "
               "(games with long random play, e.g. Cartagena)", minimum=1),
        Option("reuse", bool, True, "keep the subtree of the moves actually played"),
        Option("early_stop", bool, True, "stop when the choice can no longer change (the most "
               "visited move cannot be caught in the budget left, or every move won or lost "
               "every simulation)"),
        Option("level", int, 0, "1 (weak) .. 5 (strong): 50 or 300 simulations, 0.3, 1 or "
               "3 s a move, instead of time/iterations (not with them); 0: no level",
               minimum=0, maximum=5),
        Option("determinizations", int, 1, "with hidden information: how many sampled states "
               "a move searches, each in its own tree, sharing the budget; the move with the "
               "most simulations over all trees is played (1 where nothing is hidden)",
               minimum=1),
    )

    def __init__(self, game, seat, seed=None, evaluator=None, **options):
        """``evaluator``: an object with ``evaluate(state, rng)`` (see ``evaluators``);
        it replaces the ``evaluator`` option."""
        if isinstance(evaluator, str):
            options["evaluator"] = evaluator
            evaluator = None
        super().__init__(game, seat, seed=seed, **options)
        self.evaluator = evaluator or make_evaluator(self.options["evaluator"],
                                                     self.options["rollout_turns"])
        self._set_limits(set(options))
        self.resample = self.resample and not game.perfect_information
        self.split = self._split_seats(game) if self.resample else frozenset()
        self.roots, self.root_history = [], None
        self.iterations_done = 0

    @property
    def root(self):
        """The tree of the last move (the first one, with several determinizations)."""
        return self.roots[0] if self.roots else None

    # The move ------------------------------------------------------------------------
    def act(self, view: dict, budget: dict | None = None) -> int:
        called = time.perf_counter()
        legal = view["legal_actions"]
        if len(legal) == 1:
            return legal[0]
        base = state_from_view(self.game, view, self.rng)
        action = pregame_hint(base, self.rng)
        if action is not None:
            return action
        stats = self._search(base, view, budget, called)
        return max(stats, key=lambda a: (stats[a][0], stats[a][1])) if stats else \
            self.rng.choice(legal)

    def analyse(self, view: dict, budget: dict | None = None) -> dict:
        """How the position of ``view`` stands, by the same search as :meth:`act`.

        ``{"estimate": {seat name: win chance 0..1}, "moves": [{"action", "visits",
        "win"}]}``: each seat's mean return over the simulations and each searched
        move's mean return for this seat (which acts), scaled from the game's
        ``utility_bounds`` to 0..1; the moves most visited first.
        """
        called = time.perf_counter()
        base = state_from_view(self.game, view, self.rng)
        totals = [0.0] * self.game.num_seats
        stats = self._search(base, view, budget, called, totals)
        low, high = self.game.utility_bounds

        def chance(value: float) -> float:
            return round(min(1.0, max(0.0, (value - low) / (high - low))), 4)

        done = max(self.iterations_done, 1)
        moves = [{"action": action, "visits": visits, "win": chance(value / visits)}
                 for action, (visits, value, _) in stats.items() if visits]
        moves.sort(key=lambda move: (-move["visits"], -move["win"], move["action"]))
        return {"estimate": {name: chance(total / done) for name, total in
                             zip(self.game.seat_names, totals)}, "moves": moves}

    def _search(self, base, view: dict, budget: dict | None, called: float,
                totals: list | None = None) -> dict:
        """Search from ``base`` within the budget; the root statistics of the legal
        actions (``[visits, value, available]``). ``totals`` (per seat) gains every
        simulation's returns."""
        legal = view["legal_actions"]
        seconds, limit = self._limits(budget)
        deadline = called + seconds if seconds else None
        worlds = self._worlds(base, view)
        roots = self._roots(view, len(worlds))
        sampler = Sampler(base, view, self.rng, self.options.get("worlds", 0)) \
            if self.resample else None
        done, start = 0, time.perf_counter()
        while True:
            tree = done % len(worlds)
            state = sampler.sample() if self.resample and done else worlds[tree].clone()
            returns = self._iterate(roots[tree], state)
            if totals is not None:
                for seat, value in enumerate(returns):
                    totals[seat] += value
            done += 1
            now = time.perf_counter() if deadline or done % CHECK_EVERY == 0 else 0.0
            if limit and done >= limit or deadline and now >= deadline:
                break
            if done % CHECK_EVERY == 0 and self.options["early_stop"]:
                left = _simulations_left(done, limit, start, now, deadline)
                if settled(_pooled(roots, legal), legal, left):
                    break
        self.iterations_done = done
        return {a: s for a, s in _pooled(roots, legal).stats.items() if a in legal}

    # Budgets -------------------------------------------------------------------------
    def _set_limits(self, given):
        """Resolve ``level``, and ``time`` without ``iterations`` (uncapped), at creation."""
        if self.options["level"]:
            clash = sorted(given & {"time", "iterations"})
            if clash:
                raise OptionError(f"agent {self.name!r}: 'level' sets the time and the "
                                  f"iterations itself; give level or {' and '.join(clash)}, "
                                  f"not both")
            self.options.update(LEVELS[self.options["level"]])
        elif self.options["time"] and "iterations" not in given:
            self.options["iterations"] = 0       # mcts(time=1) means one second, uncapped
        self.capped = bool(self.options["level"]) or \
            "iterations" in given and self.options["iterations"] > 0
        if not self.options["time"] and not self.options["iterations"]:
            self.options["iterations"] = 1000

    def _limits(self, budget):
        """This move's (seconds, simulations): the caller's budget over the options.

        Zeros in ``budget`` are ignored, so some limit always holds. A budget's
        time lifts the default cap of 1000 simulations (a runner's ``--move-time``
        means that time), but not a cap the spec or the level asked for.
        """
        limits = {k: self.options[k] for k in ("time", "iterations")}
        given = {k: v for k, v in (budget or {}).items() if k in limits and v}
        if "time" in given and not self.capped:
            limits["iterations"] = 0
        limits.update(given)
        return limits["time"], limits["iterations"]

    def _split_seats(self, game):
        """The seats whose decisions get one statistic per private information (hand)."""
        if not game.private_hands:
            return frozenset()
        seats = set()
        if self.options.get("opponents") == "informed":
            seats.update(set(range(game.num_seats)) - {self.seat})
        if self.options.get("own") == "split":
            seats.add(self.seat)
        return frozenset(seats)

    def _worlds(self, base, view):
        """The states this move searches: ``base`` and, with hidden information and
        ``determinizations=K``, K-1 further samples of the view."""
        count = self.options.get("determinizations", 1)
        if self.resample or self.game.perfect_information or count == 1:
            return [base]
        return [base] + [state_from_view(self.game, view, self.rng) for _ in range(count - 1)]

    def _roots(self, view, count):
        """One root per searched state: the subtrees of the moves played since the last
        move where ``reuse`` keeps them, else new ones."""
        self.roots = [self._reused(root, view["history"]) or Node()
                      for root in (self.roots + [None] * count)[:count]]
        self.root_history = list(view["history"])
        return self.roots

    def _reused(self, node, history):
        """``node``'s descendant along the moves played since, if reuse keeps it."""
        if not self.options["reuse"] or node is None or \
                history[:len(self.root_history)] != self.root_history:
            return None
        for text in history[len(self.root_history):]:
            node = node.children.get(("text", text)) if node else None
        return node

    def _iterate(self, root, state):
        c, rng = self.options["c"], self.rng
        path, node = [], root
        while not state.is_terminal():
            if state.is_chance():                # a chance node: sample, keep no statistics
                node = _child(node, state, state.sample_chance(rng), None)
                continue
            mover = _mover(state)
            if node is root and self.seat in state.acting_seats():
                mover = self.seat                # several act at once: search for itself
            if mover in self.split and (node is not root or mover != self.seat):
                node = _info_node(node, state.private_key(mover))
            legal = state.legal_actions_for(mover)
            for action in legal:
                if action in node.stats:
                    node.stats[action][2] += 1
            action = node.select(legal, c, rng)
            expanding = action not in node.stats
            if expanding:
                node.stats[action] = [0, 0.0, 1]
            path.append((node, action, mover))
            node = _child(node, state, action, mover)
            if expanding:
                break
        returns = state.returns() if state.is_terminal() else \
            self.evaluator.evaluate(state, rng)
        for node, action, mover in path:
            entry = node.stats[action]
            entry[0] += 1
            entry[1] += returns[mover]
        return returns


@register_agent
class ISMCTS(MCTS):
    """Single-observer information-set MCTS: every simulation runs on a determinization,
    a new one where the game deals one cheaply, else one of a cycled pool (``Sampler``).

    The tree is kept between moves, as in ``mcts``: the subtree of the moves
    played holds statistics of samples that agreed with those moves (an
    opponent's branch is only entered in samples where its move was legal).
    Measured in Cartagena: 59.2% of 200 games against ``mcts`` with it, about 54%
    without (docs/agents.md). Under ``opponents=informed`` or ``own=split`` the kept
    subtree stops at the first decision split by hand.
    """

    name = "ismcts"
    description = ("information-set MCTS: searches over samples of the hidden cards/squares "
                   "(a new one every simulation where dealing one is cheap, else 64 cycled)")
    resample = True
    declared_options = tuple(o for o in MCTS.declared_options
                             if o.name != "determinizations") + (
        Option("opponents", str, "fused", "fused: one statistic per opponent decision over "
               "all samples; informed: opponents decide on their own private information "
               "(their hand), one statistic per hand they may hold", choices=("fused", "informed")),
        Option("own", str, "fused", "fused: one statistic per own decision below the root over "
               "all samples; split: one per hand the agent may hold there (its draws are "
               "unknown until made)", choices=("fused", "split")),
        Option("worlds", int, 0, "determinizations per move: 0, a new one every simulation "
               "(where the game can deal one cheaply, else 64); K, the first K simulations "
               "sample them and later ones cycle through them", minimum=0),)
