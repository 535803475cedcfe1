"""A game's clock on the server: what a request may ask for and the driver's time control.

A stored clock is one of

- ``null``: no clock at all (a casual or hotseat game; rated, it is correspondence);
- ``{"base": SECONDS, "increment": SECONDS}``: a Fischer clock for the whole game;
- ``{"days": N}``: a correspondence clock, N days for each move (1 to MAX_DAYS): a seat
  that has not moved N days after its turn began loses on time, as on a Fischer clock.

Both clocks run through the one machinery (turn_clock.py): a correspondence clock is a
clock of N days refilled after each move of its seat (core/driver.py ``TimeControl.refill``),
whose turns begin, after a restart, when the stored log says (not when the server started).
"""
from __future__ import annotations

from ..core.driver import TimeControl

MAX_CLOCK = 30 * 86400       # seconds: a Fischer clock's base, and its increment
MAX_DAYS = 14                # days per move of a correspondence clock
DAY = 86400.0


class ClockError(ValueError):
    """A clock a request may not ask for (the message says why)."""


def parse(clock) -> dict | None:
    """A request's clock, checked (ClockError saying what is wrong)."""
    if clock is None:
        return None
    if isinstance(clock, dict) and "days" in clock:
        days = clock["days"]
        if set(clock) != {"days"} or isinstance(days, bool) or not isinstance(days, int) \
                or not 1 <= days <= MAX_DAYS:
            raise ClockError(f"a correspondence clock is {{\"days\": N}}, N a whole "
                             f"number of days per move from 1 to {MAX_DAYS}")
        return {"days": days}
    if not isinstance(clock, dict) or set(clock) != {"base", "increment"} or \
            not _seconds(clock["base"]) or clock["base"] == 0 or \
            not _seconds(clock["increment"]):
        raise ClockError(f"'clock' is null, {{\"days\": N}} (days per move, 1 to {MAX_DAYS}) "
                         f"or {{\"base\": SECONDS, \"increment\": SECONDS}} (0 < base, "
                         f"0 <= increment, both at most {MAX_CLOCK})")
    return {"base": float(clock["base"]), "increment": float(clock["increment"])}


def _seconds(value) -> bool:
    """Whether ``value`` is a JSON number of seconds from 0 to MAX_CLOCK."""
    return not isinstance(value, bool) and isinstance(value, (int, float)) and \
        0 <= value <= MAX_CLOCK


def time_control(clock: dict | None) -> TimeControl:
    """The driver's time control of a stored clock (None: no clock)."""
    if not clock:
        return TimeControl()
    if "days" in clock:
        return TimeControl(game=clock["days"] * DAY, refill=True)
    return TimeControl(game=clock["base"], increment=clock["increment"])
