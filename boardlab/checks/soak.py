"""Soak checks of a real `boardlab serve`: durability under SIGKILL, and racing actions.

``boardlab soak durability`` plays games between bot clients (two WebSocket clients per
game, random legal moves) against a `boardlab serve` child process, kills the server with
SIGKILL at random moments (each after a random play time and at least one more
acknowledged action) and starts it again on the same database (and port) many times.
After each restart, every action a client got an ``ack`` for must be in its game's log at
the version the ack named, the server must show the same history, and every log must
replay. An action whose ack was lost at a kill may be in the log ("committed but
unacknowledged", which *committed before acknowledged* allows); an acknowledged action
missing, or a log that does not replay, is a failure.

``boardlab soak concurrency`` runs one server and, in each trial, sends two different legal
actions for the same seat at the same version on two connections holding the same token,
at (nearly) the same moment: exactly one must be accepted.

With ``--processes 2 --db postgresql://...`` both run two `boardlab serve` processes on one
PostgreSQL database (see docs/server-protocol.md, "Several server processes"). Durability:
the two seats of a game start on different servers (a client whose server is down goes to
the other); each restart kills one server in turn, every fourth both. A ``stale_version``
answer is allowed there (a client reconnected to a server that learns of the other's commit
a few milliseconds later; it syncs and chooses again) and counted, never an error with one
server. Concurrency: the two racing connections go to different servers.

Both run only on 127.0.0.1, are bounded in time (every wait has a timeout), and always kill
the server's process group and remove their temporary folder (on success, failure, Ctrl-C).
"""
from __future__ import annotations

import asyncio
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from contextlib import contextmanager
from pathlib import Path

import boardlab
from boardlab.core.driver import GameDriver

from ..core.errors import BoardlabError

HOST = "127.0.0.1"
#: no create limit (a check makes games fast from one address); frames stay limited
NO_CREATE_LIMIT = {"creates_per_minute": None}
#: no flood limit at all (the durability and concurrency soaks test other promises)
NO_LIMITS = {"frames_per_second": None, "chat_messages": None, "creates_per_minute": None}
START_WAIT = 120.0            # seconds for a server to print its URL (a loaded machine)
WAIT = 60.0                   # seconds for any one network answer: only bounds a stuck run
#: seconds an idle pooled HTTP connection is reused: under the server's keep-alive (uvicorn
#: closes an idle one after 5 s), so a request never goes out on a connection the server is
#: closing (httpx then reads "Server disconnected without sending a response")
KEEPALIVE = 2.0


def http_limits(connections: int = 100):
    """httpx's pool limits for the checks' clients (see :data:`KEEPALIVE`)."""
    httpx, _, _ = _libraries()
    return httpx.Limits(max_connections=connections, max_keepalive_connections=connections,
                        keepalive_expiry=KEEPALIVE)


class SoakError(BoardlabError):
    """The soak could not run (a server that does not start, no client library)."""


