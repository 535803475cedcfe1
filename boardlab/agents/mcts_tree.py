"""Compiled pieces of the MCTS tree: a node's statistics kept in arrays.

A node of :mod:`boardlab.agents.mcts` keeps the statistics of its tried
actions in one float64 array ``table`` of shape (3, capacity): row
``VISITS``, row ``VALUE`` (the sum of the mover's returns) and row
``AVAILABLE`` (in how many passes through the node the action was legal),
one column (slot) per tried action in the order they were first tried.
``where`` maps the position of each legal action in the current legal list
to its slot, or -1 while the action is untried; ``lost`` is an empty array,
or one flag per legal position for the actions proven lost that selection
must skip (never all of them: the caller drops a mask where every action
is lost).

The functions here are the selection of one pass through a node (``select``;
``visit`` and ``try_untried`` for a node kept by action, whose legal actions
come as an array: ``MCTS._iterate_listed``) and the choice of the move at the
root. UCB sums exactly as in plain Python
(``value / visits + c * sqrt(log(max(available, 1)) / visits)``, first
highest score in legal order), the logarithms read from ``LOGS``, a table
of ``math.log`` values that :func:`logs_for` extends as searches grow.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

VISITS, VALUE, AVAILABLE = 0, 1, 2
UNTRIED = -1            # ``where`` of an action not tried yet
NO_MASK = np.zeros(0, dtype=np.uint8)
_UNTRIED_ROW = np.full(256, UNTRIED, dtype=np.int32)


def untried_row(size: int) -> np.ndarray:
    """A new ``where`` of ``size`` untried actions."""
    if size <= len(_UNTRIED_ROW):
        return _UNTRIED_ROW[:size].copy()
    return np.full(size, UNTRIED, dtype=np.int32)


def _log_table(size: int) -> np.ndarray:
    """``math.log(max(k, 1))`` for k in 0..size-1, computed by Python's own ``math.log``."""
    return np.array([0.0] + [math.log(k) for k in range(1, size)], dtype=np.float64)


LOGS = _log_table(1 << 12)


def logs_for(count: int) -> np.ndarray:
    """The logarithm table, first extended (doubled) until it covers ``count``."""
    global LOGS
    if count >= len(LOGS):
        size = len(LOGS)
        while size <= count:
            size *= 2
        LOGS = _log_table(size)
    return LOGS


@njit(cache=True)
def _slot_of(where, table, chosen, used):
    """The column of the chosen legal position: a new one (``used``) if it was untried."""
    if chosen < 0:
        raise IndexError("no legal action to choose")
    slot = np.int64(where[chosen])
    if slot < 0:
        slot = used
        where[chosen] = used
        table[AVAILABLE, slot] = 1.0
    return slot


@njit(cache=True, inline="always")
def _ucb(table, s, c, logs):
    """The UCB score of the tried action in column ``s``."""
    visits = table[VISITS, s]
    available = table[AVAILABLE, s]
    if available < 1.0:
        available = 1.0
    count = int(available)
    log = logs[count] if count < logs.shape[0] else math.log(available)
    return table[VALUE, s] / visits + c * math.sqrt(log / visits)


@njit(cache=True)
def select(where, table, lost, c, logs, k, pick, used, urgency=0.0):
    """One pass through a node: count it, choose a legal position, try it if new.

    Every tried legal action gets one more ``AVAILABLE``. The position chosen is
    ``pick`` if it is not negative; else with ``k >= 0`` that of the k-th untried
    action not in ``lost`` (in legal order); else that of the highest UCB score
    among the actions not in ``lost``, which must all be tried (ties: the first).
    With ``urgency > 0`` (first-play urgency) an untried action is an untried
    action's score: the k-th untried one is chosen only while no tried action
    scores ``urgency`` or more, else the best tried one is.
    An untried action chosen gets the column ``used`` (zero visits and value, one
    available), which must exist. Returns (the position, its column).
    """
    n = where.shape[0]
    for i in range(n):
        s = where[i]
        if s >= 0:
            table[AVAILABLE, s] += 1.0
    masked = lost.shape[0] == n
    chosen = pick
    if chosen < 0 and k >= 0 and urgency > 0.0:
        best_score = -np.inf
        for i in range(n):
            if where[i] < 0 or masked and lost[i]:
                continue
            score = _ucb(table, where[i], c, logs)
            if score > best_score:
                chosen, best_score = i, score
        if best_score < urgency:
            chosen = -1                  # no tried action is urgent enough: a new one
        else:
            k = -1
    if chosen < 0 and k >= 0:
        for i in range(n):
            if where[i] < 0 and not (masked and lost[i]):
                if k == 0:
                    chosen = i
                    break
                k -= 1
    elif chosen < 0:
        best_score = -np.inf
        for i in range(n):
            if masked and lost[i]:
                continue
            score = _ucb(table, where[i], c, logs)
            if score > best_score:
                chosen, best_score = i, score
    return chosen, _slot_of(where, table, chosen, used)


