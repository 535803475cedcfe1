"""The secrets check: every frame a client receives holds only what its seat may know.

``boardlab soak secrets`` plays games with hidden information on a real `boardlab serve`
(a child process, see soak.py): one WebSocket bot per seat (random legal moves) and a
spectator per game, many games at once, every frame each connection receives recorded
as the raw text. Once a game is over its record (with the seed) is downloaded, the game is
rebuilt with the core from the record's moves, and every frame received by seat S (or the
spectator) is checked:

a. every ``view`` equals, byte for byte as JSON, the core's ``view(S)`` at the frame's
   version; the frame's text is exactly the JSON of its message (the server's encoder,
   :func:`boardlab.server.wire.encode`, whose compact text the facts of (c) are written
   in too); the other fields of a
   ``sync``/``update`` (seat, seats, status lines, announcements, clock, draw offer,
   rematch) are the ones the core gives;
b. the frame carries no key beyond those its message type allows (:data:`ALLOWED`);
c. the frame's text contains none of S's hidden facts (:func:`hidden_facts`) in a plain
   textual search: the seed, another seat's private view keys (its hand, its knowledge,
   its pending pick, its legal moves ...), another seat's or team's entries of the full
   state's private parts (``summary()`` keys no spectator sees: hands, secret squares),
   and every history entry S sees masked (another team's secret pick, a team mate's
   pending pick) in its full text.

The check knows no game: the facts come from the views, ``summary()`` and
``visible_history()`` the core declares. The pile order is not in any of them (the core
exposes it nowhere), so it is covered by (a) only: a frame equal to the core's view holds
what the core's view holds.
"""
from __future__ import annotations

import asyncio
import json
import random
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

from ..core.registry import make
from ..server.wire import encode
from .soak import (NO_CREATE_LIMIT, WAIT, ServerProcess, SoakError, _libraries, http_limits,
                   workspace)

#: the keys each server message may carry (games here have no clock: no ``elapsed``; the
#: bots do not chat: ``chat`` is empty)
ALLOWED = {
    "sync": {"type", "version", "seat", "seats", "view", "lines", "clock", "draw_offer",
             "rematch", "rematch_offer", "movers", "chat"},
    "update": {"type", "version", "seat", "view", "lines", "announcements", "draw_offer",
               "rematch", "rematch_offer", "movers"},
    "ack": {"type", "key", "version"},
    "error": {"type", "code", "message", "key"},
}
#: refusals a bot may meet in play: a team mate committed first in a simultaneous round
EXPECTED_REFUSALS = {"stale_version"}
SEED_LOW = 10 ** 8           # seeds of 9 or 10 digits: a textual search for one means something
SEED_HIGH = 2 ** 31 - 1
PACE = 0.06                  # seconds between two actions of one connection (under the flood limit)
MAX_SAMPLES = 50             # violations kept in the report


# The reference: the core's replay of a record ---------------------------------------------
@dataclass
class Version:
    """What the core gives at one version: each seat's view and hidden facts (by seat,
    None for a spectator) and the announcements of the entries that made it."""

    views: dict = field(default_factory=dict)        # seat -> the view's JSON text
    lines: dict = field(default_factory=dict)        # seat -> its status lines
    facts: dict = field(default_factory=dict)        # seat -> {hidden text: times allowed}
    announcements: list = field(default_factory=list)


def reference(record: dict, seats: list) -> list[Version]:
    """The core's views and facts at every version of the recorded game, for ``seats``
    (seat numbers and None). A version is a logged action, with the chance entries that
    follow it (deals, draws) played too."""
    state = make(record["spec"]).new_initial_state(seed=record["seed"])
    moves, index = record["moves"], 0

    def chance() -> None:
        nonlocal index
        while index < len(moves) and state.is_chance():
            state.play(moves[index])
            index += 1

    chance()
    versions = [_version(state, record["seed"], seats, None)]
    while index < len(moves):
        before = len(state.history)
        state.play(moves[index])
        index += 1
        chance()
        versions.append(_version(state, record["seed"], seats, before))
    return versions


