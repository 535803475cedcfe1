"""Schedules, tournaments on SQLite and PostgreSQL, resuming after a kill, Ray, the CLI."""
import contextlib
import fcntl
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sqlalchemy import create_engine, select
from sqlalchemy.exc import OperationalError

import boardlab
from boardlab.arena.executor import execute
from boardlab.arena.schedule import (parse_participants, schedule, seat_players, side_scores,
                                     sides_of)
from boardlab.arena.storage import Store, database_url, games
from boardlab.arena.tournament import Tournament, ratings_kind, tournament_config
from boardlab.cli import main
from boardlab.core.errors import BoardlabError
from boardlab.core.record import check_record

from postgres_server import throwaway_postgres

SMALL = "carteso(size=4)"


# Schedules ---------------------------------------------------------------------------------
def test_round_robin_plays_every_pair_in_both_seat_orders():
    games = schedule(["a", "b", "c"], 2, "round-robin", rounds=2, seed=10)
    assert len(games) == 3 * 2 * 2
    pairs = [g.sides for g in games[:6]]
    assert pairs == [("a", "b"), ("b", "a"), ("a", "c"), ("c", "a"), ("b", "c"), ("c", "b")]
    assert [g.seed for g in games[:4]] == [10, 10, 11, 11]     # a rotation shares its chance
    assert [g.index for g in games] == list(range(12))


def test_gauntlet_and_multi_seat_schedules():
    gauntlet = schedule(["hero", "x", "y", "z"], 2, "gauntlet", 1, 0)
    assert {frozenset(g.sides) for g in gauntlet} == {frozenset({"hero", o}) for o in "xyz"}
    three = schedule(["a", "b", "c", "d"], 3, "round-robin", 1, 0)
    assert len(three) == 4 * 3                                 # C(4,3) groups x 3 rotations
    for name in "abcd":
        for side in range(3):
            assert sum(g.sides[side] == name for g in three) == 3


def test_bad_schedules_are_refused():
    with pytest.raises(BoardlabError, match="at least 3"):
        schedule(["a", "b"], 3, "round-robin", 1, 0)
    with pytest.raises(BoardlabError, match="unknown tournament format"):
        schedule(["a", "b"], 2, "swiss", 1, 0)
    assert list(parse_participants(["random", "random", "x=greedy"])) == \
        ["random", "random#2", "x"]


def test_teams_are_sides_in_ctor():
    game = boardlab.make("ctor(teams=2v2,size=8)")
    assert sides_of(game) == [[s for s in range(4) if game.team_of(s) == t] for t in (0, 1)]
    players = seat_players(game, ("p", "q"), {"p": "random", "q": "greedy"})
    assert [players[s] for s in range(4)] == ["random" if game.team_of(s) == 0 else "greedy"
                                              for s in range(4)]


def test_side_scores_rank_the_sides():
    two = boardlab.make(SMALL)
    assert side_scores(two, [1.0, -1.0]) == [1.0, 0.0]
    assert side_scores(two, [0.0, 0.0]) == [0.5, 0.5]
    three = boardlab.make("cartagena(players=3)")
    assert side_scores(three, [-1.0, 1.0, -1.0]) == [0.25, 1.0, 0.25]


def test_database_urls():
    assert database_url("x.db").startswith("sqlite:////")
    assert database_url("postgresql://u@h/db") == "postgresql+psycopg://u@h/db"
    with pytest.raises(BoardlabError, match="cannot open the database"):
        Store("nosuchdialect://x")


# Tournaments --------------------------------------------------------------------------------
def _config(**changes):
    options = dict(spec=SMALL, participants={"r1": "random", "g": "greedy", "r2": "random"},
                   rounds=1, seed=3)
    options.update(changes)
    return tournament_config(options.pop("spec"), options.pop("participants"), **options)


