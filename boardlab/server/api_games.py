"""The REST lobby's games: create, list, show, the record (JSON and SGF), analysis, review,
join.

Each route answers JSON; a refused request raises rest.ApiError. The routes that name a
game release its room when they are done (a finished game nobody watches is forgotten).
"""
from __future__ import annotations

import asyncio
from functools import lru_cache

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from ..core.game import Game
from ..core.record import iso_time
from ..core.registry import make
from .accounts.holders import holders_of, listed_holders
from .accounts.seats import claim_new_game, joining_account
from .clients import Window
from . import clocks
from .hub import MAX_SEED
from .messages import ProtocolError
from .rest import (ApiError, api_url, body, configured_game, hub_of, page_url, room_of,
                   ws_url)
from .seats import SeatError, parse_seats, players, public_seats
from .store import ABORTED, ACTIVE, OVER

MAX_ANALYSIS = 5.0           # seconds an analysis may think
ADDRESSES_KEPT = 10_000      # client addresses whose create windows are kept


@lru_cache(maxsize=256)
def game_of(spec: str) -> Game:
    """The configured game of a stored spec (games are immutable)."""
    return make(spec)


async def create_game(request: Request) -> JSONResponse:
    """POST /api/games: a new game; the answer holds each person's secret seat token."""
    data = await body(request, required={"spec", "seats"},
                      optional={"seed", "hotseat", "clock", "rated"})
    _count_create(request)
    game = configured_game(data["spec"])
    seed = _seed(data.get("seed"))
    clock = _clock(data.get("clock"))
    if not isinstance(data.get("hotseat", False), bool):
        raise ApiError("bad_request", "'hotseat' must be true or false")
    try:
        seats, tokens = parse_seats(game, data["seats"], data.get("hotseat", False))
    except SeatError as error:
        raise ApiError("bad_seats", str(error)) from None
    pool = await claim_new_game(request, game, seats, data.get("rated", False),
                                data.get("hotseat", False), clock)
    room = await hub_of(request).create(game.spec, seats, seed, clock, pool=pool)
    listed = public_seats(game, seats)
    for seat, token in tokens.items():
        listed[seat].update(token=token, link=ws_url(request, room.id, token),
                            page=page_url(request, room.id, token))
    return JSONResponse({"id": room.id, "spec": game.public_spec, "clock": clock,
                         "seats": listed,
                         "watch": ws_url(request, room.id), "api": api_url(request, room.id),
                         "watch_page": page_url(request, room.id)},
                        status_code=201)


def _count_create(request: Request) -> None:
    """At most ``creates_per_minute`` games a minute per client address (429, with the
    seconds until the window has room again)."""
    hub = hub_of(request)
    windows = request.app.state.creates
    address = request.client.host if request.client else ""
    window = windows.get(address)
    if window is None:
        if len(windows) > ADDRESSES_KEPT:       # forget idle addresses
            windows.clear()
        window = windows[address] = Window(hub.limits.creates_per_minute, 60.0, hub.clock)
    if not window.allow():                      # Retry-After: when the oldest leaves
        wait = window.times[0] + window.seconds - hub.clock.now() if window.times else 60
        raise ApiError("rate_limited", f"at most {window.count} games a minute from "
                       f"one address", retry_after=wait)


async def list_games(request: Request) -> JSONResponse:
    """GET /api/games?limit=N: the newest games, public facts only, without the abandoned
    ones (lifecycle.py); a finished game with its result."""
    limit = request.query_params.get("limit", "50")
    if not limit.isdigit() or not 1 <= int(limit) <= 200:
        raise ApiError("bad_request", "limit must be a number from 1 to 200")
    hub = hub_of(request)
    rows = await asyncio.to_thread(hub.store.listing, int(limit),
                                   hub.lifecycle.idle_since())
    holders = await asyncio.to_thread(listed_holders, hub.store.engine, rows)
    listed = []
    for row in rows:
        result = row.result
        if result is None and row.status == OVER:       # ended before results were kept
            result = await hub.finished_result(row.id)
        listed.append({**_listed(row, holders.get(row.id)), "result": result})
    return JSONResponse({"games": listed})


async def show_game(request: Request) -> JSONResponse:
    """GET /api/games/{id}: the spectators' view, the version and the game's facts."""
    hub, room = await room_of(request)
    try:
        version, view = await room.public()
        game = room.driver.game
        return JSONResponse({"id": room.id, "spec": game.public_spec, "version": version,
                             "status": ABORTED if room.driver.aborted else OVER
                             if view["terminal"] else ACTIVE,
                             "clock": room.clock, "rematch": room.rematch,
                             "seats": public_seats(game, room.seats,
                                                   await holders_of(room)), "view": view,
                             "elapsed": room.turns.elapsed() if room.timed else None,
                             "facts": game.facts()})
    finally:
        hub.release(room)


async def game_record(request: Request) -> JSONResponse:
    """GET /api/games/{id}/record: the full record (with the seed), once the game is over."""
    hub, room = await room_of(request)
    try:
        return JSONResponse(await _record(hub, room))
    finally:
        hub.release(room)


