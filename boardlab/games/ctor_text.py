"""CTOR as text: the notation, the rules summary, announcements, the terminal picture.

Nothing here is a rule. Moves are written and read through the kernel's one
action encoding (:func:`ctor_kernel.encode` / :func:`ctor_kernel.decode`); the
terminal picture and the status lines show only what the viewing seat may see.

Notation: ``put 36``, ``move 19>20``, ``lift 10``, ``land 40`` (a Landing's
target: a put that follows two lifts), ``replace 19``, ``end``, ``secret 36``.

>>> import boardlab
>>> game = boardlab.make("ctor(size=8)")
>>> state = game.new_initial_state()
>>> [action_text(game, parse_action(state, m)) for m in ("put36", " MOVE 19-20", "end")]
['put 36', 'move 19>20', 'end']
"""
from __future__ import annotations

import re

import numpy as np

from ..core.errors import NotationError
from ..core.game import RESIGN
from . import ctor_kernel as K

_MOVE = re.compile(r"^move\s*(\d+)\s*(?:>|-|→|->|to)\s*(\d+)$")
_SIMPLE = re.compile(r"^(put|lift|land|replace|secret)\s*(\d+)$")
_KIND = {"put": K.KIND_PUT, "land": K.KIND_PUT, "lift": K.KIND_LIFT,
         "replace": K.KIND_REPLACE, "secret": K.KIND_SECRET}


# Rules and notation in words ---------------------------------------------------------------

def rules_summary(game) -> str:
    """The goal of the game and a turn, in a short paragraph."""
    n = game.n

    def power(quota):
        put, move, landing = quota
        landings = f"{landing} Landing{'s' if landing > 1 else ''}" if landing else "no Landing"
        return f"up to {put} Puts, {move} Move steps and {landings}"

    opening = "1, 2 and 3 chips" if max(game.team_sizes) == 3 else "1 and 2 chips"
    turn = power(game.quotas[0]) if game.quotas[0] == game.quotas[1] else \
        f"{game.colours[0]} {power(game.quotas[0])}, {game.colours[1]} {power(game.quotas[1])}"
    return (
        f"Two teams ({game.colours[0]} and {game.colours[1]}) place chips on a field of "
        f"{n}x{n} squares that wraps around on all sides (a torus). When the field is full, "
        f"or the game stops (two turns in a row without any operation, or the turn cap), the "
        f"team with more chips on the field wins; equal counts are a draw. After an opening "
        f"of Puts only ({opening}), a turn allows {turn}, in any order. A Put places a chip "
        f"on a free square; a Move steps one "
        f"of your chips to a free square up, down, left or right; a Landing takes two of "
        f"your chips off and puts one on any free square. Any number of times you may "
        f"Replace: turn over an opponent chip that has at least 5 of your chips among its 8 "
        f"surrounding squares. End the turn when you are done."
        + (" Before the game each team secretly picks squares: an opponent chip brought onto "
           "one of them turns to your colour at the end of that turn." if
           game.options["secret_squares"] else "")
        + (" Team mates choose their operations at the same time, in sub-rounds; "
           "operations that touch the same square collide and only the lowest seat's is "
           "made. Any member may Replace between sub-rounds." if game.simultaneous else ""))


def notation_guide(game) -> str:
    """How to write each move, in a short paragraph."""
    P = game.P
    return (
        f"Squares are numbered 1 to {P} row by row from the top left; the field wraps, so "
        f"the square right of the last one in a row is the first one of that row, and the "
        f"square above the top row is in the bottom row. Write: 'put N' to put a chip on N; "
        f"'move A>B' to step your chip from A to the neighbouring square B; a Landing as "
        f"'lift A', 'lift B', 'land N' (take your chips off A and B, put one on N); "
        f"'replace N' to turn over the opponent chip on N; 'end' to end the turn; and "
        f"'secret N' to pick N as a secret square before the game."
        + (" A team member writes its seat name first, e.g. 'white-2:put 36'; 'end' then "
           "skips the sub-round." if game.simultaneous else ""))


# The notation ------------------------------------------------------------------------------

def format_action(kind: int, cell: int, target: int, landing: bool = False) -> str:
    """The notation of a decoded action (``landing``: a put is the Landing's target)."""
    if kind == K.KIND_MOVE:
        return f"move {cell + 1}>{target + 1}"
    if kind == K.KIND_END:
        return "end"
    word = "land" if kind == K.KIND_PUT and landing else K.KINDS[kind]
    return f"{word} {cell + 1}"


