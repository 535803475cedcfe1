"""``boardlab connect``: a line-protocol engine plays a seat of a server game.

The bridge holds a seat token and talks to the server like any client
(docs/server-protocol.md): one WebSocket at ``/ws/{game}?token=T``. Whenever
the view the server sent says that a held seat acts, the seat's ``engine``
agent (boardlab/agents/external.py, the one the arena uses) is given exactly
that view and answers with a move, which goes back as an ``action`` with the
view's version and a fresh idempotency key. The engine never sees more than
the server sent for its seat.

An engine that fails (crash, hang, garbage, illegal move) resigns the seat
(``--on-failure resign``, the default, as the arena's forfeit) or leaves it
untouched (``stop``); either way the bridge ends with exit code 1. A dropped
connection is opened again once, with a resync; an action whose ack was lost
is resent with its key, so the server applies it once. See
docs/engine-protocol.md, "Playing on a server".
"""
from __future__ import annotations

import asyncio
import json
import random
import shlex
import signal
import sys
import time
import uuid
from collections.abc import Coroutine
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit, urlunsplit

from ..agents import EngineFailure, make_agent
from ..agents.external import check_program
from ..core.errors import BoardlabError
from ..core.registry import make
from ..agents.search_state import state_from_view

MAX_MESSAGE = 32 * 1024 * 1024     # bytes of one server frame (a long game's view)
OPEN_TIMEOUT = 30.0                # seconds to open the WebSocket
RECONNECT_PAUSE = 1.0              # seconds between tries to open the socket again
RECONNECT_WINDOW = 60.0            # seconds a lost connection is tried again, then give up
MAX_DROPS = 100                    # connections lost after a sync before giving up
RETRY_PAUSE = 1.0                  # seconds before resending after a server_error
MAX_RETRIES = 3                    # server_errors in a row before giving up
#: seconds between two frames the bridge sends: under the server's flood limit of 20 a
#: second a connection (docs/server-protocol.md, "Flood limits"), which a fast engine
#: holding several seats of a team reached (CTOR: a team turn is many actions)
PACE = 0.06
ENGINE_FAILED = 1                  # exit code: the engine failed (resigned or stopped)


class ConnectError(BoardlabError):
    """The bridge cannot play: a bad URL or token, a refused or lost connection."""


def seat_url(url: str, token: str | None = None) -> str:
    """The WebSocket URL of a seat from a seat link, a game's ws/api URL and a token.

    Accepts ``ws://HOST/ws/ID?token=T`` (a seat link), ``ws://HOST/ws/ID`` or
    ``http://HOST/api/games/ID`` with ``token``; http(s) becomes ws(s).
    """
    parts = urlsplit(url.strip())
    scheme = {"ws": "ws", "wss": "wss", "http": "ws", "https": "wss"}.get(parts.scheme)
    if scheme is None or not parts.netloc:
        raise ConnectError(f"{_shown(url)!r} is not a seat link (ws://HOST/ws/GAME?token=T) "
                           f"or a game URL")
    words = [word for word in parts.path.split("/") if word]
    if len(words) >= 2 and words[-2] == "ws":
        game_id = words[-1]
    elif len(words) >= 3 and words[-3:-1] == ["api", "games"]:
        game_id = words[-1]
    else:
        raise ConnectError(f"{_shown(url)!r} names no game: give the seat link "
                           f"(ws://HOST/ws/GAME?token=T) or the game's /ws/GAME or "
                           f"/api/games/GAME URL with --seat-token")
    given = parse_qs(parts.query).get("token", [None])[0]
    if given and token and given != token:
        raise ConnectError("the URL carries another token than --seat-token")
    token = token or given
    if not token:
        raise ConnectError("a seat token is needed: give the seat link (it carries the token) "
                           "or --seat-token TOKEN")
    prefix = "/".join(words[:-3] if words[-3:-1] == ["api", "games"] else words[:-2])
    path = (f"/{prefix}" if prefix else "") + f"/ws/{game_id}"
    return urlunsplit((scheme, parts.netloc, path, urlencode({"token": token}), ""))


