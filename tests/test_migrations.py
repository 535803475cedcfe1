"""Schema migrations (boardlab/server/migrations): a database made by the server before
migrations existed is recognised, stamped and upgraded with every game intact, on SQLite and
PostgreSQL; a new database gets the newest schema; the migrated schema is the code's."""
import random
import sqlite3
import subprocess
import sys
import warnings

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import create_engine, inspect

from boardlab.core.driver import GameDriver
from boardlab.core.registry import make
from boardlab.server import create_app, migrations
from boardlab.server import reviews  # noqa: F401  (its table joins the metadata)
from boardlab.server.accounts import schema  # noqa: F401  (its tables join the metadata)
from boardlab.server.tournaments import schema as tournament_schema  # noqa: F401  (likewise)
from boardlab.server.store import Store, metadata
from legacy import store_v1
from postgres_server import throwaway_postgres

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="Using `httpx`")
    from starlette.testclient import TestClient

SPEC = "carteso(size=5)"


def old_database(url: str, games: int = 3) -> dict:
    """A database made by the server's store before migrations: ``games`` Carteso games
    with moves (one finished, with a rematch), chat, a clock; what each game holds."""
    store = store_v1.Store(url)
    made = {}
    rng = random.Random(7)
    for number in range(games):
        game_id = f"old{number}"
        seats = [{"kind": "human", "token": "ab" * 32}, {"kind": "ai", "agent": "random"}]
        clock = {"base": 300.0, "increment": 2.0} if number == 1 else None
        store.create_game(game_id, SPEC, 1234 + number, seats, clock=clock)
        driver = GameDriver(make(SPEC), seed=1234 + number)
        moves = []
        for index in range(4 + 2 * number):
            seat = driver.acting()[0]
            action = rng.choice(driver.state.legal_actions())
            text = driver.state.action_to_string(action)
            driver.submit(seat, text)
            moves.append((seat, text))
            store.append(game_id, index, store_v1.Action(seat, text, key=f"k{index}"),
                         store_v1.ACTIVE)
        if number == 2:
            store.append(game_id, len(moves), store_v1.Action(0, "resign", key="end"),
                         store_v1.OVER)
            moves.append((0, "resign"))
            store.set_rematch(game_id, "old0")
        store.add_chat(game_id, store_v1.ChatMessage(0, "players", None, "Black", "hello",
                                                     store_v1._now()))
        made[game_id] = moves
    store.dispose()
    return made


def check_intact(url: str, made: dict) -> None:
    store = Store(url)
    try:
        assert store.revisions[1] == migrations.head()
        for game_id, moves in made.items():
            row = store.game(game_id)
            assert row.spec == SPEC and row.pool is None
            assert [(a.seat, a.move) for a in store.log(game_id)] == moves
            assert store.chat(game_id, 10)[1][0].text == "hello"
        if len(made) == 3:
            assert store.game("old2").status == "over"
            assert store.game("old2").rematch == "old0"
            assert store.game("old1").clock == {"base": 300.0, "increment": 2.0}
    finally:
        store.dispose()
    with TestClient(create_app(url, ai_processes=0)) as client:       # the games replay
        for game_id, moves in made.items():
            shown = client.get(f"/api/games/{game_id}").json()
            assert shown["version"] == len(moves)
        if len(made) == 3:
            assert client.get("/api/games/old2").json()["status"] == "over"


def test_sqlite_database_made_before_migrations_is_stamped_and_upgraded(tmp_path):
    url = f"sqlite:///{tmp_path / 'old.db'}"
    made = old_database(url)
    with create_engine(url).connect() as db:
        assert migrations.current(db) is None
    check_intact(url, made)
    with create_engine(url).connect() as db:
        assert migrations.current(db) == migrations.head()
    check_intact(url, made)                     # opening it again changes nothing


def test_postgresql_database_made_before_migrations_is_upgraded():
    with throwaway_postgres() as server:
        made = old_database(server.url)
        check_intact(server.url, made)