def action_text(game, action: int, landing: bool = False) -> str:
    """The notation of an action in range (``landing``: after two lifts)."""
    kind, cell, target = K.decode(action, game.P, game.topology.nbr)
    return format_action(kind, cell, target, landing)


def operation_texts(game, actions) -> list[str]:
    """One member's actions in a row (a Landing's put written as ``land``)."""
    texts, lifts = [], 0
    for action in actions:
        kind, cell, target = K.decode(action, game.P, game.topology.nbr)
        texts.append(format_action(kind, cell, target, landing=lifts == 2))
        lifts = lifts + 1 if kind == K.KIND_LIFT else 0
    return texts


def history_texts(game, history, commits) -> list[str]:
    """Every history entry in notation, in one pass: a put that follows its player's two
    lifts is the Landing's ``land``; a simultaneous commit (index in ``commits``) is
    written ``seat-name:move``."""
    names = game.seat_names
    actions = np.array([a if a != RESIGN else 0 for _, a in history], dtype=np.int64)
    parts = np.empty((len(actions), 3), dtype=np.int64)
    K.decode_many(actions, game.P, game.topology.nbr, parts)
    rows = parts.tolist()                       # Python ints at once, not one by one
    lifts: dict = {}
    texts = []
    for index, (seat, action) in enumerate(history):
        if action == RESIGN:
            texts.append("resign")
            continue
        key = seat if index in commits else None
        kind, cell, target = rows[index]
        move = format_action(kind, cell, target, landing=lifts.get(key, 0) == 2)
        lifts[key] = lifts.get(key, 0) + 1 if kind == K.KIND_LIFT else 0
        texts.append(f"{names[seat]}:{move}" if index in commits else move)
    return texts


def parse_action(state, text: str) -> int:
    """The action written ``text``; NotationError if it is not well formed (or, for
    one agent playing a team, ``land`` outside a Landing or ``put`` inside one)."""
    game = state.game
    P = game.P
    if not isinstance(text, str):
        raise NotationError(f"a move must be text, not {text!r}")
    word = " ".join(text.strip().lower().split())
    if word == "end":
        return int(K.encode(K.KIND_END, -1, -1, P, game.topology.nbr))
    move = _MOVE.match(word)
    found = move or _SIMPLE.match(word)        # a move, else the simple form
    if found is None:
        raise NotationError(f"{text!r} is not a move (expected put N, move N>M, lift N, "
                            f"land N, replace N, end, secret N)")
    squares = [int(v) for v in (move.groups() if move else found.groups()[1:])]
    for square in squares:
        if not 1 <= square <= P:
            raise NotationError(f"{text!r}: squares are numbered 1-{P}")
    x = squares[0] - 1
    if move:
        action = int(K.encode(K.KIND_MOVE, x, squares[1] - 1, P, game.topology.nbr))
        if action < 0:
            raise NotationError(f"{text!r}: {squares[1]} is not next to {squares[0]} "
                                f"(up, down, left or right, with wrap-around)")
        return action
    kind = found.group(1)
    if not state.in_sub_round():             # team mates' Landings are private
        landing = state.buf[K.M_LIFTS] == 2
        if kind == "land" and not landing:
            raise NotationError(f"{text!r}: 'land' ends a Landing (after two lifts); "
                                f"use put N")
        if kind == "put" and landing:
            raise NotationError(f"{text!r}: finish the Landing with land N")
    return int(K.encode(_KIND[kind], x, -1, P, game.topology.nbr))


# Announcements -----------------------------------------------------------------------------

