"""A finished game's result in one line of words, the same for every front end.

:func:`summary` turns a view's ``result`` block (core/view.py: winners, draw, scores,
reason) into a sentence that names the winners (a whole team by its name), gives the
scores when the game keeps them (not when the game stopped before the end of play: a
resignation, a loss on time, an agreed draw, where the score of that moment is moot), and
says why the game ended:

>>> import boardlab
>>> game = boardlab.make("carteso(size=5)")
>>> summary(game, {"winners": ["horizontal"], "draw": False, "returns": [-1, 1],
...                "scores": {"vertical": 19, "horizontal": 69.5}, "reason": "the rules"})
'Horizontal wins 69.5–19 (end of play)'
>>> summary(game, {"winners": ["horizontal"], "draw": False, "returns": [-1, 1],
...                "scores": None, "reason": "time"})
'Horizontal wins (vertical lost on time)'
>>> summary(game, {"winners": [], "draw": False, "returns": [0, 0], "scores": None,
...                "reason": "aborted"})
'Aborted (no first move in time): no winner, no loser'
>>> three = boardlab.make("cartagena(players=3)")
>>> summary(three, {"winners": ["purple"], "draw": False, "returns": [-1, 1, -1],
...                 "scores": {"green": 1, "purple": 4, "red": 2}, "reason": "all tokens home"})
'Purple wins (all tokens home): purple 4, red 2, green 1'

Every finished view carries it (``result["summary"]``, core/view.py) and so does the lobby's
list, so the pages never put a result into words themselves.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .game import Game

ABORTED = "aborted"
FORFEITS = ("resignation", "time")      # a side lost before the end of play
#: ends before the end of play: the score of that moment is moot, it is not shown
UNSCORED = (*FORFEITS, "agreement", ABORTED)
#: why a game ended, in words (a reason a game declares itself is shown as it is)
REASONS = {"the rules": "end of play", "agreement": "agreed",
           ABORTED: "no first move in time"}


def summary(game: Game, result: Mapping[str, Any]) -> str:
    """``result`` (a view's result block) as one sentence: who won, the score, why."""
    reason = result.get("reason")
    if reason == ABORTED:
        return f"Aborted ({REASONS[ABORTED]}): no winner, no loser"
    winners = list(result.get("winners") or [])
    label = _label(game, winners)
    if winners:
        text = f"{label} {'wins' if _single(game, winners) else 'win'}"
    else:
        text = "Draw"
    score = "" if reason in UNSCORED else _score(game, result.get("scores"), winners)
    if score and "," not in score:              # two scores: 69.5–19
        text += f" {score}"
    why = _why(game, reason, winners)
    text = f"{text} ({why})" if why else text
    return f"{text}: {score}" if "," in score else text


def _label(game: Game, winners: list[str]) -> str:
    """The winners' name: their team's when they are exactly a team of several seats."""
    names = game.seat_names
    for team, members in zip(game.team_names, game.teams):
        if len(members) > 1 and sorted(names[s] for s in members) == sorted(winners):
            return team[:1].upper() + team[1:]
    words = winners[0] if len(winners) == 1 else \
        ", ".join(winners[:-1]) + " and " + winners[-1] if winners else ""
    return words[:1].upper() + words[1:]


def _single(game: Game, winners: list[str]) -> bool:
    """Whether the winners are one seat or one team (``wins``; else ``win``)."""
    if len(winners) == 1:
        return True
    names = game.seat_names
    return any(sorted(names[s] for s in members) == sorted(winners)
               for members in game.teams)


def _number(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def _score(game: Game, scores: Any, winners: list[str]) -> str:
    """``69.5–19`` (the winner's first) for two scores; ``red 6, blue 4, ...`` for more
    (the winner's first, then the highest); nothing when the game keeps no score."""
    if not isinstance(scores, Mapping) or not scores or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in scores.values()):
        return ""
    items = list(scores.items())
    first = _owner(game, winners)
    if first is not None and first in scores:
        items.sort(key=lambda item: item[0] != first)
    if len(items) == 2 and (first in scores or not winners):
        return "–".join(_number(value) for _, value in items)
    items[1 if first in scores else 0:] = sorted(items[1 if first in scores else 0:],
                                                 key=lambda item: -item[1])
    return ", ".join(f"{name} {_number(value)}" for name, value in items)


def _owner(game: Game, winners: list[str]) -> str | None:
    """The key the winners' score has: a winning seat's name, or its team's."""
    if not winners:
        return None
    seat = game.seat_names.index(winners[0]) if winners[0] in game.seat_names else None
    return winners[0] if seat is None else winners[0] if len(game.teams) == \
        game.num_seats else game.team_names[game.team_of(seat)]


def _why(game: Game, reason: str | None, winners: list[str]) -> str:
    """Why the game ended, in words (who resigned or lost on time)."""
    if reason in FORFEITS:
        losers = [name for name in game.seat_names if name not in winners]
        who = _label(game, losers)
        who = who[:1].lower() + who[1:] if who else "a seat"
        return f"{who} resigned" if reason == "resignation" else f"{who} lost on time"
    if reason is None:
        return ""
    return REASONS.get(reason, reason)
