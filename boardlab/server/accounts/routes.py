"""The accounts' HTTP routes (docs/server-protocol.md, "Accounts"): sign up, sign in, sign
out, who am I, change the password, delete the account; profiles and leaderboards; the
sign-in and profile pages.

Every answer is JSON; a refusal raises rest.ApiError (codes from messages.CODES). Passwords
and session ids never appear in an answer or a log line.
"""
from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, field
from pathlib import Path

from starlette.requests import HTTPConnection, Request
from starlette.responses import FileResponse, JSONResponse
from starlette.routing import Route

from ..clients import Clock
from ..rest import ApiError, body
from ..store import Store
from . import names
from .bots import bearer_user
from .notifier import Notifier
from .ratings import public
from .sessions import COOKIE, Signer, cookie_header, new_session_id, session_hash
from .throttle import Limits, Throttle
from .users import NameTaken, Users

STATIC = Path(__file__).resolve().parents[1] / "static"
POOL = re.compile(r"[a-z0-9][a-z0-9_.-]{0,39}")


@dataclass
class Accounts:
    """What the routes share: the accounts store, the cookie signer, the throttles."""

    users: Users
    signer: Signer
    secure: bool
    clock: Clock
    limits: Limits = field(default_factory=Limits)

    def __post_init__(self):
        self.notifier = Notifier(self.users.engine)     # wakes the accounts' event streams
        self.by_address = Throttle(self.limits.logins_per_address, self.clock)
        self.by_name = Throttle(self.limits.logins_per_name, self.clock)
        self.signups = Throttle(self.limits.signups_per_address, self.clock)

    @classmethod
    def open(cls, store: Store, secure: bool = False, clock: Clock | None = None,
             limits: Limits | None = None) -> Accounts:
        users = Users(store.engine)
        return cls(users, Signer(users.signing_key()), secure, clock or Clock(),
                   limits or Limits())


def accounts_of(connection: HTTPConnection) -> Accounts:
    return connection.app.state.accounts


async def current_user(connection: HTTPConnection):
    """The signed-in account of a request or WebSocket (its session cookie), or the bot of
    its ``Authorization: Bearer`` token (401 bad_token for a wrong or revoked one), or
    None."""
    accounts = accounts_of(connection)
    bot = await bearer_user(connection)
    if bot is not None:
        return bot
    session_id = accounts.signer.unsign(connection.cookies.get(COOKIE))
    if session_id is None:
        return None
    return await asyncio.to_thread(accounts.users.session_user, session_hash(session_id))


async def signed_in(request: Request):
    """The signed-in account, or 401 not_signed_in."""
    user = await current_user(request)
    if user is None:
        raise ApiError("not_signed_in", "sign in first")
    return user


def _address(request: Request) -> str:
    return request.client.host if request.client else ""


def _me(user) -> dict:
    return {"signed_in": True, "username": user.username, "bot": user.bot}


async def _start_session(request: Request, user, status: int) -> JSONResponse:
    accounts = accounts_of(request)
    session_id = new_session_id()
    await asyncio.to_thread(accounts.users.open_session, user.id, session_hash(session_id))
    response = JSONResponse(_me(user), status_code=status)
    response.headers.append("set-cookie", cookie_header(accounts.signer.sign(session_id),
                                                        accounts.secure))
    response.headers["cache-control"] = "no-store"
    return response


async def signup(request: Request) -> JSONResponse:
    """POST /api/account/signup {"username", "password"}: 201 and the session cookie."""
    accounts = accounts_of(request)
    data = await body(request, required={"username", "password"})
    try:
        username = names.check_name(data["username"])
    except names.NameError_ as error:
        raise ApiError("bad_username", str(error)) from None
    try:
        password = names.check_password(data["password"])
    except ValueError as error:
        raise ApiError("bad_password", str(error)) from None
    if not accounts.signups.allow(_address(request)):
        raise ApiError("rate_limited", "too many sign-ups from this address: wait a minute")
    try:
        user_id = await asyncio.to_thread(accounts.users.create, username, password)
    except NameTaken as error:
        raise ApiError("name_taken", str(error)) from None
    user = await asyncio.to_thread(accounts.users.find, username)
    assert user is not None and user.id == user_id
    return await _start_session(request, user, 201)


async def login(request: Request) -> JSONResponse:
    """POST /api/account/login {"username", "password"}: 200 and the session cookie;
    401 bad_credentials; 429 rate_limited (per address and per username)."""
    accounts = accounts_of(request)
    data = await body(request, required={"username", "password"})
    username, password = data["username"], data["password"]
    if not isinstance(username, str) or not isinstance(password, str) or \
            len(username) > 64 or len(password) > names.MAX_PASSWORD:
        raise ApiError("bad_credentials", "wrong username or password")
    allowed = accounts.by_address.allow(_address(request))
    allowed = accounts.by_name.allow(names.name_key(username)) and allowed
    if not allowed:
        raise ApiError("rate_limited", "too many sign-in attempts: wait a minute")
    user = await asyncio.to_thread(accounts.users.check_password, username, password)
    if user is None:
        raise ApiError("bad_credentials", "wrong username or password")
    return await _start_session(request, user, 200)


def _signed_out(accounts: Accounts) -> JSONResponse:
    response = JSONResponse({"signed_in": False})
    response.headers.append("set-cookie", cookie_header("", accounts.secure, max_age=0))
    return response


