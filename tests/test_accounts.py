"""Accounts (boardlab/server/accounts): sign up, sign in, sessions, CSRF, throttling, the
anonymising delete, rated games and their Glicko-2 update, profiles and leaderboards, the
user CLI, and the security checks of issue 48 that apply to them."""
import asyncio
import json
import logging
import subprocess
import sys
import threading
import warnings
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import create_engine, select, update

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="Using `httpx`")
    from starlette.testclient import TestClient

from boardlab.server import create_app
from boardlab.server.accounts import ratings as rating_module
from boardlab.server.accounts.schema import history, ratings, sessions, users
from boardlab.server.accounts.sessions import COOKIE, Signer
from boardlab.server.store import Store
from postgres_server import throwaway_postgres

CSRF = {"X-Boardlab-CSRF": "1"}
SPEC = "carteso(size=5)"


class FakeClock:
    def __init__(self):
        self.time = 1000.0

    def now(self):
        return self.time

    async def sleep(self, seconds):
        target = self.time + seconds
        while self.time < target:
            await asyncio.sleep(0.001)


@pytest.fixture
def db(tmp_path):
    return f"sqlite:///{tmp_path / 'server.db'}"


@pytest.fixture
def clock():
    return FakeClock()


@pytest.fixture
def app(db, clock):
    return create_app(db, ai_processes=0, clock=clock)


@pytest.fixture
def alice(app):
    with TestClient(app) as client:
        signup(client, "Alice", "alice-password")
        yield client


