"""Live games: a game driver rebuilt from the action log, its clients and AI seats.

Everything that touches a game's state happens on the event loop under the
game's lock, so a client never sees a position that is not yet committed: an
action is applied in memory, committed to the database, and only then
acknowledged and broadcast. A failed commit puts the game back as the log
says. Each client only ever receives ``driver.view(seat)`` for a seat it
holds, or ``driver.view(None)`` as a spectator (an agreed draw and a loss on
time are written into the view's ``result``).

Besides moves in notation and ``resign``, the log holds the server's own
entries, which start with ``!``: ``!timeout`` (the seat's clock ran out: it
forfeits, and its team loses), ``!undo N`` (back to the first N history
entries, through the driver's undo) and ``!draw`` (a draw offer was accepted).
A replay of the log performs them too, so it reproduces the game exactly.
"""
from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
from concurrent.futures import BrokenExecutor

from sqlalchemy.exc import SQLAlchemyError

from ..core.driver import GameDriver, TimeControl, UndoError
from ..core.errors import BoardlabError, IllegalMoveError, NotationError
from ..core.registry import make
from . import ai
from .messages import Message, ProtocolError
from .seats import (AI, HUMAN, OPEN, SeatError, new_token, public_seats, seats_of,
                    token_hash)
from .store import ACTIVE, OVER, Action, Conflict, Store

log = logging.getLogger("boardlab.server")

RESIGN = "resign"
TIMEOUT, UNDO, DRAW = "!timeout", "!undo ", "!draw"
MAX_SEED = 2 ** 31 - 1


class Clock:
    """The server's time: a monotonic ``now()`` and ``sleep``. Tests pass their own."""

    def now(self) -> float:
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


def time_control(clock: dict | None) -> TimeControl:
    """The driver's time control of a stored clock (None: correspondence, no clock)."""
    if not clock:
        return TimeControl()
    return TimeControl(game=clock["base"], increment=clock["increment"])


def drawable(game) -> bool:
    """Whether the game allows an agreed draw: exactly two sides, and a return of 0
    for everybody within its utility bounds."""
    low, high = game.utility_bounds
    return len(game.teams) == 2 and low <= 0 <= high