async def logout(request: Request) -> JSONResponse:
    """POST /api/account/logout: this session ends (200 even when signed out)."""
    accounts = accounts_of(request)
    session_id = accounts.signer.unsign(request.cookies.get(COOKIE))
    if session_id is not None:
        await asyncio.to_thread(accounts.users.close_session, session_hash(session_id))
    return _signed_out(accounts)


async def whoami(request: Request) -> JSONResponse:
    """GET /api/account: {"signed_in": true, "username", "bot"} or {"signed_in": false}."""
    user = await current_user(request)
    return JSONResponse(_me(user) if user is not None else {"signed_in": False},
                        headers={"cache-control": "no-store"})


async def change_password(request: Request) -> JSONResponse:
    """POST /api/account/password {"password", "new_password"}: every other session ends."""
    accounts = accounts_of(request)
    user = await signed_in(request)
    data = await body(request, required={"password", "new_password"})
    if not isinstance(data["password"], str) or not accounts.by_name.allow(user.name_key):
        raise ApiError("rate_limited", "too many attempts: wait a minute")
    try:
        new = names.check_password(data["new_password"])
    except ValueError as error:
        raise ApiError("bad_password", str(error)) from None
    if await asyncio.to_thread(accounts.users.check_password, user.username,
                               data["password"]) is None:
        raise ApiError("bad_credentials", "wrong password")
    session_id = accounts.signer.unsign(request.cookies.get(COOKIE))
    await asyncio.to_thread(accounts.users.set_password, user.id, new, True,
                            session_hash(session_id or ""))
    return JSONResponse(_me(user))


async def delete_account(request: Request) -> JSONResponse:
    """POST /api/account/delete {"password"}: the account is anonymised (its games stay)."""
    accounts = accounts_of(request)
    user = await signed_in(request)
    data = await body(request, required={"password"})
    if not isinstance(data["password"], str) or not accounts.by_name.allow(user.name_key):
        raise ApiError("rate_limited", "too many attempts: wait a minute")
    if await asyncio.to_thread(accounts.users.check_password, user.username,
                               data["password"]) is None:
        raise ApiError("bad_credentials", "wrong password")
    await asyncio.to_thread(accounts.users.delete, user.id)
    return _signed_out(accounts)


async def show_user(request: Request) -> JSONResponse:
    """GET /api/users/{name}: the profile: name, bot, ratings per pool, the rating after
    each rated game per pool (``history``, oldest first), newest games."""
    users = accounts_of(request).users
    name = request.path_params["name"]
    user = await asyncio.to_thread(users.find, name) if names.NAME.fullmatch(name) else None
    if user is None:
        raise ApiError("not_found", "no such user")
    rows = await asyncio.to_thread(users.ratings_of, user.id)
    played = await asyncio.to_thread(users.games_of, user.id)
    seated = {}
    for game, _, _ in played:
        seated[game.id] = await asyncio.to_thread(users.seated, game.id)
    known = await asyncio.to_thread(users.names, [u for s in seated.values()
                                                  for u in s.values()])
    games = [{"id": game.id, "spec": game.spec, "status": game.status,
              "rated": game.pool is not None, "pool": game.pool, "seats": seats,
              "players": {str(seat): known.get(account)
                          for seat, account in seated[game.id].items()},
              "created": game.created.isoformat(),
              "rating": None if change is None else
              {"before": round(change.before), "after": round(change.rating),
               "score": change.score}}
             for game, seats, change in played]
    changes: dict[str, list] = {}
    for change in await asyncio.to_thread(users.history_of, user.id):
        changes.setdefault(change.pool, []).append(
            {"at": change.created.isoformat(), "rating": round(change.rating)})
    return JSONResponse({"username": user.username, "bot": user.bot,
                         "created": user.created.isoformat(),
                         "ratings": {row.pool: public(row) for row in rows},
                         "history": changes, "games": games})


async def leaderboard(request: Request) -> JSONResponse:
    """GET /api/leaderboard/{pool}: the pool's players, best first (provisional ones too,
    marked)."""
    pool = request.path_params["pool"]
    if not POOL.fullmatch(pool):
        raise ApiError("bad_request", "a pool is a name like carteso-9-blitz")
    rows = await asyncio.to_thread(accounts_of(request).users.leaderboard, pool)
    return JSONResponse({"pool": pool, "players": [
        {"rank": rank, "username": row.username, "bot": row.bot, **public(row)}
        for rank, row in enumerate(rows, 1)]})


async def signin_page(request: Request) -> FileResponse:
    """/signin: sign in or sign up."""
    return FileResponse(STATIC / "signin.html")


async def profile_page(request: Request) -> FileResponse:
    """/user/{name}: a profile (its ratings and games)."""
    return FileResponse(STATIC / "profile.html")


ROUTES = [Route("/signin", signin_page), Route("/user/{name}", profile_page),
          Route("/api/account", whoami),
          Route("/api/account/signup", signup, methods=["POST"]),
          Route("/api/account/login", login, methods=["POST"]),
          Route("/api/account/logout", logout, methods=["POST"]),
          Route("/api/account/password", change_password, methods=["POST"]),
          Route("/api/account/delete", delete_account, methods=["POST"]),
          Route("/api/users/{name}", show_user),
          Route("/api/leaderboard/{pool}", leaderboard)]
