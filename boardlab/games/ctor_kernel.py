"""The CTOR engine (RULES.md §4) as compiled functions over one int32 buffer.

Squares are cells 0..P-1 (square number - 1, row by row from the top left) of
an n x n torus; ``nbr`` and ``diag`` are the torus tables of
:mod:`boardlab.games.topology`. Team t plays colour t + 1 on the board.

Actions (:func:`encode` and :func:`decode` are the one translation between an
action number and its parts): ``cell`` = put (or, during a Landing, the
target), ``P + 4*cell + d`` = move one step in direction d, ``5P + cell`` =
lift a chip for a Landing, ``6P + cell`` = replace, ``7P`` = end the turn,
``7P + 1 + cell`` = pick a secret square.

Simultaneous team play (RULES §4.4, option ``team_protocol=simultaneous``): a
regular turn of a team with two or more members is a series of sub-rounds,
kept in the buffer too (``R_*`` fields per member). Each member commits one
operation (:func:`commit`; a Landing is its three actions) or ``end`` to skip;
when every acting member has, :func:`commit` reveals and resolves them. A
Replace is team-level: any member makes it at once, between sub-rounds.
:func:`playout` plays this protocol too, so random games are the real game.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .kernels import pick_best, rng_below, rng_next, rng_seed

(C_N, C_QPUT, C_QMOVE, C_QLAND, C_OPEN3, C_AFTER_OP, C_END_CHECK, C_MAX_TURNS, C_SECRETS,
 C_FIRST, C_AUTO_REPLACE, C_NULL_END, C_QPUT_2, C_QMOVE_2, C_QLAND_2, C_SIM, C_SIZE,
 C_SIZE_2) = range(18)
NCFG = 18
END_AFTER_REPLACES, END_IMMEDIATE, END_OF_TURN = 0, 1, 2
PH_SECRET, PH_OPENING, PH_REGULAR, PH_OVER = 0, 1, 2, 3

(M_PHASE, M_TEAM, M_PUT, M_MOVE, M_LAND, M_OPS, M_LIFTS, M_TURNS, M_NULLS, M_REPLACED,
 M_FULL, M_COUNT, M_COUNT_2, M_STEP, M_PICKS, M_EMPTY, M_OVER_REASON, M_RECHOOSE,
 M_ROUNDS) = range(19)
OVER_FULL, OVER_NULL, OVER_CAP = 1, 2, 3

# The open sub-round, per team member m at R_BASE + R_STRIDE * m: whether it acts in
# this sub-round, whether it is re-choosing a lost Put, its pending actions, what it
# has used of each quota (put, move, landing) this turn; and, of the last resolved
# sub-round, the outcome of its operation (with the member that took its square) and
# the operation itself (R_SHOWN: what the reveal showed).
MAX_MEMBERS = 3
R_BASE, R_STRIDE = 20, 16
(R_ACTING, R_CHOOSER, R_NPEND, R_PEND, R_USED, R_OUTCOME, R_LOST_TO, R_NSHOWN,
 R_SHOWN) = 0, 1, 2, 3, 6, 9, 10, 11, 12
OUT_NONE, OUT_SKIP, OUT_DONE, OUT_COLLIDED, OUT_ILLEGAL, OUT_RECHOOSE = range(6)

META = R_BASE + R_STRIDE * MAX_MEMBERS
A_BOARD, A_SECRET, A_SECRET_2, A_PENDING = range(4)
NARR = 4

KIND_PUT, KIND_MOVE, KIND_LIFT, KIND_REPLACE, KIND_END, KIND_SECRET = range(6)
KINDS = ("put", "move", "lift", "replace", "end", "secret")


def buffer_size(n: int) -> int:
    return META + NARR * n * n


# Actions ----------------------------------------------------------------------------------

@njit(cache=True, inline="always")
def _kind(action, P):
    """The KIND_* code of an action (what :func:`decode` gives first, without a table)."""
    if action < P:
        return KIND_PUT
    if action < 5 * P:
        return KIND_MOVE
    if action < 6 * P:
        return KIND_LIFT
    if action < 7 * P:
        return KIND_REPLACE
    return KIND_END if action == 7 * P else KIND_SECRET


@njit(cache=True, inline="always")
def decode(action, P, nbr):
    """``(kind, cell, target)`` of an action: a KIND_* code, the square (cell) it is
    about and, for a Move step, the destination cell (else -1; ``end`` has no cell)."""
    a = np.int64(action)
    kind = np.int64(_kind(a, P))
    if kind == KIND_PUT:
        return kind, a, np.int64(-1)
    if kind == KIND_MOVE:
        x = (a - P) // 4
        return kind, x, np.int64(nbr[x, (a - P) % 4])
    if kind == KIND_END:
        return kind, np.int64(-1), np.int64(-1)
    if kind == KIND_SECRET:
        return kind, a - 7 * P - 1, np.int64(-1)
    return kind, a - (5 if kind == KIND_LIFT else 6) * P, np.int64(-1)


@njit(cache=True, inline="always")
def encode(kind, cell, target, P, nbr):
    """The action of ``(kind, cell, target)`` (see :func:`decode`); -1 for a Move
    whose target is not a 4-neighbour of its cell."""
    if kind == KIND_PUT:
        return cell
    if kind == KIND_MOVE:
        for d in range(4):
            if nbr[cell, d] == target:
                return P + 4 * cell + d
        return -1
    if kind == KIND_LIFT:
        return 5 * P + cell
    if kind == KIND_REPLACE:
        return 6 * P + cell
    if kind == KIND_END:
        return 7 * P
    return 7 * P + 1 + cell


@njit(cache=True)
def decode_many(actions, P, nbr, out):
    """:func:`decode` of each action into the rows of ``out`` (n x 3)."""
    for i in range(actions.shape[0]):
        kind, cell, target = decode(actions[i], P, nbr)
        out[i, 0] = kind
        out[i, 1] = cell
        out[i, 2] = target


# Board helpers ----------------------------------------------------------------------------

@njit(cache=True, inline="always")
def _o(k, P):
    return META + k * P


@njit(cache=True, inline="always")
def _own_around(buf, nbr, diag, cell, colour):
    """How many of the 8 torus neighbours of ``cell`` hold ``colour``."""
    k = 0
    for d in range(4):
        k += buf[META + nbr[cell, d]] == colour
        k += buf[META + diag[cell, d]] == colour
    return k


@njit(cache=True, inline="always")
def can_replace(buf, nbr, diag, cell, team):
    return buf[META + cell] == 2 - team and _own_around(buf, nbr, diag, cell, team + 1) >= 5


@njit(cache=True)
def _any_replace(buf, cfg, nbr, diag, team):
    P = cfg[C_N] * cfg[C_N]
    for x in range(P):
        if can_replace(buf, nbr, diag, x, team):
            return True
    return False


# Turns ------------------------------------------------------------------------------------

@njit(cache=True, inline="always")
def _r(m):
    return R_BASE + R_STRIDE * m


@njit(cache=True)
def _reset_round(buf, cfg, team):
    """A fresh sub-round: every member acts, nothing pending or used (outcomes kept)."""
    buf[M_RECHOOSE] = 0
    size = cfg[C_SIZE + team]
    for m in range(MAX_MEMBERS):
        r = _r(m)
        buf[r + R_ACTING] = 1 if m < size else 0
        buf[r + R_CHOOSER] = 0
        buf[r + R_NPEND] = 0
        for i in range(3):
            buf[r + R_PEND + i] = 0
            buf[r + R_USED + i] = 0


@njit(cache=True)
def start_turn(buf, cfg, team, phase):
    """Start ``team``'s turn in ``phase`` (PH_OPENING or PH_REGULAR) with fresh quotas."""
    buf[M_TEAM] = team
    buf[M_PHASE] = phase
    buf[M_OPS] = 0
    buf[M_REPLACED] = 0
    buf[M_LIFTS] = 0
    if phase == PH_OPENING:
        buf[M_PUT] = buf[M_STEP] + 1          # the opening puts exactly 1, 2 (, 3) chips
        buf[M_MOVE] = 0
        buf[M_LAND] = 0
    else:                                      # each team's quota row (the same by default)
        row = C_QPUT if team == 0 else C_QPUT_2
        buf[M_PUT] = cfg[row]
        buf[M_MOVE] = cfg[row + 1]
        buf[M_LAND] = cfg[row + 2]
    _reset_round(buf, cfg, team)


