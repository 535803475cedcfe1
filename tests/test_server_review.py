"""Game reviews (POST/GET /api/games/{id}/review): every position of a finished game of
each game valued, the refusals (a running game, too many reviews at once), the review kept
across a restart, and nothing in it beyond what the game's record shows everyone."""
import asyncio
import json
import warnings

import pytest

with warnings.catch_warnings():      # starlette >= 1.x would rather have httpx2
    warnings.filterwarnings("ignore", message="Using `httpx`")
    from starlette.testclient import TestClient

import boardlab
from boardlab.core.record import replay_moves
from boardlab.server import create_app
from boardlab.server.ai import Thinker
from boardlab.server.clients import Limits
from boardlab.server.review import MARK_DROP, MARKED, Budget

SEED = 1987654321            # a seed no answer before the end may contain
QUICK = Budget(level=1, seconds=0.05)
#: a small configuration of each game that random players finish quickly: two sides, more
#: seats than sides (teams, a simultaneous round), hidden hands and chance, secret squares
SPECS = {"carteso": "carteso(size=5)", "rumbo": "rumbo(size=3)",
         "cartagena": "cartagena(players=3)",
         "ctor": "ctor(size=8,teams=2v2,team_protocol=simultaneous,max_turns=6)"}
SECRETS = ("cartagena(players=3)", "ctor(size=8,secret_squares=true,max_turns=8)")


@pytest.fixture
def db(tmp_path):
    return f"sqlite:///{tmp_path / 'server.db'}"


def app(db, **extra):
    return TestClient(create_app(db, ai_processes=0, review_budget=QUICK, **extra))


def create(client, spec, seats, seed=SEED):
    response = client.post("/api/games", json={"spec": spec, "seats": seats, "seed": seed})
    assert response.status_code == 201, response.text
    return response.json()


def finished(client, spec, seed=SEED):
    """A game of random AIs on every seat, played to its end (watched until then)."""
    game = create(client, spec, [{"ai": "random"}] * boardlab.make(spec).num_seats, seed)
    with client.websocket_connect(f"/ws/{game['id']}") as ws:
        while not ws.receive_json().get("view", {}).get("terminal"):
            pass
    return game


def reviewed(client, game) -> dict:
    """Request the review of ``game`` and wait until it is done; the GET answer."""
    url = f"/api/games/{game['id']}/review"
    started = client.post(url)
    assert started.status_code == 202, started.text
    assert started.json()["status"] in ("queued", "running")
    job = client.app.state.hub.reviews.jobs[game["id"]]
    client.portal.call(job.finished.wait)
    answer = client.get(url)
    assert answer.status_code == 200
    return answer.json()


@pytest.mark.parametrize("spec", SPECS.values(), ids=SPECS.keys())
def test_a_review_values_every_position_of_a_finished_game(db, spec):
    game_facts = boardlab.make(spec)
    with app(db) as client:
        game = finished(client, spec)
        answer = reviewed(client, game)
        record = client.get(f"/api/games/{game['id']}/record").json()
        again = client.post(f"/api/games/{game['id']}/review")         # done: not again
    assert again.status_code == 200 and again.json() == answer
    assert answer["status"] == "done" and answer["done"] == answer["total"]
    review = answer["review"]
    moves = record["moves"]
    assert review["sides"] == list(game_facts.team_names)
    assert [p["at"] for p in review["positions"]] == list(range(len(moves) + 1))
    assert answer["total"] == len(moves) + 1
    for position in review["positions"]:
        assert len(position["chances"]) == len(game_facts.teams)
        assert all(0.0 <= chance <= 1.0 for chance in position["chances"])
    low, high = game_facts.utility_bounds
    returns = record["result"]["returns"]
    assert review["positions"][-1]["chances"] == [
        round((returns[members[0]] - low) / (high - low), 4) for members in game_facts.teams]
    assert [m["move"] for m in review["moves"]] == moves
    chances = [p["chances"] for p in review["positions"]]
    for move in review["moves"]:
        side = move["side"]
        assert move["seat"] in game_facts.seat_names
        assert side == game_facts.team_of(game_facts.seat_names.index(move["seat"]))
        assert move["drop"] == pytest.approx(chances[move["at"]][side] -
                                             chances[move["at"] + 1][side], abs=1e-3)
    marked = [move for move in review["moves"] if move["at"] in review["marked"]]
    assert all(move["drop"] >= MARK_DROP for move in marked)
    for side in range(len(game_facts.teams)):
        assert sum(move["side"] == side for move in marked) <= MARKED
    assert review["iterations"] == game_facts.level_budgets[QUICK.level - 1]


def test_a_running_game_is_not_reviewed(db):
    with app(db) as client:
        game = create(client, "carteso(size=5)", ["human", "human"])
        url = f"/api/games/{game['id']}/review"
        for method in ("POST", "GET"):
            response = client.request(method, url)
            assert response.status_code == 409, response.text
            assert response.json()["error"]["code"] == "not_over"
            assert str(SEED) not in response.text
        assert client.app.state.hub.reviews.jobs == {}
        assert client.post("/api/games/nosuchgame/review").json()["error"]["code"] == \
            "not_found"
        assert client.get(url.replace(game["id"], "no-such")).status_code == 404


