"""Simultaneous endings of rated games lose no rating update (issue 48, Ratings).

Two `boardlab serve` processes share one throw-away PostgreSQL database. A few accounts
play 100 rated games at once (every pair of them many times over, so that each account is
in dozens of games and each game's update locks two rows that other updates want too);
one seat of each game resigns, all at the same moment, half through one process and half
through the other. Then every game is rated exactly once, each account's ``games`` in its
pool is the number of games it played, the rating history has one row per account per
game, and replaying the games one after another, in the order of the stored history,
through the same Glicko-2 function gives exactly the stored ratings: no update was lost or
computed from a rating another update had already replaced.

A unit-level test runs ``ratings.rate`` from many threads on two engines against the same
PostgreSQL directly (the same checks, no server processes). Both skip, saying why, where
PostgreSQL's server binaries are not installed (``.ci/run`` installs them).

Nor is an update lost when a server stops between a game's last action and its rating (or
the update fails): the next server to start rates the game (on SQLite, no PostgreSQL
needed).
"""
from __future__ import annotations

import asyncio
import itertools
import json
import threading
import warnings
from collections import Counter, defaultdict

import pytest
from sqlalchemy import create_engine, select

from boardlab.arena.glicko2 import LICHESS, Rating, rate_game
from boardlab.arena.storage import database_url
from boardlab.checks.soak import NO_CREATE_LIMIT
from boardlab.server.accounts import ratings as rating_module
from boardlab.server.accounts.schema import history, rated_games, ratings, users
from boardlab.server.store import Store
from postgres_server import server_processes

httpx = pytest.importorskip("httpx")
websockets = pytest.importorskip("websockets.asyncio.client")

WAIT = 120.0         # seconds: only bounds a stuck test, never a pass condition
CSRF = {"X-Boardlab-CSRF": "1"}
SPEC = "carteso(size=5)"
PLAYERS = 5          # 10 pairs
ROUNDS = 10          # games per pair: 100 games, 40 for each player


@pytest.fixture(scope="module")
def two_servers(postgres, tmp_path_factory):
    """Two servers on the module's PostgreSQL database (no create limit): their URLs, them."""
    with server_processes(postgres, tmp_path_factory, NO_CREATE_LIMIT) as servers:
        yield [server.url for server in servers], servers


# The replay --------------------------------------------------------------------------------
def check_ratings(url: str, played: dict[int, int], expected_games: set[str],
                  losers: dict[str, int]) -> str:
    """Every check on the database after the endings (see the module's docstring) of the
    accounts in ``played`` (account id -> games; the database may hold other tests'
    accounts); the pool the games were rated in. ``losers``: game id -> its loser."""
    accounts = list(played)
    engine = create_engine(database_url(url))
    try:
        with engine.connect() as db:
            marked = list(db.execute(select(rated_games.c.game_id, rated_games.c.pool)
                                     .where(rated_games.c.game_id.in_(expected_games))))
            changes = list(db.execute(select(history).where(history.c.user_id.in_(accounts))
                                      .order_by(history.c.id)))
            stored = {(row.user_id, row.pool): row for row in db.execute(
                select(ratings).where(ratings.c.user_id.in_(accounts)))}
    finally:
        engine.dispose()
    assert sorted(game for game, _ in marked) == sorted(expected_games)     # once each
    pools = {pool for _, pool in marked}
    assert len(pools) == 1, pools
    pool = pools.pop()
    by_game: dict[str, list] = defaultdict(list)
    for change in changes:
        assert change.pool == pool
        by_game[change.game_id].append(change)
    assert set(by_game) == expected_games
    assert Counter(change.user_id for change in changes) == played      # a row per game
    assert {user: row.games for (user, _), row in stored.items()} == played
    # Replay the games in the order their updates were stored: an update waits for the
    # lock of a rating row an earlier one holds, so the history's ids of two games that
    # share a player are in the order they were applied.
    order = sorted(by_game, key=lambda game: min(change.id for change in by_game[game]))
    current: dict[int, Rating] = defaultdict(Rating)
    for game in order:
        pair = by_game[game]
        assert len(pair) == 2 and pair[0].user_id != pair[1].user_id
        first, second = pair
        assert {first.user_id: first.score, second.user_id: second.score} == {
            losers[game]: 0.0, (first.user_id if second.user_id == losers[game]
                                else second.user_id): 1.0}
        new = rate_game(current[first.user_id], current[second.user_id], first.score, LICHESS)
        for change, before, after in zip(pair, (current[first.user_id],
                                                current[second.user_id]), new):
            assert change.before == pytest.approx(before.rating, abs=1e-9), game
            assert (change.rating, change.deviation) == pytest.approx(
                (after.rating, after.deviation), abs=1e-9), game
        current[first.user_id], current[second.user_id] = new
    for user in played:
        row = stored[user, pool]
        assert (row.rating, row.deviation, row.volatility) == pytest.approx(
            (current[user].rating, current[user].deviation, current[user].volatility),
            abs=1e-9), user
    return pool


