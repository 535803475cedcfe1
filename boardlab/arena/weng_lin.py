"""Ratings of games of more than two sides (Cartagena's 3-5 players, CTOR's teams): OpenSkill's
Plackett-Luce model (Weng and Lin, "A Bayesian Approximation Method for Online Ranking",
2011) on Glicko-2's scale.

Why not Glicko-2 there: Glicko-2 rates one player against one opponent; a game of five
players or of teams would have to be cut into pairwise games (each pair counted as a game of
its own, a team's players rated as if they each beat each opponent), which over-counts the
evidence of one game and says nothing of who carried a team. Weng-Lin rates a whole ranking
of teams at once, each team the sum of its players, and is the Bayesian cousin of Glicko
(a mean and an uncertainty per player), so both live in one pool.

The scale: OpenSkill's defaults (mu 25, sigma 25/3, beta 25/6, tau 25/300) times 60 give
mu 1500 and sigma 500, Glicko-2's start (glicko2.Rating()), so a rating and its deviation
mean the same in both systems; a game is one update (no rating periods), sigma kept between
Glicko-2's bounds (LICHESS: 45 to 500).
"""
from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from .glicko2 import LICHESS, Rating

SCALE = 60.0


@lru_cache(maxsize=1)
def _model():
    from openskill.models import PlackettLuce
    return PlackettLuce(mu=25.0 * SCALE, sigma=25.0 / 3.0 * SCALE, beta=25.0 / 6.0 * SCALE,
                        tau=25.0 / 300.0 * SCALE)


def ranks_of(returns: Sequence[float]) -> list[int]:
    """Each side's rank from its returns (1 the best; equal returns share a rank)."""
    return [1 + sum(other > mine for other in returns) for mine in returns]


def scores_of(returns: Sequence[float]) -> list[float]:
    """Each side's share of the other sides it beat (a tie half): 1 first, 0 last."""
    others = max(len(returns) - 1, 1)
    return [sum(1.0 if mine > other else 0.5 if mine == other else 0.0
                for j, other in enumerate(returns) if j != i) / others
            for i, mine in enumerate(returns)]


def rate_sides(sides: Sequence[Sequence[Rating]],
               returns: Sequence[float]) -> list[list[Rating]]:
    """The ratings of every side's players after one game (``returns``: each side's,
    higher is better). Volatility is Glicko-2's and stays as it was."""
    model = _model()
    teams = [[model.rating(mu=r.rating, sigma=r.deviation) for r in side] for side in sides]
    rated = model.rate(teams, ranks=ranks_of(returns))
    low, high = LICHESS.min_deviation, LICHESS.max_deviation
    return [[Rating(new.mu, min(max(new.sigma, low), high), old.volatility)
             for new, old in zip(team, side)] for team, side in zip(rated, sides)]
