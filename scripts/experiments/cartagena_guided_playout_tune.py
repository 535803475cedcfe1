"""Cartagena: a 100-game duel (seeds 31000+) with the guided playout's GUIDED_GREED and
GUIDED_CARD set in this process before it.

    python scripts/experiments/cartagena_guided_playout_tune.py GREED CARD [AGENT_A AGENT_B]

Records: results/strength/playout/cartagena-guided-tuning.txt.
"""
import sys

from boardlab.arena.match import duel
from boardlab.games import cartagena as C

greed, card = int(sys.argv[1]), int(sys.argv[2])
a = sys.argv[3] if len(sys.argv) > 3 else "ismcts(iterations=1000,playout=guided)"
b = sys.argv[4] if len(sys.argv) > 4 else "mcts(iterations=1000,playout=random)"
C.GUIDED_GREED, C.GUIDED_CARD = greed, card
r = duel("cartagena", a, b, 100, seed=31000)
print(greed, card, a, b, r["points"], r["interval"], r["mean_actions"], flush=True)
