"""A game's life from creation to the lobby's archive: the server's options for it.

- **The opening.** As on lichess, no clock runs until every side (team) has made its
  first move; a timed game whose acting seat makes no move within
  ``first_move_limit`` seconds of its turn during the opening is aborted: over, with no
  winner and no loser (turn_clock.py watches it; the log says ``!abort``).
- **Abandoned games** leave the lobby's list (``GET /api/games``): aborted games, and
  unfinished games in which nothing happened (no action, no seat taken or given up) for
  ``abandoned_after`` seconds. They are not deleted: their pages and records stay.
- **Finished games** are listed with their result (winners, scores, the summary in words,
  core/results.py), stored when the game ends.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

FIRST_MOVE_LIMIT = 120.0           # seconds for a move of the opening of a timed game
ABANDONED_AFTER = 7 * 86400.0      # seconds without a change: an unfinished game is abandoned


def _utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class Lifecycle:
    """The server's lifecycle options. ``first_move_limit``: seconds a seat of a timed
    game has for a move of the opening before the game is aborted (0: never);
    ``abandoned_after``: seconds without a change after which an unfinished game leaves
    the lobby; ``wall``: the wall clock the lobby compares with (tests pass their own)."""

    first_move_limit: float = FIRST_MOVE_LIMIT
    abandoned_after: float = ABANDONED_AFTER
    wall: Callable[[], datetime] = field(default=_utc_now, compare=False)

    def __post_init__(self) -> None:
        if not 0 <= self.first_move_limit < float("inf"):
            raise ValueError(f"the first-move limit is a number of seconds >= 0, not "
                             f"{self.first_move_limit}")
        if not 0 < self.abandoned_after < float("inf"):
            raise ValueError(f"abandoned_after is a number of seconds > 0, not "
                             f"{self.abandoned_after}")

    def idle_since(self) -> datetime:
        """Unfinished games not changed since this moment are abandoned."""
        return self.wall() - timedelta(seconds=self.abandoned_after)


def listed_result(result: dict | None) -> dict | None:
    """What the lobby shows of a finished game's view result: winners, draw, scores,
    reason and the summary in words (no returns)."""
    if not result:
        return None
    return {key: result.get(key) for key in ("winners", "draw", "scores", "reason",
                                             "summary")}
