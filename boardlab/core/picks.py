"""Why a click on the board makes no legal move: the reason of a partial gesture.

A front end turns clicks into moves through the board description's gestures (see
core/board.py): each click picks a cell, a token, a piece or a card, and the picks fill a
gesture's template. When a click continues no legal move, :func:`pick_reason` says why
from the rules themselves: it finds the actions whose notation the gestures could still
make from the picks (every completion of the template), asks the game why each is
illegal (``State.illegal_reason``, a seat's commit reason in a simultaneous round) and
answers with the reason of the gestures the seat could use now. Nothing here knows a
game: it reads the description, the notation and the game's own reasons.
"""
from __future__ import annotations

import re
from collections import Counter
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .game import State

#: pick kinds that fill in a cell's name (a token is picked by the cell it stands on)
CELL_KINDS = ("cell", "token")


def _kind_fits(spec: str, kind: str, value: str) -> bool:
    """Whether a pick of ``kind``/``value`` fits the gesture's pick ``spec`` (``piece:B|W``)."""
    base, _, allowed = spec.partition(":")
    same = base == kind or (base in CELL_KINDS and kind in CELL_KINDS)
    return same and (not allowed or value in allowed.split("|"))


def _values(spec: str, description: dict[str, Any]) -> list[str] | None:
    """The values a pick of ``spec`` can take, where the description lists them."""
    base, _, allowed = spec.partition(":")
    values: list[str] | None = None
    if base in CELL_KINDS:
        values = list(description.get("cells") or []) or None
    elif base == "piece":
        values = list(description.get("pieces") or {}) or None
    elif base == "card":
        values = list(description.get("legend") or {}) or None
    if allowed:
        values = [v for v in values or allowed.split("|") if v in allowed.split("|")]
    return values


def _pattern(gesture: dict[str, Any], picks: list[tuple[str, str]],
             description: dict[str, Any]) -> re.Pattern[str]:
    """The gesture's template as a pattern: the first ``len(picks)`` slots filled in, the
    others any of their known values (any text where none are listed)."""
    def slot(found: re.Match[str]) -> str:
        if found.group(1) is None:
            return re.escape(found.group(0))
        index = int(found.group(1))
        if index < len(picks):
            return re.escape(picks[index][1])
        specs = gesture["picks"]
        values = _values(specs[index], description) if index < len(specs) else None
        if not values:
            return ".+?"
        return "(?:" + "|".join(re.escape(v) for v in sorted(values, key=len, reverse=True)) + ")"
    return re.compile(re.sub(r"\{(\d+)\}|[^{]+|\{", slot, gesture["template"]))


def _texts(state: State) -> list[tuple[int, str]]:
    """Every action of the game with its notation here (those that have one)."""
    texts = []
    for action in range(state.game.num_actions):
        try:
            texts.append((action, state.action_to_string(action)))
        except Exception:       # an action with no text here: no click can make it
            continue
    return texts


def pick_reason(state: State, seat: int, picks: list[tuple[str, str]]) -> str | None:
    """Why the picks ``[(kind, value), ...]`` (the clicks of one gesture so far, the last
    one new) of ``seat`` begin no legal move now, in words; None when some legal move
    begins with them."""
    if state.is_terminal():
        return "the game is over"
    names = state.game.seat_names
    if seat not in state.acting_seats():
        return f"{names[seat]} does not act now" if 0 <= seat < len(names) else \
            f"there is no seat {seat}"
    description = state.game.board_description()
    gestures: list[dict[str, Any]] = [g for g in description.get("gestures", [])
                                      if not any(p.startswith("number") for p in g["picks"])]
    legal = state.legal_actions_for(seat)
    legal_texts = state.actions_to_strings(legal)
    live = [g for g in gestures
            if any(_pattern(g, [], description).fullmatch(t) for t in legal_texts)]
    fitting = [g for g in gestures if len(g["picks"]) >= len(picks) and
               all(_kind_fits(spec, kind, value)
                   for spec, (kind, value) in zip(g["picks"], picks))]
    used = [g for g in fitting if g in live] or fitting
    texts = _texts(state) if used else []
    simultaneous = len(state.acting_seats()) > 1
    reasons: dict[str, list[str]] = {}          # reason -> the gestures it is theirs
    for gesture in used:
        pattern = _pattern(gesture, picks, description)
        found = [action for action, text in texts if pattern.fullmatch(text)]
        if any(action in legal for action in found):
            return None
        counted = Counter(_reason(state, seat, action, simultaneous) for action in found)
        if counted:
            reasons.setdefault(counted.most_common(1)[0][0], []).append(gesture["name"])
    if not reasons and len(picks) > 1:          # not a continuation: as a new start?
        alone = pick_reason(state, seat, picks[-1:])
        before = " ".join(value for _, value in picks[:-1])
        text = f"{picks[-1][1]} does not continue {before}"
        return text if alone is None else f"{text}; {alone}"
    if not reasons:
        return _no_gesture(picks[-1], live, legal_texts, gestures, description)
    if len(reasons) == 1:
        text = next(iter(reasons))
    else:
        text = "; ".join(f"{', '.join(names_)}: {reason}" for reason, names_ in reasons.items())
    if not any(g in live for g in used):        # none of these moves is possible now
        text += "; " + _can_do(live, legal_texts, gestures, description)
    return text


def _reason(state: State, seat: int, action: int, simultaneous: bool) -> str:
    reason = state._reason(action, seat if simultaneous else None)
    return reason or "not a legal move here"


def _no_gesture(pick: tuple[str, str], live: list[dict[str, Any]], legal_texts: list[str],
                gestures: list[dict[str, Any]], description: dict[str, Any]) -> str:
    """A click that begins no gesture at all (a cell where a colour comes first)."""
    can = _can_do(live, legal_texts, gestures, description)
    return f"a {pick[0]} ({pick[1]}) begins no move: {can}"


def _can_do(live: list[dict[str, Any]], legal_texts: list[str],
            gestures: list[dict[str, Any]], description: dict[str, Any]) -> str:
    """What the seat can do now, in words: the gestures it can make and the whole moves
    no gesture makes (pass, end)."""
    patterns = [_pattern(g, [], description) for g in gestures]
    whole = [t for t in legal_texts if not any(p.fullmatch(t) for p in patterns)]
    parts = [f"{g['name']} ({g['help']})" if g.get("help") else g["name"] for g in live]
    parts += whole[:6]
    return "you can " + " or ".join(parts) if parts else "you have no move now"
