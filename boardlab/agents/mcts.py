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

Where a game's kernel offers a compiled view of the position (Carteso and Rumbo
in play) whole simulations run compiled (``kernel_tree``), about three times as
many a second; the root's statistics then come back to a Python ``Node`` between
batches, where everything below works the same.

In perfect-information games of two sides the search is also an MCTS-solver:
a node whose game-theoretic value is known (the game ended there, its mover
has a proven win, or all its moves are proven) is marked ``proven``; selection
then never enters a proven loss while a move is left that is not one, follows
a proven win at once, and the move played is a proven win when there is one and
never a proven loss while another move is not proven lost. See ``Node`` and
``MCTS._choice``.
"""
from __future__ import annotations

import math
import time

import numpy as np

from ..core.errors import OptionError
from ..core.game import CHANCE, SIMULTANEOUS, TERMINAL
from ..core.options import Option
from . import mcts_tree as tree
from .base import Agent, register_agent
from .evaluators import EVALUATORS, HorizonEvaluator, blended, make_evaluator
from .search_state import Sampler, pregame_hint, state_from_view



class Node:
    """One tree node: its children, the statistics of its tried actions, the solver's marks.

    ``stats`` reads (and, for tests and tools, sets) the statistics as a dict
    ``{action: [visits, value, available]}`` in the order the actions were first
    tried; the search keeps them in arrays (``mcts_tree``): ``slots`` maps an
    action to its column of ``table``, ``where`` the current legal list (``legal``,
    ``acts``, for ``mover``) to those columns, ``open`` counts its untried actions.
    Where a node always stands for the same position (``MCTS.fixed``) it also
    keeps who acts there: ``player`` and ``acting``. The listed walk
    (``MCTS._iterate_listed``) keeps ``slot_map`` instead of ``where``: every
    action's column, or ``mcts_tree.UNTRIED``.

    The solver's marks (``MCTS.solving`` only; else they stay empty):
    ``proven`` is the node's value, one return per seat, once it is known (the
    game is over there, or ``_prove`` showed it); ``best`` is then the action
    that achieves it and ``plies`` how many moves its proof takes to the end.
    ``lost`` holds the actions whose child is a proven loss for the node's mover
    (the lowest return the game gives); ``mask`` flags them in the legal list.
    """

    __slots__ = ("children", "proven", "best", "plies", "lost", "slots", "table", "where",
                 "legal", "acts", "mover", "open", "mask", "player", "acting", "logits",
                 "prior", "slot_map")

    def __init__(self):
        self.children: dict = {}
        self.proven: tuple | None = None
        self.best: int | None = None
        self.plies = 0
        self.lost: set | None = None
        self.slots: dict | None = None
        self.table = self.where = self.legal = self.acts = self.mask = None
        self.mover = self.player = self.acting = None
        self.open = 0
        self.logits = self.prior = None     # a network's scores of every action, the
        #                                     priors of the legal ones (PUCT): see choose
        self.slot_map = None                # by action, MCTS._iterate_listed's only

    @property
    def stats(self) -> dict:
        if not self.slots:
            return {}
        used, table = len(self.slots), self.table
        visits = table[tree.VISITS, :used].tolist()
        values = table[tree.VALUE, :used].tolist()
        available = table[tree.AVAILABLE, :used].tolist()
        return {action: [int(v), w, int(a)]
                for action, v, w, a in zip(self.slots, visits, values, available)}

    @stats.setter
    def stats(self, entries: dict):
        self.slots = {action: slot for slot, action in enumerate(entries)}
        self.table = np.zeros((3, max(len(entries), 1)))
        for slot, (visits, value, available) in enumerate(entries.values()):
            self.table[:, slot] = visits, value, available
        self.where = self.legal = self.acts = self.mask = self.mover = self.slot_map = None

    def entries(self, actions) -> tuple[list, list]:
        """The visits and values of those of ``actions`` that were tried, in their order."""
        slots = self.slots or {}
        chosen = [slots[a] for a in actions if a in slots]
        if not chosen:
            return [], []
        return ([int(v) for v in self.table[tree.VISITS].take(chosen).tolist()],
                self.table[tree.VALUE].take(chosen).tolist())

    def legal_list(self) -> list:
        """The legal actions of the last pass (for the solver)."""
        return self.legal if self.acts is None else self.acts.tolist()

    def know_legal(self, legal, mover, keep: bool):
        """Map the legal list of this pass to the statistics. ``keep``: remember the list
        itself (to compare the next pass's with), else only as an array (``acts``)."""
        slots = self.slots
        if slots is None:                        # a new node: nothing tried yet
            self.slots, self.table = {}, np.zeros((3, 4))
            self.where, self.open = tree.untried_row(len(legal)), len(legal)
        else:
            where = [slots.get(a, tree.UNTRIED) for a in legal]
            self.where = np.array(where, dtype=np.int32)
            self.open = where.count(tree.UNTRIED)
        self.legal = list(legal) if keep else None  # a copy: the game may reuse its list
        self.acts = None if keep else np.array(legal, dtype=np.int32)
        self.mover = mover
        self.mask = self.prior = None

    def _lost_mask(self):
        mask = self.mask
        if mask is None:
            lost = self.lost
            mask = np.array([a in lost for a in self.legal_list()], dtype=np.uint8)
            if mask.all():
                mask = tree.NO_MASK              # all lost: choose among them all
            self.mask = mask
        return mask

    def choose(self, c, rng, puct=None, urgency=0.0) -> tuple[int, int, bool]:
        """One pass: count the tried legal actions available, choose an action.

        The proven best action of a proven node; else, where the node has a
        network's ``logits`` and ``puct`` is (c_puct, fpu_reduction), the best by
        PUCT over its priors (``mcts_tree.select_puct``); else an untried legal
        action (uniformly), else the best by UCB among the legal ones (with
        ``urgency`` > 0 an untried action only while no tried one scores that
        much by UCB: ``mcts_tree.select``); proven losses only where all are.
        Returns (action, its slot, whether it was untried: it now has a slot
        with no visit yet).
        """
        where, table, used = self.where, self.table, len(self.slots)
        mask, k, pick = tree.NO_MASK, -1, -1
        if self.best is None and puct is not None and self.logits is not None:
            if self.prior is None:
                self.prior = tree.softmax_of(self.logits, self.legal_list())
            if self.lost:
                mask = self._lost_mask()
            if used == table.shape[1]:
                table = self.table = np.concatenate((table, np.zeros_like(table)), axis=1)
            i, slot = tree.select_puct(where, table, self.prior, mask, puct[0], puct[1], used)
        else:
            if self.best is not None:
                pick = self.legal_list().index(self.best)
            elif not self.lost:
                if self.open:
                    k = rng.choice(range(self.open))
            else:
                mask = self._lost_mask()
                count = tree.untried(where, mask)
                if count:
                    k = rng.choice(range(count))
            if (k >= 0 or pick >= 0) and used == table.shape[1]:    # room for a new column
                table = self.table = np.concatenate((table, np.zeros_like(table)), axis=1)
            i, slot = tree.select(where, table, mask, c, tree.LOGS, k, pick, used, urgency)
        action = self.legal[i] if self.acts is None else self.acts.item(i)
        if slot < used:
            return action, slot, False
        self.slots[action] = slot
        self.open -= 1
        return action, slot, True

    def leader(self, allowed: set, lost) -> int:
        """The tried action of ``allowed`` the root would play: not proven lost, most
        visited, highest value, the first tried of equals (ValueError if none)."""
        slots = self.slots or {}
        skip = np.zeros(len(slots), dtype=np.uint8)
        for action in lost:
            if action in slots:
                skip[slots[action]] = 1
        if not allowed.issuperset(slots):
            for slot, action in enumerate(slots):
                if action not in allowed:
                    skip[slot] = 2
        slot = tree.leader(self.table, len(slots), skip) if slots else -1
        if slot < 0:
            raise ValueError("no tried action is allowed")
        return list(slots)[slot]


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
    visits, values = root.entries(legal)
    if not visits:
        return False
    ranked = sorted(visits, reverse=True)
    runner_up = ranked[1] if len(ranked) > 1 else 0
    if ranked[0] - runner_up > left:
        return True
    if len(ranked) < len(legal) or ranked[-1] < DECIDED_VISITS:
        return False
    means = {value / count for count, value in zip(visits, values)}
    return len(means) == 1 and abs(abs(means.pop()) - 1.0) < 1e-9


def _map_slots(node, size):
    """Give ``node`` its ``slot_map`` (``size`` actions), and its statistics if new."""
    node.slot_map = tree.new_slot_map(size)
    if node.slots is None:                   # a new node: nothing tried yet
        node.slots, node.table = {}, np.zeros((3, 4))
    for action, slot in node.slots.items():
        node.slot_map[action] = slot


def _info_node(node, key):
    """``node`` as seen by its mover holding private information ``key``."""
    child = node.children.get(("info", key))
    if child is None:
        child = node.children[("info", key)] = Node()
    return child


def _child(node, state, action, mover, player):
    """Apply ``action`` to ``state`` and return ``node``'s child for it (made if new).

    ``action`` comes from the state's own legal list (or chance outcomes), so it is
    applied unchecked (``player``: the state's ``current_player()``). A new child is
    also filed under the move's text, which tree reuse follows.
    """
    child = node.children.get(action)
    if child is not None:
        state.apply_unchecked(action, mover, player)
        return child
    text = state.action_to_string(action)
    state.apply_unchecked(action, mover, player)
    child = node.children[action] = node.children[("text", text)] = Node()
    return child


def _prove(node, action, legal, mover, bounds) -> bool:
    """Take in that ``node``'s child for ``action`` is proven; whether ``node`` now is.

    ``node`` is a decision node of ``mover`` with the ``legal`` actions, and
    ``bounds`` the game's lowest and highest return. A child that gives the mover
    the highest return proves the node at once (the mover takes it); one that
    gives the lowest is a proven loss, never chosen while another move is not;
    once every legal action is proven, the node is worth the best of them for
    its mover, and of several losses the one that ends the game latest (the
    opponent must still find the win: a pass that the reply pass wins loses in
    two moves). In a game of two sides that is minimax, so the proof is sound.
    """
    if node.proven is not None:
        return False
    children = node.children
    value = children[action].proven
    if value[mover] >= bounds[1]:
        _settle(node, action)
        return True
    if value[mover] <= bounds[0]:
        node.lost = node.lost or set()
        node.lost.add(action)
        node.mask = None                     # selection's flags of the lost actions
    if any(a not in children or children[a].proven is None for a in legal):
        return False

    def rank(a):
        worth = children[a].proven[mover]
        return worth, children[a].plies if worth <= bounds[0] else 0
    _settle(node, max(legal, key=rank))
    return True


def _settle(node, action):
    """``node`` is proven: worth its child for ``action``, one move more to the end."""
    child = node.children[action]
    node.proven, node.best, node.plies = child.proven, action, child.plies + 1


def _pooled(roots, legal):
    """``roots[0]``, or with several trees a node whose root statistics are their sums."""
    if len(roots) == 1:
        return roots[0]
    pooled: dict = {}
    for root in roots:
        for action, (visits, value, available) in root.stats.items():
            if action in legal:
                entry = pooled.setdefault(action, [0, 0.0, 0])
                entry[0] += visits
                entry[1] += value
                entry[2] += available
    node = Node()
    node.stats = pooled
    return node


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
        Option("c", float, 0.0, "exploration constant of UCB (0: the one measured for the "
               "game, listed per game by `boardlab agents`)", minimum=0),
        Option("urgency", float, 0.0, "first-play urgency of UCB: with U > 0 a node tries a "
               "new move only while no tried move scores U or more (0: every move is tried "
               "once before any is tried again)", minimum=0),
        Option("evaluator", str, "rollout", "how a new leaf is valued: rollout (random play "
               "through the game's kernel), heuristic (the game's quick estimate) or net (a "
               "trained network's value, its priors guiding the search by PUCT)",
               choices=tuple(EVALUATORS) + ("net",)),
        Option("net", str, "", "evaluator=net: the network file (default: the one shipped "
               "for the game's spec, see docs/learning.md)"),
        Option("c_puct", float, 1.5, "evaluator=net: exploration constant of PUCT",
               minimum=0),
        Option("priors", bool, True, "evaluator=net: its priors guide the search by PUCT "
               "(false: UCT, the network valuing the leaves only)"),
        Option("mix", float, 0.0, "evaluator=net: a leaf is worth this share of a rollout's "
               "value and the rest of the network's (0.5: half each; 0: the network alone)",
               minimum=0, maximum=1),
        Option("net_at", str, "", "evaluator=net: where the network values a "
               "simulation: at its new leaf, or (horizon) where the leaf's rollout stops, "
               "in games whose rollouts stop at a horizon (the searching team's next "
               "turn), with no priors; empty: where the network was trained to be "
               "asked (horizon for one trained on the starts of turns, else leaf)",
               choices=("", "leaf", "horizon")),
        Option("fpu", float, 0.2, "evaluator=net: an untried move counts as the node's mean "
               "value less this (first-play urgency)", minimum=0),
        Option("playout", str, "", "how a rollout plays: random, or a policy the game offers "
               "(guided: nine times in ten the action its game judges best at a glance; "
               "tactical: judged from the pieces around the squares it touches); empty: the "
               "game's own choice (what each game offers and chooses: `boardlab agents`, "
               "per game)"),
        Option("rollout_turns", int, 0, "turns a rollout may play before the position is "
               "valued (0: the game's own, listed per game by `boardlab agents`)", minimum=0),
        Option("horizon", bool, True, "where the game offers it, every rollout of a move's "
               "search stops at the same turn, rollout_turns after the turn in play at "
               "the position searched (false: counted from each rollout's own start)"),
        Option("reuse", bool, True, "keep the subtree of the moves actually played"),
        Option("early_stop", bool, True, "stop when the choice can no longer change (the most "
               "visited move cannot be caught in the budget left, or every move won or lost "
               "every simulation)"),
        Option("level", int, 0, "1 (weak) .. 5 (strong): the game's simulations a move "
               "(listed per game by `boardlab agents`), instead of time/iterations (not with "
               "them); 0: no level",
               minimum=0, maximum=5),
        Option("determinizations", int, 1, "with hidden information: how many sampled states "
               "a move searches, each in its own tree, sharing the budget; the move with the "
               "most simulations over all trees is played (1 where nothing is hidden)",
               minimum=1),
        Option("solver", bool, True, "prove won and lost positions (games of two sides with "
               "nothing hidden): play a proven win at once, never a proven loss while another "
               "move is not one (e.g. a pass that the reply pass wins)"),
        Option("compiled", bool, True, "run whole simulations compiled where the game's "
               "kernel offers it (docs/agents.md, \"Compiled simulations\": in play, with the "
               "rollout evaluator and random playouts, about three times the simulations a "
               "second); false: the Python tree"),
        Option("workers", int, 1, "processes that search each move at once, each with its "
               "own tree and seed, their root statistics added up (root parallelism; one "
               "core each)", minimum=1, maximum=64),
    )

    def __init__(self, game, seat, seed=None, evaluator=None, **options):
        """``evaluator``: an object with ``evaluate(state, rng)`` (see ``evaluators``);
        it replaces the ``evaluator`` option."""
        if isinstance(evaluator, str):
            options["evaluator"] = evaluator
            evaluator = None
        super().__init__(game, seat, seed=seed, **options)
        if not self.options["c"]:
            self.options["c"] = game.exploration
        if not self.options["playout"]:
            self.options["playout"] = game.playout
        if not self.options["rollout_turns"]:
            self.options["rollout_turns"] = game.rollout_turns
        game.check_playout(self.options["playout"])
        self.given_options = {**options, "workers": 1}   # what each helper process gets
        self.helpers = None                                # started by the first act
        if evaluator is not None and self.options["workers"] > 1:
            raise OptionError(f"agent {self.name!r}: 'workers' needs a named evaluator "
                              f"(rollout, heuristic or net), not an object of this process")
        if evaluator is None and self.options["evaluator"] == "net":
            from ..learn.features import BoardFeatures
            from ..learn.net import NetworkEvaluator, load_network
            features = BoardFeatures(game)      # made once: it plays a few moves to learn
            network = NetworkEvaluator(game, load_network(game, self.options["net"], features),
                                       features)
            priors = self.options["priors"]
            self.options["net_at"] = self.options["net_at"] or network.network.asked_at
            if self.options["net_at"] == "horizon":
                if "priors" in options and self.options["priors"]:     # asked for
                    raise OptionError(f"agent {self.name!r}: net_at=horizon gives no priors "
                                      f"(the network sees the horizon, not the leaf): "
                                      f"leave out priors=true")
                if not self.options["horizon"]:
                    raise OptionError(f"agent {self.name!r}: net_at=horizon stops every "
                                      f"rollout at the search's horizon: leave out "
                                      f"horizon=false")
                if game.new_initial_state().rollout_horizon(1) is None:
                    raise OptionError(f"agent {self.name!r}: net_at=horizon needs a game "
                                      f"whose rollouts stop at a horizon; {game.name}'s "
                                      f"play to the end (use net_at=leaf)")
                network, priors = HorizonEvaluator(network, self.options["rollout_turns"],
                                                   self.options["playout"]), False
            evaluator = blended(network, make_evaluator("rollout", self.options["rollout_turns"],
                                                        self.options["playout"],
                                                        self.options["horizon"]),
                                self.options["mix"], priors)
        self.evaluator = evaluator or make_evaluator(self.options["evaluator"],
                                                     self.options["rollout_turns"],
                                                     self.options["playout"],
                                                     self.options["horizon"])
        # An evaluator that gives priors guides the search by PUCT (Node.choose).
        self.guided = hasattr(self.evaluator, "evaluate_with_priors")
        self.puct = (self.options["c_puct"], self.options["fpu"]) if self.guided else None
        self._set_limits(set(options))
        self.resample = self.resample and not game.perfect_information
        self.split = self._split_seats(game) if self.resample else frozenset()
        self.solving = self._solvable(game)
        # Nothing hidden and no chance drawn inside a move: a node always stands for the
        # same position, so it may keep who acts there and the legal actions (_iterate).
        self.fixed = game.perfect_information and not self.resample and \
            game.chance in ("none", "explicit")
        # Plain UCT where nodes need not stand for one position, in a game whose states
        # list their legal actions in an array: the quicker walk (_iterate_listed).
        self.listed = game.listed_search and not self.fixed and not self.solving \
            and not self.guided and not self.options["urgency"]
        # Whole simulations compiled (kernel_tree) where the position offers it: UCT over
        # the kernel's rollouts, so not with another evaluator or a network's priors.
        self.compiled = self.options["compiled"] and self.fixed and evaluator is None \
            and self.options["evaluator"] == "rollout" and not self.guided \
            and self.options["playout"] == "random"
        self.ktree = self.kroot = self.kmoves = None    # the compiled tree kept for reuse
        self.simulations = 0                # over the agent's life: bounds every count
        self.roots, self.root_history = [], None
        self.iterations_done = 0
        self.estimate = None                # each seat's mean return in the last act's search
        self._checked: set[int] = set()     # root actions whose replies _check looked at

    @property
    def root(self):
        """The tree of the last move (the first one, with several determinizations)."""
        return self.roots[0] if self.roots else None

    # The move ------------------------------------------------------------------------
    def act(self, view: dict, budget: dict | None = None) -> int:
        called = time.perf_counter()
        legal = view["legal_actions"]
        self.estimate = None
        if len(legal) == 1:
            return legal[0]
        base = state_from_view(self.game, view, self.rng)
        action = pregame_hint(base, self.rng)
        if action is not None:
            return action
        if self.options["workers"] > 1:
            return self._parallel_act(base, view, budget, called)
        totals = [0.0] * self.game.num_seats
        stats = self._search(base, view, budget, called, totals)
        self.estimate = [total / max(self.iterations_done, 1) for total in totals]
        if not stats:
            return self.rng.choice(legal)
        if not self.solving:
            return max(stats, key=lambda a: (stats[a][0], stats[a][1]))
        action = self._choice(self.roots[0], base, legal)
        lost = self.roots[0].lost or ()
        unknown = [a for a in legal if a not in stats and a not in lost]
        return self.rng.choice(unknown) if action in lost and unknown else action

    def summary(self, view: dict, budget: dict | None, called: float, base=None) -> dict:
        """A search of ``view`` as root parallelism adds it up (``parallel.merge``): the
        root's ``stats`` (action: visits, summed value), and with the solver the move it
        would play (``choice``), whether the root is ``proven``, the moves proven ``lost``."""
        if base is None:
            base = state_from_view(self.game, view, self.rng)
        legal = view["legal_actions"]
        stats = self._search(base, view, budget, called)
        out = {"stats": {a: (s[0], s[1]) for a, s in stats.items()}, "choice": None,
               "proven": False, "lost": []}
        if self.solving and stats:
            root = self.roots[0]
            out["choice"] = self._choice(root, base, legal)
            out["proven"] = root.proven is not None
            out["lost"] = sorted(a for a in root.lost or () if a in legal)
        return out

    def _parallel_act(self, base, view, budget, called) -> int:
        from .parallel import GRACE, Helpers, merge
        if self.helpers is None:
            seeds = [self.rng.randrange(2 ** 63) for _ in range(self.options["workers"] - 1)]
            self.helpers = Helpers(type(self), self.game.spec, self.seat, seeds,
                                   self.given_options)
        seconds = self._limits(budget)[0]
        self.helpers.ask(view, budget, called)
        try:
            own = self.summary(view, budget, called, base)
        finally:         # under a time limit, a helper late by more than GRACE is left out
            others = self.helpers.gather(called + seconds + GRACE if seconds else None)
        return merge([own, *others], view["legal_actions"], self.rng)

    def close(self, returns: list[float] | None = None) -> None:
        if self.helpers is not None:
            self.helpers.close()
            self.helpers = None

    def analyse(self, view: dict, budget: dict | None = None) -> dict:
        """How the position of ``view`` stands, by the same search as :meth:`act`.

        ``{"estimate": {seat name: win chance 0..1}, "moves": [{"action", "visits",
        "win"}]}``: each seat's mean return over the simulations and each searched
        move's mean return for this seat (which acts), or its value where the solver
        proved it, scaled from the game's ``utility_bounds`` to 0..1; the moves most
        visited first.
        """
        called = time.perf_counter()
        base = state_from_view(self.game, view, self.rng)
        mover = _mover(base)
        totals = [0.0] * self.game.num_seats
        stats = self._search(base, view, budget, called, totals)
        low, high = self.game.utility_bounds

        def chance(value: float) -> float:
            return round(min(1.0, max(0.0, (value - low) / (high - low))), 4)

        def worth(action: int, visits: int, value: float) -> float:
            child = self.roots[0].children.get(action) if self.solving else None
            return child.proven[mover] if child is not None and child.proven is not None \
                else value / visits

        done = max(self.iterations_done, 1)
        moves = [{"action": action, "visits": visits, "win": chance(worth(action, visits, value))}
                 for action, (visits, value, _) in stats.items() if visits]
        moves.sort(key=lambda move: (-move["visits"], -move["win"], move["action"]))
        return {"estimate": {name: chance(total / done) for name, total in
                             zip(self.game.seat_names, totals)}, "moves": moves}

    def _search(self, base, view: dict, budget: dict | None, called: float,
                totals: list | None = None) -> dict:
        """Search from ``base`` within the budget; the root statistics of the legal
        actions (``[visits, value, available]``). ``totals`` (per seat) gains every
        simulation's returns."""
        if self.compiled:
            position = base.search_kernel()
            if position is not None:
                return self._search_compiled(position, base, view, budget, called, totals)
        legal = view["legal_actions"]
        seconds, limit = self._limits(budget)
        deadline = called + seconds if seconds else None
        worlds = self._worlds(base, view)
        roots = self._roots(view, len(worlds))
        sampler = Sampler(base, view, self.rng, self.options.get("worlds", 0)) \
            if self.resample else None
        self._checked = set()
        begin = getattr(self.evaluator, "begin", None)
        if begin is not None:                    # e.g. one horizon for every rollout
            begin(base)
        if self.guided:                          # the roots' priors
            for root, world in zip(roots, worlds):
                if root.logits is None and not world.is_terminal():
                    root.logits = self.evaluator.evaluate_with_priors(world, self.rng)[1]
                    root.prior = None
        if self.solving and roots[0].proven is None:
            self._scan(roots[0], base)           # the moves that end the game at once
        done, start = 0, time.perf_counter()
        while True:
            which = done % len(worlds)
            self.simulations += 1
            if self.simulations >= len(tree.LOGS):
                tree.logs_for(self.simulations)  # no available count exceeds it
            state = sampler.sample() if self.resample and done else worlds[which].clone()
            returns = self._iterate(roots[which], state)
            if totals is not None:
                for seat, value in enumerate(returns):
                    totals[seat] += value
            done += 1
            now = time.perf_counter() if deadline or done % CHECK_EVERY == 0 else 0.0
            if limit and done >= limit or deadline and now >= deadline:
                break
            root = roots[0]
            if self.solving and root.proven is not None and self.options["early_stop"]:
                break                            # the search can change nothing more
            if done % CHECK_EVERY == 0:
                if self.solving:                 # the leader gets a look at its replies
                    self._choice(root, base, legal)
                if self.options["early_stop"]:
                    left = _simulations_left(done, limit, start, now, deadline)
                    if settled(_pooled(roots, legal), self._open(root, legal), left):
                        break
        self.iterations_done = done
        return {a: s for a, s in _pooled(roots, legal).stats.items() if a in legal}

    def _search_compiled(self, position, base, view, budget, called, totals) -> dict:
        """:meth:`_search` with the simulations run compiled (``kernel_tree``), a batch
        at a time; between batches the root's statistics go to a Python node
        (``self.roots[0]``), where the budget, the early stop and the solver's looks
        ahead (``_scan``, ``_choice``) work as in the Python tree, the moves they prove
        lost being banned from the next batches."""
        from . import kernel_tree

        kernel, buf, scratch, n, nbr, aux, komi_half, seat_of_side = position
        legal = view["legal_actions"]
        seconds, limit = self._limits(budget)
        deadline = called + seconds if seconds else None
        tree, node = self._compiled_root(base)
        simulate = kernel_tree.simulator(kernel)
        size = self.game.num_actions + 1
        work = buf.copy()
        out = np.empty(size, dtype=np.int32)
        stamp = np.zeros(size + 1, dtype=np.int64)
        path = np.zeros(self.game.max_game_length + 2, dtype=np.int64)
        banned = np.zeros(size, dtype=np.uint8)
        sides = np.zeros(2)
        root = Node()
        self.roots, self.root_history = [root], list(view["history"])
        self._checked = set()
        if self.solving:
            self._scan(root, base)               # the moves that end the game at once
        done, start = 0, time.perf_counter()
        batch = 1 if root.proven is not None else CHECK_EVERY   # proven: one is enough
        while True:
            count = batch if not limit else min(batch, limit - done)
            while tree.used[0] + count + 1 >= tree.capacity:
                tree.grow()
            for action in root.lost or ():       # proven losses: never chosen at the root
                banned[action] = 1
            if root.proven is not None:          # proven: the simulations follow the proof
                banned[:] = 1
                banned[root.best] = 0
            ran = simulate(buf, work, scratch, n, nbr, aux, komi_half, out, stamp, path,
                             tree.links, tree.stats, tree.used, node, banned, count,
                             self.options["c"], self.options["urgency"], self.solving,
                             self.rng.randrange(2 ** 62), sides)
            done += ran
            self.simulations += ran
            self._shadow(root, tree.children(node), base, legal, seat_of_side)
            now = time.perf_counter()
            if limit and done >= limit or deadline and now >= deadline:
                break
            if self.solving and root.proven is not None and self.options["early_stop"]:
                break
            if self.solving:                     # the leader gets a look at its replies
                self._choice(root, base, legal)
            if self.options["early_stop"]:
                left = _simulations_left(done, limit, start, now, deadline)
                if settled(root, self._open(root, legal), left):
                    break
            if deadline:                         # about a hundredth of the time left
                rate = done / max(now - start, 1e-9)
                batch = int(min(4 * CHECK_EVERY, max(CHECK_EVERY, rate * (deadline - now) / 100)))
            else:
                batch = 4 * CHECK_EVERY
        self.iterations_done = done
        if totals is not None:
            for side, seat in enumerate(seat_of_side):
                totals[seat] += sides[side]
        return {a: s for a, s in root.stats.items() if a in legal}

    def _shadow(self, root, children, base, legal, seat_of_side):
        """Give the Python ``root`` the compiled root's statistics, a child node for each
        tried action (for ``_check``) and the proofs found below it (``_prove``)."""
        root.stats = {a: [v, w, v] for a, (v, w, _) in children.items()}
        mover = None
        for action, (_, _, worth) in children.items():
            child = root.children.get(action)
            if child is None:
                child = root.children[action] = Node()
            if worth is None or child.proven is not None:
                continue
            returns = [0.0, 0.0]
            returns[seat_of_side[0]], returns[seat_of_side[1]] = worth[0], -worth[0]
            child.proven, child.plies = tuple(float(r) for r in returns), worth[1]
            if mover is None:
                mover = _mover(base)
            _prove(root, action, legal, mover, self.game.utility_bounds)

    def _compiled_root(self, base):
        """The compiled tree and the node of ``base``: the subtree of the moves played
        since the last search where ``reuse`` keeps it, else a new tree."""
        from .kernel_tree import REUSE_NODES, Tree

        moves = [move[1] for move in base.history]
        tree, node = self.ktree, self.kroot
        if self.options["reuse"] and tree is not None and \
                moves[:len(self.kmoves)] == self.kmoves and tree.used[0] < REUSE_NODES:
            for action in moves[len(self.kmoves):]:
                node = tree.child(node, action) if node else 0
        else:
            node = 0
        if not node:
            tree = Tree()
            node = tree.root
        self.ktree, self.kroot, self.kmoves = tree, node, moves
        return tree, node

    # Budgets -------------------------------------------------------------------------
    def _set_limits(self, given):
        """Resolve ``level``, and ``time`` without ``iterations`` (uncapped), at creation."""
        if self.options["level"]:
            clash = sorted(given & {"time", "iterations"})
            if clash:
                raise OptionError(f"agent {self.name!r}: 'level' sets the time and the "
                                  f"iterations itself; give level or {' and '.join(clash)}, "
                                  f"not both")
            # A level is a number of simulations and no clock, so that it plays the same
            # moves under a seed on any machine; the game declares the budgets.
            self.options.update(iterations=self.game.level_budgets[self.options["level"] - 1],
                                time=0.0)
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

    def _solvable(self, game) -> bool:
        """Whether the solver runs: asked for, nothing hidden, nothing simultaneous, and two
        sides, so that a value proven for one side is the other's loss (minimax).

        Chance nodes are allowed: they are never proven, so no proof crosses one.
        """
        return self.options["solver"] and not self.resample and game.perfect_information \
            and not game.simultaneous and len(game.teams) == 2

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

    # The solver ----------------------------------------------------------------------
    def _choice(self, root, base, legal) -> int:
        """The move the search would play now from ``root`` (the position ``base``).

        A proven win if there is one; else the most visited move not proven lost
        (``act`` plays an unsearched move rather than a searched one proven lost);
        where every move is proven, the best of them (``_prove``). Before a move is
        chosen, its replies are looked at once (``_check``): one that ends the game
        in the opponent's favour makes it a proven loss, and the next move is
        considered.
        """
        allowed = set(legal)
        while True:
            if root.proven is not None:
                return root.best
            lost = root.lost or ()
            pick = root.leader(allowed, lost)           # ties: as without the solver
            if pick in lost or pick in self._checked:
                return pick
            self._check(root, base, pick, legal)

    def _open(self, root, legal):
        """The legal actions the move may still be chosen from: those not proven lost
        (all of them where all are, or without the solver)."""
        if not self.solving or not root.lost:
            return legal
        return [a for a in legal if a not in root.lost] or legal

    def _check(self, root, base, action, legal):
        """Look at every reply to ``action`` at ``root`` once: prove the replies that end
        the game, and through them maybe ``action`` (and ``root``)."""
        self._checked.add(action)
        child = root.children.get(action)
        if child is None or child.proven is not None:
            return
        mover = _mover(base)
        state = base.clone()
        state.apply(action, seat=mover)
        if self._scan(child, state):
            _prove(root, action, legal, mover, self.game.utility_bounds)

    def _scan(self, node, state) -> bool:
        """Try every legal action of the decision node ``node`` (at ``state``), and mark
        those that end the game as proven children; whether ``node`` got proven.

        It costs a copy and a move per legal action, so the search does it only at
        the root and for the replies to a root move about to be chosen.
        """
        if state.is_terminal() or state.is_chance():
            return False
        mover = _mover(state)
        legal = state.legal_actions_for(mover)
        for action in legal:
            if action in node.children:
                continue                     # already searched: proven if it ended the game
            after = state.clone()
            after.apply_unchecked(action, mover)     # from the state's own legal list
            if not after.is_terminal():
                continue
            text = state.action_to_string(action)
            child = node.children[action] = node.children[("text", text)] = Node()
            child.proven = tuple(after.returns())
            if _prove(node, action, legal, mover, self.game.utility_bounds):
                return True
        return False

    def _iterate(self, root, state):
        """One simulation from ``root``, whose position is ``state`` (played on here).

        With ``self.fixed`` a node keeps who acts at its position and the legal
        actions there (``Node.player``, ``acting``, ``know_legal``) instead of asking
        the state again at every pass.
        """
        if self.listed:
            return self._iterate_listed(root, state)
        c, rng, fixed = self.options["c"], self.rng, self.fixed
        urgency = self.options["urgency"]
        path, node = [], root
        while True:
            if fixed and node.player is not None:
                player, acting = node.player, node.acting
            else:
                player = state.current_player()
                acting = [player] if player >= 0 else \
                    state.acting_seats() if player == SIMULTANEOUS else []
                if fixed:
                    node.player, node.acting = player, acting
            if player == TERMINAL:
                break
            if player == CHANCE:                 # a chance node: sample, keep no statistics
                node = _child(node, state, state.sample_chance(rng), None, CHANCE)
                continue
            mover = acting[0]
            if node is root and self.seat in acting:
                mover = self.seat                # several act at once: search for itself
            if mover in self.split and (node is not root or mover != self.seat):
                node = _info_node(node, state.private_key(mover))
            if not fixed:                        # one seat acts: it is the mover
                legal = state.legal_actions() if player >= 0 else \
                    state.legal_actions_for(mover)
                if node.where is None or node.legal != legal:
                    node.know_legal(legal, mover, keep=True)
            elif node.where is None or node.mover != mover:
                node.know_legal(state.legal_actions_for(mover), mover, keep=False)
            action, slot, expanding = node.choose(c, rng, self.puct, urgency)
            path.append((node, slot, action, mover))
            node = _child(node, state, action, mover, player)
            if expanding:
                break
        if state.is_terminal():
            returns = state.returns()
            if self.solving and node.proven is None:
                node.proven = tuple(returns)
                self._prove_path(path)
        elif self.guided:
            returns, node.logits = self.evaluator.evaluate_with_priors(state, rng)
        else:
            returns = self.evaluator.evaluate(state, rng)
        for node, slot, _, mover in path:
            table = node.table
            table[tree.VISITS, slot] += 1.0
            table[tree.VALUE, slot] += returns[mover]
        return returns

    def _iterate_listed(self, root, state):
        """:meth:`_iterate` on a state that lists its legal actions in an array and moves
        on in one step (``search_listed``, ``search_step``: Cartagena's kernel; seats
        that take turns, no chance or simultaneous moves), for plain UCT (no solver,
        no priors): each node keeps its columns by action (``Node.slot_map``) instead
        of mapping each new legal list, and selection is ``mcts_tree.visit`` (then
        ``try_untried``): the same choices, statistics and random numbers as
        ``Node.choose`` (tests/test_search_listed.py).
        """
        c, rng, logs, split = self.options["c"], self.rng, tree.LOGS, self.split
        path, node = [], root
        player, count, acts = state.search_listed()
        while player >= 0:
            mover = player
            if mover in split and (node is not root or mover != self.seat):
                node = _info_node(node, state.private_key(mover))
            if node.slot_map is None:
                _map_slots(node, self.game.num_actions)
            table = node.table
            code = tree.visit(node.slot_map, table, acts, count, c, logs)
            if code >= 0:
                action, slot, expanding = code >> 32, code & 0xFFFFFFFF, False
            else:                                # untried actions: one of them, at random
                k = rng.choice(range(-code))
                slot = len(node.slots)
                if slot == table.shape[1]:       # room for a new column
                    table = node.table = np.concatenate((table, np.zeros_like(table)), axis=1)
                action = int(tree.try_untried(node.slot_map, table, acts, count, k, slot))
                node.slots[action] = slot
                expanding = True
            path.append((node, slot, action, mover))
            child = node.children.get(action)
            if child is None:                    # also filed under its text (tree reuse)
                text = state.action_to_string(action)
                child = node.children[action] = node.children[("text", text)] = Node()
            player, count = state.search_step(action, player)
            node = child
            if expanding:
                break
        if player == TERMINAL:
            returns = state.returns()
        elif player >= 0:
            returns = self.evaluator.evaluate(state, rng)
        else:
            raise ValueError(f"{self.game.spec}: search_step gave player {player} (only "
                             f"games whose seats take turns list their moves)")
        for node, slot, _, mover in path:        # (visit counted the visits)
            node.table[1, slot] += returns[mover]     # tree.VALUE
        return returns

    def _prove_path(self, path):
        """Carry a new proof up ``path`` (from its end) while it proves the nodes above;
        a chance node, never proven, stops it."""
        for node, _, action, mover in reversed(path):
            if node.children[action].proven is None or not _prove(
                    node, action, node.legal_list(), mover, self.game.utility_bounds):
                return


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
