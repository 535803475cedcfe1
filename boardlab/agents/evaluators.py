"""Leaf evaluators for tree search: a state in, one value per seat out.

An evaluator is any object with ``evaluate(state, rng) -> list[float]``
(:class:`Evaluator`): values in the game's return range ([-1, 1]), one per
seat, for a state that is not over. It may play on a copy but must leave
``state`` as it was. One that also gives priors (:class:`GuidingEvaluator`)
makes MCTS a PUCT search. MCTS takes one by name (``mcts(evaluator=heuristic)``),
found in the registry of evaluator factories (:func:`register_evaluator`,
:func:`evaluator_for`: ``rollout``, ``heuristic``, ``net``, the trained
network of :mod:`boardlab.nn`, ``ntuple``, an n-tuple network trained by TD learning,
and ``best``, the one of those measured strongest for the game, :data:`BEST`), or,
from Python, as an object
(``MCTS(game, seat, evaluator=MyNetwork())``).

>>> import boardlab, random
>>> state = boardlab.make("rumbo(size=5)").new_initial_state()
>>> len(RolloutEvaluator().evaluate(state, random.Random(1)))
2
"""
from __future__ import annotations

import random
from collections.abc import Callable
from functools import cache
from typing import NamedTuple, Protocol

import numpy as np

from ..core.errors import OptionError
from ..core.game import Game, State
from ..nn.features import BoardFeatures
from ..nn.net import NetworkEvaluator, load_network
from ..nn.ntuple import load_ntuple
from ..nn.ntuple_eval import NTupleEvaluator


class Evaluator(Protocol):
    """What MCTS asks of a leaf evaluator (see the module). It may also have
    ``begin(root)``, called before a move's simulations with the position searched."""

    def evaluate(self, state: State, rng: random.Random) -> list[float]:
        """One value per seat of ``state`` (not over), left as it was."""
        ...


class GuidingEvaluator(Evaluator, Protocol):
    """An evaluator that also scores every action number: MCTS turns the scores of the
    legal actions into PUCT priors (a softmax)."""

    def evaluate_with_priors(self, state: State,
                             rng: random.Random) -> tuple[list[float], np.ndarray]:
        """(one value per seat, one score per action number of the game)."""
        ...


class RolloutEvaluator:
    """Random play to the end through the game's fast kernel (``State.rollout``).

    ``turns`` caps games whose random play can run long: after that many
    more turns the position is valued as the game's ``rollout`` says (None:
    to the end). ``policy`` is one of the game's ``playouts`` (``random``:
    uniformly random legal actions).
    """

    name = "rollout"

    def __init__(self, turns: int | None = None, policy: str = "random",
                 horizon: bool = True):
        self.turns = turns
        self.policy = policy
        self.horizon = horizon
        self.until: int | None = None

    def begin(self, root: State) -> None:
        """Called by a search before a move's simulations, with the position searched:
        with ``horizon``, a game that offers one (``State.rollout_horizon``) gets every
        rollout of the search stopped at the same turn."""
        self.until = root.rollout_horizon(self.turns) \
            if self.horizon and self.turns is not None else None

    def evaluate(self, state: State, rng: random.Random) -> list[float]:
        if self.until is None:
            return state.rollout(rng.randrange(2**31), self.turns, self.policy)
        return state.rollout(rng.randrange(2**31), self.turns, self.policy, until=self.until)


class HeuristicEvaluator:
    """The game's own quick estimate (``State.heuristic``) for every seat: no playout."""

    name = "heuristic"

    def __init__(self, turns: int = 0, policy: str = "random", horizon: bool = True):
        del turns, policy, horizon                   # same signature as the others

    def evaluate(self, state: State, rng: random.Random) -> list[float]:
        return [state.heuristic(seat) for seat in range(state.game.num_seats)]


class BlendedEvaluator:
    """Two evaluators' values mixed seat by seat, ``(1 - weight) * first + weight *
    second`` (AlphaGo's leaf value: a network's estimate and a rollout's, half each).
    With ``priors`` the priors of ``first`` go along (:func:`blended` picks the class);
    ``begin`` reaches both.

    >>> import boardlab, random
    >>> state = boardlab.make("rumbo(size=5)").new_initial_state()
    >>> half = blended(HeuristicEvaluator(), RolloutEvaluator(), 0.5)
    >>> len(half.evaluate(state, random.Random(1)))
    2
    """

    def __init__(self, first, second, weight: float):
        self.first, self.second, self.weight = first, second, weight

    def begin(self, root: State) -> None:
        for evaluator in (self.first, self.second):
            if hasattr(evaluator, "begin"):
                evaluator.begin(root)

    def _mixed(self, values: list[float], state: State, rng: random.Random) -> list[float]:
        if not self.weight:
            return values
        other = self.second.evaluate(state, rng)
        return [(1 - self.weight) * a + self.weight * b for a, b in zip(values, other)]

    def evaluate(self, state: State, rng: random.Random) -> list[float]:
        return self._mixed(self.first.evaluate(state, rng), state, rng)