# 100 endings through two server processes --------------------------------------------------
async def _next(socket, kind: str, key: str | None = None) -> dict:
    while True:
        message = json.loads(await asyncio.wait_for(socket.recv(), WAIT))
        if message["type"] == "error":
            raise AssertionError(message)
        if message["type"] == kind and (key is None or message.get("key") == key):
            return message


def _ws(base: str, game_id: str, token: str) -> str:
    return f"{base.replace('http', 'ws', 1).rstrip('/')}/ws/{game_id}?token={token}"


async def _sign_up(base: str, name: str) -> httpx.AsyncClient:
    client = httpx.AsyncClient(timeout=WAIT, headers=CSRF)
    answer = await client.post(f"{base}api/account/signup",
                               json={"username": name, "password": f"{name}-password"})
    assert answer.status_code == 201, answer.text
    return client


async def _rated_game(bases: list[str], clients, creator: int, joiner: int,
                      number: int) -> dict:
    """A rated game: the creator's seat 0 made through one process, the joiner's seat 1
    taken through the other; its id and the two seats' tokens."""
    made = await clients[creator].post(f"{bases[number % 2]}api/games", json={
        "spec": SPEC, "seats": ["human", "open"], "rated": True})
    assert made.status_code == 201, made.text
    game = made.json()
    joined = await clients[joiner].post(f"{bases[(number + 1) % 2]}api/games/{game['id']}"
                                        f"/join", json={"seat": 1})
    assert joined.status_code == 200, joined.text
    return {"id": game["id"], "tokens": [game["seats"][0]["token"], joined.json()["token"]]}


