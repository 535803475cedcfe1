"""`boardlab soak`: tiny runs of the durability and concurrency soaks against a real server.

The real runs (200 restarts, 1,000 trials) are commands, not tests. These check the reports'
invariants on a few restarts and trials; every wait in the soak has a generous timeout (a
loaded 2-core machine) that only bounds a run that went wrong.
"""
import io
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from boardlab.cli import main
from boardlab.server import soak

pytest.importorskip("httpx")
pytest.importorskip("websockets.asyncio.client")

ROOT = Path(__file__).resolve().parent.parent


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
    report = soak.durability("carteso(size=5)", restarts=3, games=2, seed=5, out=out)
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


def test_an_interrupted_soak_kills_its_server_and_removes_its_folder():
    before = soak_folders()
    process = subprocess.Popen([sys.executable, "-m", "boardlab.cli", "soak", "durability",
                                "--restarts", "1000"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:          # wait for its server to run
            new = soak_folders() - before
            if new and serve_processes(next(iter(new))):
                break
            time.sleep(0.2)
        new = soak_folders() - before
        assert new, "the soak made no temporary folder"
        marker = next(iter(new))
        process.send_signal(signal.SIGINT)          # Ctrl-C
        process.communicate(timeout=180)
        assert process.returncode == 130
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=60)
    deadline = time.monotonic() + 60
    while serve_processes(marker) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert serve_processes(marker) == []
    assert marker not in soak_folders()
