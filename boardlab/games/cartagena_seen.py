"""What each seat of Cartagena knows of the unseen cards, as compiled functions over int32.

The rules of that knowledge are ``cartagena_knowledge``'s (its text says what is known
and why); they are written here once, compiled, so that a game's state and the vector
environment (``cartagena_vector``) keep it the same way. One viewer's knowledge is one
int32 array ``kn``:

- a header: the number of groups, the room for groups, the viewer, symbols ``S``, seats;
- ``known`` (seat x symbol): the cards the viewer knows each seat holds;
- the groups, oldest first, each ``S`` card counts, one count per seat (the cards of the
  group each seat holds) and the cards of the group in the hidden pile.

Every seat's knowledge lies in one array, viewer after viewer (:func:`size` entries
each). The functions return 0, or an error code when the events contradict what was
known (a bug in the tracking, never bad input: ``CardKnowledge`` raises it).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from . import cartagena_kernel as K

H_GROUPS, H_ROOM, H_VIEWER, H_S, H_NP = range(5)
HEADER = 5
# error codes
OK, E_CANNOT_HOLD, E_EMPTY_PILE, E_NOT_UNSEEN, E_REVEAL, E_RESHUFFLE, E_ROOM, E_NO_GROUP = \
    range(8)
MESSAGES = {E_CANNOT_HOLD: "a seat played a symbol it cannot hold",
            E_EMPTY_PILE: "a draw from a hidden pile the viewer thinks is empty",
            E_NOT_UNSEEN: "the viewer drew a symbol that was not unseen",
            E_REVEAL: "face-up cards that were not in the hidden pile",
            E_RESHUFFLE: "a reshuffle while the viewer thinks the pile is not empty",
            E_ROOM: "more groups than the knowledge has room for",
            E_NO_GROUP: "cards revealed while the viewer knows of no hidden pile"}


@njit(cache=True, inline="always")
def room(cfg):
    """The most groups a viewer's knowledge can need in a game of ``cfg``: the newest
    group (in the pile), the deal's (kept untidied) and groups of cards held by at least
    two other seats, at least one card each (none with two seats)."""
    return 2 if cfg[K.C_NP] <= 2 else 2 + cfg[K.C_DECK] // 2


@njit(cache=True, inline="always")
def size_for(S, NP, groups):
    """The entries of one viewer's knowledge with room for ``groups`` groups."""
    return HEADER + NP * S + groups * (S + NP + 1)


@njit(cache=True)
def size(cfg):
    """The entries of one viewer's knowledge in a game of ``cfg``."""
    return size_for(cfg[K.C_S], cfg[K.C_NP], room(cfg))


@njit(cache=True, inline="always")
def _group(kn, g):
    """Where group ``g`` starts."""
    S, NP = kn[H_S], kn[H_NP]
    return HEADER + NP * S + g * (S + NP + 1)


@njit(cache=True)
def start(kn, viewer, S, NP, groups, unseen, hand_sizes, pile):
    """At the deal: every card the viewer cannot see (``unseen``, per symbol) in one group,
    with each other seat's hand size and the hidden pile (``kn`` has room for ``groups``)."""
    kn[:] = 0
    kn[H_GROUPS], kn[H_ROOM], kn[H_VIEWER], kn[H_S], kn[H_NP] = 1, groups, viewer, S, NP
    at = _group(kn, 0)
    for s in range(S):
        kn[at + s] = unseen[s]
    for q in range(NP):
        kn[at + S + q] = 0 if q == viewer else hand_sizes[q]
    kn[at + S + NP] = pile


@njit(cache=True)
def _tidy(kn):
    """Drop empty groups; a group only one seat holds (none in the pile) becomes known."""
    S, NP = kn[H_S], kn[H_NP]
    width = S + NP + 1
    kept = 0
    for g in range(kn[H_GROUPS]):
        at = _group(kn, g)
        holders, holder = 0, -1
        for q in range(NP):
            if kn[at + S + q]:
                holders += 1
                holder = q
        pile = kn[at + S + NP]
        if pile == 0 and holders == 1:
            for s in range(S):
                kn[HEADER + holder * S + s] += kn[at + s]
        elif pile != 0 or holders > 0:
            to = _group(kn, kept)
            if to != at:
                for i in range(width):
                    kn[to + i] = kn[at + i]
            kept += 1
    kn[H_GROUPS] = kept


