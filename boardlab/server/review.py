"""A finished game's review: every position valued by the AI's search, and the moves that
cost their mover most.

Position K (after the first K entries of the history) is searched from the view of the
seat that made entry K, as that seat saw it then (the mover's information, not the whole
record: a move is judged on what its mover knew), by the searcher an analysis uses (MCTS
where nothing is hidden, information-set MCTS otherwise) with the simulations of the
game's own ``mcts(level=L)`` and a cap in seconds. The final position is valued by its
returns. :func:`evaluate` runs in the AI workers, one position a task; the rest is plain
data work on the event loop.

A side is a team (``game.teams``): each position gets one win chance (0..1) per side, and
each move its mover's drop, the mover's side's chance before the move less its chance
after. The moves marked are, per side, the :data:`MARKED` largest drops of at least
:data:`MARK_DROP`.
"""
from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import cast

from ..agents.mcts import ISMCTS, MCTS
from ..core.game import Game
from ..core.record import replay_moves
from ..core.registry import make
from ..core.view import View

DEFAULT_LEVEL = 3          # the review searches each position as mcts(level=3) would
DEFAULT_SECONDS = 0.25     # and never longer than this, per position
MARK_DROP = 0.10           # the least drop of a marked move (10 points of win chance)
MARKED = 3                 # the moves marked per side, at most


@dataclass(frozen=True)
class Budget:
    """A review's search per position: a game's ``mcts(level)`` simulations, at most
    ``seconds`` (the server's option, ``boardlab serve --review-level``)."""

    level: int = DEFAULT_LEVEL
    seconds: float = DEFAULT_SECONDS

    def iterations(self, game: Game) -> int:
        return game.level_budgets[self.level - 1]


def tasks(spec: str, seed: int, moves: list[str], movers: list[int | None],
          budget: Budget) -> list[dict]:
    """One worker task per position before the end (plain data for a worker process):
    position K is searched from the view of ``movers[K]`` (None: a chance outcome)."""
    game = make(spec)
    search_seed = secrets.randbelow(2 ** 31)    # fresh, never derived from the game's
    return [{"spec": spec, "seed": seed, "moves": moves[:at], "seat": movers[at],
             "iterations": budget.iterations(game), "seconds": budget.seconds,
             "search_seed": (search_seed + at) % 2 ** 31} for at in range(len(moves))]


def evaluate(task: dict) -> dict:
    """``{"seat", "estimate": [win chance per seat] | None, "best": move | None}`` of one
    position (runs in a worker). The search is from the mover's view when the mover acts
    there, else from the first acting seat's; nobody acting (a chance node): no estimate."""
    game = make(task["spec"])
    state = replay_moves(task["spec"], task["moves"], task["seed"])
    acting = [] if state.is_terminal() else state.acting_seats()
    if not acting:
        return {"seat": None, "estimate": _returns(game, state) if state.is_terminal()
                else None, "best": None}
    seat = task["seat"] if task["seat"] in acting else acting[0]
    view = cast(View, state.view(seat))
    searcher = MCTS if game.perfect_information else ISMCTS
    agent = searcher(game, seat, seed=task["search_seed"])
    try:
        found = agent.analyse(view, {"iterations": task["iterations"],
                                     "time": task["seconds"]})
    finally:
        agent.close()
    notation = dict(zip(view["legal_actions"], view["legal"]))
    best = notation.get(found["moves"][0]["action"]) if found["moves"] else None
    return {"seat": seat, "best": best,
            "estimate": [float(found["estimate"][name]) for name in game.seat_names]}


def _returns(game: Game, state) -> list[float]:
    """Each seat's return at the end, scaled from the game's utility bounds to 0..1."""
    low, high = game.utility_bounds
    return [min(1.0, max(0.0, (value - low) / (high - low))) for value in state.returns()]


def summarize(game: Game, moves: list[str], movers: list[int | None],
              final_returns: list[float], results: list[dict], budget: Budget) -> dict:
    """The review of a game from its positions' :func:`evaluate` results (one per move)
    and the final returns: per position the sides' chances, per move the drop."""
    low, high = game.utility_bounds
    final = {"seat": None, "best": None,
             "estimate": [min(1.0, max(0.0, (v - low) / (high - low))) for v in final_returns]}
    evaluated = [*results, final]
    chances = _filled([None if r["estimate"] is None else _sides(game, r["estimate"])
                       for r in evaluated])
    positions = [{"at": at, "chances": chances[at],
                  "seat": None if r["seat"] is None else game.seat_names[r["seat"]],
                  "best": r["best"]} for at, r in enumerate(evaluated)]
    listed = []
    for at, (text, seat) in enumerate(zip(moves, movers)):
        side = None if seat is None else game.team_of(seat)
        drop = None if side is None else round(chances[at][side] - chances[at + 1][side], 4)
        listed.append({"at": at, "move": text,
                       "seat": None if seat is None else game.seat_names[seat],
                       "side": side, "drop": drop,
                       "best": evaluated[at]["best"] if evaluated[at]["seat"] == seat else None})
    return {"sides": list(game.team_names), "positions": positions, "moves": listed,
            "marked": _marked(listed, len(game.teams)),
            "level": budget.level, "iterations": budget.iterations(game)}


def _sides(game: Game, estimate: list[float]) -> list[float]:
    """Each side's chance: the mean of its seats' (team mates share their returns)."""
    return [round(sum(estimate[seat] for seat in members) / len(members), 4)
            for members in game.teams]


def _filled(chances: list[list[float] | None]) -> list[list[float]]:
    """Positions without an estimate (nobody acted there) take the next one's (the last,
    the end, always has one)."""
    filled: list[list[float]] = [[] for _ in chances]
    following = chances[-1]
    for at in range(len(chances) - 1, -1, -1):
        following = chances[at] if chances[at] is not None else following
        filled[at] = list(following or [])
    return filled


def _marked(listed: list[dict], sides: int) -> list[int]:
    """The moves marked: per side, the MARKED largest drops of at least MARK_DROP."""
    marked: list[int] = []
    for side in range(sides):
        drops = sorted((m for m in listed if m["side"] == side and m["drop"] is not None
                        and m["drop"] >= MARK_DROP), key=lambda m: (-m["drop"], m["at"]))
        marked.extend(m["at"] for m in drops[:MARKED])
    return sorted(marked)
