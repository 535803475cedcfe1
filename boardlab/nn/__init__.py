"""The network's floor: what a trained network reads and how it plays, numpy only.

Below the agents (which find the network evaluator through their evaluator registry)
and above the games, so that search never imports training code:

- :mod:`.encoding`: :class:`~.encoding.ViewEncoder`, a view as a fixed-size vector
  (shared with the OpenSpiel and PettingZoo adapters);
- :mod:`.features`: :class:`~.features.BoardFeatures`, that vector laid out as planes;
- :mod:`.net`: the numpy forward pass, the ``.npz`` file format, the networks shipped
  in ``boardlab/nn/weights`` and :class:`~.net.NetworkEvaluator`.

Training them (self-play, PyTorch) is :mod:`boardlab.learn`'s.
"""
