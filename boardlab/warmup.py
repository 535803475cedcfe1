"""Compile every game's kernels now, into numba's on-disk cache.

The kernels are compiled the first time they run, which costs seconds per game on a
fresh install (about 15 s of CPU for Carteso alone): the first board, the first AI
move and the first test of each game would wait for the compiler. This plays a short
seeded game of every configuration a game declares (``conformance_specs``, and the
analysis set-ups of ``setup_examples``) through the protocol, a rollout, the benchmark
playouts and a few iterations of the search agents (also guided by priors, as with a
network), so that every later process loads compiled code instead::

    python -m boardlab.warmup            # about a minute on a fresh install, seconds after

``scripts/setup-env.sh`` runs it right after installing. It changes nothing but the
cache, and is safe to run again (or to interrupt: the next use compiles what is left).
"""
from __future__ import annotations

import random
import sys
import time
from typing import cast

import numpy as np

from .agents.evaluators import RolloutEvaluator
from .core.registry import games, make
from .core.view import View


class FlatPriors(RolloutEvaluator):
    """Rollout values and equal priors: a search guided by priors (PUCT, as with a
    trained network) compiles its own selection kernels."""

    def __init__(self, game):
        super().__init__()
        self.logits = np.zeros(game.num_actions, dtype=np.float32)

    def evaluate_with_priors(self, state, rng):
        return self.evaluate(state, rng), self.logits


def warm_game(spec: str, seed: int = 1) -> int:
    """Run every compiled path of ``spec`` once; return the moves played."""
    from .agents import make_agent
    from .agents.mcts import MCTS
    game = make(spec)
    rng, moves = random.Random(seed), 0
    state = game.new_initial_state(seed=seed)
    seat = state.acting_seats()[0] if not state.is_terminal() else None
    if seat is not None:
        for agent_spec in ("mcts(iterations=24)", "ismcts(iterations=24)"):
            make_agent(agent_spec, game, seat, seed=seed).act(cast(View, state.view(seat)))
        MCTS(game, seat, seed=seed, evaluator=FlatPriors(game),
             iterations=24).act(cast(View, state.view(seat)))
    while not state.is_terminal():
        seat = state.acting_seats()[0]
        legal = state.legal_actions_for(seat)
        if moves % 7 == 0:                 # what players and front ends ask now and then:
            for viewer in range(game.num_seats):          # views, the notation, and why
                state.view(viewer)                          # a move is illegal
            for action in legal[:3]:
                state.string_to_action(state.action_to_string(action))
            for action in rng.sample(range(game.num_actions), min(3, game.num_actions)):
                if action not in legal:
                    state.illegal_reason(action)
        state.apply(rng.choice(legal), seat=seat)
        moves += 1
    game.new_initial_state(seed=seed).rollout(seed)
    game.bench_playouts(2, seed)
    if game.vector_kernel() is not None:          # the vector environment's loop
        from .vector import make as make_vector
        env = make_vector(game, 2, seed=seed)
        env.reset()
        env.step(env.sample())
    return moves


def warm_up(out=sys.stderr) -> float:
    """Warm every registered game's configurations; print a line per game; the seconds."""
    start = time.monotonic()
    for cls in games():
        began = time.monotonic()
        specs = (cls.conformance_specs or (cls.name,)) + cls.setup_examples
        for spec in specs:
            warm_game(spec)
        print(f"  {cls.name}: {len(specs)} configuration(s), {time.monotonic() - began:.1f} s",
              file=out, flush=True)
    return time.monotonic() - start


if __name__ == "__main__":
    print("compiling the game engines (once; about a minute on a fresh install) ...",
          file=sys.stderr, flush=True)
    seconds = warm_up()
    print(f"compiled in {seconds:.0f} s", file=sys.stderr)
