"""`boardlab soak`: tiny runs of the durability, concurrency, secrets and load checks
against a real server.

The real runs (200 restarts, 1,000 trials, 2,000 checked games, 200 games for 3 minutes)
are commands, not tests. These check the reports' invariants on a few restarts, trials and
games, and that the secrets checker does catch a leak; every wait in the soak has a
generous timeout (a loaded 2-core machine) that only bounds a run that went wrong. No test
asserts a latency.
"""
import asyncio
import io
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

import boardlab
from boardlab.cli import main
from boardlab.core.driver import GameDriver
from boardlab.checks import loadbench, secrets_check, soak
from boardlab.server.wire import encode

pytest.importorskip("httpx")
pytest.importorskip("websockets.asyncio.client")

# one xdist worker runs them all, one after another: each checks that its temporary folder
# (boardlab-soak-*) is gone afterwards, which another soak running beside it would upset
pytestmark = pytest.mark.xdist_group("soak")

ROOT = Path(__file__).resolve().parent.parent


def default_sigint() -> None:
    """In the child: Ctrl-C as in a terminal. An xdist worker ignores SIGINT, and an
    ignored signal stays ignored across exec: the soak would never see the Ctrl-C."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_the_soak_tests_run_on_one_worker(request):
    """Under `--dist loadgroup` (./test.sh) xdist marks the group in the node id; without
    it the soaks run on both workers at once and see each other's folders."""
    if not getattr(request.config.option, "loadgroup", False):
        pytest.skip("not run by xdist's --dist loadgroup")
    assert request.node.nodeid.endswith("@soak"), "xdist did not group the soak tests"


@pytest.fixture(autouse=True)
def private_tempdir(tmp_path, monkeypatch):
    """Each test's soaks make their folders in a temporary folder of the test's own (here
    and in the processes it starts), so that another soak running on the machine at the
    same time is not taken for a folder left behind."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    monkeypatch.setenv("TMPDIR", str(folder))


def soak_folders() -> set[str]:
    return {p.name for p in Path(tempfile.gettempdir()).glob("boardlab-soak-*")}


def serve_processes(folder_marker: str) -> list[int]:
    """Live `boardlab serve` processes whose working folder is a soak folder."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            state = (entry / "stat").read_text().split(")")[-1].split()[0]
            cwd = os.readlink(entry / "cwd")
        except OSError:
            continue
        if "serve" in cmdline and folder_marker in cwd and state != "Z":
            found.append(int(entry.name))
    return found


def test_durability_keeps_every_acknowledged_action_across_sigkills():
    before = soak_folders()
    out = io.StringIO()
    report = soak.durability("carteso(size=5)", restarts=3, games=2, seed=5, out=out,
                             play=(0.1, 0.6))
    assert report["ok"], report
    assert report["restarts"] == 3 and report["server_starts"] >= 4
    assert report["acknowledged_missing"] == 0
    assert report["phantom_actions"] == 0 and report["unreplayable_logs"] == 0
    assert report["server_history_mismatches"] == 0 and report["errors"] == []
    assert report["actions_acknowledged"] > 0 and report["games"] >= 2
    # every sent action is acknowledged, or committed without its ack, or never committed
    assert report["actions_sent"] == (report["actions_acknowledged"]
                                      + report["committed_unacknowledged"]
                                      + report["sent_never_committed"])
    assert report["logged_actions"] == (report["actions_acknowledged"]
                                        + report["committed_unacknowledged"])
    assert "restart 3/3" in out.getvalue()
    assert soak_folders() <= before                     # the temporary folder is gone


def test_concurrency_exactly_one_of_two_racing_actions_is_accepted():
    before = soak_folders()
    report = soak.concurrency("carteso(size=5)", trials=20, seed=3, out=io.StringIO())
    assert report["ok"], report
    assert report["trials"] == 20 and report["accepted_histogram"] == {1: 20}
    assert report["failures"] == []
    assert sum(report["refusals"].values()) == 20       # the other one is refused:
    assert set(report["refusals"]) <= {"stale_version", "game_over"}   # or the game ended
    assert soak_folders() <= before


