"""Live games: a game driver rebuilt from the action log, its clients and AI seats.

Everything that touches a game's state happens on the event loop under the
game's lock, so a client never sees a position that is not yet committed: an
action is applied in memory, committed to the database, and only then
acknowledged and broadcast. A failed commit puts the game back as the log
says. Each client only ever receives ``driver.view(seat)`` for a seat it
holds, or ``driver.view(None)`` as a spectator.
"""
from __future__ import annotations

import asyncio
import json
import logging
import secrets
from concurrent.futures import BrokenExecutor

from sqlalchemy.exc import SQLAlchemyError

from ..core.driver import GameDriver
from ..core.errors import BoardlabError, IllegalMoveError, NotationError
from ..core.registry import make
from . import ai
from .messages import Message, ProtocolError
from .seats import AI, HUMAN, OPEN, SeatError, new_token, seats_of, token_hash
from .store import ACTIVE, OVER, Action, Conflict, Store

log = logging.getLogger("boardlab.server")

RESIGN = "resign"
MAX_SEED = 2 ** 31 - 1


def perform(driver: GameDriver, seat: int, move: str) -> None:
    """Play a logged move: notation, or ``resign`` (on the seat's turn or not)."""
    if move != RESIGN:
        driver.submit(seat, move)
    elif seat in driver.acting():
        driver.resign(seat)
    else:
        driver.forfeit(seat, "resign", "resigned while another seat was to act")


class Client:
    """One WebSocket connection: the seats it holds and its outgoing messages."""

    MAX_BACKLOG = 256      # a client this far behind is dropped (it reconnects and syncs)

    def __init__(self, seats: tuple[int, ...]):
        self.seats = seats
        self.focus = seats[0] if seats else None
        self.outbox: asyncio.Queue[str | None] = asyncio.Queue()
        self.dropped = False

    def seat_for(self, acting: list[int]) -> int | None:
        """The seat whose view this client gets: a held seat that acts now, else its focus."""
        return next((seat for seat in self.seats if seat in acting), self.focus)

    def send(self, message: dict) -> None:
        self.send_text(json.dumps(message))

    def send_text(self, text: str) -> None:
        """Queue a frame; a client that does not keep up is dropped."""
        if self.dropped:
            return
        if self.outbox.qsize() >= self.MAX_BACKLOG:
            self.dropped = True
            self.outbox.put_nowait(None)
            return
        self.outbox.put_nowait(text)


