"""Offline (2026-11-27): a network trained on the first decision of each team's turn only.

    python scripts/experiments/ctor8_horizon_turn_starts_offline.py both SEED EPOCHS TARGET

(TARGET: outcome or search) reads the self-play samples of the CTOR run of seed 26400 (200
games of mcts(iterations=800), made by `boardlab train "ctor(size=8)" --out ctor8net
--generations 1 --games 200 --expert "mcts(iterations=800)" --value-target search --epochs 4
--holdout 0.1 --workers 1 --augment --seed 26400`: ctor8net/data-000.npz), keeps the turn
starts (the side to act changes), prints how well the chip margin at those positions,
tanh(margin / CAPPED_SCALE), foretells the outcome and the search's estimate (q, the acting
seat's), and trains a network on them (last 10% of the games held out). Written for a scratch
folder (/tmp/exp); the outputs are in results/learning/ctor-8/horizon/turn-starts-offline.txt.
"""
import json
import shutil
import sys
from pathlib import Path

import numpy as np

from boardlab.games.ctor import CAPPED_SCALE
from boardlab.learn.train import Trainer

src = np.load("/tmp/exp/ctor8net/data-000.npz")
d = {k: src[k] for k in src.files}
seat = d["seat"].astype(int)
start = np.r_[True, seat[1:] != seat[:-1]]          # first sample of a side's turn
which = sys.argv[1] if len(sys.argv) > 1 else "both"
keep = start & (seat == 0) if which == "black" else start
sub = {k: v[keep] for k, v in d.items()}
print("turn-start samples", int(keep.sum()), "of", len(seat))
target = sys.argv[4] if len(sys.argv) > 4 else "outcome"
folder = Path(f"/tmp/exp/cut/t-{which}-{target}")
shutil.rmtree(folder, ignore_errors=True)
folder.mkdir(parents=True)
np.savez(folder / "data-000.npz", **sub)
t = Trainer("ctor(size=8)", str(folder), seed=int(sys.argv[2]) if len(sys.argv) > 2 else 5)
t.value_target = sys.argv[4] if len(sys.argv) > 4 else "outcome"
train, held = t.samples(1, 0.1)
enc = t.features.encoder
# raw scalar position: x layout = header, board, paths
off = t.features.board_cells.stop
ib, iw = off + enc.paths.index(("counts", "black")), off + enc.paths.index(("counts", "white"))
for name, part in (("train", train), ("held", held)):
    h = np.tanh((part["x"][:, ib] - part["x"][:, iw]) / CAPPED_SCALE)
    z = part["z"][:, 0]
    s_ = part["seat"].astype(int)
    hq = np.where(s_ == 0, h, -h)
    print(name, "heuristic vs q (acting seat): mse",
          round(float(((hq - part["q"]) ** 2).mean()), 4),
          "sign", round(float((np.sign(hq) == np.sign(part["q"])).mean()), 4))
    print(name, "heuristic: mse", round(float(((h - z) ** 2).mean()), 4),
          "sign", round(float((np.sign(h) == np.sign(z)).mean()), 4), "n", len(z))
rec = t.train(train, held, epochs=int(sys.argv[3]) if len(sys.argv) > 3 else 8, sharpen=0.25,
              augment=True)
print(json.dumps(rec["final"]))
t.save(rec)
