"""External engines: any program speaking the boardlab engine protocol.

The protocol (version 1) is documented in ``docs/engine-protocol.md``. One
process is started per agent (that is, per seat and game) in a process group
of its own, so that :meth:`EngineAgent.close` can kill it together with any
children. Whatever goes wrong on the engine's side (a crash, a hang, a line
that is not part of the protocol, an illegal move) raises
:class:`EngineFailure`, which the match runner turns into a forfeit.
"""
from __future__ import annotations

import atexit
import json
import os
import queue
import select
import shlex
import shutil
import signal
import subprocess
import threading
import time

from ..core.errors import BoardlabError, IllegalMoveError, NotationError, OptionError
from ..core.options import Option
from ..core.view import Budget, View
from .base import Agent, register_agent
from .search_state import state_from_view

PROTOCOL = 1
MAX_LINE = 64 * 1024
MAX_BUFFER = 4 * 1024 * 1024   # bytes of output an engine may leave unread
POLL = 0.05                    # seconds between the pipe threads' checks for a kill
OVERFLOW = b"\0overflow"       # queued once MAX_BUFFER is passed (never a real line)
EXIT_GRACE = 0.4               # seconds to read what an engine wrote before it exited
_LIVE: set[EngineProcess] = set()


class EngineFailure(BoardlabError):
    """The engine broke the protocol; ``kind`` is crash, timeout, garbage or illegal."""

    def __init__(self, kind: str, detail: str):
        super().__init__(f"{kind}: {detail}")
        self.kind, self.detail = kind, detail


def _find_prctl():
    """libc's prctl, looked up in the runner (not in a forked child); None off Linux."""
    try:
        import ctypes
        return ctypes.CDLL("libc.so.6", use_errno=True).prctl
    except (OSError, AttributeError):
        return None


_PRCTL = _find_prctl()


def _die_with_parent() -> None:
    """In the child before exec: SIGKILL when the runner dies (Linux; elsewhere a no-op)."""
    if _PRCTL is not None:
        _PRCTL(1, signal.SIGKILL)                                  # PR_SET_PDEATHSIG


