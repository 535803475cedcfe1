"""Who plays whom in a competition of games of more than two sides (Cartagena's 3-5
players): tables of ``k`` players, the one pairing code of the arena and the server for
them (docs/tournaments.md, "Games of more sides"). Two sides use arena/pairing.py.

A *table* is a tuple of players, one per side, in seat order (side 0 first); a 1-tuple is
a bye. Three formats, as for two sides:

- **Round robin** (:func:`round_robin_tables`): every group of ``k`` players meets once a
  cycle. The groups are put in rounds greedily (the groups of the players with the most
  games left first, disjoint within a round); a player who sits a round out is not paired
  (no bye: every player plays as many games). The seat order of each table is chosen so
  that every player takes each seat as equally often as the schedule allows.
- **Swiss** (:func:`swiss_tables`): the players in order (score, then seed), ``n mod k``
  byes to the lowest placed who had the fewest, then tables of ``k`` from the top down:
  the best unseated player and the ``k - 1`` of the next few that have met it and each
  other least, nearest in the order; then swaps between tables while they lower the
  number of pairs that meet again.
- **Ladder** (:func:`ladder_tables`): idle players grouped ``k`` at a time by nearest
  rating, avoiding the players one met last or is playing now where others are idle.

Every result of a game of ``k`` sides is a :class:`Table`: each side's points (its share
of the other sides it beat, a tie half: 1 first, 0 last; arena/weng_lin.scores_of).
Everything here is plain data and deterministic.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations, permutations

from .pairing import BYE_POINTS, Result

Group = tuple[str, ...]
MAX_TABLES = 2000               # a round robin's games a cycle, at most
WINDOW = 3                      # a Swiss table's candidates: the next WINDOW * k players
MULTI_BYE_POINTS = 0.5          # a bye of a game of more sides: a game's mean score


@dataclass(frozen=True)
class Table:
    """One finished table: ``sides`` (a player a side, in seat order; one name: a bye),
    ``points`` each side's; ``forfeit`` how it was settled without being played out
    (``no-show``, ``bye``, ``withdrawn``), None when played."""

    sides: Group
    points: tuple[float, ...]
    forfeit: str | None = None
    round: int = 0

    def scores(self) -> dict[str, float]:
        """Each player's points from this result."""
        return dict(zip(self.sides, self.points))

    def pairwise(self) -> list[tuple[str, str, float]]:
        """``(player, opponent, points)`` for every ordered pair at the table: 1 when the
        player placed above the opponent, ½ level, 0 below (two sides: the game's
        score)."""
        return [(a, b, 1.0 if pa > pb else 0.5 if pa == pb else 0.0)
                for a, pa in zip(self.sides, self.points)
                for b, pb in zip(self.sides, self.points) if a != b]


def as_table(result: Result | Table) -> Table:
    """A two-sided result as a table (a table as it is)."""
    if isinstance(result, Table):
        return result
    if result.black is None:
        return Table((result.white,), (result.score,), result.forfeit, result.round)
    return Table((result.white, result.black), (result.score, 1.0 - result.score),
                 result.forfeit, result.round)


def bye_points(sides: int) -> float:
    """A bye's points: a win with two sides, a game's mean score with more."""
    return BYE_POINTS if sides == 2 else MULTI_BYE_POINTS


# Seats ---------------------------------------------------------------------------------------
def seat_counts(tables: Iterable[Table], k: int) -> dict[str, list[int]]:
    """How often each player took each seat in the games played out."""
    counts: dict[str, list[int]] = {}
    for table in tables:
        if len(table.sides) == k and table.forfeit is None:
            for seat, name in enumerate(table.sides):
                counts.setdefault(name, [0] * k)[seat] += 1
    return counts


def seated(group: Sequence[str], counts: dict[str, list[int]]) -> Group:
    """The seat order of ``group`` in which its players have taken their seats least
    often before (the first such order in ``group``'s order); ``counts`` is updated."""
    k = len(group)
    best = min(permutations(group),
               key=lambda order: sum(counts.get(name, [0] * k)[seat]
                                     for seat, name in enumerate(order)))
    for seat, name in enumerate(best):
        counts.setdefault(name, [0] * k)[seat] += 1
    return best