def test_older_database_without_chat_or_new_columns_is_adopted(tmp_path):
    """A database of an even older server (no chat table, no clock/rematch columns)."""
    path = tmp_path / "older.db"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE server_games (id VARCHAR(32) PRIMARY KEY, spec VARCHAR(500) "
                   "NOT NULL, seed BIGINT NOT NULL, seats JSON NOT NULL, status VARCHAR(16) "
                   "NOT NULL, created DATETIME NOT NULL, updated DATETIME NOT NULL)")
        db.execute("INSERT INTO server_games VALUES ('g1', ?, 5, '[{\"kind\": \"open\"}, "
                   "{\"kind\": \"open\"}]', 'active', '2024-01-01 00:00:00', "
                   "'2024-01-01 00:00:00')", (SPEC,))
    store = Store(f"sqlite:///{path}")
    try:
        assert store.game("g1").clock is None and store.log("g1") == []
        assert store.chat("g1", 5) == (0, [])
    finally:
        store.dispose()


def test_new_database_schema_matches_the_code(tmp_path):
    url = f"sqlite:///{tmp_path / 'new.db'}"
    Store(url).dispose()
    engine = create_engine(url)
    with engine.connect() as db:
        assert migrations.current(db) == migrations.head()
        differences = compare_metadata(MigrationContext.configure(
                db, opts={"version_table": migrations.VERSION_TABLE}), metadata)
    assert differences == []
    assert "server_users" in inspect(engine).get_table_names()


def test_postgresql_schema_matches_the_code():
    with throwaway_postgres() as server:
        Store(server.url).dispose()
        Store(server.url).dispose()             # a second open is a no-op
        with create_engine(server.url).connect() as db:
            differences = compare_metadata(MigrationContext.configure(
                db, opts={"version_table": migrations.VERSION_TABLE}), metadata)
        assert differences == []


def test_failed_upgrade_changes_nothing(tmp_path, monkeypatch):
    """A revision that fails half-way leaves the database at the revision it was."""
    url = f"sqlite:///{tmp_path / 'half.db'}"
    made = old_database(url, games=1)
    from alembic.operations import Operations
    monkeypatch.setattr(Operations, "batch_alter_table", _broken)
    with pytest.raises(Exception, match="broken"):
        Store(url)
    with create_engine(url).connect() as db:
        assert migrations.current(db) is None
        assert not inspect(db).has_table("server_users")
    monkeypatch.undo()
    check_intact(url, made)


def _broken(*args, **kwargs):
    raise RuntimeError("broken on purpose")


