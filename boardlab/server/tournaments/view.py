"""A tournament as the API shows it: its settings, players, standings (the arena's
standings code, with tie-breaks and Bradley–Terry ratings), crosstable, pairings by round,
scores over rounds and game ids; and its standings as CSV."""
from __future__ import annotations

import csv
import io

from ...arena.tiebreaks import crosstable, rating_kind, scores_by_round, standings
from ..accounts.users import _aware
from ..api_games import game_of
from . import records
from .director import total_rounds
from .multiside import sides_count

CSV_COLUMNS = ("rank", "player", "bot", "score", "games", "wins", "draws", "losses", "byes",
               "forfeits", "buchholz", "sonneborn_berger", "rating", "rating_low",
               "rating_high")


def result_text(score: float | None, points: list[float] | None = None) -> str | None:
    """White's score as a result: 1-0, ½-½, 0-1 (None: being played); of more sides each
    side's points in seat order (``1-½-0``)."""
    if score is None:
        return None
    if points is not None:
        return "-".join(_points(p) for p in points)
    return {1.0: "1-0", 0.0: "0-1"}.get(score, "½-½")


_FRACTIONS = {(1, 4): "¼", (1, 3): "⅓", (1, 2): "½", (2, 3): "⅔", (3, 4): "¾"}


def _points(value: float) -> str:
    """A side's points: quarters, thirds and halves as ¼ ⅓ ½ ⅔ ¾ (``2¼``), other
    fractions to two places (``0.17``)."""
    value = float(value)
    whole = int(value)
    if value == whole:
        return str(whole)
    for (top, bottom), glyph in _FRACTIONS.items():
        if abs((value - whole) * bottom - top) < 1e-9:
            return f"{whole or ''}{glyph}"
    return f"{value:.2f}".rstrip("0")


def pairing_view(p, names: dict[int, str]) -> dict:
    """One pairing as the API shows it: white and black (sides 0 and 1), every side's
    player in seat order (``sides``; one: a bye) and points once over (``points``)."""
    sides = records.sides_of(p)
    points = list(p.points) if p.points is not None else None
    if points is None and p.score is not None:
        points = [p.score] if len(sides) == 1 else [p.score, 1.0 - p.score]
    return {"round": p.round, "white": names.get(p.white),
            "black": names.get(p.black) if p.black is not None else None,
            "sides": [names.get(user) for user in sides], "points": points,
            "game": p.game_id, "result": result_text(p.score, p.points),
            "score": p.score, "forfeit": p.forfeit}


def summary(row, entrants: int | None = None) -> dict:
    """A tournament's settings and status (the list's line)."""
    game = game_of(row.spec)
    k = sides_count(game)
    shown = {"id": row.id, "name": row.name, "spec": game.public_spec, "game_name": game.name,
             "sides": k, "rating_kind": rating_kind(k),
             "format": row.format, "status": row.status, "director": row.director_name,
             "clock": row.clock, "rated": row.rated, "rounds": row.rounds,
             "no_show": row.no_show, "duration": row.duration, "round": row.round,
             "arena": row.arena, "games_at_once": row.games_at_once,
             "created": _aware(row.created).isoformat(),
             "started": _aware(row.started).isoformat() if row.started else None,
             "ends": _aware(row.ends).isoformat() if row.ends else None}
    if entrants is not None:
        shown["players_count"] = entrants
    return shown


def full(row, entrants: list[records.Entrant], rows: list) -> dict:
    """``GET /api/tournaments/{id}``: everything the tournament page shows."""
    names = {e.user_id: e.username for e in entrants}
    bots = {e.username: e.bot for e in entrants}
    active = {e.username: e.active for e in entrants}
    results = records.results(rows, names)
    order = [e.username for e in entrants]
    lines = standings(order, results, row.format)
    ranked = [line.player for line in lines]
    shown = summary(row, len(entrants))
    shown.update({
        "total_rounds": total_rounds(row, order) or None,
        "players": [{"player": e.username, "bot": e.bot, "house": e.house,
                     "active": e.active} for e in entrants],
        "standings": [{**line.public(), "bot": bots.get(line.player, False),
                       "active": active.get(line.player, False)} for line in lines],
        "crosstable": {"players": ranked, "cells": crosstable(ranked, results)},
        "scores_by_round": scores_by_round(order, results),
        "pairings": [pairing_view(p, names) for p in rows],
        "games": [p.game_id for p in rows if p.game_id is not None]})
    return shown


def standings_csv(shown: dict) -> str:
    """The standings of ``full``'s answer as CSV (one header line)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for line in shown["standings"]:
        writer.writerow(["" if line[column] is None else
                         str(line[column]).lower() if isinstance(line[column], bool)
                         else line[column] for column in CSV_COLUMNS])
    return out.getvalue()
