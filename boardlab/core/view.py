"""The view envelope: the keys every ``State.view(seat)`` has, whatever the game.

A front end (the terminal, the web app, an adapter, an agent) can rely on:

``game``, ``spec``           the game's name and public spec (no secret set-up)
``seats``                    seat names, by seat number
``teams``                    ``[{"name", "seats": [seat names]}]``, one per team (side)
``seat``                     the seat this view is for (None: a spectator)
``to_move``                  who is to move, by name (None at the end): the game's own word
                             when it gives one (a side or a team), else the acting seat
``acting``                   the seat names that act now (several in simultaneous rounds)
``legal``                    this seat's legal moves now, in notation (empty if it does not act)
``legal_actions``            the same as action numbers (for agents)
``history``                  every move so far in notation, as this seat may see it
                             (``legal`` and ``history`` are empty in ``view(seat, texts=False)``,
                             the cheaper view for programs that read only numbers)
``terminal``                 whether the game is over
``result``                   None while running, else ``{"winners": [seat names],
                             "draw", "returns": [per seat], "scores", "reason", "summary"}``
                             (``summary``: the result in words, core/results.py)
``clocks``                   None, or remaining seconds per seat name (filled by a driver)
``board``                    one block in the shape the game's board description declares
                             (see core/board.py)

A game adds keys of its own beside these (a hand, quotas, the pile size), never
anything ``seat`` may not know. Views are plain JSON data; :class:`View`,
:class:`Result` and :class:`Team` type the envelope's keys (a game's own keys come
beside them), and :class:`Budget` types what a driver hands an agent with a view.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, NotRequired, TypedDict

from .results import summary

if TYPE_CHECKING:
    from .game import State


class Team(TypedDict):
    """One entry of a view's ``teams``: a side and its seats, by name."""

    name: str
    seats: list[str]


class Result(TypedDict):
    """A finished game's ``result`` in a view."""

    winners: list[str]
    draw: bool
    returns: list[float]
    scores: dict[str, float] | None
    reason: str | None
    summary: NotRequired[str]


class View(TypedDict):
    """The envelope every ``State.view(seat)`` has (see the module; a game's own keys
    come beside these)."""

    game: str
    spec: str
    seats: list[str]
    teams: list[Team]
    seat: int | None
    to_move: str | None
    acting: list[str]
    legal: list[str]
    legal_actions: list[int]
    history: list[str]
    terminal: bool
    result: Result | None
    clocks: dict[str, float] | None
    board: dict[str, Any]


class Budget(TypedDict, total=False):
    """What an agent may spend on a move (``Agent.act``'s ``budget``): ``time`` in
    seconds and ``iterations`` (simulations, for searches); under a game clock the
    driver adds the seat's ``clock`` (seconds left) and the ``increment``."""

    time: float
    iterations: int
    clock: float
    increment: float

ENVELOPE_KEYS = {
    "game": str, "spec": str, "seats": list, "teams": list, "seat": (int, type(None)),
    "to_move": (str, type(None)), "acting": list, "legal": list, "legal_actions": list,
    "history": list, "terminal": bool, "result": (dict, type(None)),
    "clocks": (dict, type(None)), "board": dict,
}

RESULT_KEYS = {"winners": list, "draw": bool, "returns": list, "scores": (dict, type(None)),
               "reason": (str, type(None)), "summary": str}


def result_block(state: State) -> Result | None:
    """The ``result`` of a view: None while the game runs."""
    if not state.is_terminal():
        return None
    names = state.game.seat_names
    winners = state.winners()
    result: Result = {"winners": [names[s] for s in winners], "draw": not winners,
                      "returns": state.returns(), "scores": state.scores(),
                      "reason": state.end_reason()}
    result["summary"] = summary(state.game, result)
    return result


def envelope(state: State, seat: int | None, texts: bool = True) -> dict[str, Any]:
    """The shared keys of ``state.view(seat)`` (``texts=False``: ``legal`` and
    ``history`` left empty): the keys of :class:`View`, as a plain dict that the game's
    own keys join."""
    game = state.game
    names = game.seat_names
    over = state.is_terminal()
    acting = [] if over else state.acting_seats()
    legal = state.legal_actions_for(seat) if seat is not None and seat in acting else []
    return {
        "game": game.name, "spec": game.public_spec, "seats": list(names),
        "teams": [{"name": name, "seats": [names[s] for s in members]}
                  for name, members in zip(game.team_names, game.teams)],
        "seat": seat,
        "to_move": _to_move(state, acting),
        "acting": [names[s] for s in acting],
        "legal": state.actions_to_strings(legal) if texts else [],
        "legal_actions": list(legal),
        "history": state.visible_history(seat) if texts else [],
        "terminal": over,
        "result": result_block(state),
        "clocks": None,
        "board": state.board_view(seat),
    }


def _to_move(state: State, acting: list[int]) -> str | None:
    """Who is to move, by name: the one acting seat, else the team all acting seats share."""
    game = state.game
    if not acting:
        return None
    if len(acting) == 1:
        return game.seat_names[acting[0]]
    teams = {game.team_of(s) for s in acting}
    return game.team_names[teams.pop()] if len(teams) == 1 else None
