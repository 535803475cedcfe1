"""Client messages over the WebSocket: parsing and validation, and typed errors.

Every frame is checked before anything else happens: its size, that it is
JSON the server reads (:func:`read_json`: nested at most :data:`MAX_DEPTH` deep,
every string Unicode text), that it is a JSON object, its ``type``, that it has
exactly the fields of that type, and each field's type and range. A bad frame
raises :class:`ProtocolError` with a code from :data:`CODES`; nothing changes.
See docs/server-protocol.md.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, TypeVar

MAX_FRAME = 4096           # bytes per client frame
MAX_MOVE = 200             # characters of a move in notation
MAX_INT = 2 ** 31 - 1
KEY = re.compile(r"[A-Za-z0-9._:-]{1,64}")
MAX_CHAT = 500             # characters of a chat message (after control characters go)
CHANNELS = ("players", "team", "spectators")
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")    # all but tab and newline
MAX_DEPTH = 32             # nesting levels of arrays and objects in a client's JSON
#: a JSON string (skipped when counting nesting) or a bracket
STRUCTURE = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[][{}]', re.S)
SURROGATE = re.compile("[\ud800-\udfff]")      # a lone surrogate: no Unicode text

#: The one catalogue of error codes, of the WebSocket (``{"type": "error", "code"}``) and
#: of the REST lobby (``{"error": {"code"}}``): code -> what it means.
CODES = {
    "bad_message": f"a frame that is not a valid message (JSON nested at most {MAX_DEPTH} "
                   f"deep whose strings are Unicode text, type, fields)",
    "too_large": f"a frame over {MAX_FRAME} bytes, or a request body over the REST limit",
    "forbidden": "the seat is not held by this connection (or a spectator tried to act), "
                 "or an analysis of a running game without a token holding every seat",
    "not_your_turn": "the seat does not act now",
    "stale_version": "the action was chosen at another version than the game's",
    "illegal_move": "the rules do not allow the move (the message says why)",
    "game_over": "the game is over",
    "out_of_time": "the seat's clock ran out before its action arrived: it lost on time",
    "undo_refused": "no undo here (not against AIs only, nothing to take back, or across "
                    "a reveal or a draw of cards)",
    "no_draw": "no draw here (the game allows none, no offer to accept, or an offer "
               "already stands)",
    "no_rematch": "no rematch offer here (none of another side to accept or decline, none "
                  "of this side to withdraw, or this side's offer stands already)",
    "not_over": "a rematch, a record or a review of a game that is not over",
    "no_seat": "the seat could not be given up (the server could not store it)",
    "duplicate_key": "the idempotency key was used for another action (another seat's, "
                     "or another move or kind of action)",
    "rate_limited": "too many messages (or chat messages, or games created) in a short "
                    "time: the request was dropped",
    "server_error": "the server could not store the action; nothing changed",
    "not_found": "no such game (or no such user)",
    "bad_json": f"a REST request body that is not JSON the server reads (not JSON, "
                f"nested over {MAX_DEPTH} deep, or a string that is not Unicode text)",
    "bad_request": "a REST request with missing, unknown or out-of-range fields",
    "bad_spec": "a game spec that names no game or sets a bad option",
    "bad_seats": "seats that do not fit the game (count, kinds, an AI's agent spec)",
    "bad_clock": "a clock that is not null, {days} or {base, increment} in range",
    "no_sgf": "a record as SGF of a game whose records do not come as SGF",
    "not_open": "a join of a seat that is not open",
    "busy": "as many analyses (or reviews) as the server allows are running: try again "
            "later",
    "bad_credentials": "a wrong username or password (sign-in, or a password check)",
    "name_taken": "the username is taken (names are unique without regard to case)",
    "bad_username": "a username that is not 2 to 20 ASCII letters, digits, - and _, or a "
                    "reserved one",
    "bad_password": "a new password that is too short or too long",
    "not_signed_in": "the request needs a signed-in account (a session cookie)",
    "csrf_failed": "a state-changing request with the session cookie (or any account "
                   "request) without the X-Boardlab-CSRF header, or from another site",
    "bad_token": "an Authorization: Bearer token that is unknown, revoked, or of a disabled "
                 "account",
    "not_pending": "a challenge or seek that is no longer open (accepted, declined, "
                   "cancelled)",
    "bad_state": "a tournament action its status does not allow (starting one that runs, "
                 "joining one that began, pausing one that is not running)",
}

#: The HTTP status of every code the REST lobby answers with (the others are WebSocket only).
HTTP_STATUS = {
    "bad_json": 400, "bad_request": 400, "bad_spec": 400, "bad_seats": 400,
    "bad_clock": 400, "forbidden": 403, "not_found": 404, "no_sgf": 404, "not_over": 409,
    "not_open": 409, "too_large": 413, "rate_limited": 429, "busy": 429,
    "bad_credentials": 401, "name_taken": 409, "bad_username": 400, "bad_password": 400,
    "not_signed_in": 401, "csrf_failed": 403, "bad_token": 401, "not_pending": 409,
    "bad_state": 409,
}

#: required fields (name -> type) and optional fields of each message type
FIELDS: dict[str, tuple[dict[str, type], dict[str, type]]] = {
    "action": ({"seat": int, "move": str, "version": int, "key": str}, {}),
    "resign": ({"seat": int, "key": str}, {}),
    "sync": ({}, {"seat": int}),
    "undo": ({"seat": int, "key": str}, {}),
    "offer_draw": ({"seat": int}, {}),
    "decline_draw": ({"seat": int}, {}),
    "accept_draw": ({"seat": int, "key": str}, {}),
    "leave": ({"seat": int, "key": str}, {}),
    "rematch": ({}, {}),
    "accept_rematch": ({}, {}),
    "decline_rematch": ({}, {}),
    "withdraw_rematch": ({}, {}),
    "chat": ({"channel": str, "text": str}, {"seat": int}),
    "spectator_chat": ({"on": bool}, {}),
    "look": ({"at": int}, {}),
    "explain": ({"seat": int, "picks": list}, {}),
}
#: each message type's fields, required and optional together
ALLOWED = {kind: {**required, **optional} for kind, (required, optional) in FIELDS.items()}
MAX_PICKS = 8              # clicks of one gesture an "explain" message may name
PICK_KINDS = ("cell", "piece", "card", "token")

#: the first character of the server's own log entries (never of a client's move)
SERVER_ENTRY = "!"


class ProtocolError(Exception):
    """A refused message: ``code`` (one of CODES) and a message for people."""

    def __init__(self, code: str, message: str, key: str | None = None):
        super().__init__(message)
        self.code, self.message, self.key = code, message, key

    def to_json(self) -> dict:
        data = {"type": "error", "code": self.code, "message": self.message}
        if self.key is not None:
            data["key"] = self.key
        return data


@dataclass(frozen=True)
class Message:
    """A valid client message."""

    type: str
    seat: int | None = None
    move: str | None = None
    version: int | None = None
    key: str | None = None
    channel: str | None = None
    text: str | None = None
    on: bool | None = None
    at: int | None = None
    picks: tuple[tuple[str, str], ...] | None = None


T = TypeVar("T")


def required(value: T | None, name: str) -> T:
    """A field the message's type requires (``parse`` makes sure it is there)."""
    if value is None:
        raise ProtocolError("bad_message", f"this message needs {name}")
    return value