class EngineProcess:
    """A child process in its own process group, talked to through two pipe threads.

    Writing never blocks the runner (an engine that stops reading cannot stall
    it), and reading waits for at most a deadline. Both threads poll their pipe
    instead of blocking in it, so :meth:`kill` can always stop them, even when a
    child the engine left behind holds the pipes open. Unread output is kept up
    to ``MAX_BUFFER`` bytes: past that, ``info`` lines are dropped and any other
    line makes the engine forfeit (``garbage``).
    """

    def __init__(self, argv: list[str], log_path: str | None = None):
        self.log = open(log_path, "a", encoding="utf-8") if log_path else None
        try:
            self.proc = subprocess.Popen(
                argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=self.log or subprocess.DEVNULL, start_new_session=True,
                preexec_fn=_die_with_parent)
        except OSError as error:
            self._close_log()
            raise EngineFailure("crash", f"cannot start {argv[0]!r}: "
                                f"{error.strerror or error}") from None
        _LIVE.add(self)
        self.closed = threading.Event()
        self.lines: queue.Queue = queue.Queue()
        self.outbox: queue.Queue = queue.Queue()
        self.buffered, self.overflow, self.count_lock = 0, False, threading.Lock()
        self.threads = [threading.Thread(target=self._read, daemon=True),
                        threading.Thread(target=self._write, daemon=True)]
        for thread in self.threads:
            thread.start()

    def _read(self) -> None:
        """Reader thread: the output cut into lines (or None at its end) into ``lines``."""
        stdout = self.proc.stdout
        assert stdout is not None                    # opened as a pipe
        fd, rest = stdout.fileno(), b""
        poller = select.poll()
        poller.register(fd, select.POLLIN | select.POLLHUP | select.POLLERR)
        try:
            while not self.closed.is_set():
                if not poller.poll(POLL * 1000):
                    continue
                chunk = os.read(fd, 65536)
                if not chunk:
                    break
                rest = self._queue_lines(rest + chunk)
        except (OSError, ValueError):
            pass
        if rest:
            self._put(rest)
        self.lines.put(None)

    def _queue_lines(self, data: bytes) -> bytes:
        """Queue the complete lines of ``data`` (one longer than MAX_LINE is cut, and
        :meth:`receive` rejects it); return the unfinished rest."""
        start = 0
        while True:
            cut = data.find(b"\n", start, start + MAX_LINE + 1)
            if cut < 0:
                if len(data) - start <= MAX_LINE:
                    return data[start:]
                cut = start + MAX_LINE
            self._put(data[start:cut + 1])
            start = cut + 1

    def _put(self, raw: bytes) -> None:
        with self.count_lock:
            if self.overflow:
                return
            if self.buffered + len(raw) > MAX_BUFFER:
                if raw.startswith(b"info"):
                    return                               # optional chatter: dropped
                self.overflow = True
                raw = OVERFLOW
            else:
                self.buffered += len(raw)
        self.lines.put(raw)

    def _take(self, timeout: float):
        """The next queued line (None at the end of output) within ``timeout`` seconds
        (0: only one already queued); queue.Empty if none comes."""
        raw = self.lines.get(timeout=timeout) if timeout > 0 else self.lines.get_nowait()
        if raw is OVERFLOW:
            raise EngineFailure("garbage", f"more than {MAX_BUFFER} bytes of output were "
                                f"waiting to be read")
        if raw is not None:
            with self.count_lock:
                self.buffered -= len(raw)
        return raw

    def _write(self) -> None:
        """Writer thread: lines from ``outbox`` to the engine's stdin, until None."""
        stdin = self.proc.stdin
        assert stdin is not None                     # opened as a pipe
        fd = stdin.fileno()
        poller = select.poll()
        poller.register(fd, select.POLLOUT)
        try:
            os.set_blocking(fd, False)
            for line in iter(self.outbox.get, None):
                data = memoryview(line)
                while data and not self.closed.is_set():
                    if poller.poll(POLL * 1000):
                        try:
                            data = data[os.write(fd, data):]
                        except BlockingIOError:
                            pass
        except (OSError, ValueError):
            pass

    def send(self, line: str) -> None:
        if self.proc.poll() is not None:
            raise EngineFailure("crash", self._exit_text())
        self._log("> " + line)
        self.outbox.put((line + "\n").encode("utf-8"))

    def pending_line(self) -> str | None:
        """A line the engine wrote without being asked (checked before ``go``)."""
        while True:
            try:
                raw = self._take(0)
            except queue.Empty:
                return None
            if raw is None:
                self.lines.put(None)
                return None
            line = raw.decode("utf-8", "replace").strip()
            self._log("< " + line)
            if line and not line.startswith("info"):
                return line

    def receive(self, deadline: float) -> str:
        """The next non-empty line before ``deadline`` (time.monotonic).

        An engine that has exited and left nothing more to read has crashed,
        even if a child it left behind keeps its output open.
        """
        exited = None
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise EngineFailure("timeout", "no answer in time")
            try:
                raw = self._take(min(left, 4 * POLL))       # then look whether it exited
            except queue.Empty:
                if self.proc.poll() is None:
                    continue
                exited = exited or time.monotonic()
                if time.monotonic() - exited < EXIT_GRACE:     # output still in the pipe
                    continue
                raw = None
            if raw is None:
                raise EngineFailure("crash", self._exit_text())
            if len(raw) > MAX_LINE:
                raise EngineFailure("garbage", f"a line longer than {MAX_LINE} bytes")
            line = raw.decode("utf-8", "replace").rstrip("\r\n")
            self._log("< " + line)
            if line.strip():
                return line

    def _exit_text(self) -> str:
        try:
            code = self.proc.wait(timeout=1)
        except subprocess.TimeoutExpired:
            return "closed its output"
        text = f"exited with code {code}" if code >= 0 else f"killed by signal {-code}"
        return text if self.log else text + " (engine(log=FILE) keeps its stderr)"

    def _log(self, text: str) -> None:
        if self.log:
            self.log.write(text + "\n")
            self.log.flush()

    def _close_log(self) -> None:
        if self.log:
            self.log.close()
            self.log = None

    def kill(self) -> None:
        """Kill the whole process group and reap the process (idempotent)."""
        self.closed.set()
        self.outbox.put(None)
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        for thread in self.threads:
            if thread is not threading.current_thread():
                thread.join(timeout=10 * POLL)
        if not any(thread.is_alive() for thread in self.threads):
            for stream in (self.proc.stdin, self.proc.stdout):
                try:
                    if stream is not None:
                        stream.close()
                except OSError:
                    pass
        self._close_log()
        _LIVE.discard(self)


