"""The Cartagena engine (RULES.md §3) as compiled functions over one int32 buffer.

The position is one flat int32 array: META scalars, then the track, the
token counts per position, each player's tokens per position, the hands
(counts per symbol), the discard pile (counts per symbol) and the draw pile
(cards in order, ``pile[top:end]``). Positions: 0 = start, 1..L = track,
L+1 = end (the boat). The fixed facts of a configuration travel in ``cfg``.

Actions (A = L + 1): ``s*A + x`` plays symbol s on a token at position x
(x <= L); ``S*A + x`` moves a token at x back; then ``end``, ``pass``, and
``discard s`` (hand limit). :func:`encode` and :func:`decode` are the only
places that know this layout; everything else, compiled or Python, goes
through them (and :func:`num_actions`).

The draws of one action (the lazy reshuffle, the face-up row being laid out,
each card drawn) are written to an event ``log`` as they happen (``apply_logged``), so that
Python can follow what a seat saw without repeating the drawing rules.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .kernels import pick_best, rng_below, rng_next, rng_seed

# cfg entries
(C_L, C_S, C_NP, C_T, C_APT, C_SKIP, C_FROM_END, C_VOLUNTARY, C_LIMIT, C_MAX_TURNS,
 C_DECK, C_ROW, C_PER_SYMBOL, C_CARDS_PER, C_HAND, C_SEGMENTS, C_FIRST, C_DEADLOCK) = range(18)
NCFG = 18
# META entries
META = 16
M_TO_MOVE, M_DONE, M_TURNS, M_PASSES, M_OVER, M_WINNER, M_TOP, M_END, M_ROW_LEFT, \
    M_RNG_LO, M_RNG_HI, M_DISCARDING, M_FIRST = range(13)
OVER_WIN, OVER_DEADLOCK, OVER_CAP = 1, 2, 3
MASK32 = np.uint64(0xFFFFFFFF)

# action kinds (decode's first value)
PLAY, BACK, END, PASS, DISCARD = range(5)
# event log: log[0] is the number of entries used after it; each event is (code, card)
EV_RESHUFFLE, EV_REVEAL, EV_DRAW = 1, 2, 3   # a reshuffle (card: the new pile's size)
LOG_SIZE = 1 + 2 * 64    # one action: <= 2 draws, each <= 1 reshuffle + 24 reveals + 1 card


def new_log():
    """An event log for :func:`apply_logged`."""
    return np.zeros(LOG_SIZE, dtype=np.int32)


def layout(cfg) -> dict:
    """Offsets of the arrays in the buffer and its total size."""
    names = ("track", "occ", "mine", "hand", "discard", "pile")
    offsets = {name: int(at) for name, at in zip(names, _offsets(cfg))}
    offsets["size"] = offsets["pile"] + int(cfg[C_DECK])
    return offsets


# The action space -------------------------------------------------------------------------

@njit(cache=True, inline="always")
def num_actions(cfg):
    """Size of the action space: plays, backs (x = 0..L+1), end, pass, discards."""
    S, A = cfg[C_S], cfg[C_L] + 1
    return S * A + A + 1 + 2 + S


@njit(cache=True, inline="always")
def encode(cfg, kind, symbol, x):
    """The action of ``kind`` with its symbol (PLAY, DISCARD) and position (PLAY, BACK)."""
    return _encode(cfg[C_S], cfg[C_L] + 1, kind, symbol, x)


@njit(cache=True, inline="always")
def _encode(S, A, kind, symbol, x):
    """:func:`encode` with the configuration's ``S`` and ``A = L + 1`` already read (a
    loop that writes to an array would read them from ``cfg`` at every step)."""
    if kind == PLAY:
        return symbol * A + x
    if kind == BACK:
        return S * A + x
    end = S * A + A + 1
    if kind == END:
        return end
    if kind == PASS:
        return end + 1
    return end + 2 + symbol


@njit(cache=True, inline="always")
def decode(cfg, action):
    """``(kind, symbol, position)`` of an action in range; -1 where it has none."""
    S, A = cfg[C_S], cfg[C_L] + 1
    if action < S * A:
        return PLAY, action // A, action % A
    end = S * A + A + 1
    if action < end:
        return BACK, -1, action - S * A
    if action == end:
        return END, -1, -1
    if action == end + 1:
        return PASS, -1, -1
    return DISCARD, action - end - 2, -1


@njit(cache=True, inline="always")
def _note(log, code, card):
    if log is not None:                       # None: compiled without any logging
        k = log[0]
        if k + 2 < log.shape[0]:
            log[k + 1] = code
            log[k + 2] = card
            log[0] = k + 2


@njit(cache=True, inline="always")
def _offsets(cfg):
    L, S, NP = cfg[C_L], cfg[C_S], cfg[C_NP]
    o_track = META
    o_occ = o_track + L + 2
    o_mine = o_occ + L + 2
    o_hand = o_mine + NP * (L + 2)
    o_discard = o_hand + NP * S
    o_pile = o_discard + S
    return o_track, o_occ, o_mine, o_hand, o_discard, o_pile


@njit(cache=True, inline="always")
def offsets(cfg):
    """Where the buffer's arrays start: track, occupancy, tokens per seat, hands, discards,
    pile (what :func:`layout` names, for compiled code elsewhere)."""
    return _offsets(cfg)


@njit(cache=True, inline="always")
def _rng(buf):
    return (np.uint64(buf[M_RNG_HI]) << np.uint64(32)) | (np.uint64(buf[M_RNG_LO]) & MASK32)


@njit(cache=True, inline="always")
def _store_rng(buf, s):
    buf[M_RNG_LO] = np.int32(np.int64(s & MASK32) - (1 << 32) if (s & MASK32) >= np.uint64(
        1 << 31) else np.int64(s & MASK32))
    hi = s >> np.uint64(32)
    buf[M_RNG_HI] = np.int32(np.int64(hi) - (1 << 32) if hi >= np.uint64(1 << 31)
                             else np.int64(hi))


@njit(cache=True)
def seed_rng(buf, seed):
    _store_rng(buf, rng_seed(seed))


@njit(cache=True, inline="always")
def forward_target(buf, cfg, x, s):
    """Where a token at x goes with symbol s: the first empty s space after x, else the end."""
    L = cfg[C_L]
    o_track, o_occ = META, META + L + 2
    for y in range(x + 1, L + 1):
        if buf[o_track + y] == s and buf[o_occ + y] == 0:
            return y
    return L + 1


@njit(cache=True, inline="always")
def _retreat_over(target, y, tokens, block):
    """:func:`back_target` for a token just above space ``y``, from ``target``, the one
    for a token at ``y``, and the ``tokens`` on ``y``: a space with 1 or 2 tokens is
    the target; a full one (3) blocks the retreat (``block``) or is skipped."""
    if tokens > 0:
        if tokens < 3:
            target = y
        elif block:
            target = -1
    return target


@njit(cache=True, inline="always")
def back_target(buf, cfg, x):
    """Where a token at x retreats to, or -1 if it cannot (RULES §3.2, K-A1, K-A2): the
    nearest space behind it with 1 or 2 tokens, full spaces blocking or skipped."""
    o_occ, block = META + cfg[C_L] + 2, cfg[C_SKIP] == 0
    target = -1
    for y in range(1, x):
        target = _retreat_over(target, y, buf[o_occ + y], block)
    return target


@njit(cache=True)
def legal(buf, cfg, out):
    """Write the legal actions to ``out`` (``num_actions`` long); return their number.

    In order: while discarding, a discard per symbol held; else the plays (symbol by
    symbol, then position), the moves back (by position: a token there and a space
    :func:`back_target` allows), then ``end`` once this turn has an action, else
    ``pass`` where nothing else is legal (or passing is voluntary).

    Written with few branches that depend on the position (random play mispredicts
    them): ``out`` first holds the positions with a token and the symbols held,
    and the loops count instead of testing.
    """
    if buf[M_OVER]:
        return 0
    L, S, p = cfg[C_L], cfg[C_S], buf[M_TO_MOVE]
    A = L + 1
    o_track, o_occ, o_mine, o_hand, o_discard, o_pile = _offsets(cfg)
    hand = o_hand + p * S
    k = 0
    if buf[M_DISCARDING]:
        for s in range(S):
            out[k] = _encode(S, A, DISCARD, s, 0)
            k += buf[hand + s] > 0
        return k
    mine = o_mine + p * (L + 2)
    places = 0                                   # out[:places]: positions 0..L with a token
    for x in range(L + 1):
        out[places] = x
        places += buf[mine + x] > 0
    held = 0                                     # then the symbols held
    for s in range(S):
        out[places + held] = s
        held += buf[hand + s] > 0
    first = places + held                        # the plays after them ...
    k = first
    for i in range(held):
        s = out[places + i]
        for j in range(places):
            out[k] = _encode(S, A, PLAY, s, out[j])
            k += 1
    k -= first
    for i in range(k):                           # ... moved to the front
        out[i] = out[first + i]
    target = -1                                  # back_target(x), kept as x goes up
    block = cfg[C_SKIP] == 0
    for x in range(1, (L + 1 if cfg[C_FROM_END] else L) + 1):
        out[k] = _encode(S, A, BACK, 0, x)
        k += (target > 0) & (buf[mine + x] > 0)
        target = _retreat_over(target, x, buf[o_occ + x], block)
    if buf[M_DONE] > 0:
        out[k] = _encode(S, A, END, 0, 0)
        k += 1
    elif k == 0 or cfg[C_VOLUNTARY]:
        out[k] = _encode(S, A, PASS, 0, 0)
        k += 1
    return k


@njit(cache=True)
def is_legal(buf, cfg, action, out):
    """Whether ``action`` is one of :func:`legal`'s actions now (``out`` is work space):
    the check of a move without making the Python list."""
    count = legal(buf, cfg, out)
    for i in range(count):
        if out[i] == action:
            return True
    return False

@njit(cache=True, inline="always")
def _move(buf, cfg, p, x, y):
    L = cfg[C_L]
    o_occ, o_mine = META + L + 2, META + 2 * (L + 2)
    buf[o_occ + x] -= 1
    buf[o_occ + y] += 1
    buf[o_mine + p * (L + 2) + x] -= 1
    buf[o_mine + p * (L + 2) + y] += 1


@njit(cache=True, inline="always")
def _reshuffle(buf, cfg, log):
    """Shuffle the discard pile into a new draw pile (lazily, when a draw needs it)."""
    S = cfg[C_S]
    o_track, o_occ, o_mine, o_hand, o_discard, o_pile = _offsets(cfg)
    k = 0
    for s in range(S):
        for _ in range(buf[o_discard + s]):
            buf[o_pile + k] = s
            k += 1
        buf[o_discard + s] = 0
    rng = _rng(buf)
    for i in range(k - 1, 0, -1):
        rng = rng_next(rng)
        j = rng_below(rng, i + 1)
        buf[o_pile + i], buf[o_pile + j] = buf[o_pile + j], buf[o_pile + i]
    _store_rng(buf, rng)
    buf[M_TOP] = 0
    buf[M_END] = k
    if k > 0:
        _note(log, EV_RESHUFFLE, k)


@njit(cache=True, inline="always")
def _lay_out_row(buf, cfg, log):
    """Turn the next cards of the pile face up when the row is used up (Tortuga, Hispaniola)."""
    if cfg[C_ROW] > 0 and buf[M_ROW_LEFT] == 0:
        buf[M_ROW_LEFT] = min(cfg[C_ROW], buf[M_END] - buf[M_TOP])
        o_pile = _offsets(cfg)[5]
        for i in range(buf[M_ROW_LEFT]):
            _note(log, EV_REVEAL, buf[o_pile + buf[M_TOP] + i])


@njit(cache=True, inline="always")
def _draw(buf, cfg, p, count, log):
    """Player p draws ``count`` cards; fewer if none are left anywhere (K-A5)."""
    S = cfg[C_S]
    o_hand, o_pile = _offsets(cfg)[3], _offsets(cfg)[5]
    for _ in range(count):
        if buf[M_TOP] == buf[M_END]:
            _reshuffle(buf, cfg, log)
            _lay_out_row(buf, cfg, log)
            if buf[M_TOP] == buf[M_END]:
                return
        card = buf[o_pile + buf[M_TOP]]
        buf[M_TOP] += 1
        buf[o_hand + p * S + card] += 1
        _note(log, EV_DRAW, card)
        if cfg[C_ROW] > 0:
            buf[M_ROW_LEFT] -= 1
            _lay_out_row(buf, cfg, log)


@njit(cache=True)
def set_pile(buf, cfg, cards):
    """Make ``cards`` (next first) the whole draw pile and lay out its face-up row; the
    rest of the pile's space is cleared (no trace of earlier cards)."""
    o_pile = _offsets(cfg)[5]
    for i in range(cfg[C_DECK]):
        buf[o_pile + i] = cards[i] if i < cards.shape[0] else 0
    buf[M_TOP] = 0
    buf[M_END] = cards.shape[0]
    buf[M_ROW_LEFT] = 0
    _lay_out_row(buf, cfg, None)