async def _play(bases: list[str]) -> tuple[dict[str, int], dict[str, int], list[dict]]:
    """Sign up the players, make the games, end them all at once; (name -> games played,
    game id -> its loser's name, the profiles read afterwards)."""
    names = [f"racer{n}" for n in range(PLAYERS)]
    clients = [await _sign_up(bases[n % 2], name) for n, name in enumerate(names)]
    try:
        pairs = [pair for pair in itertools.combinations(range(PLAYERS), 2)
                 for _ in range(ROUNDS)]
        games = []
        for number, (a, b) in enumerate(pairs):
            creator, joiner = (a, b) if number % 2 else (b, a)
            game = await _rated_game(bases, clients, creator, joiner, number)
            seat = (number // 2) % 2            # the seat that resigns
            game.update(seats=[creator, joiner], loser=[creator, joiner][seat], seat=seat)
            games.append(game)
        sockets = [await websockets.connect(_ws(bases[number % 2], game["id"],
                                                game["tokens"][game["seat"]]),
                                            open_timeout=WAIT)
                   for number, game in enumerate(games)]
        try:
            for socket in sockets:
                await _next(socket, "sync")
            # every socket is open and synced: all resign at once, on both processes
            await asyncio.gather(*(socket.send(json.dumps({
                "type": "resign", "seat": game["seat"], "key": f"end-{number}"}))
                for number, (socket, game) in enumerate(zip(sockets, games))))
            # the ack comes after the rating update (it runs before the end is published)
            await asyncio.gather(*(_next(socket, "ack", f"end-{number}")
                                   for number, socket in enumerate(sockets)))
        finally:
            await asyncio.gather(*(socket.close() for socket in sockets))
        played = Counter(names[seat] for game in games for seat in game["seats"])
        losers = {game["id"]: names[game["loser"]] for game in games}
        profiles = [(await clients[0].get(f"{bases[n % 2]}api/users/{name}")).json()
                    for n, name in enumerate(names)]
        return dict(played), losers, profiles
    finally:
        for client in clients:
            await client.aclose()


def test_100_simultaneous_endings_on_two_processes_lose_no_update(postgres, two_servers):
    bases, servers = two_servers
    played, losers, profiles = asyncio.run(_play(bases))
    engine = create_engine(database_url(postgres.url))
    try:
        with engine.connect() as db:
            ids = dict(db.execute(select(users.c.username, users.c.id)
                                  .where(users.c.username.in_(list(played)))).all())
    finally:
        engine.dispose()
    pool = check_ratings(postgres.url, {ids[name]: count for name, count in played.items()},
                         set(losers), {game: ids[name] for game, name in losers.items()})
    for profile in profiles:                    # what the API shows agrees
        assert list(profile["ratings"]) == [pool], profile["ratings"]
        assert profile["ratings"][pool]["games"] == played[profile["username"]]
    for server in servers:                      # no update failed (retries may be logged)
        for log in server.folder.glob("serve-*.err"):
            assert "the rating update failed" not in log.read_text()


# The same, from threads, without server processes ------------------------------------------
def test_rate_from_many_threads_on_two_engines_loses_no_update(postgres):
    """100 games among 5 accounts rated at once by 100 threads on two engines (like two
    processes): the row locks serialise them, in account order, without a deadlock that
    the retries could not absorb."""
    store = Store(postgres.url)
    from boardlab.server.accounts.users import Users
    accounts = Users(store.engine)
    players = [accounts.create(f"threaded{n}", "threaded-password") for n in range(PLAYERS)]
    games, losers, played = [], {}, Counter()
    pairs = [pair for pair in itertools.combinations(players, 2) for _ in range(ROUNDS)]
    for number, (a, b) in enumerate(pairs):
        seats = [a, b] if number % 2 else [b, a]
        game_id = f"threaded-{number}"
        store.create_game(game_id, SPEC, number, [
            {"kind": "human", "token": f"x{number}", "user": seats[0]},
            {"kind": "human", "token": f"y{number}", "user": seats[1]}], pool="carteso-5")
        outcome = [1.0, -1.0] if (number // 2) % 2 else [-1.0, 1.0]
        losers[game_id] = seats[outcome.index(-1.0)]
        played.update(seats)
        games.append((game_id, outcome))
    # 40 connections at most (PostgreSQL takes 100, the server processes hold some): a
    # thread without one waits for one
    engines = [create_engine(database_url(postgres.url), pool_size=20, max_overflow=0,
                             pool_timeout=WAIT) for _ in range(2)]
    barrier = threading.Barrier(len(games))
    results: list[object] = [None] * len(games)

    def end(number: int) -> None:
        game_id, outcome = games[number]
        barrier.wait(timeout=WAIT)
        try:
            results[number] = rating_module.rate(engines[number % 2], game_id, outcome)
        except Exception as error:              # reported below
            results[number] = error

    threads = [threading.Thread(target=end, args=(n,)) for n in range(len(games))]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(WAIT)
        assert not any(thread.is_alive() for thread in threads), "a rating update hung"
        assert results == [True] * len(games)
        assert not rating_module.rate(engines[0], games[0][0], games[0][1])    # once only
    finally:
        for engine in engines:
            engine.dispose()
        store.dispose()
    check_ratings(postgres.url, dict(played), set(losers), losers)


# A game that ended without its update ------------------------------------------------------
def test_a_rated_game_that_ended_without_its_update_is_rated_when_a_server_starts(
        tmp_path, monkeypatch):
    """The rating update of a rated game fails (as if the server had stopped between the
    game's last action and its rating): the next server started on the database rates it,
    once (a third start changes nothing)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Using `httpx`")
        from starlette.testclient import TestClient
    from boardlab.server import create_app
    from boardlab.server.accounts import seats as seat_module

    db = f"sqlite:///{tmp_path / 'server.db'}"

    def stopped(*args, **kwargs):
        raise RuntimeError("the server stopped before the rating")

    with monkeypatch.context() as patch:
        patch.setattr(seat_module, "rate", stopped)
        with TestClient(create_app(db, ai_processes=0)) as alice:
            bob = TestClient(alice.app)
            bob.portal = alice.portal
            for client, name in ((alice, "alice"), (bob, "bob")):
                answer = client.post("/api/account/signup", headers=CSRF, json={
                    "username": name, "password": f"{name}-password"})
                assert answer.status_code == 201, answer.text
            made = alice.post("/api/games", headers=CSRF, json={
                "spec": SPEC, "seats": ["human", "open"], "rated": True}).json()
            joined = bob.post(f"/api/games/{made['id']}/join", json={"seat": 1},
                              headers=CSRF)
            assert joined.status_code == 200, joined.text
            with alice.websocket_connect(f"/ws/{made['id']}?token="
                                         f"{made['seats'][0]['token']}") as socket:
                socket.send_json({"type": "resign", "seat": 0, "key": "gg"})
                while socket.receive_json()["type"] != "ack":
                    pass
            assert alice.get(f"/api/games/{made['id']}").json()["status"] == "over"
            assert alice.get("/api/users/bob").json()["ratings"] == {}     # not rated
    for _ in range(2):                          # started again, twice
        with TestClient(create_app(db, ai_processes=0)) as client:
            won = client.get("/api/users/bob").json()
            lost = client.get("/api/users/alice").json()
    (pool, rating), = won["ratings"].items()
    assert rating["games"] == lost["ratings"][pool]["games"] == 1
    assert rating["rating"] > 1500 > lost["ratings"][pool]["rating"]
    assert [game["rating"]["before"] for game in won["games"]] == [1500]
