"""Research adapters: the games in OpenSpiel and PettingZoo (see docs/interop.md).

Each adapter is a module of its own that imports its library when imported:
``boardlab.interop.openspiel`` needs ``pip install boardlab[openspiel]``,
``boardlab.interop.pettingzoo`` needs ``boardlab[pettingzoo]``. Nothing else in
boardlab imports them. :mod:`boardlab.nn.encoding` (numpy only) turns a view
into the fixed-size vector both adapters use.
"""
