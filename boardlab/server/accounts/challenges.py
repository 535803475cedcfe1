"""Direct challenges between accounts (docs/accounts.md, "Challenges").

``POST /api/challenges {"to", "spec", "clock", "rated", "seat"}`` challenges an account to a
game of two seats; the challenged accepts (an ordinary server game starts, each account
holding its seat) or declines with a reason; the challenger may cancel while it is open.
A challenge to a house bot (``ai-1`` ... ``ai-5``) is accepted at once. Only the challenged
answers, only the challenger cancels (403 forbidden); an answer to a challenge that is no
longer open is 409 not_pending (the state changes in one conditional UPDATE, so two
answers at once cannot both win).
"""
from __future__ import annotations

import asyncio
import secrets

from sqlalchemy import Engine, func, insert, or_, select, update
from sqlalchemy.orm import aliased
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from ..api_games import _clock as checked_clock, game_of
from ..messages import CONTROL
from ..rest import ApiError, body, configured_game
from . import names
from .bots import house_level
from .pairing import check_pairable, new_game_id, seats_for
from .schema import challenges, users
from .users import now
from ...core.speeds import speed_of

OPEN, ACCEPTED, DECLINED, CANCELLED = "open", "accepted", "declined", "cancelled"
MAX_OPEN = 20                   # open challenges one account may have made
MAX_REASON = 200                # characters of a decline's reason
CHALLENGE_ID = 12


# The database ----------------------------------------------------------------------------------
def _listed():
    challenger, challenged = aliased(users), aliased(users)
    return select(challenges, challenger.c.username.label("from_name"),
                  challenger.c.bot.label("from_bot"), challenged.c.username.label("to_name"),
                  challenged.c.bot.label("to_bot")) \
        .join(challenger, challenger.c.id == challenges.c.challenger) \
        .join(challenged, challenged.c.id == challenges.c.challenged)


def find(engine: Engine, challenge_id: str):
    with engine.connect() as db:
        return db.execute(_listed().where(challenges.c.id == challenge_id)).first()


def open_of(engine: Engine, user_id: int) -> list:
    """The open challenges an account made or received, oldest first."""
    query = _listed().where(challenges.c.status == OPEN,
                            or_(challenges.c.challenger == user_id,
                                challenges.c.challenged == user_id)) \
        .order_by(challenges.c.created, challenges.c.id)
    with engine.connect() as db:
        return list(db.execute(query))


def add(engine: Engine, challenger: int, challenged: int, spec: str, clock: dict | None,
        rated: bool, seat: int | None) -> str:
    """Store a new open challenge; its id (ValueError: too many open already)."""
    challenge_id = secrets.token_urlsafe(CHALLENGE_ID)[:16]
    when = now()
    with engine.begin() as db:
        count = db.execute(select(func.count()).where(challenges.c.challenger == challenger,
                                                      challenges.c.status == OPEN)).scalar()
        if (count or 0) >= MAX_OPEN:
            raise ValueError(f"at most {MAX_OPEN} open challenges at once")
        db.execute(insert(challenges).values(
            id=challenge_id, challenger=challenger, challenged=challenged, spec=spec,
            clock=clock, rated=rated, seat=seat, status=OPEN, created=when, updated=when))
    return challenge_id


def settle(engine: Engine, challenge_id: str, status: str, reason: str | None = None,
           game_id: str | None = None) -> bool:
    """Move an open challenge to ``status``; False when it was not open any more."""
    with engine.begin() as db:
        done = db.execute(update(challenges).where(challenges.c.id == challenge_id,
                                                   challenges.c.status == OPEN)
                          .values(status=status, reason=reason, game_id=game_id,
                                  updated=now()))
        return done.rowcount == 1


def public(row) -> dict:
    """A challenge as the API shows it (names, never account ids)."""
    game = game_of(row.spec)
    return {"id": row.id, "from": {"username": row.from_name, "bot": row.from_bot},
            "to": {"username": row.to_name, "bot": row.to_bot}, "spec": game.public_spec,
            "game_name": game.name, "clock": row.clock, "speed": speed_of(row.clock),
            "rated": row.rated, "pool": check_pairable(game, row.rated, row.clock),
            "seat": row.seat, "status": row.status, "reason": row.reason,
            "game": row.game_id, "created": row.created.isoformat()}


# Starting the game -----------------------------------------------------------------------------
async def start(request: Request, row) -> str:
    """Accept the open challenge ``row``: its game is made and started; the game's id.
    409 not_pending when it was answered or cancelled first."""
    accounts = request.app.state.accounts
    engine = accounts.users.engine
    game = game_of(row.spec)
    pool = check_pairable(game, row.rated, row.clock)
    challenger = await asyncio.to_thread(_user, engine, row.challenger)
    challenged = await asyncio.to_thread(_user, engine, row.challenged)
    game_id = new_game_id()
    if not await asyncio.to_thread(settle, engine, row.id, ACCEPTED, None, game_id):
        raise ApiError("not_pending", "this challenge is no longer open")
    seats = seats_for(challenger, challenged, row.seat)
    await request.app.state.hub.create(game.spec, seats, None, row.clock, game_id=game_id,
                                       pool=pool)
    accounts.notifier.notify([row.challenger, row.challenged])
    return game_id


def _user(engine: Engine, user_id: int):
    with engine.connect() as db:
        return db.execute(select(users).where(users.c.id == user_id)).first()


