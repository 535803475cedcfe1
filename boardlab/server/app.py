"""The ASGI app: the REST lobby under /api, one WebSocket per client at /ws/{id}.

:func:`create_app` builds it over a database URL (see store.py); :func:`serve`
runs it on uvicorn (``boardlab serve``). The protocol is in
docs/server-protocol.md.
"""
from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import random
import socket
import threading
from functools import lru_cache
from pathlib import Path

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from ..agents.base import agents as agent_classes
from ..core.errors import BoardlabError
from ..core.game import Game
from ..core.registry import games as game_classes, make
from .ai import Thinker
from .live import MAX_SEED, Client, Clock, Hub, Limits, LiveGame, Window
from .messages import ProtocolError, parse
from .seats import SeatError, parse_seats, players, public_seats
from .store import Store

MAX_BODY = 16384             # bytes of a REST request body
MAX_SPEC = 500
MAX_CLOCK = 30 * 86400       # seconds: a Fischer clock's base, and its increment
GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,32}")
CLOSE_REFUSED, CLOSE_TOO_SLOW, CLOSE_FLOODING = 4403, 4408, 4429
MAX_ANALYSIS = 5.0           # seconds an analysis may think

STATIC = Path(__file__).parent / "static"      # the web app: plain ES modules, no build step
AI_LEVELS = 5                                  # an AI seat's level N is mcts(level=N)


class ApiError(Exception):
    """A refused REST request: HTTP status, a code and a message."""

    def __init__(self, status: int, code: str, message: str):
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


@lru_cache(maxsize=256)
def game_of(spec: str) -> Game:
    """The configured game of a stored spec (games are immutable)."""
    return make(spec)


# REST --------------------------------------------------------------------------------------
async def lobby_page(request: Request) -> FileResponse:
    """/: the lobby (create a game, watch one)."""
    return FileResponse(STATIC / "index.html")


async def game_page(request: Request) -> FileResponse:
    """/game/{id}: the board; the seat token travels in the fragment (#token=...)."""
    return FileResponse(STATIC / "game.html")


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
    return JSONResponse(_game(request.query_params.get("spec")).facts())


async def create_game(request: Request) -> JSONResponse:
    """POST /api/games: a new game; the answer holds each person's secret seat token."""
    data = await _body(request, required={"spec", "seats"},
                       optional={"seed", "hotseat", "clock"})
    _count_create(request)
    game = _game(data["spec"])
    seed = _seed(data.get("seed"))
    clock = _clock(data.get("clock"))
    if not isinstance(data.get("hotseat", False), bool):
        raise ApiError(400, "bad_request", "'hotseat' must be true or false")
    try:
        seats, tokens = parse_seats(game, data["seats"], data.get("hotseat", False))
    except SeatError as error:
        raise ApiError(400, "bad_seats", str(error)) from None
    live = await _hub(request).create(game.spec, seats, seed, clock)
    listed = public_seats(game, seats)
    for seat, token in tokens.items():
        listed[seat].update(token=token, link=_ws_url(request, live.id, token),
                            page=_page_url(request, live.id, token))
    return JSONResponse({"id": live.id, "spec": game.public_spec, "clock": clock,
                         "seats": listed,
                         "watch": _ws_url(request, live.id), "api": _api_url(request, live.id),
                         "watch_page": _page_url(request, live.id)},
                        status_code=201)


def _count_create(request: Request) -> None:
    """At most ``creates_per_minute`` games a minute per client address (429)."""
    hub = _hub(request)
    windows = request.app.state.creates
    address = request.client.host if request.client else ""
    window = windows.get(address)
    if window is None:
        if len(windows) > 10_000:               # forget idle addresses
            windows.clear()
        window = windows[address] = Window(hub.limits.creates_per_minute, 60.0, hub.clock)
    if not window.allow():
        raise ApiError(429, "rate_limited", f"at most {window.count} games a minute from "
                       f"one address")


async def list_games(request: Request) -> JSONResponse:
    """GET /api/games?limit=N: the newest games, public facts only."""
    limit = request.query_params.get("limit", "50")
    if not limit.isdigit() or not 1 <= int(limit) <= 200:
        raise ApiError(400, "bad_request", "limit must be a number from 1 to 200")
    rows = await asyncio.to_thread(_hub(request).store.listing, int(limit))
    return JSONResponse({"games": [_listed(row) for row in rows]})


