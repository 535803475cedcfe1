"""``boardlab train``'s self-play as Ray tasks on a two-node cluster (loopback only):
the games spread over both nodes, each naming its node, and the same samples as local
processes under the same seed; ``boardlab train --ray ADDRESS`` records where each game
was played. A node killed mid-self-play: test_selfplay_node_death.py (a cluster of its
own)."""
from __future__ import annotations

import json
import subprocess
import sys

import numpy as np

from boardlab.learn.selfplay import SAMPLE_KEYS, generate

SPEC = "carteso(size=5)"
AGENT = "stall(play=mcts(iterations=8),stall_at=4)"
GAMES, SEED = 10, 11


def _assert_same_samples(ours: dict, theirs: dict) -> None:
    assert ours["seeds"] == theirs["seeds"] == list(range(SEED, SEED + GAMES))
    assert ours["games"] == theirs["games"] == GAMES
    assert len(ours["x"]) > GAMES                     # the search's figures came through
    for key in SAMPLE_KEYS:
        assert (key in ours) == (key in theirs), key
        if key in theirs:
            assert np.array_equal(ours[key], theirs[key]), key


def test_self_play_spreads_over_both_nodes_with_the_samples_of_local_processes(cluster):
    on_ray = generate(SPEC, AGENT, GAMES, SEED, explore=2, ray_address="auto")
    local = generate(SPEC, AGENT, GAMES, SEED, explore=2, workers=1)
    _assert_same_samples(on_ray, local)
    assert {n["node"] for n in on_ray["nodes"]} == {cluster.head_id, *cluster.worker_ids}
    assert {n["node_ip"] for n in on_ray["nodes"]} == {"127.0.0.1"}


def test_the_train_command_plays_its_self_play_on_the_cluster(cluster, tmp_path):
    """``boardlab train --ray ADDRESS`` in a process of its own (a driver that connects):
    one progress line a game naming its node, the games each node played in the
    record, the node of every game in games-000.jsonl."""
    import pytest

    pytest.importorskip("torch", reason="PyTorch is the optional [train] extra")
    out = tmp_path / "run"
    done = subprocess.run([sys.executable, "-m", "boardlab", "train", SPEC, "--out", str(out),
                           "--generations", "1", "--games", "4", "--expert",
                           "mcts(iterations=8)", "--explore", "2", "--epochs", "1",
                           "--channels", "4", "--blocks", "1", "--ray", cluster.address],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert f"self-play on the Ray cluster at {cluster.address}" in done.stdout
    logged = [line for line in done.stderr.splitlines() if "self-play" in line]
    assert len(logged) == 4 and all(" [node " in line and " at 127.0.0.1]" in line
                                    for line in logged)
    [record] = [json.loads(line) for line in (out / "log.jsonl").read_text().splitlines()]
    assert record["ray"] == cluster.address and sum(record["nodes"].values()) == 4
    games = [json.loads(line) for line in (out / "games-000.jsonl").read_text().splitlines()]
    assert [g["seed"] for g in games] == sorted(g["seed"] for g in games)
    assert {g["node"] for g in games} <= {cluster.head_id, *cluster.worker_ids}
    assert (out / "net.npz").exists()