def test_the_soak_command_prints_a_report_and_exits_0(capsys):
    assert main(["soak", "concurrency", "--trials", "5", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert out.rstrip().endswith("soak concurrency: OK")
    report = json.loads(out[out.index("\n{") + 1:out.rindex("}") + 1])
    assert report["accepted_histogram"] == {"1": 5}


def test_bad_arguments_are_refused(capsys):
    assert main(["soak", "durability", "--restarts", "0"]) == 2
    assert "at least 1" in capsys.readouterr().err


def test_two_processes_need_a_postgresql_database(capsys):
    for check in ("durability", "concurrency"):
        assert main(["soak", check, "--processes", "2"]) == 2
        assert "--processes 2 needs --db postgresql://" in capsys.readouterr().err
        assert main(["soak", check, "--processes", "2", "--db", "soak.db"]) == 2
        assert "PostgreSQL" in capsys.readouterr().err
    with pytest.raises(soak.SoakError, match="at least 1"):
        soak.concurrency("carteso(size=5)", trials=1, processes=0)


# Two server processes on one PostgreSQL database ---------------------------------------------
@pytest.fixture(scope="module")
def postgres():
    from postgres_server import throwaway_postgres
    with throwaway_postgres() as server:
        yield server


def test_two_processes_keep_every_acknowledged_action_across_sigkills(postgres):
    before = soak_folders()
    out = io.StringIO()
    report = soak.durability("carteso(size=5)", restarts=4, games=2, db=postgres.url,
                             seed=8, out=out, processes=2, play=(0.1, 0.6))
    assert report["ok"], json.dumps(report)
    assert report["processes"] == 2 and report["restarts"] == 4
    # each restart kills one server in turn (the fourth both): 2 starts, then 1 + 1 + 1 + 2
    assert report["server_starts"] >= 2 + 5 and len(report["port_kept"]) == 2
    assert report["acknowledged_missing"] == 0 and report["phantom_actions"] == 0
    assert report["unreplayable_logs"] == 0 and report["server_history_mismatches"] == 0
    assert report["errors"] == [] and report["actions_acknowledged"] > 0
    assert report["actions_sent"] == (report["actions_acknowledged"]
                                      + report["committed_unacknowledged"]
                                      + report["sent_never_committed"])
    assert report["logged_actions"] == (report["actions_acknowledged"]
                                        + report["committed_unacknowledged"])
    assert "restart 4/4" in out.getvalue()
    assert soak_folders() <= before


def test_two_processes_accept_exactly_one_of_two_racing_actions(postgres):
    report = soak.concurrency("carteso(size=5)", trials=30, db=postgres.url, seed=4,
                              out=io.StringIO(), processes=2)
    assert report["ok"], json.dumps(report)
    assert report["processes"] == 2 and report["accepted_histogram"] == {1: 30}
    assert report["failures"] == [] and sum(report["refusals"].values()) == 30
    assert set(report["refusals"]) <= {"stale_version", "game_over"}


def test_the_soak_command_runs_two_processes(postgres, capsys):
    assert main(["soak", "concurrency", "--trials", "4", "--seed", "2", "--processes", "2",
                 "--db", postgres.url]) == 0
    assert capsys.readouterr().out.rstrip().endswith("soak concurrency: OK")


def test_an_interrupted_soak_kills_its_server_and_removes_its_folder():
    before = soak_folders()
    process = subprocess.Popen([sys.executable, "-m", "boardlab.cli", "soak", "durability",
                                "--restarts", "1000"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, cwd=ROOT,
                               preexec_fn=default_sigint)
    try:
        deadline = time.monotonic() + 600           # bounds a stuck run only
        while time.monotonic() < deadline:          # wait for its server to run
            new = soak_folders() - before
            if new and serve_processes(next(iter(new))):
                break
            time.sleep(0.2)
        new = soak_folders() - before
        assert new, "the soak made no temporary folder"
        marker = next(iter(new))
        process.send_signal(signal.SIGINT)          # Ctrl-C
        process.communicate(timeout=600)
        assert process.returncode == 130
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=60)
    deadline = time.monotonic() + 300
    while serve_processes(marker) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert serve_processes(marker) == []
    assert marker not in soak_folders()


# The secrets check --------------------------------------------------------------------------
# games capped at a few dozen turns (the cap ends and ranks them: the result is revealed as at
# a natural end); `boardlab soak secrets` plays whole games
CARDS = ["cartagena(profile=basic,players=3,max_turns=30)",
         "cartagena(profile=advanced,players=2,max_turns=30)",
         "cartagena(profile=original,players=4,max_turns=30)",
         "cartagena(profile=original,players=5,max_turns=30)"]
SQUARES = ["ctor(size=8,teams=2v2,team_protocol=simultaneous,secret_squares=true,"
           "secret_count=1,max_turns=24)", "ctor(size=8,secret_squares=true,secret_count=2,"
           "max_turns=24)"]


def test_the_secrets_check_finds_no_leak_in_games_over_real_sockets():
    before = soak_folders()
    report = secrets_check.secrets([(CARDS, 4), (SQUARES, 2)], parallel=6, seed=11,
                                   out=io.StringIO())
    assert report["ok"], report
    assert report["games"] == 6 and report["violations"] == 0 and report["errors"] == []
    assert set(report["games_by_spec"]) == set(CARDS) | set(SQUARES)
    assert report["frames"] > 100 and report["bytes_checked"] > report["frames"]
    assert set(report["refusals"]) <= secrets_check.EXPECTED_REFUSALS
    assert soak_folders() <= before


def played(spec: str, seed: int, stop=None):
    """A game of random legal moves (to the end, or until ``stop(driver)``), the frames the
    server sends each seat and the spectator, and its record."""
    driver = GameDriver(boardlab.make(spec), seed=seed)
    seats = [None, *range(driver.game.num_seats)]
    frames = {seat: [encode({"type": "sync", "version": 0, "seat": seat,
                             "seats": [] if seat is None else [seat],
                             "view": driver.view(seat),
                             "lines": driver.state.status_lines(seat), "clock": None,
                             "draw_offer": None, "rematch": None, "chat": []})]
              for seat in seats}
    rng, version = random.Random(seed), 0
    while not driver.over and not (stop and stop(driver)):
        seat = driver.acting()[0]
        before = len(driver.state.history)
        driver.submit(seat, rng.choice(driver.view(seat)["legal"]))
        version += 1
        notes = driver.state.announcements(before)
        for other in seats:
            frames[other].append(update(driver, other, version, notes))
    record = driver.record()
    if not driver.over:                 # the record of a game stopped early: its moves so far
        record["result"] = None
    return driver, frames, record


def update(driver, seat, version, notes, **extra):
    return encode({"type": "update", "version": version, "seat": seat,
                   "view": {**driver.view(seat), **extra},
                   "lines": driver.state.status_lines(seat), "announcements": notes,
                   "draw_offer": None, "rematch": None})


def kinds(report):
    return {sample.split(":")[0] for sample in report["samples"]}


def test_the_checker_passes_honest_frames_and_catches_a_hand_of_another_seat():
    driver, frames, record = played("cartagena(profile=original,players=3)", 123456789,
                                    stop=lambda d: len(d.state.history) >= 12 and
                                    d.view(1)["hand"] != d.view(0)["hand"])
    honest = secrets_check.check_frames(record, list(frames.items()))
    assert honest["violations"] == {} and honest["frames"] == 4 * len(frames[0])
    other_hand = driver.view(1)["hand"]
    assert other_hand != driver.view(0)["hand"]       # seat 1's hand, seat 0 must not see
    # seat 0's last update carries seat 1's hand in its view ...
    version = len(frames[0]) - 1
    leaked = {**frames, 0: frames[0][:-1] + [update(driver, 0, version, [],
                                                    hand=other_hand)]}
    report = secrets_check.check_frames(record, list(leaked.items()))
    assert report["violations"].get("hidden") == 1, report
    assert {"view", "hidden"} <= kinds(report)
    # ... or beside it, in a field of its own
    message = json.loads(frames[0][-1])
    message["hand"] = other_hand
    beside = {**frames, 0: frames[0][:-1] + [encode(message)]}
    report = secrets_check.check_frames(record, list(beside.items()))
    assert {"keys", "hidden"} <= kinds(report) and "view" not in kinds(report)
    # the seed in an error the spectator gets
    error = encode({"type": "error", "code": "bad_message",
                    "message": f"seed {record['seed']}"})
    seeded = {**frames, None: frames[None] + [error]}
    report = secrets_check.check_frames(record, list(seeded.items()))
    assert report["violations"] == {"hidden": 1}


def test_the_checker_catches_a_team_mates_pending_pick_and_other_secret_squares():
    spec = SQUARES[0]
    driver, frames, record = played(spec, 987654321,
                                    stop=lambda d: len(d.acting()) == 1 and
                                    len(d.state.history) > 4)
    assert secrets_check.check_frames(record, list(frames.items()))["violations"] == {}
    mate = driver.acting()[0]                         # its team mate committed already
    pending = driver.state.history_text()[-1]
    assert ":" in pending and pending not in driver.view(mate)["history"]
    version = len(frames[mate]) - 1
    message = json.loads(frames[mate][-1])
    message["view"]["history"][-1] = pending          # the pick shown before the round ends
    shown = {**frames, mate: frames[mate][:-1] + [encode(message)]}
    report = secrets_check.check_frames(record, list(shown.items()))
    assert {"view", "hidden"} <= kinds(report), report
    # the other team's secret squares in the spectators' frame
    squares = driver.view(2)["my_secret_squares"]
    message = json.loads(frames[None][version])
    message["view"]["my_secret_squares"] = squares
    told = {**frames, None: frames[None][:version] + [encode(message)]}
    report = secrets_check.check_frames(record, list(told.items()))
    assert {"view", "hidden"} <= kinds(report), report


def test_the_secrets_command_checks_games_of_both_kinds(capsys):
    assert main(["soak", "secrets", "--cartagena", "1", "--ctor", "1", "--seed", "4"]) == 0
    out = capsys.readouterr().out
    assert out.rstrip().endswith("soak secrets: OK")
    report = json.loads(out[out.index("\n{") + 1:out.rindex("}") + 1])
    assert report["games"] == 2 and report["violations"] == 0


# The load benchmark -------------------------------------------------------------------------
def test_the_load_benchmark_reports_latencies_and_no_errors():
    before = soak_folders()
    report = loadbench.load("carteso(size=5)", games=4, seconds=4, seed=2, think=0.2,
                            out=io.StringIO())
    assert report["ok"], report
    assert report["errors"] == 0 and report["error_samples"] == []
    assert report["actions"] > 0 and report["update_ms"]["count"] > 0
    for name in ("ack_ms", "update_ms"):
        p50, p95, p99 = (report[name][p] for p in ("p50", "p95", "p99"))
        assert 0 < p50 <= p95 <= p99
    assert report["server_peak_rss_mib"] > 0
    assert report["server_cpu_seconds"] > 0 and report["server_cpu_ms_per_action"] > 0
    assert isinstance(report["target_met"], bool)
    assert soak_folders() <= before


def test_the_load_benchmark_runs_two_processes(postgres):
    """Each game's seats play through different servers: every opponent's update crossed
    from one process to the other."""
    report = loadbench.load("carteso(size=5)", games=4, seconds=4, seed=3, think=0.2,
                            db=postgres.url, processes=2, out=io.StringIO())
    assert report["ok"], report
    assert report["processes"] == 2 and report["database"] == "postgresql"
    assert report["update_ms"]["count"] > 0 and report["errors"] == 0
    assert len(report["server_peak_rss_mib"]) == 2 and report["server_cpu_seconds"] > 0
    with pytest.raises(soak.SoakError, match="needs --db postgresql"):
        loadbench.load("carteso(size=5)", games=1, seconds=1, processes=2)


def test_the_ladder_benchmark_plays_a_ladder_through_the_bot_api(capsys):
    """Four bot accounts in a ladder of two games at once each: the four games of the
    first pairing are played through the event stream and the game socket."""
    before = soak_folders()
    assert main(["soak", "ladder", "--bots", "4", "--games", "4", "--seconds", "3",
                 "--spec", "carteso(size=4)", "--think", "0.1", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert out.rstrip().endswith("soak ladder: OK")
    report = json.loads(out[out.index("\n{") + 1:out.rindex("}") + 1])
    assert report["errors"] == 0 and report["players"] == 4
    assert report["games_at_once_per_player"] == 2 and report["games_started"] >= 4
    assert report["actions"] > 0 and report["ack_ms"]["p95"] > 0
    assert report["server_cpu_ms_per_action"] > 0 and isinstance(report["target_met"], bool)
    assert soak_folders() <= before
    assert main(["soak", "ladder", "--bots", "1"]) == 2


def test_percentiles_are_nearest_rank():
    values = [float(v) for v in range(1, 101)]
    assert loadbench.percentile(values, 0.5) == 50.0
    assert loadbench.percentile(values, 0.95) == 95.0
    assert loadbench.percentile(values, 0.99) == 99.0
    assert loadbench.percentile(values, 1.0) == 100.0
    assert loadbench.percentile([], 0.5) is None


def test_the_load_benchmark_counts_cpu_once_the_server_is_idle():
    """A server's warm-up thread loads every game's kernels after start-up: the CPU
    counting starts once the process is idle, so none of that is counted."""
    burn = "import time\nprint('burning', flush=True)\nt = time.process_time()\n" \
        "while time.process_time() - t < 0.5: pass\ntime.sleep(600)"
    child = subprocess.Popen([sys.executable, "-c", burn], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdout.readline() == "burning\n"
        asyncio.run(loadbench._settled([child.pid], window=0.2, share=0.01))
        assert loadbench.cpu_seconds(child.pid) >= 0.45     # it had burnt its half second
    finally:
        child.kill()
        child.wait()


def test_a_process_starved_of_the_cpu_is_not_taken_for_idle():
    """On a busy machine a process that wants the CPU may get almost none of it over a
    short window (a CI run read 0.19 s of a half second's burn as settled): a thread
    running or waiting for a core (state R) means not idle, a sleeping one idle."""
    busy = subprocess.Popen([sys.executable, "-c", "print('on', flush=True)\nwhile True: pass"],
                            stdout=subprocess.PIPE, text=True)
    idle = subprocess.Popen([sys.executable, "-c", "import time\nprint('on', flush=True)\n"
                             "time.sleep(600)"], stdout=subprocess.PIPE, text=True)
    try:
        for child in (busy, idle):
            assert child.stdout is not None and child.stdout.readline() == "on\n"
        assert loadbench.runnable(busy.pid)
        guard = time.monotonic() + 60            # a hang guard: the idle child falls
        while loadbench.runnable(idle.pid) and time.monotonic() < guard:   # asleep at once
            time.sleep(0.01)
        assert not loadbench.runnable(idle.pid)
        assert not loadbench.runnable(2 ** 22 + 7)                      # no such process
    finally:
        for child in (busy, idle):
            child.kill()
            child.wait()


def test_bad_secrets_and_load_arguments_are_refused(capsys):
    assert main(["soak", "secrets", "--cartagena", "0", "--ctor", "0"]) == 2
    assert main(["soak", "load", "--games", "0"]) == 2
    assert main(["soak", "load", "--think", "-1"]) == 2
    assert "at least 1" in capsys.readouterr().err
