"""Tournaments hosted by the server (boardlab/server/tournaments, docs/tournaments.md) and
the arena's one pairing and standings code they use (boardlab/arena/pairing.py,
tiebreaks.py): the HTTP contract, the formats (round robin single and double, Swiss,
ladder), Swiss properties over many random rounds, no-show forfeits on an injected clock,
a round robin among house bots played to its end, and the security checks (only the
director starts, pauses and ends; names stay text)."""
import asyncio
import io
import json
import random
import re
import zipfile
from collections import Counter
from pathlib import Path

import pytest

from boardlab.arena.pairing import Result, ladder_pairs, round_robin_rounds, swiss_round
from boardlab.arena.tiebreaks import crosstable, standings
from boardlab.server import create_app
from boardlab.server.ai import Thinker, choose
from test_accounts import CSRF, SPEC, FakeClock, code, guest, person, receive

STATIC = Path(__file__).resolve().parent.parent / "boardlab" / "server" / "static"
ORIGIN = {"Origin": "http://testserver"}


class RandomThinker(Thinker):
    """House bots that play random moves (in threads): quick, and the games still end."""

    def __init__(self):
        super().__init__(0)

    async def think(self, task):
        return await asyncio.to_thread(choose, {**task, "agent": "random"})


@pytest.fixture
def clock():
    return FakeClock()


@pytest.fixture
def server(tmp_path, clock):
    from starlette.testclient import TestClient
    app = create_app(f"sqlite:///{tmp_path / 'server.db'}", thinker=RandomThinker(),
                     clock=clock)
    with TestClient(app) as client:
        yield client


def create(client, status=201, **fields):
    data = {"name": "Spring cup", "spec": SPEC, "format": "round-robin", "players": [],
            "clock": None, "rated": False, "rounds": 1, **fields}
    response = client.post("/api/tournaments", json=data, headers=CSRF)
    assert response.status_code == status, response.text
    return response.json()


def post(client, tournament, action, status=200):
    response = client.post(f"/api/tournaments/{tournament}/{action}", headers=CSRF)
    assert response.status_code == status, response.text
    return response.json()


def wait_until(client, tournament, done, clock=None, steps=4000):
    """Read the tournament until ``done(shown)`` (the server's loop plays the games; a
    fake clock is moved on a little each read when given)."""
    for _ in range(steps):
        shown = client.get(f"/api/tournaments/{tournament}").json()
        if done(shown):
            return shown
        if clock is not None:
            clock.time += 0.5
        client.portal.call(asyncio.sleep, 0.005)
    raise AssertionError(f"the tournament did not get there: {shown}")


# The arena's pairing code ---------------------------------------------------------------------
@pytest.mark.parametrize("size", range(2, 13))
def test_round_robin_meets_every_pair_once_a_cycle_with_colours_balanced(size):
    names = [f"p{i:02d}" for i in range(size)]
    for cycles in (1, 2):
        rounds = round_robin_rounds(names, cycles)
        assert len(rounds) == cycles * (size - 1 if size % 2 == 0 else size)
        met, balance, byes = Counter(), Counter(), Counter()
        for pairs in rounds:
            playing = [name for pair in pairs for name in pair if name is not None]
            assert sorted(playing) == names               # everyone, once a round
            for white, black in pairs:
                if black is None:
                    byes[white] += 1
                    continue
                met[(white, black)] += 1
                balance[white] += 1
                balance[black] -= 1
        for a in names:
            assert abs(balance[a]) <= (1 if cycles == 1 else 0)
            assert byes[a] == (cycles if size % 2 else 0)
            for b in names:
                if a < b:
                    together = met[(a, b)] + met[(b, a)]
                    assert together == cycles
                    if cycles == 2:                        # once with each colour
                        assert met[(a, b)] == met[(b, a)] == 1


def play_swiss(rng, size, rounds):
    names = [f"p{i:02d}" for i in range(size)]
    results = []
    for number in range(1, rounds + 1):
        pairs = swiss_round(names, results)
        assert sorted(n for pair in pairs for n in pair if n is not None) == sorted(names)
        assert [black for _, black in pairs].count(None) == size % 2
        for white, black in pairs:
            if black is None:
                results.append(Result(white, None, 1.0, "bye", number))
            else:
                results.append(Result(white, black, rng.choice((0.0, 0.5, 1.0)), None,
                                      number))
    return names, results