# The server as a child process -------------------------------------------------------------
class ServerProcess:
    """`boardlab serve` in its own process group, on 127.0.0.1, with output to files.

    ``limits`` (a dict of :class:`~boardlab.server.clients.Limits` fields, or None for the
    defaults) runs the same server with other flood limits, through this module's own
    ``serve`` entry point: the checks create games far faster than the 30 a minute one
    address may, and the durability and concurrency soaks send frames faster than a
    person would.
    """

    def __init__(self, folder: Path, db: str, limits: dict | None = None):
        self.folder, self.db, self.limits = folder, db, limits
        self.process: subprocess.Popen | None = None
        self.port = 0
        self.url = ""
        self.starts = 0
        self.closed = False             # set by close(): no more starts, from any thread
        self._lock = threading.Lock()   # start() may run in a worker thread

    def start(self) -> str:
        """Start it (on the last port when there was one, else any); return its http URL."""
        ports = [self.port, 0] if self.port else [0]
        last = ""
        for port in ports:
            try:
                return self._start(port)
            except SoakError as error:
                last = str(error)
        raise SoakError(last)

    def _start(self, port: int) -> str:
        self.starts += 1
        out = self.folder / f"serve-{self.starts}.out"
        err = self.folder / f"serve-{self.starts}.err"
        command = [sys.executable, "-m", "boardlab.cli", "serve", "--host", HOST,
                   "--port", str(port), "--db", self.db]
        if self.limits is not None:
            command = [sys.executable, "-m", "boardlab.checks.soak", "serve", HOST,
                       str(port), self.db, json.dumps(self.limits)]
        with self._lock:
            if self.closed:
                raise SoakError("the soak is stopping")
            with open(out, "w") as stdout, open(err, "w") as stderr:
                process = subprocess.Popen(command, stdout=stdout, stderr=stderr,
                                           stdin=subprocess.DEVNULL, cwd=self.folder,
                                           start_new_session=True)
                self.process = process
        deadline = time.monotonic() + START_WAIT
        while time.monotonic() < deadline:
            if self.closed:                 # close() killed it while it started
                raise SoakError("the soak is stopping")
            line = out.read_text().split("\n")[0] if out.exists() else ""
            if line.startswith("boardlab server: open http://") and "(" in line:
                self.url = line.split("open ")[1].split()[0]
                self.port = int(self.url.rsplit(":", 1)[1].strip("/"))
                return self.url
            code = process.poll()
            if code is not None:
                message = err.read_text().strip().splitlines()
                self.kill()                 # reaps it (and any worker it left)
                raise SoakError("the server did not start: "
                                + (message[-1] if message else f"exit code {code}"))
            time.sleep(0.02)
        self.kill()
        raise SoakError(f"the server printed no URL in {START_WAIT:.0f} s")

    def close(self) -> None:
        """Kill it for good: a start running in another thread stops (and kills what it
        started)."""
        self.closed = True
        self.kill()

    def kill(self) -> None:
        """SIGKILL its whole process group (the server and any worker processes)."""
        with self._lock:
            self._kill()

    def _kill(self) -> None:
        if self.process is None:
            return
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        try:
            self.process.wait(timeout=WAIT)
        except subprocess.TimeoutExpired:
            pass
        _wait_group_gone(self.process.pid)
        self.process = None


