"""``boardlab train`` that scales out and survives a kill (docs/learning.md).

1. Self-play as Ray tasks (the arena's Ray runner, here stood in for by one that plays
   the same tasks in this process, out of order, one game twice): the same samples as
   on local processes under the same seed, each game once, the node of each game kept.
2. ``--ray-batch`` without ``--ray`` is refused.
3. A checkpoint half written when the run is killed leaves the one before, which the
   next run resumes from.
4. A run killed in its second generation's self-play (SIGKILL, from inside, at a fixed
   point), run again with the same command, resumes and ends with the same network and
   records as a run never killed. The real cluster: tests/ray/test_selfplay.py.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from boardlab.cli import main
from boardlab.learn import selfplay
from boardlab.learn.selfplay import SAMPLE_KEYS, generate

SPEC = "carteso(size=5)"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _fake_on_ray(tasks, address, jobs, sources, batch=None, player=None):
    """What the Ray runner yields, played here: in reverse order, the first game twice
    (as when a batch lost with its node comes back after all), each naming a node.
    The real runner drops the second copy by its key; self-play must not rely on it."""
    order = list(reversed(tasks)) + [tasks[0]]
    for task in order:
        node = f"node-{task['index'] % 2}"
        yield task, {**player(task, sources), "node": node, "node_ip": "127.0.0.1"}


def test_self_play_on_ray_gives_the_samples_of_local_processes(monkeypatch):
    from boardlab.arena import ray_runner

    args = (SPEC, "mcts(iterations=8)", 4, 77)
    local = generate(*args, workers=1, explore=2)
    monkeypatch.setattr(ray_runner, "on_ray", _fake_on_ray)
    heard = []
    on_ray = generate(*args, workers=2, explore=2, ray_address="auto",
                      progress=lambda done, total, result: heard.append(result["seed"]))
    assert heard == [80, 79, 78, 77]                         # each game once
    assert on_ray["seeds"] == local["seeds"] == [77, 78, 79, 80]   # merged in seed order
    for key in SAMPLE_KEYS:
        if key in local:
            assert np.array_equal(on_ray[key], local[key]), key
    assert on_ray["games"] == local["games"] == 4
    assert on_ray["first_seat_points"] == local["first_seat_points"]
    assert [n["node"] for n in on_ray["nodes"]] == ["node-0", "node-1", "node-0", "node-1"]
    assert "nodes" not in local


def test_ray_batch_needs_ray(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["train", SPEC, "--out", str(out), "--ray-batch", "2"]) == 2
    assert "--ray-batch is for self-play on Ray: give --ray ADDRESS too" in \
        capsys.readouterr().err
    assert main(["train", SPEC, "--out", str(out), "--ray", "auto", "--ray-batch", "0"]) == 2
    assert "--ray-batch must be at least 1, not 0" in capsys.readouterr().err
    assert not out.exists()


TINY = dict(workers=1, explore=2, epochs=1, channels=4, blocks=1, seed=3, holdout=0.0)


def test_a_checkpoint_half_written_when_killed_leaves_the_one_before(tmp_path, monkeypatch):
    torch = pytest.importorskip("torch", reason="PyTorch is the optional [train] extra")
    from boardlab.learn.train import Trainer, run

    folder = tmp_path / "run"
    run(SPEC, str(folder), 1, 2, "mcts(iterations=10)", "mcts(evaluator=net,iterations=8)",
        log=lambda line: None, **TINY)
    saved = torch.save

    def killed_while_writing(obj, path):
        with open(path, "wb") as file:
            file.write(b"half a checkpoint")
        raise KeyboardInterrupt                  # the run stops in the middle of writing
    monkeypatch.setattr(torch, "save", killed_while_writing)
    with pytest.raises(KeyboardInterrupt):
        run(SPEC, str(folder), 2, 2, "mcts(iterations=10)",
            "mcts(evaluator=net,iterations=8)", log=lambda line: None, **TINY)
    monkeypatch.setattr(torch, "save", saved)
    assert Trainer(SPEC, str(folder), log=lambda line: None).generation == 1
    assert sorted(p.name for p in folder.iterdir() if p.name.startswith(".")) == []
    run(SPEC, str(folder), 2, 2, "mcts(iterations=10)", "mcts(evaluator=net,iterations=8)",
        log=lambda line: None, **TINY)
    assert Trainer(SPEC, str(folder), log=lambda line: None).generation == 2


#: runs ``boardlab train`` and, with KILL_AT set, SIGKILLs itself after the first game
#: of that generation's self-play (a real kill at a fixed point, whatever the speed)
KILLER = """
import os, signal, sys
from boardlab.learn import train
kill_at, seed = int(os.environ.get("KILL_AT", "-1")), int(os.environ["SEED"])
generate = train.generate
def killing(spec, agent, games, game_seed, workers, explore, deadline, progress, **more):
    generation = (game_seed - seed * 1_000_003) // 100_003
    def report(done, total, result):
        progress(done, total, result)
        if done == 1 and generation == kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
    return generate(spec, agent, games, game_seed, workers, explore, deadline, report, **more)
train.generate = killing
from boardlab.cli import main
sys.exit(main(sys.argv[1:]))
"""


def _train(folder, kill_at=None):
    env = {**os.environ, "PYTHONPATH": ROOT, "OMP_NUM_THREADS": "1", "SEED": "4"}
    if kill_at is not None:
        env["KILL_AT"] = str(kill_at)
    command = [sys.executable, "-c", KILLER, "train", SPEC, "--out", str(folder),
               "--generations", "3", "--games", "3", "--expert", "mcts(iterations=10)",
               "--player", "mcts(evaluator=net,iterations=8)", "--explore", "2",
               "--epochs", "2", "--channels", "4", "--blocks", "1", "--workers", "1",
               "--holdout", "0", "--seed", "4"]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)


def _records(folder) -> list[dict]:
    """The run's records, less the timings and the folder's name."""
    timing = {"self_play_s", "train_s"}
    text = (folder / "log.jsonl").read_text().replace(str(folder), "FOLDER")
    return [{k: v for k, v in json.loads(line).items() if k not in timing}
            for line in text.splitlines()]


def test_a_killed_run_resumes_and_ends_as_a_run_never_killed(tmp_path):
    pytest.importorskip("torch", reason="PyTorch is the optional [train] extra")
    whole, killed = tmp_path / "whole", tmp_path / "killed"
    assert _train(whole).returncode == 0
    first = _train(killed, kill_at=1)
    assert first.returncode == -9, first.stderr                  # SIGKILL
    assert len(_records(killed)) == 1                            # generation 0 finished
    assert not (killed / "data-001.npz").exists()                # 1 died in its self-play
    again = _train(killed)
    assert again.returncode == 0, again.stderr
    assert "resuming" in again.stdout and "1 generation(s) done" in again.stdout
    assert _records(killed) == _records(whole)
    ours, theirs = np.load(killed / "net.npz"), np.load(whole / "net.npz")
    assert ours.files == theirs.files
    for key in ours.files:
        if key != "meta":
            assert np.array_equal(ours[key], theirs[key]), key
    for g in range(3):
        assert (killed / f"games-{g:03d}.jsonl").read_text() == \
            (whole / f"games-{g:03d}.jsonl").read_text()


def test_generate_keeps_a_game_once_in_seed_order_without_ray():
    """The local path keeps what it had: seeds in order, no nodes."""
    data = selfplay.generate(SPEC, "mcts(iterations=8)", 2, 5, workers=1, explore=0)
    assert data["seeds"] == [5, 6] and data["games"] == 2
