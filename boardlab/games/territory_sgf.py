"""Carteso and Rumbo records as SGF (FF[4]), written with sgfmill.

The mapping (docs/records.md has it with an example):

* Vertical moves first and Horizontal receives the komi, as Black and White do in Go:
  Vertical is SGF's Black (``PB``), Horizontal White (``PW``); ``KM`` is the komi in
  play, ``RE`` names the winner by that colour (``B+3.5``, ``W+R``, ``W+T``, ``B+F``,
  ``0``).
* A placement of the mover's own colour (Vertical a black stone, Horizontal a white one)
  is a plain move, ``B[cd]`` or ``W[cd]``; a pass is the empty move ``B[]``/``W[]``.
* A placement of the other colour (Vertical a white stone, Horizontal a black one) is a
  set-up node: ``AW[cd]`` or ``AB[cd]``, with ``PL`` naming the opponent as the player to
  play (the mover is the other colour).
* A move SGF has no property for (Carteso's ``button``, the bid's ``komi=K`` and
  ``side=S``, a resignation) is a node with the private property ``BLMOVE`` holding its
  boardlab notation (and a comment ``C`` saying who made it).

Points are Go's (column letter, then row letter from the top); the root names the game
(``GN``: the spec, ``RU``: the rules, ``GC``: the mapping in words) and keeps ``GM[1]``:
the FF[4] list of games has no number for these two, and GM[1] is what defines the point
and move syntax used here. Stones are never removed in these games, so a Go program's
captures do not apply to them.
"""
from __future__ import annotations

from datetime import datetime
from typing import Any

from sgfmill import sgf

from ..core.game import RESIGN
from .territory import COLOURS, SIDES, TerritoryGame, TerritoryState, format_komi

#: the private property of a move that SGF has no property for (its boardlab notation)
MOVE = "BLMOVE"
#: SGF's colour of each side (by side number: Vertical, Horizontal)
SIDE_COLOURS = ("b", "w")
#: forfeit kinds (a record's ``meta.forfeit.kind``) that are a loss on time
TIME_KINDS = frozenset({"time", "timeout"})


def write(game: TerritoryGame, record: dict[str, Any]) -> str:
    """The SGF text of ``record`` (a record of ``game``)."""
    state = game.new_initial_state(seed=record.get("seed"))
    n, k = game.n, game.kernel
    entries = []                    # (seat, action, the seat to act next) of each entry
    for text in record["moves"]:
        action = state.play(text)
        following = None if state.is_terminal() else state.current_player()
        entries.append((state.history[-1].seat, action, following))
    texts = state.history_text()    # as the record writes them ("vertical:resign")
    if record.get("agreed_draw"):
        state.agree_draw()
    colour_of = _colours(state)
    sgf_game = sgf.Sgf_game(size=n)
    _root(sgf_game.get_root(), game, state, record, colour_of)
    for (seat, action, following), text in zip(entries, texts):
        node = sgf_game.extend_main_sequence()
        mover = colour_of[seat]
        kind, value, colour = (None, 0, 0) if action == RESIGN else k.decode(n, action)
        if kind == k.PLACE:
            stone, point = COLOURS[colour].lower(), divmod(value, n)   # (row up, column)
            if stone == mover:
                node.set_move(mover, point)
                continue
            node.set_setup_stones([point] if stone == "b" else [],
                                  [point] if stone == "w" else [])
        elif kind == k.PASS:
            node.set_raw(mover.upper(), b"")     # FF[4]'s pass ([tt] is FF[3]'s)
            continue
        else:                                     # the button, komi, side, a resignation
            node.set(MOVE, text)
            node.set("C", f"{game.seat_names[seat]}: {text}")
        # PL: the player to act next (after the game's last move, the mover's opponent,
        # as turns alternate in play): the mover of a set-up node is the other colour
        if action != RESIGN:
            node.set("PL", _other(mover) if following is None else colour_of[following])
    return sgf_game.serialise().decode("utf-8")


def _root(root: Any, game: TerritoryGame, state: TerritoryState, record: dict[str, Any],
          colour_of: dict[int, str]) -> None:
    """The root's game information and the set-up position."""
    root.set("AP", ("boardlab", _version()))
    root.set("GN", game.public_spec)
    root.set("RU", game.title or game.name)
    root.set("GC", f"{game.title or game.name}, played with boardlab: Black is Vertical "
             f"(moves first), White is Horizontal (receives the komi). Either side places "
             f"stones of either colour: one of the other colour is an AB/AW node; the "
             f"button, the komi bid, the side choice and a resignation are {MOVE} nodes "
             f"(boardlab's docs/records.md).")
    players = record.get("players")
    if players:
        for seat, colour in colour_of.items():
            root.set("PB" if colour == "b" else "PW", str(players[seat]))
    if state.komi_half is not None:
        root.set("KM", float(format_komi(state.komi_half)))
    date = _date(record.get("created"))
    if date:
        root.set("DT", date)
    root.set("RE", result(state, record))
    if game.setup is not None:
        board = game.setup[0]
        stones: dict[int, list[tuple[int, int]]] = {1: [], 2: []}
        for cell, value in enumerate(board.tolist()):
            if value:
                stones[value].append(divmod(cell, game.n))
        root.set_setup_stones(stones[1], stones[2])
    if game.options["turn"] != SIDES[0]:
        root.set("PL", SIDE_COLOURS[SIDES.index(game.options["turn"])])


def result(state: TerritoryState, record: dict[str, Any]) -> str:
    """SGF's RE of a record's final ``state``: ``B+3.5`` (the winner's colour and margin),
    ``W+R`` a resignation, ``W+T`` a loss on time, ``B+F`` a forfeit for another reason
    (a crash, an illegal move), ``0`` a draw, ``?`` a game still running."""
    if not state.is_terminal():
        return "?"
    winners = state.winners()
    if len(winners) != 1:
        return "0"
    colour = _colours(state)[winners[0]].upper()
    if state.resigned is not None:
        kind = ((record.get("meta") or {}).get("forfeit") or {}).get("kind")
        how = "R" if kind in (None, "resign") else "T" if kind in TIME_KINDS else "F"
        return f"{colour}+{how}"
    v, h = state.scores_half()
    return f"{colour}+{format_komi(abs(v - h))}"


def _colours(state: TerritoryState) -> dict[int, str]:
    """SGF's colour of each seat: its side's (a bid's first player is Black until the
    second picks a side, and for good if nobody does)."""
    return {seat: SIDE_COLOURS[side] for side, seat in enumerate(state.seat_of_side)}


def _other(colour: str) -> str:
    return "w" if colour == "b" else "b"


def _date(created: object) -> str | None:
    """SGF's DT (YYYY-MM-DD) of a record's ``created``, or None without a valid one."""
    if not isinstance(created, str):
        return None
    try:
        return datetime.fromisoformat(created).date().isoformat()
    except ValueError:
        return None


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("boardlab")
    except PackageNotFoundError:
        return "0"
