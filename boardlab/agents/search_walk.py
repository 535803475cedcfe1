"""One simulation of the Python tree: selection, expansion, evaluation, back-up.

:class:`TreeWalk` is the walk of ``mcts`` (a mixin of ``MCTS``): ``_iterate`` over any
game, ``_iterate_listed`` the quicker walk over a state that lists its legal actions
in an array.
"""
from __future__ import annotations

import random
from typing import Any

import numpy as np

from ..core.game import CHANCE, SIMULTANEOUS, TERMINAL, Game
from . import mcts_tree as tree
from .search_node import Node, child_of, info_node, map_slots
from .solver import Solver


class TreeWalk(Solver):
    """The simulations of the Python tree (see the module); proofs found at the end of
    a walk go up its path (``Solver._prove_path``)."""

    game: Game
    seat: int
    options: dict
    rng: random.Random
    evaluator: Any                  # an Evaluator; a GuidingEvaluator where guided
    fixed: bool
    listed: bool
    guided: bool
    solving: bool
    split: frozenset
    puct: tuple | None

    def _iterate(self, root, state):
        """One simulation from ``root``, whose position is ``state`` (played on here).

        With ``self.fixed`` a node keeps who acts at its position and the legal
        actions there (``Node.player``, ``acting``, ``know_legal``) instead of asking
        the state again at every pass.
        """
        if self.listed:
            return self._iterate_listed(root, state)
        c, rng, fixed = self.options["c"], self.rng, self.fixed
        urgency = self.options["urgency"]
        path, node = [], root
        while True:
            if fixed and node.player is not None:
                player, acting = node.player, node.acting
            else:
                player = state.current_player()
                acting = [player] if player >= 0 else \
                    state.acting_seats() if player == SIMULTANEOUS else []
                if fixed:
                    node.player, node.acting = player, acting
            if player == TERMINAL:
                break
            if player == CHANCE:                 # a chance node: sample, keep no statistics
                node = child_of(node, state, state.sample_chance(rng), None, CHANCE)
                continue
            mover = acting[0]
            if node is root and self.seat in acting:
                mover = self.seat                # several act at once: search for itself
            if mover in self.split and (node is not root or mover != self.seat):
                node = info_node(node, state.private_key(mover))
            if not fixed:                        # one seat acts: it is the mover
                legal = state.legal_actions() if player >= 0 else \
                    state.legal_actions_for(mover)
                if node.where is None or node.legal != legal:
                    node.know_legal(legal, mover, keep=True)
            elif node.where is None or node.mover != mover:
                node.know_legal(state.legal_actions_for(mover), mover, keep=False)
            action, slot, expanding = node.choose(c, rng, self.puct, urgency)
            path.append((node, slot, action, mover))
            node = child_of(node, state, action, mover, player)
            if expanding:
                break
        if state.is_terminal():
            returns = state.returns()
            if self.solving and node.proven is None:
                node.proven = tuple(returns)
                self._prove_path(path)
        elif self.guided:
            returns, node.logits = self.evaluator.evaluate_with_priors(state, rng)
        else:
            returns = self.evaluator.evaluate(state, rng)
        for node, slot, _, mover in path:
            table = node.table
            table[tree.VISITS, slot] += 1.0
            table[tree.VALUE, slot] += returns[mover]
        return returns

    def _iterate_listed(self, root, state):
        """:meth:`_iterate` on a state that lists its legal actions in an array and moves
        on in one step (``search_listed``, ``search_step``: Cartagena's kernel; seats
        that take turns, no chance or simultaneous moves), for plain UCT (no solver,
        no priors): each node keeps its columns by action (``Node.slot_map``) instead
        of mapping each new legal list, and selection is ``mcts_tree.visit`` (then
        ``try_untried``): the same choices, statistics and random numbers as
        ``Node.choose`` (tests/test_search_listed.py).
        """
        c, rng, logs, split = self.options["c"], self.rng, tree.LOGS, self.split
        path, node = [], root
        player, count, acts = state.search_listed()
        while player >= 0:
            mover = player
            if mover in split and (node is not root or mover != self.seat):
                node = info_node(node, state.private_key(mover))
            if node.slot_map is None:
                map_slots(node, self.game.num_actions)
            table = node.table
            code = tree.visit(node.slot_map, table, acts, count, c, logs)
            if code >= 0:
                action, slot, expanding = code >> 32, code & 0xFFFFFFFF, False
            else:                                # untried actions: one of them, at random
                k = rng.choice(range(-code))
                slot = len(node.slots)
                if slot == table.shape[1]:       # room for a new column
                    table = node.table = np.concatenate((table, np.zeros_like(table)), axis=1)
                action = int(tree.try_untried(node.slot_map, table, acts, count, k, slot))
                node.slots[action] = slot
                expanding = True
            path.append((node, slot, action, mover))
            child = node.children.get(action)
            if child is None:                    # also filed under its text (tree reuse)
                text = state.action_to_string(action)
                child = node.children[action] = node.children[("text", text)] = Node()
            player, count = state.search_step(action, player)
            node = child
            if expanding:
                break
        if player == TERMINAL:
            returns = state.returns()
        elif player >= 0:
            returns = self.evaluator.evaluate(state, rng)
        else:
            raise ValueError(f"{self.game.spec}: search_step gave player {player} (only "
                             f"games whose seats take turns list their moves)")
        for node, slot, _, mover in path:        # (visit counted the visits)
            node.table[1, slot] += returns[mover]     # tree.VALUE
        return returns