def _version(state, seed: int, seats: list, before: int | None) -> Version:
    version = Version()
    game = state.game
    views = {seat: state.view(seat) for seat in [None, *range(game.num_seats)]}
    public_text = encode(views[None])
    summary = state.summary()
    private = {key: value for key, value in summary.items()
               if key not in views[None] and isinstance(value, dict)}
    full = state.history_text()
    for seat in seats:
        version.views[seat] = encode(views[seat])
        version.lines[seat] = state.status_lines(seat, views[seat])
        version.facts[seat] = hidden_facts(state, seat, seed, views, private, full,
                                           public_text)
    if before is not None:
        version.announcements = state.announcements(min(before, len(state.history)))
    return version


def hidden_facts(state, seat: int | None, seed: int, views: dict, private: dict,
                 full: list[str], public_text: str) -> dict[str, int]:
    """The texts ``seat`` (None: a spectator) must not receive at this position: each
    with the number of times it may occur all the same (a masked entry, such as a team
    mate's pending ``end``, may equal entries the seat sees in the open)."""
    game = state.game
    own = views[seat]
    facts = {str(seed): 0}
    for other in range(game.num_seats):
        if other == seat:
            continue
        for key, value in views[other].items():     # another seat's private view keys
            if key in ("seat", "history") or value == views[None].get(key) or \
                    value == own.get(key) or not value:
                continue
            facts[f"{encode(key)}:{encode(value)}"] = 0
    names = set() if seat is None else {game.seat_names[seat],
                                        game.team_names[game.team_of(seat)]}
    for entries in private.values():                # the full state's private parts
        for name, value in entries.items():
            text = f"{encode(name)}:{encode(value)}"
            if name not in names and text not in public_text:
                facts[text] = 0
    visible = state.visible_history(seat)
    seen = visible + list(own.get("legal") or ())
    for entry, shown in zip(full, visible):
        if entry != shown:                          # a masked entry, in its full text
            facts[encode(entry)] = seen.count(entry)
    return facts


# Checking the frames -----------------------------------------------------------------------
def check_frames(record: dict, connections: list[tuple[int | None, list[str]]]) -> dict:
    """Check every frame of every connection of one finished game against the core's
    replay of its record; return counts and the violations found."""
    versions = reference(record, sorted({seat for seat, _ in connections},
                                        key=lambda s: -1 if s is None else s))
    found = Counter()
    violations: list[str] = []

    def violation(kind: str, seat, number: int, what: str) -> None:
        found[kind] += 1
        if len(violations) < MAX_SAMPLES:
            violations.append(f"{kind}: seat {seat} frame {number}: {what}")

    for seat, frames in connections:
        current = 0                             # the last version this connection saw
        for number, text in enumerate(frames):
            found["frames"] += 1
            found["bytes"] += len(text.encode())
            problems, current = check_frame(versions, seat, text, current)
            for kind, what in problems:
                violation(kind, seat, number, what)
    return {"frames": found.pop("frames", 0), "bytes": found.pop("bytes", 0),
            "violations": dict(found), "samples": violations}


def check_frame(versions: list[Version], seat: int | None, text: str,
                current: int = 0) -> tuple[list[tuple[str, str]], int]:
    """The violations in one frame received by ``seat`` after it saw version ``current``:
    ``(kind, what)`` pairs, kind ``view`` (a), ``keys`` (b), ``hidden`` (c) or ``frame``
    (not a valid message); and the version it has seen then. A frame without a version
    (an error) is searched for the facts hidden at ``current``."""
    found = []
    try:
        message = json.loads(text)
    except ValueError:
        message = None
    if not isinstance(message, dict) or message.get("type") not in ALLOWED:
        found.append(("keys", f"an unexpected message {text[:80]!r}"))
        message = {"type": None}
    found += _check_message(versions, seat, text, message)
    version = message.get("version", current)
    if not isinstance(version, int) or not 0 <= version < len(versions):
        found.append(("view", f"version {version!r} is no version of the game"))
        version = current
    for fact, allowed in versions[version].facts[seat].items():
        if fact in text and text.count(fact) > allowed:
            found.append(("hidden", f"v{version} holds {fact[:80]!r}"))
    return found, version


