"""An account's event stream and its list of games (docs/accounts.md, "Bot accounts").

``GET /api/stream/event`` (a session cookie, or a bot's ``Authorization: Bearer`` token)
answers NDJSON over one long HTTP response, one JSON object a line, as lichess's event
stream does: ``challenge`` (an open challenge to the account: every open one when the
stream opens, then each new one), ``challengeCanceled`` (one of those taken back),
``challengeDeclined`` (one the account made, declined, with the reason), ``gameStart``
(every game of the account running when the stream opens, then each new one) and
``gameFinish``. An empty line every few seconds keeps proxies from closing a quiet
stream. The stream reads the database only when woken (notifier.py): at once by changes in
its own server process, and by the process's one shared watcher for another process's
changes.

``GET /api/account/playing`` lists the account's running games, those where it is to act
(``your_turn``) first.
"""
from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

from sqlalchemy import Engine, and_, or_, select
from starlette.requests import Request
from starlette.responses import JSONResponse, StreamingResponse
from starlette.routing import Route

from ..api_games import game_of
from ..store import ACTIVE, games, players
from .challenges import CANCELLED, DECLINED, OPEN, _listed, public
from .schema import challenges, users
from .users import now

KEEPALIVE = 7.0                 # seconds of silence before an empty line


def games_of(engine: Engine, user_id: int, also: frozenset[str] | set[str] = frozenset()) -> dict:
    """The account's running games (and those of ``also``): id -> (row, its seats)."""
    query = select(games.c.id, games.c.spec, games.c.status, games.c.pool, games.c.clock,
                   games.c.created, players.c.seat) \
        .join(players, players.c.game_id == games.c.id) \
        .where(players.c.user_id == user_id,
               or_(games.c.status == ACTIVE, games.c.id.in_(sorted(also)))) \
        .order_by(games.c.created, games.c.id, players.c.seat)
    found: dict[str, tuple] = {}
    with engine.connect() as db:
        for row in db.execute(query):
            found.setdefault(row.id, (row, []))[1].append(row.seat)
    return found


def players_of(engine: Engine, game_ids) -> dict[str, dict[str, dict]]:
    """Game id -> seat (as text) -> {"username", "bot"} of its seats held by accounts."""
    query = select(players.c.game_id, players.c.seat, users.c.username, users.c.bot) \
        .join(users, users.c.id == players.c.user_id) \
        .where(players.c.game_id.in_(sorted(game_ids)))
    found: dict[str, dict[str, dict]] = {}
    with engine.connect() as db:
        for row in db.execute(query):
            found.setdefault(row.game_id, {})[str(row.seat)] = {"username": row.username,
                                                                "bot": row.bot}
    return found


def described(row, seats: list[int], held: dict) -> dict:
    """A game of the account as the stream and the playing list show it."""
    return {"id": row.id, "spec": game_of(row.spec).public_spec, "status": row.status,
            "rated": row.pool is not None, "pool": row.pool, "clock": row.clock,
            "seats": seats, "players": held}


