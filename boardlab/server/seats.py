"""Seats: a person (holding a secret token), an AI (an agent spec), or open.

A token is 192 random bits from :mod:`secrets`; only its SHA-256 hash is
stored. One token may hold several seats (hotseat). A stored seat is a plain
dict: ``{"kind": "human", "token": HASH}``, ``{"kind": "ai", "agent": SPEC}``
or ``{"kind": "open"}``.
"""
from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Mapping

from ..agents import EngineAgent, agents, make_agent
from ..core.errors import BoardlabError
from ..core.game import Game
from ..core.options import parse_spec

HUMAN, AI, OPEN = "human", "ai", "open"
MAX_AGENT_SPEC = 200
#: the most an AI seat's agent options may ask for, by option name (a client must not
#: make the server think for an hour a move): seconds a move, simulations a move, and
#: states sampled up front. Levels (mcts(level=N)) always fit.
AGENT_CAPS = {"time": 10.0, "iterations": 200_000, "determinizations": 64,
              "worlds": 10_000}


class SeatError(BoardlabError):
    """A seat description that cannot be used."""


def new_token() -> str:
    """A fresh secret seat token (192 bits, URL-safe text)."""
    return secrets.token_urlsafe(24)


def token_hash(token: str) -> str:
    """The stored form of a token."""
    return hashlib.sha256(token.encode()).hexdigest()


def seats_of(seats: list[dict], token: str | None) -> tuple[int, ...]:
    """The seats ``token`` holds (none for no token or a wrong one)."""
    if not token:
        return ()
    digest = token_hash(token)
    return tuple(number for number, seat in enumerate(seats)
                 if seat["kind"] == HUMAN and hmac.compare_digest(seat["token"], digest))


def parse_seats(game: Game, given, hotseat: bool) -> tuple[list[dict], dict[int, str]]:
    """Stored seats and the new tokens (by seat) from a create request's ``seats``.

    Each entry is ``"human"``, ``"open"`` or ``{"ai": AGENT_SPEC}``; with
    ``hotseat`` every human seat shares one token.
    """
    if not isinstance(given, list) or len(given) != game.num_seats:
        raise SeatError(f"'seats' must be a list of {game.num_seats} seats "
                        f"({', '.join(game.seat_names)})")
    shared = new_token() if hotseat else None
    seats, tokens = [], {}
    for number, entry in enumerate(given):
        seat = _parse_seat(game, number, entry)
        if seat["kind"] == HUMAN:
            tokens[number] = shared or new_token()
            seat["token"] = token_hash(tokens[number])
        seats.append(seat)
    return seats, tokens


def _parse_seat(game: Game, number: int, entry) -> dict:
    if entry in (HUMAN, OPEN):
        return {"kind": entry}
    if isinstance(entry, dict) and set(entry) == {AI} and isinstance(entry[AI], str):
        return {"kind": AI, "agent": check_agent(game, number, entry[AI])}
    raise SeatError(f"seat {number}: give \"human\", \"open\" or {{\"ai\": \"AGENT SPEC\"}}, "
                    f"not {str(entry)[:80]!r}")


def check_agent(game: Game, seat: int, spec: str) -> str:
    """``spec`` when it makes an agent the server may run for ``seat``.

    External engines are refused: a client must never start a program on the server.
    """
    if not spec.strip() or len(spec) > MAX_AGENT_SPEC:
        raise SeatError(f"seat {seat}: an agent spec of 1 to {MAX_AGENT_SPEC} characters")
    try:
        if _is_engine(parse_spec(spec)[0]):
            raise SeatError("external engines cannot be started through the server")
        agent = make_agent(spec, game, seat, seed=0)
        agent.close()
    except BoardlabError as error:
        raise SeatError(f"seat {seat}: {error}") from None
    for name, cap in AGENT_CAPS.items():
        value = agent.options.get(name)
        if isinstance(value, (int, float)) and value > cap:
            raise SeatError(f"seat {seat}: {name}={value} is over the server's cap of "
                            f"{cap:g} for an AI seat")
    return spec.strip()


def _is_engine(name: str) -> bool:
    """Whether agent ``name`` runs an external program."""
    return any(cls.name == name and issubclass(cls, EngineAgent) for cls in agents())


def public_seats(game: Game, seats: list[dict],
                 holders: Mapping[int, dict] | None = None) -> list[dict]:
    """What anyone may know about the seats: name, kind, the AI's spec and, for a seat
    held by an account named in ``holders`` (id: ``{"username", "bot"}``), ``account``."""
    holders = holders or {}
    return [{"seat": number, "name": game.seat_names[number], "kind": seat["kind"],
             **({"agent": seat["agent"]} if seat["kind"] == AI else {}),
             **({"account": dict(holders[seat["user"]])} if seat.get("user") in holders
                else {})}
            for number, seat in enumerate(seats)]


def players(seats: list[dict]) -> list[str]:
    """One label per seat for the record: the agent spec, or human/open."""
    return [seat["agent"] if seat["kind"] == AI else seat["kind"] for seat in seats]
