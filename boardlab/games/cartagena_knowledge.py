"""What one seat of Cartagena knows about the cards it cannot see (for sampling worlds).

A player with a perfect memory knows more than the hand sizes. Every card
played or discarded is public; its own draws are its own; a draw from a
face-up row is public; and at a reshuffle the new pile is public as a
multiset (it was the discard pile), so whatever cards were unseen just before
are all in other hands. :class:`CardKnowledge` keeps that for one viewer:

* ``known[q]``: cards (counts per symbol) the viewer knows seat ``q`` holds;
* ``groups``: cards whose places the viewer has not seen. A group is a
  multiset of cards with how many of them each seat holds and how many lie in
  the draw pile below any face-up cards; within a group the places are
  interchangeable, between groups they are not.

The rules above are compiled, once, in ``cartagena_seen`` (a game's state and the
vector environment keep the knowledge with them); :class:`CardKnowledge` is one
viewer's knowledge as that array, read as lists.

Dealing each group at random into its places (the kernel's ``deal_groups``)
gives a world consistent with everything the viewer has seen. Before any
reshuffle and with nothing drawn in the open there is one group, every unseen
card, and that deal is uniform.

Two choices keep the true world among the possible ones: a seat that plays a
card it is known to hold plays the known one (cards of one symbol are alike),
and a card that could come from several groups merges them (some knowledge is
given up rather than guessed). The odds within the possible worlds ignore what
a seat's choices say about its hand.

>>> k = CardKnowledge.at_deal(0, unseen=[1, 1], hand_sizes=[1, 1], pile=1)
>>> k.groups                           # symbols 0 and 1: one in seat 1's hand, one in the pile
[[[1, 1], [0, 1], 1]]
>>> k.drew(0, 0, public=False)         # the viewer draws the pile's card, a 0 ...
>>> k.known[1], k.groups               # ... so seat 1 holds the 1
([0, 1], [])
>>> k.played(1, 1)
>>> k.reshuffled([1, 1])               # the discard pile, one 0 and one 1, is the new pile
>>> k.drew(1, None, public=False)      # seat 1 draws one of them unseen
>>> k.groups
[[[1, 1], [0, 1], 1]]
"""
from __future__ import annotations

import numpy as np

from . import cartagena_seen as seen


class KnowledgeError(RuntimeError):
    """The events contradict what was known: a bug in the tracking, never bad input."""


def check(code: int) -> None:
    """Raise :class:`KnowledgeError` for an error code of ``cartagena_seen``."""
    if code:
        raise KnowledgeError(seen.MESSAGES[int(code)])


