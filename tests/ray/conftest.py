"""The Ray cluster tests: a head and a worker node on this machine (loopback only).

They start real Ray processes (ten seconds or more a cluster), so the default suite skips
them; ``bash scripts/test-ray.sh`` (which ``.ci/run`` calls) runs them. Importing these
modules does nothing else: Ray and the test agent are loaded by the fixtures.
"""
import contextlib
import os
import threading

import pytest

ENABLED = os.environ.get("BOARDLAB_RAY_CLUSTER") == "1"


def pytest_collection_modifyitems(config, items):
    if ENABLED:
        return
    skip = pytest.mark.skip(reason="the Ray cluster tests run with bash scripts/test-ray.sh")
    for item in items:
        if "tests/ray/" in item.nodeid:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def stall_agents():
    """The test agent ``stall`` (tests/ray/stall_agent.py), which the workers load too."""
    from boardlab.agents.base import load_agents_from

    load_agents_from([os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                   "stall_agent.py")])


def _local_cluster():
    pytest.importorskip("ray", reason="Ray is not installed (pip install 'boardlab[ray]')")
    from boardlab.arena.ray_cluster import local_cluster

    return local_cluster(nodes=2, cpus=1)       # torn down however the tests end


@pytest.fixture(scope="module")
def cluster(stall_agents):
    """A cluster that the tests of a module share (they kill no node)."""
    with _local_cluster() as running:
        yield running


@pytest.fixture
def stall_dir(tmp_path, monkeypatch):
    """Where the stall agents look for their victim (set before the cluster starts, so
    that its worker processes inherit it)."""
    folder = tmp_path / "stall"
    folder.mkdir()
    monkeypatch.setenv("BOARDLAB_STALL_DIR", str(folder))
    return folder


@pytest.fixture
def own_cluster(stall_agents, stall_dir):
    """A cluster of the test's own (it kills a node)."""
    with _local_cluster() as running:
        yield running


@pytest.fixture
def killed_on_stall(own_cluster, stall_dir):
    """A context manager: in its block the stall agents stop in a game on the cluster's
    first worker node (the victim, which it gives), and a thread kills that node once one
    has; after the block (the thread ended) it asserts that a game did stall there and
    that the node was killed, so that the test proved something."""
    @contextlib.contextmanager
    def killing():
        victim = own_cluster.workers[0]
        (stall_dir / "victim").write_text(victim.node_id)
        stalled, finished = stall_dir / "stalled", threading.Event()

        def killer():               # kills the victim node once a game stalls on it
            while not stalled.exists():
                if finished.wait(0.05):
                    return
            own_cluster.kill(victim)
        thread = threading.Thread(target=killer, daemon=True)
        thread.start()
        try:
            yield victim
        finally:
            finished.set()
            thread.join(timeout=60)
        assert stalled.exists(), "no game stalled on the victim node: the test proved nothing"
        assert victim not in own_cluster.workers              # it was killed mid-run
    return killing
