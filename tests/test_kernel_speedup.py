"""The bit-row parts of the Carteso kernel and the playouts of both territory kernels.

Carteso's kernel keeps, for each colour, the components of the cells a group of that
colour may grow through (labels, bounding boxes) incrementally, and re-floods a
component with bit rows when a placement may split it. These tests check that
bookkeeping against a plain flood fill of the board after every few moves of random
games, the row fill against a cell-by-cell one, and the seeded playouts of both kernels
against totals recorded from the kernels before the bit rows (same seeds, same games).
"""
from __future__ import annotations

import random

import numpy as np
import pytest

import boardlab
from boardlab.games import carteso_kernel as CK


def _runs_with_seeds(m: int, s: int, n: int) -> int:
    """The runs of set bits of ``m`` (n bits) that hold a bit of ``s``, cell by cell."""
    out, col = 0, 0
    while col < n:
        if not m >> col & 1:
            col += 1
            continue
        end = col
        while end < n and m >> end & 1:
            end += 1
        run = (1 << end) - (1 << col)
        if run & s:
            out |= run
        col = end
    return out


def test_row_fill_matches_a_cell_by_cell_fill():
    rng = random.Random(5)
    for n in range(1, 27):
        full = (1 << n) - 1
        for _ in range(400):
            m = rng.getrandbits(n) | (full if rng.random() < 0.1 else 0)
            s = m & rng.getrandbits(n) & (full if rng.random() < 0.5 else rng.getrandbits(n))
            assert CK._fill_row(np.int64(m), np.int64(s), n) == _runs_with_seeds(m, s, n), \
                (n, bin(m), bin(s))


def _components(board, n, blocker):
    """Label the connected sets of cells not holding ``blocker``: {cell: index}, boxes."""
    label, boxes = {}, []
    for start in range(n * n):
        if board[start] == blocker or start in label:
            continue
        k = len(boxes)
        label[start] = k
        queue, box = [start], [n, -1, n, -1]
        while queue:
            x = queue.pop()
            r, c = divmod(x, n)
            box = [min(box[0], r), max(box[1], r), min(box[2], c), max(box[3], c)]
            for rr, cc in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
                y = rr * n + cc
                if 0 <= rr < n and 0 <= cc < n and board[y] != blocker and y not in label:
                    label[y] = k
                    queue.append(y)
        boxes.append(box)
    return label, boxes


def _check_position(buf, n):
    """The kernel's components, stone rows, claims and scores against a fresh flood fill."""
    board = [int(v) for v in CK.array(buf, n, CK.A_BOARD)]
    rows = CK.array(buf, n, CK.A_ROWS)
    for colour in (1, 2):
        for r in range(n):
            want = sum(1 << c for c in range(n) if board[r * n + c] == colour)
            assert rows[(colour - 1) * n + r] == want, ("stone rows", colour, r)
    finished_stones = {}
    for ci in (0, 1):
        colour = ci + 1
        label, boxes = _components(board, n, 3 - colour)
        comp = CK.array(buf, n, CK.A_COMP + ci)
        kernel_label = {}
        for x, k in label.items():
            got = int(comp[x])
            assert kernel_label.setdefault(k, got) == got, ("one component, two labels", x)
        assert len(set(kernel_label.values())) == len(boxes), "two components share a label"
        for k, got in kernel_label.items():
            kernel_box = [int(CK.array(buf, n, CK.A_CBOX + 4 * ci + e)[got]) for e in range(4)]
            assert kernel_box == boxes[k], ("component box", colour, k)
        groups, _ = _components([0 if v == colour else 3 for v in board], n, 3)
        by_group = {}
        for x, g in groups.items():
            by_group.setdefault(g, []).append(x)
        for cells in by_group.values():
            rs, cs = [x // n for x in cells], [x % n for x in cells]
            box = [min(rs), max(rs), min(cs), max(cs)]
            finished_stones[cells[0]] = (box == boxes[label[cells[0]]], len(cells))
    owner = CK.array(buf, n, CK.A_OWNER)
    scores = [0, 0]
    for x, (finished, size) in finished_stones.items():
        side = int(owner[CK.group_root(buf, n, x)])
        assert (side >= 0) == finished, ("claimed exactly when finished", x)
        if side >= 0:
            scores[side] += size
    assert scores == [int(buf[CK.M_SCORE_V]), int(buf[CK.M_SCORE_H])]


@pytest.mark.parametrize("n, games, every", [(2, 30, 1), (3, 30, 1), (4, 30, 1), (5, 30, 1),
                                             (6, 20, 1), (7, 12, 1), (9, 4, 3), (11, 3, 5),
                                             (13, 2, 9), (26, 1, 97)])
def test_carteso_components_match_a_fresh_flood_fill(n, games, every):
    game = boardlab.make(f"carteso(size={n})")
    state = game.new_initial_state()
    nbr, diag = game.topology.nbr, game.topology.diag
    rng = random.Random(n)
    for _ in range(games):
        buf = state.buf.copy()
        cells = list(range(n * n))
        rng.shuffle(cells)
        for i, cell in enumerate(cells):
            CK.place(buf, state.scratch, n, nbr, diag, cell, rng.choice((1, 2)))
            if i % every == 0 or i == len(cells) - 1:
                _check_position(buf, n)


def _outcomes(spec, count):
    """Summed (Vertical, Horizontal) scores of seeded kernel playouts, and a sum that
    depends on their order."""
    game = boardlab.make(spec)
    state = game.new_initial_state()
    k, n, topo = game.kernel, game.n, game.topology
    sums = [0, 0, 0]
    for i in range(count):
        work = state.buf.copy()
        if game.name == "carteso":
            k.playout(work, state.scratch, n, topo.nbr, topo.diag, 77 + i)
        else:
            k.playout(work, n, topo.nbr, topo.degree, 77 + i)
        v, h = int(work[k.M_SCORE_V]), int(work[k.M_SCORE_H])
        sums[0] += v
        sums[1] += h
        sums[2] += (i + 1) * (v - h)
    return tuple(sums)


# Recorded with the kernels as they were before the bit rows (commit dfac851).
RECORDED = [
    ("carteso(size=4)", 400, (3406, 2994, 81816)),
    ("carteso(size=7,button=off)", 400, (9852, 9748, 65366)),
    ("carteso(size=9)", 400, (15597, 16803, -294616)),
    ("carteso(size=11)", 400, (24276, 24124, -107450)),
    ("carteso(size=26)", 40, (13798, 13242, -2448)),
    ("rumbo(size=4)", 400, (3200, 3200, -23494)),
    ("rumbo(size=9)", 400, (16060, 16340, -118354)),
    ("rumbo(size=11)", 400, (24351, 24049, 33800)),
    ("rumbo(size=26)", 40, (13222, 13818, -2526)),
]


@pytest.mark.parametrize("spec, count, expected", RECORDED)
def test_seeded_playouts_end_as_before(spec, count, expected):
    assert _outcomes(spec, count) == expected
