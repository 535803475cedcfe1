"""Play one game between agents under a time control, with forfeits and a record.

Each agent only ever gets its own seat's view. An agent that breaks down
(an engine that crashes, hangs, writes garbage or plays an illegal move, or
a Python agent that raises) forfeits: its seat resigns and the record's
``meta.forfeit`` says why. Engines are killed when the game ends, whatever
the ending. Built-in agents are trusted to keep to their budgets; external
engines are held to them (see ``docs/engine-protocol.md``): per move by the
engine agent itself, per game by the clock kept here (agents that declare a
``time_tolerance`` forfeit when their clock goes below minus that much).
"""
from __future__ import annotations

import math
import random
import time
import traceback
from dataclasses import dataclass, field

from ..agents import EngineFailure, make_agent
from ..core.errors import BoardlabError, IllegalMoveError
from ..core.record import to_record
from ..core.registry import make


@dataclass(frozen=True)
class TimeControl:
    """Seconds per move, or a clock per seat for the whole game plus an increment."""

    move: float | None = None
    game: float | None = None
    increment: float = 0.0

    def __post_init__(self):
        if self.move is not None and self.game is not None:
            raise BoardlabError("give a time per move or a time per game, not both")
        for name in ("move", "game"):
            value = getattr(self, name)
            if value is not None and not 0 < value < math.inf:
                raise BoardlabError(f"the time per {name} must be a positive number of "
                                    f"seconds, not {value}")
        if not 0 <= self.increment < math.inf:
            raise BoardlabError(f"the increment must be a number of seconds >= 0, not "
                                f"{self.increment}")
        if self.increment and self.game is None:
            raise BoardlabError("an increment needs a time per game (--game-time)")

    def budget(self, clock: float | None) -> dict | None:
        """The budget handed to an agent: ``time`` always, ``clock`` with a game clock."""
        if self.move is not None:
            return {"time": self.move}
        if self.game is not None:
            share = max(0.001, clock / 30 + self.increment * 0.8)
            return {"time": min(share, max(clock, 0.001)), "clock": clock,
                    "increment": self.increment}
        return None

    def describe(self) -> str:
        if self.move is not None:
            return f"{self.move:g} s/move"
        if self.game is not None:
            return f"{self.game:g} s/game + {self.increment:g} s/move"
        return "agents' own budgets"


@dataclass
class GameResult:
    """What a finished game left: returns per seat, a record and the forfeit, if any."""

    returns: list[float]
    actions: int
    record: dict
    forfeit: dict | None = None
    seconds: float = 0.0
    players: list[str] = field(default_factory=list)


def run_game(spec: str, players: list[str], seed: int, time_control: TimeControl | None = None,
             max_actions: int | None = None, meta: dict | None = None) -> GameResult:
    """Play one game; ``players[s]`` (an agent spec) plays seat s."""
    game = make(spec)
    if len(players) != game.num_seats:
        raise BoardlabError(f"{game.spec} has {game.num_seats} seats, not {len(players)}")
    control = time_control or TimeControl()
    state = game.new_initial_state(seed=seed)
    agents = [make_agent(p, game, s, seed=seed * 31 + s) for s, p in enumerate(players)]
    clocks = [control.game] * game.num_seats
    start, actions, forfeit = time.monotonic(), 0, None
    chance = random.Random(seed)
    try:
        while not state.is_terminal() and not (max_actions and actions >= max_actions):
            if state.is_chance():
                state.apply(state.sample_chance(chance))
                actions += 1
                continue
            seat = state.acting_seats()[0]
            forfeit = _turn(state, agents[seat], seat, control, clocks)
            if forfeit:
                state.resign(seat)
                break
            actions += 1
    finally:
        for agent in agents:
            agent.close(state.returns() if state.is_terminal() else None)
    info = {**(meta or {}), "time_control": control.describe()}
    if forfeit:
        info["forfeit"] = forfeit
    record = to_record(state, players=players, seed=seed, meta=info)
    return GameResult(state.returns(), actions, record, forfeit, time.monotonic() - start,
                      list(players))


def _turn(state, agent, seat: int, control: TimeControl, clocks: list) -> dict | None:
    """Ask ``agent`` for a move and apply it; return the forfeit, if any.

    Only the agent's own failures forfeit: errors of the runner or the game propagate.
    """
    view, budget = state.view(seat), control.budget(clocks[seat])
    started = time.monotonic()
    try:
        action = agent.act(view, budget)
    except EngineFailure as failure:
        return _forfeit(state, seat, failure.kind, failure.detail)
    except Exception as error:                    # a Python agent's own bug
        detail = "".join(traceback.format_exception_only(type(error), error)).strip()
        return _forfeit(state, seat, "crash", detail)
    used = getattr(agent, "last_think", None) or time.monotonic() - started
    try:
        state.apply(action, seat=seat)
    except IllegalMoveError as error:
        return _forfeit(state, seat, "illegal", str(error))
    return _charge_clock(state, agent, seat, control, clocks, used)


def _charge_clock(state, agent, seat, control, clocks, used: float) -> dict | None:
    """Take ``used`` off the seat's clock; an agent held to time forfeits past zero."""
    if clocks[seat] is None:
        return None
    clocks[seat] += control.increment - used
    tolerance = getattr(agent, "time_tolerance", None)
    if tolerance is not None and clocks[seat] < -tolerance:
        return _forfeit(state, seat, "timeout", f"used up its game clock ({-clocks[seat]:.2f} s "
                        f"over)")
    return None


def _forfeit(state, seat: int, kind: str, detail: str) -> dict:
    return {"seat": state.game.seat_names[seat], "kind": kind, "reason": detail[:500],
            "move_number": len(state.history_text()) + 1}