def perform(driver: GameDriver, seat: int, move: str, used: float | None = None) -> None:
    """Play a logged move: notation, ``resign`` (on the seat's turn or not), or a
    server entry the driver knows (``!timeout``, ``!undo N``); ``used`` seconds are
    charged to the mover's clock. ``!draw`` is the caller's (the driver has no draws)."""
    if move == TIMEOUT:
        driver.forfeit(seat, "time", "ran out of time")
        if driver.clocks[seat] is not None:
            driver.clocks[seat] = 0.0
    elif move.startswith(UNDO):                # an undo gives no time back
        clocks = list(driver.clocks)
        driver.undo(int(move[len(UNDO):]))
        driver.clocks = clocks
    elif move != RESIGN:
        driver.submit(seat, move, used=used)
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
                 actions: list[Action], clock: dict | None = None,
                 rematch: str | None = None):
        self.hub, self.id, self.seed, self.seats = hub, game_id, seed, seats
        self.spec, self.clock, self.rematch = spec, clock, rematch
        self.lock = asyncio.Lock()
        self.clients: set[Client] = set()
        self.thinking: set[int] = set()
        self.started: dict[int, float] = {}    # when each acting seat's turn began
        self.timer: asyncio.Task | None = None
        self.offer: int | None = None           # the team whose draw offer stands
        self._rebuild(actions)

    # The log ------------------------------------------------------------------------
    def _rebuild(self, actions: list[Action]) -> None:
        """The driver and keys after replaying ``actions`` from the start."""
        self.driver = GameDriver(make(self.spec), seed=self.seed,
                                 time_control=time_control(self.clock))
        self.drawn = False
        self.actions: list[Action] = []
        self.keys: dict[str, tuple[int, int]] = {}
        for action in actions:
            self._perform(action.seat, action.move)
            if action.clocks is not None and self.timed:
                self.driver.clocks = [float(c) for c in action.clocks]
            self._logged(action)
        self._restart_turns()

    def _perform(self, seat: int, move: str, used: float | None = None) -> None:
        if move == DRAW:
            if self.over:
                raise IllegalMoveError("illegal move 'draw': the game is over", move=move,
                                       reason="the game is over")
            self.drawn = True
        else:
            perform(self.driver, seat, move, used)

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
        return self.drawn or self.driver.over

    @property
    def timed(self) -> bool:
        return self.driver.time_control.game is not None

    def acting(self) -> list[int]:
        return [] if self.drawn else self.driver.acting()

    def view(self, seat: int | None) -> dict:
        """``driver.view(seat)``, with an agreed draw or a loss on time as its result."""
        view = self.driver.view(seat)
        if self.drawn:
            view.update(terminal=True, to_move=None, acting=[], legal=[], legal_actions=[],
                        result={"winners": [], "draw": True,
                                "returns": [0.0] * self.driver.game.num_seats,
                                "scores": self.driver.state.scores(), "reason": "agreement"})
        elif view["result"] and (self.driver.forfeit_info or {}).get("kind") == "time":
            view["result"] = {**view["result"], "reason": "time"}
        return view

    def record(self, players: list[str]) -> dict:
        """The full record; an agreed draw is in ``result`` and ``meta.agreed_draw``."""
        record = self.driver.record(players=players, meta={"server_game": self.id})
        if self.drawn:
            record["result"] = {"returns": [0.0] * self.driver.game.num_seats,
                                "winner": None, "scores": self.driver.state.scores()}
            record["meta"]["agreed_draw"] = True
        if self.clock:
            record["meta"]["clock"] = dict(self.clock)
        return record

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
        seat = client.seat_for(self.acting()) if seat is None else seat
        client.send({"type": "sync", "version": self.version, "seat": seat,
                     "seats": list(client.seats), "view": self.view(seat), "clock": self.clock,
                     **self._extras()})

    def _extras(self) -> dict:
        """What sync and update messages carry beside the view: the standing draw offer
        (a team name) and, with a clock, the seconds the acting seats have used so far
        in this turn (``view["clocks"]`` is their clock when the turn began)."""
        extras = {"draw_offer": None if self.offer is None else
                  self.driver.game.team_names[self.offer], "rematch": self.rematch}
        if self.timed:
            names = self.driver.game.seat_names
            extras["elapsed"] = {names[seat]: round(self._used(seat), 3)
                                 for seat in self.acting()}
        return extras

    async def public(self) -> tuple[int, dict]:
        """The version and the spectators' view, at a committed version."""
        async with self.lock:
            return self.version, self.view(None)

    def _broadcast(self, before: int) -> None:
        """An update to every client: its seat's view and the new entries' announcements."""
        notes = self.driver.state.announcements(min(before, len(self.driver.state.history)))
        acting, texts, extras = self.acting(), {}, self._extras()
        for client in list(self.clients):
            seat = client.seat_for(acting)
            if seat not in texts:
                texts[seat] = json.dumps({"type": "update", "version": self.version,
                                          "seat": seat, "view": self.view(seat),
                                          "announcements": notes, **extras})
            client.send_text(texts[seat])

    def _tell(self, message: dict) -> None:
        """The same message to every client."""
        text = json.dumps(message)
        for client in list(self.clients):
            client.send_text(text)

    # Actions ----------------------------------------------------------------------------
    async def handle(self, client: Client, message: Message) -> None:
        """A message from ``client`` that is not a sync: acknowledged or answered, or a
        typed error."""
        async with self.lock:
            try:
                if message.type in ("offer_draw", "decline_draw"):
                    self._hold(client, message.seat)
                    self._draw_offer(message.seat, message.type == "offer_draw")
                    return
                if message.type == "rematch":
                    await self._rematch(client)
                    return
                if message.type == "leave" and self.over:
                    self._hold(client, message.seat)
                    await self._leave(message.seat, message.key)
                    return
                self._check(client, message)
                if message.key in self.keys:
                    client.send(self._ack(message.key))
                    return
                if message.type == "undo":
                    move = UNDO + str(self._undo_target(message.seat))
                elif message.type == "accept_draw":
                    self._check_accept(message.seat)
                    move = DRAW
                else:
                    move = message.move if message.type == "action" else RESIGN
                await self._accept(message.seat, move, message.key, client)
                if message.type == "leave":
                    await self._leave(message.seat, message.key)
            except ProtocolError as error:
                error.key = message.key
                client.send(error.to_json())

    def _hold(self, client: Client, seat: int) -> None:
        if seat not in client.seats:
            raise ProtocolError("forbidden", f"this connection does not hold seat {seat}")

    def _check(self, client: Client, message: Message) -> None:
        self._hold(client, message.seat)
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
        if message.type == "action" and message.seat not in self.acting():
            raise ProtocolError("not_your_turn", f"{self._name(message.seat)} does not act "
                                f"now")

    def _ack(self, key: str) -> dict:
        return {"type": "ack", "key": key, "version": self.keys[key][1]}

    def _name(self, seat: int) -> str:
        return self.driver.game.seat_names[seat]

    async def _accept(self, seat: int, move: str, key: str | None,
                      client: Client | None) -> None:
        """Apply, commit, then acknowledge and broadcast one action (lock held).

        A move (not a resignation or a server entry) is charged the seat's thinking
        time; a seat whose clock ran out loses on time instead (``out_of_time``).
        """
        before = len(self.driver.state.history)
        played = move != RESIGN and not move.startswith("!")
        used = self._used(seat) if played and self.timed else None
        if used is not None and used >= self.driver.clocks[seat]:
            await self._accept(seat, TIMEOUT, None, None)
            raise ProtocolError("out_of_time", f"{self._name(seat)}'s clock ran out: it "
                                f"lost on time")
        try:
            self._perform(seat, move, used)
        except UndoError as error:
            raise ProtocolError("undo_refused", str(error)) from None
        except (IllegalMoveError, NotationError) as error:
            raise ProtocolError("illegal_move", str(error)) from None
        except Exception:                       # a bug of the game: keep the log's position
            log.exception("game %s: %r of seat %d broke the game", self.id, move, seat)
            self._rebuild(list(self.actions))
            raise ProtocolError("server_error", "the server could not play this move; "
                                "nothing changed") from None
        action = Action(seat, move, key, list(self.driver.clocks) if self.timed else None)
        await self._commit(action)
        self._logged(action)
        self.offer = None                       # an offer stands until the next action
        self._restart_turns(seat if played else None, reset=move.startswith(UNDO))
        if client is not None and key is not None:
            client.send(self._ack(key))
        self._broadcast(before)
        self._schedule_ai()
        self._arm()

    # Clocks -------------------------------------------------------------------------------
    def _used(self, seat: int) -> float:
        """The seconds ``seat`` has thought in its current turn."""
        now = self.hub.clock.now()
        return max(0.0, now - self.started.get(seat, now))

    def _restart_turns(self, mover: int | None = None, reset: bool = False) -> None:
        """Start the turn of every seat that acts now and did not act before (or just
        moved and acts again); after an undo (``reset``) every acting seat's turn."""
        now = self.hub.clock.now()
        self.started = {seat: self.started[seat]
                        if not reset and seat != mover and seat in self.started else now
                        for seat in self.acting()}

    def _arm(self) -> None:
        """Watch for the first acting seat's clock to run out (no client message needed)."""
        if self.timer is not None and self.timer is not asyncio.current_task():
            self.timer.cancel()
        self.timer = None
        if not self.timed or self.over or not self.started:
            return
        deadline = min(self.started[seat] + self.driver.clocks[seat] for seat in self.started)
        self.timer = self.hub.spawn(self._watch(deadline))

    async def _watch(self, deadline: float) -> None:
        await self.hub.clock.sleep(max(0.0, deadline - self.hub.clock.now()))
        async with self.lock:
            if self.timer is not asyncio.current_task():
                return                          # an action came first
            self.timer = None
            late = [seat for seat in self.acting()
                    if self._used(seat) >= self.driver.clocks[seat]]
            if not late:
                self._arm()
                return
            try:
                await self._accept(late[0], TIMEOUT, None, None)
            except ProtocolError as error:         # the database failed: try again soon
                log.error("game %s: cannot log %s's loss on time: %s", self.id,
                          self._name(late[0]), error.message)
                if not self.over and self.timer is None:
                    self.timer = self.hub.spawn(self._watch(self.hub.clock.now() + 1.0))

    # Undo and draws ---------------------------------------------------------------------------
    def _undo_target(self, seat: int) -> int:
        """The history length before ``seat``'s last move, where an undo for it goes."""
        others = [number for number, held in enumerate(self.seats)
                  if number != seat and held["kind"] != AI]
        if others:
            raise ProtocolError("undo_refused", "an undo is only for a game against AIs "
                                "(every other seat is an AI)")
        movers = self.driver.movers()
        mine = [index for index, mover in enumerate(movers) if mover == seat]
        if not mine:
            raise ProtocolError("undo_refused", "nothing to take back")
        if mine[-1] < self.driver.undo_floor():
            raise ProtocolError("undo_refused", "cannot take back moves across a reveal of "
                                "hidden information or a draw of cards")
        return mine[-1]

    def _draw_offer(self, seat: int, offer: bool) -> None:
        """Make or decline a draw offer (not logged: an offer stands until the next
        accepted action, or a restart)."""
        game = self.driver.game
        team = game.team_of(seat)
        if self.over:
            raise ProtocolError("game_over", "the game is over")
        if not drawable(game):
            raise ProtocolError("no_draw", "this game allows no agreed draw")
        if offer and self.offer is not None:
            raise ProtocolError("no_draw", "a draw offer stands: accept or decline it")
        if not offer and self.offer in (None, team):
            raise ProtocolError("no_draw", "no draw offer from the other side stands")
        self.offer = team if offer else None
        self._tell({"type": "draw", "version": self.version, "by": self._name(seat),
                    "event": "offered" if offer else "declined",
                    "draw_offer": game.team_names[team] if offer else None})
        other = [s for index, members in enumerate(game.teams) if index != team
                 for s in members]
        if offer and all(self.seats[s]["kind"] == AI for s in other):
            self.offer = None                   # AI sides decline every offer
            self._tell({"type": "draw", "version": self.version, "by": self._name(other[0]),
                        "event": "declined", "draw_offer": None})

    def _check_accept(self, seat: int) -> None:
        if self.offer is None or self.offer == self.driver.game.team_of(seat):
            raise ProtocolError("no_draw", "no draw offer from the other side stands")

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
    async def _leave(self, seat: int, key: str) -> None:
        """Give ``seat`` up (its resignation, if the game ran, is logged already): it
        becomes open, and the connections that held it no longer do."""
        seats = [dict(s) for s in self.seats]
        seats[seat] = {"kind": OPEN}
        try:
            await asyncio.to_thread(self.hub.store.set_seats, self.id, seats)
        except (BoardlabError, SQLAlchemyError) as error:
            log.error("game %s: cannot open seat %d: %s", self.id, seat, error)
            raise ProtocolError("no_seat", "the seat could not be given up; try again") \
                from None
        self.seats = seats
        for client in list(self.clients):
            if seat in client.seats:
                client.seats = tuple(s for s in client.seats if s != seat)
                if client.focus == seat:
                    client.focus = client.seats[0] if client.seats else None
                client.send({"type": "left", "seat": seat, "key": key,
                             "seats": list(client.seats)})
        self._tell({"type": "seats", "version": self.version,
                    "seats": public_seats(self.driver.game, self.seats)})

    async def _rematch(self, client: Client) -> None:
        """A new game of the same spec and clock, every seat moved one place on (seat S
        of this game plays seat S+1 there, the last the first). A person connected now
        gets a fresh token for their new seats; a person not connected leaves an open
        seat. Asked twice (or by two holders), the same rematch."""
        if not client.seats:
            raise ProtocolError("forbidden", "only a seat's holder may ask for a rematch")
        if not self.over:
            raise ProtocolError("not_over", "a rematch is for a finished game")
        if self.rematch:
            client.send({"type": "rematch", "id": self.rematch})
            return
        game_id = secrets.token_urlsafe(9)
        claimed = await asyncio.to_thread(self.hub.store.set_rematch, self.id, game_id)
        if claimed != game_id:                  # another server process made it first
            self.rematch = claimed
            client.send({"type": "rematch", "id": claimed})
            return
        count, present = len(self.seats), {s for c in self.clients for s in c.seats}
        tokens, seats = {}, [None] * count
        for number, seat in enumerate(self.seats):
            if seat["kind"] == HUMAN and number in present:
                token = tokens.setdefault(seat["token"], new_token())
                seat = {"kind": HUMAN, "token": token_hash(token)}
            elif seat["kind"] == HUMAN:
                seat = {"kind": OPEN}
            seats[(number + 1) % count] = dict(seat)
        await self.hub.create(self.spec, seats, None, self.clock, game_id)
        self.rematch = game_id
        for other in list(self.clients):
            message = {"type": "rematch", "id": game_id}
            if other.seats:
                message.update(seats=sorted((s + 1) % count for s in other.seats),
                               token=tokens[self.seats[other.seats[0]]["token"]])
            other.send(message)

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
        for seat in self.acting():
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
            if seat not in self.acting() or \
                    _unclocked(self.driver.view(seat)) != _unclocked(task["view"]):
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


