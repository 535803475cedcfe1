"""The tournaments in the database: made, read, moved from status to status, their players
and pairings. Plain functions over a SQLAlchemy engine (called off the event loop).

A status changes in one conditional ``UPDATE`` (two directors' clicks, or two server
processes, cannot both win), and a round is claimed the same way (``round`` moves from r to
r + 1 once), so a round is paired once.
"""
from __future__ import annotations

import secrets
from dataclasses import dataclass

from sqlalchemy import Engine, and_, func, insert, select, update

from ...arena.pairing import Result
from ...arena.tables import Table
from ..accounts.schema import users
from ..accounts.users import now
from .schema import pairings, players, tournaments

CREATED, RUNNING, PAUSED, OVER = "created", "running", "paused", "over"
TOURNAMENT_ID = 12
LISTED = 50


@dataclass(frozen=True)
class Entrant:
    """A player of a tournament: its account and how it plays."""

    user_id: int
    username: str
    bot: bool
    seed: int
    active: bool
    house: bool


def new_id() -> str:
    return secrets.token_urlsafe(TOURNAMENT_ID)[:16]


def add(engine: Engine, values: dict, entrants: list[int]) -> str:
    """Store a new tournament (``values``: its columns) with its players; its id."""
    tournament_id = new_id()
    when = now()
    with engine.begin() as db:
        db.execute(insert(tournaments).values(id=tournament_id, status=CREATED, round=0,
                                              created=when, **values))
        for seed, user_id in enumerate(entrants):
            db.execute(insert(players).values(tournament_id=tournament_id, user_id=user_id,
                                              seed=seed, active=True, joined=when))
    return tournament_id


def find(engine: Engine, tournament_id: str):
    with engine.connect() as db:
        return db.execute(select(tournaments, users.c.username.label("director_name"))
                          .join(users, users.c.id == tournaments.c.director)
                          .where(tournaments.c.id == tournament_id)).first()


def listed(engine: Engine) -> list:
    """The newest tournaments, with their director's name and their players' count."""
    count = select(func.count()).where(players.c.tournament_id == tournaments.c.id) \
        .scalar_subquery()
    query = select(tournaments, users.c.username.label("director_name"),
                   count.label("entrants")) \
        .join(users, users.c.id == tournaments.c.director) \
        .order_by(tournaments.c.created.desc(), tournaments.c.id).limit(LISTED)
    with engine.connect() as db:
        return list(db.execute(query))


def open_count(engine: Engine, director: int) -> int:
    """How many tournaments the account directs that are not over."""
    with engine.connect() as db:
        return db.execute(select(func.count()).where(tournaments.c.director == director,
                                                     tournaments.c.status != OVER)).scalar() \
            or 0


def running(engine: Engine) -> list[str]:
    """The ids of the running tournaments the server plays (a restarted server picks them
    up; one played by ``boardlab tournament`` is that command's)."""
    with engine.connect() as db:
        return list(db.execute(select(tournaments.c.id)
                               .where(tournaments.c.status == RUNNING,
                                      tournaments.c.arena.is_(None))).scalars())


def entrants(engine: Engine, tournament_id: str, house) -> list[Entrant]:
    """The players in entry order; ``house(user)`` tells a house bot's level."""
    query = select(players.c.user_id, players.c.seed, players.c.active, users) \
        .join(users, users.c.id == players.c.user_id) \
        .where(players.c.tournament_id == tournament_id).order_by(players.c.seed)
    with engine.connect() as db:
        return [Entrant(row.user_id, row.username or "(deleted)", row.bot, row.seed,
                        row.active, house(row) is not None) for row in db.execute(query)]


def accounts(engine: Engine, user_ids: list[int]) -> dict:
    """Account id -> its row."""
    with engine.connect() as db:
        return {row.id: row for row in db.execute(select(users)
                                                  .where(users.c.id.in_(user_ids)))}


