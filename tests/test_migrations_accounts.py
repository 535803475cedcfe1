"""A database of the first accounts revision (0002) keeps its accounts through every later
revision (issue 48, Schema migrations): made at revision 0002 with two accounts (an Argon2
password, a live session, the server's cookie key), a finished rated game with its log,
ratings and rating history, it is opened by today's server (on SQLite, whose later
revisions rebuild ``server_games`` and ``server_users`` table by table, and on PostgreSQL):
the session still signs Alice in, Bob signs in with his password, the game replays to its
end, and the ratings, history and leaderboard are as they were. (test_migrations.py does
the same for a database made before migrations.)"""
import random
import warnings
from datetime import UTC, datetime, timedelta

from argon2 import PasswordHasher
from sqlalchemy import (JSON, Boolean, DateTime, Float, Integer, String, column, create_engine,
                        table)

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="Using `httpx`")
    from starlette.testclient import TestClient

from boardlab.arena.glicko2 import LICHESS, Rating, rate_game
from boardlab.arena.storage import database_url
from boardlab.core.driver import GameDriver
from boardlab.core.registry import make
from boardlab.server import create_app, migrations
from boardlab.server.accounts.sessions import COOKIE, Signer, session_hash
from postgres_server import throwaway_postgres

SPEC = "carteso(size=5)"
CSRF = {"X-Boardlab-CSRF": "1"}
WHEN = DateTime(timezone=True)


def _table(table_name: str, /, **columns):
    return table(table_name, *(column(key, kind) for key, kind in columns.items()))


USERS = _table("server_users", id=Integer(), username=String(), name_key=String(),
               password=String(), bot=Boolean(), disabled=Boolean(), deleted=Boolean(),
               created=WHEN)
SESSIONS = _table("server_sessions", id=String(), user_id=Integer(), created=WHEN,
                  expires=WHEN)
SETTINGS = _table("server_settings", name=String(), value=String())
GAMES = _table("server_games", id=String(), spec=String(), seed=Integer(), seats=JSON(),
               status=String(), clock=JSON(), rematch=String(), created=WHEN, updated=WHEN,
               pool=String())
ACTIONS = _table("server_actions", game_id=String(), idx=Integer(), seat=Integer(),
                 move=String(), key=String(), clocks=JSON(), created=WHEN)
PLAYERS = _table("server_game_players", game_id=String(), seat=Integer(), user_id=Integer())
RATED = _table("server_rated_games", game_id=String(), pool=String(), created=WHEN)
RATINGS = _table("server_ratings", user_id=Integer(), pool=String(), rating=Float(),
                 deviation=Float(), volatility=Float(), games=Integer(), updated=WHEN)
HISTORY = _table("server_rating_history", game_id=String(), user_id=Integer(), pool=String(),
                 score=Float(), before=Float(), rating=Float(), deviation=Float(),
                 created=WHEN)