async def show_game(request: Request) -> JSONResponse:
    """GET /api/games/{id}: the spectators' view, the version and the game's facts."""
    hub, live = await _live(request)
    try:
        version, view = await live.public()
        game = live.driver.game
        return JSONResponse({"id": live.id, "spec": game.public_spec, "version": version,
                             "status": "over" if view["terminal"] else "active",
                             "clock": live.clock, "rematch": live.rematch,
                             "seats": public_seats(game, live.seats), "view": view,
                             "facts": game.facts()})
    finally:
        hub.release(live)


async def game_record(request: Request) -> JSONResponse:
    """GET /api/games/{id}/record: the full record (with the seed), once the game is over."""
    hub, live = await _live(request)
    try:
        async with live.lock:
            if not live.over:
                raise ApiError(409, "not_over", "the record is available once the game is "
                               "over")
            record = live.record(players(live.seats))
        return JSONResponse(record)
    finally:
        hub.release(live)


async def game_sgf(request: Request) -> Response:
    """GET /api/games/{id}/record.sgf: the record as SGF, for games whose facts list "sgf"
    in ``record_formats`` (404 no_sgf otherwise), once the game is over (409 not_over)."""
    hub, live = await _live(request)
    try:
        game = live.driver.game
        if "sgf" not in game.record_formats:
            raise ApiError(404, "no_sgf", f"this game's records come as "
                           f"{', '.join(game.record_formats)}, not SGF")
        async with live.lock:
            if not live.over:
                raise ApiError(409, "not_over", "the record is available once the game is "
                               "over")
            record = live.record(players(live.seats))
        return Response(game.sgf(record), media_type="application/x-go-sgf",
                        headers={"Content-Disposition":
                                 f'attachment; filename="{live.id}.sgf"'})
    finally:
        hub.release(live)


async def analyse_game(request: Request) -> JSONResponse:
    """POST /api/games/{id}/analysis {"at": K, "seconds": S, "token": T}: a search of the
    position after K history entries, from the acting seat's view. A finished game: any
    K; a live one only with a token holding every seat, none of them an AI (403)."""
    hub, live = await _live(request)
    try:
        data = await _body(request, required={"at"}, optional={"seconds", "token"})
        at, seconds, token = data["at"], data.get("seconds", 1.0), data.get("token")
        if isinstance(at, bool) or not isinstance(at, int) or at < 0:
            raise ApiError(400, "bad_request", "'at' is a history length (an integer >= 0)")
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or \
                not 0 < seconds <= MAX_ANALYSIS:
            raise ApiError(400, "bad_request", f"'seconds' is a number above 0 and at most "
                           f"{MAX_ANALYSIS:g}")
        if token is not None and not isinstance(token, str):
            raise ApiError(400, "bad_request", "'token' is a seat token")
        try:
            answer = await live.analyse(at, float(seconds), token)
        except ProtocolError as error:
            status = {"forbidden": 403, "busy": 429}.get(error.code, 400)
            raise ApiError(status, error.code, error.message) from None
        return JSONResponse(answer)
    finally:
        hub.release(live)


async def join_game(request: Request) -> JSONResponse:
    """POST /api/games/{id}/join {"seat": S}: take an open seat; its secret token."""
    hub, live = await _live(request)
    try:
        data = await _body(request, required={"seat"})
        token = await live.take_seat(data["seat"])
    except SeatError as error:
        raise ApiError(409, "not_open", str(error)) from None
    finally:
        hub.release(live)
    return JSONResponse({"id": live.id, "seat": data["seat"], "token": token,
                         "link": _ws_url(request, live.id, token),
                         "page": _page_url(request, live.id, token)})


async def api_error(request: Request, error: ApiError) -> JSONResponse:
    return JSONResponse({"error": {"code": error.code, "message": error.message}},
                        status_code=error.status)


def _hub(connection) -> Hub:
    return connection.app.state.hub


async def _live(request: Request) -> tuple[Hub, LiveGame]:
    hub = _hub(request)
    live = await _find(hub, request.path_params["game_id"])
    if live is None:
        raise ApiError(404, "not_found", "no such game")
    return hub, live


async def _find(hub: Hub, game_id: str) -> LiveGame | None:
    return await hub.get(game_id) if GAME_ID.fullmatch(game_id) else None


async def _body(request: Request, required: set, optional: set = frozenset()) -> dict:
    """The request's JSON object, at most MAX_BODY bytes, with exactly the fields allowed."""
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise ApiError(413, "too_large", f"a request body holds at most {MAX_BODY} bytes")
    try:
        data = json.loads(body)
    except ValueError:
        raise ApiError(400, "bad_json", "the body is not JSON") from None
    if not isinstance(data, dict) or not required <= set(data) <= required | optional:
        raise ApiError(400, "bad_request", f"a JSON object with {', '.join(sorted(required))}"
                       f"{' and optionally ' + ', '.join(sorted(optional)) if optional else ''}")
    return data


