"""The tournaments' tables (revisions 0005, 0008 and 0009 in migrations/versions), in the
store's metadata.

A tournament (its game, format, clock, rounds, no-show wait, status and the round being
played), its players (accounts, in entry order; a withdrawn one is inactive) and its
pairings: one row a game or bye, with the server game it was played as and white's score
once it is over. Revision 0008: a tournament played by ``boardlab tournament --db`` (engines
run locally) names that run in ``arena``; a ladder may let a player be in several games at
once (``games_at_once``). Revision 0009: a pairing of a game of more than two sides is a
table (``sides``: the account ids in seat order; ``points``: each side's once it is over).
"""
from __future__ import annotations

from sqlalchemy import (JSON, Boolean, Column, DateTime, Float, ForeignKey, Integer, String,
                        Table)

from ..store import metadata

WHEN = DateTime(timezone=True)

tournaments = Table(
    "server_tournaments", metadata,
    Column("id", String(16), primary_key=True),
    Column("name", String(100), nullable=False),
    Column("spec", String(500), nullable=False),
    Column("format", String(16), nullable=False),        # round-robin, swiss, ladder
    Column("director", Integer, ForeignKey("server_users.id"), nullable=False, index=True),
    Column("clock", JSON),
    Column("rated", Boolean, nullable=False),
    Column("rounds", Integer),                           # cycles (round robin), rounds (Swiss)
    Column("no_show", Float),                            # seconds before a no-show forfeits
    Column("duration", Float),                           # a ladder's seconds; None: forever
    Column("status", String(16), nullable=False, index=True),  # created, running, paused, over
    Column("round", Integer, nullable=False),            # the round being played (0: none)
    Column("created", WHEN, nullable=False),
    Column("started", WHEN),
    Column("ends", WHEN),                                # a ladder's end
    Column("arena", String(200), index=True, unique=True),   # boardlab tournament's name
    Column("games_at_once", Integer),                    # a ladder's per player; None: 1
)

players = Table(
    "server_tournament_players", metadata,
    Column("tournament_id", String(16), ForeignKey("server_tournaments.id"),
           primary_key=True),
    Column("user_id", Integer, ForeignKey("server_users.id"), primary_key=True),
    Column("seed", Integer, nullable=False),             # entry order
    Column("active", Boolean, nullable=False),           # False: withdrawn
    Column("joined", WHEN, nullable=False),
)

pairings = Table(
    "server_tournament_games", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("tournament_id", String(16), ForeignKey("server_tournaments.id"), nullable=False,
           index=True),
    Column("round", Integer, nullable=False),
    Column("white", Integer, ForeignKey("server_users.id"), nullable=False),
    Column("black", Integer, ForeignKey("server_users.id")),   # None: a bye
    Column("game_id", String(32), unique=True),          # None: a bye or a forfeit unplayed
    Column("score", Float),                              # white's; None while it is played
    Column("forfeit", String(16)),                       # no-show, bye, withdrawn
    Column("created", WHEN, nullable=False),
    Column("finished", WHEN),
    Column("sides", JSON),                               # more than two: ids by side
    Column("points", JSON),                              # more than two: each side's
)