def join(engine: Engine, tournament_id: str, user_id: int) -> bool:
    """Add the account (again, when it had withdrawn); False when it is in already."""
    with engine.begin() as db:
        row = db.execute(select(players).where(players.c.tournament_id == tournament_id,
                                               players.c.user_id == user_id)).first()
        if row is not None:
            if row.active:
                return False
            db.execute(update(players).where(players.c.tournament_id == tournament_id,
                                             players.c.user_id == user_id)
                       .values(active=True))
            return True
        last = db.execute(select(func.max(players.c.seed))
                          .where(players.c.tournament_id == tournament_id)).scalar()
        db.execute(insert(players).values(tournament_id=tournament_id, user_id=user_id,
                                          seed=0 if last is None else last + 1, active=True,
                                          joined=now()))
        return True


def withdraw(engine: Engine, tournament_id: str, user_id: int, remove: bool) -> bool:
    """Take the account out (``remove``: before the start, its row goes); False when it
    was not in."""
    condition = and_(players.c.tournament_id == tournament_id, players.c.user_id == user_id,
                     players.c.active.is_(True))
    with engine.begin() as db:
        if remove:
            return db.execute(players.delete().where(condition)).rowcount == 1
        return db.execute(update(players).where(condition)
                          .values(active=False)).rowcount == 1


def move(engine: Engine, tournament_id: str, before: tuple[str, ...], after: str,
         **values) -> bool:
    """Move the tournament from one of ``before`` to ``after``; False when it was not in
    one of them any more."""
    with engine.begin() as db:
        done = db.execute(update(tournaments)
                          .where(tournaments.c.id == tournament_id,
                                 tournaments.c.status.in_(before))
                          .values(status=after, **values))
        return done.rowcount == 1


def pair_round(engine: Engine, tournament_id: str, current: int, rows: list[dict]) -> bool:
    """Claim the next round (``round`` moves from ``current`` to ``current + 1`` once) and
    store its pairings (``rows``: white, black, game_id, score, forfeit) in one
    transaction, while the tournament is running; False when another caller claimed it
    first, or it was paused or ended meanwhile (a ladder's end)."""
    when = now()
    with engine.begin() as db:
        done = db.execute(update(tournaments)
                          .where(tournaments.c.id == tournament_id,
                                 tournaments.c.round == current,
                                 tournaments.c.status == RUNNING)
                          .values(round=current + 1))
        if done.rowcount != 1:
            return False
        for row in rows:
            db.execute(insert(pairings).values(
                tournament_id=tournament_id, round=current + 1, created=when,
                finished=when if row["score"] is not None else None, **row))
        return True


def pairing_of_game(engine: Engine, game_id: str):
    with engine.connect() as db:
        return db.execute(select(pairings).where(pairings.c.game_id == game_id)).first()


def finish(engine: Engine, game_id: str, score: float, forfeit: str | None,
           points: list[float] | None = None) -> bool:
    """Record a game's end (white's score; ``points``: each side's, for a table of more
    than two); False when it was recorded already."""
    with engine.begin() as db:
        done = db.execute(update(pairings).where(pairings.c.game_id == game_id,
                                                 pairings.c.score.is_(None))
                          .values(score=score, forfeit=forfeit, finished=now(),
                                  points=points))
        return done.rowcount == 1


def sides_of(row) -> list[int]:
    """A pairing's account ids, a side each in seat order (one: a bye)."""
    if row.sides is not None:
        return list(row.sides)
    return [row.white] if row.black is None else [row.white, row.black]


def pairings_of(engine: Engine, tournament_id: str) -> list:
    """Every pairing, in order, with both players' names."""
    with engine.connect() as db:
        return list(db.execute(select(pairings).where(pairings.c.tournament_id ==
                                                      tournament_id)
                               .order_by(pairings.c.round, pairings.c.id)))


def results(rows: list, names: dict[int, str]) -> list[Result | Table]:
    """The finished pairings as the arena's results (names, not account ids): a
    :class:`Result` of two sides, a :class:`Table` of more."""
    found: list[Result | Table] = []
    for row in rows:
        if row.score is None:
            continue
        if row.sides is not None:
            found.append(Table(tuple(names[user] for user in row.sides), tuple(row.points),
                               row.forfeit, row.round))
        else:
            found.append(Result(names[row.white],
                                names[row.black] if row.black is not None else None,
                                row.score, row.forfeit, row.round))
    return found


def pairs(rows: list, names: dict[int, str]) -> list[Result]:
    """The finished pairings of a game of two sides as the arena's results."""
    return [result for result in results(rows, names) if isinstance(result, Result)]
