"""Who plays whom, and with which colour, in a competition of two-sided games: the one
pairing code of the arena and the server (docs/tournaments.md).

Three formats:

- **Round robin** (:func:`round_robin_rounds`): Berger tables (the circle method), every
  pair once per cycle; a cycle's colours are balanced (each player's whites and blacks
  differ by at most one) and a second cycle (a double round robin) swaps them, so that
  every pair plays once with each colour. An odd field gets a bye each round.
- **Swiss** (:func:`swiss_round`): players of equal score meet (the top half of a score
  group against its bottom half, as the Dutch system does), nobody meets the same
  opponent twice, colours balance (nobody's whites and blacks differ by more than two, and
  nobody gets one colour three times running) and an odd field gives a bye to the
  lowest-placed player who has had none. The pairing is a depth-first search under these
  rules; when no pairing keeps them all (too many rounds for the field) the colour rules
  give way first, then the no-repeat rule.
- **Ladder** (:func:`ladder_pairs`): whoever is idle, by nearest rating, avoiding an
  immediate rematch where another opponent is idle.

A pairing is ``(white, black)``: ``white`` takes the first side (seat 0), ``black`` the
second; ``black`` None is a bye. Everything here is plain data and deterministic.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

Pairing = tuple[str, str | None]
SEARCH_BUDGET = 20_000          # nodes of the Swiss search before a rule gives way
BYE_POINTS = 1.0


@dataclass(frozen=True)
class Result:
    """One finished pairing: ``score`` is white's (1 won, 0.5 drew, 0 lost); ``black``
    None is a bye (``score`` the bye's points); ``forfeit`` names how a game was lost
    without being played out (``no-show``, ``bye``), None when it was played."""

    white: str
    black: str | None
    score: float
    forfeit: str | None = None
    round: int = 0

    def scores(self) -> dict[str, float]:
        """Each player's points from this result."""
        if self.black is None:
            return {self.white: self.score}
        return {self.white: self.score, self.black: 1.0 - self.score}


# Round robin -------------------------------------------------------------------------------
def round_robin_rounds(names: Sequence[str], cycles: int = 1) -> list[list[Pairing]]:
    """Every round of a round robin of ``cycles`` cycles (2: a double round robin), in
    order; a bye (``black`` None) where the field is odd.

    >>> round_robin_rounds(["a", "b", "c", "d"])
    [[('a', 'd'), ('c', 'b')], [('d', 'b'), ('a', 'c')], [('c', 'd'), ('b', 'a')]]
    """
    if len(names) < 2:
        raise ValueError("a round robin needs at least two players")
    if cycles < 1:
        raise ValueError("a round robin has at least one cycle")
    field: list[str | None] = list(names)
    if len(field) % 2:
        field.append(None)
    n = len(field)
    fixed, ring = field[-1], field[:-1]
    cycle: list[list[Pairing]] = []
    for number in range(n - 1):
        order = ring[number:] + ring[:number]
        pairs: list[tuple[str | None, str | None]] = []
        # the fixed player alternates colours; the others keep the Berger table's
        first = (order[0], fixed) if number % 2 == 0 else (fixed, order[0])
        pairs.append(first)
        for i in range(1, n // 2):
            a, b = order[i], order[n - 1 - i]
            pairs.append((a, b) if i % 2 == 0 else (b, a))
        cycle.append([_with_bye(pair) for pair in pairs])
    rounds: list[list[Pairing]] = []
    for number in range(cycles):
        for played in cycle:
            rounds.append(played if number % 2 == 0 else [_swapped(p) for p in played])
    return rounds


def _swapped(pair: Pairing) -> Pairing:
    """The other colours (a bye stays a bye)."""
    white, black = pair
    return (black, white) if black is not None else pair


def _with_bye(pair: tuple[str | None, str | None]) -> Pairing:
    a, b = pair
    if a is None:
        assert b is not None
        return (b, None)
    return (a, b)


# Swiss ---------------------------------------------------------------------------------------
@dataclass
class _Player:
    name: str
    score: float
    seed: int                     # place in the field (0 best): rating or entry order
    colours: list[str]            # "w"/"b" of the games played, in order
    opponents: set[str]
    byes: int

    @property
    def balance(self) -> int:
        return self.colours.count("w") - self.colours.count("b")

    def can_take(self, colour: str) -> bool:
        """Whether this colour keeps the colour rules (difference <= 2, not three in a
        row)."""
        change = 1 if colour == "w" else -1
        if abs(self.balance + change) > 2:
            return False
        return self.colours[-2:] != [colour, colour]


def swiss_round(names: Sequence[str], results: Iterable[Result],
                seeds: Sequence[str] | None = None) -> list[Pairing]:
    """The next round's pairings of a Swiss among ``names`` (the players still in), given
    the ``results`` so far; ``seeds``: the field's order for equal scores (best first;
    default ``names``' order). The bye, if any, comes last.

    >>> swiss_round(["a", "b", "c", "d"], [])
    [('a', 'c'), ('b', 'd')]
    """
    players = _swiss_players(names, list(results), seeds)
    order = sorted(players.values(), key=lambda p: (-p.score, p.seed))
    bye: str | None = None
    if len(order) % 2:
        bye_player = min((p for p in order), key=lambda p: (p.byes, p.score, -p.seed))
        bye = bye_player.name
        order = [p for p in order if p.name != bye]
    for repeats, colours in ((False, True), (False, False), (True, False)):
        found = _search(order, repeats, colours)
        if found is not None:
            pairs: list[Pairing] = [_coloured(players[a], players[b]) for a, b in found]
            return pairs + ([(bye, None)] if bye is not None else [])
    raise AssertionError("a pairing with repeats allowed always exists")


def _swiss_players(names: Sequence[str], results: list[Result],
                   seeds: Sequence[str] | None) -> dict[str, _Player]:
    order = list(seeds) if seeds is not None else list(names)
    rank = {name: i for i, name in enumerate(order)}
    players = {name: _Player(name, 0.0, rank.get(name, len(order) + i), [], set(), 0)
               for i, name in enumerate(names)}
    for result in sorted(results, key=lambda r: r.round):
        for name, points in result.scores().items():
            if name in players:
                players[name].score += points
        if result.black is None:
            if result.white in players:
                players[result.white].byes += 1
            continue
        for name, colour, other in ((result.white, "w", result.black),
                                    (result.black, "b", result.white)):
            if name in players:
                players[name].opponents.add(other)
                if result.forfeit is None:          # an unplayed game gives no colour
                    players[name].colours.append(colour)
    return players


def _search(order: list[_Player], repeats: bool, colours: bool) -> list[tuple[str, str]] | None:
    """Pair ``order`` (best first) by depth-first search: the best unpaired player takes
    the first acceptable candidate (Dutch order within its score group, then the groups
    below); None when no pairing keeps the rules within the search budget."""
    budget = [SEARCH_BUDGET]

    def ok(a: _Player, b: _Player) -> bool:
        if not repeats and b.name in a.opponents:
            return False
        if colours:
            return any(a.can_take(c) and b.can_take(_other(c)) for c in ("w", "b"))
        return True

    def candidates(first: _Player, rest: list[_Player]) -> list[_Player]:
        group = [p for p in rest if p.score == first.score]
        below = [p for p in rest if p.score != first.score]
        # Dutch: the top half of the score group meets its bottom half in order
        half = (len(group) + 1) // 2
        preferred = half - 1 if group else 0
        ranked = sorted(range(len(group)), key=lambda i: (abs(i - preferred), i))
        return [group[i] for i in ranked] + sorted(
            below, key=lambda p: (abs(p.score - first.score), p.seed))

    def pair(rest: list[_Player]) -> list[tuple[str, str]] | None:
        if not rest:
            return []
        budget[0] -= 1
        if budget[0] < 0:
            return None
        first, others = rest[0], rest[1:]
        for candidate in candidates(first, others):
            if not ok(first, candidate):
                continue
            remaining = [p for p in others if p is not candidate]
            found = pair(remaining)
            if found is not None:
                return [(first.name, candidate.name), *found]
            if budget[0] < 0:
                return None
        return None

    return pair(order)


def _other(colour: str) -> str:
    return "b" if colour == "w" else "w"


def _coloured(a: _Player, b: _Player) -> Pairing:
    """White and black of a pair: the one owed white (lower balance, then black last
    time, then the better placed) takes it, where the colour rules allow."""
    def wants_white(p: _Player) -> tuple:
        return (p.balance, 1 if p.colours[-1:] == ["w"] else 0 if p.colours else 0.5,
                p.seed)
    first, second = (a, b) if wants_white(a) <= wants_white(b) else (b, a)
    if not (first.can_take("w") and second.can_take("b")) and \
            second.can_take("w") and first.can_take("b"):
        first, second = second, first
    return (first.name, second.name)


# Ladder --------------------------------------------------------------------------------------
def ladder_pairs(idle: Sequence[str], ratings: dict[str, float],
                 last_opponent: dict[str, str] | None = None,
                 whites: dict[str, int] | None = None,
                 playing: dict[str, set[str]] | None = None) -> list[Pairing]:
    """Pairs of idle players by nearest rating (``ratings``; 0 for a missing one), the
    best first; a player whose nearest idle neighbour was its last opponent (or one it is
    playing now, ``playing``: a ladder where a player is in several games at once) meets
    the next nearest when there is one. Who had fewer whites takes white. An odd one out
    waits.

    >>> ladder_pairs(["a", "b", "c", "d"], {"a": 100, "b": 90, "c": 0, "d": -5})
    [('a', 'b'), ('c', 'd')]
    >>> ladder_pairs(["a", "b", "c", "d"], {}, playing={"a": {"b", "c"}})
    [('a', 'd'), ('b', 'c')]
    """
    last = last_opponent or {}
    played_white = whites or {}
    busy = playing or {}
    order = sorted(idle, key=lambda name: (-ratings.get(name, 0.0), name))
    pairs: list[Pairing] = []
    while len(order) >= 2:
        first = order.pop(0)
        avoid = busy.get(first, set()) | ({last[first]} if first in last else set())
        pick = next((i for i, name in enumerate(order) if name not in avoid), 0)
        second = order.pop(pick)
        if played_white.get(second, 0) < played_white.get(first, 0):
            first, second = second, first
        pairs.append((first, second))
    return pairs
