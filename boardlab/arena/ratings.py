"""Ratings from game results: Elo, Bradley–Terry, SPRT and OpenSkill.

Elo numbers use the logistic scale: a side that is d Elo stronger has an
expected score of 1 / (1 + 10**(-d/400)). A draw counts as half a point.
Intervals are 95% intervals from a normal approximation (± 1.96 standard
errors), unless a function says otherwise.
"""
from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

Z95 = 1.959963984540054  # two-sided 95% quantile of the standard normal
ELO_PER_NAT = 400 / math.log(10)  # Elo points per unit of natural log-odds


@dataclass(frozen=True)
class Rating:
    """One player's rating, its 95% interval, games played and points scored."""

    name: str
    rating: float
    low: float
    high: float
    games: int
    points: float

    @property
    def score(self) -> float:
        """Points per game (nan without games)."""
        return self.points / self.games if self.games else math.nan


# --- Elo of a two-sided match ------------------------------------------------

def expected_score(diff_elo: float) -> float:
    """Expected score of a side that is ``diff_elo`` Elo stronger.

    >>> expected_score(0)
    0.5
    >>> round(expected_score(400), 4)
    0.9091
    """
    return 0.5 + 0.5 * math.tanh(diff_elo / (2 * ELO_PER_NAT))


def elo_from_score(p: float) -> float:
    """Elo difference whose expected score is ``p``, which must lie in (0, 1).

    >>> round(elo_from_score(0.75), 2)
    190.85
    """
    if not 0 < p < 1:
        raise ValueError(f"a score of {p!r} has no finite Elo difference; "
                         f"it must lie strictly between 0 and 1")
    return -400 * math.log10(1 / p - 1)


def _elo_or_inf(p: float) -> float:
    """elo_from_score, extended to ±inf at and beyond scores of 0 and 1."""
    if p <= 0:
        return -math.inf
    if p >= 1:
        return math.inf
    return elo_from_score(p)


def _score_stats(wins: int, draws: int, losses: int) -> tuple[int, float, float]:
    """Games, mean score and (trinomial) score variance per game of a result."""
    if min(wins, draws, losses) < 0:
        raise ValueError(f"negative result counts: {wins}, {draws}, {losses}")
    n = wins + draws + losses
    mean = (wins + draws / 2) / n
    var = (wins * (1 - mean) ** 2 + draws * (0.5 - mean) ** 2 + losses * mean ** 2) / n
    return n, mean, var


def match_elo(wins: int, draws: int, losses: int) -> tuple[float, float, float]:
    """Elo difference of a match result and its 95% interval: (elo, low, high).

    The score's standard error comes from the trinomial per-game variance (as
    in cutechess and fastchess); the score interval ``score ± 1.96 se`` is
    mapped through elo_from_score, so the Elo interval is asymmetric. Scores
    at or beyond 0 or 1 map to ∓inf: all wins gives (inf, inf, inf), all
    losses (-inf, -inf, -inf). An empty match gives (0, -inf, inf).

    >>> [round(x, 1) for x in match_elo(60, 20, 20)]
    [147.2, 86.2, 218.3]
    """
    if wins + draws + losses == 0:
        return 0.0, -math.inf, math.inf
    score, low, high, _ = _score_interval(wins, draws, losses)
    return _elo_or_inf(score), _elo_or_inf(low), _elo_or_inf(high)


def _score_interval(wins: int, draws: int, losses: int) -> tuple[float, float, float, float]:
    """Mean score, its trinomial 95% bounds and the per-game variance (a played match)."""
    n, score, var = _score_stats(wins, draws, losses)
    margin = Z95 * math.sqrt(var / n)
    return score, score - margin, score + margin, var


def match_elo_bounded(wins: int, draws: int, losses: int,
                      score_low: float, score_high: float) -> tuple[float, float, float]:
    """:func:`match_elo`, except where the trinomial interval breaks down: a bound
    that reaches a score of 0 or 1 (a sweep or near sweep) or a variance of 0
    (all wins, all losses, all draws) is taken from the score interval given
    (e.g. Wilson's), which stays inside (0, 1) where it can.

    >>> elo, low, high = match_elo_bounded(200, 0, 0, 0.9812, 1.0)
    >>> elo, round(low), high
    (inf, 687, inf)
    """
    if not wins + draws + losses:
        return match_elo(wins, draws, losses)
    score, low, high, var = _score_interval(wins, draws, losses)
    if var == 0 or low <= 0:
        low = score_low
    if var == 0 or high >= 1:
        high = score_high
    return (_elo_or_inf(score) + 0.0, _elo_or_inf(low) + 0.0,    # + 0.0: no "-0"
            _elo_or_inf(high) + 0.0)