class CardKnowledge:
    """One viewer's knowledge of the unseen cards: the array ``kn`` (``cartagena_seen``),
    read as ``known`` (per seat, per symbol) and ``groups`` (``[cards, hands, pile]``)."""

    __slots__ = ("kn",)

    def __init__(self, viewer: int, known: list[list[int]], groups: list[list],
                 room: int | None = None):
        """Knowledge of ``known`` cards and ``groups`` (with room for ``room`` groups, by
        default as many as it has, at least one); ValueError where a count does not fit."""
        S, NP = len(known[0]), len(known)
        room = max(1, len(groups)) if room is None else room
        kn = np.zeros(seen.size_for(S, NP, room), dtype=np.int32)
        kn[[seen.H_GROUPS, seen.H_ROOM, seen.H_VIEWER, seen.H_S, seen.H_NP]] = \
            len(groups), room, viewer, S, NP
        values = [int(n) for row in known for n in row] + \
            [int(n) for cards, hands, pile in groups for n in [*cards, *hands, pile]]
        if any(not -2**31 <= n < 2**31 for n in values) or \
                any(len(k) != S for k in known) or \
                any(len(c) != S or len(h) != NP for c, h, _ in groups):
            raise ValueError("card knowledge of the wrong shape or out of range")
        kn[seen.HEADER:seen.HEADER + len(values)] = values
        self.kn = kn

    @classmethod
    def over(cls, kn: np.ndarray) -> CardKnowledge:
        """The knowledge kept in the array ``kn`` (not copied: events change it)."""
        knowledge = object.__new__(cls)
        knowledge.kn = kn
        return knowledge

    @property
    def viewer(self) -> int:
        return int(self.kn[seen.H_VIEWER])

    @property
    def _shape(self) -> tuple[int, int]:
        return int(self.kn[seen.H_S]), int(self.kn[seen.H_NP])

    @property
    def known(self) -> list[list[int]]:
        """The cards the viewer knows each seat holds (counts per symbol)."""
        S, NP = self._shape
        return self.kn[seen.HEADER:seen.HEADER + NP * S].reshape(NP, S).tolist()

    @property
    def groups(self) -> list[list]:
        """The groups, oldest first: ``[cards per symbol, cards held per seat, in the pile]``."""
        S, NP = self._shape
        at, width = seen.HEADER + NP * S, S + NP + 1
        rows = self.kn[at:at + int(self.kn[seen.H_GROUPS]) * width].reshape(-1, width).tolist()
        return [[row[:S], row[S:S + NP], row[S + NP]] for row in rows]

    @classmethod
    def at_deal(cls, viewer: int, unseen, hand_sizes, pile: int,
                room: int | None = None) -> CardKnowledge:
        """At the start: every card the viewer cannot see is in one group (``room``: the
        most groups it may need, by default as many as cards)."""
        S, NP = len(unseen), len(hand_sizes)
        groups = 2 + sum(int(c) for c in unseen) if room is None else room
        kn = np.zeros(seen.size_for(S, NP, groups), dtype=np.int32)
        seen.start(kn, viewer, S, NP, groups, np.asarray(unseen, dtype=np.int64),
                   np.asarray(hand_sizes, dtype=np.int64), int(pile))
        return cls.over(kn)

    def copy(self) -> CardKnowledge:
        return CardKnowledge.over(self.kn.copy())

    # Events (the rules: cartagena_seen) ----------------------------------------------
    def played(self, seat: int, card: int) -> None:
        """``seat`` played or discarded ``card`` (public)."""
        check(seen.played(self.kn, seat, card))

    def drew(self, seat: int, card: int | None, public: bool) -> None:
        """``seat`` drew ``card``: from the face-up row if ``public``, else from the
        hidden pile (``card`` is then only known to the viewer for its own draws)."""
        check(seen.drew(self.kn, seat, -1 if card is None else card, public))

    def revealed(self, cards) -> None:
        """Cards of the hidden pile were laid face up."""
        cards = np.asarray(cards, dtype=np.int64)
        check(seen.revealed(self.kn, cards, len(cards)))

    def reshuffled(self, discard) -> None:
        """The discard pile (``discard``: counts per symbol) became the new pile."""
        check(seen.reshuffled(self.kn, np.asarray(discard, dtype=np.int64)))

    # Worlds -----------------------------------------------------------------------
    def trivial(self) -> bool:
        """Nothing beyond one group of every unseen card: the plain uniform deal."""
        S, NP = self._shape
        return int(self.kn[seen.H_GROUPS]) <= 1 and \
            not self.kn[seen.HEADER:seen.HEADER + NP * S].any()

    # Plain data (views) -----------------------------------------------------------
    def to_data(self, alphabet: str, names) -> dict:
        def cards(counts):
            return {alphabet[s]: int(n) for s, n in enumerate(counts)}
        viewer = self.viewer
        return {"known": {names[q]: cards(k) for q, k in enumerate(self.known)
                          if q != viewer},
                "groups": [{"cards": cards(c), "hands": {names[q]: int(n) for q, n in
                                                         enumerate(h) if n},
                            "pile": int(p)} for c, h, p in self.groups]}

    @classmethod
    def from_data(cls, data: dict, viewer: int, alphabet: str, names) -> CardKnowledge:
        """The knowledge :meth:`to_data` wrote (ValueError if it does not fit an array)."""
        def counts(cards):
            return [int(cards.get(a, 0)) for a in alphabet]
        known = [counts(data["known"].get(name, {})) for name in names]
        known[viewer] = [0] * len(alphabet)
        groups = [[counts(g["cards"]), [int(g["hands"].get(name, 0)) for name in names],
                   int(g["pile"])] for g in data["groups"]]
        return cls(viewer, known, groups)
