"""Finding games: the owner of a bot account made by a person, bot API tokens (SHA-256
only), challenges and seeks; the house AI bot accounts ``ai-1`` ... ``ai-5``.

Revision ID: 0004
Revises: 0003
"""
from __future__ import annotations

from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

WHEN = sa.DateTime(timezone=True)
HOUSE_LEVELS = 5


def upgrade() -> None:
    op.add_column("server_users", sa.Column("owner_id", sa.Integer))
    op.create_table(
        "server_bot_tokens",
        sa.Column("hash", sa.String(64), primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("server_users.id"), nullable=False,
                  index=True),
        sa.Column("created", WHEN, nullable=False))
    op.create_table(
        "server_challenges",
        sa.Column("id", sa.String(16), primary_key=True),
        sa.Column("challenger", sa.Integer, sa.ForeignKey("server_users.id"),
                  nullable=False, index=True),
        sa.Column("challenged", sa.Integer, sa.ForeignKey("server_users.id"),
                  nullable=False, index=True),
        sa.Column("spec", sa.String(500), nullable=False),
        sa.Column("clock", sa.JSON),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("seat", sa.Integer),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("reason", sa.String(200)),
        sa.Column("game_id", sa.String(32)),
        sa.Column("created", WHEN, nullable=False),
        sa.Column("updated", WHEN, nullable=False))
    op.create_table(
        "server_seeks",
        sa.Column("id", sa.String(16), primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("server_users.id"), nullable=False,
                  index=True),
        sa.Column("spec", sa.String(500), nullable=False),
        sa.Column("clock", sa.JSON),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("rating_min", sa.Integer),
        sa.Column("rating_max", sa.Integer),
        sa.Column("status", sa.String(16), nullable=False, index=True),
        sa.Column("game_id", sa.String(32)),
        sa.Column("created", WHEN, nullable=False),
        sa.Column("updated", WHEN, nullable=False))
    users = sa.table("server_users", sa.column("username", sa.String),
                     sa.column("name_key", sa.String), sa.column("password", sa.String),
                     sa.column("bot", sa.Boolean), sa.column("disabled", sa.Boolean),
                     sa.column("deleted", sa.Boolean), sa.column("created", WHEN))
    now = datetime.now(UTC)
    op.bulk_insert(users, [{"username": f"ai-{n}", "name_key": f"ai-{n}", "password": None,
                            "bot": True, "disabled": False, "deleted": False,
                            "created": now} for n in range(1, HOUSE_LEVELS + 1)])


def downgrade() -> None:
    op.execute("DELETE FROM server_users WHERE name_key IN "
               "('ai-1', 'ai-2', 'ai-3', 'ai-4', 'ai-5')")
    op.drop_table("server_seeks")
    op.drop_table("server_challenges")
    op.drop_table("server_bot_tokens")
    with op.batch_alter_table("server_users") as batch:
        batch.drop_column("owner_id")