# --- Sequential probability ratio test ---------------------------------------

def sprt_llr(wins: int, draws: int, losses: int, elo0: float, elo1: float) -> float:
    """Log-likelihood ratio of H1 (Elo = elo1) against H0 (Elo = elo0).

    The generalised SPRT in logistic Elo, with the normal approximation of the
    trinomial score used by fishtest and cutechess-style tools:
    ``LLR = N (s1 - s0) (2 s - s0 - s1) / (2 var)``, where s0 and s1 are the
    expected scores at elo0 and elo1 and s, var the observed mean and variance
    per game. While the variance is 0 (no games yet, or every game had the
    same result) the approximation is undefined and the LLR is 0.

    >>> round(sprt_llr(60, 20, 20, 0, 10), 3)
    1.734
    """
    if wins + draws + losses == 0:
        return 0.0
    n, score, var = _score_stats(wins, draws, losses)
    if var == 0:
        return 0.0
    s0, s1 = expected_score(elo0), expected_score(elo1)
    return n * (s1 - s0) * (2 * score - s0 - s1) / (2 * var)


@dataclass(frozen=True)
class Sprt:
    """SPRT of H0: Elo = elo0 against H1: Elo = elo1 with error rates alpha, beta.

    >>> [round(b, 3) for b in Sprt().bounds]
    [-2.944, 2.944]
    >>> Sprt().status(60, 20, 20)[0]
    'continue'
    """

    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self):
        if not self.elo0 < self.elo1:
            raise ValueError(f"SPRT needs elo0 < elo1, got {self.elo0} and {self.elo1}")
        if not (self.alpha > 0 and self.beta > 0 and self.alpha + self.beta < 1):
            raise ValueError(f"SPRT needs alpha, beta > 0 with alpha + beta < 1, "
                             f"got {self.alpha} and {self.beta}")

    @property
    def bounds(self) -> tuple[float, float]:
        """(lower, upper): accept H0 at or below lower, H1 at or above upper."""
        return math.log(self.beta / (1 - self.alpha)), math.log((1 - self.beta) / self.alpha)

    def llr(self, wins: int, draws: int, losses: int) -> float:
        """The log-likelihood ratio of a result (see sprt_llr)."""
        return sprt_llr(wins, draws, losses, self.elo0, self.elo1)

    def status(self, wins: int, draws: int, losses: int) -> tuple[str, float]:
        """("H0" | "H1" | "continue", llr) for the result so far."""
        llr = self.llr(wins, draws, losses)
        lower, upper = self.bounds
        if llr >= upper:
            return "H1", llr
        if llr <= lower:
            return "H0", llr
        return "continue", llr


# --- Bradley–Terry -----------------------------------------------------------

def bradley_terry(games: Iterable[tuple[str, str, float]], names: Sequence[str] | None = None,
                  prior_games: float = 1.0) -> list[Rating]:
    """Bradley–Terry ratings on the Elo scale, centred on mean 0, best first.

    ``games`` holds (a, b, score_a) with score_a in [0, 1]; a draw (0.5) is
    half a win and half a loss. ``names`` adds players without games and fixes
    the order of equal ratings. Fitted by maximum likelihood (Newton's method).

    Prior: each player also plays ``prior_games`` virtual draws against a
    fixed opponent rated 0, which keeps players with all wins or all losses
    finite and pulls sparse players towards the field. With ``prior_games=0``
    this is the plain maximum-likelihood fit, which exists only if no group of
    players lost every game against the rest (ValueError otherwise).

    Intervals are rating ± 1.96 se, with se from the inverse of the observed
    Fisher information, taken for the centred ratings (pseudo-inverse
    projected onto sum zero), so they measure each player against the field.

    >>> [(r.name, round(r.rating, 1)) for r in bradley_terry(
    ...     [("a", "b", 1), ("a", "b", 1), ("a", "b", 1), ("a", "b", 0)], prior_games=0)]
    [('a', 95.4), ('b', -95.4)]
    """
    if prior_games < 0:
        raise ValueError(f"prior_games must be >= 0, got {prior_games}")
    players, points, counts = _tally(games, names)
    if not players:
        return []
    if prior_games == 0 and not _mle_exists(points):
        raise ValueError("no finite maximum-likelihood ratings: some players lost every game "
                         "against the others (or never played them); use prior_games > 0")
    theta = _fit_bt(points, counts, prior_games)
    cov = _centred(np.linalg.pinv(_bt_information(theta, counts, prior_games),
                                  rcond=1e-10, hermitian=True))
    ratings = ELO_PER_NAT * (theta - theta.mean())
    margins = Z95 * ELO_PER_NAT * np.sqrt(np.clip(np.diag(cov), 0, None))
    rows = [Rating(name, float(r), float(r - m), float(r + m), int(n), float(p))
            for name, r, m, n, p in zip(players, ratings, margins,
                                        counts.sum(1), points.sum(1))]
    return sorted(rows, key=lambda row: -row.rating)


