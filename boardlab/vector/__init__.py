"""Vector environments: ``n`` games of one configuration stepped in one compiled call.

>>> import boardlab.vector
>>> env = boardlab.vector.make("carteso(size=5)", n=4, seed=1)
>>> first = env.reset()
>>> first.obs.shape, first.mask.shape, first.rewards.shape
((4, 142), (4, 155), (4, 2))
>>> after = env.step(env.sample())
>>> after.seat.tolist()
[1, 1, 1, 1]

Every game whose :meth:`~boardlab.core.game.Game.vector_kernel` is not None can be
stepped so: Carteso and Rumbo with a fixed komi, CTOR with one agent per team
(``team_protocol=single``) and no secret squares. Observations are the
:class:`~boardlab.nn.encoding.ViewEncoder` vectors of the OpenSpiel and PettingZoo
adapters, from the acting seat's view (at the end, the view of the seat that moved
last). A game that ends is reset at the next :meth:`~VectorEnv.step`, its action
ignored (as EnvPool does). docs/interop.md has the details.
"""
from .env import IllegalActionError, Step, VectorEnv, make

__all__ = ["IllegalActionError", "Step", "VectorEnv", "make"]
