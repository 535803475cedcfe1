"""Rematches: an offer of one side that another side accepts or declines (offers.py's
machine, kind ``rematch``), then a new game of the same spec and clock, every seat moved
one place on.

A finished game's seat holder offers (``rematch``); a person of another side accepts
(``accept_rematch``, or ``rematch`` of their own) or declines (``decline_rematch``: the
offering side is told with ``declined``); the offering side may withdraw it
(``withdraw_rematch``), and it is withdrawn when no connection holds a seat of that side
any more (its maker left). Where no person of another side is connected (AIs, absent
people, a hotseat) the offer is agreed at once: AI seats move along with their agents,
absent people's seats are open in the rematch.
"""
from __future__ import annotations

import asyncio
import secrets
from typing import TYPE_CHECKING

from .clients import Client
from .events import Announce, Events, Reply, Send, Tell
from .messages import Message, ProtocolError
from .offers import REMATCH, OfferError, declined
from .seats import HUMAN, OPEN, new_token, token_hash

if TYPE_CHECKING:
    from .room import Room

EVENTS = ("offered", "declined", "withdrawn")


class Rematcher:
    """One room's rematch offers and the rematch they make."""

    def __init__(self, room: Room):
        self.room = room

    def standing(self) -> str | None:
        """The name of the team whose rematch offer stands, or None."""
        team = self.room.offers.standing.get(REMATCH)
        return None if team is None else self.room.driver.game.team_names[team]

    def _seat(self, client: Client) -> int:
        """The seat ``client`` speaks for (its first), once the game is over."""
        if not client.seats:
            raise ProtocolError("forbidden", "only a seat's holder may ask for a rematch")
        if not self.room.over:
            raise ProtocolError("not_over", "a rematch is for a finished game")
        return client.seats[0]

    async def on_rematch(self, client: Client, message: Message) -> Events:
        """Offer a rematch (agreed at once where no person of another side is connected;
        the other side's standing offer is accepted). Asked again once it exists: its id."""
        room = self.room
        seat = self._seat(client)
        if room.rematch:
            return [Reply({"type": "rematch", "id": room.rematch})]
        team = room.driver.game.team_of(seat)
        by = room.offers.standing.get(REMATCH)
        if by is not None and by != team:       # the other side offered: agreed
            room.offers.accept(REMATCH, team)
            return await self._agreed()
        try:
            agreed = room.offers.offer(REMATCH, team, ai_answers=not self._answerers(client))
        except OfferError:
            raise ProtocolError("no_rematch", "your rematch offer stands already: wait "
                                "for the answer, or withdraw it") from None
        if agreed:
            return await self._agreed()
        return self.event(seat, "offered")

    async def on_accept(self, client: Client, message: Message) -> Events:
        room = self.room
        seat = self._seat(client)
        if room.rematch:
            return [Reply({"type": "rematch", "id": room.rematch})]
        try:
            room.offers.accept(REMATCH, room.driver.game.team_of(seat))
        except OfferError:
            raise ProtocolError("no_rematch", "no rematch offer of another side stands") \
                from None
        return await self._agreed()

    async def on_decline(self, client: Client, message: Message) -> Events:
        room = self.room
        seat = self._seat(client)
        try:
            by = room.offers.decline(REMATCH, room.driver.game.team_of(seat))
        except OfferError:
            raise ProtocolError("no_rematch", "no rematch offer of another side stands") \
                from None
        return self.event(seat, "declined") + declined(room, REMATCH, seat, by)

    async def on_withdraw(self, client: Client, message: Message) -> Events:
        room = self.room
        seat = self._seat(client)
        try:
            room.offers.withdraw(REMATCH, room.driver.game.team_of(seat))
        except OfferError:
            raise ProtocolError("no_rematch", "no rematch offer of yours stands") from None
        return self.event(seat, "withdrawn")

    def maker_left(self) -> Events:
        """Withdraw the standing offer when no connection holds a seat of its side."""
        room = self.room
        team = room.offers.standing.get(REMATCH)
        game = room.driver.game
        if team is None or any(game.team_of(seat) == team for client in room.clients
                               for seat in client.seats):
            return []
        room.offers.withdraw(REMATCH, team)
        return self.event(game.teams[team][0], "withdrawn")

    def event(self, seat: int, what: str, announce: bool = True) -> Events:
        """Every connection learns that ``seat`` offered, declined or withdrawn a rematch
        (and the other server processes, ``announce``)."""
        events: Events = [Tell({"type": "rematch_offer", "event": what,
                                "by": self.room.name(seat), "rematch_offer": self.standing()})]
        if announce:
            events.append(Announce(f"rematch:{what}:{seat}"))
        return events

    def noted(self, what: str, seat: int) -> Events:
        """Another server process's rematch event: the same standing offer here."""
        room = self.room
        if room.rematch or what not in EVENTS:
            return []
        room.offers.note(REMATCH, room.driver.game.team_of(seat) if what == "offered"
                         else None)
        return self.event(seat, what, announce=False)

    def _answerers(self, client: Client) -> list[Client]:
        """The other connections holding a seat of another side than ``client``'s."""
        game = self.room.driver.game
        team = game.team_of(client.seats[0])
        return [other for other in self.room.clients if other is not client
                and any(game.team_of(seat) != team for seat in other.seats)]

    async def _agreed(self) -> Events:
        """Make the rematch (once, whichever server process is first)."""
        room = self.room
        game_id = secrets.token_urlsafe(9)
        claimed = await asyncio.to_thread(room.hub.store.set_rematch, room.id, game_id)
        if claimed != game_id:                  # another server process made it first
            room.rematch = claimed
            return [Tell({"type": "rematch", "id": claimed})]
        return await self._create(game_id)

    async def _create(self, game_id: str) -> Events:
        """A person connected now gets a fresh token for their new seats; a person not
        connected leaves an open seat (seat S of this game plays seat S+1 there, the
        last the first)."""
        room = self.room
        count, present = len(room.seats), {s for c in room.clients for s in c.seats}
        tokens: dict[str, str] = {}
        seats: list[dict] = [{}] * count
        for number, seat in enumerate(room.seats):
            if seat["kind"] == HUMAN and number in present:
                token = tokens.setdefault(seat["token"], new_token())
                seat = {"kind": HUMAN, "token": token_hash(token)}
            elif seat["kind"] == HUMAN:
                seat = {"kind": OPEN}
            seats[(number + 1) % count] = dict(seat)
        await room.hub.create(room.spec, seats, None, room.clock, game_id)
        room.rematch = game_id
        events: Events = []
        for other in list(room.clients):
            message: dict = {"type": "rematch", "id": game_id}
            if other.seats:
                message.update(seats=sorted((s + 1) % count for s in other.seats),
                               token=tokens[room.seats[other.seats[0]]["token"]])
            events.append(Send(other, message))
        return events
