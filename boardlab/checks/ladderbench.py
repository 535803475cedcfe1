"""The ladder benchmark: a ladder of bot accounts on one `boardlab serve`, many games at once.

``boardlab soak ladder`` makes ``bots`` bot accounts (and lets the house bots ``ai-1`` ...
``ai-N`` in, ``house``), starts one server as a child process (soak.py), and has a signed-in
director create a ladder of all of them (``POST /api/tournaments``, format ``ladder``) whose
players may each be in ``games_at_once`` = ceil(2 × ``games`` / players) games at once, so
the ladder holds about ``games`` games. Each bot plays through the bot API as ``boardlab
connect`` does: its event stream (``GET /api/stream/event`` with its token) announces each
game the ladder pairs it in, and it plays that game on the game socket with the same token
(a random legal move after a random pause of 0 to 2 × ``think`` seconds, as in the load
benchmark, loadbench.py, whose measuring this reuses). The bots run in this process, on one
event loop.

The report: the percentiles of the round trip from a move's send to its ``ack`` and to the
opponent's ``update``, the actions, the games paired, finished and at once (the most games
being played at one moment, seen by the bots and in the ladder's pairings), the errors, and
the server's CPU time per action from the first measured action on. The target (issue 49):
200 games at once at ack p95 < 50 ms.
"""
from __future__ import annotations

import asyncio
import json
import math
import random
import secrets
import sys
import time
from collections import defaultdict

from .loadbench import (DEFAULT_THINK, Load, _first_game, conclude, cpu_seconds, measured,
                        run_servers)
from .soak import START_WAIT, WAIT, SoakError, _libraries, _ws, http_limits, workspace

CSRF = {"X-Boardlab-CSRF": "1"}
DIRECTOR = "ladder-director"
MAX_AT_ONCE = 20               # the server's bound on a ladder's games at once per player


def bot_names(count: int) -> list[str]:
    return [f"lbot-{number:03d}" for number in range(1, count + 1)]


def prepare(url: str, bots: int) -> tuple[str, list[str]]:
    """Upgrade the database and make the director (its password) and the bots (their
    tokens), before the server starts."""
    from sqlalchemy import create_engine

    from ..server import migrations
    from ..server.accounts.bots import create_many
    from ..server.accounts.users import Users
    engine = create_engine(url)
    try:
        migrations.upgrade(engine)
        password = secrets.token_urlsafe(12)
        Users(engine).create(DIRECTOR, password)
        return password, create_many(engine, bot_names(bots))
    finally:
        engine.dispose()


class Ladder(Load):
    """The bots of one ladder run and what they measured."""

    def __init__(self, url: str, spec: str, seed: int, until: float, think: float):
        super().__init__([url], spec, seed, until, think)
        self.url = url
        self.sent: dict[str, dict] = defaultdict(dict)    # game -> version -> (seat, time)
        self.live: dict[str, int] = {}                     # game -> seats being played here
        self.ended: set[str] = set()
        self.most_at_once = 0
        self.tasks: set[asyncio.Task] = set()
        self.streams = 0                                   # event streams open
        self.open = asyncio.Event()                        # ... all of them
        self.bots = 0

    async def bot(self, token: str, rng: random.Random) -> None:
        """One bot account: its event stream, a game socket per game it is paired in."""
        httpx, _, _ = _libraries()
        headers = {"Authorization": f"Bearer {token}"}
        started: set[str] = set()
        async with httpx.AsyncClient(headers=headers, timeout=httpx.Timeout(
                WAIT, read=None)) as client:
            try:
                async with client.stream("GET", self.url + "api/stream/event") as response:
                    if response.status_code != 200:
                        self.error("stream", f"event stream: {response.status_code}")
                        self.open.set()
                        return
                    self.streams += 1
                    if self.streams == self.bots:
                        self.open.set()
                    async for line in response.aiter_lines():
                        event = json.loads(line) if line.strip() else {}
                        game = event.get("game") if event.get("type") == "gameStart" \
                            else None
                        if game is not None and game["id"] not in started:
                            started.add(game["id"])
                            for seat in game["seats"]:
                                self._play(game["id"], seat, headers, rng)
            except httpx.HTTPError as error:
                if self.running:
                    self.error("stream", f"event stream: {error!r}")

    def _play(self, game_id: str, seat: int, headers: dict, rng: random.Random) -> None:
        if not self.running:
            return
        if game_id not in self.live and game_id not in self.ended:
            self.games += 1
        self.live[game_id] = self.live.get(game_id, 0) + 1
        self.most_at_once = max(self.most_at_once, len(self.live))
        link = _ws(self.url) + f"ws/{game_id}"
        task = asyncio.create_task(self._seat(game_id, seat, link, headers, rng))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _seat(self, game_id: str, seat: int, link: str, headers: dict,
                    rng: random.Random) -> None:
        ended = await self.seat({"id": game_id}, seat, link, self.sent[game_id], rng,
                                headers)
        self.live[game_id] -= 1
        if ended and game_id not in self.ended:
            self.ended.add(game_id)
            self.finished += 1
        if not self.live[game_id]:
            del self.live[game_id]
            self.sent.pop(game_id, None)


