"""A node of a two-node Ray cluster killed in the middle of ``boardlab train``'s
self-play: every game is in the samples once (the lost ones played again on the other
node), and the samples are those of a run without Ray (and without the kill) under the
same seed.

The kill lands in a game, not between games (tests/ray/stall_agent.py): the victim
node's 4th game stops before its first move, the second of its second batch of two, and
the test kills the node once it has."""
from __future__ import annotations

from test_selfplay import AGENT, GAMES, SEED, SPEC, _assert_same_samples

from boardlab.learn.selfplay import generate


def test_a_node_killed_mid_self_play_loses_no_game_and_plays_none_twice(killed_on_stall):
    with killed_on_stall() as victim:
        on_ray = generate(SPEC, AGENT, GAMES, SEED, explore=2, ray_address="auto",
                          ray_batch=2)
    # the victim finished its first batch (two games); the second was lost with it and
    # played again on the head
    assert [n["node"] for n in on_ray["nodes"]].count(victim.node_id) == 2
    # every game once, and the samples of a run without Ray (and without the kill)
    local = generate(SPEC, AGENT, GAMES, SEED, explore=2, workers=1)
    _assert_same_samples(on_ray, local)
