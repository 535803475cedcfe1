"""The director's part for games of any number of sides (docs/tournaments.md, "Games of
more sides"): which games a tournament may be of, the seats of a pairing's game, each
side's points, and the rounds and ladder tables of games of more than two sides (the
arena's one table code, arena/tables.py).

An entrant fills a **side**, as in the arena (arena/schedule.py): a seat, or a whole team
in a team game (a ``2v2``: the account holds both seats of its team, a house bot plays
each with an AI of its level, a connected bot gets both). So a game of two teams is a
tournament of two sides like any other, and a game of N players one of N sides.
"""
from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Sequence
from functools import lru_cache

from ...arena.schedule import side_scores
from ...arena.tables import (MAX_TABLES, Group, Table, bye_points, ladder_tables,
                             round_robin_tables, seat_counts, swiss_tables)
from ...arena.tiebreaks import standings
from ...arena.weng_lin import scores_of
from ...core.game import Game
from ..accounts.pairing import new_game_id, seat_of
from ..accounts.ratings import NotRatable, pool_of
from ..rest import ApiError
from . import records


def sides_count(game: Game) -> int:
    """The sides of a game: its declared teams (a seat each by default)."""
    return len(game.teams)


def check_game(game: Game, rated, clock: dict | None) -> None:
    """A game a tournament may be of, rated or not; ApiError otherwise."""
    if not isinstance(rated, bool):
        raise ApiError("bad_request", "'rated' must be true or false")
    if rated and any(len(members) > 1 for members in game.teams):
        raise ApiError("bad_spec", f"a tournament of {game.spec} cannot be rated: an "
                       f"entrant plays a whole team, and a rated game needs every seat "
                       f"held by an account of its own")
    if rated:
        try:
            pool_of(game, clock)
        except NotRatable as error:
            raise ApiError("bad_spec", str(error)) from None


def check_field(format_: str, k: int, entrants: int, cycles: int | None) -> None:
    """400 bad_request for a round robin of more sides with too many games."""
    if format_ != "round-robin" or k == 2 or entrants < k:
        return
    games = math.comb(entrants, k) * (cycles or 1)
    if games > MAX_TABLES:
        raise ApiError("bad_request", f"a round robin of {entrants} players at tables of "
                       f"{k} has {games} games, more than {MAX_TABLES}: make it a Swiss")


def seats_of(game: Game, accounts: Sequence) -> list[dict]:
    """The seats of a pairing's game: each side's account holds every seat of its side
    (``accounts``: one a side, in side order)."""
    seats: list[dict] = [{}] * game.num_seats
    for members, account in zip(game.teams, accounts):
        for seat in members:
            seats[seat] = seat_of(account)
    return seats


def points_of(game: Game, returns: Sequence[float]) -> list[float]:
    """Each side's points from a game's returns: its share of the other sides it beat (a
    tie half), 1 a win, ½ a draw and 0 a loss with two sides."""
    return side_scores(game, list(returns))


def loser_of(game: Game, state, sides: list[int]) -> int | None:
    """The account of the side that resigned (a no-show's forfeit), else None."""
    seat = state.resigned
    return None if seat is None else sides[game.team_of(seat)]


# Games of more than two sides --------------------------------------------------------------
@lru_cache(maxsize=16)
def schedule(names: tuple[str, ...], k: int, cycles: int) -> list[list[Group]]:
    """A round robin's rounds of tables (computed once per field)."""
    return round_robin_tables(names, k, cycles)


def total_rounds(row, names: Sequence[str], k: int) -> int:
    """The rounds of a round robin of more sides (its schedule's), else 0."""
    if row.format != "round-robin" or len(names) < k:
        return 0
    try:
        return len(schedule(tuple(names), k, row.rounds or 1))
    except ValueError:
        return 0


def next_round(row, rows: list, entrants: list[records.Entrant], k: int) -> list[Group]:
    """The next round's tables: the round robin's fixed schedule over every entrant, or a
    Swiss among the active ones from the results so far."""
    order = [e.username for e in entrants]
    if row.format == "round-robin":
        return schedule(tuple(order), k, row.rounds or 1)[row.round]
    names = {e.user_id: e.username for e in entrants}
    active = [e.username for e in entrants if e.active]
    if len(active) < k:                  # too few left for a table: byes, to the end
        return [(name,) for name in active]
    return swiss_tables(active, k, records.results(rows, names), order)


def ladder(rows: list, entrants: list[records.Entrant], k: int,
           at_once: int = 1) -> list[Group]:
    """Tables of the players with a free place (fewer than ``at_once`` games going), by
    nearest rating: one pass of the arena's ladder tables per place, a table's first
    player skipping those it met last or is playing now while others are free."""
    names = {e.user_id: e.username for e in entrants}
    going = [p for p in rows if p.score is None and p.sides is not None]
    busy: Counter[int] = Counter(user for p in going for user in p.sides)
    free = {e.username: at_once - busy[e.user_id] for e in entrants if e.active}
    avoid: dict[str, set[str]] = defaultdict(set)
    for p in going:
        playing = {names[user] for user in p.sides}
        for name in playing:
            avoid[name] |= playing - {name}
    results = records.results(rows, names)
    tables = [r for r in results if isinstance(r, Table)]
    for played in sorted(tables, key=lambda t: t.round):
        if len(played.sides) > 1:
            for name in played.sides:
                avoid[name] = set(played.sides) - {name}
    ratings = {line.player: line.rating or 0.0
               for line in standings(list(names.values()), results, "ladder")}
    counts = seat_counts(tables, k)
    found: list[Group] = []
    for _ in range(at_once):
        some = ladder_tables([n for n, places in free.items() if places > 0], k, ratings,
                             avoid, counts)
        if not some:
            break
        for group in some:
            for name in group:
                free[name] -= 1
                avoid[name] |= set(group) - {name}
        found += some
    return found


def pairings(row, rows: list, entrants: list[records.Entrant], k: int) -> list[dict]:
    """The pairing rows of the next round (a ladder: of its idle players) of a game of
    ``k`` sides."""
    groups = ladder(rows, entrants, k, row.games_at_once or 1) if row.format == "ladder" \
        else next_round(row, rows, entrants, k)
    by_name = {e.username: e for e in entrants}
    return [table_row([by_name[name] for name in group], k) for group in groups]


def table_row(group: list[records.Entrant], k: int) -> dict:
    """A pairing row of a table of more sides: a game to play, or one settled at once (a
    bye: a game's mean score; a table with withdrawn players: they place last)."""
    ids = [e.user_id for e in group]
    row = {"white": ids[0], "black": ids[1] if len(ids) > 1 else None, "game_id": None,
           "score": None, "forfeit": None, "sides": ids, "points": None}
    if len(group) == 1:
        points = [bye_points(k)]
        return {**row, "score": points[0], "points": points, "forfeit": "bye"}
    if not all(e.active for e in group):
        points = scores_of([1.0 if e.active else 0.0 for e in group])
        return {**row, "score": points[0], "points": points, "forfeit": "withdrawn"}
    return {**row, "game_id": new_game_id()}