def _shown(url: str) -> str:
    """A URL without its token (tokens are secret: never printed)."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))


class Bridge:
    """One connection to a game, one engine agent per seat the token holds."""

    def __init__(self, url: str, command: str, seconds: float | None = None,
                 log: str | None = None, on_failure: str = "resign", out=None, err=None,
                 headers: dict[str, str] | None = None):
        if on_failure not in ("resign", "stop"):
            raise ConnectError("--on-failure is resign or stop")
        try:
            argv = shlex.split(command)
        except ValueError as error:
            raise ConnectError(f"--engine: {error}") from None
        if not argv:
            raise ConnectError("--engine needs a command line")
        check_program(argv[0])                # a typo stops here, before connecting
        self.url, self.command, self.on_failure = url, command, on_failure
        self.headers = headers              # a bot's Authorization (clients/bot.py)
        options = f",time={seconds:g}" if seconds else ""
        options += f",log={log}" if log else ""
        self.agent_spec = f"engine(cmd={command.strip()}{options})"
        self.out, self.err = out or sys.stdout, err or sys.stderr
        self.game = None
        self.agents: dict[int, object] = {}
        self.seats: tuple[int, ...] = ()
        self.version = -1
        self.latest: dict | None = None        # the newest sync/update
        self.increment = 0.0                   # the game's Fischer increment (from sync)
        self.per_move = False                  # a correspondence clock (days per move)
        self.thinking: asyncio.Task | None = None
        self.pending: dict | None = None       # the action or resign sent, not yet answered
        self.retries = 0
        self.answered = -1                     # the version the last action was chosen at
        self.failed: str | None = None         # why the engine failed
        self.result: dict | None = None
        self.sent_at = -PACE                   # when the last frame went (loop time)

    # Running ----------------------------------------------------------------------------
    async def run(self) -> int:
        """Play until the game is over; the exit code (0, or 1 when the engine failed)."""
        try:
            lost_at, drops = None, 0   # when the connection dropped; how many times
            while True:
                try:
                    await self._connection()
                    break
                except _Dropped as dropped:
                    now, drops = time.monotonic(), drops + dropped.resynced
                    if drops > MAX_DROPS:
                        raise ConnectError(f"the connection was lost {MAX_DROPS} times; "
                                           f"giving up") from None
                    if dropped.resynced or lost_at is None:
                        lost_at = now
                        self._say(f"connection lost ({dropped}): reconnecting", error=True)
                    elif now - lost_at > RECONNECT_WINDOW:
                        raise ConnectError(f"the connection was lost and could not be "
                                           f"opened again in {RECONNECT_WINDOW:g} s "
                                           f"({dropped})") from None
                    await asyncio.sleep(RECONNECT_PAUSE)
        finally:
            await self._stop_thinking()
            returns = (self.result or {}).get("returns")
            for agent in self.agents.values():
                await asyncio.to_thread(agent.close, returns)
        if self.failed:
            return ENGINE_FAILED
        return 0

    async def _connection(self) -> None:
        """One WebSocket: sync, then play until the game is over (or _Dropped)."""
        from websockets.asyncio.client import connect
        from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI
        try:
            ws = await connect(self.url, open_timeout=OPEN_TIMEOUT, max_size=MAX_MESSAGE,
                               compression=None, additional_headers=self.headers)
        except InvalidURI:
            raise ConnectError(f"bad URL: {_shown(self.url)}") from None
        except (TimeoutError, OSError, InvalidHandshake) as error:
            if self.version < 0:
                raise ConnectError(f"cannot connect to {_shown(self.url)}: "
                                   f"{error or type(error).__name__}") from None
            raise _Dropped(f"cannot connect: {error}", resynced=False) from None
        resynced = False
        try:
            async with ws:
                first = await self._receive(ws)
                if first.get("type") != "sync":           # forbidden, not_found: no retry
                    raise ConnectError(f"the server refused the connection: "
                                       f"{first.get('code')}: {first.get('message', '')}")
                await self._message(ws, first)
                resynced = True
                if self.pending is not None:          # its ack may be lost: resend, same key
                    await self._send(ws, self.pending)
                await self._play(ws)
        except ConnectionClosed as closed:
            if self.result is not None:
                return
            raise _Dropped(f"close code {closed.rcvd.code if closed.rcvd else 'none'}",
                           resynced=resynced) from None

    async def _play(self, ws) -> None:
        receiving = asyncio.ensure_future(self._receive(ws))
        try:
            while self.result is None:
                self._maybe_think()
                waiting = {receiving} | ({self.thinking} if self.thinking else set())
                done, _ = await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
                if self.thinking is not None and self.thinking in done:
                    task, self.thinking = self.thinking, None
                    await self._thought(ws, *task.result())
                if receiving in done:
                    message = receiving.result()
                    receiving = asyncio.ensure_future(self._receive(ws))
                    await self._message(ws, message)
        finally:
            receiving.cancel()

    async def _receive(self, ws) -> dict:
        text = await ws.recv()
        try:
            message = json.loads(text)
        except ValueError:
            raise ConnectError("the server sent something that is not JSON") from None
        if not isinstance(message, dict):
            raise ConnectError("the server sent something that is not a message")
        return message

    # Messages ---------------------------------------------------------------------------
    async def _message(self, ws, message: dict) -> None:
        kind = message.get("type")
        if kind in ("sync", "update"):
            self._position(message)
        elif kind == "ack":
            if self.pending and message.get("key") == self.pending["key"]:
                self.pending, self.retries = None, 0
        elif kind == "error":
            await self._error(ws, message)

    def _position(self, message: dict) -> None:
        if message["type"] == "sync":
            clock = message.get("clock") or {}
            self.increment = float(clock.get("increment") or 0.0)
            self.per_move = "days" in clock         # correspondence: the engine's own time
            if self.game is None:
                self._start(message)
        elif message["version"] < self.version:
            return                                    # an older update after a sync
        self.version, self.latest = message["version"], message
        view = message["view"]
        if view.get("terminal"):
            self.result = view.get("result") or {}
            returns = " ".join(f"{r:g}" for r in self.result.get("returns") or ())
            self._say(f"game over at version {self.version}: {describe(self.result)}"
                      + (f"; returns {returns}" if returns else ""))

    def _start(self, sync: dict) -> None:
        view = sync["view"]
        self.game = make(view["spec"])
        self.seats = tuple(sync["seats"])
        if not self.seats:
            raise ConnectError("this link holds no seat (a spectator's link)")
        for seat in self.seats:
            self.agents[seat] = make_agent(self.agent_spec, self.game, seat)
        names = ", ".join(self.game.seat_names[seat] for seat in self.seats)
        self._say(f"connected to {_shown(self.url)}: {self.game.spec}, playing {names}, "
                  f"version {sync['version']}")

    async def _send(self, ws, message: dict) -> None:
        """Send a frame, at least :data:`PACE` seconds after the last one."""
        loop = asyncio.get_running_loop()
        wait = self.sent_at + PACE - loop.time()
        if wait > 0:
            await asyncio.sleep(wait)
        self.sent_at = loop.time()
        await ws.send(json.dumps(message))

    async def _error(self, ws, message: dict) -> None:
        code, text = message.get("code"), message.get("message", "")
        if code == "rate_limited" and message.get("key") is None:
            # a frame dropped unread: the pending action's, or a sync; either way a resend
            # is safe (an action's key makes the server apply it once)
            self._say(f"server error rate_limited: {text}; sending again", error=True)
            await asyncio.sleep(RETRY_PAUSE)
            await self._send(ws, self.pending or {"type": "sync"})
            return
        if self.pending is None or message.get("key") != self.pending["key"]:
            self._say(f"server error {code}: {text}", error=True)
            return
        sent, self.pending = self.pending, None
        if code == "server_error" and self.retries < MAX_RETRIES:
            self.retries += 1
            await asyncio.sleep(RETRY_PAUSE)
            self.pending = sent
            await self._send(ws, sent)
        elif code in ("stale_version", "not_your_turn"):
            await self._send(ws, {"type": "sync"})    # choose again on the new view
        elif code == "game_over":
            await self._send(ws, {"type": "sync"})
        elif code == "illegal_move" and sent["type"] == "action":
            await self._fail(ws, sent["seat"], f"the server refused {sent['move']!r}: {text}")
        else:
            raise ConnectError(f"the server refused the bridge's {sent['type']}: {code}: "
                               f"{text}")

    # Thinking ---------------------------------------------------------------------------
    def _maybe_think(self) -> None:
        """Ask the engine when the newest view says a held seat acts and nothing is pending."""
        message = self.latest
        if self.thinking or self.pending or self.failed or message is None \
                or self.result is not None or message["version"] == self.answered:
            return                        # (the ack comes before the update: wait for it)
        seat, view = message["seat"], message["view"]
        if seat in self.seats and self.game.seat_names[seat] in view.get("acting", ()):
            self.thinking = asyncio.ensure_future(self._think(seat, message["version"], view))

    async def _think(self, seat: int, version: int, view: dict):
        """(seat, version, move in notation or None, failure or None)."""
        budget = self._budget(seat, view)
        try:
            action = await asyncio.to_thread(self.agents[seat].act, view, budget)
            return seat, version, self._notation(view, action), None
        except EngineFailure as failure:
            return seat, version, None, f"{failure.kind}: {failure.detail}"
        except Exception as error:                     # noqa: BLE001 - the engine's side
            return seat, version, None, f"crash: {type(error).__name__}: {error}"

    def _budget(self, seat: int, view: dict) -> dict | None:
        """The seat's time left (its clock at the turn's start less what it has used
        already, ``elapsed``) and the game's increment, for the engine's ``go`` line."""
        name = self.game.seat_names[seat]
        clock = (view.get("clocks") or {}).get(name)
        if clock is None or self.per_move:      # no clock, or days per move
            return None
        used = ((self.latest or {}).get("elapsed") or {}).get(name, 0.0)
        return {"clock": max(0.0, clock - used), "increment": self.increment}

    def _notation(self, view: dict, action: int) -> str:
        legal, texts = view.get("legal_actions"), view.get("legal")
        if legal and texts and len(legal) == len(texts) and action in legal:
            return texts[legal.index(action)]
        scratch = state_from_view(self.game, view, random.Random(0))
        return scratch.action_to_string(action)

    async def _thought(self, ws, seat: int, version: int, move: str | None,
                       failure: str | None) -> None:
        if failure is not None:
            await self._fail(ws, seat, failure)
        elif version == self.version and self.result is None:
            self.pending = {"type": "action", "seat": seat, "move": move, "version": version,
                            "key": _key()}
            self.answered = version
            await self._send(ws, self.pending)
        # else: the game moved on while the engine thought; it is asked again

    async def _fail(self, ws, seat: int, reason: str) -> None:
        name = self.game.seat_names[seat]
        self.failed = reason
        if self.on_failure == "stop":
            self._say(f"the engine failed ({reason}): stopping; {name} is left as it is",
                      error=True)
            self.result = self.result or {}
            return
        self._say(f"the engine failed ({reason}): {name} resigns", error=True)
        self.pending = {"type": "resign", "seat": seat, "key": _key()}
        await self._send(ws, self.pending)

    async def _stop_thinking(self) -> None:
        task, self.thinking = self.thinking, None
        if task is not None:
            for agent in self.agents.values():        # its engine dies: act() ends at once
                await asyncio.to_thread(agent.close, None)
            await asyncio.gather(task, return_exceptions=True)

    def _say(self, text: str, error: bool = False) -> None:
        print(f"boardlab connect: {text}", file=self.err if error else self.out, flush=True)


class _Dropped(Exception):
    """The connection closed before the game was over."""

    def __init__(self, reason: str, resynced: bool):
        super().__init__(reason)
        self.resynced = resynced


def _key() -> str:
    return "bridge-" + uuid.uuid4().hex


def describe(result: dict) -> str:
    """A result in words: ``vertical wins (resignation)``."""
    if not result:
        return "no result"
    winners = result.get("winners") or []
    text = "a draw" if result.get("draw") else (
        f"{', '.join(winners)} win{'s' if len(winners) == 1 else ''}" if winners
        else "no winner")
    if result.get("reason"):
        text += f" ({result['reason']})"
    return text


def connect(url: str, command: str, token: str | None = None, seconds: float | None = None,
            log: str | None = None, on_failure: str = "resign") -> int:
    """Run the bridge until the game is over; the exit code."""
    bridge = Bridge(seat_url(url, token), command, seconds=seconds, log=log,
                    on_failure=on_failure)
    return asyncio.run(until_stopped(bridge.run()))


async def until_stopped(work: Coroutine[Any, Any, int]) -> int:
    """Await ``work``; SIGTERM cancels it, so that its cleanup runs in the event loop (its
    engines are killed), and then ends the command as Ctrl-C does (KeyboardInterrupt: exit
    code 130). A SIGTERM handler that raised KeyboardInterrupt anywhere in the loop cut the
    cleanup short ("Task was destroyed but it is pending!")."""
    loop, task = asyncio.get_running_loop(), asyncio.ensure_future(work)
    stopped: list[bool] = []

    def stop() -> None:
        stopped.append(True)
        task.cancel()
    try:
        loop.add_signal_handler(signal.SIGTERM, stop)
    except (NotImplementedError, RuntimeError, ValueError):  # no signals here: as before
        return await task
    try:
        return await task
    except asyncio.CancelledError:
        if stopped:
            raise KeyboardInterrupt from None
        raise
    finally:
        loop.remove_signal_handler(signal.SIGTERM)