@njit(cache=True)
def init(buf, cfg):
    """An empty field: secret picks first (if enabled), else the opening."""
    buf[:] = 0
    P = cfg[C_N] * cfg[C_N]
    buf[M_EMPTY] = P
    first = cfg[C_FIRST]
    if cfg[C_SECRETS] > 0:
        buf[M_PHASE] = PH_SECRET
        buf[M_TEAM] = first
        buf[M_PICKS] = cfg[C_SECRETS]
    else:
        start_turn(buf, cfg, first, PH_OPENING)


@njit(cache=True)
def legal(buf, cfg, nbr, diag, out):
    """Write the legal actions of the team to move to ``out``; return how many.

    This is the team's turn as one agent plays it (in simultaneous team play,
    each member's choices come from :func:`member_legal`).
    """
    n = cfg[C_N]
    P = n * n
    phase, team = buf[M_PHASE], buf[M_TEAM]
    colour = team + 1
    ob = META
    k = 0
    if phase == PH_OVER:
        return 0
    if phase == PH_SECRET:
        os_ = _o(A_SECRET + team, P)
        for x in range(P):
            if buf[os_ + x] == 0:
                out[k] = encode(KIND_SECRET, x, -1, P, nbr)
                k += 1
        return k
    if buf[M_LIFTS] == 1:
        for x in range(P):
            if buf[ob + x] == colour:
                out[k] = encode(KIND_LIFT, x, -1, P, nbr)
                k += 1
        return k
    if buf[M_LIFTS] == 2 or phase == PH_OPENING:
        for x in range(P):
            if buf[ob + x] == 0:
                out[k] = encode(KIND_PUT, x, -1, P, nbr)
                k += 1
        return k
    # a full field stops Puts, Moves and Landings, except with end_of_turn (RULES 4.5)
    if buf[M_FULL] == 0 or cfg[C_END_CHECK] == END_OF_TURN:
        if buf[M_PUT] > 0:
            for x in range(P):
                if buf[ob + x] == 0:
                    out[k] = encode(KIND_PUT, x, -1, P, nbr)
                    k += 1
        if buf[M_MOVE] > 0:
            for x in range(P):
                if buf[ob + x] == colour:
                    for d in range(4):
                        if buf[ob + nbr[x, d]] == 0:
                            out[k] = P + 4 * x + d          # encode(KIND_MOVE, x, nbr[x, d])
                            k += 1
        if buf[M_LAND] > 0 and buf[M_COUNT + team] >= 2:
            for x in range(P):
                if buf[ob + x] == colour:
                    out[k] = encode(KIND_LIFT, x, -1, P, nbr)
                    k += 1
    if buf[M_OPS] > 0 or cfg[C_AFTER_OP] == 0:
        for x in range(P):
            if can_replace(buf, nbr, diag, x, team):
                out[k] = encode(KIND_REPLACE, x, -1, P, nbr)
                k += 1
    out[k] = encode(KIND_END, -1, -1, P, nbr)
    return k + 1


