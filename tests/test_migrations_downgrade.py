"""Revision 0007's downgrade (pools without their speeds again), on SQLite and PostgreSQL:
a database at the newest revision whose accounts hold ratings of one family at several
speeds is downgraded to 0006 and every pool loses its speed; each account keeps one row a
family, the one the revision's docstring names (most games, then lowest deviation, then
updated last, then fastest speed), with the games of all; upgraded again, the pools get
their speeds back from the games' clocks and the kept rating goes to each speed played."""
from datetime import UTC, datetime

from alembic.config import Config
from alembic.runtime.environment import EnvironmentContext
from sqlalchemy import create_engine, insert, select

from boardlab.server import migrations
from boardlab.server.accounts.schema import history, rated_games, ratings, users
from boardlab.server.store import games

SPEC = "carteso(size=5)"
BLITZ, RAPID = {"base": 180.0, "increment": 2.0}, {"base": 600.0, "increment": 5.0}
BULLET = {"base": 60.0, "increment": 0.0}
EARLY, LATER, LAST = (datetime(2025, 1, day, tzinfo=UTC) for day in (1, 2, 3))
#: game id -> (clock, pool at the newest revision)
GAMES = {"a1": (BLITZ, "carteso-5-blitz"), "a2": (BLITZ, "carteso-5-blitz"),
         "a3": (BLITZ, "carteso-5-blitz"), "a4": (None, "carteso-5-correspondence"),
         "r1": (RAPID, "carteso-5-rapid"), "r2": (RAPID, "carteso-5-rapid"),
         "u1": (BULLET, "carteso-5-bullet"), "u2": (BULLET, "carteso-5-bullet"),
         "k1": (BLITZ, "carteso-9-blitz")}
ALICE, BOB, CAROL, DAN = 101, 102, 103, 104
#: (account, game) of every rating history row
PLAYED = [(ALICE, game) for game in ("a1", "a2", "a3", "a4", "k1")] + \
    [(BOB, game) for game in ("a1", "a2", "r1", "r2")] + \
    [(CAROL, game) for game in ("r1", "r2", "u1", "u2")] + [(DAN, "a3"), (DAN, "u1")]
#: (account, pool): (rating, deviation, volatility, games, updated)
RATINGS = {
    # alice: most games wins over a lower deviation updated later
    (ALICE, "carteso-5-blitz"): (1700.0, 70.0, 0.061, 3, EARLY),
    (ALICE, "carteso-5-correspondence"): (1550.0, 50.0, 0.062, 1, LAST),
    (ALICE, "carteso-9-blitz"): (1480.0, 120.0, 0.063, 1, EARLY),     # another family
    # bob: as many games at each speed, the lower deviation wins over updated later
    (BOB, "carteso-5-blitz"): (1400.0, 80.0, 0.064, 2, LAST),
    (BOB, "carteso-5-rapid"): (1450.0, 60.0, 0.065, 2, EARLY),
    # carol: as many games, as sure: updated last wins
    (CAROL, "carteso-5-rapid"): (1600.0, 90.0, 0.066, 2, EARLY),
    (CAROL, "carteso-5-bullet"): (1350.0, 90.0, 0.067, 2, LATER),
    # dan: alike but for the speed: the fastest wins
    (DAN, "carteso-5-blitz"): (1520.0, 100.0, 0.068, 1, EARLY),
    (DAN, "carteso-5-bullet"): (1490.0, 100.0, 0.069, 1, EARLY),
}


def kept(user: int, pool: str, games: int) -> tuple:
    """Row ``(user, pool)`` of RATINGS with ``games`` games."""
    rating, deviation, volatility, _, updated = RATINGS[user, pool]
    return rating, deviation, volatility, games, updated


#: the ratings after the downgrade: the kept row of each account and family, the games of all
DOWNGRADED = {(ALICE, "carteso-5"): kept(ALICE, "carteso-5-blitz", 4),
              (ALICE, "carteso-9"): kept(ALICE, "carteso-9-blitz", 1),
              (BOB, "carteso-5"): kept(BOB, "carteso-5-rapid", 4),
              (CAROL, "carteso-5"): kept(CAROL, "carteso-5-bullet", 4),
              (DAN, "carteso-5"): kept(DAN, "carteso-5-bullet", 2)}
