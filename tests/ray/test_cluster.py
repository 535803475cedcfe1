"""An engine tournament on a real two-node Ray cluster (loopback only), and a node that
dies in the middle of it: every game is played once in the results, the lost ones again
elsewhere, and the standings are those of a run without Ray under the same seeds."""
from __future__ import annotations

import ipaddress
import json
import os
import threading
import time

import pytest

from boardlab.agents.base import load_agents_from
from boardlab.arena.storage import Store
from boardlab.arena.tournament import Tournament, tournament_config

pytest.importorskip("ray", reason="Ray is not installed (pip install 'boardlab[ray]')")

HERE = os.path.dirname(os.path.abspath(__file__))
load_agents_from([os.path.join(HERE, "stall_agent.py")])     # the workers load it too

SPEC = "carteso(size=5)"
PLAYERS = {"a": "stall(play=random,stall_at=4)", "b": "stall(play=greedy,stall_at=4)",
           "c": "stall(play=random,stall_at=4)"}
ROUNDS = 5                                  # 3 pairings x 2 colours x 5 = 30 games


@pytest.fixture
def stall_dir(tmp_path, monkeypatch):
    """Where the stall agents look for their victim (set before the cluster starts, so
    its worker processes inherit it)."""
    folder = tmp_path / "stall"
    folder.mkdir()
    monkeypatch.setenv("BOARDLAB_STALL_DIR", str(folder))
    return folder


@pytest.fixture
def cluster(stall_dir):
    from boardlab.arena.ray_cluster import local_cluster

    with local_cluster(nodes=2, cpus=1) as running:      # torn down however the test ends
        yield running


def _tournament(path, name="t") -> Tournament:
    config = tournament_config(SPEC, PLAYERS, rounds=ROUNDS, seed=7, deals="fresh")
    return Tournament(Store(str(path)), name, config)


def _played(tournament: Tournament, **run) -> tuple[list, list, list]:
    """Run it; return the standings, the stored rows and the game indices heard of."""
    heard: list[int] = []

    def on_game(progress):
        if progress.last is not None:
            heard.append(progress.last["record"]["meta"]["game_index"])
    standings = tournament.run(on_game=on_game, **run)
    return standings, tournament.rows(), heard


def _baseline(tmp_path):
    """The same tournament in this process, without Ray."""
    return _played(_tournament(tmp_path / "local.db"), jobs=1)


def _same_games(rows, reference) -> None:
    assert [(r.idx, r.seed, r.returns, r.scores, r.actions) for r in rows] == \
        [(r.idx, r.seed, r.returns, r.scores, r.actions) for r in reference]


def _node(row) -> str:
    return row.record["meta"]["node"]


def test_games_spread_over_both_nodes_and_match_a_run_without_ray(cluster, tmp_path):
    standings, rows, heard = _played(_tournament(tmp_path / "ray.db"), ray_address="auto")
    base_standings, base_rows, _ = _baseline(tmp_path)
    assert len(rows) == 30 and sorted(heard) == list(range(30))     # each game once
    assert {_node(row) for row in rows} == {cluster.head_id, *cluster.worker_ids}
    _same_games(rows, base_rows)
    assert standings == base_standings
    assert _listening(os.getpid()) and all(_loopback(address)
                                           for address in _listening(os.getpid()))


def test_a_node_killed_mid_tournament_loses_no_game_and_plays_none_twice(cluster, stall_dir,
                                                                          tmp_path):
    victim = cluster.workers[0]
    (stall_dir / "victim").write_text(victim.node_id)
    stalled, finished = stall_dir / "stalled", threading.Event()

    def killer():                   # kills the victim node once a game stalls on it
        while not stalled.exists():
            if finished.wait(0.05):
                return
        cluster.kill(victim)
    thread = threading.Thread(target=killer, daemon=True)
    thread.start()
    try:
        tournament = _tournament(tmp_path / "ray.db")
        standings, rows, heard = _played(tournament, ray_address="auto", ray_batch=2)
    finally:
        finished.set()
        thread.join(timeout=60)
    assert stalled.exists(), "no game stalled on the victim node: the test proved nothing"
    assert victim not in cluster.workers                      # it was killed mid-run
    # every game once in the results and in what the runner heard: nothing lost or doubled
    assert [row.idx for row in rows] == list(range(30))
    assert sorted(heard) == list(range(30))
    # the victim's 4th game stalled, the second of its second batch (ray_batch=2), after
    # a game it finished: that batch was lost with the node and played again on the head;
    # its first batch came back, so two games are the victim's
    seed = json.loads(stalled.read_text())["seed"] // 31
    [again] = [row for row in rows if row.seed == seed]
    assert _node(again) == cluster.head_id
    assert len([n for n in os.listdir(stall_dir) if n.startswith("start-")]) == 4
    assert len([row for row in rows if _node(row) == victim.node_id]) == 2
    # the same games and standings as a run without Ray (and without the kill)
    base_standings, base_rows, _ = _baseline(tmp_path)
    _same_games(rows, base_rows)
    assert standings == base_standings


# The sockets of this process and its children (the cluster's) -------------------------------
def _listening(root: int) -> list:
    """The local addresses that ``root`` and its descendants listen on (TCP) or bind (UDP)."""
    pids, inodes = _descendants(root) | {root}, set()
    for pid in pids:
        try:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                link = os.readlink(f"/proc/{pid}/fd/{fd}")
                if link.startswith("socket:["):
                    inodes.add(link[8:-1])
        except OSError:                      # a process that just ended
            continue
    addresses = []
    for table in ("tcp", "tcp6", "udp", "udp6"):
        with open(f"/proc/net/{table}") as file:
            for line in list(file)[1:]:
                fields = line.split()
                listening = fields[3] == "0A" or table.startswith("udp")
                if fields[9] in inodes and listening:
                    addresses.append(_address(fields[1].split(":")[0]))
    return addresses


def _descendants(root: int) -> set[int]:
    parents = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as file:
                    parents[int(name)] = int(file.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
    found, frontier = set(), {root}
    while frontier:
        frontier = {pid for pid, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def _address(text: str):
    raw = bytes.fromhex(text)
    words = b"".join(raw[i:i + 4][::-1] for i in range(0, len(raw), 4))
    return ipaddress.ip_address(words)


def _loopback(address) -> bool:
    mapped = getattr(address, "ipv4_mapped", None)
    return (mapped or address).is_loopback


def test_addresses_are_read_from_proc_net():
    assert _address("0100007F") == ipaddress.ip_address("127.0.0.1")
    assert _loopback(_address("0000000000000000FFFF00000100007F"))
    assert not _loopback(_address("00000000"))                      # 0.0.0.0: every interface
    assert not _loopback(_address("0200000A"))                      # 10.0.0.2
    time.monotonic()