def _check_message(versions: list[Version], seat: int | None, text: str,
                   message: dict) -> list[tuple[str, str]]:
    """(a) and (b) for one parsed message."""
    if message["type"] is None:
        return []
    found = []
    extra = set(message) - ALLOWED[message["type"]]
    if extra:
        found.append(("keys", f"{message['type']} carries {sorted(extra)}"))
    if encode(message) != text:
        found.append(("frame", "the text is not the JSON of its message"))
    version = message.get("version")
    if message["type"] in ("sync", "update") and isinstance(version, int) and \
            0 <= version < len(versions):
        found += _check_view_message(message, versions[version], seat)
    return found


def _check_view_message(message: dict, expected: Version, seat: int | None) -> list:
    found = []
    if encode(message.get("view")) != expected.views[seat]:
        found.append(("view", f"v{message['version']}: the view is not the core's view"))
    if "lines" in message and message["lines"] != expected.lines[seat]:
        found.append(("view", f"v{message['version']}: the status lines "
                              f"{message['lines']} are not the core's {expected.lines[seat]}"))
    if message.get("seat") != seat:
        found.append(("view", f"a view of seat {message.get('seat')}"))
    if message["type"] == "sync" and message.get("seats") != ([] if seat is None else [seat]):
        found.append(("view", f"holds seats {message.get('seats')}"))
    if message["type"] == "update" and message.get("announcements") != expected.announcements:
        found.append(("view", f"announcements {message.get('announcements')}"))
    if any(message.get(key) is not None for key in ("clock", "draw_offer", "rematch",
                                                     "rematch_offer")):
        found.append(("view", "a clock, draw offer or rematch in a game without them"))
    if message.get("chat"):
        found.append(("view", "chat in a game where nobody chats"))
    return found


