"""Versioned JSON game records and replay.

A record is ``{"format": "boardlab-record/1", "game", "spec", "options",
"seats", "players", "moves", "result"}``; ``moves`` holds every action in
notation. A game that ended in an agreed draw (``State.agree_draw``) has
``"agreed_draw": true`` after its moves and the format ``boardlab-record/2``
(version 1 has no agreed draws; a reader of version 2 reads both). Loading
checks the format, replays every move (and the agreement) and compares the
stored result; anything wrong raises :class:`RecordError` and nothing is
half-loaded.
"""
from __future__ import annotations

import json
from datetime import datetime, timezone

from .errors import BoardlabError, IllegalMoveError, NotationError, RecordError
from .game import State
from .registry import make

FORMAT = "boardlab-record/1"
FORMAT_AGREED_DRAW = "boardlab-record/2"       # version 1 plus "agreed_draw"
FORMATS = (FORMAT, FORMAT_AGREED_DRAW)

def replay_moves(spec: str, moves, seed: int | None = 0, agreed_draw: bool = False) -> State:
    """The state reached by playing ``moves`` (notation) from the start (then agreeing
    a draw, with ``agreed_draw``).

    ``seed`` drives chance (deals, shuffles); games without chance ignore it.
    """
    if isinstance(moves, str):
        moves = moves.split()
    state = make(spec).new_initial_state(seed=seed)
    for index, text in enumerate(moves):
        try:
            state.play(text)
        except (IllegalMoveError, NotationError) as error:
            reason = getattr(error, "reason", None) or str(error)
            raise IllegalMoveError(f"move {index + 1} (index {index}) {text!r} is illegal: "
                                   f"{reason}", move=text, index=index, reason=reason) from None
    if agreed_draw:
        state.agree_draw()
    return state


def replay(spec: str, moves, seed: int | None = 0) -> dict:
    """The summary dict of the position after ``moves``.

    >>> import boardlab
    >>> boardlab.replay("carteso(size=3)", ["Bb2", "Wa3"])["to_move"]
    'vertical'
    """
    return replay_moves(spec, moves, seed).summary()


def result_of(state: State) -> dict | None:
    """The result part of a record, or None while the game is running."""
    if not state.is_terminal():
        return None
    game, winners = state.game, [] if state.agreed_draw else state.winners()
    teams = sorted({game.team_of(seat) for seat in winners})
    return {"returns": state.returns(),
            "winner": game.team_names[teams[0]] if len(teams) == 1 else None,
            "scores": state.scores()}


def to_record(state: State, players=None, seed: int | None = None, meta=None) -> dict:
    """A record of the game that led to ``state``."""
    game = state.game
    if seed is None:
        seed = state.seed
    record = {"format": FORMAT_AGREED_DRAW if state.agreed_draw else FORMAT,
              "game": game.name, "spec": game.spec,
              "options": game.options, "seats": list(game.seat_names),
              "players": list(players) if players else None,
              "moves": state.history_text(), "result": result_of(state),
              "created": datetime.now(timezone.utc).isoformat(timespec="seconds")}
    if state.agreed_draw:
        record["agreed_draw"] = True
    if seed is not None:
        record["seed"] = seed
    if meta:
        record["meta"] = meta
    return record


def dumps(state: State, **kwargs) -> str:
    """The record of ``state`` as JSON text."""
    return json.dumps(to_record(state, **kwargs), indent=1)


def loads(text: str) -> tuple[dict, State]:
    """Parse and check a record; return it with the replayed final state."""
    try:
        record = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError, TypeError) as error:
        raise RecordError(f"not a JSON record: {error}") from None
    return record, check_record(record)


def check_record(record) -> State:
    """Validate a parsed record and replay it; raise RecordError on any problem."""
    if not isinstance(record, dict):
        raise RecordError("a record must be a JSON object")
    version = record.get("format")
    if version not in FORMATS:
        raise RecordError(f"unknown record format {version!r} (this boardlab reads "
                          f"{' and '.join(map(repr, FORMATS))})")
    agreed = record.get("agreed_draw", False)
    if not isinstance(agreed, bool) or agreed and version == FORMAT:
        raise RecordError(f"record field 'agreed_draw' must be true or false (and only in "
                          f"{FORMAT_AGREED_DRAW!r})")
    for key, kind in (("spec", str), ("moves", list)):
        if not isinstance(record.get(key), kind):
            raise RecordError(f"record field {key!r} is missing or not a {kind.__name__}")
    if not all(isinstance(m, str) for m in record["moves"]):
        raise RecordError("record field 'moves' must hold strings")
    seed = record.get("seed", 0)
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)
                             or not -2**63 <= seed < 2**63):
        raise RecordError("record field 'seed' must be an integer of 64 bits")
    for key in ("result", "meta"):
        if not isinstance(record.get(key, {}), (dict, type(None))):
            raise RecordError(f"record field {key!r} must be an object")
    try:
        state = replay_moves(record["spec"], record["moves"], seed, agreed_draw=agreed)
    except BoardlabError as error:
        raise RecordError(f"record does not replay: {error}") from None
    except Exception as error:          # whatever else a hand-edited record can provoke
        raise RecordError(f"record does not replay: {type(error).__name__}: "
                          f"{str(error)[:200]}") from None
    if "game" in record and record["game"] != state.game.name:
        raise RecordError(f"record says game {record['game']!r} but its spec is "
                          f"{record['spec']!r}")
    options = record.get("options")
    if options is not None and options != state.game.options:
        raise RecordError("record options do not match its spec")
    stored = record.get("result")
    if stored is not None and stored.get("returns") != (state.returns() if
                                                        state.is_terminal() else None):
        raise RecordError("record result does not match the replayed game")
    return state


def save(path, state: State, **kwargs) -> None:
    """Write the record of ``state`` to ``path``."""
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(dumps(state, **kwargs) + "\n")


def load(path) -> tuple[dict, State]:
    """Read and replay the record at ``path``."""
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except OSError as error:
        raise RecordError(f"cannot read record {path}: {error.strerror}") from None
    return loads(text)