# Round robin ---------------------------------------------------------------------------------
def round_robin_tables(names: Sequence[str], k: int, cycles: int = 1) -> list[list[Group]]:
    """Every round of a round robin of tables of ``k`` (every group of ``k`` once a
    cycle), in order, each table seated.

    >>> round_robin_tables(["a", "b", "c", "d"], 3)
    [[('a', 'b', 'c')], [('b', 'a', 'd')], [('c', 'd', 'a')], [('d', 'c', 'b')]]
    """
    if k < 2:
        raise ValueError("a table has at least two sides")
    if len(names) < k:
        raise ValueError(f"a round robin of {k} sides needs at least {k} players")
    if cycles < 1:
        raise ValueError("a round robin has at least one cycle")
    groups = list(combinations(range(len(names)), k))
    if len(groups) * cycles > MAX_TABLES:
        raise ValueError(f"a round robin of {len(names)} players at tables of {k} has "
                         f"{len(groups) * cycles} games, more than {MAX_TABLES}")
    counts: dict[str, list[int]] = {}
    rounds: list[list[Group]] = []
    for _ in range(cycles):
        left = groups
        while left:
            chosen = _packed(left, len(names) // k)
            taken = set(chosen)
            left = [group for group in left if group not in taken]
            rounds.append([seated([names[p] for p in group], counts) for group in chosen])
    return rounds


def _packed(left: list[tuple[int, ...]], most: int,
            budget: int = 4000) -> list[tuple[int, ...]]:
    """Disjoint groups of ``left`` for one round: the groups of the players with the most
    games left first, by a depth-first search for ``most`` of them within ``budget``
    steps, else the largest set it met (a greedy pass at least)."""
    remaining = Counter(p for group in left for p in group)
    order = sorted(left, key=lambda g: (-sum(remaining[p] for p in g), g))
    best: list[tuple[int, ...]] = []
    steps = [budget]

    def extend(start: int, used: set[int], chosen: list[tuple[int, ...]]) -> bool:
        nonlocal best
        if len(chosen) > len(best):
            best = list(chosen)
        if len(chosen) == most:
            return True
        for index in range(start, len(order)):
            steps[0] -= 1
            if steps[0] < 0:
                return False
            group = order[index]
            if used.isdisjoint(group):
                chosen.append(group)
                if extend(index + 1, used | set(group), chosen):
                    return True
                chosen.pop()
        return False

    extend(0, set(), [])
    return best


# Swiss ---------------------------------------------------------------------------------------
def swiss_tables(names: Sequence[str], k: int, results: Iterable[Result | Table],
                 seeds: Sequence[str] | None = None) -> list[Group]:
    """The next round's tables of a Swiss among ``names`` (the players still in) at
    tables of ``k``, given the ``results`` so far; ``seeds``: the order for equal scores
    (best first; default ``names``' order). The byes, if any, come last.

    >>> swiss_tables(["a", "b", "c", "d", "e", "f", "g"], 3, [])
    [('a', 'b', 'c'), ('d', 'e', 'f'), ('g',)]
    """
    if len(names) < k:
        raise ValueError(f"a round of {k} sides needs at least {k} players")
    tables = [as_table(r) for r in results]
    order_of = {name: i for i, name in enumerate(seeds if seeds is not None else names)}
    score: Counter[str] = Counter()
    byes: Counter[str] = Counter()
    met: Counter[frozenset[str]] = Counter()
    for table in tables:
        score.update(table.scores())
        if len(table.sides) == 1:
            byes[table.sides[0]] += 1
        for a, b in combinations(table.sides, 2):
            met[frozenset((a, b))] += 1
    rank = {name: order_of.get(name, len(order_of) + i) for i, name in enumerate(names)}
    order = sorted(names, key=lambda n: (-score[n], rank[n]))
    out = sorted(order, key=lambda n: (byes[n], score[n], -rank[n]))[:len(order) % k]
    order = [n for n in order if n not in out]
    place = {name: i for i, name in enumerate(order)}
    groups: list[list[str]] = []
    while order:
        first, rest = order[0], order[1:WINDOW * k]
        best = min(combinations(rest, k - 1),
                   key=lambda others: (_repeats((first, *others), met),
                                       sum(place[o] for o in others), others))
        groups.append([first, *best])
        order = [n for n in order[1:] if n not in best]
    _improve(groups, met, place)
    counts = seat_counts(tables, k)
    return [seated(group, counts) for group in groups] + [(name,) for name in out]


def _repeats(group: Sequence[str], met: Counter[frozenset[str]]) -> int:
    """The pairs of ``group`` that have met before (each meeting counted)."""
    return sum(met[frozenset(pair)] for pair in combinations(group, 2))


def _improve(groups: list[list[str]], met: Counter[frozenset[str]],
             place: dict[str, int], passes: int = 20) -> None:
    """Swap players between tables while a swap lowers the repeats (the nearer tables
    first, so the score groups stay together where they can)."""
    for _ in range(passes):
        changed = False
        for i in range(len(groups)):
            for j in range(i + 1, len(groups)):
                before = _repeats(groups[i], met) + _repeats(groups[j], met)
                if before == 0:
                    continue
                for a in range(len(groups[i])):
                    for b in range(len(groups[j])):
                        one, two = list(groups[i]), list(groups[j])
                        one[a], two[b] = two[b], one[a]
                        if _repeats(one, met) + _repeats(two, met) < before:
                            groups[i], groups[j] = sorted(one, key=place.__getitem__), \
                                sorted(two, key=place.__getitem__)
                            before = _repeats(groups[i], met) + _repeats(groups[j], met)
                            changed = True
        if not changed:
            return


# Ladder --------------------------------------------------------------------------------------
def ladder_tables(idle: Sequence[str], k: int, ratings: dict[str, float],
                  avoid: dict[str, set[str]] | None = None,
                  counts: dict[str, list[int]] | None = None) -> list[Group]:
    """Tables of ``k`` idle players by nearest rating (``ratings``; 0 for a missing one),
    the best first; a table's first player skips the players of ``avoid`` (the ones it
    met last or is playing now) while others are idle. Fewer than ``k`` left wait. Each
    table is seated by ``counts`` (updated).

    >>> ladder_tables(["a", "b", "c", "d"], 3, {"a": 9, "b": 5, "c": 1, "d": 0})
    [('a', 'b', 'c')]
    """
    shunned = avoid or {}
    seats = counts if counts is not None else {}
    order = sorted(idle, key=lambda name: (-ratings.get(name, 0.0), name))
    tables: list[Group] = []
    while len(order) >= k:
        first = order.pop(0)
        skip = shunned.get(first, set())
        picks = [name for name in order if name not in skip][:k - 1]
        picks += [name for name in order if name not in picks][:k - 1 - len(picks)]
        order = [name for name in order if name not in picks]
        tables.append(seated(sorted([first, *picks],
                                    key=lambda n: (-ratings.get(n, 0.0), n)), seats))
    return tables
