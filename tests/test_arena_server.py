"""One tournament model for the arena and the server: ``boardlab tournament --db`` on a
server's database writes the tournament, its entrants (bot accounts), pairings and games
into the server's tables as each game ends (server/tournaments/arena_link.py,
docs/arena.md), so a real ``boardlab serve`` on that database shows it, live, with the
standings the command prints and games its game page replays; ``--resume`` and the arena's
own database stay as they were."""
import io
import json
import threading
import zipfile

import httpx
import pytest
from sqlalchemy import create_engine, func, select

from boardlab.arena.storage import Store, database_url
from boardlab.arena.tournament import Tournament, tournament_config
from boardlab.checks.soak import ServerProcess
from boardlab.cli import main
from boardlab.core.errors import BoardlabError
from boardlab.core.record import check_record
from boardlab.server import create_app, migrations
from boardlab.server.store import actions
from boardlab.server.tournaments.arena_link import entrant_name, server_log, server_mirror
from boardlab.server.tournaments.schema import pairings, tournaments

from postgres_server import throwaway_postgres
from test_accounts import CSRF, person

SPEC = "carteso(size=4)"
FIELDS = ("games", "wins", "draws", "losses", "forfeits", "buchholz", "sonneborn_berger")


def server_db(tmp_path, name="server.db") -> str:
    """A server's database, made by `boardlab db upgrade`."""
    path = str(tmp_path / name)
    assert main(["db", "upgrade", "--db", path]) == 0
    return path


def arena_standings(db: str, name: str, capsys) -> dict:
    """The arena's standings of ``name`` (the lines `boardlab tournament` prints)."""
    capsys.readouterr()
    assert main(["standings", name, "--db", db, "--json"]) == 0
    return {line["name"]: line for line in json.loads(capsys.readouterr().out)}


def same_standings(arena: dict, shown: dict) -> None:
    """The server's standings are the arena's: score, games, W-D-L, forfeits, tie-breaks."""
    lines = {line["player"]: line for line in shown["standings"]}
    assert set(lines) == {entrant_name(name) for name in arena}
    for name, line in arena.items():
        server = lines[entrant_name(name)]
        assert server["score"] == line["points"]
        assert {field: server[field] for field in FIELDS} == \
            {field: line[field] for field in FIELDS}


def test_a_tournament_run_on_a_server_database_shows_on_a_real_server(tmp_path, capsys):
    db = server_db(tmp_path)
    assert main(["tournament", SPEC, "rnd=random", "grd=greedy", "mc=mcts(iterations=20)",
                 "--name", "cup", "--db", db, "--jobs", "1",
                 "--plot", str(tmp_path / "p.png")]) == 0
    printed = capsys.readouterr().out
    assert "on the server's pages: /tournament/" in printed
    arena = arena_standings(db, "cup", capsys)
    rows = [[cell.strip() for cell in row.split("│")[1:-1]]
            for row in printed.splitlines() if row.count("│") > 10]
    assert sorted(row[1] for row in rows) == sorted(arena)   # the table printed: these lines
    for row in rows:
        line = arena[row[1]]
        assert row[4:6] == [str(line["games"]), f"{line['points']:g}"]
        assert row[7] == f"{line['wins']}-{line['draws']}-{line['losses']}"
        assert row[9:11] == [f"{line['buchholz']:g}", f"{line['sonneborn_berger']:g}"]
    store = Store(db, create=False)
    records = {row.idx: row.record for row in Tournament.resume(store, "cup").rows()}
    store.dispose()
    server = ServerProcess(tmp_path, db)
    try:
        base = server.start()
        http = httpx.Client(timeout=120)
        listed = http.get(base + "api/tournaments").json()["tournaments"]
        assert [(t["name"], t["arena"], t["status"]) for t in listed] == \
            [("cup", "cup", "over")]
        shown = http.get(base + f"api/tournaments/{listed[0]['id']}").json()
        assert shown["director"] == "arena" and shown["format"] == "round-robin"
        assert [p["player"] for p in shown["players"]] == ["rnd", "grd", "mc"]
        assert all(p["bot"] for p in shown["players"])
        same_standings(arena, shown)
        assert len(shown["games"]) == 6 == len(records)
        for index, game_id in enumerate(shown["games"]):
            game = http.get(base + f"api/games/{game_id}").json()
            assert game["status"] == "over" and game["view"]["terminal"]
            assert game["view"]["history"] == records[index]["moves"]
            record = http.get(base + f"api/games/{game_id}/record").json()
            assert check_record(record).returns() == check_record(records[index]).returns()
        page = http.get(base + f"tournament/{listed[0]['id']}")
        assert page.status_code == 200
        packed = http.get(base + f"api/tournaments/{listed[0]['id']}/records.zip")
        with zipfile.ZipFile(io.BytesIO(packed.content)) as archive:
            assert len([n for n in archive.namelist() if n.startswith("round-")
                        and n.endswith(".json")]) == 6
    finally:
        server.close()


