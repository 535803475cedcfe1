"""``boardlab connect URL --token TOKEN --engine CMD``: keep an engine online as a bot account.

The bot opens the server's event stream (``GET /api/stream/event`` with ``Authorization:
Bearer TOKEN``: NDJSON, docs/accounts.md), accepts the challenges its settings allow
(games, speeds, rated or casual, how many games at once) and declines the others with a
reason, and plays every game it has through the game socket, one :class:`Bridge`
(connect.py) each, with the same engine command. A dropped stream is opened again (after
1, 2, 4 ... at most 30 seconds); each game's socket reconnects on its own. With
``max_games`` it stops once that many games are over (else it runs until stopped).
"""
from __future__ import annotations

import asyncio
import json
import sys
from dataclasses import dataclass, field
from urllib.parse import urlsplit, urlunsplit

from ..core.speeds import ALL as SPEEDS, speed_of
from .connect import Bridge, ConnectError

MODES = ("rated", "casual")
FIRST_PAUSE, LAST_PAUSE = 1.0, 30.0     # seconds before opening a dropped stream again
TIMEOUT = 30.0                          # seconds of an ordinary request


@dataclass
class Settings:
    """Which challenges the bot accepts, and how many games it plays at once."""

    games: frozenset[str] | None = None            # game names; None: every game
    speeds: frozenset[str] = frozenset(SPEEDS)
    modes: frozenset[str] = frozenset(MODES)
    concurrency: int = 1
    max_games: int | None = None                   # stop after this many; None: never

    def __post_init__(self):
        unknown = (self.speeds - set(SPEEDS)) | (self.modes - set(MODES))
        if unknown:
            raise ConnectError(f"unknown speed or mode: {', '.join(sorted(unknown))} "
                               f"(speeds: {', '.join(SPEEDS)}; modes: rated, casual)")
        if self.concurrency < 1:
            raise ConnectError("--concurrency is at least 1")

    def refusal(self, challenge: dict, busy: int) -> str | None:
        """Why the bot declines ``challenge`` with ``busy`` games going (None: accept)."""
        if self.games is not None and challenge["game_name"] not in self.games:
            return f"this bot plays only {', '.join(sorted(self.games))}"
        speed = speed_of(challenge["clock"])
        if speed not in self.speeds:
            return f"this bot does not play {speed} games"
        mode = "rated" if challenge["rated"] else "casual"
        if mode not in self.modes:
            return f"this bot does not play {mode} games"
        if busy >= self.concurrency:
            return f"this bot plays {self.concurrency} game(s) at once: try again later"
        return None


