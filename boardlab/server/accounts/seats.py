"""Seats held by accounts: a signed-in person's seats belong to the account (any device
they sign in on plays them; the seat links keep working too), and rated games.

A signed-in creator's account holds the first human seat of a new game (every human seat
of a hotseat game); a signed-in person who takes an open seat holds it. A rated game
(``"rated": true``) needs a signed-in creator, a game its pool allows (ratings.pool_of),
one human seat for the creator and the others open, to be taken by other accounts. The
game is rated when it ends (hub's end listeners) if each seat is held by a different
account.
"""
from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from starlette.websockets import WebSocket

from ...core.game import Game
from ..rest import ApiError
from ..seats import AI, HUMAN, OPEN
from .bots import bearer_user
from .guard import same_origin
from .ratings import NotRatable, pool_of, rate
from .routes import current_user

if TYPE_CHECKING:
    from starlette.requests import Request

    from ..room import Room

log = logging.getLogger("boardlab.server")


async def claim_new_game(request: Request, game: Game, seats: list[dict], rated,
                         hotseat: bool, clock: dict | None) -> str | None:
    """Give the signed-in creator's account its seats (in ``seats``); the rating pool of a
    rated game on ``clock`` (None: casual). ApiError when a rated game cannot be."""
    if not isinstance(rated, bool):
        raise ApiError("bad_request", "'rated' must be true or false")
    user = await current_user(request) if request.cookies else None
    pool = None
    if rated:
        if user is None:
            raise ApiError("not_signed_in", "sign in to create a rated game")
        try:
            pool = pool_of(game, clock)
        except NotRatable as error:
            raise ApiError("bad_spec", str(error)) from None
        kinds = [seat["kind"] for seat in seats]
        if hotseat or kinds.count(HUMAN) != 1 or kinds.count(OPEN) != len(kinds) - 1:
            raise ApiError("bad_seats", "a rated game has one \"human\" seat (yours) and the "
                           "others \"open\", taken by other signed-in people")
    if user is not None:
        for seat in seats:
            if seat["kind"] == HUMAN:
                seat["user"] = user.id
                if not hotseat:
                    break
    return pool


async def joining_account(request: Request, room: Room) -> int | None:
    """The account taking an open seat of ``room`` (None: not signed in, in a casual game).
    ApiError for a rated game without a sign-in, or with a seat of the account already."""
    user = await current_user(request) if request.cookies else None
    row = await asyncio.to_thread(room.hub.store.game, room.id)
    if row is not None and row.pool is not None:
        if user is None:
            raise ApiError("not_signed_in", "sign in to take a seat of a rated game")
        if any(seat.get("user") == user.id for seat in room.seats):
            raise ApiError("forbidden", "you hold a seat of this rated game already")
    return None if user is None else user.id


async def account_seats(websocket: WebSocket, room: Room) -> tuple[int, ...]:
    """The seats of ``room`` the WebSocket's signed-in account holds (none for a socket
    opened from another site), or the bot's of its ``Authorization: Bearer`` token.
    ApiError ``bad_token`` for a wrong or revoked token (the socket is refused, as for a
    seat token that holds no seat: it does not watch as a spectator instead)."""
    user = await bearer_user(websocket)
    if user is None:
        if not websocket.cookies or not same_origin(websocket.scope, websocket.headers):
            return ()
        user = await current_user(websocket)
    if user is None:
        return ()
    return tuple(number for number, seat in enumerate(room.seats)
                 if seat.get("user") == user.id and seat["kind"] != AI)


async def rate_when_over(room: Room) -> None:
    """The hub's end listener: a game held by different accounts is rated (when it is a
    rated game), before anyone is told the game is over (so a profile read after the end
    shows the new ratings); a failure is logged, never breaks the game."""
    accounts = [seat.get("user") for seat in room.seats]
    if None in accounts or len(set(accounts)) != len(accounts):
        return
    try:
        await asyncio.to_thread(rate, room.hub.store.engine, room.id,
                                list(room.driver.state.returns()),
                                [list(side) for side in room.driver.game.teams])
    except Exception:
        log.exception("game %s: the rating update failed", room.id)