@njit(cache=True)
def played(kn, seat, card):
    """``seat`` played or discarded ``card`` (public): a card it is known to hold if it
    is (cards of one symbol are alike), else one of a group it holds cards of; several
    such groups are merged in the place of the last of them."""
    S = kn[H_S]
    if seat == kn[H_VIEWER]:
        return OK
    if kn[HEADER + seat * S + card]:
        kn[HEADER + seat * S + card] -= 1
        return OK
    sources, last = 0, -1
    for g in range(kn[H_GROUPS]):
        at = _group(kn, g)
        if kn[at + S + seat] and kn[at + card]:
            sources += 1
            last = g
    if sources == 0:
        return E_CANNOT_HOLD
    if sources > 1:
        last = _merge(kn, seat, card, last)
    at = _group(kn, last)
    kn[at + card] -= 1
    kn[at + S + seat] -= 1
    _tidy(kn)
    return OK


@njit(cache=True)
def _merge(kn, seat, card, last):
    """Merge the groups that hold ``seat``'s cards and a ``card`` into the place of the
    last of them (``last``), the others keeping their order; return the merged one's."""
    S, NP = kn[H_S], kn[H_NP]
    width = S + NP + 1
    merged = np.zeros(width, dtype=np.int64)
    for g in range(kn[H_GROUPS]):
        at = _group(kn, g)
        if kn[at + S + seat] and kn[at + card]:
            for i in range(width):
                merged[i] += kn[at + i]
    kept, place = 0, -1
    for g in range(kn[H_GROUPS]):
        at = _group(kn, g)
        to = _group(kn, kept)
        if g == last:
            for i in range(width):
                kn[to + i] = merged[i]
            place = kept
        elif kn[at + S + seat] and kn[at + card]:
            continue
        elif to != at:
            for i in range(width):
                kn[to + i] = kn[at + i]
        kept += 1
    kn[H_GROUPS] = kept
    return place


@njit(cache=True)
def drew(kn, seat, card, public):
    """``seat`` drew ``card``: from the face-up row if ``public`` (a known card), else
    from the hidden pile, the newest group's (its card known only to its drawer)."""
    S, NP = kn[H_S], kn[H_NP]
    viewer = kn[H_VIEWER]
    if public:
        if seat != viewer:
            kn[HEADER + seat * S + card] += 1
        return OK
    if kn[H_GROUPS] == 0:
        return E_EMPTY_PILE
    at = _group(kn, kn[H_GROUPS] - 1)
    if kn[at + S + NP] == 0:
        return E_EMPTY_PILE
    kn[at + S + NP] -= 1
    if seat == viewer:
        if kn[at + card] == 0:
            return E_NOT_UNSEEN
        kn[at + card] -= 1
    else:
        kn[at + S + seat] += 1
    _tidy(kn)
    return OK


@njit(cache=True)
def revealed(kn, cards, count):
    """``cards[:count]`` of the hidden pile were laid face up."""
    S, NP = kn[H_S], kn[H_NP]
    if kn[H_GROUPS] == 0:
        return E_NO_GROUP
    at = _group(kn, kn[H_GROUPS] - 1)
    for i in range(count):
        kn[at + cards[i]] -= 1
        kn[at + S + NP] -= 1
    if kn[at + S + NP] < 0:
        return E_REVEAL
    for s in range(S):
        if kn[at + s] < 0:
            return E_REVEAL
    _tidy(kn)
    return OK


@njit(cache=True)
def reshuffled(kn, discard):
    """The discard pile (``discard``: counts per symbol) became the new pile."""
    S, NP = kn[H_S], kn[H_NP]
    for g in range(kn[H_GROUPS]):
        if kn[_group(kn, g) + S + NP]:
            return E_RESHUFFLE
    if kn[H_GROUPS] >= kn[H_ROOM]:
        return E_ROOM
    at = _group(kn, kn[H_GROUPS])
    total = 0
    for s in range(S):
        kn[at + s] = discard[s]
        total += discard[s]
    for q in range(NP):
        kn[at + S + q] = 0
    kn[at + S + NP] = total
    kn[H_GROUPS] += 1
    _tidy(kn)
    return OK


