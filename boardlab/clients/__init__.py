"""Programs that talk to a boardlab server as its clients do, over the wire protocol.

``connect.py`` is ``boardlab connect``: a line-protocol engine plays a seat of a server
game. A client speaks only the protocol (docs/server-protocol.md); it never imports
``boardlab.server``.
"""
