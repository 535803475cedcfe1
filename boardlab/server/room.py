"""A game room: one live game as an actor, with collaborators for everything else.

The room owns its lock, its action log and the commit. Everything that changes a game
happens on the event loop under the room's lock, so a client never sees a position that
is not yet committed: a log entry is performed in memory, committed to the database, and
only then acknowledged and published. A failed commit puts the game back as the log
says. Every client message has one route (:attr:`Room.routes`, message type -> handler);
a handler returns events (events.py) and the room's one :meth:`Room.publish` sends them.
Each client only ever receives ``driver.view(seat)`` for a seat it holds, or
``driver.view(None)`` as a spectator (an agreed draw, a loss on time and an abort are in
the view's ``result``, with its summary in words).

The collaborators, each in its module: the keyed actions (keyed.py: moves, resignations,
undos, an accepted draw, leaving), the turn clock, flag-fall and abort watcher
(turn_clock.py), draw and undo offers (offers.py), rematch offers (rematch.py), chat
(chat.py), AI seats (ai_seats.py), seats given up or taken (seating.py), earlier
positions and analyses (positions.py), and other server processes' changes (replicas.py).
"""
from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any


from ..core.driver import GameDriver, UndoError
from ..core.errors import IllegalMoveError, NotationError
from .ai_seats import AiSeats
from .chat import Chat
from .clients import Client
from .clocks import time_control
from .events import Announce, ChatLine, Events, Reply, Send, Sync, Tell, Update
from .explain import Explainer
from .keyed import KeyedActions
from .game_specs import game_of
from .log_entries import TIMEOUT, Kind, LogEntry, perform
from .messages import Message, ProtocolError
from .lifecycle import listed_result
from .offers import Drawer, Offers, Takebacker
from .positions import Positions
from .rematch import Rematcher
from .replicas import Replica
from .resends import same_action
from .seating import Seating
from .seats import seats_of
from .store import ABORTED, ACTIVE, OVER, Action, ChatMessage, Conflict
from .turn_clock import TurnClock
from .wire import encode

if TYPE_CHECKING:
    from .hub import Hub

log = logging.getLogger("boardlab.server")


