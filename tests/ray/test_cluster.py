"""An engine tournament on a real two-node Ray cluster (loopback only): the games spread
over both nodes (each names its node), the same games and standings as without Ray, the
``tournament --ray ADDRESS`` command, and no socket of the cluster's off the loopback.
A node that dies mid-tournament: test_node_death.py."""
from __future__ import annotations

import ipaddress
import json
import os
import subprocess
import sys

from ray_tournaments import GAMES, SPEC, assert_same_games, baseline, node, played, tournament


def test_games_spread_over_both_nodes_and_match_a_run_without_ray(cluster, tmp_path):
    standings, rows, heard = played(tournament(tmp_path / "ray.db"), ray_address="auto")
    base_standings, base_rows, _ = baseline(tmp_path)
    assert len(rows) == GAMES and sorted(heard) == list(range(GAMES))     # each game once
    assert {node(row) for row in rows} == {cluster.head_id, *cluster.worker_ids}
    assert_same_games(rows, base_rows)
    assert standings == base_standings


def test_the_cluster_listens_on_the_loopback_only(cluster):
    """Every socket the cluster's processes (this one's children: the GCS, the raylets,
    the workers, the agents) and this driver listen on is on 127.0.0.1 (or ::1)."""
    addresses = _listening(os.getpid())
    assert len(addresses) >= 5                 # the GCS and two of each raylet at least
    assert [a for a in addresses if not _loopback(a)] == []


def test_the_tournament_command_plays_on_the_cluster_by_its_address(cluster, tmp_path):
    """``boardlab tournament --ray ADDRESS`` in a process of its own (a driver that
    connects), one log line a game naming its node; ``standings --games --json`` too."""
    db = str(tmp_path / "cli.db")
    command = [sys.executable, "-m", "boardlab"]
    done = subprocess.run([*command, "tournament", SPEC, "random", "greedy", "--rounds", "3",
                           "--name", "cli", "--db", db, "--ray", cluster.address,
                           "--plot", str(tmp_path / "cli.png")],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    logged = [line for line in done.stderr.splitlines() if ": game " in line]
    assert len(logged) == 6 and all(" [node " in line and " at 127.0.0.1]" in line
                                    for line in logged)
    shown = subprocess.run([*command, "standings", "cli", "--db", db, "--games", "--json"],
                           capture_output=True, text=True, timeout=120, check=True)
    games = json.loads(shown.stdout)
    assert sorted(g["index"] for g in games) == list(range(6))
    assert {g["node"] for g in games} <= {cluster.head_id, *cluster.worker_ids}
    assert {g["node_ip"] for g in games} == {"127.0.0.1"}


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