def chat_text(text: str) -> str:
    """A chat message's plain text: control characters (but newlines and tabs) removed,
    surrounding blanks stripped; 1 to MAX_CHAT characters, else ProtocolError."""
    text = CONTROL.sub("", text).strip()
    if not 0 < len(text) <= MAX_CHAT:
        raise ProtocolError("bad_message", f"a chat message has 1 to {MAX_CHAT} characters")
    return text


class BadJson(ValueError):
    """A client's JSON that the server does not read (the message says why)."""


def read_json(data: str | bytes) -> Any:
    """The value of a client's JSON text (a WebSocket frame, a REST body), or BadJson: not
    JSON, nested deeper than MAX_DEPTH arrays and objects (checked before parsing: a deep
    nest would exhaust the parser's stack), or with a string (a key too) that is not
    Unicode text (a lone surrogate, ``"\\ud800"``, that no database stores)."""
    if isinstance(data, bytes):
        try:
            data = data.decode(json.detect_encoding(data))
        except (UnicodeDecodeError, LookupError):
            raise BadJson("it is not JSON text (UTF-8)") from None
    if _too_deep(data):
        raise BadJson(f"it is nested deeper than {MAX_DEPTH} arrays and objects")
    try:
        value = json.loads(data)
    except (ValueError, RecursionError):
        raise BadJson("it is not JSON") from None
    # a lone surrogate in the value is one in the text or one written as an escape
    if ("\\u" in data or SURROGATE.search(data)) and not _is_text(value):
        raise BadJson("a string in it is not Unicode text (a lone surrogate, \\ud800 to "
                      "\\udfff)")
    return value


