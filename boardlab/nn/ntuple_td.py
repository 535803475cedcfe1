"""TD(lambda) learning of an n-tuple network (:mod:`.ntuple`) by self-play, compiled.

Games are played by the game's vector kernel (``Game.vector_kernel``: one row a game,
its compiled ``vec_*`` functions) and observed by its ``vec_observe``, the numbers the
view's encoder gives, so nothing here knows a game's rules. A move is random with
probability ``explore``, else the best for the seat to act of ``candidates`` legal
actions drawn at random, each valued by the network after it is played (greedy on
sampled after-states; ``candidates`` 1: random play). After each game every position
``s_t`` moves toward its lambda-return ``G_t = (1 - lam) V(s_t+1) + lam G_t+1`` (the
game's result at the end): ``w += rate / L * (G_t - V(s_t)) * (1 - V(s_t) ** 2)`` for
each of its ``L`` lookups and its bias (:func:`td_update`).

    python -m boardlab.nn.ntuple_td "carteso(size=9)" --games 200000 --out FILE
"""
from __future__ import annotations

import argparse
import sys
import time
import warnings

import numpy as np
from numba import njit
from numba.core.errors import NumbaExperimentalFeatureWarning

from ..core.errors import BoardlabError
from ..core.game import Game
from .kernel_layout import layout
from .ntuple import DEFAULT_SHAPES, NTupleNet, shipped_file, value


@njit(cache=True)
def td_update(pack, idx, mover, target, v, rate) -> None:
    """Move the value of the position whose lookups are ``idx`` (its value ``v``, seat
    ``mover`` to act) toward ``target``."""
    weights, bias = pack[6], pack[7]
    step = rate * (target - v) * (1.0 - v * v)
    bias[mover] += step / 8.0
    each = step / idx.shape[0]
    for li in range(idx.shape[0]):
        weights[idx[li]] += each


# Not cached on disk: these two take the game's compiled functions as arguments, and
# numba's cache of such signatures broke (saving its index raised "underlying object has
# vanished" once it held another run's entries); compiling them costs seconds a run.
@njit(cache=False)
def _observe(row, tables, seat, obs, lay, observe_fn):
    obs[:] = 0.0
    observe_fn(row, tables, seat, obs, lay[0], lay[1], lay[2])


@njit(cache=False)
def play_games(games, row, cand, initial, tables, lay, fns, obs, pack, history, movers,
               values, out, rets, rate, lam, explore, candidates, seed):
    """Play and learn from ``games`` games; return the sum of squared TD errors and the
    number of positions (``history`` holds each position's lookups: its rows bound a
    game's length, a longer one is cut and valued by the network)."""
    reset_fn, legal_fn, play_fn, player_fn, returns_fn, observe_fn = fns
    np.random.seed(seed)
    error, positions = 0.0, 0
    for game in range(games):
        reset_fn(row, tables, initial, seed + game)
        t = 0
        while t < history.shape[0]:
            mover = player_fn(row, tables)
            if mover < 0:
                break
            _observe(row, tables, mover, obs, lay, observe_fn)
            values[t] = value(obs, mover, pack)
            history[t, :] = pack[10]
            movers[t] = mover
            count = legal_fn(row, tables, out)
            action = out[np.random.randint(count)]
            if candidates > 1 and np.random.random() >= explore:
                best = -2.0
                for _ in range(candidates):
                    a = out[np.random.randint(count)]
                    cand[:] = row
                    play_fn(cand, tables, a)
                    nxt = player_fn(cand, tables)
                    if nxt < 0:
                        returns_fn(cand, tables, rets)
                        v = rets[0]
                    else:
                        _observe(cand, tables, nxt, obs, lay, observe_fn)
                        v = value(obs, nxt, pack)
                    score = v if mover == 0 else -v
                    if score > best:
                        best, action = score, a
            play_fn(row, tables, action)
            t += 1
        if player_fn(row, tables) < 0:
            returns_fn(row, tables, rets)
            target = rets[0]
        else:
            mover = player_fn(row, tables)
            _observe(row, tables, mover, obs, lay, observe_fn)
            target = value(obs, mover, pack)
        for i in range(t - 1, -1, -1):
            v = values[i]
            error += (target - v) ** 2
            td_update(pack, history[i], movers[i], target, v, rate)
            target = (1.0 - lam) * v + lam * target
        positions += t
    return error, positions


