"""Accounts, sessions, ratings: users, their sessions (hashed ids), rating pools, the rated
games and each rated game's change per player, the accounts that hold a game's seats, the
server's own settings (the cookie signing key); a game's rating pool (null: casual).

Revision ID: 0002
Revises: 0001
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

WHEN = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "server_users",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("username", sa.String(32)),
        sa.Column("name_key", sa.String(80), nullable=False, unique=True),
        sa.Column("password", sa.String(200)),
        sa.Column("bot", sa.Boolean, nullable=False),
        sa.Column("disabled", sa.Boolean, nullable=False),
        sa.Column("deleted", sa.Boolean, nullable=False),
        sa.Column("created", WHEN, nullable=False))
    op.create_table(
        "server_sessions",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("server_users.id"), nullable=False,
                  index=True),
        sa.Column("created", WHEN, nullable=False),
        sa.Column("expires", WHEN, nullable=False))
    op.create_table(
        "server_ratings",
        sa.Column("user_id", sa.Integer, sa.ForeignKey("server_users.id"),
                  primary_key=True),
        sa.Column("pool", sa.String(40), primary_key=True),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("deviation", sa.Float, nullable=False),
        sa.Column("volatility", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("updated", WHEN, nullable=False))
    op.create_index("ix_server_ratings_pool", "server_ratings", ["pool", "rating"])
    op.create_table(
        "server_rated_games",
        sa.Column("game_id", sa.String(32), sa.ForeignKey("server_games.id"),
                  primary_key=True),
        sa.Column("pool", sa.String(40), nullable=False),
        sa.Column("created", WHEN, nullable=False))
    op.create_table(
        "server_rating_history",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("game_id", sa.String(32), sa.ForeignKey("server_games.id"),
                  nullable=False),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("server_users.id"), nullable=False,
                  index=True),
        sa.Column("pool", sa.String(40), nullable=False),
        sa.Column("score", sa.Float, nullable=False),
        sa.Column("before", sa.Float, nullable=False),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("deviation", sa.Float, nullable=False),
        sa.Column("created", WHEN, nullable=False),
        sa.UniqueConstraint("game_id", "user_id"))
    op.create_table(
        "server_game_players",
        sa.Column("game_id", sa.String(32), sa.ForeignKey("server_games.id"),
                  primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("server_users.id"), nullable=False,
                  index=True))
    op.create_table(
        "server_settings",
        sa.Column("name", sa.String(64), primary_key=True),
        sa.Column("value", sa.String(500), nullable=False))
    with op.batch_alter_table("server_games") as batch:
        batch.add_column(sa.Column("pool", sa.String(40)))


def downgrade() -> None:
    with op.batch_alter_table("server_games") as batch:
        batch.drop_column("pool")
    for table in ("server_settings", "server_game_players", "server_rating_history",
                  "server_rated_games", "server_ratings", "server_sessions", "server_users"):
        op.drop_table(table)