def _wait_group_gone(group: int) -> None:
    """Wait (at most WAIT seconds) until no process of ``group`` is left: a worker that was
    in the middle of a disk write dies only when the write ends, and could still write to
    the soak's folder after the server itself was reaped."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline and _live_members(group):
        time.sleep(0.02)


def _live_members(group: int) -> bool:
    """Whether a process of ``group`` is alive (zombies waiting for a parent don't count)."""
    try:
        os.killpg(group, 0)
    except (ProcessLookupError, PermissionError):
        return False
    proc = Path("/proc")
    if not proc.is_dir():                   # pragma: no cover - not Linux: trust killpg
        return True
    for entry in proc.iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if fields[2] == str(group) and fields[0] != "Z":
                return True
    return False


@contextmanager
def workspace(db: str | None):
    """A temporary folder (removed at the end) and the database URL to use."""
    from ..arena.storage import database_url
    folder = Path(tempfile.mkdtemp(prefix="boardlab-soak-"))
    try:
        yield folder, database_url(db or str(folder / "soak.db"))
    finally:
        _remove(folder)


def _remove(folder: Path) -> None:
    """Remove ``folder``, trying again while something still writes into it (a file made
    between rmtree's listing and its rmdir would leave the folder behind)."""
    deadline = time.monotonic() + WAIT
    while folder.exists() and time.monotonic() < deadline:
        shutil.rmtree(folder, ignore_errors=True)
        if folder.exists():
            time.sleep(0.1)


def _libraries():
    try:
        import httpx
        from websockets.asyncio.client import connect
        from websockets.exceptions import WebSocketException
    except ImportError as error:            # pragma: no cover - installed with the server
        raise SoakError(f"the soak needs the server's libraries: {error}") from None
    return httpx, connect, WebSocketException


def _ws(url: str) -> str:
    return "ws://" + url.split("://", 1)[1]


# Durability --------------------------------------------------------------------------------
class Durability:
    """The state shared by the bot clients and the killer.

    ``processes`` servers share the database; ``urls[i]`` and ``up[i]`` are server i's
    URL and whether it is running. A client connects to its preferred server, or to
    another one while that one is down.
    """

    def __init__(self, spec: str, restarts: int, tables: int, seed: int, out,
                 processes: int = 1):
        self.spec, self.restarts, self.tables, self.out = spec, restarts, tables, out
        self.rng = random.Random(seed)
        self.urls = [""] * processes
        self.up = [asyncio.Event() for _ in range(processes)]
        self.sent: dict[str, tuple[str, int, str, int]] = {}   # key -> game, seat, move, version
        self.acked: dict[str, int] = {}                         # key -> version the ack named
        self.games: list[str] = []
        self.finished = 0
        self.errors: list[str] = []
        self.stopping = False
        self.checked_finished: set[str] = set()     # checked after they were over
        self.stale = 0                  # stale_version answers (two servers only)

    async def server(self, preferred: int) -> str:
        """The URL of server ``preferred`` if it is up, else of the next one up (waits
        while none is)."""
        while True:
            for n in range(len(self.urls)):
                i = (preferred + n) % len(self.urls)
                if self.up[i].is_set() or self.stopping:
                    return self.urls[i]
            await asyncio.sleep(0.02)

    def error(self, text: str) -> None:
        if len(self.errors) < 50:
            self.errors.append(text)
        else:
            self.errors[-1] = f"... and more ({text})"

    # the bot clients
    async def table(self, index: int) -> None:
        httpx, _, _ = _libraries()
        rng = random.Random(self.rng.randrange(2 ** 31))
        async with httpx.AsyncClient(timeout=WAIT, limits=http_limits()) as client:
            while not self.stopping:
                url = await self.server(index)
                try:
                    response = await client.post(url + "api/games", json={
                        "spec": self.spec, "seats": ["human", "human"]})
                except httpx.HTTPError:
                    await asyncio.sleep(0.05)
                    continue
                if response.status_code != 201:
                    self.error(f"create: {response.status_code} {response.text[:200]}")
                    await asyncio.sleep(0.5)
                    continue
                game = response.json()
                self.games.append(game["id"])
                await asyncio.gather(*(self.seat(game, s["seat"], s["token"], rng,
                                                 index + s["seat"])
                                       for s in game["seats"]))
                self.finished += not self.stopping

    async def seat(self, game: dict, seat: int, token: str, rng: random.Random,
                   preferred: int) -> None:
        """Play ``seat`` until the game is over, reconnecting after every kill (to server
        ``preferred``, or another while it is down: with two servers, the two seats of a
        game start on different ones)."""
        _, connect, WebSocketException = _libraries()
        gid, count = game["id"], 0
        while not self.stopping:
            url = await self.server(preferred)
            try:
                async with connect(f"{_ws(url)}ws/{gid}?token={token}",
                                   open_timeout=WAIT, close_timeout=1) as ws:
                    acted = None
                    while not self.stopping:
                        message = json.loads(await asyncio.wait_for(ws.recv(), WAIT))
                        kind = message["type"]
                        if kind == "ack":
                            key = message["key"]
                            self.acked[key] = message["version"]
                            if message["version"] != self.sent[key][3] + 1:
                                self.error(f"{key}: acked at version {message['version']}, "
                                           f"sent at {self.sent[key][3]}")
                            continue
                        if kind == "error":
                            if message.get("code") == "stale_version" and len(self.urls) > 1:
                                self.stale += 1     # a server a few ms behind the other's
                            else:                   # commit (see the module's docstring)
                                self.error(f"{gid} seat {seat}: {message}")
                            await ws.send(json.dumps({"type": "sync"}))
                            acted = None
                            continue
                        if kind not in ("sync", "update"):
                            continue
                        version, view = message["version"], message["view"]
                        if view["terminal"]:
                            return
                        if view["seats"][seat] in view["acting"] and acted != version:
                            acted, count = version, count + 1
                            key = f"{gid}-{seat}-{count}"
                            move = rng.choice(view["legal"])
                            self.sent[key] = (gid, seat, move, version)
                            await ws.send(json.dumps({"type": "action", "seat": seat,
                                                      "move": move, "version": version,
                                                      "key": key}))
            except (TimeoutError, OSError, WebSocketException, EOFError):
                await asyncio.sleep(0.02)       # the server was killed: reconnect once it is up

    # the checks
    def check(self, store, client, ids, url: str = "") -> dict:
        """Every acknowledged action of the games ``ids`` is in the log; the logs replay; the
        server at ``url`` (when ``client`` is given) shows the same history."""
        acked = dict(self.acked)                # snapshot before the logs are read
        by_game: dict[str, list[str]] = {}
        for key in acked:
            by_game.setdefault(self.sent[key][0], []).append(key)
        found = Counter()
        for gid in ids:
            row = store.game(gid)               # before the log: a finished game's log is whole
            if row.status != "active":
                found["finished"] += 1
                self.checked_finished.add(gid)
            log = store.log(gid)
            where = {entry.key: i for i, entry in enumerate(log)}
            for key in by_game.get(gid, []):
                _, seat, move, _ = self.sent[key]
                i = where.get(key)
                if i is None or i != acked[key] - 1 or (log[i].seat, log[i].move) != (seat, move):
                    found["missing"] += 1
                    self.error(f"acknowledged {key} ({seat} {move} -> v{acked[key]}) "
                               f"is not in the log as acknowledged (at {i})")
            for entry in log:
                if entry.key not in self.sent:
                    found["phantom"] += 1
                    self.error(f"{gid}: a logged action no client sent: {entry}")
            try:
                driver = GameDriver(boardlab.make(row.spec), seed=row.seed)
                for entry in log:
                    driver.submit(entry.seat, entry.move)
            except Exception as error:          # noqa: BLE001 - reported, not raised
                found["unreplayable"] += 1
                self.error(f"{gid}: the log does not replay: {error}")
                continue
            if client is not None:
                moves = [entry.move for entry in log]
                response = _history(client, url + f"api/games/{gid}", len(moves))
                if response.status_code != 200:
                    found["server_mismatch"] += 1
                    self.error(f"{gid}: GET {response.status_code}")
                    continue
                shown = response.json()["view"]["history"]
                n = min(len(shown), len(moves))
                if shown[:n] != moves[:n] or len(shown) < len(moves):
                    found["server_mismatch"] += 1
                    self.error(f"{gid}: the server shows {shown}, the log holds {moves}")
            found["games"] += 1
        return found


def _history(client, url: str, moves: int):
    """GET a game until it shows at least ``moves`` moves (a server learns of a move made
    through another one a few milliseconds after its commit); after WAIT seconds, the last
    answer."""
    deadline = time.monotonic() + WAIT
    while True:
        response = client.get(url)
        if response.status_code != 200 or time.monotonic() > deadline or \
                len(response.json()["view"]["history"]) >= moves:
            return response
        time.sleep(0.02)


def _ready(client, url: str) -> None:
    """Wait until the server answers the lobby (it has loaded its games)."""
    deadline = time.monotonic() + START_WAIT
    while True:
        try:
            if client.get(url + "api/games?limit=1").status_code == 200:
                return
        except Exception:                       # noqa: BLE001 - not up yet
            if time.monotonic() > deadline:
                raise SoakError(f"the server at {url} does not answer") from None
        time.sleep(0.02)


async def _progress(state: Durability, before: int, tasks: list) -> None:
    """Wait until an action more than ``before`` is acknowledged: a kill with nothing
    played since the last tests nothing (on a loaded machine the clients may need longer
    than the play time to reconnect and move). Raise a table's error, or SoakError when
    nothing is acknowledged within WAIT seconds."""
    deadline = time.monotonic() + WAIT
    while True:
        for task in tasks:
            if task.done() and task.exception():
                raise task.exception()
        if len(state.acked) > before:
            return
        if time.monotonic() > deadline:
            raise SoakError(f"no action acknowledged in {WAIT:.0f} s since the last restart")
        await asyncio.sleep(0.02)


async def _durability(state: Durability, servers: list[ServerProcess], db: str,
                      play: tuple) -> dict:
    httpx, _, _ = _libraries()
    from ..server.store import Store
    loop = asyncio.get_running_loop()

    async def start(i: int) -> None:
        state.urls[i] = await loop.run_in_executor(None, servers[i].start)
        await loop.run_in_executor(None, _ready, client, state.urls[i])
        state.up[i].set()

    store = Store(db)
    totals = Counter()
    done = 0
    started = time.monotonic()
    tasks = []
    try:
        with httpx.Client(timeout=WAIT, limits=http_limits()) as client:
            for i in range(len(servers)):
                await start(i)
            tasks = [asyncio.create_task(state.table(i)) for i in range(state.tables)]
            for done in range(1, state.restarts + 1):
                before = len(state.acked)
                await asyncio.sleep(state.rng.uniform(*play))       # play, then a kill
                await _progress(state, before, tasks)
                victims = _victims(done, len(servers))
                for i in victims:
                    state.up[i].clear()
                    servers[i].kill()
                for i in victims:
                    await start(i)
                ids = [g for g in dict.fromkeys(state.games) if g not in state.checked_finished]
                found = await loop.run_in_executor(None, state.check, store, client, ids,
                                                   state.urls[victims[0]])
                totals["missing"] += found["missing"]
                totals["phantom"] += found["phantom"]
                totals["unreplayable"] += found["unreplayable"]
                totals["server_mismatch"] += found["server_mismatch"]
                if done % 10 == 0 or done == state.restarts or found["missing"]:
                    print(f"restart {done}/{state.restarts}: {len(state.acked)} acknowledged, "
                          f"{len(state.games)} games ({state.finished} finished), missing "
                          f"{totals['missing']}, errors {len(state.errors)}, "
                          f"{time.monotonic() - started:.0f} s", file=state.out, flush=True)
    finally:
        state.stopping = True
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for server in servers:
            server.close()
    # the final check, with the servers dead: every log against everything the clients saw
    final = state.check(store, None, list(dict.fromkeys(state.games)))
    committed = {entry.key for gid in dict.fromkeys(state.games) for entry in store.log(gid)}
    store.dispose()
    unacked = [key for key in state.sent if key not in state.acked]
    ports = [server.port for server in servers]
    return {
        "processes": len(servers),
        "restarts": done,
        "server_starts": sum(server.starts for server in servers),
        "port_kept": ports[0] if len(ports) == 1 else ports,
        "games": len(set(state.games)),
        "games_finished": state.finished,
        "actions_sent": len(state.sent),
        "actions_acknowledged": len(state.acked),
        "acknowledged_missing": totals["missing"] + final["missing"],
        "committed_unacknowledged": sum(key in committed for key in unacked),
        "sent_never_committed": sum(key not in committed for key in unacked),
        "logged_actions": len(committed),
        "phantom_actions": totals["phantom"] + final["phantom"],
        "unreplayable_logs": totals["unreplayable"] + final["unreplayable"],
        "server_history_mismatches": totals["server_mismatch"],
        "stale_version_refusals": state.stale,
        "errors": list(state.errors),
        "seconds": round(time.monotonic() - started, 1),
    }


def _victims(restart: int, processes: int) -> list[int]:
    """The servers killed at restart number ``restart`` (from 1): one at a time in turn,
    and every fourth restart all of them at once (with one server: always that one)."""
    if processes == 1 or restart % 4 == 0:
        return list(range(processes))
    return [restart % processes]


def check_processes(processes: int, db: str | None) -> None:
    """Several server processes need a PostgreSQL database (SQLite is one process's)."""
    if processes < 1:
        raise SoakError("--processes must be at least 1")
    if processes > 1 and not (db or "").startswith(("postgresql://", "postgres://",
                                                     "postgresql+")):
        raise SoakError(f"--processes {processes} needs --db postgresql://...: several "
                        "server processes share one PostgreSQL database (SQLite is one "
                        "process's)")


def durability(spec: str, restarts: int = 200, games: int = 4, db: str | None = None,
               seed: int | None = None, play: tuple = (0.1, 1.5), out=None,
               processes: int = 1) -> dict:
    """Run the durability soak; return its report (see the module's docstring)."""
    check_processes(processes, db)
    _libraries()
    out = out or sys.stdout
    seed = random.randrange(2 ** 31) if seed is None else seed
    with workspace(db) as (folder, url):
        servers = _servers(folder, url, processes)
        state = Durability(spec, restarts, games, seed, out, processes)
        try:
            report = asyncio.run(_durability(state, servers, url, play))
        finally:
            for server in servers:
                server.close()
    report["seed"] = seed
    report["ok"] = (report["acknowledged_missing"] == 0 and report["phantom_actions"] == 0
                    and report["unreplayable_logs"] == 0
                    and report["server_history_mismatches"] == 0 and not report["errors"])
    return report


def _servers(folder: Path, db: str, processes: int) -> list[ServerProcess]:
    """``processes`` servers on ``db``, each with a folder of its own for its output."""
    if processes == 1:
        return [ServerProcess(folder, db, NO_LIMITS)]
    folders = [folder / f"serve{n}" for n in range(processes)]
    for path in folders:
        path.mkdir()
    return [ServerProcess(path, db, NO_LIMITS) for path in folders]


# Concurrency -------------------------------------------------------------------------------
async def _reply(ws, key: str) -> dict:
    """The ack or error for ``key`` (updates and other messages are skipped)."""
    while True:
        message = json.loads(await asyncio.wait_for(ws.recv(), WAIT))
        if message["type"] in ("ack", "error") and message.get("key") == key:
            return message


async def _next_view(ws) -> dict:
    """Ask for a sync and return it."""
    await ws.send(json.dumps({"type": "sync"}))
    while True:
        message = json.loads(await asyncio.wait_for(ws.recv(), WAIT))
        if message["type"] == "sync":
            return message


async def _view_at(ws, version: int) -> dict:
    """A sync at ``version`` or later: a server learns of a move made through another one
    a few milliseconds after its commit (LISTEN/NOTIFY). After WAIT seconds, the last."""
    deadline = time.monotonic() + WAIT
    while True:
        view = await _next_view(ws)
        if view["version"] >= version or time.monotonic() > deadline:
            return view
        await asyncio.sleep(0.01)


async def _concurrency(spec: str, urls: list[str], trials: int, seed: int, out) -> dict:
    """The trials; the two racing connections go to ``urls[0]`` and ``urls[-1]`` (two
    servers on one PostgreSQL database, or one server twice)."""
    httpx, connect, _ = _libraries()
    rng = random.Random(seed)
    accepted = Counter()
    refusals = Counter()
    failures: list[str] = []
    games = 0
    started = time.monotonic()
    trial = 0
    async with httpx.AsyncClient(timeout=WAIT, limits=http_limits()) as client:
        while trial < trials:
            response = await client.post(urls[0] + "api/games", json={
                "spec": spec, "seats": ["human", "human"], "hotseat": True})
            if response.status_code != 201:
                raise SoakError(f"create: {response.status_code} {response.text[:200]}")
            game, games = response.json(), games + 1
            link = game["seats"][0]["link"]
            elsewhere = _ws(urls[-1]) + "ws/" + link.split("/ws/", 1)[1]   # the same seat
            async with connect(link, open_timeout=WAIT) as one, \
                    connect(elsewhere, open_timeout=WAIT) as other:
                view = await _next_view(one)
                await _next_view(other)
                while trial < trials and not view["view"]["terminal"]:
                    version, legal = view["version"], view["view"]["legal"]
                    seat = view["seat"]
                    if len(legal) < 2:
                        break                   # no two different moves: a new game
                    first, second = rng.sample(legal, 2)
                    trial += 1
                    keys = (f"t{trial}-a", f"t{trial}-b")
                    frames = [json.dumps({"type": "action", "seat": seat, "move": move,
                                          "version": version, "key": key})
                              for move, key in zip((first, second), keys)]
                    await asyncio.gather(one.send(frames[0]), other.send(frames[1]))
                    replies = await asyncio.gather(_reply(one, keys[0]),
                                                   _reply(other, keys[1]))
                    acks = sum(r["type"] == "ack" for r in replies)
                    accepted[acks] += 1
                    for r in replies:
                        if r["type"] == "error":
                            refusals[r["code"]] += 1
                    view = await _view_at(one, version + acks)
                    await _view_at(other, version + acks)   # the other server caught up
                    if view["version"] != version + acks:
                        failures.append(f"trial {trial}: version {view['version']} after "
                                        f"{acks} accepted at {version}")
                    if acks != 1 and len(failures) < 50:
                        failures.append(f"trial {trial}: {acks} accepted: {replies}")
                    if trial % 100 == 0 or trial == trials:
                        print(f"trial {trial}/{trials}: accepted {dict(sorted(accepted.items()))}"
                              f", {time.monotonic() - started:.0f} s", file=out, flush=True)
    return {"trials": trial, "games": games, "accepted_histogram": dict(sorted(accepted.items())),
            "refusals": dict(refusals), "failures": failures,
            "seconds": round(time.monotonic() - started, 1)}


def concurrency(spec: str, trials: int = 1000, db: str | None = None,
                seed: int | None = None, out=None, processes: int = 1) -> dict:
    """Run the concurrency soak; return its report (see the module's docstring)."""
    check_processes(processes, db)
    _libraries()
    out = out or sys.stdout
    seed = random.randrange(2 ** 31) if seed is None else seed
    with workspace(db) as (folder, url):
        servers = _servers(folder, url, processes)
        try:
            bases = [server.start() for server in servers]
            report = asyncio.run(_concurrency(spec, bases, trials, seed, out))
        finally:
            for server in servers:
                server.close()
    report["processes"] = processes
    report["seed"] = seed
    report["ok"] = (report["accepted_histogram"] == {1: trials} and not report["failures"])
    return report


def _serve(host: str, port: str, db: str, limits: str) -> int:
    """`boardlab serve` with other flood limits (see :class:`ServerProcess`)."""
    from ..server.app import serve
    from ..server.clients import Limits
    return serve(host, int(port), db, Limits(**json.loads(limits)))


if __name__ == "__main__":                      # python -m boardlab.checks.soak serve ...
    if sys.argv[1:2] != ["serve"] or len(sys.argv) != 6:
        sys.exit("usage: python -m boardlab.checks.soak serve HOST PORT DB LIMITS_JSON")
    sys.exit(_serve(*sys.argv[2:]))