def events(game, before, after) -> list[str]:
    """Public events of one entry, from the kernel buffers around it: operations lost
    in a revealed sub-round (RULES 4.4) and secret squares revealed at a turn's end."""
    lines = []
    names, P = game.seat_names, game.P
    if after[K.M_ROUNDS] != before[K.M_ROUNDS]:
        first = game.captain(int(before[K.M_TEAM]))
        actions = np.empty(3, dtype=np.int32)
        for m in range(K.MAX_MEMBERS):
            outcome, lost_to, count = K.revealed(after, m, actions)
            if count == 0 or outcome in (K.OUT_SKIP, K.OUT_DONE):
                continue
            who = f"{names[first + m]}'s {', '.join(operation_texts(game, actions[:count]))}"
            if outcome in (K.OUT_COLLIDED, K.OUT_RECHOOSE):
                lines.append(f"{who} lost to {names[first + lost_to]}'s"
                             + (f"; {names[first + m]} chooses another square"
                                if outcome == K.OUT_RECHOOSE else ""))
            elif outcome == K.OUT_ILLEGAL:
                lines.append(f"{who} was lost: no longer legal after the operations before it")
            else:
                lines.append(f"{who} was not made: the turn had ended")
    if game.cfg[K.C_SECRETS] > 0 and after[K.M_TURNS] != before[K.M_TURNS]:
        mover = int(before[K.M_TEAM])
        owner = 1 - mover
        start = K.META + (K.A_SECRET + owner) * P
        for x in range(P):
            if after[start + x] == 2 and before[start + x] != 2:
                # the chip that set the square off turned, or it had left: the square is empty
                if after[K.META + x] == owner + 1:
                    lines.append(f"{game.colours[owner]}'s secret square {x + 1}: "
                                 f"{game.colours[mover]}'s chip turns {game.colours[owner]}")
                else:
                    lines.append(f"{game.colours[owner]}'s secret square {x + 1} is revealed "
                                 f"(the chip has left it: nothing turns)")
    return lines


# The terminal picture ----------------------------------------------------------------------

def render(state, colour: bool = False, seat: int | None = None) -> str:
    """The field as ``seat`` sees it, with its wrap-around ring (the outer squares
    repeat the far side); the viewer's empty secret squares show as ``*``."""
    game = state.game
    n, marks = game.n, "." + "".join(game.letters)
    team = None if seat is None else game.team_of(seat)
    mine = set(state.secret_squares(team, spent=False)) if team is not None else set()
    board = state.seen_by(seat)[K.META:K.META + game.P]

    def cell(r, c, ring):
        square = (r % n) * n + (c % n)
        value = int(board[square])
        text = marks[value] if value else ("*" if square + 1 in mine else str(square + 1))
        text = f"{text:>3}"
        return f"\x1b[2m{text}\x1b[0m" if colour and ring else text

    lines = []
    for r in range(-1, n + 1):
        ring_row = r in (-1, n)
        row = [cell(r, c, ring_row or c in (-1, n)) for c in range(-1, n + 1)]
        lines.append(row[0] + " |" + "".join(row[1:-1]) + " |" + row[-1])
        if r in (-1, n - 1):
            lines.append("    +" + "-" * (3 * n + 1) + "+")
    lines.append("(the outer ring repeats the opposite edge" +
                 ("; * is one of your secret squares, empty)" if mine else ")"))
    return "\n".join(lines)


def status_lines(state, seat: int | None = None, view: dict | None = None) -> list[str]:
    """Lines under the field: the chips, the viewer's secret squares, the last move, its
    pending operation, whose turn with what is left of the quotas (while secret squares
    are picked: how many picks are left instead), the result."""
    view = state.view(seat) if view is None else view
    counts = "  ".join(f"{c} {v}" for c, v in view["counts"].items())
    lines = [f"chips: {counts}"]
    if view["my_secret_squares"]:
        squares = ", ".join(str(square) for square in view["my_secret_squares"])
        lines.append(f"your secret squares: {squares}")
    if view["history"]:
        lines.append(f"last move: {view['history'][-1]}")
    if view["my_pending"]:
        lines.append(f"your operation so far: {', '.join(view['my_pending'])}")
    if view["terminal"]:
        lines.append(f"game over ({view['end_reason']}): "
                     f"{view['winner'] + ' wins' if view['winner'] else 'a draw'}")
        return lines
    if view["phase"] == "secret":
        left = view["picks_left"]
        lines.append(f"before the game: {view['to_move']} picks secret squares "
                     f"({left} to go)")
        return lines
    q = view["quotas_left"]
    lines.append(f"turn {view['turn']} ({view['phase']}): {view['to_move']} to move; left "
                 f"this turn: put {q['put']}, move {q['move']}, landing {q['landing']}"
                 + ("  [landing: lift/land]" if view["landing_lifts"] else ""))
    return lines