@njit(cache=True, inline="always")
def _arrive(buf, cfg, cell, team):
    """A chip of ``team`` ends on ``cell`` by Put, Move or Landing: secret-square trigger."""
    P = cfg[C_N] * cfg[C_N]
    if cfg[C_SECRETS] > 0 and buf[_o(A_SECRET + 1 - team, P) + cell] == 1:
        buf[_o(A_PENDING, P) + cell] = 1


@njit(cache=True)
def _finish(buf, reason):
    buf[M_PHASE] = PH_OVER
    buf[M_OVER_REASON] = reason


@njit(cache=True)
def _flip_secrets(buf, cfg, team):
    """End of ``team``'s turn: the opponent's triggered secret squares flip and are spent."""
    P = cfg[C_N] * cfg[C_N]
    if cfg[C_SECRETS] == 0:
        return
    osec, opend = _o(A_SECRET + 1 - team, P), _o(A_PENDING, P)
    for x in range(P):
        if buf[opend + x]:
            buf[opend + x] = 0
            buf[osec + x] = 2
            if buf[META + x] == team + 1:
                buf[META + x] = 2 - team
                buf[M_COUNT + team] -= 1
                buf[M_COUNT + 1 - team] += 1


@njit(cache=True)
def end_turn(buf, cfg):
    """End the turn of the team to move (secret squares flip, then the end checks)."""
    team, phase = buf[M_TEAM], buf[M_PHASE]
    _flip_secrets(buf, cfg, team)
    if phase == PH_REGULAR:
        if buf[M_OPS] == 0 and buf[M_REPLACED] == 0:
            buf[M_NULLS] += 1
        else:
            buf[M_NULLS] = 0
    buf[M_TURNS] += 1
    if buf[M_FULL]:
        _finish(buf, OVER_FULL)
        return
    if cfg[C_NULL_END] and buf[M_NULLS] >= 2:
        _finish(buf, OVER_NULL)
        return
    if buf[M_TURNS] >= cfg[C_MAX_TURNS]:
        _finish(buf, OVER_CAP)
        return
    if phase == PH_OPENING:
        buf[M_STEP] += 1
        last = 3 if cfg[C_OPEN3] else 2
        if buf[M_STEP] < last:
            start_turn(buf, cfg, 1 - team, PH_OPENING)
            return
    start_turn(buf, cfg, 1 - team, PH_REGULAR)


