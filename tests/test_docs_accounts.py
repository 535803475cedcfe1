"""docs/accounts.md's curl examples run as written (issue 48, Done when: "docs describe
accounts, pools, ratings and the bot API with runnable examples"): the walk-through block
against a real `boardlab serve`, then the challenges' and seeks' blocks with its cookie
jars, each ``ID`` the id the command before it answered. Every answer is JSON and no error.
"""
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from test_connect import server

DOC = Path(__file__).resolve().parents[1] / "docs" / "accounts.md"
WAIT = 120

pytestmark = pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")


def block_after(heading: str, start: str = "") -> str:
    """The first ```sh block after ``heading`` (whose first line starts with ``start``)."""
    text = DOC.read_text()
    at = text.index(heading)
    for block in re.findall(r"```sh\n(.*?)```", text[at:], re.S):
        if block.startswith(start):
            return block
    raise AssertionError(f"no sh block after {heading!r}")


def commands(block: str) -> list[str]:
    """The block's commands (continued lines joined; comments and blank lines left out)."""
    joined = re.sub(r"\\\n\s*", " ", block)
    return [line for line in joined.splitlines() if line.strip()
            and not line.lstrip().startswith("#")]


def answers(output: str) -> list[dict]:
    """The JSON values curl printed one after another."""
    decoder, found, at = json.JSONDecoder(), [], 0
    output = output.strip()
    while at < len(output):
        value, at = decoder.raw_decode(output, at)
        found.append(value)
        while at < len(output) and output[at].isspace():
            at += 1
    return found


def run(script: str, folder: Path, base: str) -> str:
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=folder,
                          capture_output=True, text=True, timeout=WAIT,
                          env={"PATH": "/usr/bin:/bin", "S": base.rstrip("/"),
                               "H": "X-Boardlab-CSRF: 1"})
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_accounts_examples_run_as_written(tmp_path):
    walk = block_after("## A walk through with curl")
    assert walk.startswith("S=http://127.0.0.1:8000\n")
    with server(tmp_path) as base:
        script = walk.replace("S=http://127.0.0.1:8000", f"S={base.rstrip('/')}", 1)
        said = answers(run(script, tmp_path, base))
        assert said[0] == {"signed_in": True, "username": "alice", "bot": False}
        assert said[1]["username"] == "bob" and said[2]["username"] == "alice"
        assert said[3]["seat"] == 1 and "token" in said[3]                # Bob joined
        assert said[4]["username"] == "alice" and said[4]["games"][0]["rated"]
        assert said[5]["players"] == [] and said[6] == {"signed_in": False}
        run("curl -s -c alice.txt -H \"$H\" -H 'Content-Type: application/json' -d "
            "'{\"username\": \"alice\", \"password\": \"alice-password\"}' "
            "$S/api/account/login", tmp_path, base)                  # signed in again
        for heading in ("## Challenges and the house bots", "## Seeks"):
            last: dict = {}
            for command in commands(block_after(heading)):
                if "/ID/" in command:
                    command = command.replace("/ID/", f"/{last['id']}/")
                (answer,) = answers(run(command, tmp_path, base))
                assert "error" not in answer, (command, answer)
                if "id" in answer:
                    last = answer
                if command.rstrip().endswith("/accept") or "ai-2" in command:
                    assert answer.get("game"), (command, answer)