class LiveGame:
    """One game in memory: its driver (the replay of its log), clients and AI seats."""

    def __init__(self, hub: "Hub", game_id: str, spec: str, seed: int, seats: list[dict],
                 actions: list[Action]):
        self.hub, self.id, self.seed, self.seats = hub, game_id, seed, seats
        self.spec = spec
        self.lock = asyncio.Lock()
        self.clients: set[Client] = set()
        self.thinking: set[int] = set()
        self._rebuild(actions)

    # The log ------------------------------------------------------------------------
    def _rebuild(self, actions: list[Action]) -> None:
        """The driver and keys after replaying ``actions`` from the start."""
        self.driver = GameDriver(make(self.spec), seed=self.seed)
        self.actions: list[Action] = []
        self.keys: dict[str, tuple[int, int]] = {}
        for action in actions:
            perform(self.driver, action.seat, action.move)
            self._logged(action)

    def _logged(self, action: Action) -> None:
        self.actions.append(action)
        if action.key:
            self.keys[action.key] = (action.seat, self.version)

    @property
    def version(self) -> int:
        """The number of accepted actions."""
        return len(self.actions)

    @property
    def over(self) -> bool:
        return self.driver.over

    # Clients --------------------------------------------------------------------------
    def seats_of(self, token: str | None) -> tuple[int, ...]:
        """The seats ``token`` holds here."""
        return seats_of(self.seats, token)

    async def connect(self, client: Client) -> None:
        """Add a client and send it a full sync."""
        async with self.lock:
            self.clients.add(client)
            self._sync(client)

    def disconnect(self, client: Client) -> None:
        self.clients.discard(client)
        self.hub.release(self)

    async def sync(self, client: Client, seat: int | None) -> None:
        """A full sync for ``client`` (of ``seat``, which it must hold, when given)."""
        if seat is not None and seat not in client.seats:
            raise ProtocolError("forbidden", f"this connection does not hold seat {seat}")
        async with self.lock:
            client.focus = client.focus if seat is None else seat
            self._sync(client, seat)

    def _sync(self, client: Client, seat: int | None = None) -> None:
        seat = client.seat_for(self.driver.acting()) if seat is None else seat
        client.send({"type": "sync", "version": self.version, "seat": seat,
                     "seats": list(client.seats), "view": self.driver.view(seat)})

    async def public(self) -> tuple[int, dict]:
        """The version and the spectators' view, at a committed version."""
        async with self.lock:
            return self.version, self.driver.view(None)

    def _broadcast(self, before: int) -> None:
        """An update to every client: its seat's view and the new entries' announcements."""
        notes = self.driver.state.announcements(before)
        acting, texts = self.driver.acting(), {}
        for client in list(self.clients):
            seat = client.seat_for(acting)
            if seat not in texts:
                texts[seat] = json.dumps({"type": "update", "version": self.version,
                                          "seat": seat, "view": self.driver.view(seat),
                                          "announcements": notes})
            client.send_text(texts[seat])

    # Actions ----------------------------------------------------------------------------
    async def handle(self, client: Client, message: Message) -> None:
        """An action or resignation from ``client``: acknowledged, or a typed error."""
        async with self.lock:
            try:
                self._check(client, message)
                if message.key in self.keys:
                    client.send(self._ack(message.key))
                    return
                move = RESIGN if message.type == RESIGN else message.move
                await self._accept(message.seat, move, message.key, client)
            except ProtocolError as error:
                error.key = message.key
                client.send(error.to_json())

    def _check(self, client: Client, message: Message) -> None:
        if message.seat not in client.seats:
            raise ProtocolError("forbidden", f"this connection does not hold seat "
                                f"{message.seat}")
        held = self.keys.get(message.key)
        if held is not None and held[0] not in client.seats:
            raise ProtocolError("duplicate_key", "this key was used for another action")
        if held is not None:
            return
        if self.over:
            raise ProtocolError("game_over", "the game is over")
        if message.type == "action" and message.version != self.version:
            raise ProtocolError("stale_version", f"the game is at version {self.version}, "
                                f"not {message.version}: sync and choose again")
        if message.type == "action" and message.seat not in self.driver.acting():
            raise ProtocolError("not_your_turn", f"{self._name(message.seat)} does not act "
                                f"now")

    def _ack(self, key: str) -> dict:
        return {"type": "ack", "key": key, "version": self.keys[key][1]}

    def _name(self, seat: int) -> str:
        return self.driver.game.seat_names[seat]

    async def _accept(self, seat: int, move: str, key: str | None,
                      client: Client | None) -> None:
        """Apply, commit, then acknowledge and broadcast one action (lock held)."""
        before = len(self.driver.state.history)
        try:
            perform(self.driver, seat, move)
        except (IllegalMoveError, NotationError) as error:
            raise ProtocolError("illegal_move", str(error)) from None
        except Exception:                       # a bug of the game: keep the log's position
            log.exception("game %s: %r of seat %d broke the game", self.id, move, seat)
            self._rebuild(list(self.actions))
            raise ProtocolError("server_error", "the server could not play this move; "
                                "nothing changed") from None
        action = Action(seat, move, key)
        await self._commit(action)
        self._logged(action)
        if client is not None and key is not None:
            client.send(self._ack(key))
        self._broadcast(before)
        self._schedule_ai()

    async def _commit(self, action: Action) -> None:
        """Store the action (the driver already holds it); on failure, undo it in memory."""
        status = OVER if self.over else ACTIVE
        try:
            await asyncio.to_thread(self.hub.store.append, self.id, self.version, action,
                                    status)
        except Conflict:
            self._rebuild(await asyncio.to_thread(self.hub.store.log, self.id))
            raise ProtocolError("stale_version", "another server accepted an action first: "
                                "sync and choose again") from None
        except (BoardlabError, SQLAlchemyError) as error:
            log.error("game %s: cannot store action %d: %s", self.id, self.version, error)
            self._rebuild(list(self.actions))
            raise ProtocolError("server_error", "the action could not be stored; nothing "
                                "changed") from None

    # Seats ------------------------------------------------------------------------------
    async def take_seat(self, seat) -> str:
        """Make open ``seat`` a person's; return its new token."""
        async with self.lock:
            if isinstance(seat, bool) or not isinstance(seat, int) or \
                    not 0 <= seat < len(self.seats) or self.seats[seat]["kind"] != OPEN:
                raise SeatError(f"seat {seat!r} is not an open seat of this game")
            token = new_token()
            seats = [dict(s) for s in self.seats]
            seats[seat] = {"kind": HUMAN, "token": token_hash(token)}
            await asyncio.to_thread(self.hub.store.set_seats, self.id, seats)
            self.seats = seats
            return token

    # AI seats ---------------------------------------------------------------------------
    def _schedule_ai(self) -> None:
        """Ask the agent of every AI seat that acts now and is not thinking yet."""
        for seat in self.driver.acting():
            if self.seats[seat]["kind"] == AI and seat not in self.thinking:
                self.thinking.add(seat)
                task = ai.request(self.spec, self.seats[seat]["agent"], seat, self.seed,
                                  self.version, self.driver.view(seat),
                                  self.driver.budget(seat))
                self.hub.spawn(self._think(seat, task))

    async def _think(self, seat: int, task: dict) -> None:
        """Get the agent's move and play it (a failing agent resigns its seat).

        The move stands while the seat's view is the one it was chosen from (a team
        mate's hidden commit in a simultaneous round changes nothing it knew).
        """
        try:
            action, failure = await self.hub.thinker.think(task), None
        except BrokenExecutor as error:         # the server's trouble: asked again on restart
            log.error("game %s: AI worker broken: %s", self.id, error)
            self.thinking.discard(seat)
            return
        except Exception as error:              # the agent's own failure
            action, failure = None, error
        async with self.lock:
            self.thinking.discard(seat)
            if seat not in self.driver.acting() or self.driver.view(seat) != task["view"]:
                self._schedule_ai()             # the position moved on: think again
                return
            await self._play_ai(seat, action, failure)

    async def _play_ai(self, seat: int, action, failure: Exception | None) -> None:
        """Play the agent's move; an agent that failed or chose an illegal move resigns."""
        if failure:
            log.warning("game %s: the agent of seat %d failed (%s): it resigns", self.id,
                        seat, failure)
        for move in ((RESIGN,) if failure else (self._notation(action), RESIGN)):
            try:
                await self._accept(seat, move, None, None)
                return
            except ProtocolError as error:
                log.warning("game %s: seat %d's agent: %s", self.id, seat, error.message)
                if error.code != "illegal_move":
                    return

    def _notation(self, action) -> str:
        try:
            return self.driver.state.action_to_string(action)
        except (BoardlabError, ValueError, IndexError, TypeError):
            return RESIGN


