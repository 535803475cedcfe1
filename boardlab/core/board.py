"""Board descriptions: what a user interface needs to draw a game it does not know.

``Game.board_description()`` returns plain JSON data; ``State.board_view(seat)``
fills the ``board`` block of each view in the same shape. Three kinds:

``square``, ``torus`` (grids)
    description: ``{"kind", "width", "height", "cells": [names, row by row from the
    top left], "pieces": {code: {"label", "owner"}}, "gestures": [...], "buttons": [...]}``
    (a torus wraps: the cell right of the last column is the first column's);
    block: ``{"kind", "cells": [piece code or None, same order], "marks": {...}}``
    where ``marks`` maps a mark name (``last``, ``owner:vertical``, ``secret``) to
    the cell names it marks; optionally ``"score": {"points": {side: [cell names]}}``,
    the points each side's score counts now, as the rules count them (a page overlays
    them on request).
``track``
    description: ``{"kind", "cells": [space names, start first], "symbols": [symbol
    per cell or None], "pieces": {...}, "gestures": [...], "buttons": [...]}`` and
    optionally ``"labels": {cell name: label}`` (``start``, ``boat``) and
    ``"legend": {symbol code: {"label", "glyph"}}``, what each symbol (on a cell or
    a card) stands for and one character to draw it with (``"H": {"label":
    "hearts", "glyph": "♥"}``), for every code the game can use;
    block: ``{"kind", "tokens": {seat name: [cell index per token]}, ...}`` plus
    what lies on the table: ``symbols`` (per cell, when the description's are None
    because each game deals its own), ``hand`` (seat name → cards by code, or only
    a count where the viewer may not see them), ``pile`` (cards left), ``discard``
    (cards by code), ``face_up`` (the upcoming cards lying face up, where the game
    has such a row), ``actions_left`` (this turn), ``discarding`` and ``last`` (the cell
    indices the last move took a token from and to, when it moved one).

A **gesture** says how clicks make a move: ``{"name", "picks": [what each click
picks: "cell", "piece", "card", "token", "number"], "template": "{0}{1}"}``. A
``cell`` or ``token`` pick fills in the name of the cell (for a token: the cell it
stands on), a ``piece`` or ``card`` pick its code. The
front end fills the template with the picked names in order and sends the result
when it is among the view's ``legal`` moves; a prefix of a template that no legal
move starts with is an illegal click (the game says why when it is sent). A
**button** is a move (or a template of one ``number`` pick) shown when legal.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

KINDS = ("square", "torus", "track")
PICKS = ("cell", "piece", "card", "token", "number")


def gesture(name: str, picks: list[str], template: str, help: str = "") -> dict[str, Any]:
    """One way of making a move by clicks (see the module text)."""
    bad = [p for p in picks if p.split(":")[0] not in PICKS]
    if bad:
        raise ValueError(f"unknown pick {bad[0]!r} (known: {', '.join(PICKS)})")
    return {"name": name, "picks": list(picks), "template": template, "help": help}


def grid(kind: str, width: int, height: int, cells: Sequence[str], pieces: dict[str, Any],
         gestures: list[dict[str, Any]], buttons: list[str]) -> dict[str, Any]:
    """A square or torus grid description."""
    if kind not in ("square", "torus"):
        raise ValueError(f"a grid is square or torus, not {kind!r}")
    if len(cells) != width * height:
        raise ValueError("a grid names every cell")
    return {"kind": kind, "width": width, "height": height, "cells": list(cells),
            "pieces": pieces, "gestures": gestures, "buttons": list(buttons)}


def track(cells: list[str], symbols: list[str | None], pieces: dict[str, Any],
          gestures: list[dict[str, Any]], buttons: list[str], labels: dict[str, Any] | None = None,
          legend: dict[str, Any] | None = None) -> dict[str, Any]:
    """A track description (start first), with the ``labels`` of some cells (cell
    name → label) and the ``legend`` of the symbols (code → ``{"label", "glyph"}``)
    when given (see the module text).

    >>> hearts = {"H": {"label": "hearts", "glyph": "♥"}}
    >>> d = track(["0", "1", "2"], [None, "H", None], {}, [], [], labels={"0": "start"},
    ...           legend=hearts)
    >>> d["labels"], d["legend"]["H"]["glyph"]
    ({'0': 'start'}, '♥')
    >>> track(["0", "1"], [None, "X"], {}, [], [], legend=hearts)
    Traceback (most recent call last):
    ...
    ValueError: the legend lacks symbols ['X']
    """
    if len(cells) != len(symbols):
        raise ValueError("a track gives one symbol (or None) per cell")
    if labels and not set(labels) <= set(cells):
        raise ValueError("track labels name cells not on the track")
    if legend is not None:
        unexplained = {s for s in symbols if s is not None} - set(legend)
        if unexplained:
            raise ValueError(f"the legend lacks symbols {sorted(unexplained)}")
        if not all(set(entry) == {"label", "glyph"} for entry in legend.values()):
            raise ValueError("a legend entry is {label, glyph}")
    description = {"kind": "track", "cells": list(cells), "symbols": list(symbols),
                   "pieces": pieces, "gestures": gestures, "buttons": list(buttons)}
    if labels:
        description["labels"] = dict(labels)
    if legend is not None:
        description["legend"] = {code: dict(entry) for code, entry in legend.items()}
    return description


def check_block(description: dict[str, Any], block: dict[str, Any]) -> list[str]:
    """What is wrong with a view's ``board`` block for this description (empty: nothing)."""
    problems = []
    if block.get("kind") != description["kind"]:
        problems.append(f"block kind {block.get('kind')!r} is not {description['kind']!r}")
        return problems
    if description["kind"] in ("square", "torus"):
        cells = block.get("cells")
        if not isinstance(cells, list) or len(cells) != len(description["cells"]):
            problems.append("a grid block has one entry per described cell")
        else:
            unknown = {c for c in cells if c is not None and c not in description["pieces"]}
            if unknown:
                problems.append(f"undeclared pieces {sorted(unknown)}")
        names = set(description["cells"])
        for mark, marked in (block.get("marks") or {}).items():
            if not set(marked) <= names:
                problems.append(f"mark {mark!r} names cells not on the board")
        for side, points in ((block.get("score") or {}).get("points") or {}).items():
            if not set(points) <= names:
                problems.append(f"the score's points of {side!r} are not on the board")
    else:
        size = len(description["cells"])
        for seat, tokens in (block.get("tokens") or {}).items():
            if not all(isinstance(t, int) and 0 <= t < size for t in tokens):
                problems.append(f"tokens of {seat} are off the track")
        legend = description.get("legend")
        dealt = {s for s in block.get("symbols") or [] if s is not None}
        if legend is not None and not dealt <= set(legend):
            problems.append(f"symbols {sorted(dealt - set(legend))} are not in the legend")
    return problems