@njit(cache=True)
def _after_fill(buf, cfg, nbr, diag):
    """The field just filled up (RULES §4.5, T-A9): by default only Replaces may
    follow; with end_of_turn the turn goes on, and it is over if still full at its end."""
    buf[M_FULL] = 1
    check = cfg[C_END_CHECK]
    if check == END_IMMEDIATE or (check == END_AFTER_REPLACES and
                                  not _any_replace(buf, cfg, nbr, diag, buf[M_TEAM])):
        end_turn(buf, cfg)


@njit(cache=True)
def _replace_closure(buf, cfg, nbr, diag):
    """Option auto_replace_closure: flip every reachable opponent chip (RULES 4.3)."""
    P = cfg[C_N] * cfg[C_N]
    team = buf[M_TEAM]
    flipped = True
    while flipped and buf[M_PHASE] == PH_REGULAR and buf[M_TEAM] == team:
        flipped = False
        for x in range(P):
            if can_replace(buf, nbr, diag, x, team):
                _apply_one(buf, cfg, nbr, diag, encode(KIND_REPLACE, x, -1, P, nbr))
                flipped = True
                break


@njit(cache=True)
def apply(buf, cfg, nbr, diag, action):
    """Apply a legal action of the team to move (with the automatic Replaces, if that
    option is on). In simultaneous team play members use :func:`commit` instead."""
    _apply_one(buf, cfg, nbr, diag, action)
    if cfg[C_AUTO_REPLACE] and buf[M_PHASE] == PH_REGULAR and \
            action < 5 * cfg[C_N] * cfg[C_N]:             # after a Put, Move step or Landing
        _replace_closure(buf, cfg, nbr, diag)


@njit(cache=True)
def _apply_one(buf, cfg, nbr, diag, action):
    """Apply one legal action."""
    n = cfg[C_N]
    P = n * n
    team = buf[M_TEAM]
    colour = team + 1
    ob = META
    kind, x, y = decode(action, P, nbr)
    if kind == KIND_END:
        end_turn(buf, cfg)
        return
    if kind == KIND_SECRET:
        buf[_o(A_SECRET + team, P) + x] = 1
        buf[M_PICKS] -= 1
        if buf[M_PICKS] == 0:
            if team == cfg[C_FIRST]:
                buf[M_TEAM] = 1 - team
                buf[M_PICKS] = cfg[C_SECRETS]
            else:
                start_turn(buf, cfg, cfg[C_FIRST], PH_OPENING)
        return
    if kind == KIND_PUT:                                 # put, or a Landing's target
        buf[ob + x] = colour
        buf[M_COUNT + team] += 1
        buf[M_EMPTY] -= 1
        _arrive(buf, cfg, x, team)
        if buf[M_LIFTS] == 2:
            buf[M_LIFTS] = 0
        else:
            buf[M_PUT] -= 1
        buf[M_OPS] += 1
        if buf[M_PHASE] == PH_OPENING:
            if buf[M_PUT] == 0 or buf[M_EMPTY] == 0:
                end_turn(buf, cfg)
            return
        if buf[M_EMPTY] == 0:
            _after_fill(buf, cfg, nbr, diag)
        return
    if kind == KIND_MOVE:                                # one Move step
        buf[ob + x] = 0
        buf[ob + y] = colour
        buf[M_MOVE] -= 1
        buf[M_OPS] += 1
        _arrive(buf, cfg, y, team)
        return
    if kind == KIND_LIFT:                                # lift a chip for a Landing
        buf[ob + x] = 0
        buf[M_COUNT + team] -= 1
        buf[M_EMPTY] += 1
        buf[M_FULL] = 0                                  # (end_of_turn: no longer full)
        if buf[M_LIFTS] == 0:
            buf[M_LAND] -= 1
        buf[M_LIFTS] += 1
        return
    buf[ob + x] = colour                                 # replace
    buf[M_COUNT + team] += 1
    buf[M_COUNT + 1 - team] -= 1
    buf[M_REPLACED] += 1
    if buf[M_FULL] and cfg[C_END_CHECK] == END_AFTER_REPLACES and \
            not _any_replace(buf, cfg, nbr, diag, team):
        end_turn(buf, cfg)


# Simultaneous team play (RULES §4.4) ----------------------------------------------------