@pytest.fixture(scope="module")
def postgres():
    with throwaway_postgres() as server:
        yield server


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_a_running_server_shows_each_game_as_it_is_stored(tmp_path, kind, request):
    """A `boardlab serve` started first reads the tables while the command adds games (its
    page polls the same answer): after each stored game it shows exactly the games so far
    and their standings, running, then over; on SQLite and on PostgreSQL."""
    if kind == "sqlite":
        db = server_db(tmp_path)
    else:
        db = request.getfixturevalue("postgres").url
        assert main(["db", "upgrade", "--db", db]) == 0
    server = ServerProcess(tmp_path, database_url(db))
    try:
        base = server.start()
        http = httpx.Client(timeout=120)
        assert http.get(base + "api/tournaments").json()["tournaments"] == []
        store = Store(db)
        config = tournament_config(SPEC, {"a": "random", "b": "greedy", "c": "random"},
                                   rounds=1, seed=3)
        tournament = Tournament(store, "live", config, server_mirror(store))
        seen: list[tuple[str, int, float]] = []

        def check(progress) -> None:
            if progress.last is None:
                return
            found = http.get(base + "api/tournaments").json()["tournaments"]
            shown = http.get(base + f"api/tournaments/{found[0]['id']}").json()
            seen.append((shown["status"], len(shown["games"]),
                         sum(line["score"] for line in shown["standings"])))
            points = {entrant_name(line.name): line.points for line in progress.standings}
            assert {line["player"]: line["score"] for line in shown["standings"]} == points
            last = http.get(base + f"api/games/{shown['games'][-1]}").json()
            assert last["status"] == "over"
        tournament.run(jobs=1, on_game=check)
        store.dispose()
        found = http.get(base + "api/tournaments").json()["tournaments"]
        assert http.get(base + f"api/tournaments/{found[0]['id']}").json()["status"] == \
            "over"
    finally:
        server.close()
    assert seen == [("running", n, float(n)) for n in range(1, 7)]


