"""The MCTS-solver: proofs of won and lost positions in the Python tree.

In perfect-information games of two sides a node whose game-theoretic value is known
(the game ended there, its mover has a proven win, or all its moves are proven) is
marked ``proven`` (:func:`prove`); selection then never enters a proven loss while a
move is left that is not one, follows a proven win at once, and the move played
(:meth:`Solver._choice`) is a proven win when there is one and never a proven loss
while another move is not proven lost.
"""
from __future__ import annotations

from ..core.game import Game
from .search_node import Node, mover_of


def prove(node, action, legal, mover, bounds) -> bool:
    """Take in that ``node``'s child for ``action`` is proven; whether ``node`` now is.

    ``node`` is a decision node of ``mover`` with the ``legal`` actions, and
    ``bounds`` the game's lowest and highest return. A child that gives the mover
    the highest return proves the node at once (the mover takes it); one that
    gives the lowest is a proven loss, never chosen while another move is not;
    once every legal action is proven, the node is worth the best of them for
    its mover, and of several losses the one that ends the game latest (the
    opponent must still find the win: a pass that the reply pass wins loses in
    two moves). In a game of two sides that is minimax, so the proof is sound.
    """
    if node.proven is not None:
        return False
    children = node.children
    value = children[action].proven
    if value[mover] >= bounds[1]:
        settle(node, action)
        return True
    if value[mover] <= bounds[0]:
        node.lost = node.lost or set()
        node.lost.add(action)
        node.mask = None                     # selection's flags of the lost actions
    if any(a not in children or children[a].proven is None for a in legal):
        return False

    def rank(a):
        worth = children[a].proven[mover]
        return worth, children[a].plies if worth <= bounds[0] else 0
    settle(node, max(legal, key=rank))
    return True


def settle(node, action):
    """``node`` is proven: worth its child for ``action``, one move more to the end."""
    child = node.children[action]
    node.proven, node.best, node.plies = child.proven, action, child.plies + 1


class Solver:
    """The solver's part of a search agent (a mixin of ``MCTS``, used where
    ``solving``): the looks ahead at the root and the proofs carried up a path."""

    game: Game
    solving: bool
    _checked: set

    def _choice(self, root, base, legal) -> int:
        """The move the search would play now from ``root`` (the position ``base``).

        A proven win if there is one; else the most visited move not proven lost
        (``act`` plays an unsearched move rather than a searched one proven lost);
        where every move is proven, the best of them (``prove``). Before a move is
        chosen, its replies are looked at once (``_check``): one that ends the game
        in the opponent's favour makes it a proven loss, and the next move is
        considered.
        """
        allowed = set(legal)
        while True:
            if root.proven is not None:
                return root.best
            lost = root.lost or ()
            pick = root.leader(allowed, lost)           # ties: as without the solver
            if pick in lost or pick in self._checked:
                return pick
            self._check(root, base, pick, legal)

    def _open(self, root, legal):
        """The legal actions the move may still be chosen from: those not proven lost
        (all of them where all are, or without the solver)."""
        if not self.solving or not root.lost:
            return legal
        return [a for a in legal if a not in root.lost] or legal

    def _check(self, root, base, action, legal):
        """Look at every reply to ``action`` at ``root`` once: prove the replies that end
        the game, and through them maybe ``action`` (and ``root``)."""
        self._checked.add(action)
        child = root.children.get(action)
        if child is None or child.proven is not None:
            return
        mover = mover_of(base)
        state = base.clone()
        state.apply(action, seat=mover)
        if self._scan(child, state):
            prove(root, action, legal, mover, self.game.utility_bounds)

    def _scan(self, node, state) -> bool:
        """Try every legal action of the decision node ``node`` (at ``state``), and mark
        those that end the game as proven children; whether ``node`` got proven.

        It costs a copy and a move per legal action, so the search does it only at
        the root and for the replies to a root move about to be chosen.
        """
        if state.is_terminal() or state.is_chance():
            return False
        mover = mover_of(state)
        legal = state.legal_actions_for(mover)
        for action in legal:
            if action in node.children:
                continue                     # already searched: proven if it ended the game
            after = state.clone()
            after.apply_unchecked(action, mover)     # from the state's own legal list
            if not after.is_terminal():
                continue
            text = state.action_to_string(action)
            child = node.children[action] = node.children[("text", text)] = Node()
            child.proven = tuple(after.returns())
            if prove(node, action, legal, mover, self.game.utility_bounds):
                return True
        return False

    def _prove_path(self, path):
        """Carry a new proof up ``path`` (from its end) while it proves the nodes above;
        a chance node, never proven, stops it."""
        for node, _, action, mover in reversed(path):
            if node.children[action].proven is None or not prove(
                    node, action, node.legal_list(), mover, self.game.utility_bounds):
                return
