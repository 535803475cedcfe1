"""CTOR 8x8: simulations per CPU second 150 random plies into a game, plain mcts and the
network's search at the rollout's horizon (median of 7 searches each).

    python scripts/experiments/ctor8_horizon_search_rates.py

Records: results/learning/ctor-8/horizon/search-rates.txt.
"""
import random
import statistics
import time

import boardlab
from boardlab.agents import make_agent

game = boardlab.make("ctor(size=8)")
st = game.new_initial_state(seed=1)
rng = random.Random(3)
for _ in range(150):
    s = st.acting_seats()[0]
    st.apply(rng.choice(st.legal_actions_for(s)), seat=s)
seat = st.acting_seats()[0]
for spec in ["mcts(iterations=3000,early_stop=false)",
             "mcts(evaluator=net,net_at=horizon,iterations=300,early_stop=false)"]:
    make_agent(spec, game, seat, seed=1).act(st.view(seat))
    rates = []
    for r in range(7):
        a = make_agent(spec, game, seat, seed=r)
        t = time.process_time()
        a.act(st.view(seat))
        rates.append(a.simulations / (time.process_time() - t))
    print(f"{spec}: {statistics.median(rates):.0f} simulations per CPU second (median of 7), "
          f"150 plies in")
