import random, numpy as np, boardlab
from boardlab.learn.net import Network, NetworkEvaluator
from boardlab.agents import make_agent
g = boardlab.make("ctor(size=8)")
ev = NetworkEvaluator(g, Network.load("/tmp/exp/ctor8net-26410.npz"))
r = random.Random(5)
st = g.new_initial_state(seed=5)
agents = [make_agent("mcts(iterations=200)", g, s, seed=s) for s in range(2)]
for n in range(60):
    seat = st.acting_seats()[0]
    st.apply(agents[seat].act(st.view(seat)), seat=seat)
seat = st.acting_seats()[0]
print("to act", g.seat_names[seat], st.scores(), st.view(seat)["board"].get("quotas_left"), st.view(seat).get("quotas_left"))
vals = []
for a in st.legal_actions_for(seat):
    c = st.clone(); c.apply(a, seat=seat)
    v = ev.evaluate(c, r) if not c.is_terminal() else c.returns()
    vals.append((round(v[seat],3), st.action_to_string(a), c.scores(), g.seat_names[c.acting_seats()[0]] if not c.is_terminal() else None))
vals.sort(reverse=True)
for x in vals[:8]: print(x)
print("...")
for x in vals[-5:]: print(x)
print("parent value", ev.evaluate(st, r))
