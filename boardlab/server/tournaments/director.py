"""The tournament director of a server process: pairs rounds, makes their games, records
their ends, forfeits no-shows and keeps ladders going (docs/tournaments.md).

Every game is an ordinary server game made as an accepted challenge's is
(accounts/pairing.py: each account holds its seat, a house bot's seat is an AI seat of its
level), so it is watched, replayed and kept like any other. Pairings come from the arena's
one pairing code (arena/pairing.py), standings from its one standings code
(arena/tiebreaks.py).

The director hears every game's end (a hub end listener, after the rating update), records
the result of a tournament's game, and advances its tournament in a background task: a
round robin or a Swiss pairs its next round once every game of the round is over, a ladder
pairs whoever is idle (or, with ``games_at_once`` K, whoever is in fewer than K games).
Advancing holds a lock per tournament in this process, and a round is claimed with its
pairings in one transaction (records.pair_round), so it is paired once. A tournament that
``boardlab tournament`` plays (``arena`` set: arena_link.py) is left to it. A no-show
watcher per game forfeits a seat that has neither moved nor been connected within the director's
wait from the start of its first turn (a resignation in the game's log; the pairing says
``no-show``); a ladder's no-show is withdrawn until it joins again.
"""
from __future__ import annotations

import asyncio
import logging
import math
from collections import Counter, defaultdict
from datetime import timedelta
from typing import TYPE_CHECKING

from ...arena.pairing import Pairing, ladder_pairs, round_robin_rounds, swiss_round
from ...arena.tiebreaks import standings
from ..accounts.bots import house_level
from ..accounts.pairing import new_game_id
from ..accounts.ratings import pool_of
from ..accounts.users import _aware, now
from ..log_entries import RESIGN
from ..messages import ProtocolError
from ..seats import AI
from . import multiside, records
from .records import OVER, PAUSED, RUNNING

if TYPE_CHECKING:
    from starlette.applications import Starlette

    from ..hub import Hub
    from ..room import Room

log = logging.getLogger("boardlab.server")
MAX_SETTLED_ROUNDS = 1000          # rounds settled at once (byes, withdrawals) before a stop
RETRY = 5.0                        # seconds before a no-show forfeit that failed is tried again


def total_rounds(row, names: list[str]) -> int:
    """The rounds of a round robin (its cycles over the field ``names``; with more sides
    its schedule's) or a Swiss (as set, else enough to find a winner: ceil(log2 n)); a
    ladder has none. A tournament played by ``boardlab tournament`` has its cycles (each
    pairing in every seat rotation) as rounds."""
    if row.arena is not None:
        return row.rounds or 1
    entrants = len(names)
    k = multiside.sides_count(Director.hub_game(row.spec))
    if row.format == "round-robin" and k > 2:
        return multiside.total_rounds(row, names, k)
    if row.format == "round-robin":
        return (row.rounds or 1) * (entrants - 1 if entrants % 2 == 0 else entrants)
    if row.format == "swiss":
        return row.rounds or max(1, math.ceil(math.log2(max(entrants, 2))))
    return 0


