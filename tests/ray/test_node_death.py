"""A node of a two-node Ray cluster killed in the middle of a tournament: every game is in
the results once (the lost ones played again on the other node), and the games and
standings are those of a run without Ray (and without the kill) under the same seeds.

The kill lands in a game, not between games, whatever the machine's speed: the test
agent (tests/ray/stall_agent.py) stops in its 4th game on the victim node, the second
of a batch of two whose first it finished, and the test kills the node once it has."""
from __future__ import annotations

import json
import os

from ray_tournaments import GAMES, assert_same_games, baseline, node, played, tournament


def test_a_node_killed_mid_tournament_loses_no_game_and_plays_none_twice(
        own_cluster, killed_on_stall, stall_dir, tmp_path):
    with killed_on_stall() as victim:
        standings, rows, heard = played(tournament(tmp_path / "ray.db"), ray_address="auto",
                                        ray_batch=2)
    stalled = stall_dir / "stalled"
    # every game once in the results and in what the runner heard: nothing lost or doubled
    assert [row.idx for row in rows] == list(range(GAMES))
    assert sorted(heard) == list(range(GAMES))
    # the victim's 4th game stalled, the second of its second batch (ray_batch=2), after
    # a game it finished: that batch was lost with the node and played again on the head;
    # its first batch came back, so two games are the victim's
    seed = json.loads(stalled.read_text())["seed"] // 31
    [again] = [row for row in rows if row.seed == seed]
    assert node(again) == own_cluster.head_id
    assert len([n for n in os.listdir(stall_dir) if n.startswith("start-")]) == 4
    assert len([row for row in rows if node(row) == victim.node_id]) == 2
    # the same games and standings as a run without Ray (and without the kill)
    base_standings, base_rows, _ = baseline(tmp_path)
    assert_same_games(rows, base_rows)
    assert standings == base_standings


