"""The tournaments' HTTP routes (docs/server-protocol.md, "Tournaments"): create, read,
list, start (or resume), pause, end, join, leave; the standings as CSV, the records as a
zip; the tournament pages.

Only the director (the account that made it) starts, pauses and ends a tournament (403
forbidden for anyone else); an account joins and leaves for itself. A status changes in one
conditional UPDATE, so two clicks at once cannot both win (409 bad_state for the other).
"""
from __future__ import annotations

import asyncio
from pathlib import Path

from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Route

from ..accounts import names
from ..accounts.routes import signed_in
from ..accounts.users import now
from ..api_games import _clock as checked_clock
from ..messages import CONTROL
from ..rest import ApiError, body, configured_game, hub_of
from . import export, multiside, records, view
from .records import CREATED, OVER, PAUSED, RUNNING

STATIC = Path(__file__).resolve().parents[1] / "static"
FORMATS = ("round-robin", "swiss", "ladder")
MAX_NAME = 100
MAX_PLAYERS = 200
MAX_ROUNDS = 50
MAX_WAIT = 7 * 24 * 3600.0          # seconds: a no-show wait or a ladder's duration
MAX_OPEN = 10                       # tournaments not over one director may have
MAX_AT_ONCE = 20                    # a ladder's games at once per player


def director_of(request: Request):
    return request.app.state.tournaments


def _engine(request: Request):
    return request.app.state.accounts.users.engine


def _seconds(data: dict, field: str):
    value = data.get(field)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or \
            not 0 < value <= MAX_WAIT:
        raise ApiError("bad_request", f"'{field}' is null or seconds, more than 0 and at "
                       f"most {MAX_WAIT:g}")
    return float(value)


def _rounds(format_: str, rounds):
    if format_ == "ladder":
        if rounds is not None:
            raise ApiError("bad_request", "a ladder has no rounds: 'rounds' is null "
                           "('duration' sets how long it runs)")
        return None
    if rounds is None:
        return 1 if format_ == "round-robin" else None
    if isinstance(rounds, bool) or not isinstance(rounds, int):
        raise ApiError("bad_request", "'rounds' is a whole number")
    if format_ == "round-robin" and rounds not in (1, 2):
        raise ApiError("bad_request", "a round robin's 'rounds' is 1 (single) or 2 "
                       "(double: every pair plays once with each colour)")
    if not 1 <= rounds <= MAX_ROUNDS:
        raise ApiError("bad_request", f"a Swiss has 1 to {MAX_ROUNDS} rounds")
    return rounds


def _at_once(format_: str, value):
    """A ladder's games at once per player (None: one)."""
    if value is None:
        return None
    if format_ != "ladder":
        raise ApiError("bad_request", "only a ladder has 'games_at_once'")
    if isinstance(value, bool) or not isinstance(value, int) or \
            not 1 <= value <= MAX_AT_ONCE:
        raise ApiError("bad_request", f"'games_at_once' is a whole number from 1 to "
                       f"{MAX_AT_ONCE}")
    return value


def _name(value) -> str:
    if not isinstance(value, str):
        raise ApiError("bad_request", "'name' is a text")
    cleaned = CONTROL.sub("", value).strip()
    if not 1 <= len(cleaned) <= MAX_NAME:
        raise ApiError("bad_request", f"'name' is 1 to {MAX_NAME} characters")
    return cleaned


def _players(request: Request, value) -> list[int]:
    """The accounts of a create request's usernames (in order); 404 for an unknown one."""
    if not isinstance(value, list) or len(value) > MAX_PLAYERS or \
            not all(isinstance(name, str) for name in value):
        raise ApiError("bad_request", f"'players' is a list of at most {MAX_PLAYERS} "
                       f"usernames")
    users = request.app.state.accounts.users
    found: list[int] = []
    for name in value:
        user = users.find(name) if names.NAME.fullmatch(name) else None
        if user is None or user.disabled:
            raise ApiError("not_found", f"no such user: {name[:40]}")
        if user.id in found:
            raise ApiError("bad_request", f"{user.username} is listed twice")
        found.append(user.id)
    return found


