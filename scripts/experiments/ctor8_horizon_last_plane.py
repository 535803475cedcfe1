"""How much the CTOR horizon network's value leans on the 'last' mark plane (which a
stopped playout's copy gets wrong: its history is the leaf's).

    python scripts/experiments/ctor8_horizon_last_plane.py NET.npz DATA.npz

Records: results/learning/ctor-8/horizon/last-plane.txt.
"""
import sys

import numpy as np

import boardlab
from boardlab.nn.features import BoardFeatures
from boardlab.nn.net import load_network

game = boardlab.make("ctor(size=8)")
f = BoardFeatures(game)
enc = f.encoder
net = load_network(game, sys.argv[1], f)
f.scale = net.scale
d = np.load(sys.argv[2])
keep = d["start"].astype(bool)
x, v = d["x"][keep], d["v"][keep]
cut = int(len(x) * 0.9)
x, v = x[cut:], v[cut:]
base = f.header + len(enc.pieces) * enc.cells
li = enc.marks.index("last")
sl = slice(base + li * enc.cells, base + (li + 1) * enc.cells)
print("marks", enc.marks, "held-out turn starts", len(x), "with a last mark",
      int((x[:, sl].sum(1) > 0).sum()))
rng = np.random.default_rng(0)


def planes(flat):
    out = np.empty(f.shape, dtype=np.float32)
    out[:f.board_planes] = flat[f.board_cells].reshape(f.board_planes, f.height, f.width)
    out[f.board_planes:] = (f.raw_scalars(flat) * f.scale)[:, None, None]
    return out


def vals(xs):
    return np.array([net.forward(planes(r))[1] for r in xs])


a = vals(x)
moved = x.copy()
for r in moved:
    n = int(r[sl].sum())
    r[sl] = 0
    if n:
        r[sl.start + rng.choice(enc.cells, n, replace=False)] = 1
b = vals(moved)
zero = x.copy()
zero[:, sl] = 0
c = vals(zero)
for name, out in (("as recorded", a), ("last squares moved at random", b), ("no last squares", c)):
    print(f"{name}: squared error to the search's estimate {((out - v) ** 2).mean():.4f}; "
          f"mean change from recorded {np.abs(out - a).mean():.4f}")
