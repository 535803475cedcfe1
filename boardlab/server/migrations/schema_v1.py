"""The server's schema as it was before migrations (revision 0001), frozen.

A database made by a server of that time has these tables and no version table; it is
recognised by its ``server_games`` table and stamped at revision 0001 (after the nullable
columns even older servers lacked are added). Never change this file: a later schema is a
new revision in versions/.
"""
from __future__ import annotations

from sqlalchemy import (JSON, BigInteger, Column, DateTime, ForeignKey, Integer, MetaData,
                        String, Table, UniqueConstraint)


def tables() -> MetaData:
    """A fresh MetaData holding the revision-0001 tables."""
    metadata = MetaData()
    Table("server_games", metadata,
          Column("id", String(32), primary_key=True),
          Column("spec", String(500), nullable=False),
          Column("seed", BigInteger, nullable=False),
          Column("seats", JSON, nullable=False),
          Column("status", String(16), nullable=False, index=True),
          Column("clock", JSON),
          Column("rematch", String(32)),
          Column("created", DateTime(timezone=True), nullable=False),
          Column("updated", DateTime(timezone=True), nullable=False))
    Table("server_actions", metadata,
          Column("id", Integer, primary_key=True, autoincrement=True),
          Column("game_id", ForeignKey("server_games.id"), nullable=False),
          Column("idx", Integer, nullable=False),
          Column("seat", Integer, nullable=False),
          Column("move", String(200), nullable=False),
          Column("key", String(64)),
          Column("clocks", JSON),
          Column("created", DateTime(timezone=True), nullable=False),
          UniqueConstraint("game_id", "idx"),
          UniqueConstraint("game_id", "key"))
    Table("server_chat", metadata,
          Column("id", Integer, primary_key=True, autoincrement=True),
          Column("game_id", ForeignKey("server_games.id"), nullable=False),
          Column("idx", Integer, nullable=False),
          Column("channel", String(16), nullable=False),
          Column("team", Integer),
          Column("sender", String(64), nullable=False),
          Column("text", String(2000), nullable=False),
          Column("created", DateTime(timezone=True), nullable=False),
          UniqueConstraint("game_id", "idx"))
    return metadata
