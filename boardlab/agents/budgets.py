"""A search's budget: the time and simulations a move may take, and the early stop.

:class:`Budgets` resolves the agent's ``level``, ``time`` and ``iterations`` options and a
caller's :class:`~boardlab.core.view.Budget`; :func:`settled` says when more search
cannot change the move.
"""
from __future__ import annotations

import math

from ..core.errors import OptionError
from ..core.game import Game
from ..core.view import Budget

CHECK_EVERY = 32     # simulations between two early-stop checks
DECIDED_VISITS = 20  # each move's simulations before "won (or lost) every one" counts


def simulations_left(done, limit, start, now, deadline):
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


class Budgets:
    """The budget part of a search agent (a mixin of ``MCTS``): ``options`` holds its
    resolved ``time``, ``iterations`` and ``level``."""

    name: str
    game: Game
    options: dict
    capped: bool

    def _set_limits(self, given: set) -> None:
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

    def _limits(self, budget: Budget | None) -> tuple[float, int]:
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