async def create_tournament(request: Request) -> JSONResponse:
    """POST /api/tournaments {"name", "spec", "format", "players", "clock", "rated",
    "rounds", "no_show", "duration", "games_at_once"}: 201 {"id", ...}; the caller directs
    it."""
    me = await signed_in(request)
    data = await body(request, required={"name", "spec", "format"},
                      optional={"players", "clock", "rated", "rounds", "no_show",
                                "duration", "games_at_once"})
    name = _name(data["name"])
    game = configured_game(data["spec"])
    rated = data.get("rated", False)
    clock = checked_clock(data.get("clock"))
    multiside.check_game(game, rated, clock)
    k = multiside.sides_count(game)
    format_ = data["format"]
    if format_ not in FORMATS:
        raise ApiError("bad_request", f"'format' is one of {', '.join(FORMATS)}")
    rounds = _rounds(format_, data.get("rounds"))
    no_show, duration = _seconds(data, "no_show"), _seconds(data, "duration")
    if duration is not None and format_ != "ladder":
        raise ApiError("bad_request", "only a ladder has a 'duration'")
    at_once = _at_once(format_, data.get("games_at_once"))
    entrants = await asyncio.to_thread(_players, request, data.get("players", []))
    multiside.check_field(format_, k, len(entrants), rounds)
    engine = _engine(request)
    mine = await asyncio.to_thread(records.open_count, engine, me.id)
    if mine >= MAX_OPEN:
        raise ApiError("rate_limited", f"at most {MAX_OPEN} tournaments of yours that are "
                       f"not over")
    tournament_id = await asyncio.to_thread(
        records.add, engine, {"name": name, "spec": game.spec, "format": format_,
                              "director": me.id, "clock": clock, "rated": rated,
                              "rounds": rounds, "no_show": no_show, "duration": duration,
                              "games_at_once": at_once},
        entrants)
    row = await asyncio.to_thread(records.find, engine, tournament_id)
    return JSONResponse(view.summary(row, len(entrants)), status_code=201)


async def _tournament(request: Request):
    tournament_id = request.path_params["tournament_id"]
    row = await asyncio.to_thread(records.find, _engine(request), tournament_id) \
        if len(tournament_id) <= 16 else None
    if row is None:
        raise ApiError("not_found", "no such tournament")
    return row


async def _shown(request: Request) -> dict:
    row = await _tournament(request)
    director = director_of(request)
    entrants = await director.entrants(row.id)
    rows = await asyncio.to_thread(records.pairings_of, _engine(request), row.id)
    return await asyncio.to_thread(view.full, row, entrants, rows)   # ratings, schedules


async def show_tournament(request: Request) -> JSONResponse:
    """GET /api/tournaments/{id}: settings, status, players, standings, crosstable,
    pairings and game ids."""
    return JSONResponse(await _shown(request), headers={"cache-control": "no-store"})


async def standings_csv(request: Request) -> Response:
    """GET /api/tournaments/{id}/standings.csv: the standings as CSV."""
    shown = await _shown(request)
    return Response(view.standings_csv(shown), media_type="text/csv; charset=utf-8",
                    headers={"content-disposition":
                             f'attachment; filename="tournament-{shown["id"]}.csv"',
                             "cache-control": "no-store"})


async def records_zip(request: Request) -> Response:
    """GET /api/tournaments/{id}/records.zip: its finished games' records and standings."""
    shown = await _shown(request)
    data = await export.records_zip(hub_of(request), shown)
    return Response(data, media_type="application/zip",
                    headers={"content-disposition":
                             f'attachment; filename="tournament-{shown["id"]}.zip"',
                             "cache-control": "no-store"})


async def list_tournaments(request: Request) -> JSONResponse:
    """GET /api/tournaments: the newest tournaments."""
    rows = await asyncio.to_thread(records.listed, _engine(request))
    return JSONResponse({"tournaments": [view.summary(row, row.entrants) for row in rows]},
                        headers={"cache-control": "no-store"})


def _served(row) -> None:
    """409 bad_state for a tournament ``boardlab tournament`` plays (engines run where it
    runs; it starts, stops and resumes there)."""
    if row.arena is not None:
        raise ApiError("bad_state", f"this tournament is played by `boardlab tournament` "
                       f"({row.arena[:100]}): it is started, stopped and resumed there")


async def _directed(request: Request):
    """The signed-in director and the tournament of the path (403 for anyone else)."""
    me = await signed_in(request)
    row = await _tournament(request)
    _served(row)
    if row.director != me.id:
        raise ApiError("forbidden", "only the tournament's director may do this")
    return row


