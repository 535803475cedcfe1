"""The JSON text of the server's WebSocket frames: one encoder for every message sent.

orjson, compact (no blanks after ``,`` and ``:``) and UTF-8 text as it is (no ``\\u``
escapes): the same values as ``json.dumps`` gives, several times faster (a view's JSON is
built once per seat and version and is a good part of an action's CPU). Keys that are not
strings (a seat number) become strings, as with ``json.dumps``.
"""
from __future__ import annotations

from typing import Any

import orjson

OPTIONS = orjson.OPT_NON_STR_KEYS


def encode(message: Any) -> str:
    """The JSON text of ``message`` (TypeError for a value JSON has no form for)."""
    return orjson.dumps(message, option=OPTIONS).decode()
