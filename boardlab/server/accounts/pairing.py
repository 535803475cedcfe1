"""A game between two accounts, made when a challenge or a seek is accepted: an ordinary
server game whose seats are held by the accounts (a house bot's seat is an AI seat of its
level, held by its account). The game is rated in the pool of its spec and clock when asked for."""
from __future__ import annotations

import secrets

from ...core.game import Game
from ..rest import ApiError
from ..seats import AI, HUMAN, new_token, token_hash
from .bots import house_level
from .ratings import NotRatable, pool_of


def check_pairable(game: Game, rated, clock: dict | None) -> str | None:
    """The pool of a game two accounts may play on ``clock`` (None: casual); ApiError
    otherwise."""
    if not isinstance(rated, bool):
        raise ApiError("bad_request", "'rated' must be true or false")
    if game.num_seats != 2:
        raise ApiError("bad_spec", f"a challenge or seek is for a game of two seats; "
                       f"{game.spec} has {game.num_seats}")
    if not rated:
        return None
    try:
        return pool_of(game, clock)
    except NotRatable as error:
        raise ApiError("bad_spec", str(error)) from None


def seat_of(user) -> dict:
    """The stored seat an account holds: an AI seat for a house bot, else a person's (or
    program's) seat whose secret token nobody is given (the account plays it)."""
    level = house_level(user)
    if level is not None:
        return {"kind": AI, "agent": f"mcts(level={level})", "user": user.id}
    return {"kind": HUMAN, "token": token_hash(new_token()), "user": user.id}


def seats_for(first, second, first_seat: int | None) -> list[dict]:
    """The two seats: ``first`` at ``first_seat`` (None: drawn at random)."""
    if first_seat is None:
        first_seat = secrets.randbelow(2)
    seats = [seat_of(first), seat_of(second)]
    return seats if first_seat == 0 else seats[::-1]


def new_game_id() -> str:
    return secrets.token_urlsafe(9)
