"""Bot accounts and their API tokens (the shape of lichess's Bot API), and the house bots.

A bot account is made by whoever runs the server (``boardlab user create NAME --bot``) or
by a signed-in person (``POST /api/account/bots``: the person owns it). A token is
``blb_`` and 256 random bits, shown once when it is made; the database keeps only its
SHA-256, so a copy of the database holds no usable token. A token acts for its bot with
``Authorization: Bearer TOKEN`` (the event stream, challenges, the game socket); revoking
deletes the bot's tokens, so a revoked token is refused at once.

The house AI levels are the bot accounts ``ai-1`` ... ``ai-5`` (made by migration 0004;
the names are reserved): a challenge to one is accepted at once, and its seat is an AI
seat of the server's ``mcts(level=N)`` held by the account, rated like any other.
"""
from __future__ import annotations

import asyncio
import hashlib
import re
import secrets

from sqlalchemy import Engine, delete, insert, select, update
from starlette.requests import HTTPConnection, Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from ..rest import ApiError, body
from . import names
from .schema import tokens, users
from .users import NameTaken, now

PREFIX = "blb_"
HOUSE = re.compile(r"ai-([1-5])")
MAX_OWNED = 10                  # bot accounts one person may own


def new_token() -> str:
    """A fresh API token."""
    return PREFIX + secrets.token_urlsafe(32)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def house_level(user) -> int | None:
    """The AI level of a house bot account (None: not one)."""
    found = HOUSE.fullmatch(user.username or "") if user.bot and user.owner_id is None \
        else None
    return int(found.group(1)) if found else None


# The database (synchronous: the routes run these in threads) ---------------------------------
def issue(engine: Engine, user_id: int) -> str:
    """A new token of the bot ``user_id`` (its other tokens stay)."""
    token = new_token()
    with engine.begin() as db:
        db.execute(insert(tokens).values(hash=token_hash(token), user_id=user_id,
                                         created=now()))
    return token


def revoke(engine: Engine, user_id: int) -> int:
    """Revoke every token of ``user_id``; how many there were."""
    with engine.begin() as db:
        return db.execute(delete(tokens).where(tokens.c.user_id == user_id)).rowcount


def token_user(engine: Engine, token: str):
    """The live bot account of a token, or None (unknown, revoked, disabled, deleted)."""
    if not token.startswith(PREFIX) or len(token) > 100:
        return None
    query = select(users).join(tokens, tokens.c.user_id == users.c.id).where(
        tokens.c.hash == token_hash(token), users.c.bot.is_(True),
        users.c.disabled.is_(False), users.c.deleted.is_(False))
    with engine.connect() as db:
        return db.execute(query).first()


def create_owned(engine: Engine, owner_id: int, username: str) -> str:
    """A new bot account owned by ``owner_id`` and its first token (NameTaken)."""
    from .users import Users
    with engine.connect() as db:
        owned = db.execute(select(users.c.id).where(users.c.owner_id == owner_id,
                                                    users.c.deleted.is_(False))).all()
    if len(owned) >= MAX_OWNED:
        raise ValueError(f"a person owns at most {MAX_OWNED} bot accounts")
    user_id = Users(engine).create(username, None, bot=True)
    with engine.begin() as db:
        db.execute(update(users).where(users.c.id == user_id).values(owner_id=owner_id))
    return issue(engine, user_id)


def create_many(engine: Engine, usernames: list[str]) -> list[str]:
    """New bot accounts (no owner, no password) and each one's first token, in one
    transaction: all of them or none (NameTaken names the first name already taken)."""
    from sqlalchemy.exc import IntegrityError
    keys = [names.name_key(name) for name in usernames]
    if len(set(keys)) != len(keys):
        raise ValueError("the names repeat")
    made = [new_token() for _ in usernames]
    try:
        with engine.begin() as db:
            taken = {row.name_key for row in db.execute(select(users.c.name_key).where(
                users.c.name_key.in_(keys + [names.deleted_key(key) for key in keys])))}
            for name, key in zip(usernames, keys):
                if key in taken or names.deleted_key(key) in taken:
                    raise NameTaken(f"the name {name!r} is taken")
            for name, key, token in zip(usernames, keys, made):
                row = db.execute(insert(users).values(
                    username=name, name_key=key, password=None, bot=True, disabled=False,
                    deleted=False, created=now())).inserted_primary_key
                assert row is not None
                db.execute(insert(tokens).values(hash=token_hash(token), user_id=row[0],
                                                 created=now()))
    except IntegrityError:
        raise NameTaken("one of the names was taken meanwhile: nothing was made") from None
    return made


