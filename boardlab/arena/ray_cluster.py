"""A Ray cluster of several nodes on this machine, on the loopback address only.

For the cluster tests (tests/ray) and the benchmark (scripts/ray_bench.py): a head node
and worker nodes, each its own raylet with its own CPUs and object store, every one
listening on 127.0.0.1 alone, and this process connected to it as the driver. A node can
be killed (:meth:`LocalCluster.kill`) to see what a tournament does when a machine dies.

Ray turns a loopback address given to a driver into the machine's network address (so
that other machines could reach it), which a cluster on the loopback cannot answer at;
while the cluster runs, Ray is told to keep to the loopback
(``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0``, the setting Ray reads for that, in this process
and the ones the cluster starts).
"""
from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

LOOPBACK = "127.0.0.1"
_KEEP_TO_LOOPBACK = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"


@dataclass
class LocalCluster:
    """The running cluster: its address, the head node and the worker nodes."""

    cluster: Any
    head: Any
    workers: list = field(default_factory=list)

    @property
    def address(self) -> str:
        return self.cluster.address

    @property
    def head_id(self) -> str:
        return self.head.node_id

    @property
    def worker_ids(self) -> list[str]:
        return [node.node_id for node in self.workers]

    def warm(self, spec: str = "carteso(size=5)") -> None:
        """Have a worker process of every node import boardlab and play a game, so that
        the first games of a run do not all go to the node whose worker started first."""
        import ray
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        from .executor import play_task

        task = {"spec": spec, "players": ["random", "random"], "seed": 0, "index": 0}
        remote = ray.remote(play_task)
        ray.get([remote.options(scheduling_strategy=NodeAffinitySchedulingStrategy(
            node.node_id, soft=False)).remote(task) for node in [self.head, *self.workers]])

    def kill(self, node) -> None:
        """Kill a worker node's processes at once (no graceful stop), as if its machine died."""
        self.cluster.remove_node(node, allow_graceful=False)
        self.workers.remove(node)


@contextmanager
def local_cluster(nodes: int = 2, cpus: int = 1, object_store_mb: int = 80,
                  ) -> Iterator[LocalCluster]:
    """A head and ``nodes - 1`` worker nodes of ``cpus`` CPUs each, this process connected;
    all of it shut down when the block ends, however it ends."""
    saved = os.environ.get(_KEEP_TO_LOOPBACK)
    os.environ[_KEEP_TO_LOOPBACK] = "0"
    import ray
    from ray._private import ray_constants
    from ray.cluster_utils import Cluster

    was = ray_constants.ENABLE_RAY_CLUSTER
    ray_constants.ENABLE_RAY_CLUSTER = False       # read when Ray resolves an address
    cluster = Cluster(shutdown_at_exit=True)
    try:
        options: dict[str, Any] = dict(num_cpus=cpus, object_store_memory=object_store_mb * 2**20,
                                       node_ip_address=LOOPBACK, include_dashboard=False)
        head = cluster.add_node(**options)
        workers = [cluster.add_node(**options) for _ in range(nodes - 1)]
        cluster.wait_for_nodes()
        ray.init(address=cluster.address, log_to_driver=False)
        running = LocalCluster(cluster, head, workers)
        running.warm()
        yield running
    finally:
        try:
            ray.shutdown()
        finally:
            cluster.shutdown()
            ray_constants.ENABLE_RAY_CLUSTER = was
            if saved is None:
                os.environ.pop(_KEEP_TO_LOOPBACK, None)
            else:
                os.environ[_KEEP_TO_LOOPBACK] = saved