# Playing -----------------------------------------------------------------------------------
class Secrets:
    """The bot clients, the record downloads and the checks of one run."""

    def __init__(self, url: str, seed: int, parallel: int, pool, out):
        self.url, self.parallel, self.pool, self.out = url, parallel, pool, out
        self.rng = random.Random(seed)
        self.totals = Counter()
        self.by_spec = Counter()
        self.violations = Counter()
        self.samples: list[str] = []
        self.errors: list[str] = []
        self.refusals = Counter()

    def error(self, text: str) -> None:
        if len(self.errors) < MAX_SAMPLES:
            self.errors.append(text)

    async def run(self, specs: list[str]) -> None:
        httpx, _, _ = _libraries()
        queue = list(enumerate(specs))
        started = time.monotonic()
        async with httpx.AsyncClient(timeout=WAIT, limits=http_limits()) as client:
            async def worker() -> None:
                while queue:
                    number, spec = queue.pop(0)
                    await self.game(client, spec, random.Random(self.rng.random()))
                    done = self.totals["games"]
                    if done % 10 == 0 or done == len(specs):
                        print(f"game {done}/{len(specs)}: {self.totals['frames']} frames, "
                              f"violations {sum(self.violations.values())}, errors "
                              f"{len(self.errors)}, {time.monotonic() - started:.0f} s",
                              file=self.out, flush=True)
            await asyncio.gather(*(worker() for _ in range(min(self.parallel, len(specs)))))

    async def game(self, client, spec: str, rng: random.Random) -> None:
        """Play one game to its end, then check every frame of every connection."""
        seats = make(spec).num_seats
        response = await client.post(self.url + "api/games", json={
            "spec": spec, "seats": ["human"] * seats,
            "seed": rng.randrange(SEED_LOW, SEED_HIGH)})
        if response.status_code != 201:
            raise SoakError(f"create {spec}: {response.status_code} {response.text[:200]}")
        game = response.json()
        links = [(None, game["watch"])] + [(s["seat"], s["link"]) for s in game["seats"]]
        frames = {seat: [] for seat, _ in links}
        await asyncio.gather(*(self.connection(link, seat, frames[seat], rng)
                               for seat, link in links))
        response = await client.get(self.url + f"api/games/{game['id']}/record")
        if response.status_code != 200:
            raise SoakError(f"record of {game['id']}: {response.status_code}")
        report = await asyncio.get_running_loop().run_in_executor(
            self.pool, check_frames, response.json(), list(frames.items()))
        self.totals.update(games=1, frames=report["frames"], bytes=report["bytes"])
        self.by_spec[spec] += 1
        self.violations.update(report["violations"])
        for sample in report["samples"]:
            if len(self.samples) < MAX_SAMPLES:
                self.samples.append(f"{game['id']} ({spec}) {sample}")

    async def connection(self, link: str, seat: int | None, frames: list[str],
                         rng: random.Random) -> None:
        """Record every frame; a seat's bot plays a random legal move on its turn."""
        _, connect, _ = _libraries()
        loop = asyncio.get_running_loop()
        acted, last, count = None, 0.0, 0
        async with connect(link, open_timeout=WAIT, close_timeout=1, max_size=None) as ws:
            while True:
                text = await asyncio.wait_for(ws.recv(), WAIT)
                frames.append(text)
                message = json.loads(text)
                if message["type"] == "error":
                    self.refusals[message["code"]] += 1
                    if message["code"] not in EXPECTED_REFUSALS:
                        self.error(f"seat {seat}: {message}")
                    continue
                if message["type"] not in ("sync", "update"):
                    continue
                view, version = message["view"], message["version"]
                if view["terminal"]:
                    return
                if seat is None or view["seats"][seat] not in view["acting"] or \
                        acted == version:
                    continue
                await asyncio.sleep(max(0.0, last + PACE - loop.time()))
                acted, last, count = version, loop.time(), count + 1
                await ws.send(json.dumps({"type": "action", "seat": seat,
                                          "move": rng.choice(view["legal"]),
                                          "version": version, "key": f"s{seat}-{count}"}))


async def _secrets(url: str, specs: list[str], seed: int, parallel: int, out) -> dict:
    started = time.monotonic()
    with ProcessPoolExecutor(max_workers=1) as pool:
        state = Secrets(url, seed, parallel, pool, out)
        await state.run(specs)
    return {"games": state.totals["games"], "games_by_spec": dict(state.by_spec),
            "frames": state.totals["frames"], "bytes_checked": state.totals["bytes"],
            "violations": sum(state.violations.values()),
            "violations_by_kind": dict(state.violations), "violation_samples": state.samples,
            "refusals": dict(state.refusals), "errors": state.errors,
            "seconds": round(time.monotonic() - started, 1)}


def secrets(groups: list[tuple[list[str], int]], parallel: int = 8, seed: int | None = None,
            out=None) -> dict:
    """Play ``count`` games cycling through ``specs`` for each ``(specs, count)`` of
    ``groups`` on a real server, and check every frame; return the report."""
    _libraries()
    out = out or sys.stdout
    seed = random.randrange(2 ** 31) if seed is None else seed
    games = [specs[i % len(specs)] for specs, count in groups for i in range(count)]
    random.Random(seed).shuffle(games)          # mix the games played at once
    with workspace(None) as (folder, db):
        server = ServerProcess(folder, db, NO_CREATE_LIMIT)
        try:
            url = server.start()
            report = asyncio.run(_secrets(url, games, seed, parallel, out))
        finally:
            server.kill()
    report["seed"] = seed
    report["ok"] = report["violations"] == 0 and not report["errors"] and \
        report["games"] == len(games)
    return report