async def _ladder(url: str, spec: str, players: list[str], tokens: list[str], password: str,
                  at_once: int, seconds: float, seed: int, think: float, out,
                  pids: list[int]) -> dict:
    httpx, _, _ = _libraries()
    async with httpx.AsyncClient(timeout=START_WAIT, limits=http_limits()) as client:
        await _first_game(client, url, spec)     # the game's kernels loaded: not measured
        answer = await client.post(url + "api/account/login", headers=CSRF,
                                   json={"username": DIRECTOR, "password": password})
        if answer.status_code != 200:
            raise SoakError(f"sign-in: {answer.status_code} {answer.text[:200]}")
        made = await client.post(url + "api/tournaments", headers=CSRF, json={
            "name": "ladder benchmark", "spec": spec, "format": "ladder", "players": players,
            "clock": None, "rated": False, "rounds": None, "games_at_once": at_once})
        if made.status_code != 201:
            raise SoakError(f"create the ladder: {made.status_code} {made.text[:200]}")
        tournament = made.json()["id"]
        rng = random.Random(seed)
        state = Ladder(url, spec, seed, math.inf, think)
        state.bots = len(tokens)
        streams = [asyncio.create_task(state.bot(token, random.Random(rng.random())))
                   for token in tokens]
        await asyncio.wait_for(state.open.wait(), WAIT)
        cpu_before = [cpu_seconds(pid) for pid in pids]
        started = time.monotonic()
        state.until = started + seconds
        begun = await client.post(url + f"api/tournaments/{tournament}/start", headers=CSRF)
        if begun.status_code != 200:
            raise SoakError(f"start the ladder: {begun.status_code} {begun.text[:200]}")
        paired_most = 0
        while state.running:
            await asyncio.sleep(min(5.0, max(0.1, state.until - time.monotonic())))
            shown = (await client.get(url + f"api/tournaments/{tournament}")).json()
            paired_most = max(paired_most, sum(1 for p in shown["pairings"]
                                               if p["score"] is None))
            print(f"{time.monotonic() - started:.0f} s: {state.actions} actions, "
                  f"{len(state.live)} games being played, {state.finished} finished, "
                  f"errors {sum(state.error_count.values())}", file=out, flush=True)
        cpu_after = [cpu_seconds(pid) for pid in pids]
        await client.post(url + f"api/tournaments/{tournament}/end", headers=CSRF)
        for task in streams:
            task.cancel()
        await asyncio.gather(*streams, *state.tasks, return_exceptions=True)

    return {"cpu_before": cpu_before, "cpu_after": cpu_after,
            "spec": spec, "players": len(players), "bots": len(tokens),
            "games_at_once_per_player": at_once, "seconds": seconds, "think": think,
            "games_at_once_reached": state.most_at_once,
            "games_at_once_paired": paired_most, **measured(state, seconds)}


def ladder(spec: str, bots: int = 50, games: int = 200, seconds: float = 60,
           house: int = 0, think: float = DEFAULT_THINK, db: str | None = None,
           seed: int | None = None, out=None) -> dict:
    """Run the ladder benchmark; return its report (see the module's docstring)."""
    _libraries()
    players_count = bots + house
    at_once = math.ceil(2 * games / max(1, players_count))
    if at_once > MAX_AT_ONCE:
        raise SoakError(f"{games} games among {players_count} players is {at_once} games at "
                        f"once each; the server allows {MAX_AT_ONCE}: add bots")
    out = out or sys.stdout
    seed = random.randrange(2 ** 31) if seed is None else seed
    with workspace(db) as (folder, url):
        password, tokens = prepare(url, bots)
        players = bot_names(bots) + [f"ai-{level}" for level in range(1, house + 1)]
        report = run_servers([folder], url, lambda bases, pids: _ladder(
            bases[0], spec, players, tokens, password, at_once, seconds, seed, think, out,
            pids))
    return conclude(report, url, seed, games_at_once=games)
