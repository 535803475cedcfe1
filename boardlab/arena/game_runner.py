"""Play one game between agents under a time control, with forfeits and a record.

Each agent only ever gets its own seat's view. An agent that breaks down
(an engine that crashes, hangs, writes garbage or plays an illegal move, or
a Python agent that raises) forfeits: its seat resigns and the record's
``meta.forfeit`` says why. Engines are killed when the game ends, whatever
the ending. Built-in agents are trusted to keep to their budgets; external
engines are held to them (see ``docs/engine-protocol.md``): per move by the
engine agent itself, per game by the clock kept here (agents that declare a
``time_tolerance`` forfeit when their clock goes below minus that much).

In a game with hidden information, an agent loaded from a file or module of
the user's (``--agents-from``) plays in a process of its own
(:class:`~boardlab.agents.isolated.IsolatedAgent`) unless ``in_process`` is
given: in this process it could read the real state.
"""
from __future__ import annotations

import time
import traceback
from dataclasses import dataclass, field

from ..agents import EngineFailure, make_agent
from ..agents.base import agent_source, loaded_agent_sources, public_game
from ..agents.isolated import IsolatedAgent
from ..core.driver import GameDriver, TimeControl
from ..core.errors import BoardlabError
from ..core.registry import make

__all__ = ["GameResult", "TimeControl", "run_game"]


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
             max_actions: int | None = None, meta: dict | None = None,
             in_process: bool = False) -> GameResult:
    """Play one game; ``players[s]`` (an agent spec) plays seat s.

    ``in_process``: the user's agents play in this process even when the game
    hides information (see the module's docstring).
    """
    game = make(spec)
    if len(players) != game.num_seats:
        raise BoardlabError(f"{game.spec} has {game.num_seats} seats, not {len(players)}")
    driver = GameDriver(game, seed=seed, time_control=time_control)
    agents = []
    try:
        for s, p in enumerate(players):
            agents.append(make_player(p, game, s, seed * 31 + s, driver.time_control,
                                      in_process))
    except BaseException:
        for agent in agents:
            agent.close(None)
        raise
    start, forfeit = time.monotonic(), None
    try:
        while not driver.over and not (max_actions and len(driver.state.history) >= max_actions):
            seat = driver.acting()[0]
            forfeit = _turn(driver, agents[seat], seat)
            if forfeit:
                break
    finally:
        for agent in agents:
            agent.close(driver.state.returns() if driver.over else None)
    info = {**(meta or {}), "time_control": driver.time_control.describe()}
    record = driver.record(players=players, meta=info)
    actions = len(driver.state.history) - (forfeit is not None)   # a forfeit's resign
    return GameResult(driver.state.returns(), actions, record, forfeit,
                      time.monotonic() - start, list(players))


def isolates(spec: str, game, in_process: bool = False) -> bool:
    """Whether the agent of ``spec`` plays ``game`` in a process of its own: an agent
    loaded from the user's file or module, in a game with hidden information."""
    return not in_process and not game.perfect_information and agent_source(spec) is not None


def make_player(spec: str, game, seat: int, seed: int, control: TimeControl,
                in_process: bool = False):
    """The agent of one seat, isolated where :func:`isolates` says so."""
    if not isolates(spec, game, in_process):
        return make_agent(spec, game, seat, seed=seed)
    make_agent(spec, game, seat).close()          # a bad spec fails here, not in the child
    own_budget = control.move is None and control.game is None
    return IsolatedAgent(public_game(game), seat, spec.strip(), loaded_agent_sources(),
                         own_budget)


def _turn(driver: GameDriver, agent, seat: int) -> dict | None:
    """Ask ``agent`` for a move and play it; return the forfeit, if any.

    Only the agent's own failures forfeit: errors of the runner or the game propagate.
    """
    view, budget = driver.view(seat), driver.budget(seat)
    started = time.monotonic()
    try:
        action = agent.act(view, budget)
    except EngineFailure as failure:
        return driver.forfeit(seat, failure.kind, failure.detail)
    except Exception as error:                    # a Python agent's own bug
        detail = "".join(traceback.format_exception_only(type(error), error)).strip()
        return driver.forfeit(seat, "crash", detail)
    used = agent.last_think or time.monotonic() - started
    if isinstance(action, bool) or not isinstance(action, int):
        return driver.forfeit(seat, "illegal", f"an action must be an int, not {action!r}")
    left = driver.charge(seat, used)
    try:
        driver.submit(seat, action)
    except BoardlabError as error:
        return driver.forfeit(seat, "illegal", str(error))
    if left is not None and agent.time_tolerance is not None and left < -agent.time_tolerance \
            and not driver.over:
        return driver.forfeit(seat, "timeout", f"used up its game clock ({-left:.2f} s over)")
    return None
