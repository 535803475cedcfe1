"""The WebSocket at /ws/{id}: one connection per client, its frames read, parsed and handed
to the game room's one router, and its queued frames written in order."""
from __future__ import annotations

import contextlib
import logging

from starlette.websockets import WebSocket, WebSocketDisconnect

from .accounts.seats import account_seats
from .clients import Client
from .messages import ProtocolError, parse
from .rest import ApiError, find_room, hub_of
from .room import Room
from .wire import encode

CLOSE_REFUSED, CLOSE_TOO_SLOW, CLOSE_FLOODING = 4403, 4408, 4429

log = logging.getLogger("boardlab.server")


async def game_socket(websocket: WebSocket) -> None:
    """/ws/{id}?token=T: a seat's connection (no token: a spectator's, or an account's:
    signed in, or a bot's ``Authorization: Bearer`` token, refused when wrong or revoked)."""
    hub = hub_of(websocket)
    await websocket.accept()
    room = await find_room(hub, websocket.path_params["game_id"])
    if room is None:
        await _refuse(websocket, ProtocolError("not_found", "no such game"))
        return
    token = websocket.query_params.get("token")
    seats = room.seats_of(token)
    refusal: ProtocolError | None = None
    if token and not seats:
        refusal = ProtocolError("forbidden", "this token holds no seat here")
    elif not token:                             # a signed-in person's or a bot's seats
        try:
            seats = await account_seats(websocket, room)
        except ApiError as error:
            refusal = ProtocolError(error.code, error.message)
    if refusal is not None:
        await _refuse(websocket, refusal)
        hub.release(room)
        return
    client = hub.client(seats)
    writer = hub.spawn(_write(websocket, client))
    try:
        await room.connect(client)
        await _read(websocket, room, client)
    finally:
        room.disconnect(client)
        writer.cancel()


async def _refuse(websocket: WebSocket, error: ProtocolError) -> None:
    """Refuse a connection (an unknown game, a seat token that holds no seat, a wrong or
    revoked bot token): the error, then close 4403."""
    await websocket.send_text(encode(error.to_json()))
    await websocket.close(CLOSE_REFUSED)


async def _read(websocket: WebSocket, room: Room, client: Client) -> None:
    """Hand the client's messages to the room until it leaves; a frame over the flood
    limit is refused (``rate_limited``), and a client that keeps flooding is closed (4429).
    A message the server fails on (a bug) is answered ``server_error`` and logged; the
    connection stays open."""
    limits = hub_of(websocket).limits
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
        except ProtocolError as error:
            client.send(error.to_json())
            continue
        try:
            await room.receive(client, message)
        except Exception:                       # a bug: answer, log, keep the connection
            log.exception("game %s: a client message failed", room.id)
            client.send(ProtocolError("server_error", "the server failed on this message",
                                      message.key).to_json())


async def _write(websocket: WebSocket, client: Client) -> None:
    """Send the client's queued frames in order; close a client that fell too far behind."""
    with contextlib.suppress(WebSocketDisconnect, RuntimeError, OSError):
        while (text := await client.outbox.get()) is not None:
            await websocket.send_text(text)
        await websocket.close(CLOSE_TOO_SLOW)