class Director:
    """The tournaments of one server process (``app.state.tournaments``)."""

    def __init__(self, app: Starlette):
        self.app = app
        self.locks: dict[str, asyncio.Lock] = defaultdict(asyncio.Lock)
        self.no_shows: set[str] = set()            # games a no-show watcher forfeited
        self.watchers: dict[str, asyncio.Task] = {}
        self.timers: dict[str, asyncio.Task] = {}  # ladders' ends

    @property
    def hub(self) -> Hub:
        return self.app.state.hub

    @property
    def engine(self):
        return self.hub.store.engine

    def house(self, user) -> int | None:
        return house_level(user)

    async def entrants(self, tournament_id: str) -> list[records.Entrant]:
        return await asyncio.to_thread(records.entrants, self.engine, tournament_id,
                                       self.house)

    # Starting, resuming, recovering ---------------------------------------------------------
    async def started(self, tournament_id: str) -> None:
        """A tournament just started or resumed: pair what is due, time a ladder's end."""
        row = await asyncio.to_thread(records.find, self.engine, tournament_id)
        if row is not None and row.ends is not None:
            self._time_end(tournament_id, (_aware(row.ends) - now()).total_seconds())
        await self.advance(tournament_id)

    async def recover(self) -> None:
        """After a restart: record the ends missed, watch the running games again, pair
        what is due."""
        for tournament_id in await asyncio.to_thread(records.running, self.engine):
            try:
                row = await asyncio.to_thread(records.find, self.engine, tournament_id)
                for pairing in await asyncio.to_thread(records.pairings_of, self.engine,
                                                       tournament_id):
                    if pairing.game_id is None or pairing.score is not None:
                        continue
                    room = await self.hub.get(pairing.game_id)
                    if room is None:            # stopped between the pairing and its game
                        await self._start_game(row, pairing._asdict())
                    elif room.over:
                        await self._record(room, pairing)
                    elif row.no_show is not None:
                        self.watch(room.id, row.no_show)
                await self.started(tournament_id)
            except Exception:
                log.exception("tournament %s: cannot pick it up again", tournament_id)

    def ladder_ends(self, row) -> dict:
        """The columns a ladder of a set duration gets when it starts."""
        if row.format != "ladder" or row.duration is None:
            return {}
        return {"ends": now() + timedelta(seconds=row.duration)}

    def _time_end(self, tournament_id: str, seconds: float) -> None:
        if tournament_id in self.timers:
            return

        async def end() -> None:
            await self.hub.clock.sleep(max(0.0, seconds))
            self.timers.pop(tournament_id, None)
            await asyncio.to_thread(records.move, self.engine, tournament_id,
                                    (RUNNING, PAUSED), OVER)

        self.timers[tournament_id] = self.hub.spawn(end())

    # Games ending -----------------------------------------------------------------------------
    async def on_end(self, room: Room) -> None:
        """The hub's end listener: a tournament's game ended; record it and advance."""
        try:
            pairing = await asyncio.to_thread(records.pairing_of_game, self.engine, room.id)
            if pairing is None:
                return
            await self._record(room, pairing)
        except Exception:
            log.exception("game %s: the tournament could not record its end", room.id)
            return
        self.hub.spawn(self.advance(pairing.tournament_id))

    async def _record(self, room: Room, pairing) -> None:
        game = room.driver.game
        points = multiside.points_of(game, room.driver.state.returns())
        forfeit = "no-show" if room.id in self.no_shows else None
        self.no_shows.discard(room.id)
        await asyncio.to_thread(records.finish, self.engine, room.id, points[0], forfeit,
                                points if pairing.sides is not None else None)
        if forfeit is not None:
            row = await asyncio.to_thread(records.find, self.engine, pairing.tournament_id)
            loser = multiside.loser_of(game, room.driver.state, records.sides_of(pairing))
            if row is not None and row.format == "ladder" and loser is not None:
                await asyncio.to_thread(records.withdraw, self.engine,
                                        pairing.tournament_id, loser, False)

    # Advancing ----------------------------------------------------------------------------------
    async def advance(self, tournament_id: str) -> None:
        """Pair whatever is due in a running tournament (never fails loudly)."""
        try:
            async with self.locks[tournament_id]:
                for _ in range(MAX_SETTLED_ROUNDS):
                    if not await self._step(tournament_id):
                        return
        except Exception:
            log.exception("tournament %s: cannot advance", tournament_id)

    async def _step(self, tournament_id: str) -> bool:
        """Pair one round (or a ladder's idle players); True when it was settled at once
        (only byes and forfeits) and the next may follow."""
        row = await asyncio.to_thread(records.find, self.engine, tournament_id)
        if row is None or row.status != RUNNING:
            return False
        rows = await asyncio.to_thread(records.pairings_of, self.engine, tournament_id)
        entrants = await self.entrants(tournament_id)
        if row.format != "ladder":
            if any(p.score is None for p in rows if p.round == row.round):
                return False                    # the round is still being played
            if row.round >= await asyncio.to_thread(total_rounds, row,
                                                    [e.username for e in entrants]):
                await asyncio.to_thread(records.move, self.engine, tournament_id,
                                        (RUNNING,), OVER)
                return False
        k = multiside.sides_count(self.hub_game(row.spec))
        made = self._pairings(row, rows, entrants) if k == 2 else \
            await asyncio.to_thread(multiside.pairings, row, rows, entrants, k)
        if not made:
            return False
        if not await asyncio.to_thread(records.pair_round, self.engine, tournament_id,
                                       row.round, made):
            return False
        for pairing in made:
            if pairing["game_id"] is not None:
                await self._start_game(row, pairing)
        return row.format != "ladder" and all(p["game_id"] is None for p in made)

    def _pairings(self, row, rows: list, entrants: list[records.Entrant]) -> list[dict]:
        """The pairing rows of the next round (a ladder: of its idle players) of a game of
        two sides."""
        pairs = self._ladder(rows, entrants, row.games_at_once or 1) \
            if row.format == "ladder" else self._round(row, rows, entrants)
        by_name = {e.username: e for e in entrants}
        return [self._pairing(by_name[white], by_name[black] if black is not None else None)
                for white, black in pairs]

    def _round(self, row, rows: list, entrants: list[records.Entrant]) -> list[Pairing]:
        """The next round of a round robin (its fixed schedule over every entrant) or of a
        Swiss (among the active ones, from the results so far)."""
        if row.format == "round-robin":
            schedule = round_robin_rounds([e.username for e in entrants], row.rounds or 1)
            return schedule[row.round]
        names = {e.user_id: e.username for e in entrants}
        return swiss_round([e.username for e in entrants if e.active],
                           records.pairs(rows, names), [e.username for e in entrants])

    def _ladder(self, rows: list, entrants: list[records.Entrant],
                at_once: int = 1) -> list[Pairing]:
        """Pairs of the players with a free place (fewer than ``at_once`` games going), by
        nearest rating: one pass of the arena's ladder pairing per place, each avoiding
        the opponents a player is playing when another is free."""
        names = {e.user_id: e.username for e in entrants}
        going = [p for p in rows if p.score is None and p.black is not None]
        busy: Counter[int] = Counter(user for p in going for user in (p.white, p.black))
        free = {e.username: at_once - busy[e.user_id] for e in entrants if e.active}
        playing: dict[str, set[str]] = defaultdict(set)
        for p in going:
            playing[names[p.white]].add(names[p.black])
            playing[names[p.black]].add(names[p.white])
        if sum(1 for places in free.values() if places > 0) < 2:
            return []
        results = records.pairs(rows, names)
        ratings = {line.player: line.rating or 0.0
                   for line in standings(list(names.values()), results, "ladder")}
        last: dict[str, str] = {}
        whites: dict[str, int] = defaultdict(int)
        for result in results:
            if result.black is not None:
                last[result.white], last[result.black] = result.black, result.white
                whites[result.white] += 1
        pairs: list[Pairing] = []
        for _ in range(at_once):
            found = ladder_pairs([name for name, places in free.items() if places > 0],
                                 ratings, last, whites, playing)
            if not found:
                break
            for white, black in found:
                assert black is not None, "a ladder pairs two players"
                free[white] -= 1
                free[black] -= 1
                last[white], last[black] = black, white
                playing[white].add(black)
                playing[black].add(white)
                whites[white] += 1
            pairs += found
        return pairs

    @staticmethod
    def _pairing(white: records.Entrant, black: records.Entrant | None) -> dict:
        """A pairing row: a game to play (a fresh game id), or one settled at once (a bye,
        a withdrawn player's forfeit; both withdrawn: a draw, nobody gains)."""
        row = {"white": white.user_id, "black": None, "game_id": None, "score": None,
               "forfeit": None, "sides": None, "points": None}
        if black is None:
            return {**row, "score": 1.0, "forfeit": "bye"}
        row["black"] = black.user_id
        if not (white.active and black.active):
            score = 0.5 if not (white.active or black.active) else \
                1.0 if white.active else 0.0
            return {**row, "score": score, "forfeit": "withdrawn"}
        return {**row, "game_id": new_game_id()}

    async def _start_game(self, row, pairing: dict) -> None:
        """Make a pairing's game: an ordinary server game, each account holding the seats
        of its side (white the first), rated in its pool when the tournament is rated."""
        game = self.hub_game(row.spec)
        pool = pool_of(game, row.clock) if row.rated else None
        sides = pairing.get("sides") or [pairing["white"], pairing["black"]]
        accounts = await asyncio.to_thread(records.accounts, self.engine, sides)
        await self.hub.create(game.spec,
                              multiside.seats_of(game, [accounts[user] for user in sides]),
                              None, row.clock, game_id=pairing["game_id"], pool=pool)
        self.app.state.accounts.notifier.notify(sides)
        if row.no_show is not None:
            self.watch(pairing["game_id"], row.no_show)

    @staticmethod
    def hub_game(spec: str):
        from ..api_games import game_of
        return game_of(spec)

    # No-shows -----------------------------------------------------------------------------------
    def watch(self, game_id: str, wait: float) -> None:
        """Forfeit a seat of ``game_id`` that has neither moved nor been connected within
        ``wait`` seconds of the start of its first turn."""
        if game_id not in self.watchers:
            task = self.hub.spawn(self._watch(game_id, wait))
            self.watchers[game_id] = task
            task.add_done_callback(lambda _: self.watchers.pop(game_id, None))

    async def _watch(self, game_id: str, wait: float) -> None:
        clock = self.hub.clock
        while True:
            room = await self.hub.get(game_id)
            if room is None:
                return
            if room.over or not unmoved_seats(room):
                self.hub.release(room)          # a finished game nobody watches: forgotten
                return
            started = room.turns.started
            absent = absent_seats(room)
            if any(clock.now() - started[seat] >= wait for seat in absent):
                await self._forfeit(room, wait)
                continue
            waits = [started[seat] + wait - clock.now() for seat in absent]
            await clock.sleep(max(0.001, min(waits)) if waits else wait)

    async def _forfeit(self, room: Room, wait: float) -> None:
        clock = self.hub.clock
        async with room.lock:
            if room.over:
                return
            due = [seat for seat in absent_seats(room)
                   if clock.now() - room.turns.started[seat] >= wait]
            if not due:
                return
            self.no_shows.add(room.id)
            try:
                await room.commit(due[0], RESIGN)
                log.info("game %s: %s did not show: forfeited", room.id, room.name(due[0]))
                return
            except ProtocolError as error:
                self.no_shows.discard(room.id)
                log.error("game %s: cannot forfeit a no-show: %s", room.id, error.message)
        await clock.sleep(RETRY)


def unmoved_seats(room: Room) -> list[int]:
    """The seats of people (or connected programs) that have not moved yet."""
    moved = {action.seat for action in room.actions}
    return [number for number, seat in enumerate(room.seats)
            if seat["kind"] != AI and number not in moved]


def absent_seats(room: Room) -> list[int]:
    """The unmoved seats that act now and whose holder is not connected."""
    present = {seat for client in room.clients for seat in client.seats}
    return [seat for seat in unmoved_seats(room)
            if seat in room.turns.started and seat not in present]
