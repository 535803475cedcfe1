"""The load benchmark: many games at once on one `boardlab serve`, latencies per action.

``boardlab soak load`` starts one server as a child process (see soak.py) and plays
``games`` games at once for ``seconds`` seconds, each by two WebSocket bots on loopback (one
per seat, a random legal move after a random pause of 0 to 2 × ``think`` seconds, like a
quick person (:data:`DEFAULT_THINK`); with ``think`` 0 as soon as their seat acts, which
measures saturation, not latency; a new game when one ends). Each
bot leaves at least :data:`PACE` seconds between two of its frames, under the server's
per-connection flood limit. For every action it measures the round trip from the send to
its own ``ack``, and from the send to the opponent's ``update`` of the version it made.
The report has the percentiles of both, the actions, the errors (any error frame, any
connection dropped), the server's peak resident memory (``VmHWM``) and the CPU time it used
from the first measured action on (its start-up and any compiling not counted), in all and
per action: a figure that depends less on what else the machine runs (counted once the
servers are idle after their start: their warm-up threads load every game's kernels).
The target: p95 of both under 50 ms, no error.

The bots run in this process, on one event loop: on a small machine their own work is part
of the latency measured (the figures are an upper bound for the server's).

With ``processes`` > 1 (PostgreSQL only) that many servers share the database: game ``i`` is
created on server ``i mod P`` and its seat ``s`` plays through server ``(i + s) mod P``, so
every opponent's update crosses from one process to the other (LISTEN/NOTIFY).
"""
from __future__ import annotations

import asyncio
import json
import math
import os
import random
import sys
import time
from collections import Counter
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from .soak import (NO_CREATE_LIMIT, START_WAIT, WAIT, ServerProcess, SoakError, _libraries,
                   _ws, check_processes, http_limits, workspace)

PACE = 0.06                  # seconds between two frames of one connection (< 20 per second)
TARGET_P95 = 0.050           # seconds
#: the bots' mean pause before a move (uniform over 0 to twice this), in seconds: a quick
#: person's pace; with 0 they answer at once and the run measures saturation instead
DEFAULT_THINK = 1.0
MAX_SAMPLES = 50


def percentile(values: list[float], share: float) -> float | None:
    """The nearest-rank percentile of ``values`` (None when there are none)."""
    if not values:
        return None
    ordered = sorted(values)
    rank = math.ceil(share * len(ordered) - 1e-9)        # 1-based; no float noise upwards
    return ordered[min(len(ordered), max(1, rank)) - 1]


def cpu_seconds(pid: int) -> float | None:
    """The CPU time (user and system) process ``pid`` has used, or None (Linux only)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def peak_rss(pid: int) -> int | None:
    """The peak resident memory of process ``pid`` in KiB (Linux ``VmHWM``), or None."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


class Load:
    """The bots of one run and what they measured."""

    def __init__(self, urls: list[str], spec: str, seed: int, until: float,
                 think: float = 0.0):
        self.urls, self.spec, self.until, self.think = urls, spec, until, think
        self.rng = random.Random(seed)
        self.ack: list[float] = []              # seconds from send to own ack
        self.update: list[float] = []           # seconds from send to the opponent's update
        self.actions = 0
        self.games = 0
        self.finished = 0
        self.errors: list[str] = []
        self.error_count = Counter()

    def error(self, kind: str, text: str) -> None:
        self.error_count[kind] += 1
        if len(self.errors) < MAX_SAMPLES:
            self.errors.append(text)

    @property
    def running(self) -> bool:
        return time.monotonic() < self.until

    def link(self, link: str, server: int) -> str:
        """A seat's link, through server ``server`` (every server knows every game)."""
        return _ws(self.urls[server % len(self.urls)]) + "ws/" + link.split("/ws/", 1)[1]

    async def table(self, client, index: int = 0) -> None:
        """Play games one after another until the time is up."""
        rng = random.Random(self.rng.random())
        url = self.urls[index % len(self.urls)]
        while self.running:
            response = await client.post(url + "api/games",
                                         json={"spec": self.spec, "seats": ["human", "human"]})
            if response.status_code != 201:
                self.error("create", f"create: {response.status_code} {response.text[:200]}")
                await asyncio.sleep(1)
                continue
            game = response.json()
            self.games += 1
            sent: dict[int, tuple] = {}         # version made -> (sender's seat, time sent)
            ended = await asyncio.gather(*(self.seat(game, s["seat"],
                                                     self.link(s["link"], index + s["seat"]),
                                                     sent, rng)
                                           for s in game["seats"]))
            self.finished += all(ended)

    async def seat(self, game: dict, seat: int, link: str, sent: dict,
                   rng: random.Random, headers: dict | None = None) -> bool:
        """One bot; True when its game ended (not the time). ``headers``: a bot account's
        ``Authorization`` (the ladder benchmark), else ``link`` holds the seat's token."""
        _, connect, WebSocketException = _libraries()
        loop = asyncio.get_running_loop()
        keys: dict[str, float] = {}
        acted, last, count = None, 0.0, 0
        try:
            async with connect(link, open_timeout=WAIT, close_timeout=1,
                               additional_headers=headers) as ws:
                while self.running:
                    try:
                        text = await asyncio.wait_for(ws.recv(), max(0.01, min(
                            WAIT, self.until - time.monotonic())))
                    except TimeoutError:
                        if self.running:
                            self.error("stuck", f"{game['id']} seat {seat}: no frame in "
                                       f"{WAIT:.0f} s")
                        return False
                    now = time.monotonic()
                    message = json.loads(text)
                    kind = message["type"]
                    if kind == "ack":
                        self.ack.append(now - keys.pop(message["key"]))
                        self.actions += 1
                        continue
                    if kind == "error":
                        self.error(message["code"], f"{game['id']} seat {seat}: {message}")
                        continue
                    if kind != "update" and kind != "sync":
                        continue
                    version, view = message["version"], message["view"]
                    if kind == "update" and sent.get(version, (seat,))[0] != seat:
                        self.update.append(now - sent.pop(version)[1])
                    if view["terminal"]:
                        return True
                    if view["seats"][seat] not in view["acting"] or acted == version:
                        continue
                    pause = rng.uniform(0, 2 * self.think) if self.think else 0.0
                    await asyncio.sleep(max(pause, last + PACE - loop.time()))
                    acted, last, count = version, loop.time(), count + 1
                    key = f"{seat}-{count}"
                    keys[key] = time.monotonic()
                    sent[version + 1] = (seat, keys[key])
                    await ws.send(json.dumps({"type": "action", "seat": seat,
                                              "move": rng.choice(view["legal"]),
                                              "version": version, "key": key}))
        except (OSError, WebSocketException, EOFError) as error:
            if self.running:
                self.error("dropped", f"{game['id']} seat {seat}: {error!r}")
        return False


