"""Games on a Ray cluster: batches of games as Ray tasks, retried where a node is lost.

A Ray task plays a *batch* of games (a few when games are short, one when they are
long: each batch is sized to play for about :data:`TARGET_BATCH_SECONDS`, from the
games seen so far), so Ray's per-task cost stays small beside the games. The batches
go out a few per CPU of the cluster at a time (spread over the nodes), and new ones as
others come back. Each result says which node played it (``node``: Ray's node id,
``node_ip``), in the record's ``meta`` too (so in the database).

When a node dies (or a worker process), Ray runs the batches it had again elsewhere, up
to :data:`RETRIES` times: the games of a lost batch, those it had finished included, are
played again from their seeds, so a game comes back once, with the same result for
agents that depend on their seed alone (not on a clock). The results are deduplicated by
game key (:func:`game_key`) anyway, so a game that would come back twice counts once.
"""
from __future__ import annotations

import logging
import time
from collections import deque
from collections.abc import Callable, Iterator

from ..core.errors import BoardlabError

#: times Ray plays a batch again after losing it with its node or worker process
RETRIES = 4
#: a batch is sized to play for about this long (long beside Ray's cost per task)
TARGET_BATCH_SECONDS = 0.5
#: at most this many games in one batch (its results come back in one message)
MAX_BATCH = 64
#: batches out at once per CPU of the cluster: one playing, one waiting on its node
IN_FLIGHT_PER_CPU = 2

log = logging.getLogger(__name__)


def game_key(task: dict) -> tuple:
    """What identifies a game: its index in the schedule and its seed."""
    return task.get("index"), task["seed"]


class Once:
    """Lets each game (by :func:`game_key`) through once and counts the others."""

    def __init__(self) -> None:
        self.seen: set[tuple] = set()
        self.duplicates = 0

    def first(self, task: dict) -> bool:
        """Whether this is the first time the game of ``task`` comes back."""
        key = game_key(task)
        if key in self.seen:
            self.duplicates += 1
            return False
        self.seen.add(key)
        return True


#: what plays one game in a Ray worker: ``(task, agents_from) -> result``, a function
#: importable by name (the arena's :func:`~boardlab.arena.executor.play_task`, or
#: another floor's, e.g. self-play's)
Player = Callable[[dict, tuple[str, ...]], dict]


def play_batch(tasks: list[dict], agents_from: tuple[str, ...] = (),
               player: Player | None = None) -> list[dict]:
    """Play a batch of games in a Ray worker (with ``player``, by default the arena's
    ``play_task``); every result names the node that played it."""
    import ray

    from .executor import play_task

    play = player or play_task

    node, node_ip = ray.get_runtime_context().get_node_id(), ray.util.get_node_ip_address()
    results = []
    for task in tasks:
        task = {**task, "meta": {**(task.get("meta") or {}), "node": node, "node_ip": node_ip}}
        results.append({**play(task, agents_from), "node": node, "node_ip": node_ip})
    return results