class Tracker:
    """What one stream has told its account so far; :meth:`poll` gives the new events."""

    def __init__(self, engine: Engine, user_id: int):
        self.engine, self.user_id = engine, user_id
        self.since = now()                      # declines of the account's challenges
        self.challenges: dict[str, str] = {}    # open ones told of: id -> in/out
        self.declined: set[str] = set()         # declines told of
        self.games: set[str] = set()            # running games told of

    def poll(self) -> list[dict]:
        me = self.user_id
        query = _listed().where(or_(
            and_(challenges.c.status == OPEN,
                 or_(challenges.c.challenger == me, challenges.c.challenged == me)),
            and_(challenges.c.challenger == me, challenges.c.status == DECLINED,
                 challenges.c.updated >= self.since),
            challenges.c.id.in_(sorted(self.challenges))))
        with self.engine.connect() as db:
            rows = list(db.execute(query.order_by(challenges.c.created, challenges.c.id)))
        events: list[dict] = []
        for row in rows:
            role = "in" if row.challenged == me else "out"
            if row.status == OPEN and row.id not in self.challenges:
                self.challenges[row.id] = role
                if role == "in":
                    events.append({"type": "challenge", "challenge": public(row)})
            elif row.status != OPEN:
                told = self.challenges.pop(row.id, None)
                if told == "in" and row.status == CANCELLED:
                    events.append({"type": "challengeCanceled", "challenge": public(row)})
                elif role == "out" and row.status == DECLINED and \
                        row.id not in self.declined:
                    self.declined.add(row.id)
                    events.append({"type": "challengeDeclined", "challenge": public(row)})
        found = games_of(self.engine, me, self.games)
        held = players_of(self.engine, found)
        for game_id, (row, seats) in found.items():
            if row.status == ACTIVE and game_id not in self.games:
                self.games.add(game_id)
                events.append({"type": "gameStart",
                               "game": described(row, seats, held.get(game_id, {}))})
            elif row.status != ACTIVE and game_id in self.games:
                self.games.discard(game_id)
                events.append({"type": "gameFinish",
                               "game": described(row, seats, held.get(game_id, {}))})
        return events


async def follow(tracker: Tracker, notifier, user_id: int, first: list[dict],
                 keepalive: float = KEEPALIVE) -> AsyncIterator[str]:
    """The stream's lines: ``first`` events, then each wake-up's new ones (the database is
    read only when ``notifier`` wakes the stream), an empty line after ``keepalive``
    seconds of silence."""
    woken = notifier.subscribe(user_id)
    try:
        events: list[dict] = first
        yield "\n"                              # the stream is open
        while True:
            for event in events:
                yield json.dumps(event) + "\n"
            try:
                await asyncio.wait_for(woken.wait(), keepalive)
            except TimeoutError:
                yield "\n"
                events = []
                continue
            woken.clear()
            events = await asyncio.to_thread(tracker.poll)
    finally:
        notifier.unsubscribe(user_id, woken)


async def event_stream(request: Request) -> StreamingResponse:
    """GET /api/stream/event: the account's events as NDJSON (see the module's doc)."""
    from .routes import signed_in
    me = await signed_in(request)
    accounts = request.app.state.accounts
    tracker = Tracker(accounts.users.engine, me.id)
    first = await asyncio.to_thread(tracker.poll)

    def lines() -> AsyncIterator[str]:
        return follow(tracker, accounts.notifier, me.id, first)

    return StreamingResponse(lines(), media_type="application/x-ndjson",
                             headers={"cache-control": "no-store",
                                      "x-accel-buffering": "no"})


async def playing(request: Request) -> JSONResponse:
    """GET /api/account/playing: the account's running games, its turn first."""
    from .routes import signed_in
    me = await signed_in(request)
    engine = request.app.state.accounts.users.engine
    found = await asyncio.to_thread(games_of, engine, me.id)
    held = await asyncio.to_thread(players_of, engine, found)
    hub = request.app.state.hub
    listed = []
    for game_id, (row, seats) in found.items():
        room = await hub.get(game_id)
        if room is None:
            continue
        if room.over:                   # loaded for this answer only: let it go again
            hub.release(room)
            continue
        acting = room.acting()
        listed.append({**described(row, seats, held.get(game_id, {})),
                       "your_turn": any(seat in acting for seat in seats)})
    listed.sort(key=lambda game: not game["your_turn"])
    return JSONResponse({"games": listed}, headers={"cache-control": "no-store"})


def end_listener(notifier):
    """The hub's end listener: wake the streams of the ended game's accounts."""
    async def ended(room) -> None:
        notifier.notify(seat.get("user") for seat in room.seats)
    return ended


ROUTES = [Route("/api/stream/event", event_stream),
          Route("/api/account/playing", playing)]
