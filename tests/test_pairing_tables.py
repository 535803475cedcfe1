"""The arena's pairing and standings of games of more than two sides (boardlab/arena/
tables.py, tiebreaks.py; docs/tournaments.md, "Games of more sides"): properties of round
robins, Swisses and ladders at tables of 3 to 5 over many random fields, and the standings'
scores, tie-breaks and OpenSkill ratings of tables."""
import itertools
import math
import random
from collections import Counter

import pytest

from boardlab.arena.pairing import Result
from boardlab.arena.tables import (MAX_TABLES, Table, as_table, ladder_tables,
                                   round_robin_tables, seat_counts, swiss_tables)
from boardlab.arena.tiebreaks import crosstable, scores_by_round, standings
from boardlab.arena.weng_lin import scores_of


def names_of(n):
    return [f"p{i:02d}" for i in range(n)]


def spread(tables, k):
    """The largest difference between how often a player took two seats."""
    counts = seat_counts(tables, k)
    return max(max(seats) - min(seats) for seats in counts.values())


FIELDS = [(n, k, cycles) for k in (3, 4, 5) for n in range(k, 14) for cycles in (1, 2)
          if math.comb(n, k) * cycles <= MAX_TABLES]


@pytest.mark.parametrize("n,k,cycles", FIELDS)
def test_round_robin_tables_meet_every_group_once_a_cycle_seats_balanced(n, k, cycles):
    names = names_of(n)
    rounds = round_robin_tables(names, k, cycles)
    for tables in rounds:
        seated = [name for table in tables for name in table]
        assert len(seated) == len(set(seated))               # nobody twice in a round
        assert all(len(table) == k for table in tables)     # no byes: everyone plays
        assert len(tables) >= 1
    groups = Counter(frozenset(table) for tables in rounds for table in tables)
    assert set(groups) == {frozenset(g) for g in itertools.combinations(names, k)}
    assert set(groups.values()) == {cycles}
    games = Counter(name for tables in rounds for table in tables for name in table)
    assert set(games.values()) == {math.comb(n - 1, k - 1) * cycles}
    played = [Table(table, (0.0,) * k) for tables in rounds for table in tables]
    assert spread(played, k) <= 2                            # each seat about equally
    assert len(rounds) <= math.ceil(math.comb(n, k) * cycles / (n // k)) + 2 * n


def test_round_robin_tables_refuse_too_small_and_too_large_fields():
    with pytest.raises(ValueError, match="at least 3 players"):
        round_robin_tables(names_of(2), 3)
    with pytest.raises(ValueError, match="more than"):
        round_robin_tables(names_of(30), 4)


def play_swiss(rng, n, k, rounds):
    names, results = names_of(n), []
    for number in range(1, rounds + 1):
        tables = swiss_tables(names, k, results)
        seated = [name for table in tables for name in table]
        assert sorted(seated) == names                       # everyone plays or sits out
        byes = [table for table in tables if len(table) == 1]
        assert len(byes) == n % k and all(len(t) == k for t in tables if len(t) > 1)
        assert tables[-len(byes):] == byes if byes else True
        had = Counter(t.sides[0] for t in results if len(t.sides) == 1)
        for (name,) in byes:                                 # a bye to one with the fewest
            assert had[name] == min(had[other] for other in names
                                    if (other,) not in byes or other == name)
        for table in tables:
            if len(table) == 1:
                results.append(Table(table, (0.5,), "bye", number))
            else:
                returns = [rng.choice([0, 1, 1, 2]) for _ in table]
                results.append(Table(table, tuple(scores_of(returns)), None, number))
    return results


def repeats(results):
    met = Counter(frozenset(pair) for t in results
                  for pair in itertools.combinations(t.sides, 2))
    return sum(count - 1 for count in met.values())


def test_swiss_tables_over_many_random_fields():
    """Everyone plays or has a bye each round, byes go round, seats balance, and no two
    players meet again while the field leaves room (k * k players a round after the
    first)."""
    rng = random.Random(49)
    for _ in range(150):
        k = rng.randint(3, 5)
        rounds = rng.randint(2, 3)
        n = rng.randint(k * k * (rounds - 1), k * k * (rounds - 1) + 12)
        results = play_swiss(rng, n, k, rounds)
        assert repeats(results) == 0, (n, k, rounds)
        assert spread(results, k) <= 2
    for _ in range(100):                                     # small fields: never stuck
        k = rng.randint(3, 5)
        n = rng.randint(k, 3 * k)
        results = play_swiss(rng, n, k, rng.randint(1, 6))
        assert spread(results, k) <= 3


def test_swiss_tables_start_from_the_top_and_prefer_new_opponents():
    names = names_of(9)
    first = swiss_tables(names, 3, [])
    assert first == [("p00", "p01", "p02"), ("p03", "p04", "p05"), ("p06", "p07", "p08")]
    results = [Table(table, (1.0, 0.5, 0.0), None, 1) for table in first]
    second = swiss_tables(names, 3, results)
    assert repeats(results + [Table(t, (0.0,) * 3, None, 2) for t in second]) == 0
    assert set(second[0]) == {"p00", "p03", "p06"}          # the leaders meet
    assert set(second[-1]) == {"p02", "p05", "p08"}


def test_ladder_tables_group_nearest_ratings_and_avoid_last_opponents():
    ratings = {"a": 90, "b": 80, "c": 70, "d": 10, "e": 5, "f": 0, "g": -50}
    tables = ladder_tables(list(ratings), 3, ratings)
    assert [set(t) for t in tables] == [{"a", "b", "c"}, {"d", "e", "f"}]   # g waits
    tables = ladder_tables(list(ratings), 3, ratings, avoid={"a": {"b", "c"}})
    assert set(tables[0]) == {"a", "d", "e"}
    rng = random.Random(7)
    for _ in range(200):
        k = rng.randint(3, 5)
        idle = names_of(rng.randint(0, 20))
        found = ladder_tables(idle, k, {n: rng.random() for n in idle})
        seated = [name for table in found for name in table]
        assert len(seated) == len(set(seated)) == len(idle) - len(idle) % k


def test_table_standings_score_places_with_tie_breaks_and_openskill():
    results = [Table(("a", "b", "c"), (1.0, 0.5, 0.0), None, 1),
               Table(("d",), (0.5,), "bye", 1),
               Table(("b", "c", "d"), (0.75, 0.75, 0.0), None, 2),   # b and c level
               Table(("a",), (0.5,), "bye", 2)]
    lines = {line.player: line for line in standings("abcd", results, "swiss")}
    assert {p: line.score for p, line in lines.items()} == \
        {"a": 1.5, "b": 1.25, "c": 0.75, "d": 0.5}
    assert (lines["a"].wins, lines["a"].draws, lines["a"].losses) == (1, 0, 0)
    assert (lines["b"].wins, lines["b"].draws, lines["b"].losses) == (1, 1, 0)
    assert (lines["c"].wins, lines["c"].draws, lines["c"].losses) == (1, 0, 1)
    assert lines["a"].byes == 1 and lines["a"].games == 1
    # Buchholz: every opponent at every table; S-B: those placed below, half the level
    assert lines["b"].buchholz == 1.5 + 0.75 + 0.75 + 0.5
    assert lines["b"].sonneborn_berger == 0.75 + 0.5 * 0.75 + 0.5
    assert lines["a"].rating is not None and lines["a"].rating_low < lines["a"].rating
    assert lines["a"].rating > lines["d"].rating              # OpenSkill mu
    cells = crosstable(["a", "b", "c", "d"], results)
    assert cells[1][2] == [1.0, 0.5] and cells[2][1] == [0.0, 0.5] and cells[0][3] == []
    assert scores_by_round("abcd", results)["b"] == [0.5, 1.25]


def test_two_sided_results_are_tables_of_two():
    result = Result("a", "b", 1.0, None, 3)
    assert as_table(result) == Table(("a", "b"), (1.0, 0.0), None, 3)
    assert as_table(Result("a", None, 1.0, "bye")).sides == ("a",)
    two = standings("ab", [result], "swiss")
    assert [(line.player, line.wins, line.losses) for line in two] == \
        [("a", 1, 0), ("b", 0, 1)]