@njit(cache=True)
def _end_turn(buf, cfg):
    p, S = buf[M_TO_MOVE], cfg[C_S]
    o_hand = _offsets(cfg)[3]
    if cfg[C_LIMIT] > 0:
        held = 0
        for s in range(S):
            held += buf[o_hand + p * S + s]
        if held > cfg[C_LIMIT]:
            buf[M_DISCARDING] = 1
            return
    buf[M_DISCARDING] = 0
    buf[M_DONE] = 0
    buf[M_TURNS] += 1
    buf[M_TO_MOVE] = (p + 1) % cfg[C_NP]
    if buf[M_TURNS] >= cfg[C_MAX_TURNS]:
        buf[M_OVER] = OVER_CAP


@njit(cache=True)
def apply(buf, cfg, action):
    """Apply a legal action."""
    _act(buf, cfg, action, None)


@njit(cache=True)
def apply_logged(buf, cfg, action, log):
    """Apply a legal action, writing its draws to ``log`` (see :func:`new_log`)."""
    _act(buf, cfg, action, log)


@njit(cache=True)
def apply_if_legal(buf, cfg, action, log, out):
    """:func:`apply_logged` of ``action`` if it is one of :func:`legal`'s (``out``: work
    space); whether it was (one call for a checked move)."""
    if not is_legal(buf, cfg, action, out):
        return False
    _act(buf, cfg, action, log)
    return True


