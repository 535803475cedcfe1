"""The server's games, action logs and chat, as before migrations (schema_v1.py).

Revision ID: 0001
Revises:
"""
from __future__ import annotations

from alembic import op

from boardlab.server.migrations import schema_v1

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    schema_v1.tables().create_all(op.get_bind())


def downgrade() -> None:
    schema_v1.tables().drop_all(op.get_bind())