class _GuidedBlend(BlendedEvaluator):
    def evaluate_with_priors(self, state: State, rng: random.Random):
        values, logits = self.first.evaluate_with_priors(state, rng)
        return self._mixed(values, state, rng), logits


def blended(first, second, weight: float, priors: bool = False) -> BlendedEvaluator:
    """``first`` mixed with ``second`` (weight 0: ``first``'s values alone); with
    ``priors``, ``first``'s priors too (it must give them), which make an MCTS a PUCT
    search; with both, ``first`` itself."""
    if priors and not weight:
        return first
    return (_GuidedBlend if priors else BlendedEvaluator)(first, second, weight)


class HorizonEvaluator:
    """A rollout to the search's horizon, then ``inner``'s value of the position it
    stopped at (the game's end: its returns). For games whose rollouts stop at a
    horizon (``State.rollout_horizon``, ``State.played_to_horizon``): every leaf of a
    search is then valued at the same turn, the searching team's turn again after the
    other's answer with ``turns`` 1, so a network trained on such positions (the starts
    of turns: ``boardlab train --positions turn-starts``) never compares a leaf where a
    team is half-way through its turn with one where it has ended it."""

    def __init__(self, inner, turns: int, policy: str = "random"):
        self.inner, self.turns, self.policy = inner, turns, policy
        self.until: int | None = None

    def begin(self, root: State) -> None:
        self.until = root.rollout_horizon(self.turns)
        if self.until is None:
            raise OptionError(f"{root.game.name}: its rollouts have no horizon to stop at "
                              f"(net_at=horizon is for games whose rollouts stop one)")

    def evaluate(self, state: State, rng: random.Random) -> list[float]:
        assert self.until is not None, "begin() sets the horizon before any evaluate()"
        stop = state.played_to_horizon(rng.randrange(2**31), self.until, self.policy)
        if stop.is_terminal():
            return stop.returns()
        return self.inner.evaluate(stop, rng)


EVALUATORS = {cls.name: cls for cls in (RolloutEvaluator, HeuristicEvaluator)}


def make_evaluator(name: str, turns: int, policy: str = "random", horizon: bool = True):
    """The evaluator called ``name`` (``rollout`` or ``heuristic``)."""
    if name not in EVALUATORS:
        raise OptionError(f"unknown evaluator {name!r} (known: {', '.join(EVALUATORS)})")
    return EVALUATORS[name](turns, policy, horizon)


#: A factory of the registry: (the game, the search's resolved options, the names of the
#: options its spec gave, the agent's name for errors) -> the evaluator. It may fill in
#: options it resolves itself (``net`` fills in ``net_at``).
EvaluatorFactory = Callable[[Game, dict, frozenset, str], Evaluator]
_FACTORIES: dict[str, EvaluatorFactory] = {}


def register_evaluator(name: str, factory: EvaluatorFactory) -> None:
    """Make ``factory`` the evaluator called ``name`` in search specs. The names
    registered when :mod:`boardlab.agents.mcts` is imported are those its
    ``evaluator`` option allows."""
    _FACTORIES[name] = factory


def evaluator_names() -> tuple[str, ...]:
    """The names of the registered evaluators, in the order they were registered."""
    return tuple(_FACTORIES)


def evaluator_for(name: str, game: Game, options: dict, given=frozenset(),
                  agent: str = "mcts") -> Evaluator:
    """The registered evaluator ``name`` for a search of ``game`` with ``options``
    (``rollout_turns``, ``playout``, ``horizon``; ``net``'s own for ``net``)."""
    if name not in _FACTORIES:
        raise OptionError(f"unknown evaluator {name!r} (known: {', '.join(_FACTORIES)})")
    return _FACTORIES[name](game, options, frozenset(given), agent)


def _plain(name: str) -> EvaluatorFactory:
    """The factory of one of :data:`EVALUATORS`."""
    def factory(game: Game, options: dict, given: frozenset, agent: str) -> Evaluator:
        return make_evaluator(name, options["rollout_turns"], options["playout"],
                              options["horizon"])
    return factory


