"""``boardlab connect URL --token TOKEN --engine CMD``: keep an engine online as a bot account.

The bot opens the server's event stream (``GET /api/stream/event`` with ``Authorization:
Bearer TOKEN``: NDJSON, docs/accounts.md), accepts the challenges its settings allow
(games, speeds, rated or casual, how many games at once) and declines the others with a
reason, and plays every game it has through the game socket, one :class:`Bridge`
(connect.py) each, with the same engine command. The bot stays online through transient
failures: a dropped stream, an unreachable server, or an answer such as 502, 503 or 429
(to the stream, the first look at the account, or an accept or decline) is written to
stderr in one line and the stream is opened again after a pause (1, 2, 4 ... at most 30
seconds, each drawn between half and all of that from the OS's random source so that
many bots do not come back at once); the reopened stream tells the open challenges again.
Only a definite refusal (401: a bad or revoked token; 403) stops it, with a message and
a nonzero exit. Each game's socket reconnects on its own. With ``max_games`` it stops
once that many games are over (else it runs until stopped).
"""
from __future__ import annotations

import asyncio
import json
import random
import sys
from dataclasses import dataclass, field
from urllib.parse import urlsplit, urlunsplit

from ..core.speeds import ALL as SPEEDS, speed_of
from .connect import Bridge, ConnectError, until_stopped

MODES = ("rated", "casual")
FIRST_PAUSE, LAST_PAUSE = 1.0, 30.0     # seconds before opening a dropped stream again
TIMEOUT = 30.0                          # seconds of an ordinary request
REFUSED = (401, 403)                    # definite refusals: the bot stops
TRANSIENT = (408, 425, 429)             # besides 5xx: answers worth trying again


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
    first_pause: float = FIRST_PAUSE
    last_pause: float = LAST_PAUSE
    rng: random.Random = field(default_factory=random.SystemRandom)   # pauses' jitter

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
        self.online = self.opened = False
        self.done = asyncio.Event()

    # Running -------------------------------------------------------------------------------
    async def run(self) -> int:
        """Stay online (until ``max_games`` are over); the exit code (1: an engine failed).
        Raises :class:`ConnectError` on a definite refusal (a bad token, not a bot)."""
        import httpx
        async with httpx.AsyncClient(headers=self.headers, timeout=TIMEOUT) as client:
            pause = self.first_pause
            try:
                while not self.done.is_set():
                    self.opened = False
                    streaming = asyncio.ensure_future(self._online(client))
                    stopping = asyncio.ensure_future(self.done.wait())
                    finished, _ = await asyncio.wait({streaming, stopping},
                                                     return_when=asyncio.FIRST_COMPLETED)
                    for task in (streaming, stopping):
                        task.cancel()
                    if streaming in finished and not streaming.cancelled():
                        error = streaming.exception()
                        if error is not None and not isinstance(error, _Dropped):
                            raise error
                        if self.done.is_set():
                            break
                        if self.opened:
                            pause = self.first_pause    # it had been open: try again soon
                        wait = self.rng.uniform(pause / 2, pause)
                        self._say(f"{error or 'the event stream closed'}: "
                                  f"reconnecting in {wait:.1f} s", error=True)
                        await asyncio.sleep(wait)
                        pause = min(self.last_pause, pause * 2)
            finally:
                for task in self.playing.values():
                    task.cancel()
                await asyncio.gather(*self.playing.values(), return_exceptions=True)
        return 1 if self.failures else 0

    async def _online(self, client) -> None:
        """Check the account once, then follow its event stream until it drops."""
        if not self.online:
            me = await self._request(client, "GET", "/api/account")
            if "error" in me:
                raise _Dropped(f"the server could not show the account ({me['error']})")
            if not me.get("bot"):
                raise ConnectError("this token is not a bot account's")
            self.online = True
            self._say(f"online as {me['username']} (BOT) at {self.base}")
        await self._stream(client)

    async def _stream(self, client) -> None:
        import httpx
        try:
            async with client.stream("GET", self.base + "/api/stream/event",
                                     timeout=httpx.Timeout(TIMEOUT, read=None)) as response:
                if response.status_code != 200:
                    await response.aread()
                    if response.status_code in REFUSED:
                        raise ConnectError(f"the server refused the event stream (HTTP "
                                           f"{response.status_code}: a bad or revoked "
                                           f"token?): {_error(response)}")
                    raise _Dropped(f"the event stream failed ({_error(response)})")
                self.opened = True
                async for line in response.aiter_lines():
                    if line.strip():
                        await self._event(client, json.loads(line))
        except httpx.HTTPError as error:
            raise _Dropped(f"the event stream dropped "
                           f"({str(error) or type(error).__name__})") from None

    async def _request(self, client, method: str, path: str, data: dict | None = None):
        """The answer's JSON, or ``{"error": ...}`` for a 4xx that is no refusal (a
        challenge taken back meanwhile). Raises :class:`_Dropped` when the server cannot be
        reached or answers 5xx, 408 or 429 (the bot tries again on a reopened stream), and
        :class:`ConnectError` on 401 or 403."""
        import httpx
        try:
            response = await client.request(method, self.base + path, json=data)
        except httpx.HTTPError as error:
            raise _Dropped(f"{method} {path} failed: cannot reach {self.base} "
                           f"({str(error) or type(error).__name__})") from None
        if response.status_code in REFUSED:
            raise ConnectError(f"the server refused the token (HTTP "
                               f"{response.status_code}: a bad or revoked token?): "
                               f"{_error(response)}")
        if response.status_code >= 500 or response.status_code in TRANSIENT:
            raise _Dropped(f"{method} {path} failed ({_error(response)})")
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
        return await until_stopped(Bot(url, token, command, settings, seconds, log).run())
    return asyncio.run(main())
