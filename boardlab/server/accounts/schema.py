"""The accounts' tables (revisions 0002 and 0004 in migrations/versions), in the store's
metadata.

Users (a name kept as written and its case-folded key, unique; the Argon2 hash of the
password), sessions (the SHA-256 of a session id: the id itself is only in the cookie),
ratings per pool, the rated games (a game is rated once), each rated game's change per
player, and the server's settings (its cookie signing key). Revision 0004: the owner of a
bot account made by a person, bot API tokens (their SHA-256 only), challenges and seeks.
"""
from __future__ import annotations

from sqlalchemy import (JSON, Boolean, Column, DateTime, Float, ForeignKey, Index, Integer, String,
                        Table, UniqueConstraint)

from ..store import metadata

WHEN = DateTime(timezone=True)

users = Table(
    "server_users", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("username", String(32)),                      # None once deleted
    Column("name_key", String(80), nullable=False, unique=True),
    Column("password", String(200)),                     # the Argon2 hash; None: none set
    Column("bot", Boolean, nullable=False),
    Column("disabled", Boolean, nullable=False),
    Column("deleted", Boolean, nullable=False),
    Column("created", WHEN, nullable=False),
    Column("owner_id", Integer),                         # a bot account's maker (0004)
)

sessions = Table(
    "server_sessions", metadata,
    Column("id", String(64), primary_key=True),          # SHA-256 of the session id
    Column("user_id", Integer, ForeignKey("server_users.id"), nullable=False, index=True),
    Column("created", WHEN, nullable=False),
    Column("expires", WHEN, nullable=False),
)

ratings = Table(
    "server_ratings", metadata,
    Column("user_id", Integer, ForeignKey("server_users.id"), primary_key=True),
    Column("pool", String(40), primary_key=True),
    Column("rating", Float, nullable=False),
    Column("deviation", Float, nullable=False),
    Column("volatility", Float, nullable=False),
    Column("games", Integer, nullable=False),
    Column("updated", WHEN, nullable=False),
    Index("ix_server_ratings_pool", "pool", "rating"),
)

rated_games = Table(
    "server_rated_games", metadata,
    Column("game_id", String(32), ForeignKey("server_games.id"), primary_key=True),
    Column("pool", String(40), nullable=False),
    Column("created", WHEN, nullable=False),
)

history = Table(
    "server_rating_history", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("game_id", String(32), ForeignKey("server_games.id"), nullable=False),
    Column("user_id", Integer, ForeignKey("server_users.id"), nullable=False, index=True),
    Column("pool", String(40), nullable=False),
    Column("score", Float, nullable=False),              # 1 won, 0.5 drew, 0 lost
    Column("before", Float, nullable=False),
    Column("rating", Float, nullable=False),
    Column("deviation", Float, nullable=False),
    Column("created", WHEN, nullable=False),
    UniqueConstraint("game_id", "user_id"),
)

settings = Table(
    "server_settings", metadata,
    Column("name", String(64), primary_key=True),
    Column("value", String(500), nullable=False),
)

tokens = Table(
    "server_bot_tokens", metadata,
    Column("hash", String(64), primary_key=True),        # SHA-256 of the token
    Column("user_id", Integer, ForeignKey("server_users.id"), nullable=False, index=True),
    Column("created", WHEN, nullable=False),
)

challenges = Table(
    "server_challenges", metadata,
    Column("id", String(16), primary_key=True),
    Column("challenger", Integer, ForeignKey("server_users.id"), nullable=False, index=True),
    Column("challenged", Integer, ForeignKey("server_users.id"), nullable=False, index=True),
    Column("spec", String(500), nullable=False),
    Column("clock", JSON),
    Column("rated", Boolean, nullable=False),
    Column("seat", Integer),                             # the challenger's seat; None: random
    Column("status", String(16), nullable=False),        # open, accepted, declined, cancelled
    Column("reason", String(200)),                       # a decline's reason
    Column("game_id", String(32)),                       # the game, once accepted
    Column("created", WHEN, nullable=False),
    Column("updated", WHEN, nullable=False),
)

seeks = Table(
    "server_seeks", metadata,
    Column("id", String(16), primary_key=True),
    Column("user_id", Integer, ForeignKey("server_users.id"), nullable=False, index=True),
    Column("spec", String(500), nullable=False),
    Column("clock", JSON),
    Column("rated", Boolean, nullable=False),
    Column("rating_min", Integer),
    Column("rating_max", Integer),
    Column("status", String(16), nullable=False, index=True),   # open, accepted, cancelled
    Column("game_id", String(32)),
    Column("created", WHEN, nullable=False),
    Column("updated", WHEN, nullable=False),
)
