"""Versioned JSON game records and replay.

A record is ``{"format": "boardlab-record/1", "game", "spec", "options",
"seats", "players", "moves", "result"}`` (and optionally ``"seed"``,
``"created"``, ``"meta"``); ``moves`` holds every action in notation,
``players`` one name per seat (or null), ``created`` when the game began (UTC, ISO
8601: the same in every copy of the record) and ``result`` is null until the game
is over. A game that ended in an agreed draw (``State.agree_draw``) has
``"agreed_draw": true`` after its moves and the format ``boardlab-record/2``
(version 1 has no agreed draws; a reader of version 2 reads both). Loading
checks the format, replays every move (and the agreement) and compares the
stored facts (game, options, seats, the number of players and the whole
result block); anything wrong, however malformed or deeply nested the text,
raises :class:`RecordError` and nothing is half-loaded.
"""
from __future__ import annotations

import json
import os
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from .errors import BoardlabError, IllegalMoveError, NotationError, RecordError
from .game import State
from .registry import make

FORMAT = "boardlab-record/1"
FORMAT_AGREED_DRAW = "boardlab-record/2"       # version 1 plus "agreed_draw"
FORMATS = (FORMAT, FORMAT_AGREED_DRAW)

def replay_moves(spec: str, moves: str | Iterable[str], seed: int | None = 0,
                 agreed_draw: bool = False) -> State:
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


def replay(spec: str, moves: str | Iterable[str], seed: int | None = 0) -> dict[str, Any]:
    """The summary dict of the position after ``moves``.

    >>> import boardlab
    >>> boardlab.replay("carteso(size=3)", ["Bb2", "Wa3"])["to_move"]
    'vertical'
    """
    return replay_moves(spec, moves, seed).summary()


def result_of(state: State) -> dict[str, Any] | None:
    """The result part of a record, or None while the game is running."""
    if not state.is_terminal():
        return None
    game, winners = state.game, [] if state.agreed_draw else state.winners()
    teams = sorted({game.team_of(seat) for seat in winners})
    return {"returns": state.returns(),
            "winner": game.team_names[teams[0]] if len(teams) == 1 else None,
            "scores": state.scores()}


def now() -> datetime:
    """The time now, in UTC (a game's start, a record's ``created``)."""
    return datetime.now(UTC)


def iso_time(moment: datetime) -> str:
    """A record's ``created``: ``moment`` in UTC, ISO 8601 to the second (a time without
    a zone, as SQLite gives back, is taken as UTC)."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).isoformat(timespec="seconds")


def to_record(state: State, players: Iterable[str] | None = None,
              seed: int | None = None, meta: dict[str, Any] | None = None,
              created: datetime | None = None) -> dict[str, Any]:
    """A record of the game that led to ``state``, which began at ``created`` (a
    driver and the server know it; without it, the record says now)."""
    game = state.game
    if seed is None:
        seed = state.seed
    record: dict[str, Any] = {"format": FORMAT_AGREED_DRAW if state.agreed_draw else FORMAT,
              "game": game.name, "spec": game.spec,
              "options": game.options, "seats": list(game.seat_names),
              "players": list(players) if players else None,
              "moves": state.history_text(), "result": result_of(state),
              "created": iso_time(created or now())}
    if state.agreed_draw:
        record["agreed_draw"] = True
    if seed is not None:
        record["seed"] = seed
    if meta:
        record["meta"] = meta
    return record


def dumps(state: State, **kwargs: Any) -> str:
    """The record of ``state`` as JSON text."""
    return json.dumps(to_record(state, **kwargs), indent=1)


def loads(text: str) -> tuple[dict[str, Any], State]:
    """Parse and check a record; return it with the replayed final state."""
    try:
        record = json.loads(text)
    except RecursionError:
        raise RecordError("not a JSON record: it is nested too deeply") from None
    except (ValueError, TypeError) as error:    # JSONDecodeError, too many digits, bytes
        raise RecordError(f"not a JSON record: {str(error)[:200]}") from None
    return record, check_record(record)


def check_record(record: object) -> State:
    """Validate a parsed record and replay it; raise RecordError on any problem."""
    try:
        return _check(record)
    except RecursionError:           # a value nested too deeply to compare or print
        raise RecordError("record holds a value nested too deeply") from None


def _check(record: object) -> State:
    if not isinstance(record, dict):
        raise RecordError("a record must be a JSON object")
    version = record.get("format")
    if version not in FORMATS:
        raise RecordError(f"unknown record format {_short(version)} (this boardlab reads "
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
    _check_facts(record, state)
    return state


def _check_facts(record: dict[str, Any], state: State) -> None:
    """The record's stored facts agree with the replayed ``state``."""
    game = state.game
    if "game" in record and record["game"] != game.name:
        raise RecordError(f"record says game {_short(record['game'])} but its spec is "
                          f"{record['spec']!r}")
    options = record.get("options")
    if options is not None and options != game.options:
        raise RecordError("record options do not match its spec")
    seats = record.get("seats")
    if seats is not None and seats != list(game.seat_names):
        raise RecordError(f"record seats {_short(seats)} are not the seats of "
                          f"{game.spec!r} ({', '.join(game.seat_names)})")
    players = record.get("players")
    if players is not None and (not isinstance(players, list) or len(players) !=
                                game.num_seats or not all(isinstance(p, str) for p in players)):
        raise RecordError(f"record field 'players' must be null or {game.num_seats} names "
                          f"(one per seat), not {_short(players)}")
    created = record.get("created")
    if created is not None and not _is_iso_time(created):
        raise RecordError(f"record field 'created' must be a time in ISO format, not "
                          f"{_short(created)}")
    if "result" not in record:
        raise RecordError("record field 'result' is missing (null for an unfinished game)")
    stored, replayed = record["result"], result_of(state)
    if replayed is None:
        if stored is not None:
            raise RecordError("record result does not match the replayed game: it gives a "
                              "result but the moves do not end the game")
        return
    if stored is None:
        raise RecordError("record result does not match the replayed game: it is null but "
                          "the moves end the game")
    replayed = json.loads(json.dumps(replayed))         # as JSON holds it (lists, str keys)
    if set(stored) != set(replayed):
        raise RecordError(f"record result does not match the replayed game: it must hold "
                          f"exactly {', '.join(sorted(replayed))}")
    for key in sorted(replayed):
        if stored[key] != replayed[key]:
            raise RecordError(f"record result does not match the replayed game: {key!r} is "
                              f"{_short(stored[key])}, the replay gives {replayed[key]!r}")


def _is_iso_time(value: object) -> bool:
    try:
        return isinstance(value, str) and bool(datetime.fromisoformat(value))
    except ValueError:
        return False


def _short(value: object) -> str:
    """``value`` for an error message, cut short (a record may hold anything)."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def save(path: str | os.PathLike[str], state: State, **kwargs: Any) -> None:
    """Write the record of ``state`` to ``path``."""
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(dumps(state, **kwargs) + "\n")


def load(path: str | os.PathLike[str]) -> tuple[dict[str, Any], State]:
    """Read and replay the record at ``path``."""
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except OSError as error:
        raise RecordError(f"cannot read record {path}: {error.strerror}") from None
    return loads(text)
