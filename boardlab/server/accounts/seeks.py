"""Seeks in the lobby (docs/accounts.md, "Seeks"): a signed-in account offers a game of two
seats (game, options, clock, rated or casual, for a rated one a rating range) that any
other signed-in account may accept; the game starts at once, each account holding its seat
(drawn at random). The seeker may cancel it while it is open; an accept of one that is not
open any more is 409 not_pending (one conditional UPDATE: one accept wins)."""
from __future__ import annotations

import asyncio
import secrets

from sqlalchemy import Engine, func, insert, select, update
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from ..api_games import _clock as checked_clock, game_of
from ..rest import ApiError, body, configured_game
from .pairing import check_pairable, new_game_id, seats_for
from .schema import ratings, seeks, users
from ...core.speeds import speed_of
from .users import now

OPEN, ACCEPTED, CANCELLED = "open", "accepted", "cancelled"
MAX_OPEN = 3                    # open seeks of one account
MAX_LISTED = 100
START = 1500                    # the rating of an account new to a pool


def _listed():
    return select(seeks, users.c.username, users.c.bot) \
        .join(users, users.c.id == seeks.c.user_id)


def find(engine: Engine, seek_id: str):
    with engine.connect() as db:
        return db.execute(_listed().where(seeks.c.id == seek_id)).first()


def open_seeks(engine: Engine) -> list:
    query = _listed().where(seeks.c.status == OPEN, users.c.disabled.is_(False)) \
        .order_by(seeks.c.created, seeks.c.id).limit(MAX_LISTED)
    with engine.connect() as db:
        return list(db.execute(query))


def add(engine: Engine, user_id: int, spec: str, clock: dict | None, rated: bool,
        low: int | None, high: int | None) -> str:
    """A new open seek's id (ValueError: too many open already)."""
    seek_id = secrets.token_urlsafe(12)[:16]
    when = now()
    with engine.begin() as db:
        count = db.execute(select(func.count()).where(seeks.c.user_id == user_id,
                                                      seeks.c.status == OPEN)).scalar()
        if (count or 0) >= MAX_OPEN:
            raise ValueError(f"at most {MAX_OPEN} open seeks at once")
        db.execute(insert(seeks).values(id=seek_id, user_id=user_id, spec=spec, clock=clock,
                                        rated=rated, rating_min=low, rating_max=high,
                                        status=OPEN, created=when, updated=when))
    return seek_id


def settle(engine: Engine, seek_id: str, status: str, game_id: str | None = None) -> bool:
    with engine.begin() as db:
        return db.execute(update(seeks).where(seeks.c.id == seek_id, seeks.c.status == OPEN)
                          .values(status=status, game_id=game_id, updated=now())
                          ).rowcount == 1


def rating_in(engine: Engine, user_id: int, pool: str) -> float:
    with engine.connect() as db:
        found = db.execute(select(ratings.c.rating).where(ratings.c.user_id == user_id,
                                                          ratings.c.pool == pool)).scalar()
    return START if found is None else found


def public(row) -> dict:
    game = game_of(row.spec)
    pool = check_pairable(game, row.rated, row.clock)
    return {"id": row.id, "user": {"username": row.username, "bot": row.bot},
            "spec": game.public_spec, "game_name": game.name, "clock": row.clock,
            "speed": speed_of(row.clock), "rated": row.rated, "pool": pool,
            "rating_range": None if row.rating_min is None else
            [row.rating_min, row.rating_max],
            "status": row.status, "game": row.game_id, "created": row.created.isoformat()}


def _range(given, rated: bool) -> tuple[int | None, int | None]:
    if given is None:
        return None, None
    if not rated or not isinstance(given, list) or len(given) != 2 or \
            any(isinstance(v, bool) or not isinstance(v, int) for v in given) or \
            not 0 <= given[0] <= given[1] <= 4000:
        raise ApiError("bad_request", "'rating_range' is [LOW, HIGH] (0 <= LOW <= HIGH <= "
                       "4000), for a rated seek")
    return given[0], given[1]


