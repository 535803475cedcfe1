"""Standings of a competition with their tie-breaks, its crosstable and its ratings: the
one standings code of the arena and the server (docs/tournaments.md), for games of two
sides (:class:`~boardlab.arena.pairing.Result`) and of more (tables of ``k``,
:class:`~boardlab.arena.tables.Table`).

- **Score**: 1 a win, ½ a draw, 0 a loss; a bye scores its points (1), a forfeit win 1.
  With more sides a game gives each its share of the other sides it beat (1 first, 0
  last, a tie half); a bye ½.
- **Buchholz**: the sum of the final scores of the opponents met, every opponent at every
  table (byes add nothing).
- **Sonneborn–Berger**: the sum of the final scores of the opponents beaten (placed
  below), plus half those of the opponents drawn (placed level).
- **Rating**: Bradley–Terry on the Elo scale with its 95% interval
  (:func:`~boardlab.arena.ratings.bradley_terry`) from the games played out (forfeits and
  byes are no evidence of strength); with more sides OpenSkill's Plackett–Luce mu and
  mu ± 1.96 sigma (:func:`~boardlab.arena.ratings.openskill_ratings`, as the arena).
  With more sides W-D-L counts first, middle (or level) and last places.

The order: score, then Buchholz and Sonneborn–Berger in a Swiss, Sonneborn–Berger in a
round robin or a gauntlet (where Buchholz only mirrors the score), then wins, then the name;
a ladder ranks by rating, then score.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from .pairing import Result
from .ratings import Rating, bradley_terry, openskill_ratings
from .tables import Table, as_table

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


def standings(names: Sequence[str], results: Iterable[Result | Table],
              format: str = "swiss") -> list[Line]:
    """Every player's line, ranked (``rank`` from 1; equal keys share no rank: the name
    decides last)."""
    if format not in FORMATS:
        raise ValueError(f"unknown format {format!r} (known: {', '.join(FORMATS)})")
    tables = [as_table(result) for result in results]
    lines = {name: Line(name) for name in names}
    for table in tables:
        for name in table.sides:
            if name not in lines:
                lines[name] = Line(name)
        _count(lines, table)
    for line in lines.values():
        line.buchholz = sum(lines[o].score for o, _ in line.opponents)
        line.sonneborn_berger = sum(points * lines[o].score for o, points in line.opponents)
    for rating in ratings(list(lines), tables):
        line = lines[rating.name]
        line.rating, line.rating_low, line.rating_high = \
            rating.rating, rating.low, rating.high
    ranked = sorted(lines.values(), key=_key(format))
    for rank, line in enumerate(ranked, 1):
        line.rank = rank
    return ranked


def ratings(names: list[str], tables: list[Table]) -> list[Rating]:
    """The ratings of the games played out: Bradley–Terry (Elo) when every game has two
    sides, OpenSkill (Plackett–Luce) when they have more."""
    played = [t for t in tables if len(t.sides) > 1 and t.forfeit is None]
    if not played:
        return []
    if all(len(t.sides) == 2 for t in played):
        return bradley_terry([(t.sides[0], t.sides[1], t.points[0]) for t in played], names)
    return openskill_ratings([([[name] for name in t.sides], [-p for p in t.points])
                              for t in played], names)


def rating_kind(sides: int) -> str:
    """What the standings' rating is, for games of ``sides`` sides."""
    return "Elo (Bradley-Terry)" if sides == 2 else "OpenSkill mu"


def _count(lines: dict[str, Line], table: Table) -> None:
    if len(table.sides) == 1:
        line = lines[table.sides[0]]
        line.byes += 1
        line.score += table.points[0]
        return
    top, bottom = max(table.points), min(table.points)
    for name, points in zip(table.sides, table.points):
        line = lines[name]
        line.games += 1
        line.score += points
        line.wins += points == top and top != bottom
        line.losses += points == bottom and top != bottom
        line.draws += top == bottom or bottom < points < top
        line.forfeits += table.forfeit is not None and points == bottom and top != bottom
    for name, other, points in table.pairwise():
        lines[name].opponents.append((other, points))


def _key(format: str):
    if format == "ladder":
        return lambda line: (-(line.rating if line.rating is not None else 0.0),
                             -line.score, line.player)
    if format in ("round-robin", "gauntlet"):
        return lambda line: (-line.score, -line.sonneborn_berger, -line.wins, line.player)
    return lambda line: (-line.score, -line.buchholz, -line.sonneborn_berger, -line.wins,
                         line.player)


def crosstable(order: Sequence[str],
               results: Iterable[Result | Table]) -> list[list[list[float]]]:
    """``table[i][j]``: the points player ``order[i]`` scored against ``order[j]`` in each
    game they met, in the order played (empty: they have not met); with more sides a
    game's pairwise result (1 placed above, ½ level, 0 below)."""
    index = {name: i for i, name in enumerate(order)}
    table: list[list[list[float]]] = [[[] for _ in order] for _ in order]
    for result in sorted((as_table(r) for r in results), key=lambda r: r.round):
        for name, other, points in result.pairwise():
            if name in index and other in index:
                table[index[name]][index[other]].append(points)
    return table


def scores_by_round(names: Sequence[str],
                    results: Iterable[Result | Table]) -> dict[str, list[float]]:
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