def _game(spec) -> Game:
    if not isinstance(spec, str) or not 0 < len(spec) <= MAX_SPEC:
        raise ApiError(400, "bad_spec", f"'spec' is a game spec of 1 to {MAX_SPEC} characters")
    try:
        return make(spec)
    except BoardlabError as error:
        raise ApiError(400, "bad_spec", str(error)) from None


def _seed(seed) -> int | None:
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)
                             or not 0 <= seed <= MAX_SEED):
        raise ApiError(400, "bad_request", f"'seed' is an integer from 0 to {MAX_SEED}")
    return seed


def _clock(clock) -> dict | None:
    """A create request's clock: null (correspondence) or {"base": s, "increment": s}."""
    if clock is None:
        return None
    if not isinstance(clock, dict) or set(clock) != {"base", "increment"} or \
            not _seconds(clock["base"], 0) or clock["base"] == 0 or \
            not _seconds(clock["increment"], 0):
        raise ApiError(400, "bad_clock", f"'clock' is null or {{\"base\": SECONDS, "
                       f"\"increment\": SECONDS}} (0 < base, 0 <= increment, both at most "
                       f"{MAX_CLOCK})")
    return {"base": float(clock["base"]), "increment": float(clock["increment"])}


def _seconds(value, low: float) -> bool:
    """Whether ``value`` is a JSON number of seconds from ``low`` to MAX_CLOCK."""
    return not isinstance(value, bool) and isinstance(value, (int, float)) and \
        low <= value <= MAX_CLOCK


def _listed(row) -> dict:
    game = game_of(row.spec)
    return {"id": row.id, "spec": game.public_spec, "status": row.status, "clock": row.clock,
            "version": row.version, "seats": public_seats(game, row.seats),
            "created": row.created.isoformat(), "updated": row.updated.isoformat()}


def _ws_url(request: Request, game_id: str, token: str | None = None) -> str:
    base = str(request.base_url).replace("http", "ws", 1).rstrip("/")
    return f"{base}/ws/{game_id}" + (f"?token={token}" if token else "")


def _page_url(request: Request, game_id: str, token: str | None = None) -> str:
    """The web page of a game: a seat's (the token in the fragment, never sent in a
    request) or the spectators'."""
    return f"{str(request.base_url).rstrip('/')}/game/{game_id}" + \
        (f"#token={token}" if token else "")


def _api_url(request: Request, game_id: str) -> str:
    return f"{str(request.base_url).rstrip('/')}/api/games/{game_id}"


# WebSocket -------------------------------------------------------------------------------
async def game_socket(websocket: WebSocket) -> None:
    """/ws/{id}?token=T: a seat's connection (no token: a spectator's)."""
    hub = _hub(websocket)
    await websocket.accept()
    live = await _find(hub, websocket.path_params["game_id"])
    token = websocket.query_params.get("token")
    seats = live.seats_of(token) if live is not None else ()
    if live is None or (token and not seats):
        await _refuse(websocket, "not_found" if live is None else "forbidden")
        if live is not None:
            hub.release(live)
        return
    client = hub.client(seats)
    writer = hub.spawn(_write(websocket, client))
    try:
        await live.connect(client)
        await _read(websocket, live, client)
    finally:
        live.disconnect(client)
        writer.cancel()


async def _refuse(websocket: WebSocket, code: str) -> None:
    message = "no such game" if code == "not_found" else "this token holds no seat here"
    await websocket.send_text(json.dumps(ProtocolError(code, message).to_json()))
    await websocket.close(CLOSE_REFUSED)


async def _read(websocket: WebSocket, live: LiveGame, client: Client) -> None:
    """Handle the client's frames until it leaves; a frame over the flood limit is
    refused (``rate_limited``), and a client that keeps flooding is closed (4429)."""
    limits = _hub(websocket).limits
    while True:
        frame = await websocket.receive()
        if frame["type"] == "websocket.disconnect":
            return
        if not client.admit():
            if client.refused >= limits.refused_to_close:
                await websocket.close(CLOSE_FLOODING)
                return
            client.send(ProtocolError("rate_limited", f"at most "
                                      f"{limits.frames_per_second:g} messages a second: "
                                      f"this one was dropped").to_json())
            continue
        try:
            message = parse(frame.get("text", frame.get("bytes")))
            if message.type == "sync":
                await live.sync(client, message.seat)
            elif message.type == "chat":
                await live.say(client, message)
            elif message.type == "spectator_chat":
                await live.spectator_chat(client, message.on)
            elif message.type == "look":
                await live.look(client, message.at)
            else:
                await live.handle(client, message)
        except ProtocolError as error:
            client.send(error.to_json())