async def game_sgf(request: Request) -> Response:
    """GET /api/games/{id}/record.sgf: the record as SGF, for games whose facts list "sgf"
    in ``record_formats`` (404 no_sgf otherwise), once the game is over (409 not_over)."""
    hub, room = await room_of(request)
    try:
        game = room.driver.game
        if "sgf" not in game.record_formats:
            raise ApiError("no_sgf", f"this game's records come as "
                           f"{', '.join(game.record_formats)}, not SGF")
        record = await _record(hub, room)
        return Response(game.sgf(record), media_type="application/x-go-sgf",
                        headers={"Content-Disposition":
                                 f'attachment; filename="{room.id}.sgf"'})
    finally:
        hub.release(room)


async def _record(hub, room) -> dict:
    """The room's full record, once the game is over (409 not_over); ``created`` is when
    the game was created (stored with it), whenever the record is asked for."""
    async with room.lock:
        if not room.over:
            raise ApiError("not_over", "the record is available once the game is over")
        record = room.record(players(room.seats))
    row = await asyncio.to_thread(hub.store.game, room.id)
    if row is not None:
        record["created"] = iso_time(row.created)
    return record


async def analyse_game(request: Request) -> JSONResponse:
    """POST /api/games/{id}/analysis {"at": K, "seconds": S, "token": T}: a search of the
    position after K history entries, from the acting seat's view. A finished game: any
    K; a live one only with a token holding every seat, none of them an AI (403)."""
    hub, room = await room_of(request)
    try:
        data = await body(request, required={"at"}, optional={"seconds", "token"})
        at, seconds, token = data["at"], data.get("seconds", 1.0), data.get("token")
        if isinstance(at, bool) or not isinstance(at, int) or at < 0:
            raise ApiError("bad_request", "'at' is a history length (an integer >= 0)")
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or \
                not 0 < seconds <= MAX_ANALYSIS:
            raise ApiError("bad_request", f"'seconds' is a number above 0 and at most "
                           f"{MAX_ANALYSIS:g}")
        if token is not None and not isinstance(token, str):
            raise ApiError("bad_request", "'token' is a seat token")
        try:
            answer = await room.positions.analyse(at, float(seconds), token)
        except ProtocolError as error:
            raise ApiError(error.code, error.message) from None
        return JSONResponse(answer)
    finally:
        hub.release(room)


async def request_review(request: Request) -> JSONResponse:
    """POST /api/games/{id}/review: start the review of a finished game (409 not_over
    before the end, 429 busy when as many as allowed run and wait); where it stands (202
    while it runs, 200 once done)."""
    known = hub_of(request).reviews.known(request.path_params["game_id"])
    if known is not None:
        return JSONResponse(known, status_code=200 if known["status"] == "done" else 202)
    hub, room = await room_of(request)
    try:
        answer = await hub.reviews.request(room)
    except ProtocolError as error:
        raise ApiError(error.code, error.message) from None
    finally:
        hub.release(room)
    return JSONResponse(answer, status_code=200 if answer["status"] == "done" else 202)


async def show_review(request: Request) -> JSONResponse:
    """GET /api/games/{id}/review: where the review of a finished game stands (its
    progress, or the review once done; ``none`` if nobody asked for one)."""
    known = hub_of(request).reviews.known(request.path_params["game_id"])
    if known is not None:
        return JSONResponse(known)
    hub, room = await room_of(request)
    try:
        return JSONResponse(await hub.reviews.status(room))
    except ProtocolError as error:
        raise ApiError(error.code, error.message) from None
    finally:
        hub.release(room)


async def join_game(request: Request) -> JSONResponse:
    """POST /api/games/{id}/join {"seat": S}: take an open seat; its secret token."""
    hub, room = await room_of(request)
    try:
        data = await body(request, required={"seat"})
        token = await room.seating.take(data["seat"], await joining_account(request, room))
    except SeatError as error:
        raise ApiError("not_open", str(error)) from None
    finally:
        hub.release(room)
    return JSONResponse({"id": room.id, "seat": data["seat"], "token": token,
                         "link": ws_url(request, room.id, token),
                         "page": page_url(request, room.id, token)})


def _seed(seed) -> int | None:
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)
                             or not 0 <= seed <= MAX_SEED):
        raise ApiError("bad_request", f"'seed' is an integer from 0 to {MAX_SEED}")
    return seed


def _clock(clock) -> dict | None:
    """A request's clock (clocks.py): null, {"days": N} or {"base", "increment"}; 400
    bad_clock saying what is wrong."""
    try:
        return clocks.parse(clock)
    except clocks.ClockError as error:
        raise ApiError("bad_clock", str(error)) from None


def _listed(row, holders: dict[int, dict] | None = None) -> dict:
    """A game as the lobby lists it: its seats name the accounts holding them."""
    game = game_of(row.spec)
    return {"id": row.id, "spec": game.public_spec, "status": row.status, "clock": row.clock,
            "rated": row.pool is not None, "pool": row.pool, "version": row.version,
            "seats": public_seats(game, row.seats, holders),
            "created": row.created.isoformat(), "updated": row.updated.isoformat()}
