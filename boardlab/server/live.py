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
entries, through the driver's undo) and ``!draw`` (a draw offer was accepted:
the driver's agreed draw). A replay of the log performs them too, so it
reproduces the game exactly.

Beside the log a game keeps its chat (stored, each message read only by the
connections its channel reaches) and answers ``look`` (a connection's view of
an earlier position, replayed on a copy). Every connection is rate-limited
(:class:`Limits`).
"""
from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
from collections import deque
from concurrent.futures import BrokenExecutor
from dataclasses import dataclass
from datetime import datetime, timezone

from sqlalchemy.exc import SQLAlchemyError

from ..core.driver import GameDriver, TimeControl, UndoError
from ..core.errors import BoardlabError, IllegalMoveError, NotationError
from ..core.registry import make
from . import ai, fanout
from .messages import Message, ProtocolError, chat_text
from .seats import (AI, HUMAN, OPEN, SeatError, new_token, public_seats, seats_of,
                    token_hash)
from .store import ACTIVE, OVER, Action, ChatMessage, Conflict, Store

log = logging.getLogger("boardlab.server")

RESIGN = "resign"
TIMEOUT, UNDO, DRAW = "!timeout", "!undo ", "!draw"
MAX_SEED = 2 ** 31 - 1
LISTEN_WAIT = 30             # seconds a starting server waits for its LISTEN connection
CHAT_SYNCED = 200          # the newest readable chat messages a sync carries
CHAT_KEPT = 2000           # the newest chat messages a live game keeps in memory
SPECTATOR = "spectator"    # the sender of a spectator's chat message


@dataclass(frozen=True)
class Limits:
    """The server's flood limits (None: no limit; see docs/server-protocol.md).

    Every WebSocket frame takes a token from its connection's bucket
    (``frames_per_second``, at most ``frames_burst`` saved up); a frame without one is
    refused with ``rate_limited`` and dropped, and ``refused_to_close`` such refusals in
    a row close the connection (code 4429). Chat: at most ``chat_messages`` per
    connection in ``chat_seconds``. REST: at most ``creates_per_minute`` games created
    per client address. ``analyses``: analyses running at once (then 429 ``busy``).
    """

    frames_per_second: float | None = 20.0
    frames_burst: int = 40
    refused_to_close: int = 200
    chat_messages: int | None = 5
    chat_seconds: float = 10.0
    creates_per_minute: int | None = 30
    analyses: int = 2

    @classmethod
    def off(cls) -> "Limits":
        """No flood limits (for load checks); analyses stay capped."""
        return cls(frames_per_second=None, chat_messages=None, creates_per_minute=None)


class TokenBucket:
    """``rate`` tokens a second, at most ``burst`` saved up (on the server's clock)."""

    def __init__(self, rate: float | None, burst: int, clock: "Clock"):
        self.rate, self.burst, self.clock = rate, burst, clock
        self.tokens, self.at = float(burst), clock.now()

    def take(self) -> bool:
        """Take a token if there is one."""
        if self.rate is None:
            return True
        now = self.clock.now()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


class Window:
    """At most ``count`` events in any ``seconds`` (on the server's clock)."""

    def __init__(self, count: int | None, seconds: float, clock: "Clock"):
        self.count, self.seconds, self.clock = count, seconds, clock
        self.times: deque[float] = deque()

    def allow(self) -> bool:
        """Count an event if the window has room for it."""
        if self.count is None:
            return True
        now = self.clock.now()
        while self.times and self.times[0] <= now - self.seconds:
            self.times.popleft()
        if len(self.times) >= self.count:
            return False
        self.times.append(now)
        return True


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


def perform(driver: GameDriver, seat: int, move: str, used: float | None = None) -> None:
    """Play a logged move: notation, ``resign`` (on the seat's turn or not), or a
    server entry (``!timeout``, ``!undo N``, ``!draw``); ``used`` seconds are
    charged to the mover's clock."""
    if move == DRAW:
        driver.agree_draw()
    elif move == TIMEOUT:
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

    def __init__(self, seats: tuple[int, ...], limits: Limits | None = None,
                 clock: "Clock | None" = None):
        self.seats = seats
        self.focus = seats[0] if seats else None
        self.outbox: asyncio.Queue[str | None] = asyncio.Queue()
        self.dropped = False
        self.spectator_chat = False             # a seat holder reads the spectators' chat
        limits, clock = limits or Limits(), clock or Clock()
        self.frames = TokenBucket(limits.frames_per_second, limits.frames_burst, clock)
        self.chats = Window(limits.chat_messages, limits.chat_seconds, clock)
        self.refused = 0                        # frames refused in a row for flooding

    def admit(self) -> bool:
        """Whether the next frame is within the flood limit (counts refusals in a row)."""
        if self.frames.take():
            self.refused = 0
            return True
        self.refused += 1
        return False

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
                 rematch: str | None = None, chat: tuple[int, list[ChatMessage]] = (0, [])):
        self.hub, self.id, self.seed, self.seats = hub, game_id, seed, seats
        self.spec, self.clock, self.rematch = spec, clock, rematch
        self.chat_count, kept = chat
        self.chat: deque[ChatMessage] = deque(kept, maxlen=CHAT_KEPT)
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
        self.actions: list[Action] = []
        self.keys: dict[str, tuple[int, int]] = {}
        for action in actions:
            self._perform(action.seat, action.move)
            if action.clocks is not None and self.timed:
                self.driver.clocks = [float(c) for c in action.clocks]
            self._logged(action)
        self._restart_turns()

    def _perform(self, seat: int, move: str, used: float | None = None) -> None:
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
        return self.driver.over

    @property
    def timed(self) -> bool:
        return self.driver.time_control.game is not None

    def acting(self) -> list[int]:
        return self.driver.acting()

    def view(self, seat: int | None) -> dict:
        """``driver.view(seat)``, with a loss on time as its result's reason."""
        return self.presented(seat)[0]

    def presented(self, seat: int | None) -> tuple[dict, list[str]]:
        """``view(seat)`` and the status lines of ``seat``, from one build of the view."""
        view = self.driver.view(seat)
        lines = self.driver.state.status_lines(seat, view)
        if view["result"] and (self.driver.forfeit_info or {}).get("kind") == "time":
            view["result"] = {**view["result"], "reason": "time"}
        return view, lines

    def record(self, players: list[str]) -> dict:
        """The full record; an agreed draw replays as one (``agreed_draw``), and
        ``meta.agreed_draw`` says it too."""
        record = self.driver.record(players=players, meta={"server_game": self.id})
        if self.driver.state.agreed_draw:
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
        readable = [entry for entry in self.chat if self._reads(client, entry)]
        view, lines = self.presented(seat)
        client.send({"type": "sync", "version": self.version, "seat": seat,
                     "seats": list(client.seats), "view": view, "lines": lines,
                     "clock": self.clock,
                     **self._extras(),
                     "chat": [self._chat_message(e) for e in readable[-CHAT_SYNCED:]]})

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
                view, lines = self.presented(seat)
                texts[seat] = json.dumps({"type": "update", "version": self.version,
                                          "seat": seat, "view": view, "lines": lines,
                                          "announcements": notes, **extras})
            client.send_text(texts[seat])

    def _tell(self, message: dict) -> None:
        """The same message to every client."""
        text = json.dumps(message)
        for client in list(self.clients):
            client.send_text(text)

    # Chat ---------------------------------------------------------------------------------
    async def say(self, client: Client, message: Message) -> None:
        """A chat message: stored, then sent to every connection its channel reaches
        (``players``: seat holders; ``team``: the holders of the sender's team's seats;
        ``spectators``: spectators, and seat holders who asked for it)."""
        channel, seat = message.channel, message.seat
        if seat is not None:
            self._hold(client, seat)
        elif client.seats:
            raise ProtocolError("bad_message", "'chat' message: a seat holder names the "
                                "seat that speaks (seat)")
        if seat is None and channel != "spectators":
            raise ProtocolError("forbidden", "spectators chat only on the spectators' "
                                "channel")
        game = self.driver.game
        team = game.team_of(seat) if channel == "team" else None
        if team is not None and len(game.teams[team]) < 2:
            raise ProtocolError("bad_message", "the team channel is for games whose teams "
                                "have several seats")
        text = chat_text(message.text)
        if not client.chats.allow():
            raise ProtocolError("rate_limited", f"at most {client.chats.count} chat "
                                f"messages in {client.chats.seconds:g} s")
        async with self.lock:
            entry = await self._store_chat(channel, team, SPECTATOR if seat is None
                                           else self._name(seat), text)
            text = json.dumps(self._chat_message(entry))
            for other in list(self.clients):
                if self._reads(other, entry):
                    other.send_text(text)

    async def _store_chat(self, channel: str, team: int | None, sender: str,
                          text: str) -> ChatMessage:
        """Store a chat message as the game's next one (lock held). When another server
        process took that index first, load the chat again and take the next one."""
        for _ in range(2):
            entry = ChatMessage(self.chat_count, channel, team, sender, text,
                                datetime.now(timezone.utc))
            try:
                await asyncio.to_thread(self.hub.store.add_chat, self.id, entry)
            except Conflict:
                count, kept = await asyncio.to_thread(self.hub.store.chat, self.id,
                                                      CHAT_KEPT)
                self.chat_count, self.chat = count, deque(kept, maxlen=CHAT_KEPT)
                continue
            except (BoardlabError, SQLAlchemyError) as error:
                log.error("game %s: cannot store a chat message: %s", self.id, error)
                break
            self.chat_count += 1
            self.chat.append(entry)
            return entry
        raise ProtocolError("server_error", "the chat message could not be stored; try "
                            "again")

    def _reads(self, client: Client, entry: ChatMessage) -> bool:
        """Whether ``client`` may read a chat message (a player's chat never reaches a
        spectator, a team's never the other team)."""
        if entry.channel == "players":
            return bool(client.seats)
        if entry.channel == "team":
            return any(self.driver.game.team_of(s) == entry.team for s in client.seats)
        return not client.seats or client.spectator_chat

    @staticmethod
    def _chat_message(entry: ChatMessage) -> dict:
        created = entry.created
        if created.tzinfo is not None:
            created = created.astimezone(timezone.utc).replace(tzinfo=None)
        return {"type": "chat", "channel": entry.channel, "from": entry.sender,
                "text": entry.text, "at": created.isoformat(timespec="seconds") + "Z"}

    async def spectator_chat(self, client: Client, on: bool) -> None:
        """A seat holder turns its reading of the spectators' chat on or off; a sync
        follows (with the chat it may now read)."""
        if not client.seats:
            raise ProtocolError("forbidden", "spectators read the spectators' chat always")
        async with self.lock:
            client.spectator_chat = on
            self._sync(client)

    # Positions ------------------------------------------------------------------------------
    async def look(self, client: Client, at: int) -> None:
        """``client``'s view of the position after the first ``at`` history entries: the
        view of its focus seat (a spectator's: ``view(None)``), as that seat saw it then."""
        async with self.lock:
            length = len(self.driver.state.history)
            if not 0 <= at <= length:
                raise ProtocolError("bad_message", f"'look' message: at is a history "
                                    f"length from 0 to {length}")
            seat = client.focus
            if at == length:
                view, lines = self.presented(seat)
            else:
                state = self.state_at(at)
                view = state.view(seat)
                lines = state.status_lines(seat, view)
            client.send({"type": "position", "at": at, "view": view, "lines": lines})

    def state_at(self, at: int):
        """A copy of the state after the first ``at`` history entries (replayed)."""
        state = self.driver.game.new_initial_state(seed=self.seed)
        for entry in self.driver.state.history[:at]:
            state.replay_entry(entry)
        if at == len(self.driver.state.history) and self.driver.state.agreed_draw:
            state.agree_draw()
        return state

    # Analysis ---------------------------------------------------------------------------
    async def analyse(self, at: int, seconds: float, token: str | None) -> dict:
        """A search of the position after ``at`` history entries from its acting seat's
        view, in the AI workers: any position of a finished game; of a running one only
        for a token that holds every seat (a hotseat game with no AI)."""
        async with self.lock:
            length = len(self.driver.state.history)
            if not 0 <= at <= length:
                raise ProtocolError("bad_request", f"'at' is a history length from 0 to "
                                    f"{length}")
            if not self.over and len(self.seats_of(token)) < len(self.seats):
                raise ProtocolError("forbidden", "a running game is analysed only with a "
                                    "token that holds every seat (a hotseat game, no AI)")
            state = self.state_at(at)
            acting = [] if state.is_terminal() else state.acting_seats()
            if not acting:                      # the end, or a chance node: nothing to search
                low, high = self.driver.game.utility_bounds
                returns = state.returns() if state.is_terminal() else None
                return {"at": at, "seat": None, "moves": [], "estimate": None if
                        returns is None else {name: (value - low) / (high - low) for
                                              name, value in zip(self.driver.game.seat_names,
                                                                 returns)}}
            seat = acting[0]
            task = ai.analysis_request(self.spec, seat, state.view(seat), seconds)
        return {"at": at, "seat": self._name(seat), **await self.hub.analyse(task)}

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
        if not game.agreed_draws:
            raise ProtocolError("no_draw", "this game allows no agreed draw")
        if offer and self.offer is not None:
            raise ProtocolError("no_draw", "a draw offer stands: accept or decline it")
        if not offer and self.offer in (None, team):
            raise ProtocolError("no_draw", "no draw offer from the other side stands")
        self._draw_event(seat, offer)
        other = [s for index, members in enumerate(game.teams) if index != team
                 for s in members]
        if offer and all(self.seats[s]["kind"] == AI for s in other):
            self._draw_event(other[0], False)   # AI sides decline every offer

    def _draw_event(self, seat: int, offer: bool, announce: bool = True) -> None:
        """``seat`` offered a draw (or declined one): tell every client, and the other
        server processes (an offer is not stored: it stands until the next action)."""
        game = self.driver.game
        self.offer = game.team_of(seat) if offer else None
        self._tell({"type": "draw", "version": self.version, "by": self._name(seat),
                    "event": "offered" if offer else "declined",
                    "draw_offer": game.team_names[self.offer] if offer else None})
        if announce and self.hub.store.shared:
            self.hub.spawn(asyncio.to_thread(
                self.hub.store.announce, self.id,
                f"draw:{'offered' if offer else 'declined'}:{seat}"))

    def _check_accept(self, seat: int) -> None:
        if self.offer is None or self.offer == self.driver.game.team_of(seat):
            raise ProtocolError("no_draw", "no draw offer from the other side stands")

    async def _commit(self, action: Action) -> None:
        """Store the action (the driver already holds it); on failure, undo it in memory."""
        status = OVER if self.over else ACTIVE
        try:
            await asyncio.to_thread(self.hub.store.append, self.id, self.version, action,
                                    status)
        except Conflict:                        # another server process appended first
            self._rebuild(list(self.actions))
            await self._catch_up_actions()
            raise ProtocolError("stale_version", "another server accepted an action first: "
                                "sync and choose again") from None
        except (BoardlabError, SQLAlchemyError) as error:
            log.error("game %s: cannot store action %d: %s", self.id, self.version, error)
            self._rebuild(list(self.actions))
            raise ProtocolError("server_error", "the action could not be stored; nothing "
                                "changed") from None

    # Other server processes (PostgreSQL) -------------------------------------------------
    async def catch_up(self, what: str) -> None:
        """Another server process changed this game: read the change from the database
        and tell this process's clients. ``what``: ``action`` (new log entries),
        ``seats`` (a seat taken or given up, a rematch), ``chat``, or a draw event
        ``draw:offered:SEAT`` / ``draw:declined:SEAT``."""
        async with self.lock:
            if what == "action":
                await self._catch_up_actions()
            elif what == "seats":
                await self._catch_up_seats()
            elif what == "chat":
                await self._catch_up_chat()
            elif what.startswith("draw:"):
                _, event, seat = what.split(":")
                if seat.isdigit() and int(seat) < len(self.seats) and not self.over:
                    self._draw_event(int(seat), event == "offered", announce=False)

    async def _catch_up_actions(self) -> None:
        """Apply the log entries another process appended; update every client (lock held)."""
        actions = await asyncio.to_thread(self.hub.store.log, self.id)
        if len(actions) <= self.version:
            return
        before, reset = len(self.driver.state.history), False
        try:
            for action in actions[self.version:]:
                self._perform(action.seat, action.move)
                if action.clocks is not None and self.timed:
                    self.driver.clocks = [float(c) for c in action.clocks]
                self._logged(action)
                reset = reset or action.move.startswith(UNDO)
        except Exception:                       # cannot happen with one log: start over
            log.exception("game %s: the log does not extend this process's game", self.id)
            self._rebuild(actions)
            for client in list(self.clients):
                self._sync(client)
        else:
            self._restart_turns(actions[-1].seat, reset=reset)
            self._broadcast(before)
        self.offer = None
        self._schedule_ai()
        self._arm()

    async def _catch_up_seats(self) -> None:
        row = await asyncio.to_thread(self.hub.store.game, self.id)
        if row is None:
            return
        if row.rematch and row.rematch != self.rematch:
            self.rematch = row.rematch
            self._tell({"type": "rematch", "id": row.rematch})
        if row.seats == self.seats:
            return
        self.seats = row.seats                  # seats given up through another process:
        self._given_up({s for s, held in enumerate(self.seats) if held["kind"] == OPEN}, None)

    async def _catch_up_chat(self) -> None:
        count, kept = await asyncio.to_thread(self.hub.store.chat, self.id, CHAT_KEPT)
        new = [entry for entry in kept if entry.index >= self.chat_count]
        self.chat_count, self.chat = count, deque(kept, maxlen=CHAT_KEPT)
        for entry in new:
            text = json.dumps(self._chat_message(entry))
            for client in list(self.clients):
                if self._reads(client, entry):
                    client.send_text(text)

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
        self._given_up({seat}, key)

    def _given_up(self, seats: set[int], key: str | None) -> None:
        """The connections that held ``seats`` no longer do (each told with ``left``);
        every connection gets the public seats."""
        for client in list(self.clients):
            for seat in [s for s in client.seats if s in seats]:
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

    def __init__(self, store: Store, thinker: ai.Thinker, clock: Clock | None = None,
                 limits: Limits | None = None):
        self.store, self.thinker, self.clock = store, thinker, clock or Clock()
        self.limits = limits or Limits()
        self.analysing = 0                      # analyses running now
        self.games: dict[str, LiveGame] = {}
        self.tasks: set[asyncio.Task] = set()
        self._loading = asyncio.Lock()
        self.listener: fanout.Listener | None = None

    async def start(self) -> None:
        """With a shared database (PostgreSQL), listen for the other server processes'
        changes (fanout.py) before any game is loaded."""
        if not self.store.shared:
            return
        self.listener = fanout.Listener(fanout.conninfo(self.store.engine), self._notice,
                                        self._resync)
        self.listener.start()
        try:
            await asyncio.wait_for(self.listener.ready.wait(), LISTEN_WAIT)
        except asyncio.TimeoutError:
            log.warning("no LISTEN connection after %d s: other server processes' moves "
                        "reach this one's clients once it connects", LISTEN_WAIT)

    async def _notice(self, game_id: str, what: str) -> None:
        game = self.games.get(game_id)
        if game is not None:                    # a game not in memory is read when loaded
            await game.catch_up(what)

    async def _resync(self) -> None:
        """After a (re)connection of the listener: catch up on every game in memory."""
        for game in list(self.games.values()):
            for what in ("action", "seats", "chat"):
                await game.catch_up(what)

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
            chat = await asyncio.to_thread(self.store.chat, game_id, CHAT_KEPT)
            game = self._live(LiveGame(self, row.id, row.spec, row.seed, row.seats, actions,
                                       row.clock, row.rematch, chat))
            if self.store.shared:               # a notice that came while it loaded was
                for what in ("action", "seats", "chat"):        # dropped: read again
                    await game.catch_up(what)
            return game

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
        if self.listener is not None:
            await self.listener.close()
        for task in list(self.tasks):
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        self.thinker.close()
        self.store.dispose()