def owned(engine: Engine, owner_id: int) -> list:
    with engine.connect() as db:
        return list(db.execute(select(users.c.username).where(
            users.c.owner_id == owner_id, users.c.deleted.is_(False))
            .order_by(users.c.username)))


# Bearer authentication -------------------------------------------------------------------------
def bearer(connection: HTTPConnection) -> str | None:
    """The token of an ``Authorization: Bearer`` header (None: no such header)."""
    header = connection.headers.get("authorization")
    if header is None:
        return None
    scheme, _, token = header.partition(" ")
    return token.strip() if scheme.lower() == "bearer" else ""


async def bearer_user(connection: HTTPConnection):
    """The bot of the request's bearer token; None without one; ApiError bad_token for a
    wrong, revoked or disabled one."""
    token = bearer(connection)
    if token is None:
        return None
    user = await asyncio.to_thread(token_user, connection.app.state.accounts.users.engine,
                                   token) if token else None
    if user is None:
        raise ApiError("bad_token", "this API token is unknown or revoked")
    return user


# Routes ----------------------------------------------------------------------------------------
async def _owner(request: Request):
    from .routes import signed_in
    user = await signed_in(request)
    if user.bot:
        raise ApiError("forbidden", "a bot account cannot own bot accounts")
    return user


async def _owned_bot(request: Request):
    owner = await _owner(request)
    users_ = request.app.state.accounts.users
    bot = await asyncio.to_thread(users_.find, request.path_params["name"]) \
        if names.NAME.fullmatch(request.path_params["name"]) else None
    if bot is None or bot.owner_id != owner.id:
        raise ApiError("not_found", "you own no bot of that name")
    return bot


async def create_bot(request: Request) -> JSONResponse:
    """POST /api/account/bots {"username"}: a bot account owned by the signed-in person;
    201 {"username", "bot": true, "token"} (the token is shown this once)."""
    owner = await _owner(request)
    data = await body(request, required={"username"})
    try:
        username = names.check_name(data["username"])
    except names.NameError_ as error:
        raise ApiError("bad_username", str(error)) from None
    engine = request.app.state.accounts.users.engine
    try:
        token = await asyncio.to_thread(create_owned, engine, owner.id, username)
    except NameTaken as error:
        raise ApiError("name_taken", str(error)) from None
    except ValueError as error:
        raise ApiError("forbidden", str(error)) from None
    return JSONResponse({"username": username, "bot": True, "token": token},
                        status_code=201, headers={"cache-control": "no-store"})


async def list_bots(request: Request) -> JSONResponse:
    """GET /api/account/bots: the bot accounts the signed-in person owns."""
    owner = await _owner(request)
    rows = await asyncio.to_thread(owned, request.app.state.accounts.users.engine, owner.id)
    return JSONResponse({"bots": [row.username for row in rows]})


async def new_bot_token(request: Request) -> JSONResponse:
    """POST /api/account/bots/{name}/token: a new token of an owned bot (shown once)."""
    bot = await _owned_bot(request)
    token = await asyncio.to_thread(issue, request.app.state.accounts.users.engine, bot.id)
    return JSONResponse({"username": bot.username, "token": token}, status_code=201,
                        headers={"cache-control": "no-store"})


async def revoke_bot_tokens(request: Request) -> JSONResponse:
    """POST /api/account/bots/{name}/revoke: every token of an owned bot stops working."""
    bot = await _owned_bot(request)
    count = await asyncio.to_thread(revoke, request.app.state.accounts.users.engine, bot.id)
    return JSONResponse({"username": bot.username, "revoked": count})


ROUTES = [Route("/api/account/bots", create_bot, methods=["POST"]),
          Route("/api/account/bots", list_bots),
          Route("/api/account/bots/{name}/token", new_bot_token, methods=["POST"]),
          Route("/api/account/bots/{name}/revoke", revoke_bot_tokens, methods=["POST"])]