async def _load(urls: list[str], spec: str, games: int, seconds: float, seed: int,
                think: float, out, pids: list[int]) -> dict:
    httpx, _, _ = _libraries()
    async with httpx.AsyncClient(timeout=START_WAIT, limits=http_limits()) as client:
        for url in urls:                # each server has loaded (or compiled) the game's
            await _first_game(client, url, spec)        # kernels before the clock starts
    await _settled(pids)                # and its warm-up thread has loaded the other games'
    cpu_before = [cpu_seconds(pid) for pid in pids]     # start-up and compiling not counted
    started = time.monotonic()
    state = Load(urls, spec, seed, started + seconds, think)
    async with httpx.AsyncClient(timeout=WAIT, limits=http_limits(games)) as client:
        tasks = [asyncio.create_task(state.table(client, i)) for i in range(games)]
        while not all(task.done() for task in tasks):
            await asyncio.wait(tasks, timeout=min(10.0, max(0.1, seconds / 10)))
            print(f"{time.monotonic() - started:.0f} s: {state.actions} actions, "
                  f"{state.games} games, errors {sum(state.error_count.values())}",
                  file=out, flush=True)
        for task in tasks:
            if task.exception():
                raise task.exception()
    return {"cpu_before": cpu_before, "cpu_after": [cpu_seconds(pid) for pid in pids],
            "spec": spec, "games_at_once": games, "seconds": seconds, "think": think,
            **measured(state, seconds)}


def measured(state: Load, seconds: float) -> dict:
    """What the bots of a run of ``seconds`` measured, as the load and ladder reports give
    it: the games, the actions, the ack and update percentiles (ms), the errors."""
    return {"games_started": state.games, "games_finished": state.finished,
            "actions": state.actions,
            "actions_per_second": round(state.actions / seconds, 1),
            "ack_ms": _percentiles_ms(state.ack),
            "update_ms": {**_percentiles_ms(state.update), "count": len(state.update)},
            "errors": sum(state.error_count.values()),
            "errors_by_kind": dict(state.error_count), "error_samples": state.errors}


def _percentiles_ms(values: list[float]) -> dict[str, float | None]:
    """The p50, p95, p99 and max of ``values`` (seconds), in milliseconds."""
    found = {name: percentile(values, share)
             for name, share in (("p50", 0.5), ("p95", 0.95), ("p99", 0.99), ("max", 1.0))}
    return {name: None if value is None else round(value * 1000, 1)
            for name, value in found.items()}


async def _settled(pids: list[int], window: float = 0.5, share: float = 0.1) -> None:
    """Wait (at most START_WAIT) until the servers use under ``share`` of a core over
    ``window`` seconds: their warm-up threads load (after an upgrade, compile) every
    game's kernels after start-up, seconds of CPU that are not the load's."""
    deadline = time.monotonic() + START_WAIT
    while time.monotonic() < deadline:
        before = [cpu_seconds(pid) for pid in pids]
        await asyncio.sleep(window)
        after = [cpu_seconds(pid) for pid in pids]
        if None in before or None in after:
            return
        if sum(after) - sum(before) < share * window * len(pids) and \
                not any(runnable(pid) for pid in pids):               # type: ignore
            return


