"""Rating pools name the speed too: a pool is a game family and the speed of the game's
clock (``carteso-9`` becomes ``carteso-9-blitz``, ``carteso-9-correspondence``, ...), as
accounts/ratings.py names them now.

Every stored pool is renamed from its game's stored clock (core/speeds.py): a rated game's
``server_games.pool``, its ``server_rated_games`` row and its ``server_rating_history``
rows. A rating row (an account in an old pool) moves to the speed of that account's rated
games in the pool; an account that played the old pool at several speeds gets one row per
speed, each starting from the rating it had (one rating cannot be split back into its
games), counting the games it played at that speed. A rating row without any history (none
is made so) goes to ``correspondence``, the speed of a game without a clock.

No renamed pool can merge into an existing one: before this revision no pool named a speed,
so every new name is new (and two old names never give one new name: the speed is added to
the old name).

The downgrade takes the speed off every pool name again (``carteso-9-blitz`` becomes
``carteso-9``; a name whose last part is no speed stays as it is). It loses information,
by design: an account with rows of one family at several speeds gets one row, and one
rating cannot be made from several. The row kept is, in this order of preference, the one
with the most games (the rating that rests on the most games), then the lowest deviation
(the surest), then the one updated last, then the fastest speed (core/speeds.py ``ALL``
order), so that the result never depends on the order the database returns rows in. Its
rating, deviation, volatility and ``updated`` stay; its ``games`` becomes the sum of the
games of all the rows merged (the games the account played in the family, as before this
revision). The games, rated-game and history rows lose nothing but the speed in their pool
name; upgrading again splits each kept row by the speeds of its history, as above.

Revision ID: 0007
Revises: 0006
"""
from __future__ import annotations

from collections import Counter, defaultdict

import sqlalchemy as sa
from alembic import op

from boardlab.core.speeds import ALL, CORRESPONDENCE, speed_of

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

games = sa.table("server_games", sa.column("id", sa.String), sa.column("pool", sa.String),
                 sa.column("clock", sa.JSON))
rated_games = sa.table("server_rated_games", sa.column("game_id", sa.String),
                       sa.column("pool", sa.String))
history = sa.table("server_rating_history", sa.column("game_id", sa.String),
                   sa.column("user_id", sa.Integer), sa.column("pool", sa.String))
ratings = sa.table("server_ratings", sa.column("user_id", sa.Integer),
                   sa.column("pool", sa.String), sa.column("rating", sa.Float),
                   sa.column("deviation", sa.Float), sa.column("volatility", sa.Float),
                   sa.column("games", sa.Integer),
                   sa.column("updated", sa.DateTime(timezone=True)))


def upgrade() -> None:
    db = op.get_bind()
    speeds = {row.id: speed_of(row.clock) for row in db.execute(
        sa.select(games.c.id, games.c.clock).where(games.c.pool.is_not(None)))}
    played: dict[tuple[int, str], Counter] = defaultdict(Counter)
    for row in db.execute(sa.select(history.c.game_id, history.c.user_id, history.c.pool)):
        played[row.user_id, row.pool][speeds.get(row.game_id, CORRESPONDENCE)] += 1
    for row in list(db.execute(sa.select(ratings))):
        counts = played.get((row.user_id, row.pool)) or Counter({CORRESPONDENCE: row.games})
        db.execute(sa.delete(ratings).where(ratings.c.user_id == row.user_id,
                                            ratings.c.pool == row.pool))
        moved = dict(row._mapping)
        for speed, count in sorted(counts.items()):
            one = len(counts) == 1
            db.execute(sa.insert(ratings).values(
                {**moved, "pool": f"{row.pool}-{speed}", "games": row.games if one else count}))
    for table in (games, rated_games, history):
        key = table.c.id if table is games else table.c.game_id
        found = list(db.execute(sa.select(key, table.c.pool).where(table.c.pool.is_not(None))
                                .distinct()))
        for game_id, pool in found:
            speed = speeds.get(game_id, CORRESPONDENCE)
            db.execute(sa.update(table).where(key == game_id, table.c.pool == pool)
                       .values(pool=f"{pool}-{speed}"))


def _family(pool: str) -> str:
    family, _, speed = pool.rpartition("-")
    return family if speed in ALL and family else pool


def downgrade() -> None:
    """The speeds leave the names again; an account's rows of one family at several speeds
    become one (the module's docstring says which is kept: most games, lowest deviation,
    updated last, fastest speed), with the games of all."""
    db = op.get_bind()
    for table in (games, rated_games, history):
        for (pool,) in list(db.execute(sa.select(table.c.pool).where(
                table.c.pool.is_not(None)).distinct())):
            db.execute(sa.update(table).where(table.c.pool == pool)
                       .values(pool=_family(pool)))
    merged: dict[tuple[int, str], list] = defaultdict(list)
    for row in list(db.execute(sa.select(ratings).order_by(ratings.c.user_id,
                                                          ratings.c.pool))):
        merged[row.user_id, _family(row.pool)].append(row)
    db.execute(sa.delete(ratings))
    for (_, family), rows in merged.items():
        kept = max(rows, key=_preference)
        db.execute(sa.insert(ratings).values({**dict(kept._mapping), "pool": family,
                                              "games": sum(row.games for row in rows)}))


def _preference(row) -> tuple:
    """How much the downgrade prefers to keep ``row`` among an account's rows of one family
    (the greatest is kept): more games, then a lower deviation, then updated later, then a
    faster speed (one pool name a speed, so no two rows tie)."""
    speed = row.pool.rpartition("-")[2]
    return (row.games, -row.deviation, row.updated,
            -ALL.index(speed) if speed in ALL else -len(ALL))