class Room:
    """One game in memory: its driver (the replay of its log), clients and collaborators."""

    def __init__(self, hub: Hub, game_id: str, spec: str, seed: int, seats: list[dict],
                 actions: list[Action], clock: dict | None = None,
                 rematch: str | None = None, chat: tuple[int, list[ChatMessage]] = (0, [])):
        self.hub, self.id, self.seed, self.seats = hub, game_id, seed, seats
        self.spec, self.clock, self.rematch = spec, clock, rematch
        self.lock = asyncio.Lock()
        self._movers: tuple[list[int | None], object] = ([], None)   # movers(), kept
        self._announcing: asyncio.Task | None = None    # the last notice to other processes
        self.clients: set[Client] = set()
        self.holders: dict[int, dict] = {}  # account id: {"username", "bot"} (holders.py)
        self.turns, self.offers, self.chat = TurnClock(self), Offers(), Chat(self, *chat)
        self.drawer, self.takebacker = Drawer(self), Takebacker(self)
        self.rematcher, self.seating = Rematcher(self), Seating(self)
        self.ai, self.positions, self.replica = AiSeats(self), Positions(self), Replica(self)
        keyed = KeyedActions(self)
        #: the one route of every client message type (messages.FIELDS)
        self.routes = {
            "action": keyed.on_action, "resign": keyed.on_resign, "undo": keyed.on_undo,
            "accept_draw": keyed.on_accept_draw, "leave": keyed.on_leave,
            "offer_draw": self.drawer.on_offer, "decline_draw": self.drawer.on_decline,
            "rematch": self.rematcher.on_rematch, "accept_rematch": self.rematcher.on_accept,
            "decline_rematch": self.rematcher.on_decline,
            "withdraw_rematch": self.rematcher.on_withdraw, "sync": self._on_sync,
            "chat": self.chat.on_chat, "spectator_chat": self.chat.on_spectator_chat,
            "look": self.positions.on_look, "explain": Explainer(self).on_explain}
        self.rebuild(actions)

    # The log ------------------------------------------------------------------------------
    def rebuild(self, actions: list[Action]) -> None:
        """The driver and keys after replaying ``actions`` from the start."""
        self.driver = GameDriver(game_of(self.spec), seed=self.seed,
                                 time_control=time_control(self.clock))
        self.actions: list[Action] = []
        self.keys: dict[str, tuple[int, int]] = {}
        refill = self.driver.time_control.refill        # a correspondence clock
        acting, began = set(self.acting()), {}
        for action in actions:
            self.replay(action)
            if refill:                                  # when each seat's turn began
                now_acting = set(self.acting())
                began.update({seat: action.at for seat in now_acting
                              if seat not in acting or seat == action.seat})
                acting = now_acting
        self.turns.recount()
        self.turns.restart()
        self.turns.began = began

    def replay(self, action: Action) -> None:
        """Perform a logged action (with its stored clocks) and log it in memory."""
        perform(self.driver, action.seat, action.move)
        if action.clocks is not None and self.timed:
            self.driver.clocks = [float(c) for c in action.clocks]
        self.logged(action)

    def logged(self, action: Action) -> None:
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

    def name(self, seat: int) -> str:
        return self.driver.game.seat_names[seat]

    def view(self, seat: int | None) -> dict:
        """``driver.view(seat)``."""
        return self.presented(seat)[0]

    def presented(self, seat: int | None) -> tuple[dict, list[str]]:
        """``view(seat)`` and the status lines of ``seat``, from one build of the view."""
        return self._presented(seat, self.driver.view(seat))

    def _presented(self, seat: int | None, view: dict) -> tuple[dict, list[str]]:
        return view, self.driver.status_lines(seat, view)

    def record(self, players: list[str]) -> dict:
        """The full record; an agreed draw replays as one (``agreed_draw``), and
        ``meta.agreed_draw`` says it too."""
        record = self.driver.record(players=players, meta={"server_game": self.id})
        if self.driver.state.agreed_draw:
            record["meta"]["agreed_draw"] = True
        if self.clock:
            record["meta"]["clock"] = dict(self.clock)
        return record

    def start(self) -> None:
        """Let the game run: its AI seats think, its clock's flag-fall watcher waits."""
        self.ai.schedule()
        self.turns.arm()

    # Clients --------------------------------------------------------------------------------
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
        if self.offers.standing and client.seats:   # its side's rematch offer may lapse
            self.hub.spawn(self._left(client))
        self.hub.release(self)

    async def _left(self, client: Client) -> None:
        """A seat holder went away: its side's rematch offer is withdrawn when no
        connection holds a seat of that side any more."""
        async with self.lock:
            self.publish(self.rematcher.maker_left())

    async def public(self) -> tuple[int, dict]:
        """The version and the spectators' view, at a committed version."""
        async with self.lock:
            return self.version, self.view(None)

    def hold(self, client: Client, seat: int) -> None:
        """ProtocolError ``forbidden`` unless ``client`` holds ``seat``."""
        if seat not in client.seats:
            raise ProtocolError("forbidden", f"this connection does not hold seat {seat}")

    # The router -----------------------------------------------------------------------------
    async def receive(self, client: Client, message: Message) -> None:
        """A parsed client message: its route's handler runs under the lock and its events
        are published; a refused message is answered with one typed error."""
        handler = self.routes[message.type]
        try:
            async with self.lock:
                self.publish(await handler(client, message), client)
        except ProtocolError as error:
            error.key = message.key
            client.send(error.to_json())

    async def _on_sync(self, client: Client, message: Message) -> Events:
        """A full sync (of ``seat``, which the client must hold, when given)."""
        if message.seat is not None:
            self.hold(client, message.seat)
            client.focus = message.seat
        return [Sync(client, message.seat)]

    def ack(self, key: str) -> dict:
        """The acknowledgement of the action accepted under ``key``."""
        return {"type": "ack", "key": key, "version": self.keys[key][1]}

    # The commit -------------------------------------------------------------------------------
    async def commit(self, seat: int, entry: LogEntry, key: str | None = None,
                     client: Client | None = None) -> None:
        """Perform, commit, then acknowledge and publish one log entry (lock held).

        A move (not a resignation or a server entry) is charged the seat's thinking
        time; a seat whose clock ran out loses on time instead (``out_of_time``).
        """
        before = len(self.driver.state.history)
        used = self.turns.charged(seat) if entry.played else None
        if used is not None and used >= self.turns.left(seat):
            await self.commit(seat, TIMEOUT)
            raise ProtocolError("out_of_time", f"{self.name(seat)}'s clock ran out: it "
                                f"lost on time")
        try:
            perform(self.driver, seat, entry, used)
        except UndoError as error:
            raise ProtocolError("undo_refused", str(error)) from None
        except (IllegalMoveError, NotationError) as error:
            raise ProtocolError("illegal_move", str(error)) from None
        except Exception:                       # a bug of the game: keep the log's position
            log.exception("game %s: %r of seat %d broke the game", self.id, entry.encode(),
                          seat)
            self.rebuild(list(self.actions))
            raise ProtocolError("server_error", "the server could not play this move; "
                                "nothing changed") from None
        action = Action(seat, entry.encode(), key,
                        list(self.driver.clocks) if self.timed else None)
        if not await self._store(action):       # another process had accepted this key
            if client is not None and key is not None:
                self.publish([Reply(self.ack(key))], client)
            return
        self.logged(action)
        if self.over:
            await self.hub.ended(self)
        self.offers.clear()                     # an offer stands until the next action
        self.turns.restart(seat if entry.played else None, reset=entry.kind is Kind.UNDO)
        events: Events = [Reply(self.ack(key))] if client is not None and key is not None \
            else []
        self.publish([*events, Update(before)], client)
        self.start()
        if self.over:
            self.hub.spawn(self._store_result())

    async def _store_result(self) -> None:
        """Store the finished game's result for the lobby's list (lifecycle.py)."""
        try:
            await asyncio.to_thread(self.hub.store.set_result, self.id,
                                    listed_result(self.view(None)["result"]))
        except Exception as error:              # the lobby replays it when it is missing
            log.error("game %s: cannot store its result: %s", self.id, error)

    async def _store(self, action: Action) -> bool:
        """Store the action (the driver already holds it); on failure, undo it in memory.
        False: another server process had stored this very action (its key, by its seat)
        first, and this one caught up with it: acknowledge it again, nothing more."""
        status = ABORTED if self.driver.aborted else OVER if self.over else ACTIVE
        try:
            await self.hub.committer.append(self.id, self.version, action, status)
            return True
        except Conflict:                        # another server process appended first
            self.rebuild(list(self.actions))
            await self.replica.catch_up_actions()
            held = self.keys.get(action.key) if action.key is not None else None
            if held is not None and held[0] == action.seat:
                if same_action(self.actions[held[1] - 1].move, action.move):
                    return False
                raise ProtocolError("duplicate_key", f"this key was accepted for another "
                                    f"action (version {held[1]}): use a fresh key for "
                                    f"each action") from None
            raise ProtocolError("stale_version", "another server accepted an action first: "
                                "sync and choose again") from None
        except Exception as error:              # whatever failed, the log is the game
            log.error("game %s: cannot store action %d: %s", self.id, self.version, error)
            self.rebuild(list(self.actions))
            raise ProtocolError("server_error", "the action could not be stored; nothing "
                                "changed") from None

    # Publishing -------------------------------------------------------------------------------
    def publish(self, events: Events, client: Client | None = None) -> None:
        """Send ``events`` in order (``client``: the connection whose message they answer)."""
        for event in events:
            if isinstance(event, Update):
                self._broadcast(event.before)
            elif isinstance(event, Reply) and client is not None:
                client.send(event.message)
            elif isinstance(event, Send):
                event.client.send(event.message)
            elif isinstance(event, Tell):
                text = encode(event.message)
                for other in list(self.clients):
                    other.send_text(text)
            elif isinstance(event, Sync):
                for other in [event.client] if event.client is not None else list(self.clients):
                    self._sync(other, event.seat)
            elif isinstance(event, ChatLine):
                self.chat.deliver(event.entry)
            elif isinstance(event, Announce):
                if self.hub.store.shared:
                    self._announce(event.what)
            else:
                raise TypeError(f"not an event to publish here: {event!r}")

    def _announce(self, what: str) -> None:
        """Tell the other server processes, after every notice this room sent before (an
        offer and its answer arrive in the order they happened)."""
        previous = self._announcing

        async def send() -> None:
            if previous is not None:
                await asyncio.gather(previous, return_exceptions=True)
            await asyncio.to_thread(self.hub.store.announce, self.id, what)

        self._announcing = self.hub.spawn(send())

    def _broadcast(self, before: int) -> None:
        """An update to every client: its seat's view and the new entries' announcements
        (each seat's view and JSON built once, its text shared)."""
        notes = self.driver.state.announcements(min(before, len(self.driver.state.history)))
        acting, texts, extras = self.acting(), {}, self._extras()
        clients = [(client, client.seat_for(acting)) for client in self.clients]
        views = self.driver.views(seat for _, seat in clients)
        for client, seat in clients:
            if seat not in texts:
                view, lines = self._presented(seat, views[seat])
                texts[seat] = encode({"type": "update", "version": self.version,
                                      "seat": seat, "view": view, "lines": lines,
                                      "announcements": notes, **extras})
            client.send_text(texts[seat])

    def _sync(self, client: Client, seat: int | None = None) -> None:
        seat = client.seat_for(self.acting()) if seat is None else seat
        view, lines = self.presented(seat)
        client.send({"type": "sync", "version": self.version, "seat": seat,
                     "seats": list(client.seats), "view": view, "lines": lines,
                     "clock": self.clock, **self._extras(), "chat": self.chat.synced(client)})

    def movers(self) -> list[int | None]:
        """Who made each history entry: its seat, None for the game's own (chance).

        Kept from one call to the next and extended by the entries added since: a history
        only grows or goes back to a prefix of itself (an undo, a replay), and each entry
        is a new object, so the kept list holds while the entry it ended with is still in
        its place (a new list otherwise)."""
        history = self.driver.state.history
        kept, last = self._movers
        if not kept or len(history) < len(kept) or history[len(kept) - 1] is not last:
            kept = []
        kept = kept + [seat if seat >= 0 else None for seat, _ in history[len(kept):]]
        self._movers = (kept, history[-1] if history else None)
        return kept

    def _extras(self) -> dict:
        """What sync and update messages carry beside the view: the standing draw and
        rematch offers (a team name), the rematch and, with a clock, the seconds the
        seats whose clocks run have used so far in this turn (``view["clocks"]`` is
        their clock when the turn began; none in the opening)."""
        extras: dict[str, Any] = {"draw_offer": self.drawer.standing(),
                                  "rematch": self.rematch,
                                  "rematch_offer": self.rematcher.standing(),
                                  "movers": self.movers()}
        if self.timed:
            extras["elapsed"] = self.turns.elapsed()
        return extras
