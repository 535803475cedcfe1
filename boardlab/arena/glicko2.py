"""Glicko-2 (Mark Glickman, "Example of the Glicko-2 system", 2013): one rating period's
update of a player from the games of that period.

A rating is (rating, deviation, volatility) on the Glicko scale. :func:`update` follows the
paper's steps 2 to 8 (the volatility by its Illinois-algorithm iteration, step 5.4);
:func:`rate_game` rates one two-sided game as a rating period of its own for each player
(as lichess does: every game updates at once, against the opponent's rating before it).
The server's defaults are lichess's: 1500, deviation 500 (its most), volatility 0.09,
tau 0.75, the deviation kept from 45 to 500, provisional above 110.
"""
from __future__ import annotations

import math
from typing import NamedTuple

SCALE = 173.7178               # Glicko points per Glicko-2 unit
CENTER = 1500.0
EPSILON = 0.000001             # the volatility iteration's tolerance


class Rating(NamedTuple):
    rating: float = 1500.0
    deviation: float = 500.0
    volatility: float = 0.09


class Settings(NamedTuple):
    """The system's constants: tau (how fast volatility moves), the deviation's bounds,
    and the deviation above which a rating is provisional."""

    tau: float = 0.75
    min_deviation: float = 45.0
    max_deviation: float = 500.0
    provisional_above: float = 110.0


LICHESS = Settings()
#: the paper's example has no bounds on the deviation
PAPER = Settings(tau=0.5, min_deviation=0.0, max_deviation=math.inf)


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _expected(mu: float, mu_j: float, phi_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def update(player: Rating, games: list[tuple[Rating, float]],
           settings: Settings = LICHESS) -> Rating:
    """``player``'s rating after one rating period with ``games`` ((opponent's rating
    before the period, score 1/0.5/0) each); no games: only the deviation grows."""
    mu, phi, sigma = (player.rating - CENTER) / SCALE, player.deviation / SCALE, \
        player.volatility
    if not games:
        return _bounded(Rating(player.rating, SCALE * math.sqrt(phi * phi + sigma * sigma),
                               sigma), settings)
    total, gain = 0.0, 0.0
    for opponent, score in games:
        mu_j, phi_j = (opponent.rating - CENTER) / SCALE, opponent.deviation / SCALE
        g, e = _g(phi_j), _expected(mu, mu_j, phi_j)
        total += g * g * e * (1.0 - e)
        gain += g * (score - e)
    v = 1.0 / total                                     # step 3
    delta = v * gain                                    # step 4
    sigma = _volatility(phi, sigma, v, delta, settings.tau)     # step 5
    phi_star = math.sqrt(phi * phi + sigma * sigma)     # step 6
    phi = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)   # step 7
    mu = mu + phi * phi * gain
    return _bounded(Rating(SCALE * mu + CENTER, SCALE * phi, sigma), settings)   # step 8


def _volatility(phi: float, sigma: float, v: float, delta: float, tau: float) -> float:
    """Step 5: the new volatility, the root of f by the Illinois algorithm."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta * delta - phi * phi - v - ex) / \
            (2.0 * (phi * phi + v + ex) ** 2) - (x - a) / (tau * tau)

    low = a
    if delta * delta > phi * phi + v:
        high = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        high = a - k * tau
    f_low, f_high = f(low), f(high)
    while abs(high - low) > EPSILON:
        c = low + (low - high) * f_low / (f_high - f_low)
        f_c = f(c)
        if f_c * f_high <= 0:
            low, f_low = high, f_high
        else:
            f_low /= 2.0
        high, f_high = c, f_c
    return math.exp(low / 2.0)


def _bounded(rating: Rating, settings: Settings) -> Rating:
    deviation = min(max(rating.deviation, settings.min_deviation), settings.max_deviation)
    return Rating(rating.rating, deviation, rating.volatility)


def rate_game(first: Rating, second: Rating, score: float,
              settings: Settings = LICHESS) -> tuple[Rating, Rating]:
    """Both players' ratings after one game (``score``: the first's, 1/0.5/0), each a
    rating period of its own against the other's rating before the game."""
    return (update(first, [(second, score)], settings),
            update(second, [(first, 1.0 - score)], settings))


def provisional(rating: Rating, settings: Settings = LICHESS) -> bool:
    """Whether the rating is not yet settled (its deviation still high)."""
    return rating.deviation > settings.provisional_above