def _tally(games, names):
    """(players, points, counts): points[i, j] scored by i against j, games between them."""
    index = {name: i for i, name in enumerate(dict.fromkeys(names or ()))}
    results = []
    for a, b, score in games:
        if a == b or not 0 <= score <= 1:
            raise ValueError(f"bad game {(a, b, score)!r}: need two players and a score in [0, 1]")
        i = index.setdefault(a, len(index))
        results.append((i, index.setdefault(b, len(index)), float(score)))
    points, counts = np.zeros((2, len(index), len(index)))
    for i, j, score in results:
        points[i, j] += score
        points[j, i] += 1 - score
        counts[i, j] += 1
        counts[j, i] += 1
    return list(index), points, counts


def _mle_exists(points):
    """True if the 'scored against' graph is strongly connected."""
    scored = points > 0
    return _reaches_all(scored) and _reaches_all(scored.T)


def _reaches_all(adjacent):
    """True if every node of the directed graph can be reached from node 0."""
    seen, todo = {0}, [0]
    while todo:
        for j in np.flatnonzero(adjacent[todo.pop()]).tolist():
            if j not in seen:
                seen.add(j)
                todo.append(j)
    return len(seen) >= len(adjacent)


def _log_sigmoid(x):
    return -np.logaddexp(0, -x)


def _sigmoid(x):
    return 0.5 + 0.5 * np.tanh(x / 2)


def _bt_loglik(theta, points, prior):
    """Log-likelihood (natural-log strengths ``theta``) including the virtual draws."""
    diff = theta[:, None] - theta[None, :]
    virtual = 0.5 * (_log_sigmoid(theta) + _log_sigmoid(-theta))
    return np.sum(points * _log_sigmoid(diff)) + prior * np.sum(virtual)


def _bt_gradient(theta, points, counts, prior):
    expected = counts * _sigmoid(theta[:, None] - theta[None, :])
    return (points - expected).sum(1) + prior * (0.5 - _sigmoid(theta))


def _bt_information(theta, counts, prior):
    """Observed Fisher information (minus the Hessian of the log-likelihood)."""
    p = _sigmoid(theta[:, None] - theta[None, :])
    weights = counts * p * (1 - p)
    q = _sigmoid(theta)
    return np.diag(weights.sum(1) + prior * q * (1 - q)) - weights


def _fit_bt(points, counts, prior, tol=1e-10, max_iter=200):
    """Maximise the log-likelihood by Newton steps, halved until it does not drop."""
    theta = np.zeros(len(points))
    ll = _bt_loglik(theta, points, prior)
    for _ in range(max_iter):
        info = _bt_information(theta, counts, prior)
        step = np.linalg.pinv(info, rcond=1e-10, hermitian=True) @ _bt_gradient(
            theta, points, counts, prior)
        theta, ll, size = _backtrack(theta, step, ll, points, counts, prior)
        if size < tol:
            return theta
    raise RuntimeError("Bradley–Terry fit did not converge")


def _backtrack(theta, step, ll, points, counts, prior):
    """(theta, loglik, step size) after the longest halving of ``step`` that helps."""
    slack = 1e-12 * (1 + abs(ll))
    while np.max(np.abs(step), initial=0) >= 1e-14:
        new_ll = _bt_loglik(theta + step, points, prior)
        if new_ll >= ll - slack:
            return theta + step, new_ll, np.max(np.abs(step))
        step = step / 2
    return theta, ll, 0.0


def _centred(cov):
    """Covariance of x - mean(x) given the covariance of x."""
    n = len(cov)
    proj = np.eye(n) - 1 / n
    return proj @ cov @ proj


# --- OpenSkill ---------------------------------------------------------------

