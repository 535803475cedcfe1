"""Slow, direct implementations of the rules, used only as test oracles.

They follow RULES.md word for word (recompute everything after every move)
and share no code with the engines.
"""
from __future__ import annotations

N_, E_, S_, W_ = (1, 0), (0, 1), (-1, 0), (0, -1)
DIRS = (N_, E_, S_, W_)


def _neighbours(n, r, c):
    for dr, dc in DIRS:
        if 0 <= r + dr < n and 0 <= c + dc < n:
            yield r + dr, c + dc


def _component(board, n, start, ok):
    seen, todo = {start}, [start]
    while todo:
        r, c = todo.pop()
        for q in _neighbours(n, r, c):
            if q not in seen and ok(board[q]):
                seen.add(q)
                todo.append(q)
    return seen


def _bbox(cells):
    rows = [r for r, _ in cells]
    cols = [c for _, c in cells]
    return min(rows), max(rows), min(cols), max(cols)


class RefCarteso:
    """Board dict (row, col) -> '.', 'B', 'W'; markers as a dict stone -> owner (0 V, 1 H)."""

    def __init__(self, n):
        self.n = n
        self.board = {(r, c): "." for r in range(n) for c in range(n)}
        self.markers = {}
        self.turn = 0

    def groups(self):
        seen, result = set(), []
        for p, v in self.board.items():
            if v != "." and p not in seen:
                g = _component(self.board, self.n, p, lambda x, v=v: x == v)
                seen |= g
                result.append(g)
        return result

    def finished(self, group):
        colour = self.board[next(iter(group))]
        region = _component(self.board, self.n, next(iter(group)),
                            lambda x: x in (".", colour))
        return _bbox(region) == _bbox(group)

    def place(self, r, c, colour):
        self.board[(r, c)] = colour
        mover = self.turn
        for g in self.groups():
            if any(s in self.markers for s in g) or not self.finished(g):
                continue
            r0, r1, c0, c1 = _bbox(g)
            h, w = r1 - r0, c1 - c0
            self.markers[next(iter(g))] = 0 if h > w else 1 if w > h else 1 - mover
        self.turn = 1 - mover

    def scores(self):
        score = [0, 0]
        for g in self.groups():
            owners = {self.markers[s] for s in g if s in self.markers}
            assert len(owners) <= 1
            if owners:
                score[owners.pop()] += len(g)
        return score


class RefRumbo:
    """Rumbo from the rule text: holes, liberties, the adjacency table."""

    OWNER = {frozenset("N"): 0, frozenset("S"): 0, frozenset("NS"): 0, frozenset("NE"): 0,
             frozenset("SW"): 0, frozenset("NSE"): 0, frozenset("NSW"): 0,
             frozenset("E"): 1, frozenset("W"): 1, frozenset("EW"): 1, frozenset("NW"): 1,
             frozenset("SE"): 1, frozenset("EWN"): 1, frozenset("EWS"): 1}

    def __init__(self, n):
        self.n = n
        self.board = {(r, c): "." for r in range(n) for c in range(n)}
        self.markers = {}
        self.turn = 0

    def is_hole(self, p):
        if self.board[p] != ".":
            return False
        around = {self.board[q] for q in _neighbours(self.n, *p)}
        return len(around) == 1 and "." not in around

    def legal(self, r, c, colour):
        if self.board[(r, c)] != ".":
            return False
        self.board[(r, c)] = colour
        bad = any(self.is_hole(q) for q in self.board)
        self.board[(r, c)] = "."
        return not bad

    def place(self, r, c, colour):
        self.board[(r, c)] = colour
        for p, v in list(self.board.items()):
            if v == "." or p in self.markers:
                continue
            g = _component(self.board, self.n, p, lambda x, v=v: x == v)
            if any(s in self.markers for s in g):
                continue
            if any(self.board[q] == "." for s in g for q in _neighbours(self.n, *s)):
                continue
            names = {d: (r + dr, c + dc) for d, (dr, dc) in zip("NESW", DIRS)}
            adj = frozenset(d for d, q in names.items() if q in g)
            self.markers[p] = self.OWNER[adj]
        self.turn = 1 - self.turn

    def scores(self):
        score = [0, 0]
        seen = set()
        for p, owner in self.markers.items():
            g = _component(self.board, self.n, p, lambda x, v=self.board[p]: x == v)
            if not g & seen:
                score[owner] += len(g)
                seen |= g
        return score