@njit(cache=True)
def is_legal(buf, cfg, nbr, diag, action):
    """Whether ``action`` is one of :func:`legal`'s actions now, asked of that action
    alone (the branches of :func:`legal`, in its order; tests/test_ctor_legal.py checks
    the two agree on every action of many positions)."""
    n = cfg[C_N]
    P = n * n
    if action < 0 or action > 8 * P:
        return False
    phase, team = buf[M_PHASE], buf[M_TEAM]
    colour = team + 1
    if phase == PH_OVER:
        return False
    kind, x, target = decode(action, P, nbr)
    if phase == PH_SECRET:
        return kind == KIND_SECRET and buf[_o(A_SECRET + team, P) + x] == 0
    if kind == KIND_SECRET:
        return False
    if buf[M_LIFTS] == 1:
        return kind == KIND_LIFT and buf[META + x] == colour
    if buf[M_LIFTS] == 2 or phase == PH_OPENING:
        return kind == KIND_PUT and buf[META + x] == 0
    if kind == KIND_END:
        return True
    if kind == KIND_REPLACE:
        return (buf[M_OPS] > 0 or cfg[C_AFTER_OP] == 0) and can_replace(buf, nbr, diag, x, team)
    if buf[M_FULL] != 0 and cfg[C_END_CHECK] != END_OF_TURN:
        return False
    if kind == KIND_PUT:
        return buf[M_PUT] > 0 and buf[META + x] == 0
    if kind == KIND_MOVE:
        return buf[M_MOVE] > 0 and buf[META + x] == colour and buf[META + target] == 0
    return buf[M_LAND] > 0 and buf[M_COUNT + team] >= 2 and buf[META + x] == colour


@njit(cache=True)
def apply_if_legal(buf, cfg, nbr, diag, action):
    """:func:`apply` of ``action`` if :func:`is_legal`; whether it was (one call for a
    checked move)."""
    if not is_legal(buf, cfg, nbr, diag, action):
        return False
    apply(buf, cfg, nbr, diag, action)
    return True


@njit(cache=True)
def in_round(buf, cfg):
    """Whether a simultaneous sub-round is open (a regular turn of a team of 2-3
    members with team_protocol=simultaneous)."""
    return cfg[C_SIM] != 0 and buf[M_PHASE] == PH_REGULAR and cfg[C_SIZE + buf[M_TEAM]] > 1


@njit(cache=True)
def _complete(buf, cfg, m):
    """Whether member ``m`` has committed a whole operation (a Landing is three actions)."""
    r = _r(m)
    count = buf[r + R_NPEND]
    if count == 0:
        return False
    P = cfg[C_N] * cfg[C_N]
    lifts = 0
    for i in range(count):
        if _kind(buf[r + R_PEND + i], P) == KIND_LIFT:
            lifts += 1
    return lifts == 0 or (lifts == 2 and count == 3)


@njit(cache=True)
def waiting(buf, cfg, out):
    """Write the members (0, 1, 2: seat - the team's first seat) who still have to
    commit in the open sub-round to ``out``; return how many."""
    if not in_round(buf, cfg):
        return 0
    k = 0
    for m in range(cfg[C_SIZE + buf[M_TEAM]]):
        if buf[_r(m) + R_ACTING] and not _complete(buf, cfg, m):
            out[k] = m
            k += 1
    return k


@njit(cache=True)
def pending(buf, m, out):
    """Write member ``m``'s pending (committed, unrevealed) actions to ``out``; how many."""
    r = _r(m)
    for i in range(buf[r + R_NPEND]):
        out[i] = buf[r + R_PEND + i]
    return buf[r + R_NPEND]


@njit(cache=True)
def _available(buf, cfg, m, kind):
    """Of quota ``kind`` (0 put, 1 move, 2 landing): what member ``m`` may still use,
    its share ceil(team quota / members) capped by what the team has left."""
    team = buf[M_TEAM]
    size = cfg[C_SIZE + team]
    quota = cfg[(C_QPUT if team == 0 else C_QPUT_2) + kind]
    share = (quota + size - 1) // size - buf[_r(m) + R_USED + kind]
    return max(0, min(share, buf[M_PUT + kind]))


@njit(cache=True)
def member_board(buf, cfg, nbr, diag, m, work):
    """``work`` = the position as member ``m`` sees its turn: its shares of the quotas
    as the quotas, its own pending actions done (its team mates' are hidden from it).

    Secret squares play no part here: should a pending Put fill the field and so end
    the turn in ``work``, the other team's secret squares must not flip in it.
    """
    work[:] = buf
    for kind in range(3):
        work[M_PUT + kind] = _available(buf, cfg, m, kind)
    work[M_LIFTS] = 0
    r = _r(m)
    if buf[r + R_NPEND] == 0:
        return
    quiet = cfg.copy()
    quiet[C_SECRETS] = 0
    for i in range(buf[r + R_NPEND]):
        apply(work, quiet, nbr, diag, buf[r + R_PEND + i])


@njit(cache=True)
def _fresh(buf, cfg):
    """Between sub-rounds: nobody has committed yet and no Put is being re-chosen."""
    if buf[M_RECHOOSE]:
        return False
    for m in range(cfg[C_SIZE + buf[M_TEAM]]):
        if buf[_r(m) + R_NPEND]:
            return False
    return True