def openskill_ratings(games: Iterable[tuple[Sequence[Sequence[str]], Sequence[float]]],
                      names: Sequence[str] | None = None, model=None) -> list[Rating]:
    """OpenSkill ratings for games with any number of seats or teams, best mu first.

    Each game is ``(teams, ranks)``: teams is a list of teams, each a list of
    player names (a free-for-all has one player per team); ranks holds one
    number per team, lower is better, and equal ranks are ties. Games are
    rated one at a time in the given order, so the result is deterministic.
    ``model`` defaults to openskill's PlackettLuce() (mu 25, sigma 25/3).

    rating is mu; low/high are mu ∓ 1.96 sigma, sigma being the model's
    uncertainty (a Bayesian spread, not a sampling interval). Sorted by mu,
    not by the conservative mu - 3 sigma. games counts games played; points
    counts first places, a tie for first shared among the tied teams.
    """
    from openskill.models import PlackettLuce

    model = model or PlackettLuce()
    current = {name: model.rating(name=name) for name in dict.fromkeys(names or ())}
    played: Counter[str] = Counter()
    points: Counter[str] = Counter()
    for teams, ranks in games:
        _check_game(teams, ranks)
        for p in _players(teams):
            if p not in current:
                current[p] = model.rating(name=p)
        before = [[current[p] for p in team] for team in teams]
        after = model.rate(before, ranks=list(ranks))
        current.update((p, r) for team, rated in zip(teams, after) for p, r in zip(team, rated))
        _credit(teams, ranks, played, points)
    rows = [Rating(name, r.mu, r.mu - Z95 * r.sigma, r.mu + Z95 * r.sigma,
                   played[name], points[name]) for name, r in current.items()]
    return sorted(rows, key=lambda row: -row.rating)


def _players(teams):
    return [p for team in teams for p in team]


def _check_game(teams, ranks):
    players = _players(teams)
    if len(teams) < 2 or len(ranks) != len(teams) or not all(teams):
        raise ValueError(f"a game needs two or more non-empty teams and one rank per team, "
                         f"got teams={teams!r} ranks={ranks!r}")
    if len(set(players)) != len(players):
        raise ValueError(f"a player appears twice in one game: {teams!r}")


def _credit(teams, ranks, played, points):
    """Count the game for every player, and a (shared) first place for the winners."""
    best = min(ranks)
    winners = [team for team, rank in zip(teams, ranks) if rank == best]
    played.update(_players(teams))
    for team in winners:
        for p in team:
            points[p] += 1 / len(winners)


# --- Output ------------------------------------------------------------------

def format_table(ratings: Iterable[Rating], title: str | None = None, unit: str = "Elo") -> str:
    """An aligned text table: rank, name, rating, 95% interval, games, points, score.

    >>> print(format_table([Rating("ann", 12.5, -3.0, 28.0, 10, 6.5)]))
    #  name    Elo   95% interval  games  points  score
    ---------------------------------------------------
    1  ann   +12.5  [-3.0, +28.0]     10     6.5  65.0%
    """
    header = ("#", "name", unit, "95% interval", "games", "points", "score")
    rows = [header] + [_cells(rank, r) for rank, r in enumerate(ratings, 1)]
    widths = [max(len(row[c]) for row in rows) for c in range(len(header))]
    lines = [_join(row, widths) for row in rows]
    lines.insert(1, "-" * len(lines[0]))
    return "\n".join([title, *lines] if title else lines)


def _cells(rank: int, r: Rating) -> tuple[str, ...]:
    score = "-" if math.isnan(r.score) else f"{100 * r.score:.1f}%"
    return (str(rank), r.name, f"{r.rating:+.1f}", f"[{r.low:+.1f}, {r.high:+.1f}]",
            str(r.games), f"{r.points:.1f}", score)


def _join(cells, widths):
    """Name column left-aligned, the others right-aligned."""
    return "  ".join(cell.ljust(w) if c == 1 else cell.rjust(w)
                     for c, (cell, w) in enumerate(zip(cells, widths))).rstrip()


def plot_ratings(ratings: Iterable[Rating], path, title: str = "", unit: str = "Elo") -> Path:
    """Save a PNG with one point per player (best at the top) and its 95% interval.

    Infinite interval ends are drawn without a bar. Parent folders are created.
    Uses matplotlib's Agg renderer through a bare Figure, so no display and no
    change of the global pyplot backend are needed. Returns the path.
    """
    from matplotlib.figure import Figure

    ratings = list(ratings)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig = Figure(figsize=(7, 1.2 + 0.35 * max(len(ratings), 1)), layout="constrained")
    ax = fig.add_subplot()
    y = np.arange(len(ratings))[::-1]
    errors = np.array([[_finite(r.rating - r.low), _finite(r.high - r.rating)]
                       for r in ratings]).reshape(-1, 2).T
    ax.errorbar([r.rating for r in ratings], y, xerr=errors, fmt="o", capsize=3)
    ax.set_yticks(y, [r.name for r in ratings])
    ax.set_xlabel(f"{unit} (95% interval)")
    ax.set_title(title)
    ax.grid(axis="x", alpha=0.3)
    fig.savefig(path, dpi=100, format="png")
    return path


def _finite(x: float) -> float:
    return x if math.isfinite(x) else 0.0