def revision_0002_database(url: str) -> dict:
    """The database as a server of revision 0002 left it; what it holds."""
    engine = create_engine(database_url(url))
    try:
        assert migrations.upgrade(engine, "0002")[1] == "0002"
        now = datetime.now(UTC)
        key, session_id = "a signing key of revision 0002" * 2, "a session of revision 0002"
        driver, rng = GameDriver(make(SPEC), seed=77), random.Random(77)
        moves = []
        for _ in range(6):
            seat = driver.acting()[0]
            move = driver.state.action_to_string(rng.choice(driver.state.legal_actions()))
            driver.submit(seat, move)
            moves.append((seat, move))
        moves.append((driver.acting()[0], "resign"))          # seat 0: Bob wins
        pool = "carteso-5"
        after = rate_game(Rating(), Rating(), 0.0, LICHESS)     # Alice seat 0 lost
        with engine.begin() as db:
            alice, bob = (db.execute(USERS.insert().values(
                username=name, name_key=name.lower(), bot=False, disabled=False,
                deleted=False, created=now,
                password=PasswordHasher().hash(f"{name.lower()}-password"))
                .returning(USERS.c.id)).scalar_one() for name in ("Alice", "Bob"))
            db.execute(SETTINGS.insert().values(name="session_signing_key", value=key))
            db.execute(SESSIONS.insert().values(id=session_hash(session_id),
                                                user_id=alice, created=now,
                                                expires=now + timedelta(days=20)))
            db.execute(GAMES.insert().values(
                id="rated1", spec=SPEC, seed=77, status="over", clock=None, rematch=None,
                created=now, updated=now, pool=pool,
                seats=[{"kind": "human", "token": "t0" * 16, "user": alice},
                       {"kind": "human", "token": "t1" * 16, "user": bob}]))
            db.execute(ACTIONS.insert(), [
                {"game_id": "rated1", "idx": index, "seat": seat, "move": move,
                 "key": f"k{index}", "clocks": None, "created": now}
                for index, (seat, move) in enumerate(moves)])
            db.execute(PLAYERS.insert(), [{"game_id": "rated1", "seat": seat, "user_id": user}
                                          for seat, user in ((0, alice), (1, bob))])
            db.execute(RATED.insert().values(game_id="rated1", pool=pool, created=now))
            for user, new, score in ((alice, after[0], 0.0), (bob, after[1], 1.0)):
                db.execute(RATINGS.insert().values(
                    user_id=user, pool=pool, rating=new.rating, deviation=new.deviation,
                    volatility=new.volatility, games=1, updated=now))
                db.execute(HISTORY.insert().values(
                    game_id="rated1", user_id=user, pool=pool, score=score, before=1500.0,
                    rating=new.rating, deviation=new.deviation, created=now))
    finally:
        engine.dispose()
    return {"cookie": Signer(key).sign(session_id), "moves": moves,
            "ratings": {"Alice": round(after[0].rating), "Bob": round(after[1].rating)}}


def check_accounts_kept(url: str, made: dict) -> None:
    with TestClient(create_app(database_url(url), ai_processes=0)) as client:
        client.cookies.set(COOKIE, made["cookie"])
        assert client.get("/api/account").json() == {"signed_in": True, "username": "Alice",
                                                     "bot": False}
        client.cookies.clear()
        response = client.post("/api/account/login", json={"username": "bob",
                                                           "password": "bob-password"},
                               headers=CSRF)
        assert response.status_code == 200, response.text
        game = client.get("/api/games/rated1").json()
        assert game["status"] == "over" and game["version"] == len(made["moves"])
        assert game["view"]["history"] == [move for _, move in made["moves"]]
        for name, rating in made["ratings"].items():
            profile = client.get(f"/api/users/{name}").json()
            (pool, shown), = profile["ratings"].items()
            assert shown["rating"] == rating and shown["games"] == 1
            listed = profile["games"][0]
            assert listed["id"] == "rated1" and listed["rated"] and listed["pool"] == pool
            assert listed["rating"]["before"] == 1500
        board = client.get(f"/api/leaderboard/{pool}").json()["players"]
        assert [p["username"] for p in board] == ["Bob", "Alice"]
        assert client.get("/api/users/ai-1").json()["bot"] is True      # revision 0004's
    engine = create_engine(database_url(url))
    try:
        with engine.connect() as db:
            assert migrations.current(db) == migrations.head()
    finally:
        engine.dispose()


def test_a_revision_0002_sqlite_database_keeps_its_accounts(tmp_path):
    url = f"sqlite:///{tmp_path / 'accounts.db'}"
    made = revision_0002_database(url)
    check_accounts_kept(url, made)
    check_accounts_kept(url, made)              # opening it again changes nothing


def test_a_revision_0002_postgresql_database_keeps_its_accounts():
    with throwaway_postgres() as server:
        made = revision_0002_database(server.url)
        check_accounts_kept(server.url, made)