@njit(cache=True)
def _member_legal(buf, cfg, nbr, diag, m, out, work):
    if not in_round(buf, cfg) or m >= cfg[C_SIZE + buf[M_TEAM]]:
        return 0
    r = _r(m)
    if not buf[r + R_ACTING] or _complete(buf, cfg, m):
        return 0
    P = cfg[C_N] * cfg[C_N]
    member_board(buf, cfg, nbr, diag, m, work)
    count = legal(work, cfg, nbr, diag, out)
    replaces = _fresh(buf, cfg)              # a Replace is team-level, between sub-rounds
    chooser = buf[r + R_CHOOSER]             # re-choosing a lost Put: Puts or end
    k = 0
    for i in range(count):
        kind = _kind(out[i], P)
        if kind == KIND_REPLACE and not replaces:
            continue
        if chooser and kind != KIND_PUT and kind != KIND_END:
            continue
        out[k] = out[i]
        k += 1
    return k


@njit(cache=True)
def member_legal(buf, cfg, nbr, diag, m, out):
    """Write member ``m``'s legal actions in the open sub-round to ``out``; how many
    (0 when it does not act: it has committed, or it is not re-choosing)."""
    work = np.empty_like(buf)
    return _member_legal(buf, cfg, nbr, diag, m, out, work)


@njit(cache=True)
def commit(buf, cfg, nbr, diag, m, action):
    """Member ``m`` commits a legal ``action`` (see :func:`member_legal`).

    A Replace happens at once (it is team-level). Anything else waits; when every
    acting member has a whole operation (or ``end``), the sub-round is resolved.
    """
    P = cfg[C_N] * cfg[C_N]
    if _kind(action, P) == KIND_REPLACE:
        apply(buf, cfg, nbr, diag, action)
        return
    r = _r(m)
    buf[r + R_PEND + buf[r + R_NPEND]] = action
    buf[r + R_NPEND] += 1
    for other in range(cfg[C_SIZE + buf[M_TEAM]]):
        if buf[_r(other) + R_ACTING] and not _complete(buf, cfg, other):
            return
    _resolve(buf, cfg, nbr, diag)


@njit(cache=True)
def _squares(buf, at, count, P, nbr, squares):
    """The squares of the operation of ``count`` actions at ``buf[at:]``; how many."""
    k = 0
    for i in range(count):
        kind, x, y = decode(buf[at + i], P, nbr)
        if kind == KIND_PUT or kind == KIND_LIFT or kind == KIND_REPLACE:
            squares[k] = x
            k += 1
        elif kind == KIND_MOVE:
            squares[k] = x
            squares[k + 1] = y
            k += 2
    return k