# A node kept by action (``MCTS._iterate_listed``): ``slot_map[action]`` is the action's
# column, or UNTRIED, and the legal actions are the first ``count`` of an array.

def new_slot_map(size: int) -> np.ndarray:
    """A node's map from every action to its column: all untried."""
    return np.full(size, UNTRIED, dtype=np.int32)


@njit(cache=True)
def visit(slot_map, table, acts, count, c, logs):
    """:func:`select` for a node kept by action, whose legal actions are
    ``acts[:count]``, first part: count the pass (every tried legal action gets one
    more ``AVAILABLE``); with untried actions, return minus their number (the caller
    draws which and calls :func:`try_untried`); else choose by UCB as :func:`select`
    does (ties: the first in legal order), count the simulation's visit to it (the
    caller adds its value) and return ``action << 32 | column``."""
    untried = 0
    for i in range(count):
        s = slot_map[acts[i]]
        if s >= 0:
            table[AVAILABLE, s] += 1.0
        else:
            untried += 1
    if untried:
        return -untried
    chosen, best_score = -1, -np.inf
    for i in range(count):
        score = _ucb(table, slot_map[acts[i]], c, logs)
        if score > best_score:
            chosen, best_score = i, score
    if chosen < 0:
        raise IndexError("no legal action to choose")
    action = np.int64(acts[chosen])
    slot = np.int64(slot_map[action])
    table[VISITS, slot] += 1.0
    return action << 32 | slot


@njit(cache=True)
def try_untried(slot_map, table, acts, count, k, used):
    """:func:`visit`'s second part: the k-th untried action of ``acts[:count]`` (in legal
    order) gets the column ``used`` (zero value, one available and the simulation's
    visit), which must exist; returns the action."""
    for i in range(count):
        action = acts[i]
        if slot_map[action] < 0:
            if k == 0:
                slot_map[action] = used
                table[AVAILABLE, used] = 1.0
                table[VISITS, used] = 1.0
                return action
            k -= 1
    raise IndexError("no untried action to choose")


def softmax_of(logits: np.ndarray, actions) -> np.ndarray:
    """The priors of ``actions``: the softmax of their ``logits`` (float64)."""
    chosen = logits.take(np.asarray(actions, dtype=np.int64)).astype(np.float64)
    if not len(chosen):
        return chosen
    chosen -= chosen.max()
    np.exp(chosen, out=chosen)
    total = chosen.sum()
    return chosen / total if total > 0 and math.isfinite(total) else \
        np.full(len(chosen), 1.0 / len(chosen))


@njit(cache=True)
def select_puct(where, table, prior, lost, c, fpu_reduction, used):
    """One pass through a node with priors (PUCT): count it, choose a legal position.

    Every tried legal action gets one more ``AVAILABLE``. The score of a legal
    position not in ``lost`` is ``q + c * prior * sqrt(n) / (1 + visits)``: ``q`` its
    mean value, or for an untried action the node's mean value less
    ``fpu_reduction`` (0 before any visit); ``n`` the visits of its tried actions.
    The highest wins (ties: the first); an untried one gets the column ``used``.
    Returns (the position, its column).
    """
    n = where.shape[0]
    total, value = 0.0, 0.0
    for i in range(n):
        s = where[i]
        if s >= 0:
            table[AVAILABLE, s] += 1.0
            total += table[VISITS, s]
            value += table[VALUE, s]
    fpu = value / total - fpu_reduction if total > 0.0 else 0.0
    root = math.sqrt(total if total > 1.0 else 1.0)
    masked = lost.shape[0] == n
    chosen, best_score = -1, -np.inf
    for i in range(n):
        if masked and lost[i]:
            continue
        s = where[i]
        visits = 0.0
        q = fpu
        if s >= 0:
            visits = table[VISITS, s]
            if visits > 0.0:
                q = table[VALUE, s] / visits
        score = q + c * prior[i] * root / (1.0 + visits)
        if score > best_score:
            chosen, best_score = i, score
    return chosen, _slot_of(where, table, chosen, used)


@njit(cache=True)
def untried(where, lost):
    """How many legal actions are untried and not in ``lost``."""
    n = where.shape[0]
    masked = lost.shape[0] == n
    count = 0
    for i in range(n):
        if where[i] < 0 and not (masked and lost[i]):
            count += 1
    return count


@njit(cache=True)
def leader(table, used, skip):
    """The slot the root would play: among the ``used`` slots whose ``skip`` is not 2
    (not allowed), the highest (``skip`` is 0: not proven lost, visits, value), the
    first of equals; -1 if none is allowed."""
    best = -1
    best_open, best_visits, best_value = 0, 0.0, 0.0
    for s in range(used):
        if skip[s] == 2:
            continue
        is_open = 1 if skip[s] == 0 else 0
        visits, value = table[VISITS, s], table[VALUE, s]
        if best < 0 or is_open > best_open or is_open == best_open and (
                visits > best_visits or visits == best_visits and value > best_value):
            best, best_open, best_visits, best_value = s, is_open, visits, value
    return best