# A game's seats together ----------------------------------------------------------------

@njit(cache=True)
def deal(buf, cfg, totals, know):
    """Every seat's knowledge at the start of the position ``buf`` (``totals``: the cards
    of each symbol in all), written to ``know``, viewer after viewer."""
    S, NP = cfg[K.C_S], cfg[K.C_NP]
    o_hand, o_discard, o_pile = K.offsets(cfg)[3], K.offsets(cfg)[4], K.offsets(cfg)[5]
    step, groups = size(cfg), room(cfg)
    public = np.zeros(S, dtype=np.int64)
    for s in range(S):
        public[s] = buf[o_discard + s]
    face_up = buf[K.M_ROW_LEFT]
    for i in range(face_up):
        public[buf[o_pile + buf[K.M_TOP] + i]] += 1
    sizes = np.zeros(NP, dtype=np.int64)
    for q in range(NP):
        for s in range(S):
            sizes[q] += buf[o_hand + q * S + s]
    unseen = np.zeros(S, dtype=np.int64)
    hidden_pile = buf[K.M_END] - buf[K.M_TOP] - face_up
    for v in range(NP):
        for s in range(S):
            unseen[s] = totals[s] - public[s] - buf[o_hand + v * S + s]
        start(know[v * step:(v + 1) * step], v, S, NP, groups, unseen, sizes, hidden_pile)


@njit(cache=True)
def act(buf, cfg, action, log, know, discard):
    """Apply a legal action (the kernel's ``apply_logged``) and tell every seat's
    knowledge what it showed: a card played or discarded, the draws of a move back
    (the reshuffle, the face-up cards laid out, each card drawn, as the log has them).
    ``discard`` is work space (S entries). Returns 0 or the first error code."""
    S, NP = cfg[K.C_S], cfg[K.C_NP]
    kind, symbol, _ = K.decode(cfg, action)
    seat = buf[K.M_TO_MOVE]
    if kind == K.BACK:                         # a reshuffle makes the discards the pile
        o_discard = K.offsets(cfg)[4]
        for s in range(S):
            discard[s] = buf[o_discard + s]
    K.apply_logged(buf, cfg, action, log)
    step = size(cfg)
    error = OK
    if kind == K.PLAY or kind == K.DISCARD:
        for v in range(NP):
            error = max(error, played(know[v * step:(v + 1) * step], seat, symbol))
        return error
    if kind != K.BACK:
        return OK
    public = cfg[K.C_ROW] != 0
    for v in range(NP):
        kn = know[v * step:(v + 1) * step]
        row_from, row_count = 0, 0                 # a run of reveals: one event
        for i in range(1, log[0] + 1, 2):
            code, card = log[i], log[i + 1]
            if code == K.EV_REVEAL:
                if row_count == 0:
                    row_from = i + 1
                row_count += 1
                continue
            if row_count:
                error = max(error, _revealed_log(kn, log, row_from, row_count))
                row_count = 0
            if code == K.EV_RESHUFFLE:
                error = max(error, reshuffled(kn, discard))
            else:
                error = max(error, drew(kn, seat, card, public))
        if row_count:
            error = max(error, _revealed_log(kn, log, row_from, row_count))
    return error


@njit(cache=True)
def act_if_legal(buf, cfg, action, log, know, discard, out):
    """:func:`act` if ``action`` is one of the kernel's legal ones (``out``: work space);
    -1 where it is not (nothing changed), else :func:`act`'s code."""
    if not K.is_legal(buf, cfg, action, out):
        return -1
    return act(buf, cfg, action, log, know, discard)


@njit(cache=True, inline="always")
def _revealed_log(kn, log, first, count):
    """:func:`revealed` of the ``count`` cards of the log's reveal events from ``first``
    (every other entry)."""
    cards = np.empty(count, dtype=np.int64)
    for k in range(count):
        cards[k] = log[first + 2 * k]
    return revealed(kn, cards, count)