def test_resume_goes_on_and_games_stored_before_the_server_are_copied(tmp_path, capsys):
    """A run stopped after two games is paused on the server; a plain arena file made a
    server's database later gets its earlier games copied on --resume; each game once."""
    db = str(tmp_path / "later.db")
    store = Store(db)
    config = tournament_config(SPEC, {"a": "random", "b": "greedy", "c": "random"}, seed=5)
    tournament = Tournament(store, "r", config)           # the arena's tables only

    class Stop(Exception):
        pass

    def stop_after_two(progress) -> None:
        if progress.done == 2 and progress.last is not None:
            raise Stop
    with pytest.raises(Stop):
        tournament.run(jobs=1, on_game=stop_after_two)
    assert server_mirror(store) is None                   # not a server's database
    store.dispose()
    server_db(tmp_path, "later.db")                       # now it is one
    store = Store(db)
    tournament = Tournament.resume(store, "r", server_mirror(store))
    with pytest.raises(Stop):                             # copied, then stopped again
        tournament.run(jobs=1, on_game=lambda p: (_ for _ in ()).throw(Stop)
                       if p.last is not None else None)
    engine = create_engine(f"sqlite:///{db}")
    with engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(pairings)).scalar() == 3
        found = conn.execute(select(tournaments.c.id, tournaments.c.status)).one()
        assert found.status == "paused"
    store.dispose()
    assert main(["tournament", "--resume", "r", "--db", db, "--plot",
                 str(tmp_path / "r.png")]) == 0
    assert "3 to play" in capsys.readouterr().err
    with engine.connect() as conn:
        rows = list(conn.execute(select(pairings.c.game_id)))
        assert sorted(int(r.game_id.rsplit("-", 1)[1]) for r in rows) == list(range(6))
    from starlette.testclient import TestClient
    with TestClient(create_app(f"sqlite:///{db}")) as client:
        shown = client.get(f"/api/tournaments/{found.id}").json()
        assert shown["status"] == "over" and len(shown["games"]) == 6
        same_standings(arena_standings(db, "r", capsys), shown)


def test_the_server_does_not_start_pause_end_or_join_an_arena_tournament(tmp_path):
    from starlette.testclient import TestClient
    db = server_db(tmp_path)
    store = Store(db)
    config = tournament_config(SPEC, {"a": "random", "b": "random"}, seed=1)
    Tournament(store, "t", config, server_mirror(store)).run(jobs=1)
    store.dispose()
    with TestClient(create_app(f"sqlite:///{db}")) as client:
        dana = person(client, "dana")
        tournament = client.get("/api/tournaments").json()["tournaments"][0]["id"]
        for action in ("start", "pause", "end", "join", "leave"):
            response = dana.post(f"/api/tournaments/{tournament}/{action}", headers=CSRF)
            assert response.status_code == 409, response.text
            assert "boardlab tournament" in response.json()["error"]["message"]
        assert client.get(f"/api/tournaments/{tournament}").json()["status"] == "over"


def test_bad_entrants_and_games_are_refused_before_any_game(tmp_path):
    from starlette.testclient import TestClient
    db = server_db(tmp_path)
    with TestClient(create_app(f"sqlite:///{db}")) as client:
        person(client, "dana")                             # a person's account
    store = Store(db)
    cases = [("carteso(size=4)", {"dana": "random", "b": "random"}, "a person's account"),
             ("carteso(size=4)", {"ai-2": "random", "b": "random"}, "a house bot"),
             ("carteso(size=4)", {"x.y": "random", "x-y": "random"}, "would both be"),
             ("carteso(size=4)", {"ai": "random", "b": "random"}, "reserved")]
    for spec, participants, message in cases:
        tournament = Tournament(store, f"bad {message}", tournament_config(spec, participants),
                                server_mirror(store))
        with pytest.raises(BoardlabError, match=message):
            tournament.run(jobs=1)
        assert tournament.rows() == []
    engine = create_engine(f"sqlite:///{db}")
    with engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(actions)).scalar() == 0
    store.dispose()