@njit(cache=True)
def _resolve(buf, cfg, nbr, diag):
    """Reveal the sub-round's operations and perform those that do not collide.

    In seat order: an operation sharing a square with one already performed in
    this reveal is lost (a Put of the larger team in an unequal game is
    re-chosen once, in a follow-up sub-round); the others run against the
    team's quotas, and one that has become illegal is lost. A sub-round in
    which every member skips (not a re-choice) ends the turn. Should an
    operation end the turn, the later ones are not made (their collisions are
    still noted, for the announcements).
    """
    P = cfg[C_N] * cfg[C_N]
    team, turn = buf[M_TEAM], buf[M_TURNS]
    size = cfg[C_SIZE + team]
    may_rechoose = cfg[C_SIZE] != cfg[C_SIZE_2] and size == max(cfg[C_SIZE], cfg[C_SIZE_2])
    rechoice = buf[M_RECHOOSE]
    taken = np.zeros(P, np.int32)                  # member + 1 that performed on a square
    squares = np.empty(6, np.int32)
    out = np.empty(8 * P + 1, np.int32)
    trial = np.empty_like(buf)
    lost = np.zeros(MAX_MEMBERS, np.int32)
    buf[M_ROUNDS] += 1
    for m in range(MAX_MEMBERS):                   # what the reveal shows (kept: the
        r = _r(m)                                  # turn may end, and the round reset)
        buf[r + R_OUTCOME] = OUT_NONE
        buf[r + R_LOST_TO] = -1
        buf[r + R_NSHOWN] = buf[r + R_NPEND] if buf[r + R_ACTING] else 0
        for i in range(3):
            buf[r + R_SHOWN + i] = buf[r + R_PEND + i]
    acting = skipped = relost = 0
    ended = False
    for m in range(size):
        r = _r(m)
        shown = buf[r + R_NSHOWN]
        if shown == 0:
            continue
        acting += 1
        first = _kind(buf[r + R_SHOWN], P)
        if shown == 1 and first == KIND_END:
            skipped += 1
            buf[r + R_OUTCOME] = OUT_SKIP
            continue
        count = _squares(buf, r + R_SHOWN, shown, P, nbr, squares)
        hit = -1
        for i in range(count):
            if taken[squares[i]]:
                hit = taken[squares[i]] - 1
                break
        if hit >= 0:
            buf[r + R_LOST_TO] = hit
            if first == KIND_PUT and may_rechoose and not buf[r + R_CHOOSER] and not ended:
                lost[m] = 1
                relost += 1
                buf[r + R_OUTCOME] = OUT_RECHOOSE
            else:
                buf[r + R_OUTCOME] = OUT_COLLIDED
            continue
        if ended:                                  # the turn is over: not made
            continue
        for i in range(count):
            taken[squares[i]] = m + 1
        trial[:] = buf
        ok = True
        for i in range(shown):
            action = buf[r + R_SHOWN + i]
            k = legal(trial, cfg, nbr, diag, out)
            found = False
            for j in range(k):
                if out[j] == action:
                    found = True
                    break
            if not found:
                ok = False
                break
            apply(trial, cfg, nbr, diag, action)
        if not ok:
            buf[r + R_OUTCOME] = OUT_ILLEGAL
            continue
        buf[:] = trial
        buf[r + R_OUTCOME] = OUT_DONE
        if buf[M_PHASE] == PH_OVER or buf[M_TEAM] != team or buf[M_TURNS] != turn:
            ended = True                           # the turn ended (a new round is set)
        else:
            buf[r + R_USED + (2 if first == KIND_LIFT else first)] += 1   # put, move, landing
    if ended:
        return
    for m in range(MAX_MEMBERS):
        r = _r(m)
        buf[r + R_NPEND] = 0
        for i in range(3):
            buf[r + R_PEND + i] = 0
    if relost:
        buf[M_RECHOOSE] = 1
        for m in range(MAX_MEMBERS):
            buf[_r(m) + R_ACTING] = lost[m]
            buf[_r(m) + R_CHOOSER] = lost[m]
        return
    buf[M_RECHOOSE] = 0
    for m in range(MAX_MEMBERS):
        buf[_r(m) + R_ACTING] = 1 if m < size else 0
        buf[_r(m) + R_CHOOSER] = 0
    if skipped == acting and not rechoice:
        end_turn(buf, cfg)


# Random play ------------------------------------------------------------------------------

@njit(cache=True)
def playout(buf, cfg, nbr, diag, seed):
    """Uniformly random legal actions to the end; returns the actions made.

    In simultaneous team play a random waiting member commits a random one of
    its legal actions (as :meth:`State.played_out` picks them).
    """
    return guided_playout(buf, cfg, nbr, diag, seed, 0)


# what the guided playout makes of an action, by kind (put, move, lift, replace, end, secret)
WORTH = np.array([1, 0, -1, 2, 0, 0], dtype=np.int64)


# the tactical playout's worths (:func:`tactical_worth`)
T_REPLACE, T_PUT, T_ENABLES, T_DANGER = 100, 20, 10, 15


@njit(cache=True)
def count_around(buf, P, nbr, diag, cnt):
    """``cnt[c, x]``: how many chips of colour ``c + 1`` the 8 neighbours of ``x`` hold."""
    cnt[:, :] = 0
    for x in range(P):
        c = buf[META + x]
        if c != 0:
            for d in range(4):
                cnt[c - 1, nbr[x, d]] += 1
                cnt[c - 1, diag[x, d]] += 1


@njit(cache=True, inline="always")
def _touching(x, z, nbr, diag):
    """Whether squares ``x`` and ``z`` are the same or 8-neighbours on the torus."""
    if z == x:
        return True
    for d in range(4):
        if nbr[x, d] == z or diag[x, d] == z:
            return True
    return False


@njit(cache=True, inline="always")
def _made_replaceable(buf, nbr, diag, cnt, team, at, away, was):
    """Opponent chips around ``at`` (not touching ``away``, if >= 0) that have ``was``
    chips of ``team`` around them."""
    k = 0
    opp = 2 - team
    for d in range(4):
        for z in (nbr[at, d], diag[at, d]):
            if buf[META + z] == opp and cnt[team, z] == was and \
                    (away < 0 or not _touching(away, z, nbr, diag)):
                k += 1
    return k