#: ... and upgraded again: the kept rating at each speed of the history, its games there
UPGRADED_AGAIN = {
    **{(ALICE, pool): kept(ALICE, "carteso-5-blitz", games)
       for pool, games in (("carteso-5-blitz", 3), ("carteso-5-correspondence", 1))},
    (ALICE, "carteso-9-blitz"): kept(ALICE, "carteso-9-blitz", 1),
    **{(BOB, pool): kept(BOB, "carteso-5-rapid", 2)
       for pool in ("carteso-5-blitz", "carteso-5-rapid")},
    **{(CAROL, pool): kept(CAROL, "carteso-5-bullet", 2)
       for pool in ("carteso-5-rapid", "carteso-5-bullet")},
    **{(DAN, pool): kept(DAN, "carteso-5-bullet", 1)
       for pool in ("carteso-5-blitz", "carteso-5-bullet")}}


def test_the_pool_speeds_downgrade(database):
    """On SQLite and on PostgreSQL (the ``database`` fixture, tests/conftest.py)."""
    check_downgrade(database)


def check_downgrade(url: str) -> None:
    engine = create_engine(url)
    try:
        assert migrations.upgrade(engine)[1] == migrations.head()
        fill(engine)
        downgrade(engine, "0006")
        with engine.connect() as db:
            assert migrations.current(db) == "0006"
        assert pools(engine) == {game: family(pool) for game, (_, pool) in GAMES.items()} | \
            {"casual": None}
        assert rated_and_history(engine) == {(game, user, family(GAMES[game][1]))
                                             for user, game in PLAYED}
        assert rows(engine) == DOWNGRADED
        assert migrations.upgrade(engine)[1] == migrations.head()      # and up again
        assert pools(engine) == {game: pool for game, (_, pool) in GAMES.items()} | \
            {"casual": None}
        assert rated_and_history(engine) == {(game, user, GAMES[game][1])
                                             for user, game in PLAYED}
        assert rows(engine) == UPGRADED_AGAIN
    finally:
        engine.dispose()


def fill(engine) -> None:
    """The accounts, rated games (and a casual one), history and ratings above."""
    with engine.begin() as db:
        db.execute(insert(users), [
            {"id": user, "username": name, "name_key": name, "bot": False, "disabled": False,
             "deleted": False, "created": EARLY}
            for user, name in ((ALICE, "alice"), (BOB, "bob"), (CAROL, "carol"), (DAN, "dan"))])
        for game_id, (clock, pool) in {**GAMES, "casual": (BLITZ, None)}.items():
            db.execute(insert(games).values(id=game_id, spec=SPEC, seed=1, seats=[],
                                            status="over", clock=clock, pool=pool,
                                            created=EARLY, updated=EARLY))
            if pool is not None:
                db.execute(insert(rated_games).values(game_id=game_id, pool=pool,
                                                      created=EARLY))
        db.execute(insert(history), [
            {"game_id": game_id, "user_id": user, "pool": GAMES[game_id][1], "score": 1.0,
             "before": 1500.0, "rating": 1600.0, "deviation": 200.0, "created": EARLY}
            for user, game_id in PLAYED])
        db.execute(insert(ratings), [
            {"user_id": user, "pool": pool, "rating": rating, "deviation": deviation,
             "volatility": volatility, "games": count, "updated": updated}
            for (user, pool), (rating, deviation, volatility, count, updated)
            in RATINGS.items()])


def downgrade(engine, target: str) -> None:
    """Run the revisions' downgrades down to ``target`` (the server itself only upgrades)."""
    script = migrations.scripts()

    def steps(revision, context):
        return script._downgrade_revs(target, revision)

    with engine.begin() as connection, \
            EnvironmentContext(Config(), script, fn=steps, destination_rev=target) as env:
        env.configure(connection=connection, version_table=migrations.VERSION_TABLE,
                      render_as_batch=True)
        with env.begin_transaction():
            env.run_migrations()


def family(pool: str) -> str:
    """``carteso-5-blitz`` -> ``carteso-5``."""
    return pool.rsplit("-", 1)[0]


def pools(engine) -> dict:
    with engine.connect() as db:
        return dict(db.execute(select(games.c.id, games.c.pool)).all())


def rated_and_history(engine) -> set:
    """(game, account, pool) of every history row; asserts each rated game's pool is its
    history's."""
    with engine.connect() as db:
        rated = dict(db.execute(select(rated_games.c.game_id, rated_games.c.pool)).all())
        found = set(db.execute(select(history.c.game_id, history.c.user_id,
                                      history.c.pool)).all())
    assert {game: pool for game, _, pool in found} == rated
    return found


def rows(engine) -> dict:
    """(account, pool): (rating, deviation, volatility, games, updated) of every rating."""
    with engine.connect() as db:
        return {(row.user_id, row.pool): (row.rating, row.deviation, row.volatility,
                                          row.games, _utc(row.updated))
                for row in db.execute(select(ratings))}


def _utc(when: datetime) -> datetime:
    """SQLite gives the stored time without its zone (UTC), PostgreSQL with it."""
    return when if when.tzinfo else when.replace(tzinfo=UTC)
