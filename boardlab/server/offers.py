"""Offers between a game's sides: draws, undos and rematches, as one machine.

:class:`Offers` is the machine: at most one standing offer of each kind, made by a team;
the other side accepts or declines it, the offering team may withdraw it, and every
accepted action of the game clears them all. How an offer of each kind is answered is
in :data:`TERMS`: what AI sides answer (at once). The pieces that use it (the shape of
lichess's round):

- :class:`Drawer`: ``offer_draw`` / ``decline_draw`` / ``accept_draw`` (AI sides decline);
- :class:`Takebacker`: ``undo``, only against AIs (which accept at once);
- :class:`Rematcher` (rematch.py): ``rematch`` / ``accept_rematch`` / ``decline_rematch`` /
  ``withdraw_rematch`` (agreed at once when no person of another side is connected).

A declined offer is told to the offering side's connections (:func:`declined`), whatever
its kind. Offers are not logged: one stands until the next accepted action, or a restart.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .clients import Client
from .events import Announce, Events, Send, Tell
from .messages import Message, ProtocolError, required
from .seats import AI

if TYPE_CHECKING:
    from .room import Room

DRAW, UNDO, REMATCH = "draw", "undo", "rematch"


@dataclass(frozen=True)
class Terms:
    """How an offer of one kind is answered: ``ai_accepts``: what a side of AIs says (at
    once)."""

    ai_accepts: bool


TERMS = {DRAW: Terms(ai_accepts=False), UNDO: Terms(ai_accepts=True),
         REMATCH: Terms(ai_accepts=True)}


class OfferError(Exception):
    """An offer move the machine refuses: ``standing`` (an offer of that kind stands
    already) or ``none`` (no offer of that kind from the other side, or by this team)."""

    def __init__(self, kind: str, reason: str):
        super().__init__(f"{kind}: {reason}")
        self.kind, self.reason = kind, reason


class Offers:
    """The standing offers of one game: kind -> the team that made it."""

    def __init__(self):
        self.standing: dict[str, int] = {}

    def offer(self, kind: str, team: int, ai_answers: bool) -> bool | None:
        """``team`` offers ``kind``: True when it is agreed at once (its terms, or a side of
        AIs that accepts), False when a side of AIs declines it, None when it now stands.
        ``ai_answers``: every seat that would answer is an AI."""
        if kind in self.standing:
            raise OfferError(kind, "standing")
        if ai_answers:
            return TERMS[kind].ai_accepts
        self.standing[kind] = team
        return None

    def offered_to(self, kind: str, team: int) -> int:
        """The team whose offer of ``kind`` ``team`` may answer (OfferError when none)."""
        by = self.standing.get(kind)
        if by is None or by == team:
            raise OfferError(kind, "none")
        return by

    def accept(self, kind: str, team: int) -> int:
        """``team`` accepts the other side's offer; the offering team."""
        by = self.offered_to(kind, team)
        del self.standing[kind]
        return by

    def decline(self, kind: str, team: int) -> int:
        """``team`` declines the other side's offer; the offering team."""
        return self.accept(kind, team)

    def withdraw(self, kind: str, team: int) -> None:
        """``team`` takes back its own standing offer."""
        if self.standing.get(kind) != team:
            raise OfferError(kind, "none")
        del self.standing[kind]

    def note(self, kind: str, team: int | None) -> None:
        """Set what another server process says stands (None: nothing)."""
        if team is None:
            self.standing.pop(kind, None)
        else:
            self.standing[kind] = team

    def clear(self) -> None:
        """An accepted action ends every offer."""
        if self.standing:
            self.standing.clear()


def declined(room: Room, kind: str, seat: int, team: int) -> Events:
    """``seat`` declined ``team``'s offer of ``kind``: each connection holding a seat of
    that team is told (``{"type": "declined", "offer", "by"}``)."""
    game = room.driver.game
    notice = {"type": "declined", "offer": kind, "by": room.name(seat)}
    return [Send(client, dict(notice)) for client in list(room.clients)
            if any(game.team_of(held) == team for held in client.seats)]


