"""Tournaments: a fixed schedule of games, played in parallel, stored as they end.

The configuration (game, participants, format, rounds, seed, time control)
determines the whole schedule, so a tournament is resumed by playing the
scheduled games that are not in the database yet: a finished game is never
played again or lost. Standings and ratings are computed from the stored
games only.
"""
from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from functools import cached_property
from collections.abc import Callable
from typing import Protocol

from sqlalchemy import Connection

from ..agents import make_agent
from ..core.errors import BoardlabError
from ..core.registry import make
from .executor import execute
from . import tiebreaks
from .game_runner import TimeControl
from .tables import Table
from .ratings import Rating, bradley_terry, openskill_ratings
from .schedule import default_deals, schedule, seat_players, side_scores, sides_of
from .storage import Store


def tournament_config(spec: str, participants: dict[str, str], kind: str = "round-robin",
                      rounds: int = 1, seed: int = 1, time_control: TimeControl | None = None,
                      max_actions: int | None = None, deals: str | None = None,
                      in_process: bool = False) -> dict:
    """A checked, JSON-ready configuration (what the database keeps).

    ``deals``: "fresh" or "duplicate" (see ``schedule``); None: the game's default
    (:func:`~boardlab.arena.schedule.default_deals`). ``in_process``: the user's
    agents play in the runner's process even in games with hidden information.
    """
    game = make(spec)
    control = time_control or TimeControl()
    for agent in participants.values():               # bad agent specs fail now, not later
        make_agent(agent, game, 0).close()
    config = {"game": game.spec, "participants": [[n, a] for n, a in participants.items()],
              "format": kind,
              "rounds": rounds, "seed": seed,
              "time_control": {"move": control.move, "game": control.game,
                               "increment": control.increment},
              "max_actions": max_actions, "deals": deals or default_deals(game),
              "in_process": in_process}
    schedule_of(config)                                # a bad format or too few agents: now
    if len(participants) < 2:
        raise BoardlabError("a tournament needs at least two participants")
    return config


def participants_of(config: dict) -> dict[str, str]:
    """Name -> agent spec, in the configured order (kept as a list of pairs in storage)."""
    stored = config["participants"]
    pairs = stored.items() if isinstance(stored, dict) else stored     # early files: a dict
    return dict(pairs)


def schedule_of(config: dict):
    game = make(config["game"])
    return schedule(list(participants_of(config)), len(sides_of(game)), config["format"],
                    config["rounds"], config["seed"], config.get("deals", "duplicate"))


def game_task(config: dict, game, scheduled, meta: dict) -> dict:
    """The executor's task for one scheduled game (plain data)."""
    return {"spec": config["game"], "seed": scheduled.seed, "index": scheduled.index,
            "players": seat_players(game, scheduled.sides, participants_of(config)),
            "time_control": config["time_control"], "max_actions": config["max_actions"],
            "in_process": config.get("in_process", False),
            "meta": {**meta, "sides": list(scheduled.sides)}}


@dataclass
class Standing:
    """One participant's line in the table."""

    name: str
    games: int = 0
    points: float = 0.0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    forfeits: int = 0
    rating: Rating | None = None
    buchholz: float | None = None          # arena/tiebreaks.py
    sonneborn_berger: float | None = None

    @property
    def score(self) -> float:
        return self.points / self.games if self.games else 0.0


@dataclass
class Progress:
    """What a display needs after each game. ``table`` is the standings or what computes
    them: they are computed when first read (a display that skips them costs nothing, and
    one that redraws now and then does not make a long tournament quadratic)."""

    done: int
    total: int
    table: list[Standing] | Callable[[], list[Standing]]
    last: dict | None = None

    @cached_property
    def standings(self) -> list[Standing]:
        return self.table() if callable(self.table) else self.table


class Mirror(Protocol):
    """A copy of the tournament kept elsewhere as it is played (the server's tables,
    server/tournaments/arena_link.py), written in the transaction of each game."""

    def open(self, tournament: Tournament) -> None:
        """The run starts (the tournament is held): make or find the copy, add the games
        stored without it."""

    def add(self, db: Connection, tournament: Tournament, scheduled, scores: list[float],
            result: dict) -> None:
        """Copy one finished game, in the transaction ``db`` that stores it."""

    def close(self, tournament: Tournament, over: bool) -> None:
        """The run ends: ``over`` when every scheduled game is stored."""

    def where(self) -> str:
        """Where the copy is shown (after ``open``)."""


