"""CTOR 8x8: the network's value for the acting seat after each legal move, 60 plies into a
game of mcts(iterations=200) against itself (the network read from /tmp/exp).

    python scripts/experiments/ctor8_values_after_each_move.py

Records: results/learning/ctor-8/values-after-each-move.txt.
"""
import random

import boardlab
from boardlab.agents import make_agent
from boardlab.nn.net import Network, NetworkEvaluator

g = boardlab.make("ctor(size=8)")
ev = NetworkEvaluator(g, Network.load("/tmp/exp/ctor8net-26410.npz"))
r = random.Random(5)
st = g.new_initial_state(seed=5)
agents = [make_agent("mcts(iterations=200)", g, s, seed=s) for s in range(2)]
for _ in range(60):
    seat = st.acting_seats()[0]
    st.apply(agents[seat].act(st.view(seat)), seat=seat)
seat = st.acting_seats()[0]
print("to act", g.seat_names[seat], st.scores(), st.view(seat)["board"].get("quotas_left"),
      st.view(seat).get("quotas_left"))
vals = []
for a in st.legal_actions_for(seat):
    c = st.clone()
    c.apply(a, seat=seat)
    v = ev.evaluate(c, r) if not c.is_terminal() else c.returns()
    vals.append((round(v[seat], 3), st.action_to_string(a), c.scores(),
                 g.seat_names[c.acting_seats()[0]] if not c.is_terminal() else None))
vals.sort(reverse=True)
for x in vals[:8]:
    print(x)
print("...")
for x in vals[-5:]:
    print(x)
print("parent value", ev.evaluate(st, r))
