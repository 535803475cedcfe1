"""The server's schema migrations (Alembic), for SQLite and PostgreSQL.

:func:`upgrade` brings a database to the newest revision: an empty one gets every table,
one made before migrations existed (a ``server_games`` table, no version table) is stamped
at revision 0001 first, keeping every game. ``boardlab serve`` upgrades on start, ``boardlab
db upgrade`` alone. The revisions are the files in versions/ (r0001_initial.py: the schema
before migrations). The version is kept in ``server_alembic_version`` so that a database
shared with the arena's tournaments keeps both apart.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from alembic.config import Config
from alembic.runtime.environment import EnvironmentContext
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from alembic.util import CommandError as Failed
from sqlalchemy import Connection, Engine, create_engine, event, inspect, text

from . import schema_v1

HERE = Path(__file__).parent
VERSION_TABLE = "server_alembic_version"
FIRST = "0001"
LEGACY = "legacy"           # upgrade's "revision before" of a database made before migrations
#: the PostgreSQL advisory lock held while upgrading (two servers starting at once)
LOCK_KEY = 4_847_301

__all__ = ["Failed", "current", "head", "upgrade"]


@lru_cache(maxsize=1)
def scripts() -> ScriptDirectory:
    """The revisions (read once a process)."""
    config = Config()
    config.set_main_option("script_location", str(HERE))
    return ScriptDirectory.from_config(config)


def head() -> str:
    """The newest revision."""
    found = scripts().get_current_head()
    assert found is not None
    return found


def current(connection: Connection) -> str | None:
    """The database's revision (None: not under migrations)."""
    context = MigrationContext.configure(connection, opts={"version_table": VERSION_TABLE})
    return context.get_current_revision()


def upgrade(engine: Engine, target: str = "heads") -> tuple[str | None, str]:
    """Bring the database to ``target`` (default the newest revision); (the revision it
    was at: None when empty, LEGACY when made before migrations; the one it is at now).
    One transaction: on PostgreSQL under an advisory lock, on SQLite (a file) under
    BEGIN IMMEDIATE, so that two servers starting at once upgrade once and a failed step
    leaves the database as it was."""
    if engine.dialect.name == "sqlite" and engine.url.database not in (None, "", ":memory:"):
        own = _transactional_sqlite(engine)
        try:
            return _upgrade(own, target)
        finally:
            own.dispose()
    return _upgrade(engine, target)


def _transactional_sqlite(engine: Engine) -> Engine:
    """An engine on the same SQLite file whose transactions cover DDL too (Python's sqlite3
    runs CREATE and ALTER outside any transaction otherwise) and begin IMMEDIATE."""
    own = create_engine(engine.url)

    @event.listens_for(own, "connect")
    def _connect(connection, record) -> None:
        connection.isolation_level = None
        connection.execute("PRAGMA busy_timeout = 30000")

    @event.listens_for(own, "begin")
    def _begin(connection) -> None:
        connection.exec_driver_sql("BEGIN IMMEDIATE")

    return own


def _upgrade(engine: Engine, target: str) -> tuple[str | None, str]:
    with engine.begin() as connection:
        if connection.dialect.name == "postgresql":
            connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": LOCK_KEY})
        before = current(connection)
        if before is None and inspect(connection).has_table("server_games"):
            _adopt(connection)
            before = LEGACY
        if current(connection) != head():
            _run(connection, target)
        return before, current(connection) or ""


def _adopt(connection: Connection) -> None:
    """Stamp a database made before migrations at revision 0001, adding first what even
    older servers lacked (the chat table, nullable columns)."""
    metadata = schema_v1.tables()
    metadata.create_all(connection)             # the tables it lacks, only
    found = inspect(connection)
    for table in metadata.sorted_tables:
        have = {column["name"] for column in found.get_columns(table.name)}
        for column in table.columns:
            if column.name not in have:
                kind = column.type.compile(dialect=connection.dialect)
                connection.execute(text(f"ALTER TABLE {table.name} ADD COLUMN "
                                        f"{column.name} {kind}"))
    context = MigrationContext.configure(connection, opts={"version_table": VERSION_TABLE})
    context.stamp(scripts(), FIRST)


def _run(connection: Connection, target: str) -> None:
    script = scripts()

    def steps(revision, context):
        return script._upgrade_revs(target, revision)

    with EnvironmentContext(Config(), script, fn=steps, destination_rev=target) as env:
        env.configure(connection=connection, version_table=VERSION_TABLE,
                      render_as_batch=True)
        with env.begin_transaction():
            env.run_migrations()
