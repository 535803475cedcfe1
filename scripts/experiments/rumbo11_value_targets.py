"""How much do the search's estimates (the value's targets) say about who wins?

For the self-play samples of the Carteso and Rumbo 11x11 recipes (data-000.npz: 'q' is the
searching seat's estimate from mcts(iterations=800), 'z' the game's returns), by the move
number read from the samples' own input: the correlation of q with the seat's return, how
often their signs agree, and the mean |q|.
usage: python scripts/experiments/rumbo11_value_targets.py c11/data-000.npz r11/data-000.npz
"""
import sys

import numpy as np

import boardlab
from boardlab.nn.features import BoardFeatures

for spec, path in (("carteso(size=11)", sys.argv[1]), ("rumbo(size=11)", sys.argv[2])):
    features = BoardFeatures(boardlab.make(spec))
    column = features.header + features.encoder.paths.index(("moves",))
    data = np.load(path)
    q, z, seat = data["q"], data["z"], data["seat"]
    won = z[np.arange(len(z)), seat]
    moves = np.array([features.raw_scalars(row)[column] for row in data["x"]])
    print(f"{spec}: {len(q)} positions; q against the outcome: correlation "
          f"{np.corrcoef(q, won)[0, 1]:.3f}, signs agree "
          f"{100 * np.mean(np.sign(q) == np.sign(won)):.1f}%, mean |q| {np.abs(q).mean():.3f}")
    for low in range(0, int(moves.max()) + 1, 20):
        m = (moves >= low) & (moves < low + 20)
        if m.sum() > 100:
            print(f"  moves {low:3d}-{low + 19:3d}: {m.sum():6d} positions, correlation "
                  f"{np.corrcoef(q[m], won[m])[0, 1]:.3f}, signs agree "
                  f"{100 * np.mean(np.sign(q[m]) == np.sign(won[m])):.1f}%, mean |q| "
                  f"{np.abs(q[m]).mean():.3f}")
