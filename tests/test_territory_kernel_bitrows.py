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


def _outcome(buf, n):
    """What a playout decides: the board, the move order (the empty list ends as the
    placements in reverse), scores and turn, the groups (by root), their sizes,
    boxes and owner marks, and the stone rows."""
    P = n * n
    roots = [CK.group_root(buf, n, x) if buf[CK.META + x] else -1 for x in range(P)]
    arrays = [CK.A_BOARD, CK.A_SIZE, CK.A_MINR, CK.A_MAXR, CK.A_MINC, CK.A_MAXC, CK.A_OWNER,
              CK.A_EMPTY, CK.A_EPOS]
    return (buf[:CK.META].tolist(), roots, [CK.array(buf, n, k).tolist() for k in arrays],
            CK.array(buf, n, CK.A_ROWS)[:2 * n].tolist())


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 17, 26])
def test_playout_settling_claims_at_the_end_matches_placing_move_by_move(n):
    """The playout settles the claims once the board is full; the same seeds placed move
    by move (the kernel's own stepwise playout) end the same, from the empty board and
    from positions part-way through, with the button and without."""
    rng = random.Random(100 + n)
    count = 300 if n <= 11 else 40
    for button in ("on", "off"):
        game = boardlab.make(f"carteso(size={n},button={button})")
        state = game.new_initial_state()
        nbr, diag = game.topology.nbr, game.topology.diag
        starts = [state.buf.copy()]
        for fill in (0.2, 0.5, 0.8):
            buf = state.buf.copy()
            cells = list(range(n * n))
            rng.shuffle(cells)
            for cell in cells[:int(fill * n * n)]:
                CK.place(buf, state.scratch, n, nbr, diag, cell, rng.choice((1, 2)))
            starts.append(buf)
        for i in range(count):
            start = starts[i % len(starts)]
            fast, steps = start.copy(), start.copy()
            moves = CK.playout(fast, state.scratch, n, nbr, diag, 5000 + i)
            assert CK._playout_steps(steps, state.scratch, n, nbr, diag, 5000 + i) == moves
            assert _outcome(fast, n) == _outcome(steps, n), (n, button, i)
            if i % 25 == 0:
                _check_position(fast, n)


def test_playout_after_a_set_up_with_other_claims_places_move_by_move():
    """A hand-made position whose claims are not exactly its finished groups is played
    out move by move (the claims settled at the end assume they are)."""
    n = 5
    game = boardlab.make(f"carteso(size={n})")
    state = game.new_initial_state()
    nbr, diag = game.topology.nbr, game.topology.diag
    buf = state.buf.copy()
    CK.place(buf, state.scratch, n, nbr, diag, 0, 1)        # a lone corner stone: unfinished
    CK.claim_at(buf, n, 0, 0)
    assert not CK._claims_consistent(buf, n)
    fast, steps = buf.copy(), buf.copy()
    assert CK.playout(fast, state.scratch, n, nbr, diag, 3) == \
        CK._playout_steps(steps, state.scratch, n, nbr, diag, 3)
    assert _outcome(fast, n) == _outcome(steps, n)


def test_playout_moves_a_claim_into_the_larger_group_that_absorbs_it():
    """A claim made during the playout on a group that a larger unclaimed one absorbs
    later: the mark moves to the new root and stays on the old one (placing move by move
    does so; random games from the empty board hardly ever get there)."""
    n = 7
    game = boardlab.make(f"carteso(size={n})")
    state = game.new_initial_state()
    nbr, diag = game.topology.nbr, game.topology.diag
    buf = state.buf.copy()
    ell = [r * n for r in range(n)] + list(range(1, n - 1))     # an L, one stone short
    block = [r * n + c for r in range(2, 6) for c in range(2, 6)]  # 16 stones inside
    for cell in ell + block:
        CK.place(buf, state.scratch, n, nbr, diag, cell, 1)
    assert CK._claims_consistent(buf, n)
    moved = 0
    for seed in range(100):
        fast, steps = buf.copy(), buf.copy()
        CK.playout(fast, state.scratch, n, nbr, diag, seed)
        CK._playout_steps(steps, state.scratch, n, nbr, diag, seed)
        assert _outcome(fast, n) == _outcome(steps, n), seed
        owner = CK.array(steps, n, CK.A_OWNER)
        moved += any(owner[x] >= 0 and CK.group_root(steps, n, x) != x for x in range(n * n))
    assert moved >= 5