def _play_small_tournament(url):
    store = Store(url)
    tournament = Tournament(store, "t1", _config())
    standings = tournament.run(jobs=1)
    rows = tournament.rows()
    assert len(rows) == len(tournament.games) == 6
    assert sum(s.games for s in standings) == 12
    assert sum(s.points for s in standings) == 6
    for row in rows:
        state = check_record(row.record)
        assert state.returns() == row.returns
        assert row.record["meta"]["sides"] == list(row.sides)
    assert all(s.rating is not None for s in standings)
    assert Tournament(store, "t1", _config()).pending() == []   # same name, same config
    with pytest.raises(BoardlabError, match="another configuration"):
        Tournament(store, "t1", _config(rounds=2))
    store.dispose()
    return [(r.idx, r.returns) for r in rows]


def test_small_tournament_on_sqlite(tmp_path):
    _play_small_tournament(str(tmp_path / "t.db"))


def test_progress_computes_the_standings_only_when_read(tmp_path, monkeypatch):
    """A display that does not read the standings after a game costs no standings (they
    were computed after every game, which made a long tournament quadratic); one that
    reads them gets the standings of the games so far."""
    from boardlab.arena import tournament as module

    computed = []
    real = module.standings
    monkeypatch.setattr(module, "standings",
                        lambda game, names, rows: computed.append(len(rows)) or
                        real(game, names, rows))
    tournament = Tournament(Store(str(tmp_path / "t.db")), "t1", _config())
    heard = []
    tournament.run(jobs=1, on_game=lambda progress: heard.append(progress.done))
    assert heard == list(range(7)) and computed == [6]           # only the final standings
    read = Tournament(Store(str(tmp_path / "u.db")), "t1", _config())
    games_seen = []
    read.run(jobs=1, on_game=lambda p: games_seen.append(sum(s.games for s in p.standings)))
    assert games_seen == [2 * done for done in range(7)]


@pytest.fixture(scope="module")
def postgres():
    with throwaway_postgres() as server:
        yield server


def test_small_tournament_on_postgresql(postgres, tmp_path):
    on_postgres = _play_small_tournament(postgres.url)
    on_sqlite = _play_small_tournament(str(tmp_path / "same.db"))
    assert on_postgres == on_sqlite                 # same seeds, same games, either database


def test_parallel_and_ray_give_the_same_games():
    tasks = [{"spec": SMALL, "players": ["random", "greedy"], "seed": s, "index": s}
             for s in range(4)]
    serial = {t["index"]: r["returns"] for t, r in execute(tasks, jobs=1)}
    pooled = {t["index"]: r["returns"] for t, r in execute(tasks, jobs=2)}
    assert pooled == serial
    pytest.importorskip("ray", reason="Ray is not installed (pip install 'boardlab[ray]')")
    on_ray = {t["index"]: r["returns"] for t, r in execute(tasks, jobs=2, ray_address="local")}
    assert on_ray == serial


def test_multi_seat_tournament_uses_openskill(tmp_path):
    store = Store(str(tmp_path / "c.db"))
    config = tournament_config("cartagena(players=3)", {"a": "random", "b": "greedy",
                                                        "c": "random"}, max_actions=400)
    tournament = Tournament(store, "cartagena", config)
    standings = tournament.run()
    assert len(tournament.rows()) == 3
    assert all(s.games == 3 and s.rating is not None for s in standings)
    assert standings[0].rating.rating >= standings[-1].rating.rating


# Resuming after a kill ------------------------------------------------------------------------
def _count(url) -> list:
    engine = create_engine(database_url(url))
    try:
        with engine.connect() as db:
            rows = [(r.idx, r.finished, json.dumps(r.returns)) for r in
                    db.execute(select(games.c.idx, games.c.finished, games.c.returns))]
    finally:
        engine.dispose()
    assert len({row[0] for row in rows}) == len(rows)   # no game stored twice (one snapshot)
    return sorted(rows)


def _stored_so_far(url) -> int:
    """Games stored by a tournament still starting up: 0 until its tables exist."""
    if not os.path.exists(url):
        return 0
    try:
        return len(_count(url))
    except OperationalError:        # the file is there, its tables are not made yet
        return 0