def _too_deep(text: str) -> bool:
    """Whether ``text`` opens more than MAX_DEPTH arrays and objects one inside another
    (brackets in strings do not count)."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return False
    depth = 0
    for token in STRUCTURE.finditer(text):
        bracket = token.group()
        if bracket in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return True
        elif bracket in "]}":
            depth -= 1
    return False


def _is_text(value: Any) -> bool:
    """Whether every string in a parsed JSON value (at most MAX_DEPTH deep) is text."""
    if isinstance(value, str):
        return SURROGATE.search(value) is None
    if isinstance(value, dict):
        return all(_is_text(key) and _is_text(item) for key, item in value.items())
    if isinstance(value, list):
        return all(_is_text(item) for item in value)
    return True


def parse(frame: str | bytes | None) -> Message:
    """The message in one WebSocket frame, or ProtocolError."""
    if not isinstance(frame, str):
        raise ProtocolError("bad_message", "send JSON text frames, not binary ones")
    if len(frame) > MAX_FRAME // 4 and len(frame.encode("utf-8", "surrogatepass")) > MAX_FRAME:
        raise ProtocolError("too_large", f"a frame may hold at most {MAX_FRAME} bytes")
    try:
        data = read_json(frame)
    except BadJson as error:
        raise ProtocolError("bad_message", f"the frame is refused: {error}") from None
    if not isinstance(data, dict) or data.get("type") not in FIELDS:
        raise ProtocolError("bad_message", f"a message is a JSON object with a \"type\" of "
                            f"{', '.join(FIELDS)}")
    kind = data.pop("type")
    _check_fields(kind, data)
    if "picks" in data:
        data["picks"] = tuple((pick["kind"], pick["value"]) for pick in data["picks"])
    return Message(kind, **data)


def _check_fields(kind: str, data: dict) -> None:
    required, allowed = FIELDS[kind][0], ALLOWED[kind]
    if not (required.keys() <= data.keys() <= allowed.keys()):
        missing = sorted(required.keys() - data.keys())
        unknown = sorted(data.keys() - allowed.keys())
        what = f"missing {', '.join(missing)}" if missing else f"unknown {', '.join(unknown)}"
        raise ProtocolError("bad_message", f"{kind!r} message: {what}")
    for name, value in data.items():
        _check_value(kind, name, value, allowed[name])


def _check_value(kind: str, name: str, value, expected: type) -> None:
    if expected is int and (isinstance(value, bool) or not isinstance(value, int)
                            or not 0 <= value <= MAX_INT):
        raise ProtocolError("bad_message", f"{kind!r} message: {name} must be an integer "
                            f">= 0")
    if expected is str and not isinstance(value, str):
        raise ProtocolError("bad_message", f"{kind!r} message: {name} must be a string")
    if expected is bool and not isinstance(value, bool):
        raise ProtocolError("bad_message", f"{kind!r} message: {name} must be true or false")
    if expected is list:
        _check_picks(kind, value)
    if name == "channel" and value not in CHANNELS:
        raise ProtocolError("bad_message", f"a chat channel is one of {', '.join(CHANNELS)}")
    if name == "move" and not 0 < len(value) <= MAX_MOVE:
        raise ProtocolError("bad_message", f"a move has 1 to {MAX_MOVE} characters")
    if name == "move" and value.startswith(SERVER_ENTRY):
        raise ProtocolError("bad_message", f"a move never starts with {SERVER_ENTRY!r}")
    if name == "key" and not KEY.fullmatch(value):
        raise ProtocolError("bad_message", "a key has 1 to 64 characters from A-Z a-z 0-9 "
                            "._:-")


def _check_picks(kind: str, value) -> None:
    """A gesture's clicks: 1 to MAX_PICKS objects ``{"kind", "value"}``."""
    if not isinstance(value, list) or not 0 < len(value) <= MAX_PICKS or not all(
            isinstance(pick, dict) and set(pick) == {"kind", "value"} and
            pick["kind"] in PICK_KINDS and isinstance(pick["value"], str) and
            0 < len(pick["value"]) <= MAX_MOVE for pick in value):
        raise ProtocolError("bad_message", f"{kind!r} message: picks are 1 to {MAX_PICKS} "
                            f"objects {{kind: {' | '.join(PICK_KINDS)}, value: text}}")
