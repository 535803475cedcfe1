"""The Ray cluster tests: a head and a worker node on this machine (loopback only).

They start real Ray processes (about ten seconds a cluster), so the default suite skips
them; ``bash scripts/test-ray.sh`` (which ``.ci/run`` calls) runs them.
"""
import os

import pytest

ENABLED = os.environ.get("BOARDLAB_RAY_CLUSTER") == "1"


def pytest_collection_modifyitems(config, items):
    if ENABLED:
        return
    skip = pytest.mark.skip(reason="the Ray cluster tests run with bash scripts/test-ray.sh")
    for item in items:
        if "tests/ray/" in item.nodeid:
            item.add_marker(skip)
