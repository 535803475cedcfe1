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


class KnowledgeError(RuntimeError):
    """The events contradict what was known: a bug in the tracking, never bad input."""


class CardKnowledge:
    """One viewer's knowledge of the unseen cards; groups are ``[cards, hands, pile]``."""

    __slots__ = ("viewer", "known", "groups")

    def __init__(self, viewer: int, known: list[list[int]], groups: list[list]):
        self.viewer, self.known, self.groups = viewer, known, groups

    @classmethod
    def at_deal(cls, viewer: int, unseen, hand_sizes, pile: int) -> CardKnowledge:
        """At the start: every card the viewer cannot see is in one group."""
        seats, symbols = len(hand_sizes), len(unseen)
        hands = [0 if q == viewer else int(n) for q, n in enumerate(hand_sizes)]
        return cls(viewer, [[0] * symbols for _ in range(seats)],
                   [[[int(c) for c in unseen], hands, int(pile)]])

    def copy(self) -> CardKnowledge:
        return CardKnowledge(self.viewer, [list(k) for k in self.known],
                             [[list(c), list(h), p] for c, h, p in self.groups])

    # Events -----------------------------------------------------------------------
    def played(self, seat: int, card: int) -> None:
        """``seat`` played or discarded ``card`` (public)."""
        if seat == self.viewer:
            return
        if self.known[seat][card]:
            self.known[seat][card] -= 1
            return
        sources = [g for g in self.groups if g[1][seat] and g[0][card]]
        if len(sources) > 1:
            self._merge(sources)
            sources = [g for g in self.groups if g[1][seat] and g[0][card]]
        if not sources:
            raise KnowledgeError(f"seat {seat} played symbol {card}, which it cannot hold")
        sources[0][0][card] -= 1
        sources[0][1][seat] -= 1
        self._tidy()

    def drew(self, seat: int, card: int | None, public: bool) -> None:
        """``seat`` drew ``card``: from the face-up row if ``public``, else from the
        hidden pile (``card`` is then only known to the viewer for its own draws)."""
        latest = self.groups[-1] if self.groups else None
        if public:
            if seat != self.viewer:
                assert card is not None, "a draw from the face-up row shows its card"
                self.known[seat][card] += 1
            return
        if latest is None or latest[2] == 0:
            raise KnowledgeError("a draw from a hidden pile the viewer thinks is empty")
        latest[2] -= 1
        if seat == self.viewer:
            if not latest[0][card]:
                raise KnowledgeError(f"the viewer drew symbol {card}, which was not unseen")
            latest[0][card] -= 1
        else:
            latest[1][seat] += 1
        self._tidy()

    def revealed(self, cards) -> None:
        """Cards of the hidden pile were laid face up."""
        latest = self.groups[-1]
        for card in cards:
            latest[0][card] -= 1
            latest[2] -= 1
        if latest[2] < 0 or min(latest[0]) < 0:
            raise KnowledgeError("face-up cards that were not in the hidden pile")
        self._tidy()

    def reshuffled(self, discard) -> None:
        """The discard pile (``discard``: counts per symbol) became the new pile."""
        if any(g[2] for g in self.groups):
            raise KnowledgeError("a reshuffle while the viewer thinks the pile is not empty")
        seats = len(self.known)
        self.groups.append([[int(c) for c in discard], [0] * seats, int(sum(discard))])
        self._tidy()

    # Upkeep -----------------------------------------------------------------------
    def _merge(self, groups) -> None:
        """Put ``groups`` together in the place of the last of them."""
        merged = [[sum(col) for col in zip(*(g[0] for g in groups))],
                  [sum(col) for col in zip(*(g[1] for g in groups))],
                  sum(g[2] for g in groups)]
        last = max(self.groups.index(g) for g in groups)
        keep = [g for g in self.groups if not any(g is m for m in groups)]
        keep.insert(last - len(groups) + 1, merged)
        self.groups = keep

    def _tidy(self) -> None:
        """Drop empty groups; a group only one seat holds (no pile) becomes known."""
        kept = []
        for cards, hands, pile in self.groups:
            holders = [q for q, n in enumerate(hands) if n]
            if not pile and len(holders) == 1:
                self.known[holders[0]] = [a + b for a, b in zip(self.known[holders[0]], cards)]
            elif pile or holders:
                kept.append([cards, hands, pile])
        self.groups = kept

    # Worlds -----------------------------------------------------------------------
    def trivial(self) -> bool:
        """Nothing beyond one group of every unseen card: the plain uniform deal."""
        return len(self.groups) <= 1 and not any(any(k) for k in self.known)

    # Plain data (views) -----------------------------------------------------------
    def to_data(self, alphabet: str, names) -> dict:
        def cards(counts):
            return {alphabet[s]: int(n) for s, n in enumerate(counts)}
        return {"known": {names[q]: cards(k) for q, k in enumerate(self.known)
                          if q != self.viewer},
                "groups": [{"cards": cards(c), "hands": {names[q]: int(n) for q, n in
                                                         enumerate(h) if n},
                            "pile": int(p)} for c, h, p in self.groups]}

    @classmethod
    def from_data(cls, data: dict, viewer: int, alphabet: str, names) -> CardKnowledge:
        def counts(cards):
            return [int(cards.get(a, 0)) for a in alphabet]
        known = [counts(data["known"].get(name, {})) for name in names]
        groups = [[counts(g["cards"]), [int(g["hands"].get(name, 0)) for name in names],
                   int(g["pile"])] for g in data["groups"]]
        return cls(viewer, known, groups)
