"""Which head of a network helps or hurts a search (docs/learning.md).

    python scripts/net_variants.py KIND GAMES [--spec 'carteso(size=9)'] [--iterations 200]
        [--net FILE] [--first N]

KIND is one of: ``priors`` (PUCT over the network's priors, rollouts for values),
``value`` (UCT, the network's value instead of rollouts), ``uniform`` (PUCT over equal
priors, rollouts for values), ``both`` (PUCT over the network's priors and its value:
``mcts(evaluator=net)``), ``mix`` (UCT, the mean of the network's value and a
rollout's). ``--net``: a network file (default: the one shipped for the
spec); ``--first``: the number of the first game (to split a run over processes). Our side
plays first in the even-numbered games; game i is seeded i (ours) and 1000 + i (the plain
``mcts``). Prints the points after each game.
"""
from __future__ import annotations

import argparse

import numpy as np

import boardlab
from boardlab.agents import MCTS
from boardlab.agents.evaluators import RolloutEvaluator, blended
from boardlab.nn.net import NetworkEvaluator, load_network


class Uniform:
    """Equal priors for every action, values from rollouts."""

    def __init__(self, game):
        self.game, self.rollout = game, RolloutEvaluator()

    def evaluate(self, state, rng):
        return self.rollout.evaluate(state, rng)

    def evaluate_with_priors(self, state, rng):
        return self.evaluate(state, rng), np.zeros(self.game.num_actions, dtype=np.float32)


def evaluator(kind: str, game, name: str = ""):
    """The evaluator of a variant; all but ``uniform`` are ``mcts(evaluator=net)``'s
    options: ``priors`` is ``mix=1``, ``value`` ``priors=false``, ``mix``
    ``priors=false,mix=0.5``."""
    if kind == "uniform":
        return Uniform(game)
    net, rollout = NetworkEvaluator(game, load_network(game, name)), RolloutEvaluator()
    weight = {"both": 0.0, "priors": 1.0, "value": 0.0, "mix": 0.5}[kind]
    return blended(net, rollout, weight, priors=kind in ("both", "priors"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kind", choices=("priors", "value", "mix", "uniform", "both"))
    parser.add_argument("games", type=int)
    parser.add_argument("--spec", default="carteso(size=9)")
    parser.add_argument("--iterations", type=int, default=200)
    parser.add_argument("--net", default="")
    parser.add_argument("--first", type=int, default=0)
    args = parser.parse_args()
    game = boardlab.make(args.spec)
    ours_eval, points = evaluator(args.kind, game, args.net), 0.0
    for i in range(args.first, args.first + args.games):
        ours = i % 2
        state = game.new_initial_state(seed=i)
        agents = {ours: MCTS(game, ours, seed=i, evaluator=ours_eval, iterations=args.iterations),
                  1 - ours: MCTS(game, 1 - ours, seed=1000 + i, iterations=args.iterations)}
        while not state.is_terminal():
            seat = state.current_player()
            state.apply(agents[seat].act(state.view(seat)))
        points += (state.returns()[ours] + 1) / 2
        print(f"{args.kind}: game {i + 1 - args.first}/{args.games} (number {i}), "
              f"{points:g} points", flush=True)


if __name__ == "__main__":
    main()