class Gated:
    """A thinker whose reviews wait until ``opened`` (plays AI moves as a real one)."""

    def __init__(self):
        self.real = Thinker(0)
        self.processes = 0
        self.opened: asyncio.Event | None = None
        self.asked = 0

    async def think(self, task):
        return await self.real.think(task)

    async def run(self, function, task):
        self.asked += 1
        self.opened = self.opened or asyncio.Event()
        await self.opened.wait()
        return await self.real.run(function, task)

    def open(self):
        self.opened = self.opened or asyncio.Event()
        self.opened.set()

    def close(self):
        self.real.close()


def test_reviews_run_a_few_at_once_and_a_flood_is_refused(db):
    gated = Gated()
    with app(db, thinker=gated, limits=Limits(reviews=1, reviews_waiting=1)) as client:
        games = [finished(client, "carteso(size=5)", seed) for seed in (1, 2, 3)]
        urls = [f"/api/games/{game['id']}/review" for game in games]
        first, second = client.post(urls[0]), client.post(urls[1])
        assert first.status_code == second.status_code == 202
        assert client.post(urls[0]).status_code == 202          # the same review, joined
        assert client.get(urls[1]).json()["status"] == "queued"
        refused = client.post(urls[2])
        assert refused.status_code == 429 and refused.json()["error"]["code"] == "busy"
        assert client.get(urls[2]).json()["status"] == "none"
        reviews = client.app.state.hub.reviews
        jobs = [reviews.jobs[game["id"]] for game in games[:2]]
        assert [job.status for job in jobs] == ["running", "queued"]
        client.portal.call(gated.open)
        for job in jobs:
            client.portal.call(job.finished.wait)
        assert [client.get(url).json()["status"] for url in urls] == ["done", "done", "none"]
        assert client.post(urls[2]).status_code == 202                  # room again


class Failing:
    """A thinker whose every review search fails."""

    processes = 0

    async def run(self, function, task):
        raise RuntimeError("the worker died")

    def close(self):
        pass


def test_a_review_is_kept_across_a_restart_and_a_failed_one_is_asked_again(db):
    with app(db) as client:
        game = finished(client, "carteso(size=5)")
        done = reviewed(client, game)
    with app(db, thinker=Failing()) as client:      # the stored review: nothing searched
        url = f"/api/games/{game['id']}/review"
        assert client.get(url).json() == done
        assert client.post(url).json() == done
        other = finished_by_resignation(client)
        other_url = f"/api/games/{other['id']}/review"
        assert client.post(other_url).status_code == 202
        job = client.app.state.hub.reviews.jobs[other["id"]]
        client.portal.call(job.finished.wait)
        failed = client.get(other_url).json()
        assert failed["status"] == "failed" and failed["message"]
        assert client.post(other_url).json()["status"] == "queued"     # asked again


def finished_by_resignation(client):
    game = create(client, "carteso(size=5)", ["human", "human"])
    token = game["seats"][0]["token"]
    with client.websocket_connect(f"/ws/{game['id']}?token={token}") as ws:
        ws.receive_json()
        ws.send_json({"type": "resign", "seat": 0, "key": "r"})
        assert ws.receive_json()["type"] == "ack"
    return game


@pytest.mark.parametrize("spec", SECRETS)
def test_a_review_shows_nothing_the_record_does_not(db, spec):
    """Before the end nothing (as the record); after it, anyone may read the review, as
    anyone may read the record: its moves are the record's, and each preferred move is one
    its mover could play from its own view then (the search knew only that view)."""
    game_facts = boardlab.make(spec)
    with app(db) as client:
        running = create(client, spec, ["human"] * game_facts.num_seats)
        refused = client.post(f"/api/games/{running['id']}/review")
        assert refused.status_code == 409 and str(SEED) not in refused.text
        game = finished(client, spec)
        answer = reviewed(client, game)
        record = client.get(f"/api/games/{game['id']}/record").json()
    text = json.dumps(answer)
    assert str(SEED) not in text
    assert not any(seat["token"] in text for seat in running["seats"] if "token" in seat)
    review = answer["review"]
    assert [m["move"] for m in review["moves"]] == record["moves"]
    assert set(answer) == {"status", "done", "total", "review"}
    assert set(review) == {"sides", "positions", "moves", "marked", "level", "iterations"}
    for position in review["positions"][:-1]:
        state = replay_moves(record["spec"], record["moves"][:position["at"]], record["seed"])
        seat = game_facts.seat_names.index(position["seat"])
        assert position["best"] in state.view(seat)["legal"]
    assert review["positions"][-1]["best"] is None


def test_the_review_budget_is_a_server_option(monkeypatch, tmp_path):
    import boardlab.server
    from boardlab.cli import main
    given = {}
    monkeypatch.setattr(boardlab.server, "serve",
                        lambda host, port, db, **options: given.update(options) or 0)
    assert main(["serve", "--db", str(tmp_path / "x.db"), "--review-level", "2",
                 "--review-seconds", "0.5"]) == 0
    assert given["review_budget"] == Budget(level=2, seconds=0.5)
    assert main(["serve", "--db", str(tmp_path / "x.db")]) == 0
    assert given["review_budget"] == Budget()


def test_no_reviews_at_all_when_the_limit_is_zero(db):
    with app(db, limits=Limits(reviews=0)) as client:
        game = finished_by_resignation(client)
        refused = client.post(f"/api/games/{game['id']}/review")
        assert refused.status_code == 429 and refused.json()["error"]["code"] == "busy"
        assert client.app.state.hub.reviews.jobs == {}
