"""Tournaments of games of more than two sides (Cartagena's 3-5 players): a pairing is a
table of players, one a side.

``sides``: the account ids of the table, in seat order (side 0 first; null: a pairing of
two, ``white`` and ``black``); ``points``: each side's points once it is over (its share of
the other sides it beat; null while it is played, and for a pairing of two, whose
``score`` is white's). ``white`` and ``black`` keep sides 0 and 1, ``score`` side 0's.

Revision ID: 0009
Revises: 0008
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("server_tournament_games") as batch:
        batch.add_column(sa.Column("sides", sa.JSON))
        batch.add_column(sa.Column("points", sa.JSON))


def downgrade() -> None:
    with op.batch_alter_table("server_tournament_games") as batch:
        batch.drop_column("points")
        batch.drop_column("sides")
