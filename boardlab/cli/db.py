"""``boardlab db upgrade``: bring the server's database to the newest schema (Alembic)."""
from __future__ import annotations


def cmd_db(args) -> int:
    """Upgrade the database and say from which revision to which."""
    from sqlalchemy import create_engine
    from sqlalchemy.exc import ArgumentError, SQLAlchemyError

    from ..arena.storage import database_url
    from ..core.errors import BoardlabError
    from ..server import migrations
    from ..server.store import DEFAULT_DB
    url = database_url(args.db or DEFAULT_DB)
    try:
        engine = create_engine(url)
        try:
            before, after = migrations.upgrade(engine)
        finally:
            engine.dispose()
    except (ArgumentError, SQLAlchemyError, ImportError, migrations.Failed) as error:
        raise BoardlabError(f"cannot upgrade the database: "
                            f"{str(error).strip().splitlines()[0]}") from None
    was = {None: "empty", migrations.LEGACY: "none (made before migrations)"}.get(before,
                                                                                before)
    print(f"database {engine.url.render_as_string(hide_password=True)}: at revision "
          f"{after} (was {was})")
    return 0


def add_parsers(sub) -> None:
    """The subcommand db (db upgrade)."""
    db = sub.add_parser("db", help="the game server's database: db upgrade",
                        epilog="boardlab serve upgrades on start too (docs/accounts.md)")
    action = db.add_subparsers(dest="db_command", required=True)
    upgrade = action.add_parser("upgrade", help="bring the database to the newest schema")
    upgrade.add_argument("--db", help="database URL or SQLite file (default "
                         "boardlab-server.db in the current folder)")