async def start_tournament(request: Request) -> JSONResponse:
    """POST /api/tournaments/{id}/start: start it (or resume it when paused)."""
    row = await _directed(request)
    director = director_of(request)
    engine = _engine(request)
    if row.status == CREATED:
        active = [e for e in await director.entrants(row.id) if e.active]
        k = multiside.sides_count(director.hub_game(row.spec))
        if len(active) < k:
            raise ApiError("bad_state", f"a tournament of {k} sides needs at least {k} "
                           f"players to start")
        multiside.check_field(row.format, k, len(active), row.rounds)
        moved = await asyncio.to_thread(records.move, engine, row.id, (CREATED,), RUNNING,
                                        started=now(), **director.ladder_ends(row))
    elif row.status == PAUSED:
        moved = await asyncio.to_thread(records.move, engine, row.id, (PAUSED,), RUNNING)
    else:
        moved = False
    if not moved:
        raise ApiError("bad_state", f"this tournament is {row.status}")
    await director.started(row.id)
    return await _status(request, row.id)


async def pause_tournament(request: Request) -> JSONResponse:
    """POST /api/tournaments/{id}/pause: no new games until it is started again (games
    being played go on)."""
    row = await _directed(request)
    if not await asyncio.to_thread(records.move, _engine(request), row.id, (RUNNING,),
                                   PAUSED):
        raise ApiError("bad_state", f"only a running tournament pauses; this one is "
                       f"{row.status}")
    return await _status(request, row.id)


async def end_tournament(request: Request) -> JSONResponse:
    """POST /api/tournaments/{id}/end: no more games (those being played still count)."""
    row = await _directed(request)
    if not await asyncio.to_thread(records.move, _engine(request), row.id,
                                   (CREATED, RUNNING, PAUSED), OVER):
        raise ApiError("bad_state", "this tournament is over already")
    return await _status(request, row.id)


async def join_tournament(request: Request) -> JSONResponse:
    """POST /api/tournaments/{id}/join: the signed-in account joins (before the start;
    a ladder any time it is not over)."""
    me = await signed_in(request)
    row = await _tournament(request)
    _served(row)
    if not (row.status == CREATED or row.format == "ladder" and row.status != OVER):
        raise ApiError("bad_state", f"this tournament is {row.status}: it takes no new "
                       f"players")
    if not await asyncio.to_thread(records.join, _engine(request), row.id, me.id):
        raise ApiError("bad_state", "you are in this tournament already")
    if row.status == RUNNING:
        await director_of(request).advance(row.id)
    return await _status(request, row.id)


async def leave_tournament(request: Request) -> JSONResponse:
    """POST /api/tournaments/{id}/leave: the signed-in account withdraws (its games being
    played go on; a round robin's games still to come are forfeited)."""
    me = await signed_in(request)
    row = await _tournament(request)
    _served(row)
    if row.status == OVER:
        raise ApiError("bad_state", "this tournament is over")
    if not await asyncio.to_thread(records.withdraw, _engine(request), row.id, me.id,
                                   row.status == CREATED):
        raise ApiError("bad_state", "you are not playing in this tournament")
    return await _status(request, row.id)


async def _status(request: Request, tournament_id: str) -> JSONResponse:
    row = await asyncio.to_thread(records.find, _engine(request), tournament_id)
    return JSONResponse({"id": row.id, "status": row.status, "round": row.round})


async def tournaments_page(request: Request) -> FileResponse:
    """/tournaments: the tournaments, and a form to direct one."""
    return FileResponse(STATIC / "tournaments.html")


async def tournament_page(request: Request) -> FileResponse:
    """/tournament/{id}: live standings, crosstable, pairings."""
    return FileResponse(STATIC / "tournament.html")


ROUTES = [Route("/tournaments", tournaments_page),
          Route("/tournament/{tournament_id}", tournament_page),
          Route("/api/tournaments", create_tournament, methods=["POST"]),
          Route("/api/tournaments", list_tournaments),
          Route("/api/tournaments/{tournament_id}", show_tournament),
          Route("/api/tournaments/{tournament_id}/standings.csv", standings_csv),
          Route("/api/tournaments/{tournament_id}/records.zip", records_zip),
          Route("/api/tournaments/{tournament_id}/start", start_tournament,
                methods=["POST"]),
          Route("/api/tournaments/{tournament_id}/pause", pause_tournament,
                methods=["POST"]),
          Route("/api/tournaments/{tournament_id}/end", end_tournament, methods=["POST"]),
          Route("/api/tournaments/{tournament_id}/join", join_tournament, methods=["POST"]),
          Route("/api/tournaments/{tournament_id}/leave", leave_tournament,
                methods=["POST"])]