async def create_seek(request: Request) -> JSONResponse:
    """POST /api/seeks {"spec", "clock", "rated", "rating_range"}: 201 and the seek."""
    from .routes import signed_in
    me = await signed_in(request)
    data = await body(request, required={"spec"}, optional={"clock", "rated",
                                                            "rating_range"})
    game = configured_game(data["spec"])
    rated = data.get("rated", False)
    clock = checked_clock(data.get("clock"))
    check_pairable(game, rated, clock)
    low, high = _range(data.get("rating_range"), rated)
    engine = request.app.state.accounts.users.engine
    try:
        seek_id = await asyncio.to_thread(add, engine, me.id, game.spec, clock, rated, low,
                                          high)
    except ValueError as error:
        raise ApiError("rate_limited", str(error)) from None
    return JSONResponse(public(await asyncio.to_thread(find, engine, seek_id)),
                        status_code=201)


async def list_seeks(request: Request) -> JSONResponse:
    """GET /api/seeks: the open seeks, oldest first (anyone may look)."""
    rows = await asyncio.to_thread(open_seeks, request.app.state.accounts.users.engine)
    return JSONResponse({"seeks": [public(row) for row in rows]},
                        headers={"cache-control": "no-store"})


async def _seek(request: Request):
    from .routes import signed_in
    me = await signed_in(request)
    seek_id = request.path_params["seek_id"]
    row = await asyncio.to_thread(find, request.app.state.accounts.users.engine, seek_id) \
        if len(seek_id) <= 32 else None
    if row is None:
        raise ApiError("not_found", "no such seek")
    if row.status != OPEN:
        raise ApiError("not_pending", f"this seek is {row.status}")
    return me, row


async def accept_seek(request: Request) -> JSONResponse:
    """POST /api/seeks/{id}/accept: the game starts; {"id", "status", "game"}."""
    me, row = await _seek(request)
    if row.user_id == me.id:
        raise ApiError("forbidden", "this is your own seek (cancel it instead)")
    accounts = request.app.state.accounts
    engine = accounts.users.engine
    game = game_of(row.spec)
    pool = check_pairable(game, row.rated, row.clock)
    if pool is not None and row.rating_min is not None:
        mine = await asyncio.to_thread(rating_in, engine, me.id, pool)
        if not row.rating_min <= mine <= row.rating_max:
            raise ApiError("forbidden", f"this seek is for ratings {row.rating_min} to "
                           f"{row.rating_max} in {pool}; yours is {round(mine)}")
    seeker = await asyncio.to_thread(accounts.users.find, row.username)
    game_id = new_game_id()
    if seeker is None or seeker.disabled or \
            not await asyncio.to_thread(settle, engine, row.id, ACCEPTED, game_id):
        raise ApiError("not_pending", "this seek is no longer open")
    await request.app.state.hub.create(game.spec, seats_for(seeker, me, None), None,
                                       row.clock, game_id=game_id, pool=pool)
    accounts.notifier.notify([row.user_id, me.id])
    return JSONResponse({"id": row.id, "status": ACCEPTED, "game": game_id})


async def cancel_seek(request: Request) -> JSONResponse:
    """POST /api/seeks/{id}/cancel: the seeker takes it back."""
    me, row = await _seek(request)
    if row.user_id != me.id:
        raise ApiError("forbidden", "only the seeker may cancel a seek")
    if not await asyncio.to_thread(settle, request.app.state.accounts.users.engine, row.id,
                                   CANCELLED):
        raise ApiError("not_pending", "this seek is no longer open")
    return JSONResponse({"id": row.id, "status": CANCELLED})


ROUTES = [Route("/api/seeks", create_seek, methods=["POST"]),
          Route("/api/seeks", list_seeks),
          Route("/api/seeks/{seek_id}/accept", accept_seek, methods=["POST"]),
          Route("/api/seeks/{seek_id}/cancel", cancel_seek, methods=["POST"])]
