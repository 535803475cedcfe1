"""A throw-away PostgreSQL server for the tests: initdb in a temporary folder, then start.

Needs the server binaries (Debian's ``postgresql`` package; ``.ci/run`` installs it).
PostgreSQL refuses to run as root, so as root the server runs as the ``postgres`` user.
"""
from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from contextlib import contextmanager


def find_binaries() -> str | None:
    """The folder holding initdb and pg_ctl, or None."""
    initdb = shutil.which("initdb")
    if initdb:
        return os.path.dirname(os.path.realpath(initdb))
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    return os.path.dirname(found[-1]) if found else None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class PostgresServer:
    """Start with :meth:`start`, get ``url``, stop with :meth:`stop`."""

    def __init__(self, root: str, bindir: str):
        self.root, self.bindir = root, bindir
        self.data = os.path.join(root, "data")
        self.port = _free_port()
        self.user = None
        if os.geteuid() == 0:
            self.user = pwd.getpwnam("postgres")

    def _run(self, *argv, check=True):
        argv = [os.path.join(self.bindir, argv[0]), *argv[1:]]
        if self.user is not None:
            argv = ["runuser", "-u", "postgres", "--", *argv]
        return subprocess.run(argv, check=check, capture_output=True, text=True, timeout=120)

    def start(self) -> PostgresServer:
        os.makedirs(self.data, exist_ok=True)
        if self.user is not None:
            os.chmod(self.root, 0o755)
            for path in (self.root, self.data):
                os.chown(path, self.user.pw_uid, self.user.pw_gid)
        self._run("initdb", "-D", self.data, "-A", "trust", "-U", "boardlab", "--no-sync")
        self._run("pg_ctl", "-D", self.data, "-w", "-t", "60", "-l",
                  os.path.join(self.data, "server.log"), "-o",
                  f"-p {self.port} -k {self.data} -c listen_addresses=127.0.0.1 -F", "start")
        self._wait()
        return self

    def _wait(self) -> None:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", self.port)) == 0:
                    return
            time.sleep(0.1)
        raise RuntimeError("PostgreSQL did not start")

    @property
    def url(self) -> str:
        return f"postgresql://boardlab@127.0.0.1:{self.port}/postgres"

    def stop(self) -> None:
        self._run("pg_ctl", "-D", self.data, "-m", "immediate", "stop", check=False)


@contextmanager
def throwaway_postgres():
    """A PostgreSQL server of its own for a test module (skips when none is installed)."""
    import pytest
    bindir = find_binaries()
    if bindir is None:
        pytest.skip("PostgreSQL server binaries are not installed (.ci/run installs them)")
    root = tempfile.mkdtemp(prefix="boardlab-pg-", dir="/tmp")
    server = PostgresServer(root, bindir).start()
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(root, ignore_errors=True)


@contextmanager
def server_processes(postgres: PostgresServer, tmp_path_factory, limits: dict | None = None,
                     count: int = 2):
    """``count`` `boardlab serve` processes (boardlab.checks.soak.ServerProcess, with flood
    ``limits``) sharing ``postgres``'s database, each in a folder of its own, started (their
    URLs in ``.url``); killed however the block ends."""
    from boardlab.arena.storage import database_url
    from boardlab.checks.soak import ServerProcess
    db = database_url(postgres.url)
    servers = [ServerProcess(tmp_path_factory.mktemp(f"serve{n}"), db, limits)
               for n in range(count)]
    try:
        for server in servers:
            server.start()
        yield servers
    finally:
        for server in servers:
            server.kill()
