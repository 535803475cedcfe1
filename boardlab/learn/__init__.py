"""Training only: self-play games and expert iteration (``boardlab train``).

What a network reads and its numpy forward pass (play time) are in :mod:`boardlab.nn`;
training (:mod:`.train`) needs PyTorch (``pip install boardlab[train]``). See
docs/learning.md.
"""
