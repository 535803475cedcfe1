"""CTOR's one-action legality check (``ctor_kernel.is_legal``, what ``apply`` asks) agrees
with the kernel's list of legal actions, on every action number of the positions of
random games in every phase: secret picks, openings, Landings, full fields, Replaces."""
import random

import numpy as np
import pytest

import boardlab
from boardlab.games import ctor_kernel as K

NEARLY_FULL = "BBBWB.WB/BWBWBWWB/BWWWWWWB/WBBBBB.B/BWBWBBBB/BBBBWWB./WWBWBWWB/WWBBBBWW"
CONFIGS = (
    "ctor(size=8)",
    "ctor(size=8,secret_squares=true)",
    "ctor(size=8,teams=2v2)",
    "ctor(size=10,teams=2v3,end_check=end_of_turn,first_team=2)",
    "ctor(size=8,auto_replace_closure=true,replace_only_after_op=true)",
    "ctor(size=8,end_check=end_of_turn)",
    # three squares free: the field fills within a turn or two (Puts, Moves, Landings stop)
    f"ctor(size=8,position={NEARLY_FULL},turn=2)",
    f"ctor(size=8,position={NEARLY_FULL},end_check=end_of_turn)",
)


#: turn flags of the buffer and the values they take
FLAGS = ((K.M_FULL, (0, 1)), (K.M_LIFTS, (0, 0, 1, 2)), (K.M_PUT, (0, 1)), (K.M_MOVE, (0, 1)),
         (K.M_LAND, (0, 1)), (K.M_OPS, (0, 1)), (K.M_PHASE, (K.PH_OPENING, K.PH_REGULAR,
                                                            K.PH_REGULAR)))


def agree(buf, game, out, where) -> set:
    """The legal actions of ``buf``, checked to be those :func:`K.is_legal` allows."""
    cfg, nbr, diag = game.cfg, game.topology.nbr, game.topology.diag
    legal = set(out[:K.legal(buf, cfg, nbr, diag, out)].tolist())
    checked = {a for a in range(-2, game.num_actions + 2) if K.is_legal(buf, cfg, nbr, diag, a)}
    assert checked == legal, where
    return legal


@pytest.mark.parametrize("spec", CONFIGS)
def test_the_check_of_one_action_agrees_with_the_legal_list(spec):
    game = boardlab.make(spec)
    out = np.empty(game.num_actions, dtype=np.int32)
    rng, positions = random.Random(5), 0
    for seed in range(2):
        state = game.new_initial_state(seed=seed)
        while not state.is_terminal() and positions < 1500 * (seed + 1):
            legal = agree(state.buf, game, out, f"{spec}, seed {seed}, ply "
                                                f"{len(state.history)}")
            # the same board with other turn flags (both are functions of the buffer):
            # full field, a Landing half done, quotas spent, an operation made or not
            work = state.buf.copy()
            for flag, values in FLAGS:
                work[flag] = rng.choice(values)
            agree(work, game, out, f"{spec}, seed {seed}, ply {len(state.history)}, "
                                   f"flags {[int(work[f]) for f, _ in FLAGS]}")
            positions += 1
            state.apply(rng.choice(sorted(legal)))
    assert positions > 50
