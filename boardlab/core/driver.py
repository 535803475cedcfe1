"""One game in progress, for every front end: the terminal, the arena, the web server.

A :class:`GameDriver` holds the state of one game and does what each front end
would otherwise do its own way: who acts now, applying a move or a seat's
commit in a simultaneous round, chance outcomes (drawn from the game's seed),
undo to a given point (never across a reveal of hidden information or a draw
of cards: the game's ``undo_floor``), resignation, agreed draws, forfeits with a reason
(a loss on time reads ``time`` in the history), aborting a game that never got going,
clocks, and the record. It never prints and never waits: a caller asks and
acts.

>>> import boardlab
>>> from boardlab.core.driver import GameDriver
>>> driver = GameDriver(boardlab.make("carteso(size=3)"))
>>> driver.submit(0, "Bb2").action == driver.state.string_to_action("Bb2")
True
>>> driver.undo(0)
1
>>> driver.state.history
[]
"""
from __future__ import annotations

import math
import random
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .errors import BoardlabError, IllegalMoveError
from .game import CHANCE, Game, Move, State
from .record import now, to_record
from .results import ABORTED, summary


class UndoError(BoardlabError):
    """An undo that is not allowed here (past a reveal, or nothing to take back)."""


@dataclass(frozen=True)
class TimeControl:
    """Seconds per move, or a clock per seat for the whole game plus an increment; with
    ``refill`` the clock is full again after each move of its seat (a correspondence clock:
    ``game`` seconds for every move, unused time not kept)."""

    move: float | None = None
    game: float | None = None
    increment: float = 0.0
    refill: bool = False

    def __post_init__(self) -> None:
        if self.move is not None and self.game is not None:
            raise BoardlabError("give a time per move or a time per game, not both")
        for name, value in (("move", self.move), ("game", self.game)):
            if value is not None and not 0 < value < math.inf:
                raise BoardlabError(f"the time per {name} must be a positive number of "
                                    f"seconds, not {value}")
        if not 0 <= self.increment < math.inf:
            raise BoardlabError(f"the increment must be a number of seconds >= 0, not "
                                f"{self.increment}")
        if self.increment and self.game is None:
            raise BoardlabError("an increment needs a time per game (--game-time)")
        if self.refill and (self.game is None or self.increment):
            raise BoardlabError("a clock refilled after each move has a time and no increment")

    def budget(self, clock: float | None) -> dict[str, Any] | None:
        """The budget handed to an agent: ``time`` always, ``clock`` with a game clock."""
        if self.move is not None:
            return {"time": self.move}
        if self.refill:
            return None             # days per move: the agent's own budget, as with no clock
        if self.game is not None:
            assert clock is not None, "a game clock is set when there is a time per game"
            share = max(0.001, clock / 30 + self.increment * 0.8)
            return {"time": min(share, max(clock, 0.001)), "clock": clock,
                    "increment": self.increment}
        return None

    def describe(self) -> str:
        if self.move is not None:
            return f"{self.move:g} s/move"
        if self.refill:
            return f"{self.game:g} s for each move"
        if self.game is not None:
            return f"{self.game:g} s/game + {self.increment:g} s/move"
        return "agents' own budgets"