# Routes ----------------------------------------------------------------------------------------
async def create_challenge(request: Request) -> JSONResponse:
    """POST /api/challenges {"to", "spec", "clock", "rated", "seat"}: 201 and the challenge
    (accepted at once, with its game, when ``to`` is a house bot)."""
    from .routes import signed_in
    me = await signed_in(request)
    data = await body(request, required={"to", "spec"}, optional={"clock", "rated", "seat"})
    game = configured_game(data["spec"])
    rated = data.get("rated", False)
    clock = checked_clock(data.get("clock"))
    check_pairable(game, rated, clock)
    seat = data.get("seat")
    if seat is not None and seat not in (0, 1) or isinstance(seat, bool):
        raise ApiError("bad_request", "'seat' is the challenger's seat: 0, 1 or null "
                       "(drawn at random)")
    accounts = request.app.state.accounts
    to = data["to"]
    opponent = await asyncio.to_thread(accounts.users.find, to) \
        if isinstance(to, str) and names.NAME.fullmatch(to) else None
    if opponent is None or opponent.disabled:
        raise ApiError("not_found", "no such user")
    if opponent.id == me.id:
        raise ApiError("bad_request", "you cannot challenge yourself")
    try:
        challenge_id = await asyncio.to_thread(add, accounts.users.engine, me.id,
                                               opponent.id, game.spec, clock, rated, seat)
    except ValueError as error:
        raise ApiError("rate_limited", str(error)) from None
    row = await asyncio.to_thread(find, accounts.users.engine, challenge_id)
    if house_level(opponent) is not None:
        await start(request, row)
        row = await asyncio.to_thread(find, accounts.users.engine, challenge_id)
    else:
        accounts.notifier.notify([opponent.id])
    return JSONResponse(public(row), status_code=201)


async def list_challenges(request: Request) -> JSONResponse:
    """GET /api/challenges: the open challenges the account received (``in``) and made
    (``out``)."""
    from .routes import signed_in
    me = await signed_in(request)
    rows = await asyncio.to_thread(open_of, request.app.state.accounts.users.engine, me.id)
    return JSONResponse({"in": [public(row) for row in rows if row.challenged == me.id],
                         "out": [public(row) for row in rows if row.challenger == me.id]},
                        headers={"cache-control": "no-store"})


async def optional_body(request: Request, optional: set[str]) -> dict:
    """The request's JSON object of ``optional`` fields; no body at all is ``{}``."""
    if request.headers.get("content-length", "0") == "0" and \
            "transfer-encoding" not in request.headers:
        return {}
    return await body(request, required=set(), optional=optional)


async def _mine(request: Request, role: str):
    """The signed-in account and the challenge of the path, which it must be the
    ``role`` (challenger or challenged) of: 404 for a stranger, 403 for the other party."""
    from .routes import signed_in
    me = await signed_in(request)
    challenge_id = request.path_params["challenge_id"]
    row = await asyncio.to_thread(find, request.app.state.accounts.users.engine,
                                  challenge_id) if len(challenge_id) <= 32 else None
    if row is None or me.id not in (row.challenger, row.challenged):
        raise ApiError("not_found", "no such challenge")
    if getattr(row, role) != me.id:
        raise ApiError("forbidden", f"only the {role} may do this")
    if row.status != OPEN:
        raise ApiError("not_pending", f"this challenge is {row.status}")
    return me, row


async def show_challenge(request: Request) -> JSONResponse:
    """GET /api/challenges/{id}: a challenge, to its two accounts only (404 otherwise)."""
    from .routes import signed_in
    me = await signed_in(request)
    challenge_id = request.path_params["challenge_id"]
    row = await asyncio.to_thread(find, request.app.state.accounts.users.engine,
                                  challenge_id) if len(challenge_id) <= 32 else None
    if row is None or me.id not in (row.challenger, row.challenged):
        raise ApiError("not_found", "no such challenge")
    return JSONResponse(public(row), headers={"cache-control": "no-store"})


async def accept_challenge(request: Request) -> JSONResponse:
    """POST /api/challenges/{id}/accept: the game starts; {"id", "game"}."""
    _, row = await _mine(request, "challenged")
    game_id = await start(request, row)
    return JSONResponse({"id": row.id, "status": ACCEPTED, "game": game_id})


async def decline_challenge(request: Request) -> JSONResponse:
    """POST /api/challenges/{id}/decline {"reason"}: declined, with an optional reason."""
    _, row = await _mine(request, "challenged")
    data = await optional_body(request, {"reason"})
    reason = data.get("reason")
    if reason is not None:
        if not isinstance(reason, str) or len(reason) > MAX_REASON:
            raise ApiError("bad_request", f"'reason' is a text of at most {MAX_REASON} "
                           f"characters")
        reason = CONTROL.sub("", reason).strip() or None
    return await _settle(request, row, DECLINED, reason)


async def cancel_challenge(request: Request) -> JSONResponse:
    """POST /api/challenges/{id}/cancel: the challenger takes it back."""
    _, row = await _mine(request, "challenger")
    return await _settle(request, row, CANCELLED)


async def _settle(request: Request, row, status: str,
                  reason: str | None = None) -> JSONResponse:
    accounts = request.app.state.accounts
    if not await asyncio.to_thread(settle, accounts.users.engine, row.id, status, reason):
        raise ApiError("not_pending", "this challenge is no longer open")
    accounts.notifier.notify([row.challenger, row.challenged])
    return JSONResponse({"id": row.id, "status": status, "reason": reason})


ROUTES = [Route("/api/challenges", create_challenge, methods=["POST"]),
          Route("/api/challenges", list_challenges),
          Route("/api/challenges/{challenge_id}", show_challenge),
          Route("/api/challenges/{challenge_id}/accept", accept_challenge, methods=["POST"]),
          Route("/api/challenges/{challenge_id}/decline", decline_challenge,
                methods=["POST"]),
          Route("/api/challenges/{challenge_id}/cancel", cancel_challenge, methods=["POST"])]