def test_swiss_never_repeats_balances_colours_and_gives_byes_fairly():
    """Over many random tournaments of up to half the field's rounds (where a pairing
    without repeats always exists): no pair meets twice, nobody's whites and blacks differ
    by more than two or come three times running, nobody gets a second bye, and players of
    equal score meet where they can."""
    for trial in range(300):
        rng = random.Random(trial)
        size = rng.randint(3, 24)
        rounds = rng.randint(1, max(1, size // 2 - 1))
        names, results = play_swiss(rng, size, rounds)
        met, colours, byes = set(), {n: [] for n in names}, Counter()
        for result in results:
            if result.black is None:
                byes[result.white] += 1
                continue
            pair = frozenset((result.white, result.black))
            assert pair not in met, (trial, pair)
            met.add(pair)
            colours[result.white].append("w")
            colours[result.black].append("b")
        assert max(byes.values(), default=0) <= 1, trial
        for name, seen in colours.items():
            assert abs(seen.count("w") - seen.count("b")) <= 2, (trial, name, seen)
            assert all(len(set(seen[i:i + 3])) > 1 for i in range(len(seen) - 2)), \
                (trial, name, seen)


def test_swiss_first_round_pairs_top_half_against_bottom_half():
    pairs = swiss_round([f"p{i}" for i in range(8)], [])
    assert sorted(tuple(sorted(pair)) for pair in pairs) == \
        [("p0", "p4"), ("p1", "p5"), ("p2", "p6"), ("p3", "p7")]


def test_tie_breaks_buchholz_and_sonneborn_berger():
    # round 1: a beat d, c beat b; round 2: a beat c, d drew b
    results = [Result("a", "d", 1.0, round=1), Result("c", "b", 1.0, round=1),
               Result("a", "c", 1.0, round=2), Result("d", "b", 0.5, round=2)]
    lines = {line.player: line for line in standings("abcd", results, "swiss")}
    assert {p: line.score for p, line in lines.items()} == \
        {"a": 2.0, "b": 0.5, "c": 1.0, "d": 0.5}
    # Buchholz: the opponents' scores; Sonneborn–Berger: beaten ones', half the drawn ones'
    assert (lines["d"].buchholz, lines["b"].buchholz) == (2.0 + 0.5, 1.0 + 0.5)
    assert (lines["a"].sonneborn_berger, lines["c"].sonneborn_berger) == (0.5 + 1.0, 0.5)
    assert lines["d"].sonneborn_berger == lines["b"].sonneborn_berger == 0.5 * 0.5
    ranked = [line.player for line in standings("abcd", results, "swiss")]
    assert ranked == ["a", "c", "d", "b"]                  # d's Buchholz beats b's
    assert crosstable(["a", "d"], results) == [[[], [1.0]], [[0.0], []]]
    rating = lines["a"]
    assert rating.rating_low < rating.rating < rating.rating_high


def test_the_arena_tournament_standings_take_their_tie_breaks_from_the_same_code():
    from types import SimpleNamespace

    from boardlab.arena import tournament
    from boardlab.core.registry import make
    rows = [SimpleNamespace(sides=("a", "d"), scores=(1.0, 0.0), returns=(1.0, -1.0),
                            forfeit=None),
            SimpleNamespace(sides=("c", "b"), scores=(1.0, 0.0), returns=(1.0, -1.0),
                            forfeit=None),
            SimpleNamespace(sides=("a", "c"), scores=(1.0, 0.0), returns=(1.0, -1.0),
                            forfeit=None),
            SimpleNamespace(sides=("d", "b"), scores=(0.5, 0.5), returns=(0.0, 0.0),
                            forfeit=None)]
    lines = {line.name: line for line in tournament.standings(make(SPEC), list("abcd"), rows)}
    shared = {line.player: line for line in standings("abcd", [
        Result(*row.sides, row.scores[0]) for row in rows], "round-robin")}
    for name in "abcd":
        assert lines[name].buchholz == shared[name].buchholz
        assert lines[name].sonneborn_berger == shared[name].sonneborn_berger
    assert (lines["d"].buchholz, lines["b"].buchholz) == (2.5, 1.5)


def test_ladder_pairs_nearest_ratings_and_avoids_the_last_opponent():
    ratings = {"a": 300, "b": 200, "c": 100, "d": 0}
    assert ladder_pairs(list("abcd"), ratings) == [("a", "b"), ("c", "d")]
    pairs = ladder_pairs(list("abcd"), ratings, last_opponent={"a": "b", "b": "a"})
    assert pairs == [("a", "c"), ("b", "d")]
    assert ladder_pairs(["a", "b"], ratings, last_opponent={"a": "b"}) == [("a", "b")]
    assert ladder_pairs(["a", "b", "c"], ratings) == [("a", "b")]   # c waits


# The HTTP contract -------------------------------------------------------------------------
def test_contract_a_round_robin_among_house_bots_played_to_its_end(server):
    alice = person(server, "alice")
    made = create(alice, players=["ai-1", "ai-2", "ai-3"], rounds=2)
    assert set(made) >= {"id"} and made["status"] == "created"
    tournament = made["id"]
    shown = alice.get(f"/api/tournaments/{tournament}").json()
    assert shown["status"] == "created" and shown["games"] == []
    assert [line["player"] for line in shown["standings"]] == ["ai-1", "ai-2", "ai-3"]
    assert post(alice, tournament, "start")["status"] == "running"
    shown = wait_until(alice, tournament, lambda s: s["status"] == "over")
    assert shown["total_rounds"] == 6 and shown["round"] == 6
    games = shown["games"]
    assert len(games) == 6 and len(set(games)) == 6        # 3 pairs, twice; a bye a round
    byes = [p for p in shown["pairings"] if p["forfeit"] == "bye"]
    assert len(byes) == 6 and Counter(p["white"] for p in byes) == \
        {"ai-1": 2, "ai-2": 2, "ai-3": 2}
    lines = shown["standings"]
    assert {line["player"] for line in lines} == {"ai-1", "ai-2", "ai-3"}
    assert [line["rank"] for line in lines] == [1, 2, 3]
    assert all(line["games"] == 4 for line in lines)
    assert sum(line["score"] for line in lines) == 6 + 6   # 6 games' points, 6 byes
    assert all({"score", "games", "buchholz", "sonneborn_berger", "rating"} <= set(line)
               for line in lines)
    for game_id in games:                                  # ordinary server games, kept
        record = alice.get(f"/api/games/{game_id}/record")
        assert record.status_code == 200, record.text
        game = alice.get(f"/api/games/{game_id}").json()
        assert [s["kind"] for s in game["seats"]] == ["ai", "ai"]
    pairs = Counter((p["white"], p["black"]) for p in shown["pairings"] if p["black"])
    assert all(pairs[(b, w)] == 1 for (w, b) in pairs)    # each colour once a pair
    csv = alice.get(f"/api/tournaments/{tournament}/standings.csv")
    assert csv.headers["content-type"].startswith("text/csv")
    rows = csv.text.splitlines()
    assert rows[0].startswith("rank,player,bot,score,games")
    assert [row.split(",")[1] for row in rows[1:]] == [line["player"] for line in lines]
    listed = alice.get("/api/tournaments").json()["tournaments"]
    assert [(t["id"], t["status"]) for t in listed] == [(tournament, "over")]
    cells = shown["crosstable"]["cells"]
    assert all(len(cells[i][j]) == 2 for i in range(3) for j in range(3) if i != j)
    archive = zipped(alice, tournament)                    # the records, one zip
    assert archive.pop("standings.csv") == csv.text
    assert json.loads(archive.pop("tournament.json"))["standings"] == lines
    for pairing in shown["pairings"]:
        if pairing["game"] is None:
            continue
        stem = (f"round-{pairing['round']:03d}-{pairing['white']}-{pairing['black']}-"
                f"{pairing['game']}")
        record = alice.get(f"/api/games/{pairing['game']}/record").json()
        assert json.loads(archive.pop(stem + ".json")) == record
        sgf = alice.get(f"/api/games/{pairing['game']}/record.sgf")
        assert archive.pop(stem + ".sgf") == sgf.text
    assert archive == {}


def zipped(client, tournament) -> dict[str, str]:
    """GET /api/tournaments/ID/records.zip: file name -> text."""
    response = client.get(f"/api/tournaments/{tournament}/records.zip")
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/zip"
    assert response.headers["content-disposition"] == \
        f'attachment; filename="tournament-{tournament}.zip"'
    with zipfile.ZipFile(io.BytesIO(response.content)) as archive:
        return {name: archive.read(name).decode() for name in archive.namelist()}


def test_a_swiss_of_people_plays_round_by_round(server):
    alice = person(server, "alice")
    people = [person(server, name) for name in ("bob", "carol", "dave", "erin")]
    made = create(alice, format="swiss", rounds=2,
                  players=["bob", "carol", "dave", "erin", "ai-1"])
    tournament = made["id"]
    post(alice, tournament, "start")
    shown = alice.get(f"/api/tournaments/{tournament}").json()
    assert shown["round"] == 1 and len(shown["games"]) == 2
    assert [p["forfeit"] for p in shown["pairings"]].count("bye") == 1
    # each person resigns their round-one game when they hold white
    by_name = dict(zip(("bob", "carol", "dave", "erin"), people))
    for pairing in shown["pairings"]:
        if pairing["game"] is None:
            continue
        loser = by_name.get(pairing["white"])
        if loser is None:
            loser = by_name[pairing["black"]]
            seat = 1
        else:
            seat = 0
        with loser.websocket_connect(f"/ws/{pairing['game']}", headers=ORIGIN) as socket:
            socket.receive_json()
            socket.send_json({"type": "resign", "seat": seat, "key": "gg"})
            while socket.receive_json()["type"] != "ack":
                pass
    shown = wait_until(alice, tournament, lambda s: s["round"] == 2)
    first = {frozenset((p["white"], p["black"])) for p in shown["pairings"]
             if p["round"] == 1}
    second = {frozenset((p["white"], p["black"])) for p in shown["pairings"]
              if p["round"] == 2}
    assert not first & second                          # no pair meets twice
    byes = [p["white"] for p in shown["pairings"] if p["forfeit"] == "bye"]
    assert len(byes) == 2 and len(set(byes)) == 2      # a second bye goes to another
    # the zip holds round one's records, not those of round two's games being played
    archive = zipped(guest(server), tournament)   # anyone may
    played = sorted(name for name in archive if name.endswith(".json")
                    and name != "tournament.json")
    assert played == sorted(f"round-001-{p['white']}-{p['black']}-{p['game']}.json"
                            for p in shown["pairings"] if p["round"] == 1 and p["game"])
    assert len(played) == 2 and all(p["result"] is None for p in shown["pairings"]
                                    if p["round"] == 2 and p["game"])


def result_of(client, tournament):
    return client.get(f"/api/tournaments/{tournament}").json()["pairings"][0]["result"]


def test_no_show_forfeits_after_the_directors_wait(server, clock):
    alice, bob = person(server, "alice"), person(server, "bob")
    person(server, "carol")
    person(server, "dave")
    first = create(alice, players=["bob", "carol"], no_show=60)["id"]
    post(alice, first, "start")                        # bob has white and never comes
    clock.time += 59
    client_sleep(server)
    assert result_of(alice, first) is None
    clock.time += 2
    shown = wait_until(alice, first, lambda s: s["status"] == "over")
    (pairing,) = shown["pairings"]
    assert (pairing["white"], pairing["forfeit"], pairing["result"]) == \
        ("bob", "no-show", "0-1")
    assert alice.get(f"/api/games/{pairing['game']}/record").json()["moves"] == ["resign"]
    lines = {line["player"]: line for line in shown["standings"]}
    assert (lines["carol"]["score"], lines["bob"]["forfeits"]) == (1.0, 1)
    # a connected player is no no-show, and the other seat's wait begins with its turn
    second = create(alice, name="second", players=["bob", "dave"], no_show=60)["id"]
    post(alice, second, "start")
    game = alice.get(f"/api/tournaments/{second}").json()["games"][0]
    with bob.websocket_connect(f"/ws/{game}", headers=ORIGIN) as socket:
        receive(socket, "sync")
        clock.time += 100
        client_sleep(server)
        assert result_of(alice, second) is None
        socket.send_json({"type": "action", "seat": 0, "move": "Ba1", "version": 0,
                          "key": "k1"})
        receive(socket, "ack")
        clock.time += 59
        client_sleep(server)
        assert result_of(alice, second) is None
        clock.time += 2
        shown = wait_until(alice, second, lambda s: s["status"] == "over")
    assert (shown["pairings"][0]["forfeit"], shown["pairings"][0]["result"]) == \
        ("no-show", "1-0")


def client_sleep(server, seconds=0.05):
    server.portal.call(asyncio.sleep, seconds)


def test_a_ladder_pairs_idle_players_until_its_duration_ends(server, clock):
    alice = person(server, "alice")
    made = create(alice, format="ladder", rounds=None, duration=600,
                  players=["ai-1", "ai-2", "ai-3", "ai-4"])
    tournament = made["id"]
    post(alice, tournament, "start")
    shown = wait_until(alice, tournament, lambda s: len(s["games"]) >= 8)
    assert shown["status"] == "running"
    lines = shown["standings"]
    rated = [line["rating"] for line in lines]
    assert rated == sorted(rated, reverse=True)             # the leaderboard: by rating
    for round_ in {p["round"] for p in shown["pairings"]}:
        seated = [n for p in shown["pairings"] if p["round"] == round_
                  for n in (p["white"], p["black"])]
        assert len(seated) == len(set(seated))
    clock.time += 601
    shown = wait_until(alice, tournament, lambda s: s["status"] == "over")
    count = len(shown["games"])
    client_sleep(server, 0.2)
    shown = alice.get(f"/api/tournaments/{tournament}").json()
    assert len(shown["games"]) == count                      # no more games once over


def test_a_ladder_with_games_at_once_pairs_each_player_that_many_times(server):
    """games_at_once K: the first pairing gives each of four players K games (4 * K / 2 at
    once), never the same two twice in a row; later pairings keep everyone under K."""
    alice = person(server, "alice")
    made = create(alice, format="ladder", rounds=None, games_at_once=3,
                  players=["ai-1", "ai-2", "ai-3", "ai-4"])
    assert made["games_at_once"] == 3
    post(alice, made["id"], "start")
    shown = wait_until(alice, made["id"], lambda s: len(s["games"]) >= 12)
    first = [p for p in shown["pairings"] if p["round"] == 1]
    assert len(first) == 6
    seated = Counter(n for p in first for n in (p["white"], p["black"]))
    assert set(seated.values()) == {3}
    assert len({frozenset((p["white"], p["black"])) for p in first}) == 6
    post(alice, made["id"], "end")


def test_a_round_is_not_paired_once_the_tournament_stopped(tmp_path):
    """The director reads a running tournament, then its ladder ends (or the director
    pauses it) before the pairing is stored: the pairing is refused, nothing is stored."""
    from sqlalchemy import create_engine
    from boardlab.server import migrations
    from boardlab.server.accounts.users import Users
    from boardlab.server.tournaments import records
    engine = create_engine(f"sqlite:///{tmp_path / 'x.db'}")
    migrations.upgrade(engine)
    users = Users(engine)
    alice, bob = users.create("alice", None), users.create("bob", None)
    made = records.add(engine, {"name": "l", "spec": SPEC, "format": "ladder",
                                "director": alice, "clock": None, "rated": False,
                                "rounds": None, "no_show": None, "duration": None},
                       [alice, bob])
    pairing = {"white": alice, "black": bob, "game_id": "g1", "score": None,
               "forfeit": None}
    for stopped in (records.PAUSED, records.OVER):
        assert records.move(engine, made, (records.CREATED, records.RUNNING), stopped)
        assert not records.pair_round(engine, made, 0, [pairing])
        assert records.pairings_of(engine, made) == []
        assert records.move(engine, made, (stopped,), records.RUNNING)
    assert records.pair_round(engine, made, 0, [pairing])         # running: paired
    assert len(records.pairings_of(engine, made)) == 1
    assert records.move(engine, made, (records.RUNNING,), records.OVER)
    assert not records.pair_round(engine, made, 1, [{**pairing, "game_id": "g2"}])
    assert records.find(engine, made).round == 1
    assert len(records.pairings_of(engine, made)) == 1
    engine.dispose()


# Security and refusals ---------------------------------------------------------------------
def test_only_the_director_starts_pauses_and_ends(server):
    alice, bob = person(server, "alice"), person(server, "bob")
    made = create(alice, players=["bob", "ai-1"])
    tournament = made["id"]
    for action in ("start", "pause", "end"):
        assert code(bob.post(f"/api/tournaments/{tournament}/{action}",
                             headers=CSRF)) == "forbidden"
    with guest(server) as anonymous:
        assert code(anonymous.post(f"/api/tournaments/{tournament}/start")) == \
            "not_signed_in"
        assert code(anonymous.post("/api/tournaments", json={
            "name": "x", "spec": SPEC, "format": "swiss"})) == "not_signed_in"
    assert code(alice.post(f"/api/tournaments/{tournament}/start")) == "csrf_failed"
    assert code(alice.post(f"/api/tournaments/{tournament}/pause", headers=CSRF)) == \
        "bad_state"
    post(alice, tournament, "start")
    assert code(alice.post(f"/api/tournaments/{tournament}/start", headers=CSRF)) == \
        "bad_state"
    assert post(alice, tournament, "pause")["status"] == "paused"
    assert post(alice, tournament, "start")["status"] == "running"
    assert post(alice, tournament, "end")["status"] == "over"
    assert code(alice.post(f"/api/tournaments/{tournament}/end", headers=CSRF)) == \
        "bad_state"
    assert code(alice.get("/api/tournaments/nothing-here")) == "not_found"


def test_joining_leaving_and_bad_requests(server):
    alice, bob = person(server, "alice"), person(server, "bob")
    made = create(alice, players=["ai-2"])
    tournament = made["id"]
    assert code(alice.post(f"/api/tournaments/{tournament}/start", headers=CSRF)) == \
        "bad_state"                                         # one player
    post(bob, tournament, "join")
    assert code(bob.post(f"/api/tournaments/{tournament}/join", headers=CSRF)) == \
        "bad_state"
    shown = alice.get(f"/api/tournaments/{tournament}").json()
    assert [p["player"] for p in shown["players"]] == ["ai-2", "bob"]
    post(bob, tournament, "leave")
    post(bob, tournament, "join")
    post(alice, tournament, "start")
    carol = person(server, "carol")
    assert code(carol.post(f"/api/tournaments/{tournament}/join", headers=CSRF)) == \
        "bad_state"                                         # a round robin has begun
    for fields, expected in (({"format": "knockout"}, "bad_request"),
                             ({"spec": "nonsense"}, "bad_spec"),
                             ({"spec": "ctor(size=8,teams=2v2)", "rated": True},
                              "bad_spec"),            # an entrant holds a whole team
                             ({"players": ["nobody"]}, "not_found"),
                             ({"players": ["bob", "Bob"]}, "bad_request"),
                             ({"rounds": 3}, "bad_request"),
                             ({"format": "ladder", "rounds": 2}, "bad_request"),
                             ({"duration": 60}, "bad_request"),
                             ({"games_at_once": 2}, "bad_request"),
                             ({"format": "ladder", "rounds": None, "games_at_once": 0},
                              "bad_request"),
                             ({"format": "ladder", "rounds": None, "games_at_once": 21},
                              "bad_request"),
                             ({"format": "ladder", "rounds": None, "games_at_once": True},
                              "bad_request"),
                             ({"no_show": -1}, "bad_request"),
                             ({"clock": {"base": 0, "increment": 0}}, "bad_clock"),
                             ({"rated": "yes"}, "bad_request"),
                             ({"name": ""}, "bad_request"),
                             ({"name": "x" * 101}, "bad_request")):
        response = alice.post("/api/tournaments", json={
            "name": "cup", "spec": SPEC, "format": "round-robin", **fields}, headers=CSRF)
        assert code(response) == expected, fields


def test_names_are_kept_as_text_and_the_pages_render_them_as_text(server):
    alice = person(server, "alice")
    name = "<img src=x onerror=alert(1)> cup"
    made = create(alice, name=name, players=["ai-1", "ai-2"])
    assert alice.get(f"/api/tournaments/{made['id']}").json()["name"] == name
    for page in ("tournament.html", "tournaments.html"):
        html = (STATIC / page).read_text()
        assert "<script>" not in html and "onclick" not in html     # no inline script
    for script in ("tournament.js", "tournaments.js"):
        text = (STATIC / "js" / script).read_text()
        assert not re.search(r"innerHTML|outerHTML|insertAdjacentHTML|document\.write",
                             text), script
    page = alice.get(f"/tournament/{made['id']}")
    assert page.status_code == 200 and "tournament.js" in page.text
