"""Tournaments hosted by the server: the tournaments, their players and their pairings
(docs/tournaments.md).

Revision ID: 0005
Revises: 0004
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

WHEN = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "server_tournaments",
        sa.Column("id", sa.String(16), primary_key=True),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("spec", sa.String(500), nullable=False),
        sa.Column("format", sa.String(16), nullable=False),
        sa.Column("director", sa.Integer, sa.ForeignKey("server_users.id"), nullable=False,
                  index=True),
        sa.Column("clock", sa.JSON),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("rounds", sa.Integer),
        sa.Column("no_show", sa.Float),
        sa.Column("duration", sa.Float),
        sa.Column("status", sa.String(16), nullable=False, index=True),
        sa.Column("round", sa.Integer, nullable=False),
        sa.Column("created", WHEN, nullable=False),
        sa.Column("started", WHEN),
        sa.Column("ends", WHEN))
    op.create_table(
        "server_tournament_players",
        sa.Column("tournament_id", sa.String(16), sa.ForeignKey("server_tournaments.id"),
                  primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("server_users.id"), primary_key=True),
        sa.Column("seed", sa.Integer, nullable=False),
        sa.Column("active", sa.Boolean, nullable=False),
        sa.Column("joined", WHEN, nullable=False))
    op.create_table(
        "server_tournament_games",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("tournament_id", sa.String(16), sa.ForeignKey("server_tournaments.id"),
                  nullable=False, index=True),
        sa.Column("round", sa.Integer, nullable=False),
        sa.Column("white", sa.Integer, sa.ForeignKey("server_users.id"), nullable=False),
        sa.Column("black", sa.Integer, sa.ForeignKey("server_users.id")),
        sa.Column("game_id", sa.String(32), unique=True),
        sa.Column("score", sa.Float),
        sa.Column("forfeit", sa.String(16)),
        sa.Column("created", WHEN, nullable=False),
        sa.Column("finished", WHEN))


def downgrade() -> None:
    op.drop_table("server_tournament_games")
    op.drop_table("server_tournament_players")
    op.drop_table("server_tournaments")
