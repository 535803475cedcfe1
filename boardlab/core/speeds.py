"""A clock's speed, as lichess estimates it: the base time plus 40 times the increment
(a game of about 40 moves each), in seconds; a correspondence clock (``{"days": N}``:
days per move) and no clock at all are correspondence."""
from __future__ import annotations

#: (the estimate is below this many seconds, speed), fastest first
SPEEDS = ((30, "ultrabullet"), (180, "bullet"), (480, "blitz"), (1500, "rapid"))
CLASSICAL, CORRESPONDENCE = "classical", "correspondence"
ALL = tuple(name for _, name in SPEEDS) + (CLASSICAL, CORRESPONDENCE)


def speed_of(clock: dict[str, float] | None) -> str:
    """The speed of a clock ``{"base": s, "increment": s}`` (``{"days": N}`` or None:
    correspondence)."""
    if not clock or "days" in clock:
        return CORRESPONDENCE
    estimate = float(clock["base"]) + 40 * float(clock["increment"])
    for below, name in SPEEDS:
        if estimate < below:
            return name
    return CLASSICAL