class Hub:
    """The server's live games, over one store and one AI thinker."""

    def __init__(self, store: Store, thinker: ai.Thinker):
        self.store, self.thinker = store, thinker
        self.games: dict[str, LiveGame] = {}
        self.tasks: set[asyncio.Task] = set()
        self._loading = asyncio.Lock()

    async def create(self, spec: str, seats: list[dict], seed: int | None) -> LiveGame:
        """Store a new game and make it live (its AI seats start thinking)."""
        game_id = secrets.token_urlsafe(9)
        seed = secrets.randbelow(MAX_SEED) if seed is None else seed
        await asyncio.to_thread(self.store.create_game, game_id, spec, seed, seats)
        game = LiveGame(self, game_id, spec, seed, seats, [])
        return self._live(game)

    async def get(self, game_id: str) -> LiveGame | None:
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
            return self._live(LiveGame(self, row.id, row.spec, row.seed, row.seats, actions))

    def _live(self, game: LiveGame) -> LiveGame:
        self.games[game.id] = game
        game._schedule_ai()
        return game

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

    def release(self, game: LiveGame) -> None:
        """Forget a finished game nobody watches (it is loaded again when asked for)."""
        if game.over and not game.clients and not game.thinking:
            self.games.pop(game.id, None)

    def spawn(self, coroutine) -> asyncio.Task:
        """Run a background task, kept until it ends (cancelled at shutdown)."""
        task = asyncio.get_running_loop().create_task(coroutine)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return task

    async def close(self) -> None:
        for task in list(self.tasks):
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        self.thinker.close()
        self.store.dispose()