def network_search(game: Game, options: dict, given: frozenset, agent: str) -> Evaluator:
    """``evaluator=net``: the trained network of :mod:`boardlab.nn` (option ``net``, else
    the one shipped for the game's spec) at the leaves, or where the leaf's rollout
    stops (``net_at=horizon``), mixed with a rollout's value by ``mix``; its priors
    guide the search (PUCT) unless ``priors=false`` or ``net_at=horizon``. Fills in
    ``net_at`` where the spec left it empty (where the network was trained to be asked).
    """
    features = BoardFeatures(game)      # made once: it plays a few moves to learn
    network = NetworkEvaluator(game, load_network(game, options["net"], features), features)
    priors = options["priors"]
    options["net_at"] = options["net_at"] or network.network.asked_at
    inner: Evaluator = network
    if options["net_at"] == "horizon":
        if "priors" in given and options["priors"]:     # asked for
            raise OptionError(f"agent {agent!r}: net_at=horizon gives no priors "
                              f"(the network sees the horizon, not the leaf): "
                              f"leave out priors=true")
        if not options["horizon"]:
            raise OptionError(f"agent {agent!r}: net_at=horizon stops every "
                              f"rollout at the search's horizon: leave out "
                              f"horizon=false")
        if game.new_initial_state().rollout_horizon(1) is None:
            raise OptionError(f"agent {agent!r}: net_at=horizon needs a game "
                              f"whose rollouts stop at a horizon; {game.name}'s "
                              f"play to the end (use net_at=leaf)")
        inner, priors = HorizonEvaluator(network, options["rollout_turns"],
                                         options["playout"]), False
    return blended(inner, make_evaluator("rollout", options["rollout_turns"],
                                         options["playout"], options["horizon"]),
                   options["mix"], priors)


def ntuple_search(game: Game, options: dict, given: frozenset, agent: str) -> Evaluator:
    """``evaluator=ntuple``: an n-tuple network trained by TD learning
    (:mod:`boardlab.nn.ntuple`; option ``net``, else the weights shipped for the game's
    spec) at the leaves, mixed with a rollout's value by ``mix``. ``mcts`` runs it inside
    the compiled search where the game allows (``agents.kernel_ntuple``)."""
    network = NTupleEvaluator(game, load_ntuple(game, options["net"]))
    return blended(network, make_evaluator("rollout", options["rollout_turns"],
                                           options["playout"], options["horizon"]),
                   options["mix"])


class Best(NamedTuple):
    """One row of :data:`BEST`: in a search of at most ``simulations`` a move (its
    ``iterations``, or its ``level``'s), the evaluator ``name`` with ``options`` beat
    ``mcts`` with rollouts at equal simulations while costing less a simulation (so at
    equal time too), as the measurements in ``record`` (a folder of results/learning)
    show."""

    simulations: int
    name: str
    options: dict
    record: str


#: What ``evaluator=best`` uses for a game configuration, by a spec of it (any spelling:
#: matched by the game's own spec): rows of :class:`Best`, the fewest simulations first;
#: the first whose ``simulations`` covers the search's cap is used (docs/learning.md,
#: "evaluator=best"). Rows are bounded by simulations, not seconds: what a second buys
#: differs tenfold between an idle and a loaded machine, and the n-tuple value wins at a
#: few thousand simulations and loses beyond. A configuration not listed (every other
#: game and size), more simulations, or a search bounded by time alone gets plain
#: rollouts: no learned evaluator was measured to win there.
BEST: dict[str, tuple[Best, ...]] = {
    "carteso(size=9)": (Best(4000, "ntuple", {}, "results/learning/ntuple-greedy"),),
    "carteso(size=11)": (Best(4000, "ntuple", {}, "results/learning/ntuple-greedy"),),
}


@cache
def best_rows() -> dict[str, tuple[Best, ...]]:
    """:data:`BEST` by each configuration's own spec (``Game.spec``)."""
    from ..core.registry import make
    return {make(spec).spec: rows for spec, rows in BEST.items()}


def best_evaluator(game: Game, simulations: int = 0) -> tuple[str, dict]:
    """(name, options) of the evaluator ``evaluator=best`` picks for ``game`` in a search
    of at most ``simulations`` a move (0: not bounded by simulations) (see :data:`BEST`;
    rollouts where no row covers it)."""
    for row in best_rows().get(game.spec, ()):
        if 0 < simulations <= row.simulations:
            return row.name, dict(row.options)
    return "rollout", {}


def best_search(game: Game, options: dict, given: frozenset, agent: str) -> Evaluator:
    """``evaluator=best``: the evaluator :func:`best_evaluator` picks for the search's
    cap of simulations (``iterations``, set by a level too), its options filled in where
    the spec left them out; ``options["evaluator"]`` becomes its name (so the search runs
    compiled as that evaluator would)."""
    name, extra = best_evaluator(game, int(options.get("iterations") or 0))
    options["evaluator"] = name
    for key, value in extra.items():
        if key not in given:
            options[key] = value
    return evaluator_for(name, game, options, given, agent)


for _name in EVALUATORS:
    register_evaluator(_name, _plain(_name))
register_evaluator("net", network_search)
register_evaluator("ntuple", ntuple_search)
register_evaluator("best", best_search)