def _others_are_ais(room: Room, team: int) -> tuple[list[int], bool]:
    """The seats of the other teams, and whether each of them is an AI."""
    game = room.driver.game
    others = [seat for index, members in enumerate(game.teams) if index != team
              for seat in members]
    return others, all(room.seats[seat]["kind"] == AI for seat in others)


class Drawer:
    """Draw offers: made, declined, and (through the log's ``!draw``) accepted."""

    def __init__(self, room: Room):
        self.room = room

    def standing(self) -> str | None:
        """The name of the team whose draw offer stands, or None."""
        team = self.room.offers.standing.get(DRAW)
        return None if team is None else self.room.driver.game.team_names[team]

    async def on_offer(self, client: Client, message: Message) -> Events:
        seat = required(message.seat, "seat")
        self.room.hold(client, seat)
        return self._answer(seat, True)

    async def on_decline(self, client: Client, message: Message) -> Events:
        seat = required(message.seat, "seat")
        self.room.hold(client, seat)
        return self._answer(seat, False)

    def _answer(self, seat: int, offer: bool) -> Events:
        """Make or decline a draw offer (AI sides decline every offer at once)."""
        room = self.room
        team = room.driver.game.team_of(seat)
        if room.over:
            raise ProtocolError("game_over", "the game is over")
        if not room.driver.game.agreed_draws:
            raise ProtocolError("no_draw", "this game allows no agreed draw")
        others, ais = _others_are_ais(room, team)
        try:
            if not offer:
                by = room.offers.decline(DRAW, team)
                return self.event(seat, False) + declined(room, DRAW, seat, by)
            agreed = room.offers.offer(DRAW, team, ai_answers=ais)
        except OfferError as error:
            raise ProtocolError("no_draw", "a draw offer stands: accept or decline it"
                                if error.reason == "standing" else
                                "no draw offer from the other side stands") from None
        if agreed is False:                     # the AI side declines at once
            return self.event(seat, True, standing=False) + self.event(others[0], False) \
                + declined(room, DRAW, others[0], team)
        return self.event(seat, True)

    def event(self, seat: int, offer: bool, announce: bool = True,
              standing: bool = True) -> Events:
        """``seat`` offered a draw (or declined one): every client is told, and the other
        server processes (``announce``); the offer stands unless ``standing`` is False."""
        room = self.room
        team = room.driver.game.team_of(seat) if offer else None
        if standing:
            room.offers.note(DRAW, team)
        what = "offered" if offer else "declined"
        events: Events = [Tell({"type": "draw", "version": room.version, "by": room.name(seat),
                                "event": what, "draw_offer": None if team is None
                                else room.driver.game.team_names[team]})]
        if announce:
            events.append(Announce(f"draw:{what}:{seat}"))
        return events

    def check_accept(self, seat: int) -> None:
        """ProtocolError ``no_draw`` unless the other side's draw offer stands (the
        accepted ``!draw`` entry then clears it, as every accepted action does)."""
        try:
            self.room.offers.offered_to(DRAW, self.room.driver.game.team_of(seat))
        except OfferError:
            raise ProtocolError("no_draw", "no draw offer from the other side stands") \
                from None


class Takebacker:
    """Undos: a seat takes its last move back, only against AIs (which accept at once)."""

    def __init__(self, room: Room):
        self.room = room

    def target(self, seat: int) -> int:
        """The history length before ``seat``'s last move, where an undo for it goes."""
        room = self.room
        if any(number != seat and held["kind"] != AI
               for number, held in enumerate(room.seats)):
            raise ProtocolError("undo_refused", "an undo is only for a game against AIs "
                                "(every other seat is an AI)")
        team = room.driver.game.team_of(seat)
        if room.offers.offer(UNDO, team, ai_answers=True) is not True:
            raise ProtocolError("undo_refused", "the other side does not take moves back")
        movers = room.driver.movers()
        mine = [index for index, mover in enumerate(movers) if mover == seat]
        if not mine:
            raise ProtocolError("undo_refused", "nothing to take back")
        if mine[-1] < room.driver.undo_floor():
            raise ProtocolError("undo_refused", "cannot take back moves across a reveal of "
                                "hidden information or a draw of cards")
        return mine[-1]


