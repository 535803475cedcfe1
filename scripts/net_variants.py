"""Which head of a network helps or hurts a search (docs/learning.md).

    python scripts/net_variants.py KIND GAMES [--spec 'carteso(size=9)'] [--iterations 200]

KIND is one of: ``priors`` (PUCT over the network's priors, rollouts for values),
``value`` (UCT, the network's value instead of rollouts), ``uniform`` (PUCT over equal
priors, rollouts for values). Our side plays first in the even-numbered games; game i
is seeded i (ours) and 1000 + i (the plain ``mcts``). Prints the points after each game.
"""
from __future__ import annotations

import argparse

import numpy as np

import boardlab
from boardlab.agents import MCTS
from boardlab.agents.evaluators import RolloutEvaluator
from boardlab.learn.net import NetworkEvaluator, load_network


def evaluator(kind: str, game):
    net, rollout = NetworkEvaluator(game, load_network(game)), RolloutEvaluator()

    class Variant:
        def evaluate(self, state, rng):
            return net.evaluate(state, rng) if kind == "value" else rollout.evaluate(state, rng)

    class Guided(Variant):
        def evaluate_with_priors(self, state, rng):
            logits = net.evaluate_with_priors(state, rng)[1] if kind == "priors" else \
                np.zeros(game.num_actions, dtype=np.float32)
            return self.evaluate(state, rng), logits

    return Variant() if kind == "value" else Guided()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kind", choices=("priors", "value", "uniform"))
    parser.add_argument("games", type=int)
    parser.add_argument("--spec", default="carteso(size=9)")
    parser.add_argument("--iterations", type=int, default=200)
    args = parser.parse_args()
    game = boardlab.make(args.spec)
    ours_eval, points = evaluator(args.kind, game), 0.0
    for i in range(args.games):
        ours = i % 2
        state = game.new_initial_state(seed=i)
        agents = {ours: MCTS(game, ours, seed=i, evaluator=ours_eval, iterations=args.iterations),
                  1 - ours: MCTS(game, 1 - ours, seed=1000 + i, iterations=args.iterations)}
        while not state.is_terminal():
            seat = state.current_player()
            state.apply(agents[seat].act(state.view(seat)))
        points += (state.returns()[ours] + 1) / 2
        print(f"{args.kind}: game {i + 1}/{args.games}, {points:g} points", flush=True)


if __name__ == "__main__":
    main()