def runnable(pid: int) -> bool:
    """Whether a thread of process ``pid`` is running or waiting for a core (state R):
    on a busy machine a process that wants the CPU may get little of it, and is not
    idle for that (Linux only; False where /proc cannot say)."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return False
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/stat") as stat:
                if stat.read().rsplit(")", 1)[1].split()[0] == "R":
                    return True
        except (OSError, IndexError):
            continue
    return False


async def _first_game(client, url: str, spec: str) -> None:
    """Create a game of ``spec`` on server ``url`` and play its first move (not measured:
    the server loads, or compiles, the game's kernels when they are first used)."""
    _, connect, _ = _libraries()
    response = await client.post(url + "api/games",
                                 json={"spec": spec, "seats": ["human", "human"],
                                       "hotseat": True})
    if response.status_code != 201:
        raise SoakError(f"create: {response.status_code} {response.text[:200]}")
    link = response.json()["seats"][0]["link"]
    async with connect(_ws(url) + "ws/" + link.split("/ws/", 1)[1],
                       open_timeout=START_WAIT) as ws:
        while True:
            message = json.loads(await asyncio.wait_for(ws.recv(), START_WAIT))
            if message["type"] == "sync":
                view = message["view"]
                if view["terminal"]:
                    return
                await ws.send(json.dumps({"type": "action", "seat": message["seat"],
                                          "move": view["legal"][0],
                                          "version": message["version"], "key": "first"}))
            elif message["type"] in ("ack", "error"):
                return


def load(spec: str, games: int = 200, seconds: float = 180, db: str | None = None,
         seed: int | None = None, think: float = DEFAULT_THINK, out=None,
         processes: int = 1) -> dict:
    """Run the load benchmark; return its report (see the module's docstring)."""
    check_processes(processes, db)
    _libraries()
    out = out or sys.stdout
    seed = random.randrange(2 ** 31) if seed is None else seed
    with workspace(db) as (folder, url):
        folders = [folder] if processes == 1 else [folder / f"serve{n}"
                                                   for n in range(processes)]
        if processes > 1:
            for path in folders:
                path.mkdir()
        report = run_servers(folders, url, lambda bases, pids: _load(
            bases, spec, games, seconds, seed, think, out, pids))
    report["processes"] = processes
    return conclude(report, url, seed)


def run_servers(folders: list[Path], url: str,
                measure: Callable[[list[str], list[int]], Coroutine[Any, Any, dict]]) -> dict:
    """Start a `boardlab serve` (no create limit) in each of ``folders`` on database
    ``url``, run ``measure(bases, pids)`` (its report has ``cpu_before`` and ``cpu_after``,
    a reading a server) and close the servers however it ends; return its report with the
    servers' last logged lines, their peak memory (a figure; a list where there are
    several) and the CPU time they used between the two readings, in all and per action."""
    servers = [ServerProcess(path, url, NO_CREATE_LIMIT) for path in folders]
    try:
        bases = [server.start() for server in servers]
        pids = [server.process.pid for server in servers if server.process]
        report = asyncio.run(measure(bases, pids))
        rss = [_mib(peak_rss(pid)) for pid in pids]
    finally:
        for server in servers:
            server.close()
    report["server_log"] = [line for path in folders for line in server_log(path)]
    report["server_peak_rss_mib"] = rss[0] if len(rss) == 1 else rss
    cpus = [_used(after, before)
            for after, before in zip(report.pop("cpu_after"), report.pop("cpu_before"))]
    cpu = None if None in cpus else sum(cpus)
    report["server_cpu_seconds"] = None if cpu is None else round(cpu, 1)
    report["server_cpu_ms_per_action"] = None if cpu is None or not report["actions"] \
        else round(cpu * 1000 / report["actions"], 2)
    return report


def conclude(report: dict, url: str, seed: int, games_at_once: int | None = None) -> dict:
    """Finish a load or ladder report: its database, its seed, its target (ack and update
    p95 under :data:`TARGET_P95`, no error; with ``games_at_once``, that many games at once
    reached too), whether it was met, and ``ok`` (no error, some action)."""
    report["database"] = "postgresql" if url.startswith("postgresql") else "sqlite"
    report["seed"] = seed
    p95 = [report["ack_ms"]["p95"], report["update_ms"]["p95"]]
    report["target"] = f"p95 < {TARGET_P95 * 1000:.0f} ms, 0 errors"
    met = report["errors"] == 0 and None not in p95 and max(p95) < TARGET_P95 * 1000
    if games_at_once is not None:
        report["target"] = f"{games_at_once} games at once, " + report["target"]
        met = met and report["games_at_once_reached"] >= games_at_once
    report["target_met"] = met
    report["ok"] = report["errors"] == 0 and report["actions"] > 0
    return report


def server_log(folder, lines: int = 20) -> list[str]:
    """The last ``lines`` lines the server wrote to stderr (its logged errors)."""
    found = []
    for path in sorted(folder.glob("serve-*.err")):
        found += path.read_text(errors="replace").splitlines()
    return found[-lines:]


def _used(now: float | None, before: float | None) -> float | None:
    """The CPU seconds a server used since ``before`` (None when either is unknown)."""
    return None if now is None or before is None else now - before


def _mib(kib: int | None) -> float | None:
    return None if kib is None else round(kib / 1024, 1)
