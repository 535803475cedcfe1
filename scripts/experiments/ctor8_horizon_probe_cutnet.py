"""Experiment: CTOR's rollout cut after the other team's answer, then the network's value
of the position reached (a turn start of the searching team) instead of the chip margin.
Its first form of mcts(net_at=horizon), written at commit 2dfb644 (before that option).

    python scripts/experiments/ctor8_horizon_probe_cutnet.py NET.npz GAMES SEED SIMS MIX

Records: results/learning/ctor-8/horizon/probe-duel-*.txt.
"""
import math
import random
import sys

import boardlab
from boardlab.games import ctor_kernel as K
from boardlab.games.ctor import CAPPED_SCALE
from boardlab.nn.net import NetworkEvaluator, load_network


class CutNet:
    name = "cutnet"

    def __init__(self, game, net_path, mix=0.0, policy="guided", turns=1):
        self.game, self.mix, self.policy, self.turns = game, mix, policy, turns
        self.net = NetworkEvaluator(game, load_network(game, net_path))
        self.until = None
        self.asked = self.cut = 0

    def begin(self, root):
        self.until = root.rollout_horizon(self.turns)

    def evaluate(self, state, rng):
        game = state.game
        turn = int(state.buf[K.M_TURNS])
        until = self.until
        cap = until if turn < until else until + 2 * ((turn + 2 - until) // 2)
        if state.resigned is not None or cap >= game.cfg[K.C_MAX_TURNS]:
            return state.rollout(rng.randrange(2**31), None, self.policy)
        other = state.played_out_to(rng.randrange(2**31), cap, self.policy)
        if other.buf[K.M_OVER_REASON] != K.OVER_CAP:
            return other.returns()
        a, b = other.counts()
        margin = math.tanh((a - b) / CAPPED_SCALE)
        rollout = [margin if game.team_of(s) == 0 else -margin for s in range(game.num_seats)]
        if self.mix >= 1.0 or other.buf[K.M_STEP] < (3 if game.cfg[K.C_OPEN3] else 2):
            return rollout                          # opening: leave it to the margin
        buf, cfg = other.buf, game.cfg
        buf[K.M_OVER_REASON] = 0
        K.start_turn(buf, cfg, 1 - int(buf[K.M_TEAM]), K.PH_REGULAR)
        self.cut += 1
        values = self.net.evaluate(other, rng)
        return [(1 - self.mix) * v + self.mix * r for v, r in zip(values, rollout)]


def duel(net_path, games, seed, iterations=200, mix=0.0, out=print):
    from boardlab.agents import MCTS, make_agent
    from boardlab.agents.base import public_game
    game = boardlab.make("ctor(size=8)")
    public = public_game(game)
    points = 0.0
    for g in range(games):
        rng = random.Random(seed + g)
        ours = g % 2
        state = game.new_initial_state(seed=rng.randrange(2**31))
        cut = CutNet(public, net_path, mix)
        agents = {ours: MCTS(public, ours, seed=rng.randrange(2**31), evaluator=cut,
                             iterations=iterations),
                  1 - ours: make_agent(f"mcts(iterations={iterations})", public, 1 - ours,
                                       seed=rng.randrange(2**31))}
        while not state.is_terminal():
            seat = state.acting_seats()[0]
            state.apply(agents[seat].act(state.view(seat)), seat=seat)
        r = state.returns()[ours]
        points += (r + 1) / 2
        out(f"game {g + 1} seed {seed + g} ours seat {ours}: return {r:+.0f}, chips "
            f"{state.counts()}, net asked {cut.cut}; {points} of {g + 1}")
    return points


if __name__ == "__main__":
    duel(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]),
         out=lambda s: print(s, flush=True))