class Tournament:
    """A tournament in a store: run (or resume) it, and read its standings; ``mirror``
    copies it (the server's tables when the store is a server's database)."""

    def __init__(self, store: Store, name: str, config: dict, mirror: Mirror | None = None):
        self.store, self.name, self.config, self.mirror = store, name, config, mirror
        self.id = store.open_tournament(name, config)
        self.game = make(config["game"])
        self.games = schedule_of(config)
        self._held = False

    @classmethod
    def resume(cls, store: Store, name: str, mirror: Mirror | None = None) -> Tournament:
        return cls(store, name, store.config(name), mirror)

    @property
    def games_a_round(self) -> int:
        """The scheduled games of one round (the schedule repeats each round)."""
        return max(1, len(self.games) // max(1, self.config["rounds"]))

    def pending(self) -> list:
        done = {row.idx for row in self.store.finished_games(self.id)}
        return [g for g in self.games if g.index not in done]

    def task(self, scheduled) -> dict:
        return game_task(self.config, self.game, scheduled,
                         {"tournament": self.name, "game_index": scheduled.index})

    @contextmanager
    def held(self):
        """Hold the tournament in the database while the block runs (a second runner
        is refused, named the holder: ``LockedError``); :meth:`run` holds it too."""
        if self._held:
            yield
            return
        with self.store.hold(self.id, self.name):
            self._held = True
            try:
                yield
            finally:
                self._held = False

    def run(self, jobs: int = 1, ray_address: str | None = None,
            on_game: Callable[[Progress], None] | None = None,
            ray_batch: int | None = None) -> list[Standing]:
        """Play every pending game, holding the tournament; ``on_game`` hears about
        each one as it is stored. ``ray_batch``: games per Ray task (see ``execute``)."""
        with self.held():
            if self.mirror is None:
                return self._run(jobs, ray_address, on_game, ray_batch)
            self.mirror.open(self)
            try:
                return self._run(jobs, ray_address, on_game, ray_batch)
            finally:
                self.mirror.close(self, not self.pending())

    def _run(self, jobs, ray_address, on_game, ray_batch=None) -> list[Standing]:
        pending = self.pending()
        by_index = {g.index: g for g in pending}
        done = len(self.games) - len(pending)
        if on_game:
            on_game(Progress(done, len(self.games), self.standings))
        for task, result in execute([self.task(g) for g in pending], jobs, ray_address,
                                    ray_batch):
            scheduled = by_index.pop(task["index"], None)
            if scheduled is None:         # a game that came back twice (a retry) counts once
                continue
            scores = side_scores(self.game, result["returns"])
            self.store.add_game(self.id, scheduled.index, scheduled.sides, scheduled.seed,
                                scores, result, self._copy(scheduled, scores, result))
            done += 1
            if on_game:
                on_game(Progress(done, len(self.games), self.standings,
                                 {**result, "sides": scheduled.sides, "scores": scores}))
        return self.standings()

    def _copy(self, scheduled, scores: list[float], result: dict):
        """The mirror's writer of one game (None without a mirror)."""
        mirror = self.mirror
        if mirror is None:
            return None
        return lambda db: mirror.add(db, self, scheduled, scores, result)

    # Standings --------------------------------------------------------------------------
    def rows(self) -> list:
        """The finished games with their records."""
        return self.store.finished_games(self.id)

    def standings(self) -> list[Standing]:
        return standings(self.game, list(participants_of(self.config)),
                         self.store.results(self.id))


def ratings_kind(game) -> str:
    return tiebreaks.rating_kind(len(sides_of(game)))


def standings(game, names: list[str], rows) -> list[Standing]:
    """Points, wins/draws/losses, forfeits and ratings, best first.

    ``rows`` are finished games with ``sides``, ``scores`` and ``forfeit``.
    """
    table = {name: Standing(name) for name in names}
    for row in rows:
        _count(game, table, row)
    for rating in ratings(game, names, rows):
        table[rating.name].rating = rating
    for line in tiebreaks.standings(names, [_table(row) for row in rows], "round-robin"):
        table[line.player].buchholz = line.buchholz
        table[line.player].sonneborn_berger = line.sonneborn_berger
    return sorted(table.values(), key=lambda s: (-(s.rating.rating if s.rating else 0),
                                                 -s.score, s.name))


def _table(row) -> Table:
    """A stored game as the arena's one result type (tie-breaks)."""
    return Table(tuple(row.sides), tuple(row.scores), "forfeit" if row.forfeit else None)


def _count(game, table: dict, row) -> None:
    """Add one game: points, places (from the returns) and a forfeit."""
    forfeit_seat = (row.forfeit or {}).get("seat")
    sides = sides_of(game)
    values = [row.returns[seats[0]] for seats in sides]
    for seats, name, score, value in zip(sides, row.sides, row.scores, values):
        line = table[name]
        line.games += 1
        line.points += score
        first, last = value == max(values), value == min(values)
        line.wins += first and not last
        line.losses += last and not first
        line.draws += first == last
        line.forfeits += forfeit_seat in {game.seat_names[s] for s in seats}


def ratings(game, names: list[str], rows) -> list[Rating]:
    """Bradley–Terry (Elo) for two sides, OpenSkill (Plackett–Luce) for more."""
    if not rows:
        return []
    if len(sides_of(game)) == 2:
        return bradley_terry([(r.sides[0], r.sides[1], r.scores[0]) for r in rows], names)
    return openskill_ratings([([[n] for n in r.sides], [-s for s in r.scores]) for r in rows],
                             names)
