"""Rated games: their pool, and the rating update when one ends.

A pool is a game family (its name and the options its game declares as naming pools,
``Game.rating_options``) and the speed of the game's clock as lichess estimates it
(core/speeds.py; a correspondence clock or none: ``correspondence``):
``carteso-9-blitz``, ``ctor-8-1v1-correspondence``. A rated game keeps every other
option at its default, and is rated when it ends with every seat held by a different
account: by Glicko-2 when it has two sides of one seat each, else (Cartagena's 3-5
players, CTOR's teams) by OpenSkill's Weng-Lin model on Glicko-2's scale
(arena/weng_lin.py says why), both in the one ratings table.

The update is one transaction that cannot lose a concurrent one: the game is marked rated
first (its primary key: a game is rated once), both rating rows are made if missing, then
read under row locks (``SELECT ... FOR UPDATE`` on PostgreSQL, in account order so that two
updates never deadlock; SQLite's single writer serialises them, the first write taking its
lock), and written back; a transaction that loses a race (a deadlock, a busy database) is
run again.
"""
from __future__ import annotations

import logging
import time

from sqlalchemy import Engine, insert, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import OperationalError

from ...arena.glicko2 import LICHESS, Rating, provisional, rate_game
from ...arena.weng_lin import rate_sides, scores_of
from ...core.game import Game
from ...core.speeds import speed_of
from ..store import games
from .schema import history, rated_games, ratings
from .users import now

log = logging.getLogger("boardlab.server")
ATTEMPTS = 8


class NotRatable(ValueError):
    """A game that cannot be rated (the message says why)."""


def family_of(game: Game) -> str:
    """The game family of a configured game (``carteso-9``), or NotRatable."""
    changed = [option.name for option in type(game).declared_options
               if option.name not in game.rating_options + game.rating_free_options
               and not option.analysis
               and game.options[option.name] != type(game)().options[option.name]]
    if changed:
        raise NotRatable(f"a rated game keeps its options at their defaults but "
                         f"{', '.join(game.rating_options) or 'none'}: "
                         f"{', '.join(changed)} differ")
    return "-".join([game.name, *(str(game.options[name]).lower()
                                  for name in game.rating_options)])


def pool_of(game: Game, clock: dict | None) -> str:
    """The rating pool of a configured game played on ``clock`` (a stored clock: None,
    ``{"base", "increment"}`` or ``{"days"}``): its family and its speed; NotRatable when
    the game cannot be rated."""
    return f"{family_of(game)}-{speed_of(clock)}"


def scores(returns: list[float]) -> list[float]:
    """Each seat's score (1 won, 0.5 drew, 0 lost) of a two-seat game's returns."""
    first = 1.0 if returns[0] > returns[1] else 0.5 if returns[0] == returns[1] else 0.0
    return [first, 1.0 - first]


def public(row) -> dict:
    """A rating as the API shows it."""
    return {"rating": round(row.rating), "deviation": round(row.deviation),
            "games": row.games,
            "provisional": provisional(Rating(row.rating, row.deviation, row.volatility))}


def updated(before: list[Rating], outcome: list[float],
            sides: list[list[int]]) -> tuple[list[Rating], list[float]]:
    """Every seat's rating after the game and its score (1 won, 0 lost; of more sides its
    share of the sides it beat): Glicko-2 for two sides of one seat, else Weng-Lin."""
    if len(sides) == 2 and all(len(side) == 1 for side in sides):
        first, second = sides[0][0], sides[1][0]
        score = scores([outcome[first], outcome[second]])
        new = rate_game(before[first], before[second], score[0], LICHESS)
        after = {first: (new[0], score[0]), second: (new[1], score[1])}
    else:
        returns = [sum(outcome[seat] for seat in side) / len(side) for side in sides]
        rated = rate_sides([[before[seat] for seat in side] for side in sides], returns)
        after = {seat: (rating, points) for side, ratings_, points in
                 zip(sides, rated, scores_of(returns)) for seat, rating in zip(side, ratings_)}
    return [after[seat][0] for seat in range(len(before))], \
        [after[seat][1] for seat in range(len(before))]


def rate(engine: Engine, game_id: str, outcome: list[float],
         sides: list[list[int]] | None = None) -> bool:
    """Rate a finished game (``outcome``: each seat's returns; ``sides``: the seats of each
    side, by default one a seat) when it is a rated game each of whose seats a different
    account holds; False when it is not rated (or was rated already)."""
    sides = sides or [[seat] for seat in range(len(outcome))]
    for attempt in range(ATTEMPTS):
        try:
            return _rate(engine, game_id, outcome, sides)
        except OperationalError as error:       # a deadlock, a busy or locked database
            if attempt == ATTEMPTS - 1:
                raise
            log.warning("game %s: rating again after %s", game_id, str(error)[:80])
            time.sleep(0.05 * (attempt + 1))
    return False


def _rate(engine: Engine, game_id: str, outcome: list[float], sides: list[list[int]]) -> bool:
    with engine.begin() as db:
        row = db.execute(select(games.c.pool, games.c.seats)
                         .where(games.c.id == game_id)).first()
        if row is None or row.pool is None:
            return False
        accounts = [seat.get("user") for seat in row.seats]
        if None in accounts or len(set(accounts)) != len(accounts) or len(accounts) < 2:
            return False
        when = now()
        dialect = postgresql if engine.dialect.name == "postgresql" else sqlite
        marked = db.execute(dialect.insert(rated_games).values(
            game_id=game_id, pool=row.pool, created=when).on_conflict_do_nothing()
            .returning(rated_games.c.game_id)).first()
        if marked is None:
            return False                        # rated already (another process)
        fresh = Rating()
        db.execute(dialect.insert(ratings).values([
            {"user_id": user, "pool": row.pool, "rating": fresh.rating,
             "deviation": fresh.deviation, "volatility": fresh.volatility, "games": 0,
             "updated": when} for user in sorted(accounts)]).on_conflict_do_nothing())
        found = {r.user_id: r for r in db.execute(
            select(ratings).where(ratings.c.pool == row.pool,
                                  ratings.c.user_id.in_(accounts))
            .order_by(ratings.c.user_id).with_for_update())}
        before = [Rating(found[u].rating, found[u].deviation, found[u].volatility)
                  for u in accounts]
        after, score = updated(before, outcome, sides)
        for user, old, new, points in zip(accounts, before, after, score):
            db.execute(update(ratings).where(ratings.c.user_id == user,
                                             ratings.c.pool == row.pool)
                       .values(rating=new.rating, deviation=new.deviation,
                               volatility=new.volatility, games=ratings.c.games + 1,
                               updated=when))
            db.execute(insert(history).values(game_id=game_id, user_id=user, pool=row.pool,
                                              score=points, before=old.rating,
                                              rating=new.rating, deviation=new.deviation,
                                              created=when))
        return True
