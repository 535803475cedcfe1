"""The REST lobby's common ground: its errors, request bodies, game specs and URLs, and
the routes that describe the games (the catalog, one game's facts).

A refused request raises :class:`ApiError` (a code of the one error catalogue,
messages.CODES, with its HTTP status); :func:`api_error` answers it as ``{"error": {"code",
"message"}}``.
"""
from __future__ import annotations

import math
import re
from functools import lru_cache

from starlette.requests import Request
from starlette.responses import JSONResponse

from ..agents.base import agents as agent_classes
from ..core.errors import BoardlabError
from ..core.game import Game
from ..core.registry import games as game_classes, make
from .hub import Hub
from .messages import HTTP_STATUS, BadJson, read_json
from .room import Room

MAX_BODY = 16384             # bytes of a REST request body
MAX_SPEC = 500
GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,32}")
AI_LEVELS = 5                # an AI seat's level N is mcts(level=N)
RETRY_AFTER = 1              # seconds a 429 asks to wait when it cannot tell better


class ApiError(Exception):
    """A refused REST request: a code of the catalogue and a message; its HTTP status is
    the code's (messages.HTTP_STATUS). A 429 says in ``retry_after`` how many seconds to
    wait (its ``Retry-After`` header; RETRY_AFTER when the refusal cannot tell)."""

    def __init__(self, code: str, message: str, retry_after: float | None = None):
        super().__init__(message)
        self.status, self.code, self.message = HTTP_STATUS[code], code, message
        self.retry_after = retry_after


async def api_error(request: Request, error: ApiError) -> JSONResponse:
    headers = {}
    if error.status == 429:
        wait = RETRY_AFTER if error.retry_after is None else error.retry_after
        headers["Retry-After"] = str(max(1, math.ceil(wait)))
    return JSONResponse({"error": {"code": error.code, "message": error.message}},
                        status_code=error.status, headers=headers)


def hub_of(connection) -> Hub:
    """The hub of a request's or a WebSocket's app."""
    return connection.app.state.hub


async def find_room(hub: Hub, game_id: str) -> Room | None:
    """The room of ``game_id`` (loaded if need be); None for an unknown or malformed id."""
    return await hub.get(game_id) if GAME_ID.fullmatch(game_id) else None


async def room_of(request: Request) -> tuple[Hub, Room]:
    """The hub and the room of the request's game (404 not_found)."""
    hub = hub_of(request)
    room = await find_room(hub, request.path_params["game_id"])
    if room is None:
        raise ApiError("not_found", "no such game")
    return hub, room


async def body(request: Request, required: set[str],
               optional: set[str] | frozenset[str] = frozenset()) -> dict:
    """The request's JSON object, at most MAX_BODY bytes, with exactly the fields allowed."""
    data = b""
    async for chunk in request.stream():
        data += chunk
        if len(data) > MAX_BODY:
            raise ApiError("too_large", f"a request body holds at most {MAX_BODY} bytes")
    try:
        data = read_json(data)
    except BadJson as error:
        raise ApiError("bad_json", f"the body is refused: {error}") from None
    if not isinstance(data, dict) or not required <= set(data) <= required | optional:
        raise ApiError("bad_request", f"a JSON object with {', '.join(sorted(required))}"
                       f"{' and optionally ' + ', '.join(sorted(optional)) if optional else ''}")
    return data


def configured_game(spec) -> Game:
    """The game of a request's spec (400 bad_spec)."""
    if not isinstance(spec, str) or not 0 < len(spec) <= MAX_SPEC:
        raise ApiError("bad_spec", f"'spec' is a game spec of 1 to {MAX_SPEC} characters")
    try:
        return make(spec)
    except BoardlabError as error:
        raise ApiError("bad_spec", str(error)) from None


def ws_url(request: Request, game_id: str, token: str | None = None) -> str:
    base = str(request.base_url).replace("http", "ws", 1).rstrip("/")
    return f"{base}/ws/{game_id}" + (f"?token={token}" if token else "")


def page_url(request: Request, game_id: str, token: str | None = None) -> str:
    """The web page of a game: a seat's (the token in the fragment, never sent in a
    request) or the spectators'."""
    return f"{str(request.base_url).rstrip('/')}/game/{game_id}" + \
        (f"#token={token}" if token else "")


def api_url(request: Request, game_id: str) -> str:
    return f"{str(request.base_url).rstrip('/')}/api/games/{game_id}"


# The games ---------------------------------------------------------------------------------
@lru_cache(maxsize=1)
def catalog() -> dict:
    """Every registered game with its declared options, and the agents an AI seat may be."""
    listed = []
    for cls in game_classes():
        default = cls()
        listed.append({"name": cls.name, "title": default.title or cls.name,
                       "rules": default.rules_summary,
                       "options": [_option(o, default.options[o.name])
                                   for o in cls.declared_options if not o.analysis]})
    agents = [{"name": cls.name, "description": cls.description,
               "options": [_option(o, None if callable(o.default) else o.default)
                           for o in cls.declared_options]}
              for cls in agent_classes() if not cls.name.startswith("engine")]
    return {"games": listed, "agents": agents,
            "levels": [{"level": n, "agent": f"mcts(level={n})"}
                       for n in range(1, AI_LEVELS + 1)]}


def _option(option, default) -> dict:
    return {"name": option.name, "type": option.type.__name__, "default": default,
            "help": option.help, "choices": None if option.choices is None
            else list(option.choices), "minimum": option.minimum, "maximum": option.maximum,
            "common": option.common}


async def show_catalog(request: Request) -> JSONResponse:
    """GET /api/catalog: the games, their declared options, the agents and AI levels."""
    return JSONResponse(catalog())


async def show_facts(request: Request) -> JSONResponse:
    """GET /api/facts?spec=SPEC: the declared facts of one configured game (the lobby's
    seats, teams and rules once options are chosen); 400 bad_spec for a bad spec."""
    return JSONResponse(configured_game(request.query_params.get("spec")).facts())
