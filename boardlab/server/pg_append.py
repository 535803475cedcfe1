"""PostgreSQL appends in one statement and one round trip (the store's shared database).

Through SQLAlchemy an append was five round trips to the database (``BEGIN``, the
``INSERT``, the games' ``UPDATE``, ``pg_notify``, ``COMMIT``) and as many statements'
work in Python. Here a batch of actions is one statement on a connection of its own in
autocommit: the ``INSERT`` of every row and the ``UPDATE`` of each game's status are
data-modifying ``WITH`` clauses, and the statement's result is the notices to the other
server processes, so that it is one transaction: all of it is committed (and the
notices sent, after the commit) or none. PostgreSQL's commit is as durable as before
(``synchronous_commit`` is the server's, not changed here). psycopg prepares the
statement after its first few executions.
"""
from __future__ import annotations

import threading
from datetime import datetime
from typing import Any

SQL = """
WITH added AS (
    INSERT INTO {actions} (game_id, idx, seat, move, key, clocks, created)
    SELECT game_id, idx, seat, move, key, clocks::json, %(now)s
    FROM unnest(%(game_ids)s::text[], %(indexes)s::int[], %(seats)s::int[],
                %(moves)s::text[], %(keys)s::text[], %(clocks)s::text[])
         AS a(game_id, idx, seat, move, key, clocks)
    RETURNING 1),
touched AS (
    UPDATE {games} SET status = t.status, updated = %(now)s
    FROM unnest(%(touched)s::text[], %(statuses)s::text[]) AS t(id, status)
    WHERE {games}.id = t.id
    RETURNING 1)
SELECT pg_notify(%(channel)s, notice) FROM unnest(%(notices)s::text[]) AS notice
"""

#: the same for one action (the usual batch): plain parameters, cheaper to send than arrays
ONE = """
WITH added AS (
    INSERT INTO {actions} (game_id, idx, seat, move, key, clocks, created)
    VALUES (%s, %s, %s, %s, %s, %s::json, %s)
    RETURNING 1),
touched AS (
    UPDATE {games} SET status = %s, updated = %s WHERE id = %s
    RETURNING 1)
SELECT pg_notify(%s, %s)
"""


class Taken(Exception):
    """An action's index or idempotency key was taken (nothing of the batch is stored)."""


class Appender:
    """One kept autocommit connection that appends batches of actions."""

    def __init__(self, conninfo: str, actions: str, games: str, channel: str):
        self.conninfo, self.channel = conninfo, channel
        self.sql = SQL.format(actions=actions, games=games)
        self.one = ONE.format(actions=actions, games=games)
        self.connection: Any = None         # a psycopg connection (imported when used)
        self.lock = threading.Lock()

    def write(self, rows: list[tuple[str, int, int, str, str | None, str | None]],
              statuses: dict[str, str], notices: list[str], now: datetime) -> None:
        """Store ``rows`` (game id, index, seat, move, key, clocks as JSON text or None),
        set each game's status as ``statuses`` says and send ``notices`` (payloads of
        the channel), all in one transaction. Raises :class:`Taken` when an index or
        key is taken; the driver's errors otherwise (the connection is then dropped)."""
        import psycopg
        query: str
        params: tuple | dict
        if len(rows) == 1 and len(notices) == 1:
            game_id, index, seat, move, key, clocks = rows[0]
            query, params = self.one, (game_id, index, seat, move, key, clocks, now,
                                       statuses[game_id], now, game_id, self.channel,
                                       notices[0])
        else:
            columns = list(zip(*rows))
            query, params = self.sql, {
                "now": now, "game_ids": list(columns[0]), "indexes": list(columns[1]),
                "seats": list(columns[2]), "moves": list(columns[3]),
                "keys": list(columns[4]), "clocks": list(columns[5]),
                "touched": list(statuses), "statuses": list(statuses.values()),
                "channel": self.channel, "notices": notices}
        with self.lock:
            if self.connection is None or self.connection.closed:
                self.connection = psycopg.connect(self.conninfo, autocommit=True)
            try:
                self.connection.execute(query, params)
            except psycopg.errors.IntegrityError as error:
                raise Taken(str(error)) from None
            except BaseException:
                self.close_now()
                raise

    def close_now(self) -> None:
        """Drop the connection (a fresh one for the next batch)."""
        connection, self.connection = self.connection, None
        if connection is not None:
            connection.close()

    def close(self) -> None:
        with self.lock:
            self.close_now()