class GameDriver:
    """A game in progress: one state, its clocks, forfeits and undo points.

    ``seed`` drives the game's own chance (deals) and any CHANCE nodes, which
    the driver plays itself right after the move that reaches them.
    """

    #: keep a copy of the state every this many history entries (for quick undo)
    SNAPSHOT_EVERY = 16

    def __init__(self, game: Game, seed: int | None = 0, time_control: TimeControl | None = None):
        self.game = game
        self.state: State = game.new_initial_state(seed=seed)
        self.seed = self.state.seed if self.state.seed is not None else seed
        self.time_control = time_control or TimeControl()
        self.clocks: list[float | None] = [self.time_control.game] * game.num_seats
        self.forfeit_info: dict[str, Any] | None = None
        #: when the game began: its record's ``created``, the same in every copy
        self.created = now()
        self.aborted = False        # stopped before it got going: over, no winner, no loser
        self._chance = random.Random(self.seed)
        self._snapshots: dict[int, State] = {0: self.state.clone()}
        self._clocks_at: dict[int, list[float | None]] = {}   # the clocks after each length
        self._play_chance()
        self._log_clocks()

    # Who acts -------------------------------------------------------------------
    def acting(self) -> list[int]:
        """The seats that may act now (empty at the end)."""
        return [] if self.over else self.state.acting_seats()

    @property
    def over(self) -> bool:
        return self.aborted or self.state.is_terminal()

    def view(self, seat: int | None) -> dict[str, Any]:
        """``state.view(seat)`` with the clocks filled in when the game has them."""
        return self._clocked(self.state.view(seat))

    def views(self, seats: Iterable[int | None]) -> dict[int | None, dict[str, Any]]:
        """``view(seat)`` for each of ``seats`` (``state.views``: built once where the
        game shares its views between seats)."""
        return {seat: self._clocked(view) for seat, view in self.state.views(seats).items()}

    def _clocked(self, view: dict[str, Any]) -> dict[str, Any]:
        """The driver's part of a view: the clocks, an abort, the result in words."""
        if self.time_control.game is not None:
            view["clocks"] = {name: None if clock is None else round(clock, 3)
                              for name, clock in zip(self.game.seat_names, self.clocks)}
        if self.aborted:
            result = {"winners": [], "draw": False, "returns": [0.0] * self.game.num_seats,
                      "scores": self.state.scores(), "reason": ABORTED}
            view.update(terminal=True, to_move=None, acting=[], legal=[], legal_actions=[],
                        result={**result, "summary": summary(self.game, result)})
        return view

    def status_lines(self, seat: int | None, view: dict[str, Any]) -> list[str]:
        """The game's status lines of ``seat`` (``view``: its view); an aborted game's
        only line says so."""
        if self.aborted:
            return [view["result"]["summary"]]
        return self.state.status_lines(seat, view)

    def budget(self, seat: int) -> dict[str, Any] | None:
        """The thinking budget of ``seat`` now under the time control."""
        return self.time_control.budget(self.clocks[seat])

    # Moves --------------------------------------------------------------------------
    def submit(self, seat: int, move: int | str, used: float | None = None) -> Move:
        """``seat`` plays ``move`` (an action number, or notation; ``resign`` resigns).

        In a simultaneous round this commits ``seat``'s choice. ``used`` (seconds)
        is charged to the seat's game clock. An illegal move raises
        IllegalMoveError (or NotationError) and changes nothing.
        """
        if not (isinstance(seat, int) and 0 <= seat < self.game.num_seats):
            raise IllegalMoveError(f"illegal move {move!r}: there is no seat {seat!r}",
                                   move=move, reason=f"there is no seat {seat!r}")
        if self.aborted:
            raise IllegalMoveError(f"illegal move {move!r}: the game was aborted",
                                   move=move, reason="the game was aborted")
        if isinstance(move, str):
            self.state.play(f"{self.game.seat_names[seat]}:{move}")
        else:
            self.state.apply(move, seat=seat)
        entry = self.state.history[-1]
        if used is not None:
            self.charge(seat, used)
        self._play_chance()
        self._snapshot()
        self._log_clocks()
        return entry

    def resign(self, seat: int) -> None:
        """``seat`` resigns, on its turn or not; its whole team loses."""
        self.state.resign(seat, out_of_turn=True)
        self._log_clocks()

    def agree_draw(self) -> None:
        """The sides agree a draw: the game ends drawn (``State.agree_draw``; refused
        with IllegalMoveError where the game allows none or is over)."""
        self.state.agree_draw()
        self._log_clocks()

    def forfeit(self, seat: int, kind: str, reason: str) -> dict[str, Any] | None:
        """``seat`` loses by forfeit (a crash, a timeout, an illegal move): it resigns
        whether or not it acts now, and the record says why. ``kind`` "time" is a loss
        on time: the history says ``time`` and the result's reason "time". A game
        already over stays as it ended (None)."""
        if self.over:
            return None
        self.forfeit_info = {"seat": self.game.seat_names[seat], "kind": kind,
                             "reason": str(reason)[:500],
                             "move_number": len(self.state.history_text()) + 1}
        self.state.resign(seat, out_of_turn=True, on_time=kind == "time")
        self._log_clocks()
        return self.forfeit_info

    def abort(self) -> None:
        """Stop a game that never got going (a first move did not come in time): it is
        over with no winner and no loser, the reason "aborted"; the record has no result
        and ``meta.aborted``. IllegalMoveError when the game is over."""
        if self.over:
            raise IllegalMoveError("illegal move 'abort': the game is over", move="abort",
                                   reason="the game is over")
        self.aborted = True

    def _play_chance(self) -> None:
        while self.state.is_chance():
            self.state.apply(self.state.sample_chance(self._chance))

    # Clocks ---------------------------------------------------------------------------
    def charge(self, seat: int, used: float) -> float | None:
        """Take ``used`` seconds off ``seat``'s game clock, then add the increment (a
        refilled clock is full again).

        Returns what was left before the increment: below zero, the seat overstepped
        its time (the increment of a move does not pay for that move's overrun).
        """
        clock = self.clocks[seat]
        if clock is None:
            return None
        left = clock - used
        self.clocks[seat] = self.time_control.game if self.time_control.refill \
            else left + self.time_control.increment
        return left

    def _log_clocks(self) -> None:
        self._clocks_at[len(self.state.history)] = list(self.clocks)

    # Undo -----------------------------------------------------------------------------
    def undo_floor(self) -> int:
        """How far back an undo may go (a history length)."""
        return self.state.undo_floor()

    def undo(self, to: int) -> int:
        """Go back to the position after the first ``to`` history entries.

        Refused (UndoError, nothing changes) past the game's undo floor: a reveal
        of hidden information or a draw of cards. Returns the entries taken back.
        Replays at most ``SNAPSHOT_EVERY`` entries from the nearest kept copy.
        """
        history = self.state.history
        if not 0 <= to <= len(history):
            raise UndoError(f"cannot go back to move {to}: the game has {len(history)} moves")
        if to == len(history):
            raise UndoError("nothing to take back")
        floor = self.undo_floor()
        if to < floor:
            raise UndoError("cannot take back moves across a reveal of hidden information "
                            "or a draw of cards")
        base = max(k for k in self._snapshots if k <= to)
        state = self._snapshots[base].clone()
        for entry in history[base:to]:
            state.replay_entry(entry)
        taken = len(history) - to
        self.state = state
        self._snapshots = {k: v for k, v in self._snapshots.items() if k <= to}
        self._clocks_at = {k: v for k, v in self._clocks_at.items() if k <= to}
        if to in self._clocks_at:                   # the clocks as they were then
            self.clocks = list(self._clocks_at[to])
        self.forfeit_info = None
        self.aborted = False
        return taken

    def _snapshot(self) -> None:
        length = len(self.state.history)
        last = max(self._snapshots)
        if length - last >= self.SNAPSHOT_EVERY:
            self._snapshots[length] = self.state.clone()

    # The record ---------------------------------------------------------------------
    def record(self, players: Iterable[str] | None = None,
               meta: dict[str, Any] | None = None) -> dict[str, Any]:
        """The game's record (see core/record.py); a forfeit goes in ``meta.forfeit``."""
        info = dict(meta or {})
        if self.forfeit_info:
            info["forfeit"] = self.forfeit_info
        if self.aborted:
            info["aborted"] = True
        record = to_record(self.state, players=players, seed=self.seed, meta=info or None,
                           created=self.created)
        if self.aborted:                            # the moves end nowhere: no result
            record["result"] = None
        return record

    def movers(self) -> list[int]:
        """The seat of each history entry (CHANCE for chance outcomes)."""
        return [seat for seat, _ in self.state.history]


__all__ = ["CHANCE", "GameDriver", "TimeControl", "UndoError"]