class Guest(TestClient):
    """Another browser on a running server: its own cookies, the server's event loop (its
    ``with`` starts nothing)."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return None


def guest(server, address="testclient"):
    """A Guest of ``server`` (an entered TestClient)."""
    client = Guest(server.app, client=(address, 50000))
    client.portal = server.portal
    return client


def person(server, name, password=None):
    client = guest(server)
    signup(client, name, password or f"{name}-password")
    return client


def signup(client, name, password, status=201):
    response = client.post("/api/account/signup", json={"username": name,
                                                        "password": password}, headers=CSRF)
    assert response.status_code == status, response.text
    return response


def code(response) -> str:
    return response.json()["error"]["code"]


# Sign up, sign in, sign out --------------------------------------------------------------------
def test_signup_signin_signout(app):
    with TestClient(app) as client:
        assert client.get("/api/account").json() == {"signed_in": False}
        response = signup(client, "Alice", "alice-password")
        assert response.json() == {"signed_in": True, "username": "Alice", "bot": False}
        cookie = response.headers["set-cookie"]
        assert cookie.startswith(f"{COOKIE}=") and "HttpOnly" in cookie
        assert "SameSite=Lax" in cookie and "Secure" not in cookie
        assert client.get("/api/account").json()["username"] == "Alice"
        assert client.post("/api/account/logout", headers=CSRF).json() == {"signed_in": False}
        assert client.get("/api/account").json() == {"signed_in": False}
        response = client.post("/api/account/login", json={"username": "alice",
                                                          "password": "alice-password"},
                               headers=CSRF)
        assert response.status_code == 200 and response.json()["username"] == "Alice"
        assert client.get("/api/account").json()["signed_in"] is True


def test_secure_cookie_behind_https(db):
    with TestClient(create_app(db, ai_processes=0, https=True)) as client:
        assert "Secure" in signup(client, "Alice", "alice-password").headers["set-cookie"]


def test_wrong_password_and_unknown_name_are_refused(alice):
    for name, password in (("Alice", "wrong-password"), ("nobody", "alice-password")):
        response = alice.post("/api/account/login", json={"username": name,
                                                         "password": password}, headers=CSRF)
        assert response.status_code == 401 and code(response) == "bad_credentials"


def test_names_unique_without_case_and_no_lookalikes(alice):
    for name in ("alice", "ALICE"):
        assert code(signup(alice, name, "another-password", 409)) == "name_taken"
    for name in ("аlice", "Alicе", "Ａlice", "al ice", "a", "x" * 21, "-alice", "ai-1",
                 "Admin", "", None, 5):
        assert code(signup(alice, name, "another-password", 400)) == "bad_username"
    assert code(signup(alice, "bob", "short", 400)) == "bad_password"
    response = alice.post("/api/account/signup", json={"username": "bob"}, headers=CSRF)
    assert code(response) == "bad_request"


# Sessions ----------------------------------------------------------------------------------------
def test_foreign_forged_and_expired_cookies_are_refused(app, db, alice):
    good = alice.cookies[COOKIE]
    session_id = Signer("another server's key").unsign(good)
    assert session_id is None                   # signed with this server's key only
    users = app.state.accounts
    real_id = users.signer.unsign(good)
    foreign = Signer("another server's key").sign(real_id)
    forged = good[:-3] + ("AAA" if not good.endswith("AAA") else "BBB")
    unknown = users.signer.sign("a session id that was never issued")
    with guest(alice) as other:
        for value in (foreign, forged, unknown, "garbage", ""):
            other.cookies.set(COOKIE, value)
            assert other.get("/api/account").json() == {"signed_in": False}, value
            response = other.post("/api/account/password", json={
                "password": "alice-password", "new_password": "stolen-password"}, headers=CSRF)
            assert response.status_code == 401 and code(response) == "not_signed_in"
        other.cookies.set(COOKIE, good)         # the real cookie works elsewhere too
        assert other.get("/api/account").json()["signed_in"] is True
    engine = create_engine(db)                  # a session past its time
    with engine.begin() as conn:
        conn.execute(update(sessions).values(expires=datetime.now(UTC) - timedelta(seconds=1)))
    assert alice.get("/api/account").json() == {"signed_in": False}


def test_an_old_signature_is_refused(app, alice, monkeypatch):
    signer = app.state.accounts.signer
    session_id = signer.unsign(alice.cookies[COOKIE])
    monkeypatch.setattr(signer.signer, "get_timestamp", lambda: 1_000_000_000)
    old = signer.sign(session_id)
    monkeypatch.undo()
    assert signer.unsign(old) is None
    alice.cookies.set(COOKIE, old)
    assert alice.get("/api/account").json() == {"signed_in": False}


def test_password_change_ends_every_other_session(app, alice):
    with guest(alice) as laptop:
        laptop.post("/api/account/login", json={"username": "Alice",
                                                "password": "alice-password"}, headers=CSRF)
        assert laptop.get("/api/account").json()["signed_in"] is True
        response = alice.post("/api/account/password", json={
            "password": "wrong-password", "new_password": "better-password"}, headers=CSRF)
        assert code(response) == "bad_credentials"
        response = alice.post("/api/account/password", json={
            "password": "alice-password", "new_password": "better-password"}, headers=CSRF)
        assert response.status_code == 200
        assert laptop.get("/api/account").json() == {"signed_in": False}
        assert alice.get("/api/account").json()["signed_in"] is True
        for password, status in (("alice-password", 401), ("better-password", 200)):
            response = laptop.post("/api/account/login", json={
                "username": "Alice", "password": password}, headers=CSRF)
            assert response.status_code == status


# CSRF --------------------------------------------------------------------------------------------
def test_missing_csrf_check_is_refused(alice):
    game = {"spec": SPEC, "seats": ["human", "open"]}
    for path, data in (("/api/account/logout", {}), ("/api/games", game),
                       ("/api/account/password", {"password": "alice-password",
                                                  "new_password": "stolen-password"})):
        response = alice.post(path, json=data)
        assert response.status_code == 403 and code(response) == "csrf_failed", path
        response = alice.post(path, json=data, headers={**CSRF,
                                                        "Origin": "https://evil.example"})
        assert response.status_code == 403 and code(response) == "csrf_failed", path
        response = alice.post(path, json=data, headers={**CSRF, "Sec-Fetch-Site": "cross-site"})
        assert response.status_code == 403, path
    response = alice.post("/api/account/login", json={"username": "Alice",
                                                      "password": "alice-password"})
    assert code(response) == "csrf_failed"      # no login CSRF either
    assert alice.get("/api/account").json()["signed_in"] is True     # nothing changed
    response = alice.post("/api/games", json=game, headers={**CSRF,
                                                           "Origin": "http://testserver"})
    assert response.status_code == 201


def test_anonymous_requests_need_no_csrf_header(alice):
    with guest(alice) as anonymous:
        response = anonymous.post("/api/games", json={"spec": SPEC, "seats": ["human", "open"]})
        assert response.status_code == 201


# Throttling --------------------------------------------------------------------------------------
def test_rapid_wrong_signins_are_throttled(app, clock, alice):
    with guest(alice) as attacker:
        answers = [attacker.post("/api/account/login", json={
            "username": "Alice", "password": f"guess-{n}"}, headers=CSRF).status_code
            for n in range(100)]
        assert answers.count(429) >= 85 and set(answers) == {401, 429}
        right = attacker.post("/api/account/login", json={
            "username": "Alice", "password": "alice-password"}, headers=CSRF)
        assert right.status_code == 429 and code(right) == "rate_limited"
        clock.time += 61
        right = attacker.post("/api/account/login", json={
            "username": "Alice", "password": "alice-password"}, headers=CSRF)
        assert right.status_code == 200


def test_signins_are_throttled_per_username_across_addresses(alice):
    answers = []
    for number in range(20):
        with guest(alice, f"10.0.0.{number}") as attacker:
            answers.append(attacker.post("/api/account/login", json={
                "username": "alice", "password": "guess"}, headers=CSRF).status_code)
    assert answers.count(429) >= 10


# Delete ------------------------------------------------------------------------------------------
def test_deleted_account_is_anonymised_and_its_games_stay(app, alice):
    game = alice.post("/api/games", json={"spec": SPEC, "seats": ["human", "open"]},
                      headers=CSRF).json()
    bob = person(alice, "bob")
    bob.post(f"/api/games/{game['id']}/join", json={"seat": 1}, headers=CSRF)
    response = alice.post("/api/account/delete", json={"password": "wrong-password"},
                          headers=CSRF)
    assert code(response) == "bad_credentials"
    response = alice.post("/api/account/delete", json={"password": "alice-password"},
                          headers=CSRF)
    assert response.status_code == 200 and alice.get("/api/account").json()["signed_in"] is False
    assert alice.get("/api/users/Alice").status_code == 404
    assert alice.get(f"/api/games/{game['id']}").status_code == 200
    listed = bob.get("/api/users/bob").json()["games"]
    assert listed[0]["id"] == game["id"] and listed[0]["players"] == {"0": None, "1": "bob"}
    assert code(signup(bob, "alice", "alice-password", 409)) == "name_taken"
    response = bob.post("/api/account/login", json={"username": "Alice",
                                                    "password": "alice-password"}, headers=CSRF)
    assert response.status_code == 401


# Rated games -------------------------------------------------------------------------------------
def rated_game(alice, bob) -> tuple[str, str, str]:
    """A rated Carteso game: Alice seat 0, Bob seat 1; (id, Alice's token, Bob's token)."""
    response = alice.post("/api/games", json={"spec": SPEC, "seats": ["human", "open"],
                                              "rated": True}, headers=CSRF)
    assert response.status_code == 201, response.text
    game = response.json()
    joined = bob.post(f"/api/games/{game['id']}/join", json={"seat": 1}, headers=CSRF)
    assert joined.status_code == 200, joined.text
    return game["id"], game["seats"][0]["token"], joined.json()["token"]


def receive(socket, kind):
    while True:
        message = socket.receive_json()
        if message["type"] == kind:
            return message


def test_rated_game_updates_both_ratings(app, alice):
    bob = person(alice, "bob")
    game_id, alice_token, _ = rated_game(alice, bob)
    # Bob plays through his account (no token: his session holds his seat)
    with bob.websocket_connect(f"/ws/{game_id}", headers={"Origin": "http://testserver"}) \
            as socket:
        assert receive(socket, "sync")["seats"] == [1]
    with alice.websocket_connect(f"/ws/{game_id}?token={alice_token}") as socket:
        sync = receive(socket, "sync")
        assert sync["seats"] == [0]
        socket.send_json({"type": "resign", "seat": 0, "key": "gg"})
        receive(socket, "ack")
    bob_profile = bob.get("/api/users/bob").json()
    alice_profile = bob.get("/api/users/alice").json()
    pool = "carteso-5-correspondence"                   # no clock: correspondence
    assert set(bob_profile["ratings"]) == {pool}
    won, lost = bob_profile["ratings"][pool], alice_profile["ratings"][pool]
    assert won["rating"] > 1500 > lost["rating"] and won["games"] == lost["games"] == 1
    assert won["provisional"] and won["deviation"] < 500
    assert bob_profile["games"][0]["rating"]["before"] == 1500
    assert bob_profile["games"][0]["rated"] and bob_profile["games"][0]["pool"] == pool
    board = bob.get(f"/api/leaderboard/{pool}").json()
    assert [p["username"] for p in board["players"]] == ["bob", "Alice"]
    assert board["players"][0]["rank"] == 1
    assert bob.get("/api/leaderboard/carteso-7-correspondence").json()["players"] == []
    assert code(bob.get("/api/leaderboard/Bad%20Pool")) == "bad_request"


def test_casual_game_changes_no_rating(app, alice):
    bob = person(alice, "bob")
    game = alice.post("/api/games", json={"spec": SPEC, "seats": ["human", "open"]},
                      headers=CSRF).json()
    bob.post(f"/api/games/{game['id']}/join", json={"seat": 1}, headers=CSRF)
    with alice.websocket_connect(f"/ws/{game['id']}?token={game['seats'][0]['token']}") as ws:
        receive(ws, "sync")
        ws.send_json({"type": "resign", "seat": 0, "key": "gg"})
        receive(ws, "ack")
    assert bob.get("/api/users/bob").json()["ratings"] == {}


def test_rated_game_refusals(app, alice):
    with guest(alice) as anonymous:
        response = anonymous.post("/api/games", json={"spec": SPEC, "seats": ["human", "open"],
                                                      "rated": True})
        assert response.status_code == 401 and code(response) == "not_signed_in"
    for data, expected in (({"seats": ["human", "human"]}, "bad_seats"),
                           ({"seats": ["human", {"ai": "random"}]}, "bad_seats"),
                           ({"seats": ["human", "open"], "hotseat": True}, "bad_seats"),
                           ({"seats": ["human", "open"], "spec": "carteso(size=5,komi=3.5)"},
                            "bad_spec"),
                           ({"seats": ["human", "open", "open"],
                             "spec": "cartagena(players=3,allow_voluntary_pass=true)"},
                            "bad_spec"),
                           ({"seats": ["human", "open"], "rated": "yes"}, "bad_request")):
        response = alice.post("/api/games", json={"spec": SPEC, "rated": True, **data},
                               headers=CSRF)
        assert code(response) == expected, (data, response.text)
    game = alice.post("/api/games", json={"spec": SPEC, "seats": ["human", "open"],
                                          "rated": True}, headers=CSRF).json()
    with guest(alice) as anonymous:
        response = anonymous.post(f"/api/games/{game['id']}/join", json={"seat": 1})
        assert code(response) == "not_signed_in"
    response = alice.post(f"/api/games/{game['id']}/join", json={"seat": 1}, headers=CSRF)
    assert response.status_code == 403 and code(response) == "forbidden"


def test_a_user_cannot_act_in_another_users_game(app, alice):
    bob, carol = person(alice, "bob"), person(alice, "carol")
    game_id, _, _ = rated_game(alice, bob)
    with carol.websocket_connect(f"/ws/{game_id}", headers={"Origin": "http://testserver"}) \
            as socket:
        assert receive(socket, "sync")["seats"] == []
        for message in ({"type": "resign", "seat": 0, "key": "k1"},
                        {"type": "action", "seat": 0, "move": "a1", "version": 0, "key": "k2"}):
            socket.send_json(message)
            assert receive(socket, "error")["code"] == "forbidden"
    # Bob's session opened from another site holds nothing (cross-site WebSocket hijacking)
    with bob.websocket_connect(f"/ws/{game_id}", headers={"Origin": "https://evil.example"}) \
            as socket:
        assert receive(socket, "sync")["seats"] == []
    assert alice.get(f"/api/games/{game_id}").json()["status"] == "active"


# No secret anywhere --------------------------------------------------------------------------
def test_no_password_or_session_in_database_logs_or_responses(app, db, tmp_path, caplog):
    caplog.set_level(logging.DEBUG)
    password = "correct-horse-battery"
    answers = []
    with TestClient(app) as client:
        answers.append(signup(client, "Dana", password))
        answers.append(client.post("/api/account/login", json={
            "username": "Dana", "password": password}, headers=CSRF))
        answers.append(client.post("/api/account/login", json={
            "username": "Dana", "password": password + "x"}, headers=CSRF))
        answers.append(client.get("/api/account"))
        answers.append(client.get("/api/users/Dana"))
        session_id = app.state.accounts.signer.unsign(client.cookies[COOKIE])
    store = Store(db)
    store.dispose()
    raw = b"".join(path.read_bytes() for path in tmp_path.glob("server.db*"))
    for secret in (password, session_id):
        assert secret.encode() not in raw
        assert secret not in caplog.text
        for answer in answers:                  # (the cookie itself goes to its holder)
            assert secret not in answer.text
            assert secret not in json.dumps({name: value for name, value in answer.headers.items()
                                             if name != "set-cookie"})
    engine = create_engine(db)
    with engine.connect() as conn:
        stored = conn.execute(select(users.c.password)
                              .where(users.c.username == "Dana")).scalar_one()
    assert stored.startswith("$argon2id$")


# Concurrency -------------------------------------------------------------------------------------
def concurrent_endings(url: str, engines: int = 2, games: int = 40) -> None:
    """``games`` rated games of one player ending at once (threads on ``engines`` engines,
    like server processes): every update is kept."""
    store = Store(url)
    from boardlab.server.accounts.users import Users
    accounts = Users(store.engine)
    hero = accounts.create("hero", "hero-password")
    rivals = [accounts.create(f"rival{n}", "rival-password") for n in range(games)]
    for number, rival in enumerate(rivals):
        store.create_game(f"g{number}", SPEC, number, [
            {"kind": "human", "token": "x", "user": hero},
            {"kind": "human", "token": "y", "user": rival}], pool="carteso-5-correspondence")
    pool = [create_engine(url) for _ in range(engines)]
    barrier = threading.Barrier(games)
    failures = []

    def end(number):
        barrier.wait()
        try:
            assert rating_module.rate(pool[number % engines], f"g{number}", [1.0, -1.0])
        except Exception as error:              # reported below
            failures.append(error)

    threads = [threading.Thread(target=end, args=(n,)) for n in range(games)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    assert not rating_module.rate(pool[0], "g0", [1.0, -1.0])       # rated once only
    with store.engine.connect() as conn:
        row = conn.execute(select(ratings).where(ratings.c.user_id == hero)).one()
        assert row.games == games
        changes = list(conn.execute(select(history).where(history.c.user_id == hero)
                                    .order_by(history.c.id)))
    assert len(changes) == games
    for earlier, later in zip(changes, changes[1:]):      # each update saw the one before
        assert later.before == pytest.approx(earlier.rating)
    for engine in pool:
        engine.dispose()
    store.dispose()


def test_simultaneous_endings_lose_no_update_sqlite(db):
    concurrent_endings(db, games=20)


def test_simultaneous_endings_lose_no_update_postgresql():
    with throwaway_postgres() as server:
        concurrent_endings(server.url, games=40)


# The CLI -----------------------------------------------------------------------------------------
def boardlab(*argv, stdin=""):
    return subprocess.run([sys.executable, "-m", "boardlab", *argv], input=stdin,
                          capture_output=True, text=True, timeout=120)


def test_user_commands(db, tmp_path):
    done = boardlab("user", "create", "Erin", "--password-stdin", "--db", db,
                    stdin="erin-password\n")
    assert done.returncode == 0, done.stderr
    assert boardlab("user", "create", "erin", "--password-stdin", "--db", db,
                    stdin="erin-password\n").returncode == 2
    assert boardlab("user", "create", "bot-1", "--bot", "--db", db).returncode == 0
    app = create_app(db, ai_processes=0)
    with TestClient(app) as client:
        assert client.get("/api/users/bot-1").json()["bot"] is True
        login = {"username": "Erin", "password": "erin-password"}
        assert client.post("/api/account/login", json=login, headers=CSRF).status_code == 200
        done = boardlab("user", "reset-password", "erin", "--password-stdin", "--db", db,
                        stdin="new-erin-password\n")
        assert done.returncode == 0, done.stderr
        assert client.get("/api/account").json() == {"signed_in": False}
        assert client.post("/api/account/login", json=login, headers=CSRF).status_code == 401
        login["password"] = "new-erin-password"
        assert client.post("/api/account/login", json=login, headers=CSRF).status_code == 200
        assert boardlab("user", "disable", "Erin", "--db", db).returncode == 0
        assert client.get("/api/account").json() == {"signed_in": False}
        assert client.post("/api/account/login", json=login, headers=CSRF).status_code == 401
    assert boardlab("user", "disable", "nobody", "--db", db).returncode == 2


def test_a_game_of_more_sides_is_rated_by_openskill_in_the_same_pools(app, alice):
    """A rated Cartagena game of three (its player count leaves it in ``cartagena-basic``)
    and a CTOR game of teams are rated by Weng-Lin (OpenSkill) on Glicko-2's scale: the
    winner up, the others down, a team's players alike; each seat's history score its
    share of the sides it beat."""
    from boardlab.server.accounts.ratings import rate
    bob, carol, dave = (person(alice, name) for name in ("bob", "carol", "dave"))
    response = alice.post("/api/games", json={"spec": "cartagena(players=3)", "rated": True,
                                              "seats": ["human", "open", "open"]},
                          headers=CSRF)
    assert response.status_code == 201, response.text
    game_id = response.json()["id"]
    for seat, client in ((1, bob), (2, carol)):
        joined = client.post(f"/api/games/{game_id}/join", json={"seat": seat}, headers=CSRF)
        assert joined.status_code == 200, joined.text
    engine = app.state.hub.store.engine
    assert rate(engine, game_id, [0.0, 1.0, 0.0]) is True       # Bob won, the others tied
    assert rate(engine, game_id, [0.0, 1.0, 0.0]) is False      # a game is rated once
    shown = {name: alice.get(f"/api/users/{name}").json() for name in ("alice", "bob", "carol")}
    named = "cartagena-basic-correspondence"
    pool = {name: profile["ratings"][named] for name, profile in shown.items()}
    assert pool["bob"]["rating"] > 1500 > pool["alice"]["rating"] == pool["carol"]["rating"]
    assert all(p["games"] == 1 and p["provisional"] and p["deviation"] < 500
               for p in pool.values())
    assert [shown[name]["games"][0]["pool"] for name in shown] == [named] * 3
    # CTOR 2v2: the teams' players move alike
    response = alice.post("/api/games", json={"spec": "ctor(size=8,teams=2v2)", "rated": True,
                                              "seats": ["human", "open", "open", "open"]},
                          headers=CSRF)
    assert response.status_code == 201, response.text
    made = response.json()
    for seat, client in ((1, bob), (2, carol), (3, dave)):
        joined = client.post(f"/api/games/{made['id']}/join", json={"seat": seat},
                             headers=CSRF)
        assert joined.status_code == 200, joined.text
    facts = alice.get(f"/api/games/{made['id']}").json()["facts"]
    names = facts["seats"]
    sides = [[names.index(name) for name in team["seats"]] for team in facts["teams"]]
    outcome = [1.0 if seat in sides[0] else -1.0 for seat in range(4)]
    assert rate(engine, made["id"], outcome, sides) is True
    users = ["alice", "bob", "carol", "dave"]
    after = {users[seat]: alice.get(f"/api/users/{users[seat]}").json()["ratings"]
             ["ctor-8-2v2-correspondence"]["rating"] for seat in range(4)}
    winners = {after[users[seat]] for seat in sides[0]}
    losers = {after[users[seat]] for seat in sides[1]}
    assert len(winners) == len(losers) == 1 and min(winners) > 1500 > max(losers)