@njit(cache=True)
def apply_listed(buf, cfg, action, log, out):
    """:func:`apply_logged`, then :func:`legal` of the position it leaves, in one call
    (a searcher's step). Returns ``count << 6 | to_move << 2 | over << 1 | drew``: the
    number of legal actions now in ``out`` (0 once the game is over), the seat to
    move, whether the game is over and whether cards were drawn (``log`` has events)."""
    _act(buf, cfg, action, log)
    drew = 1 if log[0] else 0
    if buf[M_OVER]:
        return 2 | drew
    return legal(buf, cfg, out) << 6 | buf[M_TO_MOVE] << 2 | drew


@njit(cache=True, inline="always")
def _act(buf, cfg, action, log):
    L, S, p = cfg[C_L], cfg[C_S], buf[M_TO_MOVE]
    o_track, o_occ, o_mine, o_hand, o_discard, o_pile = _offsets(cfg)
    if log is not None:
        log[0] = 0
    kind, s, x = decode(cfg, action)
    if kind == DISCARD:                                # discard down to the hand limit
        buf[o_hand + p * S + s] -= 1
        buf[o_discard + s] += 1
        _end_turn(buf, cfg)
        return
    if kind == END:
        _end_turn(buf, cfg)
        return
    if kind == PASS:
        buf[M_PASSES] += 1
        if cfg[C_DEADLOCK] and buf[M_PASSES] >= cfg[C_NP]:
            buf[M_OVER] = OVER_DEADLOCK
            return
        _end_turn(buf, cfg)
        return
    buf[M_PASSES] = 0
    if kind == PLAY:                                   # forward
        buf[o_hand + p * S + s] -= 1
        buf[o_discard + s] += 1
        _move(buf, cfg, p, x, forward_target(buf, cfg, x, s))
    else:                                              # back
        y = back_target(buf, cfg, x)
        drawn = buf[o_occ + y]
        _move(buf, cfg, p, x, y)
        _draw(buf, cfg, p, drawn, log)
    if buf[o_mine + p * (L + 2) + L + 1] == cfg[C_T]:
        buf[M_OVER] = OVER_WIN
        buf[M_WINNER] = p
        return
    buf[M_DONE] += 1
    if buf[M_DONE] >= cfg[C_APT]:
        _end_turn(buf, cfg)


