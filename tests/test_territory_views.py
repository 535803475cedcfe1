"""The territory games' view helpers against the kernel's own answers.

``claim_layout`` follows each stone's union-find parents to its root; the kernel's
``group_root`` (with path halving) is the reference. The claimed groups and the owner
map built on it must be what a per-stone walk through the kernel gives, in every
configuration and at every move of random games.
"""
import random

import numpy as np
import pytest

from boardlab.core.registry import make
from boardlab.games.territory import SIDES, point_name

SPECS = ["carteso(size=5)", "carteso(size=9)", "carteso(size=11)", "carteso(size=9,button=false)",
         "carteso(size=7,komi_protocol=bid)", "rumbo(size=7)", "rumbo(size=9)",
         "rumbo(size=11,komi_protocol=bid)"]


def reference(state):
    """Owner map and claimed groups from the kernel's group_root, one stone at a time."""
    k, n = state.kernel, state.game.n
    copy = state.clone()                     # group_root halves paths: keep ``state`` as is
    owners = copy._arr(k.A_OWNER)
    owner_map = np.full(state.game.points, -1, dtype=np.int32)
    groups: dict[int, list[int]] = {}
    for cell in np.flatnonzero(copy.board):
        root = int(k.group_root(copy.buf, n, int(cell)))
        owner_map[cell] = owners[root]
        if owners[root] >= 0:
            groups.setdefault(root, []).append(int(cell))
    claimed = [{"owner": SIDES[owners[r]], "stones": sorted(point_name(c, n) for c in cells)}
               for r, cells in sorted(groups.items())]
    return owner_map, claimed


@pytest.mark.parametrize("spec", SPECS)
def test_claims_match_the_kernels_group_roots(spec):
    game = make(spec)
    rng = random.Random(spec)
    checked = claimed = 0
    for _ in range(6):
        state = game.new_initial_state(seed=rng.randrange(2 ** 31))
        while not state.is_terminal():
            owner_map, groups = reference(state)
            assert state.claim_owner_map().tolist() == owner_map.tolist()
            assert state.claimed_groups() == groups
            checked += 1
            claimed += bool(groups)
            state.apply(rng.choice(state.legal_actions()))
    assert checked > 50 and claimed > 5          # the walks did see claimed groups


@pytest.mark.parametrize("spec", ["carteso(size=7,komi_protocol=bid)", "rumbo(size=7)"])
def test_the_history_text_grows_with_the_game_as_a_fresh_one_reads(spec):
    """The history in notation, kept between moves and extended by the new moves only,
    is what a state written afresh gives, at every move and after a resignation."""
    game = make(spec)
    rng = random.Random(5)
    state = game.new_initial_state(seed=3)
    while not state.is_terminal():
        if rng.random() < 0.02:
            state.resign()
        else:
            state.apply(rng.choice(state.legal_actions()))
        fresh = state.clone()
        fresh.__dict__.pop("_history_memo", None)
        assert state.history_text() == fresh.history_text()
        assert state.view(0)["history"] == fresh.view(0)["history"]
