"""The Python search tree's node, and the small operations on it that search shares.

A :class:`Node` keeps the statistics of its tried actions in arrays (``mcts_tree``),
its children by action (and by the move's text, which tree reuse follows) and the
solver's marks (see :mod:`.solver`).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from . import mcts_tree as tree


class Node:
    """One tree node: its children, the statistics of its tried actions, the solver's marks.

    ``stats`` reads (and, for tests and tools, sets) the statistics as a dict
    ``{action: [visits, value, available]}`` in the order the actions were first
    tried; the search keeps them in arrays (``mcts_tree``): ``slots`` maps an
    action to its column of ``table``, ``where`` the current legal list (``legal``,
    ``acts``, for ``mover``) to those columns, ``open`` counts its untried actions.
    Where a node always stands for the same position (``MCTS.fixed``) it also
    keeps who acts there: ``player`` and ``acting``. The listed walk
    (``MCTS._iterate_listed``) keeps ``slot_map`` instead of ``where``: every
    action's column, or ``mcts_tree.UNTRIED``.

    The solver's marks (``MCTS.solving`` only; else they stay empty):
    ``proven`` is the node's value, one return per seat, once it is known (the
    game is over there, or ``solver.prove`` showed it); ``best`` is then the action
    that achieves it and ``plies`` how many moves its proof takes to the end.
    ``lost`` holds the actions whose child is a proven loss for the node's mover
    (the lowest return the game gives); ``mask`` flags them in the legal list.
    """

    __slots__ = ("children", "proven", "best", "plies", "lost", "slots", "table", "where",
                 "legal", "acts", "mover", "open", "mask", "player", "acting", "logits",
                 "prior", "slot_map")

    def __init__(self):
        self.children: dict = {}
        self.proven: tuple | None = None
        self.best: int | None = None
        self.plies = 0
        self.lost: set | None = None
        self.slots: Any = None             # action -> column of table, once visited
        # None until the node's first pass (see the class's text): arrays, or a list
        self.table: Any = None
        self.where: Any = None
        self.legal: Any = None
        self.acts: Any = None
        self.mask: Any = None
        self.mover: int | None = None
        self.player: int | None = None
        self.acting: list | None = None
        self.open = 0
        self.logits: Any = None             # a network's scores of every action, the
        self.prior: Any = None              # priors of the legal ones (PUCT): see choose
        self.slot_map: Any = None           # by action, MCTS._iterate_listed's only

    @property
    def stats(self) -> dict:
        if not self.slots:
            return {}
        used, table = len(self.slots), self.table
        visits = table[tree.VISITS, :used].tolist()
        values = table[tree.VALUE, :used].tolist()
        available = table[tree.AVAILABLE, :used].tolist()
        return {action: [int(v), w, int(a)]
                for action, v, w, a in zip(self.slots, visits, values, available)}

    @stats.setter
    def stats(self, entries: dict):
        self.slots = {action: slot for slot, action in enumerate(entries)}
        self.table = np.zeros((3, max(len(entries), 1)))
        for slot, (visits, value, available) in enumerate(entries.values()):
            self.table[:, slot] = visits, value, available
        self.where = self.legal = self.acts = self.mask = self.mover = self.slot_map = None

    def entries(self, actions) -> tuple[list, list]:
        """The visits and values of those of ``actions`` that were tried, in their order."""
        slots = self.slots or {}
        chosen = [slots[a] for a in actions if a in slots]
        if not chosen:
            return [], []
        return ([int(v) for v in self.table[tree.VISITS].take(chosen).tolist()],
                self.table[tree.VALUE].take(chosen).tolist())

    def legal_list(self) -> list:
        """The legal actions of the last pass (for the solver)."""
        return self.legal if self.acts is None else self.acts.tolist()

    def know_legal(self, legal, mover, keep: bool):
        """Map the legal list of this pass to the statistics. ``keep``: remember the list
        itself (to compare the next pass's with), else only as an array (``acts``)."""
        slots = self.slots
        if slots is None:                        # a new node: nothing tried yet
            self.slots, self.table = {}, np.zeros((3, 4))
            self.where, self.open = tree.untried_row(len(legal)), len(legal)
        else:
            where = [slots.get(a, tree.UNTRIED) for a in legal]
            self.where = np.array(where, dtype=np.int32)
            self.open = where.count(tree.UNTRIED)
        self.legal = list(legal) if keep else None  # a copy: the game may reuse its list
        self.acts = None if keep else np.array(legal, dtype=np.int32)
        self.mover = mover
        self.mask = self.prior = None

    def _lost_mask(self):
        mask = self.mask
        if mask is None:
            lost = self.lost or set()
            mask = np.array([a in lost for a in self.legal_list()], dtype=np.uint8)
            if mask.all():
                mask = tree.NO_MASK              # all lost: choose among them all
            self.mask = mask
        return mask

    def choose(self, c, rng, puct=None, urgency=0.0) -> tuple[int, int, bool]:
        """One pass: count the tried legal actions available, choose an action.

        The proven best action of a proven node; else, where the node has a
        network's ``logits`` and ``puct`` is (c_puct, fpu_reduction), the best by
        PUCT over its priors (``mcts_tree.select_puct``); else an untried legal
        action (uniformly), else the best by UCB among the legal ones (with
        ``urgency`` > 0 an untried action only while no tried one scores that
        much by UCB: ``mcts_tree.select``); proven losses only where all are.
        Returns (action, its slot, whether it was untried: it now has a slot
        with no visit yet).
        """
        where, table, used = self.where, self.table, len(self.slots)
        mask, k, pick = tree.NO_MASK, -1, -1
        if self.best is None and puct is not None and self.logits is not None:
            if self.prior is None:
                self.prior = tree.softmax_of(self.logits, self.legal_list())
            if self.lost:
                mask = self._lost_mask()
            if used == table.shape[1]:
                table = self.table = np.concatenate((table, np.zeros_like(table)), axis=1)
            i, slot = tree.select_puct(where, table, self.prior, mask, puct[0], puct[1], used)
        else:
            if self.best is not None:
                pick = self.legal_list().index(self.best)
            elif not self.lost:
                if self.open:
                    k = rng.choice(range(self.open))
            else:
                mask = self._lost_mask()
                count = tree.untried(where, mask)
                if count:
                    k = rng.choice(range(count))
            if (k >= 0 or pick >= 0) and used == table.shape[1]:    # room for a new column
                table = self.table = np.concatenate((table, np.zeros_like(table)), axis=1)
            i, slot = tree.select(where, table, mask, c, tree.LOGS, k, pick, used, urgency)
        action = self.legal[i] if self.acts is None else self.acts.item(i)
        if slot < used:
            return action, slot, False
        self.slots[action] = slot
        self.open -= 1
        return action, slot, True

    def leader(self, allowed: set, lost) -> int:
        """The tried action of ``allowed`` the root would play: not proven lost, most
        visited, highest value, the first tried of equals (ValueError if none)."""
        slots = self.slots or {}
        skip = np.zeros(len(slots), dtype=np.uint8)
        for action in lost:
            if action in slots:
                skip[slots[action]] = 1
        if not allowed.issuperset(slots):
            for slot, action in enumerate(slots):
                if action not in allowed:
                    skip[slot] = 2
        slot = tree.leader(self.table, len(slots), skip) if slots else -1
        if slot < 0:
            raise ValueError("no tried action is allowed")
        return list(slots)[slot]


def map_slots(node, size):
    """Give ``node`` its ``slot_map`` (``size`` actions), and its statistics if new."""
    node.slot_map = tree.new_slot_map(size)
    if node.slots is None:                   # a new node: nothing tried yet
        node.slots, node.table = {}, np.zeros((3, 4))
    for action, slot in node.slots.items():
        node.slot_map[action] = slot


def info_node(node, key):
    """``node`` as seen by its mover holding private information ``key``."""
    child = node.children.get(("info", key))
    if child is None:
        child = node.children[("info", key)] = Node()
    return child


def child_of(node, state, action, mover, player):
    """Apply ``action`` to ``state`` and return ``node``'s child for it (made if new).

    ``action`` comes from the state's own legal list (or chance outcomes), so it is
    applied unchecked (``player``: the state's ``current_player()``). A new child is
    also filed under the move's text, which tree reuse follows.
    """
    child = node.children.get(action)
    if child is not None:
        state.apply_unchecked(action, mover, player)
        return child
    text = state.action_to_string(action)
    state.apply_unchecked(action, mover, player)
    child = node.children[action] = node.children[("text", text)] = Node()
    return child


def pooled(roots, legal):
    """``roots[0]``, or with several trees a node whose root statistics are their sums."""
    if len(roots) == 1:
        return roots[0]
    sums: dict = {}
    for root in roots:
        for action, (visits, value, available) in root.stats.items():
            if action in legal:
                entry = sums.setdefault(action, [0, 0.0, 0])
                entry[0] += visits
                entry[1] += value
                entry[2] += available
    node = Node()
    node.stats = sums
    return node


def mover_of(state):
    """The seat that acts at ``state`` (the first, where several act); None at the end."""
    seats = state.acting_seats()
    return seats[0] if seats else None
