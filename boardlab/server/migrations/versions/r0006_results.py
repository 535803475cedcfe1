"""A finished game's result in its row (winners, scores, reason, summary), for the lobby's
list; null while it runs (and for games finished before: the lobby works it out once).

Revision ID: 0006
Revises: 0005
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("server_games") as batch:
        batch.add_column(sa.Column("result", sa.JSON))


def downgrade() -> None:
    with op.batch_alter_table("server_games") as batch:
        batch.drop_column("result")