class Trainer:
    """TD(lambda) self-play of one game configuration (see the module)."""

    def __init__(self, game: Game, net: NTupleNet):
        kernel = game.vector_kernel()
        if kernel is None:
            raise BoardlabError(f"{game.spec}: no vector kernel to play its games with")
        self.game, self.net = game, net
        f = kernel.functions
        self.fns = (f.vec_reset, f.vec_legal, f.vec_play, f.vec_player, f.vec_returns,
                    f.vec_observe)
        self.tables, self.initial = kernel.tables, np.asarray(kernel.initial)
        lay = layout(game.spec, net.features.encoder, kernel)
        self.lay = (lay.planes_at, lay.cells_at, lay.scalars_at)
        self.row = np.array(self.initial, copy=True)
        self.cand = np.array(self.initial, copy=True)
        self.obs = np.zeros(net.features.encoder.size, dtype=np.float32)
        longest = game.max_game_length + 1
        self.history = np.zeros((longest, net.lookups.shape[0]), dtype=np.int64)
        self.movers = np.zeros(longest, dtype=np.int64)
        self.values = np.zeros(longest, dtype=np.float64)
        self.out = np.zeros(game.num_actions, dtype=np.int32)
        self.rets = np.zeros(2, dtype=np.float64)

    def run(self, games: int, rate: float = 0.5, lam: float = 0.5, explore: float = 0.1,
            candidates: int = 1, seed: int = 0) -> float:
        """Play ``games`` games, learning; the mean squared TD error per position."""
        with warnings.catch_warnings():      # (the kernel's functions passed as values)
            warnings.simplefilter("ignore", NumbaExperimentalFeatureWarning)
            error, positions = play_games(
                games, self.row, self.cand, self.initial, self.tables, self.lay, self.fns,
                self.obs, self.net.pack(), self.history, self.movers, self.values, self.out,
                self.rets, rate, lam, explore, candidates, seed)
        return error / max(positions, 1)


def main(argv: list[str] | None = None) -> int:
    """Train n-tuple weights for a game spec by self-play (see the module)."""
    import boardlab
    parser = argparse.ArgumentParser(prog="python -m boardlab.nn.ntuple_td",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("spec")
    parser.add_argument("--shapes", default=DEFAULT_SHAPES)
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--chunk", type=int, default=5_000)
    parser.add_argument("--rate", type=float, default=0.5)
    parser.add_argument("--final-rate", type=float, default=0.05)
    parser.add_argument("--lam", type=float, default=0.5)
    parser.add_argument("--explore", type=float, default=0.1)
    parser.add_argument("--candidates", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", default="")
    args = parser.parse_args(argv)
    game = boardlab.make(args.spec)
    net = NTupleNet(game, args.shapes)
    trainer = Trainer(game, net)
    start, done, log = time.perf_counter(), 0, []
    while done < args.games:
        share = done / args.games                # the rate decays geometrically
        rate = args.rate * (args.final_rate / args.rate) ** share
        count = min(args.chunk, args.games - done)
        err = trainer.run(count, rate, args.lam, args.explore, args.candidates,
                          args.seed * 1_000_003 + done)
        done += count
        log.append((done, round(err, 4)))
        print(f"{done} games  rate {rate:.3f}  td error {err:.4f}  "
              f"{time.perf_counter() - start:.0f} s", flush=True)
    net.meta = {"command": "python -m boardlab.nn.ntuple_td " + " ".join(
        argv if argv is not None else sys.argv[1:]), "log": log}
    out = args.out or str(shipped_file(game))
    net.save(out)
    print(f"wrote {out}: {net.tables} tables, {net.lookups.shape[0]} lookups a position")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
