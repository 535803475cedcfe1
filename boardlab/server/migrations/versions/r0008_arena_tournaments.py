"""Tournaments played by ``boardlab tournament --db`` (engines run where the command runs)
in the server's tables, and ladders whose players may be in several games at once.

``arena``: the name of the ``boardlab tournament`` run that plays the tournament (its
configuration and lock are in the arena's own tables of the same database); null: the
server's director plays it. ``games_at_once``: how many games of a ladder one player may be
in at once (null: one).

Revision ID: 0008
Revises: 0007
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("server_tournaments") as batch:
        batch.add_column(sa.Column("arena", sa.String(200)))
        batch.add_column(sa.Column("games_at_once", sa.Integer))
        batch.create_index("ix_server_tournaments_arena", ["arena"], unique=True)


def downgrade() -> None:
    with op.batch_alter_table("server_tournaments") as batch:
        batch.drop_index("ix_server_tournaments_arena")
        batch.drop_column("games_at_once")
        batch.drop_column("arena")