def test_db_upgrade_command(tmp_path):
    url = f"sqlite:///{tmp_path / 'cli.db'}"
    old_database(url, games=1)
    done = subprocess.run([sys.executable, "-m", "boardlab", "db", "upgrade", "--db", url],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert f"at revision {migrations.head()}" in done.stdout
    assert "(was none (made before migrations))" in done.stdout
    with create_engine(url).connect() as db:
        assert migrations.current(db) == migrations.head()


def test_pools_of_older_rated_games_are_renamed_with_their_speeds(tmp_path):
    """Revision 0007: every stored pool (a game's, its rated-game and history rows, the
    ratings) gets the speed of its game's clock; an account that played one old pool at
    two speeds keeps its rating in both, counting the games of each; nothing is lost."""
    check_pools_renamed(f"sqlite:///{tmp_path / 'pools.db'}")


def test_pools_are_renamed_on_postgresql_too():
    with throwaway_postgres() as server:
        check_pools_renamed(server.url)


def check_pools_renamed(url: str) -> None:
    from datetime import UTC, datetime
    from sqlalchemy import insert, select
    from boardlab.server.accounts.schema import history, rated_games, ratings, users
    from boardlab.server.store import games
    engine = create_engine(url)
    migrations.upgrade(engine, "0006")
    when = datetime(2025, 1, 1, tzinfo=UTC)
    blitz, rapid = {"base": 180.0, "increment": 2.0}, {"base": 600.0, "increment": 5.0}
    made = [("g1", blitz), ("g2", blitz), ("g3", None), ("g4", rapid)]
    with engine.begin() as db:
        db.execute(insert(users), [
            {"id": number, "username": name, "name_key": name, "bot": False,
             "disabled": False, "deleted": False, "created": when}
            for number, name in ((101, "alice"), (102, "bob"), (103, "carol"))])
        for game_id, clock in made:
            db.execute(insert(games).values(id=game_id, spec=SPEC, seed=1, seats=[],
                                            status="over", clock=clock, pool="carteso-5",
                                            created=when, updated=when))
            db.execute(insert(rated_games).values(game_id=game_id, pool="carteso-5",
                                                  created=when))
        db.execute(insert(games).values(id="casual", spec=SPEC, seed=1, seats=[],
                                        status="over", clock=blitz, pool=None,
                                        created=when, updated=when))
        alice_games = ["g1", "g2", "g3"]           # alice: two blitz, one correspondence
        db.execute(insert(history), [
            {"game_id": game_id, "user_id": user, "pool": "carteso-5", "score": 1.0,
             "before": 1500.0, "rating": 1600.0, "deviation": 200.0, "created": when}
            for game_id, user in [*((g, 101) for g in alice_games), ("g1", 102), ("g2", 102),
                                  ("g3", 103), ("g4", 103)]])
        db.execute(insert(ratings), [
            {"user_id": user, "pool": "carteso-5", "rating": rating, "deviation": 90.0,
             "volatility": 0.06, "games": count, "updated": when}
            for user, rating, count in ((101, 1650.0, 3), (102, 1400.0, 2), (103, 1520.0, 2))])
    engine.dispose()
    Store(url).dispose()                                # upgrades to the newest revision
    engine = create_engine(url)
    with engine.connect() as db:
        assert migrations.current(db) == migrations.head()
        pools = dict(db.execute(select(games.c.id, games.c.pool)).all())
        rated = dict(db.execute(select(rated_games.c.game_id, rated_games.c.pool)).all())
        changes = sorted(db.execute(select(history.c.game_id, history.c.user_id,
                                           history.c.pool)).all())
        rows = {(row.user_id, row.pool): (row.rating, row.games)
                for row in db.execute(select(ratings))}
    engine.dispose()
    assert pools == {"g1": "carteso-5-blitz", "g2": "carteso-5-blitz",
                     "g3": "carteso-5-correspondence", "g4": "carteso-5-rapid",
                     "casual": None}
    assert rated == {game_id: pools[game_id] for game_id, _ in made}
    assert changes == sorted([(game_id, user, pools[game_id]) for game_id, user in
                              [("g1", 101), ("g2", 101), ("g3", 101), ("g1", 102),
                               ("g2", 102), ("g3", 103), ("g4", 103)]])
    assert rows == {(101, "carteso-5-blitz"): (1650.0, 2),
                    (101, "carteso-5-correspondence"): (1650.0, 1),
                    (102, "carteso-5-blitz"): (1400.0, 2),
                    (103, "carteso-5-correspondence"): (1520.0, 1),
                    (103, "carteso-5-rapid"): (1520.0, 1)}
    with TestClient(create_app(url, ai_processes=0)) as client:     # the API shows them
        shown = client.get("/api/users/alice").json()
        board = client.get("/api/leaderboard/carteso-5-blitz").json()["players"]
    assert set(shown["ratings"]) == {"carteso-5-blitz", "carteso-5-correspondence"}
    assert {pool: len(points) for pool, points in shown["history"].items()} == \
        {"carteso-5-blitz": 2, "carteso-5-correspondence": 1}
    assert [player["username"] for player in board] == ["alice", "bob"]