@njit(cache=True)
def tactical_worth(buf, cfg, nbr, diag, cnt, action):
    """What the tactical playout makes of a legal ``action`` of the team to move, from
    the chips around the squares it touches (``cnt``: :func:`count_around` now):

    * a Replace: ``T_REPLACE`` (more than anything else);
    * a Put: ``T_PUT``, plus ``T_ENABLES`` for each opponent chip next to it that the
      new chip makes replaceable, plus one for each own chip next to it, less
      ``T_DANGER`` if the opponent could replace the new chip;
    * a Move step: ``T_ENABLES`` for each opponent chip it makes replaceable (less for
      each it makes safe again), plus ``T_DANGER`` if it takes its chip out of reach
      of a Replace (less, if it moves it into reach);
    * the end of the turn and a secret pick: 0; a Landing's lift: -1."""
    n = cfg[C_N]
    P = n * n
    team = buf[M_TEAM]
    kind, x, y = decode(action, P, nbr)
    if kind == KIND_REPLACE:
        return np.int64(T_REPLACE)
    if kind == KIND_LIFT:
        return np.int64(-1)
    if kind == KIND_PUT:
        worth = T_PUT + T_ENABLES * _made_replaceable(buf, nbr, diag, cnt, team, x, -1, 4) \
            + cnt[team, x]
        if cnt[1 - team, x] >= 5:
            worth -= T_DANGER
        return np.int64(worth)
    if kind == KIND_MOVE:
        worth = T_ENABLES * (_made_replaceable(buf, nbr, diag, cnt, team, y, x, 4)
                             - _made_replaceable(buf, nbr, diag, cnt, team, x, y, 5))
        worth += T_DANGER * ((cnt[1 - team, x] >= 5) - (cnt[1 - team, y] >= 5))
        return np.int64(worth)
    return np.int64(0)


@njit(cache=True)
def guided_playout(buf, cfg, nbr, diag, seed, greed, tactical=False, stop=-1):
    """Play to the end, with probability ``greed`` in 1000 the action worth most, else
    any legal action; returns the actions made. The worth is by kind (``WORTH``: a
    Replace, else a Put, else a Move step or the end of the turn, a Landing last; the
    one of that kind at random) or, ``tactical``, :func:`tactical_worth`'s (ties at
    random). Greed 0 is :func:`playout`. In simultaneous team play every choice is random.
    ``stop`` >= 0: stop as well once that many turns have ended, the next turn begun.
    """
    P = cfg[C_N] * cfg[C_N]
    out = np.empty(8 * P + 1, np.int32)
    worth = np.empty(8 * P + 1, np.int64)
    members = np.empty(MAX_MEMBERS, np.int32)
    work = np.empty_like(buf)
    cnt = np.zeros((2, P if tactical else 1), np.int32)     # (used by tactical only)
    s = rng_seed(seed)
    moves = 0
    while buf[M_PHASE] != PH_OVER and (stop < 0 or buf[M_TURNS] < stop):
        if cfg[C_SIM] and in_round(buf, cfg):
            k = waiting(buf, cfg, members)
            s = rng_next(s)
            m = members[rng_below(s, k)]
            k = _member_legal(buf, cfg, nbr, diag, m, out, work)
            s = rng_next(s)
            commit(buf, cfg, nbr, diag, m, out[rng_below(s, k)])
        else:
            k = legal(buf, cfg, nbr, diag, out)
            s = rng_next(s)
            pick = rng_below(s, k)
            if greed > 0:              # (greed 0 draws as the random playout always did)
                s = rng_next(s)
                if k > 1 and rng_below(s, 1000) < greed:
                    if tactical:
                        count_around(buf, P, nbr, diag, cnt)
                    for i in range(k):
                        if tactical:
                            worth[i] = tactical_worth(buf, cfg, nbr, diag, cnt, out[i])
                        else:
                            worth[i] = WORTH[_kind(out[i], P)]
                    pick, s = pick_best(worth, k, s)
            apply(buf, cfg, nbr, diag, out[pick])
        moves += 1
    return moves


@njit(cache=True)
def playouts(buf, cfg, nbr, diag, count, seed):
    """``count`` random games from copies of ``buf``; returns the actions made."""
    moves = 0
    for i in range(count):
        work = buf.copy()
        moves += playout(work, cfg, nbr, diag, seed * 1000003 + i)
    return moves


# Reading the sub-round (for the Python side) ---------------------------------------------

@njit(cache=True)
def revealed(buf, m, out):
    """Member ``m`` in the last resolved sub-round: writes the operation it had
    committed to ``out`` and returns ``(outcome, lost_to, count)`` (OUT_* code,
    the member whose performed operation took its square or -1, actions in out)."""
    r = _r(m)
    for i in range(buf[r + R_NSHOWN]):
        out[i] = buf[r + R_SHOWN + i]
    return buf[r + R_OUTCOME], buf[r + R_LOST_TO], buf[r + R_NSHOWN]


@njit(cache=True)
def pending_total(buf, cfg):
    """How many actions the members have committed in the open sub-round."""
    total = 0
    for m in range(MAX_MEMBERS):
        total += buf[_r(m) + R_NPEND]
    return total
