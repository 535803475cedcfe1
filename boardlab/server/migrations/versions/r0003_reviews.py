"""Game reviews: a finished game's review (server/reviews.py), kept once done so that it
survives a restart.

Revision ID: 0003
Revises: 0002
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "server_reviews",
        sa.Column("game_id", sa.String(32), primary_key=True),
        sa.Column("review", sa.JSON, nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False))


def downgrade() -> None:
    op.drop_table("server_reviews")
