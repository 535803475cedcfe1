"""How many random games the property tests play.

The suite's counts keep ``./test.sh`` within a few minutes on two cores;
``BOARDLAB_TEST_DEPTH=N`` multiplies them for a deep check of the rules engines
against the independent models, e.g.::

    BOARDLAB_TEST_DEPTH=20 .venv/bin/python -m pytest -n 2 tests -k "random or oracle or k12"
"""
from __future__ import annotations

import os


def _depth() -> int:
    text = os.environ.get("BOARDLAB_TEST_DEPTH", "1")
    if not text.isdigit() or int(text) < 1:
        raise SystemExit(f"BOARDLAB_TEST_DEPTH must be a whole number >= 1, not {text!r}")
    return int(text)


DEPTH = _depth()


def examples(count: int) -> int:
    """The suite's ``count`` of hypothesis examples, times BOARDLAB_TEST_DEPTH."""
    return count * DEPTH
