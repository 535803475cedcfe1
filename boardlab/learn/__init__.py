"""Learned evaluators: features from views, a numpy network, self-play training.

Play needs numpy alone (:mod:`.net`); training (:mod:`.train`, ``boardlab train``)
needs PyTorch (``pip install boardlab[train]``). See docs/learning.md.
"""