def test_a_three_player_cartagena_tournament_is_mirrored_as_tables(tmp_path, capsys):
    """`boardlab tournament --db` of a game of three sides writes each game as a table of
    the server's (every side's account and points): the server shows the same standings as
    the arena, tie-breaks included, and replays every game."""
    from starlette.testclient import TestClient
    db = server_db(tmp_path)
    spec = "cartagena(players=3,tokens=2,spaces_per_symbol=1)"
    assert main(["tournament", spec, "rnd=random", "grd=greedy", "r2=random", "g2=greedy",
                 "--name", "three", "--db", db, "--jobs", "1",
                 "--plot", str(tmp_path / "p.png")]) == 0
    arena = arena_standings(db, "three", capsys)
    assert all(line["buchholz"] is not None for line in arena.values())
    store = Store(db, create=False)
    stored = Tournament.resume(store, "three").rows()
    store.dispose()
    assert len(stored) == 4 * 3                     # 4 groups of 3, each in 3 rotations
    with TestClient(create_app(f"sqlite:///{db}")) as client:
        found = client.get("/api/tournaments").json()["tournaments"]
        shown = client.get(f"/api/tournaments/{found[0]['id']}").json()
        assert shown["status"] == "over" and shown["sides"] == 3
        assert shown["rating_kind"] == "OpenSkill mu"
        same_standings(arena, shown)
        by_index = {row.idx: row for row in stored}
        for pairing in shown["pairings"]:
            row = by_index[int(pairing["game"].rsplit("-", 1)[1])]
            assert pairing["sides"] == [entrant_name(name) for name in row.sides]
            assert pairing["points"] == row.scores and len(pairing["points"]) == 3
            game = client.get(f"/api/games/{pairing['game']}").json()
            assert game["status"] == "over" and len(game["seats"]) == 3
            assert [s["account"]["username"] for s in game["seats"]] == pairing["sides"]
        assert all(line["rating"] is not None for line in shown["standings"])


def test_a_forfeit_and_a_stopped_game_become_server_log_entries():
    from boardlab.arena.game_runner import run_game
    result = run_game(SPEC, ["random", "random"], seed=4, max_actions=3)
    log, driver = server_log(result.record)
    assert [a.move for a in log][-1] == "!abort" and driver.aborted
    result = run_game(SPEC, ["random", "engine(cmd=false)"], seed=4)
    assert result.forfeit is not None
    log, driver = server_log(result.record)
    assert log[-1].move == "resign" and log[-1].seat == 1 and driver.over
    assert list(driver.state.returns()) == list(result.returns)


def test_entrant_names_are_usernames():
    assert entrant_name("mcts(time=0.1)") == "mcts-time-0-1"
    assert entrant_name("random#2") == "random-2"
    assert entrant_name("engine:a_very_long_engine_name_indeed") == "engine-a_very_long_e"


def test_the_arena_file_alone_stays_the_arena_s(tmp_path):
    store = Store(str(tmp_path / "plain.db"))
    assert server_mirror(store) is None
    engine = store.engine
    with engine.connect() as conn:
        assert migrations.current(conn) is None
    store.dispose()


def test_a_server_database_upgraded_by_the_command(tmp_path):
    """A server's database at an older revision is brought to the newest by the command, as
    the server would."""
    path = tmp_path / "old.db"
    engine = create_engine(f"sqlite:///{path}")
    migrations.upgrade(engine, "0006")
    engine.dispose()
    store = Store(str(path))
    assert server_mirror(store) is not None
    with store.engine.connect() as conn:
        assert migrations.current(conn) == migrations.head()
    store.dispose()


def test_a_thread_safe_read_while_writing(tmp_path):
    """The server's reads and the command's writes share the SQLite file (WAL) without a
    'database is locked'."""
    db = server_db(tmp_path)
    store = Store(db)
    config = tournament_config(SPEC, {"a": "random", "b": "random"}, rounds=3, seed=2)
    tournament = Tournament(store, "w", config, server_mirror(store))
    errors: list[Exception] = []
    done = threading.Event()

    def read() -> None:
        engine = create_engine(f"sqlite:///{db}")
        try:
            while not done.is_set():
                with engine.connect() as conn:
                    conn.execute(select(func.count()).select_from(pairings)).scalar()
        except Exception as error:                         # pragma: no cover - the failure
            errors.append(error)
        finally:
            engine.dispose()
    reader = threading.Thread(target=read)
    reader.start()
    try:
        tournament.run(jobs=1)
    finally:
        done.set()
        reader.join()
    store.dispose()
    assert errors == []
