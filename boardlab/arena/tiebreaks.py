"""Standings of a competition of two-sided games with their tie-breaks, its crosstable and
its Bradley–Terry ratings: the one standings code of the arena and the server
(docs/tournaments.md).

- **Score**: 1 a win, ½ a draw, 0 a loss; a bye scores its points (1), a forfeit win 1.
- **Buchholz**: the sum of the final scores of the opponents met (byes add nothing).
- **Sonneborn–Berger**: the sum of the final scores of the opponents beaten, plus half
  those of the opponents drawn.
- **Rating**: Bradley–Terry on the Elo scale with its 95% interval
  (:func:`~boardlab.arena.ratings.bradley_terry`) from the games played out (forfeits and
  byes are no evidence of strength).

The order: score, then Buchholz and Sonneborn–Berger in a Swiss, Sonneborn–Berger in a
round robin or a gauntlet (where Buchholz only mirrors the score), then wins, then the name;
a ladder ranks by rating, then score.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from .pairing import Result
from .ratings import bradley_terry

FORMATS = ("round-robin", "swiss", "ladder", "gauntlet")


@dataclass
class Line:
    """One player's line in the standings."""

    player: str
    score: float = 0.0
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    byes: int = 0
    forfeits: int = 0                 # games lost without being played out
    buchholz: float = 0.0
    sonneborn_berger: float = 0.0
    rating: float | None = None       # Bradley–Terry, Elo scale, centred on 0
    rating_low: float | None = None
    rating_high: float | None = None
    rank: int = 0
    opponents: list[tuple[str, float]] = field(default_factory=list)   # (opponent, points)

    def public(self) -> dict:
        """The line as JSON (no opponents list)."""
        return {"rank": self.rank, "player": self.player, "score": self.score,
                "games": self.games, "wins": self.wins, "draws": self.draws,
                "losses": self.losses, "byes": self.byes, "forfeits": self.forfeits,
                "buchholz": self.buchholz, "sonneborn_berger": self.sonneborn_berger,
                "rating": _rounded(self.rating), "rating_low": _rounded(self.rating_low),
                "rating_high": _rounded(self.rating_high)}


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


def standings(names: Sequence[str], results: Iterable[Result],
              format: str = "swiss") -> list[Line]:
    """Every player's line, ranked (``rank`` from 1; equal keys share no rank: the name
    decides last)."""
    if format not in FORMATS:
        raise ValueError(f"unknown format {format!r} (known: {', '.join(FORMATS)})")
    results = list(results)
    lines = {name: Line(name) for name in names}
    for result in results:
        for name in (result.white, result.black):
            if name is not None and name not in lines:
                lines[name] = Line(name)
        _count(lines, result)
    for line in lines.values():
        line.buchholz = sum(lines[o].score for o, _ in line.opponents)
        line.sonneborn_berger = sum(points * lines[o].score for o, points in line.opponents)
    played = [(r.white, r.black, r.score) for r in results
              if r.black is not None and r.forfeit is None]
    if played:
        for rating in bradley_terry(played, list(lines)):
            line = lines[rating.name]
            line.rating, line.rating_low, line.rating_high = \
                rating.rating, rating.low, rating.high
    ranked = sorted(lines.values(), key=_key(format))
    for rank, line in enumerate(ranked, 1):
        line.rank = rank
    return ranked


def _count(lines: dict[str, Line], result: Result) -> None:
    if result.black is None:
        line = lines[result.white]
        line.byes += 1
        line.score += result.score
        return
    for name, other, points in ((result.white, result.black, result.score),
                                (result.black, result.white, 1.0 - result.score)):
        line = lines[name]
        line.games += 1
        line.score += points
        line.wins += points == 1.0
        line.draws += points == 0.5
        line.losses += points == 0.0
        line.forfeits += result.forfeit is not None and points == 0.0
        line.opponents.append((other, points))


def _key(format: str):
    if format == "ladder":
        return lambda line: (-(line.rating if line.rating is not None else 0.0),
                             -line.score, line.player)
    if format in ("round-robin", "gauntlet"):
        return lambda line: (-line.score, -line.sonneborn_berger, -line.wins, line.player)
    return lambda line: (-line.score, -line.buchholz, -line.sonneborn_berger, -line.wins,
                         line.player)


def crosstable(order: Sequence[str], results: Iterable[Result]) -> list[list[list[float]]]:
    """``table[i][j]``: the points player ``order[i]`` scored in each game against
    ``order[j]``, in the order played (empty: they have not met)."""
    index = {name: i for i, name in enumerate(order)}
    table: list[list[list[float]]] = [[[] for _ in order] for _ in order]
    for result in sorted(results, key=lambda r: r.round):
        if result.black is None or result.white not in index or result.black not in index:
            continue
        w, b = index[result.white], index[result.black]
        table[w][b].append(result.score)
        table[b][w].append(1.0 - result.score)
    return table


def scores_by_round(names: Sequence[str], results: Iterable[Result]) -> dict[str, list[float]]:
    """Each player's running score after each round (rounds numbered from 1), for a
    chart of scores over rounds."""
    results = list(results)
    last = max((r.round for r in results), default=0)
    points = {name: [0.0] * last for name in names}
    for result in results:
        for name, scored in result.scores().items():
            if name in points and result.round >= 1:
                points[name][result.round - 1] += scored
    running: dict[str, list[float]] = {}
    for name, per_round in points.items():
        total, series = 0.0, []
        for scored in per_round:
            total += scored
            series.append(total)
        running[name] = series
    return running