@njit(cache=True, inline="always")
def _worth(buf, cfg, action, card):
    """A quick judgement of a legal action, in spaces gained: a play, the spaces its
    token jumps; a move back, ``card`` per card drawn less the spaces given up; ending
    the turn or passing, nothing; a discard, nothing (any)."""
    kind, s, x = decode(cfg, action)
    if kind == PLAY:
        return forward_target(buf, cfg, x, s) - x
    if kind == BACK:
        y = back_target(buf, cfg, x)
        return card * buf[META + cfg[C_L] + 2 + y] - (x - y)
    return 0


@njit(cache=True)
def playout(buf, cfg, seed):
    """Uniformly random legal actions until the game ends; returns the actions made."""
    return guided_playout(buf, cfg, seed, 0, 0)


@njit(cache=True)
def guided_playout(buf, cfg, seed, greed, card):
    """Play to the end, each action the best by :func:`_worth` (ties at random) with
    probability ``greed`` in 1000, else one at random; returns the actions made."""
    out = np.empty(num_actions(cfg), np.int32)
    worth = np.empty(num_actions(cfg), np.int64)
    s = rng_seed(seed)
    moves = 0
    while buf[M_OVER] == 0:
        k = legal(buf, cfg, out)
        s = rng_next(s)
        pick = rng_below(s, k)
        if greed > 0:                  # (greed 0 draws as :func:`playout` always did)
            s = rng_next(s)
            if k > 1 and rng_below(s, 1000) < greed:
                for i in range(k):
                    worth[i] = _worth(buf, cfg, out[i], card)
                pick, s = pick_best(worth, k, s)
        apply(buf, cfg, out[pick])
        moves += 1
    return moves


