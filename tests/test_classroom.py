"""The classroom of docs/competitions.md, end to end on a real `boardlab serve`: the teacher
makes a director account and four students' bot accounts with `boardlab user create-bots`
(all or none, each token printed once), the students' bots go online with `boardlab
connect URL --token TOKEN --engine CMD` (the example engines in Python and C), and the
teacher directs a double round robin among them through the HTTP contract; it is played to
its end with every pair met once with each colour and the scores summing to the games."""
import os
import shutil
import subprocess
import sys
import time
from collections import Counter

import pytest

from test_accounts import CSRF, boardlab
from test_connect import ROOT, WAIT, server

httpx = pytest.importorskip("httpx")

SPEC = "carteso(size=5)"
STUDENTS = 4
GAMES_EACH = 2 * (STUDENTS - 1)         # a double round robin
TOURNAMENT_WAIT = 600                   # seconds: only bounds a run that went wrong


def test_create_bots_makes_all_or_none_and_prints_each_token_once(tmp_path):
    db = str(tmp_path / "class.db")
    made = boardlab("user", "create-bots", "pupil", "3", "--db", db)
    assert made.returncode == 0, made.stderr
    lines = [line.split() for line in made.stdout.splitlines()]
    assert [name for name, _ in lines] == ["pupil-1", "pupil-2", "pupil-3"]
    assert all(token.startswith("blb_") for _, token in lines)
    assert len({token for _, token in lines}) == 3
    assert "shown once" in made.stderr and "blb_" not in made.stderr
    # pupil-3 is taken: a second batch pupil-1 ... pupil-4 makes nothing, not even pupil-4
    again = boardlab("user", "create-bots", "Pupil", "4", "--db", db)
    assert again.returncode == 2 and "'Pupil-1' is taken" in again.stderr
    assert again.stdout == ""
    assert boardlab("user", "token", "pupil-4", "--db", db).returncode == 2  # no such account
    for argv, words in ((("ai", "2"), "reserved"), (("x", "0"), "1 to 200"),
                        (("bad name", "2"), "username")):
        refused = boardlab("user", "create-bots", *argv, "--db", db)
        assert refused.returncode == 2 and words in refused.stderr, refused.stderr
    from starlette.testclient import TestClient

    from boardlab.server import create_app
    with TestClient(create_app(f"sqlite:///{db}", ai_processes=0)) as client:
        for name, token in lines:
            me = client.get("/api/account", headers={"Authorization": f"Bearer {token}"})
            assert me.json() == {"signed_in": True, "username": name, "bot": True}


def c_engine(folder):
    """The C example engine, compiled as docs/competitions.md says."""
    binary = folder / "random_engine"
    subprocess.run([shutil.which("cc") or "cc", "-O2", "-o", str(binary),
                    str(ROOT / "examples/engines/random_engine.c")], check=True)
    return str(binary)


def test_a_classroom_double_round_robin_of_four_connected_bots(tmp_path):
    engines = [f"{sys.executable} {ROOT / 'examples/engines/random_engine.py'} 1",
               f"{c_engine(tmp_path)} 2",
               f"{sys.executable} {ROOT / 'examples/engines/random_engine.py'} 3",
               f"{c_engine(tmp_path)} 4"]
    db = str(tmp_path / "server.db")
    with server(tmp_path) as base:
        teacher = boardlab("user", "create", "teacher", "--password-stdin", "--db", db,
                           stdin="teacher-password\n")
        assert teacher.returncode == 0, teacher.stderr
        made = boardlab("user", "create-bots", "student", str(STUDENTS), "--db", db)
        assert made.returncode == 0, made.stderr
        tokens = dict(line.split() for line in made.stdout.splitlines())
        students = sorted(tokens)
        bots = [subprocess.Popen([sys.executable, "-m", "boardlab.cli", "connect", base,
                                  "--token", tokens[name], "--engine", engine,
                                  "--max-games", str(GAMES_EACH)],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                 cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
                for name, engine in zip(students, engines)]
        try:
            director = httpx.Client(base_url=base, timeout=WAIT, headers=CSRF)
            signed = director.post("api/account/login", json={"username": "teacher",
                                                              "password": "teacher-password"})
            assert signed.status_code == 200, signed.text
            created = director.post("api/tournaments", json={
                "name": "Class cup", "spec": SPEC, "format": "round-robin",
                "players": students, "rounds": 2, "rated": True, "clock": None})
            assert created.status_code == 201, created.text
            tournament = created.json()["id"]
            started = director.post(f"api/tournaments/{tournament}/start")
            assert started.status_code == 200 and started.json()["status"] == "running"
            shown = wait_over(director, tournament, bots)
            outputs = [bot.communicate(timeout=WAIT) for bot in bots]
        finally:
            for bot in bots:
                bot.kill()
                bot.wait(timeout=60)
        for bot, (out, err), name in zip(bots, outputs, students):
            assert bot.returncode == 0, err         # it went offline after its six games
            assert f"online as {name} (BOT)" in out
            assert not any(token in out + err for token in tokens.values())
        check_final(shown, students)
        for game_id in shown["games"]:              # ordinary server games, their records kept
            game = director.get(f"api/games/{game_id}").json()
            assert game["status"] == "over", game
            assert director.get(f"api/games/{game_id}/record").status_code == 200
        profile = httpx.get(base + "api/users/student-1", timeout=WAIT).json()
        ratings = profile["ratings"]
        assert profile["bot"] and ratings["carteso-5-correspondence"]["games"] == GAMES_EACH


def wait_over(client, tournament, bots):
    """The tournament once it is over (polled; a bot that dies first fails the test)."""
    deadline = time.monotonic() + TOURNAMENT_WAIT
    while time.monotonic() < deadline:
        shown = client.get(f"api/tournaments/{tournament}").json()
        if shown["status"] == "over":
            return shown
        for bot in bots:
            if bot.poll() not in (None, 0):
                raise AssertionError(f"a bot stopped: {bot.communicate()[1]}")
        time.sleep(0.5)
    raise AssertionError(f"the tournament is not over: {shown}")


def check_final(shown, students):
    """Every pair met twice, once with each colour, nothing forfeited, and the standings
    add up: each played six games, the scores sum to the games played."""
    pairings = shown["pairings"]
    assert len(pairings) == len(shown["games"]) == STUDENTS * GAMES_EACH // 2
    assert all(p["forfeit"] is None and p["result"] in ("1-0", "0-1", "½-½")
               for p in pairings)
    colours = Counter((p["white"], p["black"]) for p in pairings)
    assert colours == Counter({(a, b): 1 for a in students for b in students if a != b})
    lines = shown["standings"]
    assert sorted(line["player"] for line in lines) == students
    assert [line["rank"] for line in lines] == [1, 2, 3, 4]
    assert all(line["games"] == GAMES_EACH and line["bot"] for line in lines)
    assert sum(line["score"] for line in lines) == len(pairings)
    assert sum(line["wins"] for line in lines) == sum(line["losses"] for line in lines)
    scores = [line["score"] for line in lines]
    assert scores == sorted(scores, reverse=True)
    for line in lines:
        mine = [p for p in pairings if line["player"] in (p["white"], p["black"])]
        assert line["score"] == sum(p["score"] if p["white"] == line["player"]
                                    else 1 - p["score"] for p in mine)