@dataclass
class Bot:
    """One bot account online: its stream, its games."""

    url: str
    token: str
    command: str
    settings: Settings = field(default_factory=Settings)
    seconds: float | None = None
    log: str | None = None
    out: object = None
    err: object = None

    def __post_init__(self):
        parts = urlsplit(self.url.strip())
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ConnectError("the bot's URL is the server's http(s)://HOST:PORT/")
        self.base = urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/"), "", ""))
        self.ws_base = self.base.replace("http", "ws", 1)
        self.headers = {"Authorization": f"Bearer {self.token}"}
        self.out, self.err = self.out or sys.stdout, self.err or sys.stderr
        Bridge(self.ws_base + "/ws/check", self.command)   # a bad --engine stops here
        self.playing: dict[str, asyncio.Task] = {}
        self.started = self.finished = 0
        self.failures = 0
        self.done = asyncio.Event()

    # Running -------------------------------------------------------------------------------
    async def run(self) -> int:
        """Stay online (until ``max_games`` are over); the exit code (1: an engine failed)."""
        import httpx
        async with httpx.AsyncClient(headers=self.headers, timeout=TIMEOUT) as client:
            me = await self._request(client, "GET", "/api/account")
            if not me.get("bot"):
                raise ConnectError("this token is not a bot account's")
            self._say(f"online as {me['username']} (BOT) at {self.base}")
            pause = FIRST_PAUSE
            try:
                while not self.done.is_set():
                    streaming = asyncio.ensure_future(self._stream(client))
                    stopping = asyncio.ensure_future(self.done.wait())
                    finished, _ = await asyncio.wait({streaming, stopping},
                                                     return_when=asyncio.FIRST_COMPLETED)
                    for task in (streaming, stopping):
                        task.cancel()
                    if streaming in finished and not streaming.cancelled():
                        error = streaming.exception()
                        if isinstance(error, ConnectError):
                            raise error
                        if self.done.is_set():
                            break
                        if error is None:
                            pause = FIRST_PAUSE     # it had been open: try again soon
                        self._say(f"the event stream dropped ({error or 'closed'}): "
                                  f"reconnecting in {pause:g} s", error=True)
                        await asyncio.sleep(pause)
                        pause = min(LAST_PAUSE, pause * 2)
            finally:
                for task in self.playing.values():
                    task.cancel()
                await asyncio.gather(*self.playing.values(), return_exceptions=True)
        return 1 if self.failures else 0

    async def _stream(self, client) -> None:
        import httpx
        try:
            async with client.stream("GET", self.base + "/api/stream/event",
                                     timeout=httpx.Timeout(TIMEOUT, read=None)) as response:
                if response.status_code != 200:
                    await response.aread()
                    raise ConnectError(f"the server refused the event stream: "
                                       f"{_error(response)}")
                async for line in response.aiter_lines():
                    if line.strip():
                        await self._event(client, json.loads(line))
        except httpx.HTTPError as error:
            raise _Dropped(str(error) or type(error).__name__) from None

    async def _request(self, client, method: str, path: str, data: dict | None = None):
        import httpx
        try:
            response = await client.request(method, self.base + path, json=data)
        except httpx.HTTPError as error:
            raise ConnectError(f"cannot reach {self.base}: {error}") from None
        if response.status_code == 401:
            raise ConnectError(f"the server refused the token: {_error(response)}")
        if response.status_code >= 400:
            return {"error": _error(response)}
        return response.json()

    # Events --------------------------------------------------------------------------------
    async def _event(self, client, event: dict) -> None:
        kind = event.get("type")
        if kind == "challenge":
            await self._challenge(client, event["challenge"])
        elif kind == "gameStart":
            self._start(event["game"]["id"])

    async def _challenge(self, client, challenge: dict) -> None:
        who, cid = challenge["from"]["username"], challenge["id"]
        busy = len(self.playing)
        if self.settings.max_games is not None and \
                self.started >= self.settings.max_games:
            reason: str | None = "this bot is going offline"
        else:
            reason = self.settings.refusal(challenge, busy)
        if reason is not None:
            await self._request(client, "POST", f"/api/challenges/{cid}/decline",
                                {"reason": reason})
            self._say(f"declined {who}'s challenge ({challenge['spec']}): {reason}")
            return
        answer = await self._request(client, "POST", f"/api/challenges/{cid}/accept")
        if "game" in answer:
            self._say(f"accepted {who}'s challenge: {challenge['spec']}, game "
                      f"{answer['game']}")
            self._start(answer["game"])

    def _start(self, game_id: str) -> None:
        if game_id in self.playing or self.done.is_set():
            return
        self.started += 1
        self.playing[game_id] = asyncio.ensure_future(self._play(game_id))

    async def _play(self, game_id: str) -> None:
        bridge = Bridge(f"{self.ws_base}/ws/{game_id}", self.command, seconds=self.seconds,
                        log=self.log, out=self.out, err=self.err, headers=self.headers)
        try:
            if await bridge.run():
                self.failures += 1
        except ConnectError as error:
            self.failures += 1
            self._say(f"game {game_id}: {error}", error=True)
        finally:
            self.playing.pop(game_id, None)
            self.finished += 1
            if self.settings.max_games is not None and \
                    self.finished >= self.settings.max_games:
                self.done.set()

    def _say(self, text: str, error: bool = False) -> None:
        print(f"boardlab connect: {text}", file=self.err if error else self.out, flush=True)


class _Dropped(Exception):
    """The event stream's connection failed."""


def _error(response) -> str:
    try:
        error = response.json()["error"]
        return f"{error['code']}: {error['message']}"
    except (ValueError, KeyError, TypeError):
        return f"HTTP {response.status_code}"


def run_bot(url: str, token: str, command: str, settings: Settings,
            seconds: float | None = None, log: str | None = None) -> int:
    """Keep the bot online; the exit code."""
    async def main() -> int:
        return await Bot(url, token, command, settings, seconds, log).run()
    return asyncio.run(main())
