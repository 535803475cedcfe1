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
import shlex
import signal
import subprocess
import threading
import time

from ..core.errors import BoardlabError, IllegalMoveError, NotationError, OptionError
from ..core.options import Option
from .base import Agent, register_agent
from .search_state import state_from_view

PROTOCOL = 1
MAX_LINE = 64 * 1024
_LIVE: set["EngineProcess"] = set()


class EngineFailure(BoardlabError):
    """The engine broke the protocol; ``kind`` is crash, timeout, garbage or illegal."""

    def __init__(self, kind: str, detail: str):
        super().__init__(f"{kind}: {detail}")
        self.kind, self.detail = kind, detail


class EngineProcess:
    """A child process in its own process group, read line by line with deadlines."""

    def __init__(self, argv: list[str], log_path: str | None = None):
        self.log = open(log_path, "a", encoding="utf-8") if log_path else None
        try:
            self.proc = subprocess.Popen(
                argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=self.log or subprocess.DEVNULL, start_new_session=True)
        except OSError as error:
            self._close_log()
            raise EngineFailure("crash", f"cannot start {argv[0]!r}: "
                                f"{error.strerror or error}") from None
        _LIVE.add(self)
        self.lines: queue.Queue = queue.Queue(maxsize=1000)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        """Reader thread: complete lines (or None at end of output) into the queue."""
        stream = self.proc.stdout
        try:
            while True:
                raw = stream.readline(MAX_LINE + 1)
                if not raw:
                    break
                self.lines.put(raw)
        except (OSError, ValueError):
            pass
        self.lines.put(None)

    def send(self, line: str) -> None:
        self._log("> " + line)
        try:
            self.proc.stdin.write((line + "\n").encode("utf-8"))
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            raise EngineFailure("crash", self._exit_text()) from None

    def receive(self, deadline: float) -> str:
        """The next non-empty line before ``deadline`` (time.monotonic)."""
        while True:
            try:
                raw = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise EngineFailure("timeout", "no answer in time") from None
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
        return f"exited with code {code}" if code >= 0 else f"killed by signal {-code}"

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
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                stream.close()
            except OSError:
                pass
        self._close_log()
        _LIVE.discard(self)


@atexit.register
def _kill_all() -> None:
    for engine in list(_LIVE):
        engine.kill()


@register_agent
class EngineAgent(Agent):
    """An external program playing through the line protocol (docs/engine-protocol.md)."""

    name = "engine"
    description = ("an external program (any language) speaking the boardlab engine "
                   "protocol: engine(cmd=./my_engine --flag)")
    declared_options = (
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
        self.process: EngineProcess | None = None
        self.sent = 0
        self.engine_name = os.path.basename(self.argv[0])

    # The protocol ----------------------------------------------------------------------
    def act(self, view: dict, budget: dict | None = None) -> int:
        if self.process is None:
            self._start(view)
        history = view["history"]
        for text in history[self.sent:]:
            self.process.send(f"played {text}")
        self.sent = len(history)
        texts = self._legal_texts(view)
        self.process.send("view " + json.dumps(view, separators=(",", ":")))
        self.process.send("legal " + " | ".join(texts))
        seconds = self._go(budget or {})
        return self._answer(texts, view["legal_actions"], seconds)

    def _start(self, view: dict) -> None:
        self.process = EngineProcess(self.argv, self.options["log"] or None)
        self.process.send(f"boardlab {PROTOCOL}")
        deadline = time.monotonic() + self.options["startup"]
        while True:
            words = self.process.receive(deadline).split(maxsplit=2)
            if words[0] == "ok":
                break
            if words[0] == "id" and len(words) == 3:
                if words[1] == "name":
                    self.engine_name = words[2]
                continue
            raise EngineFailure("garbage", f"expected 'ok {PROTOCOL}', got {' '.join(words)!r}")
        if words[1:] != [str(PROTOCOL)]:
            raise EngineFailure("garbage", f"the engine speaks protocol {' '.join(words[1:])!r}"
                                f", not {PROTOCOL}")
        names = self.game.seat_names
        self.process.send(f"newgame {view.get('spec', self.game.spec)}")
        self.process.send("seats " + " ".join(names))
        self.process.send(f"seat {names[self.seat]}")

    def _go(self, budget: dict) -> float:
        """Send ``go``; return the seconds the engine has for this move."""
        if budget.get("clock") is not None:
            clock = max(0.0, budget["clock"])
            self.process.send(f"go clock {round(clock * 1000)} inc "
                              f"{round(budget.get('increment', 0) * 1000)}")
            return clock
        seconds = budget.get("time") or self.options["time"]
        self.process.send(f"go movetime {round(seconds * 1000)}")
        return seconds

    def _answer(self, texts: list[str], legal: list[int], seconds: float) -> int:
        deadline = time.monotonic() + seconds + self.options["grace"]
        while True:
            line = self.process.receive(deadline)
            word, _, rest = line.partition(" ")
            if word == "info":
                continue
            if word != "move" or not rest.strip():
                raise EngineFailure("garbage", f"expected 'move ...', got {line[:200]!r}")
            return self._parse_move(rest.strip(), texts, legal)

    def _parse_move(self, text: str, texts: list[str], legal: list[int]) -> int:
        if text in texts:
            return legal[texts.index(text)]
        try:
            action = self._scratch.string_to_action(text)
        except (NotationError, IllegalMoveError) as error:
            raise EngineFailure("illegal", f"move {text!r}: {error}") from None
        if action not in legal:
            raise EngineFailure("illegal", f"move {text!r} is not legal here")
        return action

    def _legal_texts(self, view: dict) -> list[str]:
        """The legal moves in notation, from a state consistent with the view."""
        self._scratch = state_from_view(self.game, view, self.rng)
        return [self._scratch.action_to_string(a) for a in view["legal_actions"]]

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