@atexit.register
def _kill_all() -> None:
    for engine in list(_LIVE):
        engine.kill()


def check_program(program: str) -> None:
    """An OptionError now, rather than a forfeit in every game, for a missing program."""
    found = os.path.isfile(program) and os.access(program, os.X_OK) if os.sep in program \
        else shutil.which(program)
    if not found:
        where = "is not an executable file" if os.sep in program else "is not on the PATH"
        raise OptionError(f"agent 'engine': cannot run {program!r}: it {where}")


def _check_log(path: str) -> None:
    folder = os.path.dirname(os.path.abspath(path)) if path else None
    if folder and not os.path.isdir(folder):
        raise OptionError(f"agent 'engine': log: the folder {folder!r} does not exist")
    if folder and (os.path.isdir(path) or not os.access(path if os.path.exists(path)
                                                          else folder, os.W_OK)):
        raise OptionError(f"agent 'engine': log: cannot write {path!r}")


@register_agent
class EngineAgent(Agent):
    """An external program playing through the line protocol (docs/engine-protocol.md)."""

    name = "engine"
    description = ("an external program (any language) speaking the boardlab engine "
                   "protocol: engine(cmd=./my_engine --flag)")
    declared_options: tuple[Option, ...] = (
        Option("cmd", str, "", "the command line that starts the engine (split like a "
               "shell line, no shell runs it)"),
        Option("time", float, 1.0, "seconds per move when the runner gives no budget",
               minimum=0.001),
        Option("grace", float, 0.5, "extra seconds allowed for an answer to arrive",
               minimum=0.0),
        Option("startup", float, 10.0, "seconds allowed for the handshake", minimum=0.1),
        Option("log", str, "", "append the engine's stderr and the dialogue to this file"),
    )

    def __init__(self, game, seat, seed=None, **options):
        super().__init__(game, seat, seed=seed, **options)
        try:
            self.argv = shlex.split(self.options["cmd"])
        except ValueError as error:
            raise OptionError(f"agent 'engine': cmd: {error}") from None
        if not self.argv:
            raise OptionError("agent 'engine' needs a command: engine(cmd=./my_engine)")
        check_program(self.argv[0])
        _check_log(self.options["log"])
        self.process: EngineProcess | None = None
        self.sent = 0
        self.last_think: float | None = None     # seconds from ``go`` to the answer
        self.time_tolerance = self.options["grace"]   # the runner holds engines to a clock

    @property
    def _engine(self) -> EngineProcess:
        """The engine's process, started by the first :meth:`act`."""
        if self.process is None:
            raise BoardlabError(f"agent {self.name!r}: the engine was not started")
        return self.process

    # The protocol ----------------------------------------------------------------------
    def act(self, view: View, budget: Budget | None = None) -> int:
        if self.process is None:
            self._start(view)
        self._send_history(view["history"])
        scratch = state_from_view(self.game, view, self.rng)
        texts = [scratch.action_to_string(a) for a in view["legal_actions"]]
        self._engine.send("view " + json.dumps(view, separators=(",", ":")))
        self._engine.send("legal " + " | ".join(texts))
        unasked = self._engine.pending_line()
        if unasked is not None:
            raise EngineFailure("garbage", f"wrote {unasked[:200]!r} without being asked")
        asked = time.monotonic()
        seconds = self._go(budget or {})
        action = self._answer(scratch, texts, view["legal_actions"], seconds)
        self.last_think = time.monotonic() - asked
        return action

    def _send_history(self, history: list[str]) -> None:
        """``played`` lines for the new actions, up to the first still hidden (``seat:?``).

        A team mate's pending choice in simultaneous play is revealed later; it is
        sent then, in its final form.
        """
        end = next((i for i in range(self.sent, len(history))
                    if history[i].endswith(":?")), len(history))
        for text in history[self.sent:end]:
            self._engine.send(f"played {text}")
        self.sent = end

    def _start(self, view: View) -> None:
        self.process = EngineProcess(self.argv, self.options["log"] or None)
        self._engine.send(f"boardlab {PROTOCOL}")
        deadline = time.monotonic() + self.options["startup"]
        while True:
            words = self._engine.receive(deadline).split(maxsplit=2)
            if words[0] == "ok":
                break
            if words[0] == "id":                   # name, author: free text, not used
                continue
            raise EngineFailure("garbage", f"expected 'ok {PROTOCOL}', got {' '.join(words)!r}")
        if words[1:] != [str(PROTOCOL)]:
            raise EngineFailure("garbage", f"the engine speaks protocol {' '.join(words[1:])!r}"
                                f", not {PROTOCOL}")
        names = self.game.seat_names
        self._engine.send(f"newgame {view.get('spec', self.game.spec)}")
        self._engine.send("seats " + " ".join(names))
        self._engine.send(f"seat {names[self.seat]}")

    def _go(self, budget: Budget) -> float:
        """Send ``go``; return the seconds the engine has for this move."""
        if budget.get("clock") is not None:
            clock = max(0.0, budget["clock"])
            self._engine.send(f"go clock {round(clock * 1000)} inc "
                              f"{round(budget.get('increment', 0) * 1000)}")
            return clock
        seconds = budget.get("time") or self.options["time"]
        self._engine.send(f"go movetime {round(seconds * 1000)}")
        return seconds

    def _answer(self, scratch, texts: list[str], legal: list[int], seconds: float) -> int:
        deadline = time.monotonic() + seconds + self.options["grace"]
        while True:
            line = self._engine.receive(deadline)
            word, _, rest = line.partition(" ")
            if word == "info":
                continue
            if word != "move" or not rest.strip():
                self._unexpected(line)
            return self._parse_move(scratch, rest.strip(), texts, legal)

    def _unexpected(self, line: str) -> None:
        """A line other than ``info`` or ``move`` after ``go``: garbage."""
        raise EngineFailure("garbage", f"expected 'move ...', got {line[:200]!r}")

    def _parse_move(self, scratch, text: str, texts: list[str], legal: list[int]) -> int:
        if text in texts:
            return legal[texts.index(text)]
        try:
            action = scratch.string_to_action(text)
        except (NotationError, IllegalMoveError) as error:
            raise EngineFailure("illegal", f"move {text!r}: {error}") from None
        if action not in legal:
            raise EngineFailure("illegal", f"move {text!r} is not legal here")
        return action

    def close(self, returns: list[float] | None = None) -> None:
        """Tell the engine the result (if it is still healthy) and kill its process group."""
        process, self.process = self.process, None
        if process is None:
            return
        try:
            if returns is not None:
                process.send("gameover " + " ".join(f"{r:g}" for r in returns))
            process.send("quit")
            process.proc.wait(timeout=0.5)
        except (EngineFailure, subprocess.TimeoutExpired):
            pass
        process.kill()