def _unclocked(view: dict) -> dict:
    """A view without its clocks (another seat's clock moving changes nothing known)."""
    return {key: value for key, value in view.items() if key != "clocks"}


class Hub:
    """The server's live games, over one store and one AI thinker."""

    def __init__(self, store: Store, thinker: ai.Thinker, clock: Clock | None = None):
        self.store, self.thinker, self.clock = store, thinker, clock or Clock()
        self.games: dict[str, LiveGame] = {}
        self.tasks: set[asyncio.Task] = set()
        self._loading = asyncio.Lock()

    async def create(self, spec: str, seats: list[dict], seed: int | None,
                     clock: dict | None = None, game_id: str | None = None) -> LiveGame:
        """Store a new game and make it live (its AI seats start thinking)."""
        game_id = game_id or secrets.token_urlsafe(9)
        seed = secrets.randbelow(MAX_SEED) if seed is None else seed
        await asyncio.to_thread(self.store.create_game, game_id, spec, seed, seats,
                                clock=clock)
        game = LiveGame(self, game_id, spec, seed, seats, [], clock)
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
            return self._live(LiveGame(self, row.id, row.spec, row.seed, row.seats, actions,
                                       row.clock, row.rematch))

    def _live(self, game: LiveGame) -> LiveGame:
        self.games[game.id] = game
        game._schedule_ai()
        game._arm()
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