def test_resume_after_kill_loses_and_replays_nothing(tmp_path):
    db = str(tmp_path / "resume.db")
    # mcts thinks 50 ms a move, so that its games last a while: compiled, 150 simulations
    # played all 12 games within half a second on an idle machine, before the first look
    argv = [sys.executable, "-m", "boardlab.cli", "tournament", "rumbo(size=5)", "random",
            "greedy", "mcts(time=0.05)", "--rounds", "2", "--name", "r", "--db", db,
            "--plot", str(tmp_path / "r.png")]
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               start_new_session=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if _stored_so_far(db) >= 3:
            break
        time.sleep(0.05)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    before = _count(db)
    assert 3 <= len(before) < 12, "the kill came too late to test resuming"
    done = subprocess.run([sys.executable, "-m", "boardlab.cli", "tournament", "--resume", "r",
                           "--db", db, "--plot", str(tmp_path / "r.png")],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    after = _count(db)
    assert len(after) == 12 and [r[0] for r in after] == list(range(12))
    assert set(before) <= set(after)                 # the finished games were kept untouched
    assert f"{12 - len(before)} to play" in done.stderr
    assert "standings" in done.stdout and (tmp_path / "r.png").stat().st_size > 0


# The commands -------------------------------------------------------------------------------
def test_tournament_and_standings_commands(tmp_path, capsys):
    db, plot = str(tmp_path / "cli.db"), str(tmp_path / "plot.png")
    assert main(["tournament", SMALL, "random", "g=greedy", "--name", "cli", "--db", db,
                 "--plot", plot, "--move-time", "0.5"]) == 0
    out = capsys.readouterr().out
    assert "standings" in out and "g" in out and "random" in out
    assert Path(plot).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main(["standings", "--db", db]) == 0
    assert capsys.readouterr().out.split() == ["cli"]
    assert main(["standings", "cli", "--db", db, "--json"]) == 0
    table = json.loads(capsys.readouterr().out)
    assert sorted(line["name"] for line in table) == ["g", "random"]
    assert sum(line["games"] for line in table) == 4
    assert main(["tournament", "--resume", "nope", "--db", db]) == 2
    assert "no tournament named 'nope'" in capsys.readouterr().err


def test_match_command_writes_records_and_reports(tmp_path, capsys):
    out = tmp_path / "records"
    assert main(["match", SMALL, "random", "greedy", "--games", "4", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "4 records in" in text
    summary = next(line for line in text.splitlines() if line.startswith("random: "))
    assert "/4 = " in summary and "95% Wilson interval" in summary and "against greedy" in summary
    assert "Elo (95% interval" in summary
    files = sorted(out.iterdir())
    assert [f.name for f in files] == [f"game-{i:04d}.json" for i in range(1, 5)]
    players = [json.loads(f.read_text())["players"] for f in files]
    assert players[:2] == [["random", "greedy"], ["greedy", "random"]]   # seats rotate


def test_match_sprt_stops_early(tmp_path, capsys):
    assert main(["match", "carteso(size=5)", "greedy", "random", "--games", "200",
                 "--sprt", "0,200", "--out", str(tmp_path)]) == 0
    text = capsys.readouterr().out
    assert "SPRT accepted" in text
    assert len(list(tmp_path.iterdir())) < 200


@pytest.mark.parametrize("argv, message", [
    (["match", SMALL, "random"], "a match needs 2 agents"),
    (["match", SMALL, "random", "nosuchagent"], "unknown agent"),
    (["match", SMALL, "random", "random", "--move-time", "-1"], "must be a positive number"),
    (["match", SMALL, "random", "random", "--move-time", "inf"], "must be a positive number"),
    (["match", SMALL, "random", "random", "--increment", "1"], "needs a time per game"),
    (["match", SMALL, "random", "random", "--jobs", "0"], "--jobs must be at least 1"),
    (["tournament", SMALL, "random", "greedy", "--max-actions", "0"], "at least 1"),
    (["tournament", SMALL, "random", "greedy", "--seed", "-5"], "--seed must be between"),
    (["match", SMALL, "random", "random", "--sprt", "10,0"], "elo0 < elo1"),
    (["tournament", SMALL, "random"], "at least two agents"),
    (["duel", SMALL, "random", "random", "--games", "0"], "--games must be at least 1"),
    (["duel", SMALL, "random", "random", "--jobs", "0"], "--jobs must be at least 1"),
    (["bench", SMALL, "--runs", "0"], "--runs must be at least 1"),
    (["bench", SMALL, "--seconds", "0"], "--seconds must be a positive number"),
    (["bench", SMALL, "--seconds", "nan"], "--seconds must be a positive number"),
])
def test_bad_arena_commands_fail_clearly(argv, message, capsys, tmp_path):
    extra = {"match": ["--out", str(tmp_path)], "tournament": ["--db", str(tmp_path / "x.db")]}
    assert main(argv + extra.get(argv[0], [])) == 2
    assert message in capsys.readouterr().err


def test_team_tournament_rates_each_team_as_one_side(tmp_path):
    store = Store(str(tmp_path / "ctor.db"))
    config = tournament_config("ctor(teams=2v2,size=8)", {"r": "random", "g": "greedy"},
                               rounds=2)
    tournament = Tournament(store, "ctor", config)
    standings = tournament.run(jobs=2)
    rows = tournament.rows()
    assert len(rows) == 4 and all(len(r.record["players"]) == 4 for r in rows)
    for row in rows:                                   # both seats of a team: one participant
        game = boardlab.make(row.record["spec"])
        spec_of = dict(zip(row.sides, ("random" if n == "r" else "greedy" for n in row.sides)))
        for seats, name in zip(sides_of(game), row.sides):
            assert {row.record["players"][s] for s in seats} == {spec_of[name]}
    assert [s.games for s in standings] == [4, 4]
    assert ratings_kind(game).startswith("Elo")


def test_resume_refuses_a_new_configuration(tmp_path, capsys):
    db = str(tmp_path / "r.db")
    assert main(["tournament", SMALL, "random", "greedy", "--name", "x", "--db", db,
                 "--jobs", "1", "--plot", str(tmp_path / "x.png")]) == 0
    capsys.readouterr()
    assert main(["tournament", "--resume", "x", "--db", db, "--move-time", "5"]) == 2
    assert "do not give --move-time" in capsys.readouterr().err


def test_standings_does_not_create_a_database(tmp_path, capsys):
    missing = tmp_path / "typo.db"
    assert main(["standings", "--db", str(missing)]) == 2
    assert "no database file" in capsys.readouterr().err and not missing.exists()


def test_places_come_from_the_returns_with_three_sides():
    from types import SimpleNamespace

    from boardlab.arena.tournament import standings

    game = boardlab.make("cartagena(players=3)")
    rows = [SimpleNamespace(sides=["a", "b", "c"], returns=r, scores=side_scores(game, r),
                            forfeit=None)
            for r in ([1.0, -1.0, -1.0], [1.0, 1.0, -1.0], [0.0, 0.0, 0.0])]
    table = {line.name: line for line in standings(game, ["a", "b", "c"], rows)}
    assert (table["a"].wins, table["a"].draws, table["a"].losses) == (2, 1, 0)
    assert (table["b"].wins, table["b"].draws, table["b"].losses) == (1, 1, 1)
    assert (table["c"].wins, table["c"].draws, table["c"].losses) == (0, 1, 2)


def _default_sigint() -> None:
    """In the child: Ctrl-C as in a terminal (an xdist worker ignores SIGINT, and an
    ignored signal stays ignored across exec: the tournament would never see it)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _marked_engines(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        try:
            argv = (entry / "cmdline").read_bytes().decode().split("\0")
            state = (entry / "stat").read_text().split(")")[-1].split()[0]
        except (OSError, ValueError):
            continue
        is_engine = len(argv) > 3 and argv[1].endswith("bad_engine.py") and argv[3] == marker
        if is_engine and state != "Z":                 # not the tournament command itself
            found.append(int(entry.name))
    return found


def _wait_for_engines(marker: str, count: int) -> None:
    """Wait until exactly ``count`` engines marked ``marker`` run (the wait only bounds a
    stuck run on a loaded machine: 300 s for them to start, 120 s for them to go)."""
    deadline = time.monotonic() + (300 if count else 120)
    while len(_marked_engines(marker)) != count and time.monotonic() < deadline:
        time.sleep(0.1)
    assert len(_marked_engines(marker)) == count, \
        "the engines did not start" if count else "engines were left running"


@pytest.mark.parametrize("how", [
    signal.SIGINT,
    signal.SIGTERM])
def test_interrupting_a_tournament_leaves_no_engine_running(tmp_path, how):
    marker = f"marker-{os.getpid()}-{how}"
    bad = Path(__file__).parent / "engines" / "bad_engine.py"
    engine = f"engine(cmd={sys.executable} {bad} hang {marker},grace=600)"   # no forfeit first
    argv = [sys.executable, "-m", "boardlab.cli", "tournament", SMALL, engine, "random",
            "--jobs", "3", "--move-time", "3600", "--db", str(tmp_path / "i.db"), "--name", "i"]
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               start_new_session=True, preexec_fn=_default_sigint)
    _wait_for_engines(marker, 2)
    time.sleep(0.5)                                  # both are past their first move
    os.killpg(process.pid, how) if how == signal.SIGINT else process.send_signal(how)
    _, err = process.communicate(timeout=600)
    assert process.returncode == 130, err
    assert b"--resume i" in err
    _wait_for_engines(marker, 0)


def test_sigterm_stops_a_duel_on_several_jobs_at_once(tmp_path):
    """A duel on a pool stops its running games when it is stopped: their engines are
    killed, not waited for (the hanging engine would hold a game for 600 s)."""
    marker = f"marker-duel-{os.getpid()}"
    bad = Path(__file__).parent / "engines" / "bad_engine.py"
    engine = f"engine(cmd={sys.executable} {bad} hang {marker},grace=600)"
    argv = [sys.executable, "-m", "boardlab.cli", "duel", SMALL, engine, "random",
            "--games", "4", "--jobs", "2"]
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               start_new_session=True)
    _wait_for_engines(marker, 2)
    process.send_signal(signal.SIGTERM)
    try:
        _, err = process.communicate(timeout=120)    # far under the engines' 600 s
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)  # whatever is left of a failed run
    assert process.returncode == 130, err
    assert b"interrupted" in err
    _wait_for_engines(marker, 0)


def test_an_interrupted_match_resumes_from_its_records(tmp_path, capsys):
    out = tmp_path / "records"
    args = ["match", SMALL, "random", "greedy", "--games", "6", "--seed", "3", "--out", str(out)]
    assert main(args) == 0
    def games():                                           # the records but their times
        return {f.name: {k: v for k, v in json.loads(f.read_text()).items() if k != "created"}
                for f in out.iterdir()}

    full = games()
    for name in ("game-0002.json", "game-0005.json", "game-0006.json"):
        (out / name).unlink()
    kept = (out / "game-0001.json").stat().st_mtime_ns
    capsys.readouterr()
    assert main(args + ["--resume"]) == 0
    captured = capsys.readouterr()
    text = captured.out
    assert "6 records in" in text and "/6 = " in text
    assert "/6:" in captured.err and "/3:" not in captured.err      # counts the whole match
    assert games() == full                                 # the same games again
    assert (out / "game-0001.json").stat().st_mtime_ns == kept       # not replayed
    other = ["match", SMALL, "random", "random", "--games", "6", "--seed", "3", "--out",
             str(out), "--resume"]
    assert main(other) == 2
    assert "another match" in capsys.readouterr().err
    assert main(args + ["--resume", "--move-time", "0.5"]) == 2          # other clocks
    assert "was played at agents' own budgets, not 0.5 s/move" in capsys.readouterr().err
    assert main(args[:-2] + ["--resume"]) == 2
    assert "--resume needs --out" in capsys.readouterr().err


def test_a_report_counts_the_records_and_plays_nothing(tmp_path, capsys):
    out = tmp_path / "records"
    args = ["match", SMALL, "random", "greedy", "--games", "6", "--seed", "3", "--out", str(out)]
    assert main(args) == 0
    full = capsys.readouterr().out.splitlines()[-2]
    assert main(args + ["--report"]) == 0
    assert capsys.readouterr().out.splitlines()[-2] == full           # the same summary
    kept = {f.name: f.read_bytes() for f in out.iterdir()}
    assert main(args) == 2                                 # a new match would overwrite them
    assert "already holds the records" in capsys.readouterr().err
    assert {f.name: f.read_bytes() for f in out.iterdir()} == kept
    for name in ("game-0002.json", "game-0005.json"):
        (out / name).unlink()
    assert main(args + ["--report"]) == 0
    text = capsys.readouterr().out
    assert "/4 = " in text and "4 records in" in text
    assert sorted(f.name for f in out.iterdir()) == \
        ["game-0001.json", "game-0003.json", "game-0004.json", "game-0006.json"]
    assert main(args[:-2] + ["--report"]) == 2
    assert "--report needs --out" in capsys.readouterr().err
    assert main(args[:-1] + [str(tmp_path / "none"), "--report"]) == 2
    assert "not a folder" in capsys.readouterr().err


def test_a_folder_being_written_by_a_live_match_is_refused(tmp_path, capsys):
    out = tmp_path / "records"
    out.mkdir()
    lock = out / ".match-lock"
    lock.write_text("4242")
    holder = open(lock)                                    # a live match holds it
    fcntl.flock(holder, fcntl.LOCK_EX | fcntl.LOCK_NB)
    args = ["match", SMALL, "random", "greedy", "--games", "2", "--out", str(out)]
    assert main(args) == 2
    assert "being written by another match (process 4242)" in capsys.readouterr().err
    assert main(args + ["--resume"]) == 2
    assert list(out.iterdir()) == [lock]                   # nothing written
    assert main(args + ["--report"]) == 0                  # reading is fine
    holder.close()                                         # a killed match left the file
    assert main(args) == 0
    assert sorted(f.name for f in out.iterdir()) == ["game-0001.json", "game-0002.json"]


@pytest.mark.parametrize("argv", [["carteso", "random", "nosuchagent"], [],
                                  ["--resume", "nothing-here"],
                                  ["carteso(size=99)", "random", "random"]])
def test_bad_tournament_input_creates_no_database(tmp_path, capsys, argv):
    db = tmp_path / "t.db"
    assert main(["tournament", *argv, "--db", str(db)]) == 2
    assert "error" in capsys.readouterr().err
    assert not db.exists()


def test_a_game_stored_twice_is_kept_once_and_a_broken_one_is_an_error(tmp_path):
    store = Store(f"sqlite:///{tmp_path / 's.db'}")
    tid = store.open_tournament("t", {"k": 1})
    result = {"returns": [1.0, -1.0], "forfeit": None, "actions": 3, "seconds": 0.1,
              "record": {"moves": []}}
    store.add_game(tid, 0, ["a", "b"], 1, [1.0, 0.0], result)
    store.add_game(tid, 0, ["a", "b"], 1, [1.0, 0.0], result)    # another runner's copy
    with pytest.raises(BoardlabError, match="cannot store game 1"):
        store.add_game(tid, 1, ["a", "b"], None, [1.0, 0.0], result)   # NOT NULL seed
    store.dispose()