@njit(cache=True)
def ranking_keys(buf, cfg, keys):
    """Write each seat's K-A7 ranking key to ``keys`` (seats x 2): its tokens in the
    boat, then the sum of its tokens' positions."""
    L, NP = cfg[C_L], cfg[C_NP]
    o_mine = META + 2 * (L + 2)
    for p in range(NP):
        at = o_mine + p * (L + 2)
        total = 0
        for x in range(1, L + 2):
            total += x * buf[at + x]
        keys[p, 0] = buf[at + L + 1]
        keys[p, 1] = total


@njit(cache=True)
def first_ranked(buf, cfg):
    """The seats ranked first in the finished position ``buf``, as bits (seat p: 1 << p):
    the winner of a won game, else those of the highest :func:`ranking_keys`."""
    if buf[M_OVER] == OVER_WIN:
        return 1 << buf[M_WINNER]
    NP = cfg[C_NP]
    keys = np.empty((NP, 2), dtype=np.int64)
    ranking_keys(buf, cfg, keys)
    best = 0
    for p in range(1, NP):
        if keys[p, 0] > keys[best, 0] or keys[p, 0] == keys[best, 0] and \
                keys[p, 1] > keys[best, 1]:
            best = p
    bits = 0
    for p in range(NP):
        if keys[p, 0] == keys[best, 0] and keys[p, 1] == keys[best, 1]:
            bits |= 1 << p
    return bits


@njit(cache=True)
def rollout(buf, cfg, seed, cap, greed=0, card=0):
    """A :func:`guided_playout` (with greed 0, the random :func:`playout`) of a copy of
    ``buf`` (its chance reseeded from ``seed``) to the end or to turn ``cap``, where it
    is ranked; :func:`first_ranked` of the end."""
    work = buf.copy()
    capped = cfg.copy()
    capped[C_MAX_TURNS] = cap
    seed_rng(work, seed)
    guided_playout(work, capped, seed, greed, card)
    if work[M_OVER] == 0:
        work[M_OVER] = OVER_CAP
    return first_ranked(work, cfg)


@njit(cache=True)
def _shuffle(buf, start, count, rng):
    for i in range(count - 1, 0, -1):
        rng = rng_next(rng)
        j = rng_below(rng, i + 1)
        buf[start + i], buf[start + j] = buf[start + j], buf[start + i]
    return rng


