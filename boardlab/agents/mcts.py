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
never a proven loss while another move is not proven lost.

The parts: the node (``search_node``), one simulation of the Python tree
(``search_walk``), the solver (``solver``), the compiled-search bridge
(``compiled_search``), the budget and early stop (``budgets``), the options
(``mcts_options``); this module puts them together as the ``mcts`` and ``ismcts``
agents.
"""
from __future__ import annotations

import time

from ..core.errors import OptionError
from ..core.view import Budget, View
from . import mcts_tree as tree
from .base import Agent, register_agent
from .budgets import CHECK_EVERY, settled, simulations_left
from .compiled_net_search import CompiledNetSearch
from .compiled_search import CompiledSearch
from .evaluators import evaluator_for
from .mcts_options import ISMCTS_OPTIONS, MCTS_OPTIONS
from .search_node import Node, mover_of, pooled
from .search_state import Sampler, pregame_hint, state_from_view
from .search_types import Analysis, MoveAnalysis, SearchSummary
from .search_walk import TreeWalk


@register_agent
class MCTS(CompiledSearch, CompiledNetSearch, TreeWalk, Agent):
    """UCT over states rebuilt from the view (exact for perfect information)."""

    name = "mcts"
    description = "Monte Carlo tree search (UCT, per-seat values, kernel rollouts)"
    resample = False
    declared_options = MCTS_OPTIONS

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
        self._set_limits(set(options))      # (evaluator=best reads the simulations)
        self.evaluator = evaluator or evaluator_for(self.options["evaluator"], game,
                                                    self.options, frozenset(options), self.name)
        # An evaluator that gives priors guides the search by PUCT (Node.choose).
        self.guided = hasattr(self.evaluator, "evaluate_with_priors")
        self.puct = (self.options["c_puct"], self.options["fpu"]) if self.guided else None
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
        # PUCT with the network compiled (compiled_net_search) where asked and possible
        self.cnet = self._compiled_net(evaluator)
        if self.cnet is not None:
            self.solving = False                 # (no solver in the compiled PUCT tree)
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
    def act(self, view: View, budget: Budget | None = None) -> int:
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

    def summary(self, view: View, budget: Budget | None, called: float,
                base=None) -> SearchSummary:
        """A search of ``view`` as root parallelism adds it up (``parallel.merge``): the
        root's ``stats`` (action: visits, summed value), and with the solver the move it
        would play (``choice``), whether the root is ``proven``, the moves proven ``lost``."""
        if base is None:
            base = state_from_view(self.game, view, self.rng)
        legal = view["legal_actions"]
        stats = self._search(base, view, budget, called)
        out: SearchSummary = {"stats": {a: (s[0], s[1]) for a, s in stats.items()},
                              "choice": None, "proven": False, "lost": []}
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

    def analyse(self, view: View, budget: Budget | None = None) -> Analysis:
        """How the position of ``view`` stands, by the same search as :meth:`act`.

        ``{"estimate": {seat name: win chance 0..1}, "moves": [{"action", "visits",
        "win"}]}``: each seat's mean return over the simulations and each searched
        move's mean return for this seat (which acts), or its value where the solver
        proved it, scaled from the game's ``utility_bounds`` to 0..1; the moves most
        visited first.
        """
        called = time.perf_counter()
        base = state_from_view(self.game, view, self.rng)
        mover = mover_of(base)
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
        moves: list[MoveAnalysis] = [
            {"action": action, "visits": visits, "win": chance(worth(action, visits, value))}
                 for action, (visits, value, _) in stats.items() if visits]
        moves.sort(key=lambda move: (-move["visits"], -move["win"], move["action"]))
        return {"estimate": {name: chance(total / done) for name, total in
                             zip(self.game.seat_names, totals)}, "moves": moves}

    def _search(self, base, view: View, budget: Budget | None, called: float,
                totals: list | None = None) -> dict:
        """Search from ``base`` within the budget; the root statistics of the legal
        actions (``[visits, value, available]``). ``totals`` (per seat) gains every
        simulation's returns."""
        if self.compiled:
            position = base.search_kernel()
            if position is not None:
                return self._search_compiled(position, base, view, budget, called, totals)
        if self.cnet is not None:
            found = self._search_compiled_net(base, view, budget, called, totals)
            if found is not None:
                return found
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
            state = sampler.sample() if sampler is not None and done else worlds[which].clone()
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
                    left = simulations_left(done, limit, start, now, deadline)
                    if settled(pooled(roots, legal), self._open(root, legal), left):
                        break
        self.iterations_done = done
        return {a: s for a, s in pooled(roots, legal).stats.items() if a in legal}

    # Set-up of a search --------------------------------------------------------------
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
        if not self.options["reuse"] or node is None or self.root_history is None or \
                history[:len(self.root_history)] != self.root_history:
            return None
        for text in history[len(self.root_history):]:
            node = node.children.get(("text", text)) if node else None
        return node


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
    declared_options = ISMCTS_OPTIONS
