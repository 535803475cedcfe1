"""The hub: a server process's live game rooms, over one store and one AI thinker.

A room is loaded from its game's log when first asked for and forgotten once the game is
over and nobody watches it. With a shared database (PostgreSQL) the hub listens for the
other server processes' changes (replicas.py) before any game is loaded.
"""
from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Awaitable, Callable

from ..core.errors import BoardlabError
from . import ai
from .chat import CHAT_KEPT
from .clients import Client, Clock, Limits
from .committer import Committer
from .lifecycle import Lifecycle, listed_result
from .messages import ProtocolError
from .replicas import CHANGES, Listener
from .review import Budget
from .reviews import Reviews
from .room import Room
from .store import Store

log = logging.getLogger("boardlab.server")

MAX_SEED = 2 ** 31 - 1


class Hub:
    """The server's live games, over one store and one AI thinker."""

    def __init__(self, store: Store, thinker: ai.Thinker, clock: Clock | None = None,
                 limits: Limits | None = None, review_budget: Budget | None = None,
                 lifecycle: Lifecycle | None = None):
        self.store, self.thinker, self.clock = store, thinker, clock or Clock()
        self.committer = Committer(store)       # the rooms' actions, a batch at a time
        self.limits = limits or Limits()
        self.reviews = Reviews(self, review_budget)     # finished games' reviews
        self.lifecycle = lifecycle or Lifecycle()   # the first-move limit, the lobby's idle
        self.analysing = 0                      # analyses running now
        self.games: dict[str, Room] = {}
        self.tasks: set[asyncio.Task] = set()
        self._loading = asyncio.Lock()
        self.listener: Listener | None = None
        #: called (awaited) when a game ends, before the end is published (ratings)
        self.on_end: list[Callable[[Room], Awaitable[None]]] = []

    async def start(self) -> None:
        """With a shared database (PostgreSQL), listen for the other server processes'
        changes before any game is loaded."""
        if self.store.shared:
            self.listener = Listener(self)
            await self.listener.start()

    async def create(self, spec: str, seats: list[dict], seed: int | None,
                     clock: dict | None = None, game_id: str | None = None,
                     pool: str | None = None) -> Room:
        """Store a new game and make it live (its AI seats start thinking); ``pool``: a
        rated game's rating pool."""
        game_id = game_id or secrets.token_urlsafe(9)
        seed = secrets.randbelow(MAX_SEED) if seed is None else seed
        await asyncio.to_thread(self.store.create_game, game_id, spec, seed, seats,
                                clock=clock, pool=pool)
        return self._live(Room(self, game_id, spec, seed, seats, [], clock))

    async def get(self, game_id: str) -> Room | None:
        """The live game, loaded from its log when it is not in memory; None if unknown."""
        if game_id in self.games:
            return self.games[game_id]
        async with self._loading:
            if game_id in self.games:
                return self.games[game_id]
            row = await asyncio.to_thread(self.store.game, game_id)
            if row is None:
                return None
            actions = await asyncio.to_thread(self.store.log, game_id)
            chat = await asyncio.to_thread(self.store.chat, game_id, CHAT_KEPT)
            room = Room(self, row.id, row.spec, row.seed, row.seats, actions, row.clock,
                        row.rematch, chat)
            room.turns.resume(row.created)      # a correspondence clock's turns go on
            self._live(room)
            if self.store.shared:               # a notice that came while it loaded was
                for what in CHANGES:            # dropped: read again
                    await room.replica.catch_up(what)
            return room

    async def ended(self, room: Room) -> None:
        """A game just ended (its last action is stored): run the end listeners."""
        for listener in self.on_end:
            await listener(room)

    def _live(self, room: Room) -> Room:
        self.games[room.id] = room
        room.start()
        return room

    async def resume(self) -> int:
        """Load every unfinished game (its AI seats think again); how many were loaded.

        A game whose log no longer replays is reported and left alone.
        """
        loaded = 0
        for game_id in await asyncio.to_thread(self.store.active_ids):
            try:
                loaded += await self.get(game_id) is not None
            except BoardlabError as error:
                log.error("game %s does not replay from its log: %s", game_id, error)
        return loaded

    async def analyse(self, task: dict) -> dict:
        """Run an analysis in the AI workers (at most ``limits.analyses`` at once, else
        ProtocolError ``busy``)."""
        if self.analysing >= self.limits.analyses:
            raise ProtocolError("busy", f"{self.analysing} analyses are running: try "
                                f"again in a moment")
        self.analysing += 1
        try:
            return await self.thinker.analyse(task)
        finally:
            self.analysing -= 1

    def client(self, seats: tuple[int, ...]) -> Client:
        """A new connection's client, under this server's limits and clock."""
        return Client(seats, self.limits, self.clock)

    async def finished_result(self, game_id: str) -> dict | None:
        """The spectators' result of a finished game whose stored result is missing (a
        game that ended before results were stored): replayed once, then stored."""
        room = await self.get(game_id)
        if room is None:
            return None
        try:
            async with room.lock:
                result = room.view(None)["result"] if room.over else None
            if result is not None:
                await asyncio.to_thread(self.store.set_result, game_id, listed_result(result))
            return listed_result(result)
        finally:
            self.release(room)

    def release(self, room: Room) -> None:
        """Forget a finished game nobody watches (it is loaded again when asked for)."""
        if room.over and not room.clients and not room.ai.thinking:
            self.games.pop(room.id, None)

    def spawn(self, coroutine) -> asyncio.Task:
        """Run a background task, kept until it ends (cancelled at shutdown)."""
        task = asyncio.get_running_loop().create_task(coroutine)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return task

    async def close(self) -> None:
        if self.listener is not None:
            await self.listener.close()
        for task in list(self.tasks):
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        await self.committer.close()
        self.thinker.close()
        self.store.dispose()