@njit(cache=True)
def new_game(buf, cfg, seed):
    """A fresh game from ``seed``: shuffled track and deck, hands dealt, tokens at the start."""
    L, S, NP, T = cfg[C_L], cfg[C_S], cfg[C_NP], cfg[C_T]
    o_track, o_occ, o_mine, o_hand, o_discard, o_pile = _offsets(cfg)
    buf[:] = 0
    rng = rng_seed(seed)
    for i in range(L):
        buf[o_track + 1 + i] = i % S if cfg[C_SEGMENTS] else i // cfg[C_PER_SYMBOL]
    buf[o_track] = -1
    buf[o_track + L + 1] = -1
    if cfg[C_SEGMENTS]:
        for seg in range(L // S):
            rng = _shuffle(buf, o_track + 1 + seg * S, S, rng)
    else:
        rng = _shuffle(buf, o_track + 1, L, rng)
    for i in range(cfg[C_DECK]):
        buf[o_pile + i] = i // cfg[C_CARDS_PER]
    rng = _shuffle(buf, o_pile, cfg[C_DECK], rng)
    buf[M_END] = cfg[C_DECK]
    for p in range(NP):
        for _ in range(cfg[C_HAND]):
            if buf[M_TOP] < buf[M_END]:
                buf[o_hand + p * S + buf[o_pile + buf[M_TOP]]] += 1
                buf[M_TOP] += 1
        buf[o_mine + p * (L + 2)] = T
    buf[o_occ] = NP * T
    if cfg[C_FIRST] >= 0:
        buf[M_TO_MOVE] = cfg[C_FIRST]
    else:
        rng = rng_next(rng)
        buf[M_TO_MOVE] = rng_below(rng, NP)
    buf[M_FIRST] = buf[M_TO_MOVE]
    _store_rng(buf, rng)
    _lay_out_row(buf, cfg, None)


@njit(cache=True)
def playouts(buf, cfg, count, seed):
    """``count`` random games, each freshly dealt from its own seed; returns the actions."""
    moves = 0
    for i in range(count):
        new_game(buf, cfg, seed * 7919 + i)
        moves += playout(buf, cfg, seed * 1000003 + i)
    return moves


@njit(cache=True)
def redeal(buf, cfg, hidden, seed):
    """Deal again, at random, every card a viewer cannot see (a new determinization).

    The cards in the hands of the seats with ``hidden[p]`` and in the draw pile
    below its face-up row are pooled, shuffled and dealt back into the same
    places in the same numbers; everything else is kept. The chance stream is
    reseeded from ``seed``.
    """
    S, NP = cfg[C_S], cfg[C_NP]
    o_hand, o_pile = _offsets(cfg)[3], _offsets(cfg)[5]
    first = buf[M_TOP] + buf[M_ROW_LEFT]
    pool = np.empty(2 * cfg[C_DECK], dtype=np.int32)          # hands + pile <= 2 decks
    k = 0
    for p in range(NP):
        if hidden[p]:
            for s in range(S):
                for _ in range(buf[o_hand + p * S + s]):
                    pool[k] = s
                    k += 1
    for i in range(first, buf[M_END]):
        pool[k] = buf[o_pile + i]
        k += 1
    rng = rng_seed(seed)
    for i in range(k - 1, 0, -1):
        rng = rng_next(rng)
        j = rng_below(rng, i + 1)
        pool[i], pool[j] = pool[j], pool[i]
    k = 0
    for p in range(NP):
        if hidden[p]:
            held = 0
            for s in range(S):
                held += buf[o_hand + p * S + s]
                buf[o_hand + p * S + s] = 0
            for _ in range(held):
                buf[o_hand + p * S + pool[k]] += 1
                k += 1
    for i in range(first, buf[M_END]):
        buf[o_pile + i] = pool[k]
        k += 1
    _store_rng(buf, rng)


@njit(cache=True)
def deal_groups(buf, cfg, viewer, known, group_cards, group_hands, seed):
    """Deal a viewer's unseen cards group by group (see ``cartagena_knowledge``).

    ``known`` (seat x symbol) is what each other seat is known to hold;
    ``group_cards`` (group x symbol) and ``group_hands`` (group x seat) say which
    cards each group has and how many each seat holds; the rest of every group
    goes, shuffled, into the pile below the face-up row. The viewer's hand is
    kept. The chance stream is reseeded from ``seed``.
    """
    S, NP = cfg[C_S], cfg[C_NP]
    o_hand, o_pile = _offsets(cfg)[3], _offsets(cfg)[5]
    for p in range(NP):
        if p != viewer:
            for s in range(S):
                buf[o_hand + p * S + s] = known[p, s]
    pool = np.empty(2 * cfg[C_DECK], dtype=np.int32)
    first = buf[M_TOP] + buf[M_ROW_LEFT]
    rng = rng_seed(seed)
    placed = 0
    for g in range(group_cards.shape[0]):
        k = 0
        for s in range(S):
            for _ in range(group_cards[g, s]):
                pool[k] = s
                k += 1
        for i in range(k - 1, 0, -1):
            rng = rng_next(rng)
            j = rng_below(rng, i + 1)
            pool[i], pool[j] = pool[j], pool[i]
        for p in range(NP):
            for _ in range(group_hands[g, p]):
                k -= 1
                buf[o_hand + p * S + pool[k]] += 1
        for i in range(k):
            buf[o_pile + first + placed] = pool[i]
            placed += 1
    _store_rng(buf, rng)
