"""The typed results of a search: what ``MCTS.summary`` and ``MCTS.analyse`` return."""
from __future__ import annotations

from typing import TypedDict


class SearchSummary(TypedDict):
    """One search of a position as root parallelism adds it up (``parallel.merge``):
    per searched action (visits, summed value); with the solver, the move it would
    play (``choice``), whether the root is ``proven`` and the moves proven ``lost``."""

    stats: dict[int, tuple[int, float]]
    choice: int | None
    proven: bool
    lost: list[int]


class MoveAnalysis(TypedDict):
    """One searched move: its action, visits and the mover's win chance (0..1)."""

    action: int
    visits: int
    win: float


class Analysis(TypedDict):
    """How a position stands: each seat's win chance by name, the moves most visited
    first."""

    estimate: dict[str, float]
    moves: list[MoveAnalysis]
