"""Showing a match or tournament as it runs: a progress bar and a live standings table.

On a terminal this is a ``rich`` live display; otherwise (a log file, CI) one
line per finished game goes to stderr and the table is printed at the end.
"""
from __future__ import annotations

import sys
import time
from typing import TYPE_CHECKING, Any

from .tournament import Progress, Standing

if TYPE_CHECKING:
    from rich.live import Live


def standings_table(standings: list[Standing], num_sides: int, kind: str):
    """A rich Table of the standings."""
    from rich.table import Table

    table = Table(title=f"standings ({kind}, 95% intervals)", title_justify="left")
    for header in ("#", "participant", "rating", "95% interval", "games", "points", "score",
                   "W-D-L" if num_sides == 2 else "1st-mid-last", "forfeits", "Buchholz",
                   "S-B"):
        table.add_column(header, justify="left" if header == "participant" else "right")
    for rank, line in enumerate(standings, 1):
        table.add_row(*standing_cells(rank, line))
    return table


def standing_cells(rank: int, line: Standing) -> list[str]:
    rating = line.rating
    shown = f"{rating.rating:+.0f}" if rating and abs(rating.rating) >= 10 else \
        f"{rating.rating:+.1f}" if rating else "-"
    interval = f"{rating.low:+.0f} .. {rating.high:+.0f}" if rating else "-"
    return [str(rank), line.name, shown, interval, str(line.games), f"{line.points:g}",
            f"{100 * line.score:.1f}%", f"{line.wins}-{line.draws}-{line.losses}",
            str(line.forfeits), _tie_break(line.buchholz), _tie_break(line.sonneborn_berger)]


def _tie_break(value: float | None) -> str:
    return "-" if value is None else f"{value:g}"


def standings_text(standings: list[Standing], num_sides: int, kind: str) -> str:
    """The table as plain text (for files, logs and the closing summary)."""
    from rich.console import Console

    console = Console(width=120, color_system=None)
    with console.capture() as capture:
        console.print(standings_table(standings, num_sides, kind))
    return capture.get()


def games_json(rows) -> list[dict]:
    """The stored games as JSON: index, sides, seed, scores, returns, forfeit, and on Ray
    the node that played each (``node``: Ray's node id, ``node_ip``; None elsewhere)."""
    return [{"index": row.idx, "sides": list(row.sides), "seed": row.seed,
             "scores": row.scores, "returns": row.returns, "forfeit": row.forfeit,
             "actions": row.actions, "node": _meta(row).get("node"),
             "node_ip": _meta(row).get("node_ip")} for row in rows]


def game_lines(rows) -> list[str]:
    """One line a stored game (``boardlab standings NAME --games``)."""
    lines = []
    for game in games_json(rows):
        forfeit = game["forfeit"]
        note = f", forfeit by {forfeit['seat']}: {forfeit['kind']}" if forfeit else ""
        if game["node"]:
            note += f" [{_node_label(game['node'], game['node_ip'])}]"
        lines.append(f"game {game['index'] + 1}: {' vs '.join(game['sides'])} -> "
                     f"{' '.join(f'{s:g}' for s in game['scores'])}{note}")
    return lines


def _meta(row) -> dict:
    return (row.record or {}).get("meta") or {}


def _node_label(node: str, ip: str | None) -> str:
    """A Ray node for people: the start of its id, and its address."""
    return f"node {node[:8]}" + (f" at {ip}" if ip else "")


#: seconds between two redraws of the live standings (the bar moves at every game)
TABLE_EVERY = 1.0


class LiveBoard:
    """Context manager; call it with each :class:`Progress`."""

    def __init__(self, title: str, num_sides: int, kind: str, stream=None):
        from rich.console import Console

        self.title, self.num_sides, self.kind = title, num_sides, kind
        self.console = Console(file=stream or sys.stderr)
        self.live: Live | None = None
        self.started = time.monotonic()
        self.table: Any = None            # the standings drawn last, and when to redraw
        self.redraw_at = 0.0

    def __enter__(self):
        if self.console.is_terminal:
            from rich.live import Live
            from rich.progress import (BarColumn, MofNCompleteColumn, Progress as Bar,
                                       TextColumn, TimeElapsedColumn, TimeRemainingColumn)
            self.bar = Bar(TextColumn(self.title), BarColumn(), MofNCompleteColumn(),
                           TimeElapsedColumn(), TextColumn("eta"), TimeRemainingColumn(),
                           console=self.console)
            self.task = self.bar.add_task(self.title, total=None)
            self.live = Live(console=self.console, refresh_per_second=4)
            self.live.__enter__()
        return self

    def __call__(self, progress: Progress) -> None:
        if self.live is None:
            self._log_line(progress)
            return
        from rich.console import Group

        self.bar.update(self.task, total=progress.total, completed=progress.done)
        now = time.monotonic()
        if self.table is None or progress.done >= progress.total or now >= self.redraw_at:
            self.table = standings_table(progress.standings, self.num_sides, self.kind)
            self.redraw_at = now + TABLE_EVERY
        self.live.update(Group(self.bar, self.table))

    def _log_line(self, progress: Progress) -> None:
        last = progress.last
        if last is None:
            if progress.done:
                print(f"{self.title}: {progress.done}/{progress.total} games already played",
                      file=self.console.file, flush=True)
            return
        forfeit = last.get("forfeit")
        note = f", forfeit by {forfeit['seat']}: {forfeit['kind']}" if forfeit else ""
        if last.get("node"):
            note += f" [{_node_label(last['node'], last.get('node_ip'))}]"
        print(f"{self.title}: game {progress.done}/{progress.total}: "
              f"{' vs '.join(last['sides'])} -> "
              f"{' '.join(f'{s:g}' for s in last['scores'])}{note}",
              file=self.console.file, flush=True)

    def __exit__(self, *exc):
        if self.live is not None:
            self.live.__exit__(*exc)
        return False
