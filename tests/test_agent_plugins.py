"""Agents of your own: ``--agents-from FILE.py`` (and ``BOARDLAB_AGENTS``) load them for
every command, worker processes included; bad files get clear errors.

Successful loads use the repository's example file (a loaded file stays loaded for the
rest of the test process); failing ones use throw-away files, which are never kept.
"""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from boardlab.cli import main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = str(ROOT / "examples" / "agents" / "my_agents.py")


def test_the_example_agents_are_listed(capsys):
    assert main(["agents", "--agents-from", EXAMPLE]) == 0
    out = capsys.readouterr().out
    assert "lowest: the legal action with the lowest number" in out
    assert "onestep: one action ahead" in out and "keep (float 0..1" in out


def test_own_agents_play_a_match_in_worker_processes(tmp_path, capsys):
    out = tmp_path / "records"
    assert main(["match", "rumbo(size=5)", "lowest", "onestep(keep=0.5)", "--games", "4",
                 "--jobs", "2", "--seed", "3", "--out", str(out),
                 "--agents-from", EXAMPLE]) == 0
    assert len(list(out.glob("game-*.json"))) == 4
    assert "lowest:" in capsys.readouterr().out


def test_own_agents_play_in_the_terminal():
    done = subprocess.run([sys.executable, "-m", "boardlab.cli", "play", "carteso", "--size",
                           "4", "--vs", "lowest", "--seat", "1", "--no-save", "--no-colour",
                           "--agents-from", EXAMPLE], input="quit\n", capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "lowest (vertical) plays Ba1" in done.stdout


def test_an_unknown_agent_says_how_to_load_ones_own(capsys):
    assert main(["match", "carteso(size=4)", "nosuch", "random", "--games", "1"]) == 2
    assert "--agents-from FILE.py" in capsys.readouterr().err


@pytest.mark.parametrize("text, words", [
    ("def broken(:\n", ["line 1", "SyntaxError"]),
    ("import no_such_module_here\n", ["line 1", "ModuleNotFoundError"]),
    ("from boardlab.agents import Agent, register_agent\n\n@register_agent\n"
     "class Mine(Agent):\n    name = 'mcts'\n", ["agent name 'mcts' is taken"]),
])
def test_a_bad_agent_file_is_a_clear_error(tmp_path, capsys, text, words):
    path = tmp_path / "bad_agents.py"
    path.write_text(text)
    assert main(["agents", "--agents-from", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"cannot load agents from {path}" in err or "is taken" in err
    for word in words:
        assert word in err, err


def test_a_missing_agent_file_is_a_clear_error(tmp_path, capsys):
    assert main(["agents", "--agents-from", str(tmp_path / "nothere.py")]) == 2
    assert "nothere.py: no such file" in capsys.readouterr().err


def test_the_environment_variable_loads_agents_too():
    env = {**os.environ, "BOARDLAB_AGENTS": EXAMPLE}
    done = subprocess.run([sys.executable, "-m", "boardlab.cli", "agents"], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "lowest:" in done.stdout


def test_a_missing_module_says_how_to_give_a_file(capsys):
    assert main(["agents", "--agents-from", "no_such_agents_module"]) == 2
    err = capsys.readouterr().err
    assert "No module named 'no_such_agents_module'" in err
    assert "not in the current folder: give a file as FILE.py" in err
