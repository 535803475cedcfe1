"""What the server sends each seat of a territory game, byte for byte, against the views'
first implementation.

``TerritoryState`` builds its board block, claimed groups, rows and status lines from one
walk of the union-find (``claim_layout``) and from the view it was given. The reference
below is the code it replaced (numpy roots, one pass per key, ``_status`` again for each
seat's lines), put back on the class for a moment: at every move of random games, after
resignations (in play, in the pre-game, on time), agreed draws and aborts, every seat's
and a spectator's view and lines, as the room encodes them, must be the same text.
"""
import random

import numpy as np
import pytest

from boardlab.core.driver import GameDriver
from boardlab.core.errors import IllegalMoveError
from boardlab.core.registry import make
from boardlab.games.territory import COLOURS, SIDES, TerritoryState, point_name
from boardlab.server.wire import encode

SPECS = ["carteso(size=9)", "carteso(size=5)", "carteso(size=9,button=false)",
         "carteso(size=7,komi_protocol=bid)", "rumbo(size=9)", "rumbo(size=6)",
         "rumbo(size=7,komi_protocol=bid)"]


# The reference: the first implementation, as it was -----------------------------------
def stone_roots(self):
    parent = self._arr(self.kernel.A_PARENT)
    stones = np.flatnonzero(self.board)
    roots = parent[stones]
    while True:
        above = parent[roots]
        if np.array_equal(above, roots):
            return stones, roots
        roots = above


def _roots(self):
    found = self.__dict__.get("_view_roots")
    return found if found is not None else stone_roots(self)


def view(self, seat, texts=True):
    self._view_roots = stone_roots(self)
    try:
        return super(TerritoryState, self).view(seat, texts)
    finally:
        self._view_roots = None


def claimed_groups(self):
    names = self.game.point_names
    owners = self._arr(self.kernel.A_OWNER).tolist()
    stones, roots = _roots(self)
    groups = {}
    for cell, root in zip(stones.tolist(), roots.tolist()):
        if owners[root] >= 0:
            groups.setdefault(root, []).append(names[cell])
    return [{"owner": SIDES[owners[root]], "stones": sorted(cells)}
            for root, cells in sorted(groups.items())]


def claim_owner_map(self):
    owners = self._arr(self.kernel.A_OWNER)
    result = np.full(self.game.points, -1, dtype=np.int32)
    stones, roots = _roots(self)
    result[stones] = owners[roots]
    return result


def board_rows(self):
    n = self.game.n
    text = "".join([COLOURS[v] for v in self.board.tolist()])
    return [text[row * n:row * n + n] for row in range(n - 1, -1, -1)]


def _owned_points(self, owners):
    names, order = self.game.cell_names, self.game.draw_order
    points = tuple([] for _ in SIDES)
    for name, cell in zip(names, order):
        side = owners[cell]
        if 0 <= side < len(points):
            points[side].append(name)
    return points


def board_view(self, seat):
    n, order = self.game.n, self.game.draw_order
    board, owners = self.board.tolist(), claim_owner_map(self).tolist()
    cells = [COLOURS[board[c]] if board[c] else None for c in order]
    points = _owned_points(self, owners)
    marks = {f"owner:{side}": points[s] for s, side in enumerate(SIDES)}
    marks["last"] = []
    if self.history and self.history[-1].action >= 0:
        kind, cell, _ = self.kernel.decode(n, self.history[-1].action)
        if kind == self.kernel.PLACE:
            marks["last"] = [point_name(cell, n)]
    return {"kind": "square", "cells": cells, "marks": marks,
            "score": {"points": {side: list(points[s]) for s, side in enumerate(SIDES)}}}


def status_lines(self, seat=None, view=None):
    from boardlab.games.territory import format_komi
    info = self._status()
    scores = info["scores"]
    lines = [f"Vertical {scores['vertical']:g}  -  Horizontal {scores['horizontal']:g}"
             f"  (komi {'?' if self.komi_half is None else format_komi(self.komi_half)}"
             + (f", button {info['button']}" if info.get("button") else "") + ")"]
    if info["last_move"]:
        lines.append(f"last move: {info['last_move']}")
    if info["terminal"]:
        result = info["result"]
        text = "a draw" if result == "draw" else f"{result.capitalize()} wins" \
            if result in SIDES else "no winner"
        if info["resigned"]:
            text += f" ({info['resigned']} " \
                f"{'lost on time' if self.lost_on_time else 'resigned'})"
        lines.append(f"game over: {text}")
    else:
        lines.append(f"to move: {info['to_move']}")
    return lines


REFERENCE = {"view": view, "claimed_groups": claimed_groups, "board_rows": board_rows,
             "claim_owner_map": claim_owner_map, "board_view": board_view,
             "status_lines": status_lines}


# The check ------------------------------------------------------------------------------
def frames(driver: GameDriver) -> list[str]:
    """Every seat's and a spectator's view and lines, as the room sends them (the views
    built together, the lines read from them), and the lines asked for without a view."""
    seats = [0, 1, None]
    views = driver.views(seats)
    return [encode({"view": views[seat], "lines": driver.status_lines(seat, views[seat]),
                    "alone": driver.state.status_lines(seat)}) for seat in seats]


def both(driver: GameDriver, monkeypatch) -> tuple[list[str], list[str]]:
    new = frames(driver)
    with monkeypatch.context() as patch:
        for name, function in REFERENCE.items():
            patch.setattr(TerritoryState, name, function)
        old = frames(driver)
    return new, old


def ending(driver: GameDriver, rng: random.Random, moves: int) -> None:
    """Sometimes end the game early, one of the ways a game ends besides its rules."""
    if moves < 3 or rng.random() > 0.03:
        return
    how = rng.choice(["resign", "time", "draw", "abort"])
    try:
        if how == "resign":
            driver.submit(driver.acting()[0], "resign")
        elif how == "time":
            driver.forfeit(rng.randrange(2), "time", "the clock ran out")
        elif how == "draw":
            driver.agree_draw()
        else:
            driver.abort()
    except IllegalMoveError:
        pass                                   # (an abort or a draw the game refuses)


def pick(driver: GameDriver, rng: random.Random) -> int:
    """A random legal move; a pass (which ends a game twice in a row) seldom."""
    state = driver.state
    legal = state.legal_actions()
    placing = [a for a in legal if state.action_to_string(a) not in ("pass", "button")]
    return rng.choice(placing if placing and rng.random() < 0.9 else legal)


@pytest.mark.parametrize("spec", SPECS)
def test_the_frames_are_the_first_implementations(spec, monkeypatch):
    game = make(spec)
    rng = random.Random(spec)
    positions = claimed = endings = 0
    for index in range(8):
        driver = GameDriver(game, seed=index)
        while True:
            new, old = both(driver, monkeypatch)
            assert new == old, f"{spec}, game {index}, move {len(driver.state.history)}"
            positions += 1
            claimed += '"claimed":[{' in new[0]
            if driver.over:
                break
            ending(driver, rng, len(driver.state.history))
            if driver.over:
                endings += 1
                continue
            driver.submit(driver.acting()[0], pick(driver, rng))
    assert positions > 100 and claimed > 10 and endings >= 1