class Batches:
    """Cuts the queue of games into batches of about :data:`TARGET_BATCH_SECONDS`.

    ``size``: a fixed number of games a batch instead. The first batches hold one game
    each (nothing is known of the games' length yet); later ones follow the mean length
    of the games played so far, and no batch holds more than an even share of what is
    left, so the last batches end together.
    """

    def __init__(self, tasks: list[dict], size: int | None = None):
        if size is not None and size < 1:
            raise BoardlabError(f"a batch holds at least one game, not {size}")
        self.queue, self.size = deque(tasks), size
        self.seconds, self.games = 0.0, 0
        self.sizes: list[int] = []              # of the batches handed out, in order

    def __bool__(self) -> bool:
        return bool(self.queue)

    def played(self, result: dict) -> None:
        """Learn from one finished game."""
        self.seconds += result.get("seconds", 0.0)
        self.games += 1

    def next(self, cpus: int) -> list[dict]:
        """The next batch (empty when the queue is)."""
        size = self.size or self._auto(cpus)
        batch = [self.queue.popleft() for _ in range(min(size, len(self.queue)))]
        if batch:
            self.sizes.append(len(batch))
        return batch

    def _auto(self, cpus: int) -> int:
        if not self.games:
            return 1
        mean = max(self.seconds / self.games, 1e-4)
        share = -(-len(self.queue) // (IN_FLIGHT_PER_CPU * max(cpus, 1)))
        return max(1, min(MAX_BATCH, share, round(TARGET_BATCH_SECONDS / mean)))


def on_ray(tasks: list[dict], address: str, jobs: int, sources: tuple[str, ...],
           batch: int | None = None, player: Player | None = None,
           ) -> Iterator[tuple[dict, dict]]:
    """Yield ``(task, result)`` for every task, played on the Ray cluster at ``address``
    (``"local"``: a Ray instance started here with ``jobs`` CPUs), by ``player`` (default:
    the arena's ``play_task``; a result should carry ``seconds``, its game's time, for the
    batches' sizing), in the order the batches come back.

    ``batch``: games per Ray task (None: sized from the games' length). At the end the
    batch sizes and the duplicates dropped are logged (logger ``boardlab.arena.ray_runner``).
    """
    try:
        import ray
    except ImportError:
        raise BoardlabError("--ray needs Ray: pip install 'boardlab[ray]'") from None
    started_here = not ray.is_initialized()
    if started_here:
        options = {"include_dashboard": False, "num_cpus": max(1, jobs)} \
            if address == "local" else {"address": address}
        ray.init(ignore_reinit_error=True, log_to_driver=False, **options)
    remote = ray.remote(max_retries=RETRIES, retry_exceptions=False)(play_batch) \
        .options(scheduling_strategy="SPREAD")
    batches, once, cpus = Batches(tasks, batch), Once(), _Cpus(ray)
    refs: dict = {}                             # Ray's reference -> its batch

    def submit() -> None:
        while batches and len(refs) < IN_FLIGHT_PER_CPU * cpus():
            chunk = batches.next(cpus())
            refs[remote.remote(chunk, sources, player)] = chunk
    try:
        submit()
        while refs:
            [ref], _ = ray.wait(list(refs), num_returns=1)
            chunk = refs.pop(ref)
            results = _results(ray, ref, chunk)
            for result in results:
                batches.played(result)
            submit()                            # the cluster stays busy while we store
            for task, result in zip(chunk, results):
                if once.first(task):
                    yield task, result
        sizes = batches.sizes
        log.info("%d games in %d Ray tasks of %d to %d games (mean %.1f); %d duplicates "
                 "dropped", len(once.seen), len(sizes), min(sizes, default=0),
                 max(sizes, default=0), len(tasks) / max(len(sizes), 1), once.duplicates)
    finally:
        for ref in refs:
            try:
                ray.cancel(ref)                   # not force: the task unwinds and kills engines
            except Exception:                     # already finished  # noqa: BLE001
                pass
        if started_here:
            ray.shutdown()


def _results(ray, ref, chunk: list[dict]) -> list[dict]:
    """The results of a batch; a batch Ray could not play (its node lost more than
    :data:`RETRIES` times) is a BoardlabError naming its games."""
    try:
        return ray.get(ref)
    except ray.exceptions.RayTaskError:
        raise                                   # the game itself failed: as without Ray
    except ray.exceptions.RayError as error:
        games = ", ".join(str(task.get("index", "?")) for task in chunk)
        raise BoardlabError(f"the Ray cluster lost game(s) {games} more than {RETRIES} "
                            f"times ({type(error).__name__}); the games finished are kept: "
                            f"resume to play the rest") from None


class _Cpus:
    """The cluster's CPUs, asked again every few seconds (nodes come and go)."""

    def __init__(self, ray):
        self.ray, self.value, self.asked = ray, 1, -1e9

    def __call__(self) -> int:
        if time.monotonic() - self.asked > 5:
            self.value = max(1, int(self.ray.cluster_resources().get("CPU", 1)))
            self.asked = time.monotonic()
        return self.value