async def _write(websocket: WebSocket, client: Client) -> None:
    """Send the client's queued frames in order; close a client that fell too far behind."""
    with contextlib.suppress(WebSocketDisconnect, RuntimeError, OSError):
        while (text := await client.outbox.get()) is not None:
            await websocket.send_text(text)
        await websocket.close(CLOSE_TOO_SLOW)


# The app ------------------------------------------------------------------------------------
def create_app(db_url: str, ai_processes: int | None = None,
               thinker: Thinker | None = None, clock: Clock | None = None,
               limits: Limits | None = None) -> Starlette:
    """The server over the database at ``db_url`` (a SQLAlchemy URL).

    AI seats think in ``ai_processes`` worker processes (0: threads; default: the
    cores but one, at least one), or in the ``thinker`` given. ``clock`` is the
    server's time (``now()`` and ``async sleep(s)``; tests pass a fake one).
    ``limits``: the flood limits (default ``Limits()``; ``Limits.off()`` for load checks).
    """
    store = Store(db_url)
    if ai_processes is None:
        ai_processes = max(1, (os.cpu_count() or 2) - 1)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette):
        app.state.hub = Hub(store, thinker or Thinker(ai_processes), clock, limits)
        app.state.creates = {}                  # client address -> its create Window
        await app.state.hub.start()
        await app.state.hub.resume()
        try:
            yield
        finally:
            await app.state.hub.close()

    routes = [Route("/", lobby_page), Route("/game/{game_id}", game_page),
              Mount("/static", StaticFiles(directory=STATIC), name="static"),
              Route("/api/catalog", show_catalog), Route("/api/facts", show_facts),
              Route("/api/games", create_game, methods=["POST"]),
              Route("/api/games", list_games), Route("/api/games/{game_id}", show_game),
              Route("/api/games/{game_id}/record", game_record),
              Route("/api/games/{game_id}/record.sgf", game_sgf),
              Route("/api/games/{game_id}/analysis", analyse_game, methods=["POST"]),
              Route("/api/games/{game_id}/join", join_game, methods=["POST"]),
              WebSocketRoute("/ws/{game_id}", game_socket)]
    app = Starlette(routes=routes, lifespan=lifespan,
                    exception_handlers={ApiError: api_error})
    app.state.database = store.safe_url
    return app


def serve(host: str, port: int, db_url: str, limits: Limits | None = None) -> int:
    """Run the server until interrupted; print the URL to open once it listens."""
    import uvicorn
    app = create_app(db_url, limits=limits)
    sock = _listen(host, port)
    shown = f"[{host}]" if ":" in host else host
    print(f"boardlab server: open http://{shown}:{sock.getsockname()[1]}/ (database "
          f"{app.state.database}; Ctrl-C stops it)", flush=True)
    # no permessage-deflate: a view is a few kilobytes, and compressing every frame cost
    # about a tenth of the server's CPU per action under load (docs/server-checks.md)
    config = uvicorn.Config(app, log_level="warning", access_log=False, ws_max_size=65536,
                            ws_per_message_deflate=False, lifespan="on")
    threading.Thread(target=warm_up, name="boardlab-warm-up", daemon=True).start()
    uvicorn.Server(config).run(sockets=[sock])
    return 0


def warm_up(moves: int = 4) -> None:
    """Import every game and run its kernels a few moves, in a thread while the server
    already answers: without it the first game of a kind loads its kernels in the event
    loop (and after an upgrade compiles them, for seconds), stalling every game.
    """
    rng = random.Random(0)
    for cls in game_classes():
        try:
            state = cls().new_initial_state(seed=rng.randrange(MAX_SEED))
            for _ in range(moves):
                if state.is_terminal():
                    break
                state.apply(state.sample_chance(rng) if state.is_chance()
                            else rng.choice(state.legal_actions()))
            state.view(None)
        except Exception:                   # pragma: no cover - a broken game says so
            continue                        # when it is played, not here


def _listen(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(2048)                   # connections wait while the games load
    except OSError as error:
        sock.close()
        raise BoardlabError(f"cannot listen on {host}:{port}: {error.strerror or error}") \
            from None
    return sock
