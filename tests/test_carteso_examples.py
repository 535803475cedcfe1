"""Carteso: the worked examples C1-C12 of RULES.md §1.9.

C1-C11 are hand-checked positions; C12 is a set of property tests on random
playouts (hypothesis), with the slow oracle ``tests/reference.py::RefCarteso``.
Diagrams in RULES.md print the top row first, which is also the order of the
``position`` option, so the strings below read exactly like the diagrams.

Every test body runs in a forked child process with a time limit (``isolated``):
the engine's compiled kernels cannot be interrupted, so an endless loop in them
would otherwise hang the whole run, and the kernels keep per-size work space
shared by all states, so a fresh process per test also keeps tests independent.
"""
from __future__ import annotations


import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import boardlab
from choices import Chooser, choices_st, seed_st
from isolation import isolated, progress
from territory_helpers import claim, claims_of
from reference import RefCarteso

V, H = "vertical", "horizontal"
LETTERS = "abcdefghijklmnopqrstuvwxyz"


def _warm_up():
    """Load the compiled kernels once in the parent, so that forked tests start fast.

    Size 8 only: the tests use other sizes, whose per-size work space stays untouched.
    Best effort: a failure here shows up again in the tests themselves.
    """
    try:
        t = boardlab.make("carteso", size=8, button=False, komi=0.5, turn="horizontal",
                          position="WB....../B......./" + "/".join(["........"] * 6),
                          claims="Ha8").new_initial_state()
        t.play("Bc8")
        s = boardlab.make("carteso", size=8, button=True, komi=0).new_initial_state()
        for move in ("Ba8", "Wb8", "Wa7", "Bc3", "Wd4", "Bd3", "button", "Wc4", "pass", "pass"):
            s.play(move)
        s.summary()
    except boardlab.BoardlabError:
        pass


_warm_up()


# Helpers -------------------------------------------------------------------------------------

def carteso(position="", *, turn="vertical", komi=0, button=False, size=5, claims=""):
    """A state of a Carteso analysis set-up (button off and komi 0 unless told)."""
    options = dict(size=size, button=button, komi=komi, turn=turn)
    if position:
        options["position"] = position
    if claims:
        options["claims"] = claims
    return boardlab.make("carteso", **options).new_initial_state()


def scores(state):
    s = state.summary()["scores"]
    return s["vertical"], s["horizontal"]


# C1 ----------------------------------------------------------------------------------------

C1 = "BW.../...../...../...../....."


@isolated()
def test_c1_single_stone_finished_by_opponent_colour_square_to_opponent_of_placer():
    s = carteso(C1)
    assert claims_of(s) == []
    assert s.summary()["to_move"] == V
    s.play("Wa4")
    assert s.summary()["board"][:2] == ["BW...", "W...."]
    assert claims_of(s) == [claim("H", "a5")]
    assert scores(s) == (0.0, 1.0)
    # The W stones stay unfinished.
    owners = s.claim_owner_map()
    n = 5
    for cell in (4 * n + 1, 3 * n + 0):  # b5, a4
        assert s.board[cell] == 2
        assert owners[cell] == -1
    assert s.summary()["to_move"] == H
    assert not s.is_terminal()


@isolated()
def test_c1_if_h_had_played_the_same_move_v_claims():
    s = carteso(C1, turn="horizontal")
    assert s.summary()["to_move"] == H
    s.play("Wa4")
    assert claims_of(s) == [claim("V", "a5")]
    assert scores(s) == (1.0, 0.0)


# C2 ----------------------------------------------------------------------------------------

C2 = "BW.../B..../W..../...../....."


@isolated()
def test_c2_vertical_group():
    s = carteso(C2, turn="horizontal")
    assert claims_of(s) == []  # before: R(B) reaches b4, c4, ... so B is unfinished
    s.play("Wb4")
    assert claims_of(s) == [claim("V", "a5", "a4")]
    assert scores(s) == (2.0, 0.0)


# C3 ----------------------------------------------------------------------------------------

C3 = "BBBW./B.BW./BBBW./WW.W./....."
RING = ("a5", "b5", "c5", "a4", "c4", "a3", "b3", "c3")


def _c3_after_wc2():
    s = carteso(C3)
    assert claims_of(s) == []  # the ring leaks through c2 into row 1
    s.play("Wc2")
    assert claims_of(s) == [claim("H", *RING)]
    assert scores(s) == (0.0, 8.0)
    return s


@isolated()
def test_c3_ring_claimed_by_h():
    _c3_after_wc2()


@isolated()
def test_c3_continuation_i_claimed_group_grows():
    s = _c3_after_wc2()
    s.play("Bb4")  # H
    assert claims_of(s) == [claim("H", *RING, "b4")]
    assert scores(s) == (0.0, 9.0)


@isolated()
def test_c3_continuation_ii_new_white_stone_in_the_centre():
    s = _c3_after_wc2()
    s.play("pass")  # H
    s.play("Wb4")   # V
    assert claims_of(s) == sorted([claim("H", *RING), claim("H", "b4")])
    assert scores(s) == (0.0, 9.0)


# C4 ----------------------------------------------------------------------------------------

C4 = "B.W../WWW../...../...../....."


@isolated()
def test_c4_i_white_b5_finishes_a5():
    s = carteso(C4)
    s.play("Wb5")
    assert claims_of(s) == [claim("H", "a5")]
    assert scores(s) == (0.0, 1.0)


@pytest.mark.parametrize("turn", [V, H])
@isolated()
def test_c4_ii_black_b5_makes_a_horizontal_pair_for_h_whoever_moved(turn):
    s = carteso(C4, turn=turn)
    s.play("Bb5")
    assert claims_of(s) == [claim("H", "a5", "b5")]
    assert scores(s) == (0.0, 2.0)


# C5 ----------------------------------------------------------------------------------------

C5 = "BW.../.W.../BW.../WW.../....."


@isolated()
def test_c5_i_black_a4_merges_into_a_vertical_triple():
    s = carteso(C5)
    s.play("Ba4")
    assert claims_of(s) == [claim("V", "a5", "a4", "a3")]
    assert scores(s) == (3.0, 0.0)


@isolated()
def test_c5_ii_white_a4_by_v_finishes_two_squares_for_h():
    s = carteso(C5)
    s.play("Wa4")
    assert claims_of(s) == sorted([claim("H", "a5"), claim("H", "a3")])
    assert scores(s) == (0.0, 2.0)


@isolated()
def test_c5_iii_white_a4_by_h_finishes_two_squares_for_v():
    s = carteso(C5, turn="horizontal")
    s.play("Wa4")
    assert claims_of(s) == sorted([claim("V", "a5"), claim("V", "a3")])
    assert scores(s) == (2.0, 0.0)


# C6 ----------------------------------------------------------------------------------------

C6 = "BBW../..W../WW.../...../....."


@isolated()
def test_c6_i_finished_with_an_empty_point_inside_the_bbox():
    s = carteso(C6)
    s.play("Ba4")
    assert claims_of(s) == [claim("H", "a5", "b5", "a4")]
    assert scores(s) == (0.0, 3.0)


@isolated()
def test_c6_i_later_bb4_by_v_after_h_passes():
    s = carteso(C6)
    s.play("Ba4")
    s.play("pass")
    s.play("Bb4")
    assert claims_of(s) == [claim("H", "a5", "b5", "a4", "b4")]
    assert scores(s) == (0.0, 4.0)


@isolated()
def test_c6_i_later_bb4_by_h():
    s = carteso(C6)
    s.play("Ba4")
    s.play("Bb4")
    assert claims_of(s) == [claim("H", "a5", "b5", "a4", "b4")]
    assert scores(s) == (0.0, 4.0)


@isolated()
def test_c6_ii_white_a4_claims_nothing():
    s = carteso(C6)
    s.play("Wa4")
    assert claims_of(s) == []
    assert scores(s) == (0.0, 0.0)


# C7 ----------------------------------------------------------------------------------------

C7 = "B...W/B..W./BBBW./WWWW./....."
C7_GROUP = ("a5", "a4", "a3", "b3", "c3")


@isolated()
def test_c7_remote_stone_finishes_the_group_for_h():
    s = carteso(C7)
    assert claims_of(s) == []  # R includes d5: 3 rows x 4 columns
    s.play("Wd5")
    assert claims_of(s) == [claim("H", *C7_GROUP)]
    assert scores(s) == (0.0, 5.0)


@isolated()
def test_c7_also_h_plays_wc5_v_claims():
    s = carteso(C7, turn="horizontal")
    s.play("Wc5")
    assert claims_of(s) == [claim("V", *C7_GROUP)]
    assert scores(s) == (5.0, 0.0)


@isolated()
def test_c7_also_v_plays_bd5_no_claim():
    s = carteso(C7)
    s.play("Bd5")
    assert claims_of(s) == []
    assert scores(s) == (0.0, 0.0)


# C8 ----------------------------------------------------------------------------------------

def _placements(n):
    return sorted(f"{c}{p}{r}" for c in "BW" for p in "abcdefg"[:n] for r in range(1, n + 1))


@pytest.mark.parametrize("komi, winner, final", [(0, V, (0.5, 0.0)), (1, H, (0.5, 1.0))])
@isolated()
def test_c8_button(komi, winner, final):
    s = boardlab.make("carteso", size=5, button=True, komi=komi).new_initial_state()
    legal = s.legal_moves()
    assert len(legal) == 51
    assert "button" in legal and "pass" not in legal
    assert sorted(m for m in legal if m != "button") == _placements(5)
    assert s.summary()["button"] == "untaken"
    with pytest.raises(boardlab.IllegalMoveError):
        s.play("pass")
    assert s.summary()["to_move"] == V and not s.history  # nothing changed
    s.play("button")  # V
    assert s.summary()["button"] == V
    legal = s.legal_moves()
    assert len(legal) == 51
    assert "pass" in legal and "button" not in legal
    with pytest.raises(boardlab.IllegalMoveError):
        s.play("button")
    s.play("pass")  # H
    assert not s.is_terminal()
    s.play("pass")  # V
    assert s.is_terminal()
    summ = s.summary()
    assert summ["terminal"] and summ["to_move"] is None
    assert scores(s) == final
    assert summ["winner"] == winner and summ["result"] == winner
    assert s.returns() == ([1.0, -1.0] if winner == V else [-1.0, 1.0])
    assert s.legal_actions() == []


@isolated()
def test_c8_taking_the_button_resets_the_pass_counter():
    s = boardlab.make("carteso", size=5, button=True, komi=0).new_initial_state()
    s.play("button")
    s.play("pass")
    assert s.summary()["passes"] == 1
    s.play("Ba1")
    assert s.summary()["passes"] == 0


# C9 ----------------------------------------------------------------------------------------

def _c9():
    return boardlab.make("carteso(size=5,button=off,komi=0.5)").new_initial_state()


@isolated()
def test_c9_no_button_two_passes_end_the_game():
    s = _c9()
    legal = s.legal_moves()
    assert len(legal) == 51 and "pass" in legal and "button" not in legal
    with pytest.raises((boardlab.IllegalMoveError, boardlab.NotationError)):
        s.play("button")
    s.play("pass")
    assert not s.is_terminal()
    s.play("pass")
    assert s.is_terminal()
    assert scores(s) == (0.0, 0.5)
    assert s.summary()["winner"] == H
    assert s.returns() == [-1.0, 1.0]


@isolated()
def test_c9_passes_must_be_consecutive():
    s = _c9()
    s.play("pass")   # V
    s.play("Bc3")    # H
    s.play("pass")   # V
    assert not s.is_terminal()
    assert s.summary()["to_move"] == H
    assert s.summary()["winner"] is None
    assert s.returns() == [0.0, 0.0]


# C10 ---------------------------------------------------------------------------------------

C10_MOVES = ["Bb2", "Wa3", "Wc1", "Wb3", "Wa2", "Bc3", "Ba1", "Bb1", "Bc2"]


@isolated()
def test_c10_full_3x3_game():
    s = carteso(size=3)
    movers = [V, H] * 5
    w_claim = claim("H", "a3", "a2", "b3")
    for i, move in enumerate(C10_MOVES):
        assert s.summary()["to_move"] == movers[i]
        s.play(move)
        if i < 6:
            assert claims_of(s) == [], move
        elif i in (6, 7):  # after V a1 B (and H b1 B adds nothing)
            assert claims_of(s) == [w_claim], move
    assert claims_of(s) == sorted([w_claim, claim("H", "a1", "b2", "b1", "c3", "c2"),
                                   claim("H", "c1")])
    assert s.summary()["board"] == ["WWB", "WBB", "BBW"]
    assert scores(s) == (0.0, 9.0)
    assert sum(len(g[1]) for g in claims_of(s)) == 9
    # The board is full; only passes remain (button off), and two of them end it.
    assert s.legal_moves() == ["pass"]
    s.play("pass")
    s.play("pass")
    assert s.is_terminal() and s.summary()["winner"] == H
    assert scores(s) == (0.0, 9.0)


@isolated()
def test_c10_after_va1_exact_claim_step():
    s = carteso(size=3)
    for move in C10_MOVES[:6]:
        s.play(move)
    assert claims_of(s) == []
    s.play("Ba1")
    assert claims_of(s) == [claim("H", "a3", "a2", "b3")]
    assert scores(s) == (0.0, 3.0)


# C11 ---------------------------------------------------------------------------------------

@isolated()
def test_c11_unfinished_stones_score_nothing():
    s = carteso(C2, turn="horizontal", komi=0.5)
    s.play("Wb4")
    assert claims_of(s) == [claim("V", "a5", "a4")]
    s.play("pass")  # V
    s.play("pass")  # H
    assert s.is_terminal()
    assert scores(s) == (2.0, 0.5)
    assert s.scores_half() == (4, 1)
    assert s.summary()["winner"] == V
    assert s.returns() == [1.0, -1.0]
    assert claims_of(s) == [claim("V", "a5", "a4")]


# C12: property tests -------------------------------------------------------------------------

def _flood(board, n, start, ok):
    seen, todo = {start}, [start]
    while todo:
        cell = todo.pop()
        r, c = divmod(cell, n)
        for rr, cc in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
            q = rr * n + cc
            if 0 <= rr < n and 0 <= cc < n and q not in seen and ok(board[q]):
                seen.add(q)
                todo.append(q)
    return frozenset(seen)


def _bbox(cells, n):
    rows = [c // n for c in cells]
    cols = [c % n for c in cells]
    return min(rows), max(rows), min(cols), max(cols)


def _groups(board, n):
    seen, out = set(), []
    for cell in range(n * n):
        v = int(board[cell])
        if v and cell not in seen:
            g = _flood(board, n, cell, lambda x, v=v: x == v)
            seen |= g
            out.append(g)
    return out


def _region(board, n, group):
    colour = int(board[next(iter(group))])
    return _flood(board, n, next(iter(group)), lambda x: x in (0, colour))


def _finished(board, n, group):
    return _bbox(_region(board, n, group), n) == _bbox(group, n)


class CartesoChecker:
    """Checks the §1.9 C12 invariants (and the §1.4 claiming rule) after every move."""

    def __init__(self, state, n):
        self.n = n
        self.claim_bbox = {}   # cell -> bbox of its claimed group at claim time
        self.claim_owner = {}  # cell -> owner of its claimed group
        self.prev_board = list(state.board)
        self.prev_owner_map = list(state.claim_owner_map())

    def after(self, state, mover, placed):
        n = self.n
        board = [int(x) for x in state.board]
        owners = [int(x) for x in state.claim_owner_map()]
        groups = _groups(board, n)
        if not placed:  # passes and taking the button change nothing on the board
            assert board == self.prev_board
            assert owners == self.prev_owner_map
        # (1) each group has at most one marker: one owner for all its stones, and the
        # engine's claimed groups are exactly (disjoint) real groups.
        by_cell = {}
        for g in groups:
            assert len({owners[c] for c in g}) == 1, "a group with mixed owners"
            for c in g:
                by_cell[c] = g
        seen = set()
        for cg in state.claimed_groups():
            cells = {boardlab_cell(p, n) for p in cg["stones"]}
            assert not cells & seen, "a stone in two claimed groups"
            seen |= cells
            assert frozenset(cells) == by_cell[next(iter(cells))]
            assert {owners[c] for c in cells} == {("vertical", "horizontal").index(cg["owner"])}
        assert seen == {c for c in range(n * n) if owners[c] >= 0}
        for g in groups:
            claimed = owners[next(iter(g))] >= 0
            fin = _finished(board, n, g)
            bb = _bbox(g, n)
            if claimed:
                # (2) claimed groups are finished, with the bbox and owner of claim time
                assert fin, "a claimed group that is not finished"
                old = {self.claim_bbox[c] for c in g if c in self.claim_bbox}
                old_owner = {self.claim_owner[c] for c in g if c in self.claim_owner}
                if old:
                    assert old == {bb}, "a claimed group's bbox changed"
                    assert old_owner == {owners[next(iter(g))]}, "a claim changed owner"
                else:
                    # a new claim: only after a placement, owner by shape (§1.4, §1.7e)
                    assert placed, "a claim after a pass or the button"
                    h, w = bb[1] - bb[0], bb[3] - bb[2]
                    expected = 0 if h > w else 1 if w > h else 1 - mover
                    assert owners[next(iter(g))] == expected
                for c in g:
                    self.claim_bbox[c] = bb
                    self.claim_owner[c] = owners[c]
            else:
                # §1.4: after a placement no unclaimed finished group is left
                assert not fin, "an unclaimed finished group"
        # (3) a passable component of colour c holds at most one finished group of colour c
        for colour in (1, 2):
            done = set()
            for cell in range(n * n):
                if board[cell] in (0, colour) and cell not in done:
                    comp = _flood(board, n, cell, lambda x, colour=colour: x in (0, colour))
                    done |= comp
                    finished = [g for g in groups if board[next(iter(g))] == colour
                                and next(iter(g)) in comp and _finished(board, n, g)]
                    assert len(finished) <= 1
        # scores = stones in claimed groups (+ komi for H, + button)
        v_stones = sum(1 for c in range(n * n) if owners[c] == 0)
        h_stones = sum(1 for c in range(n * n) if owners[c] == 1)
        summ = state.summary()
        bonus = {V: 0, H: 0}
        if summ["button"] in (V, H):
            bonus[summ["button"]] = 1
        assert state.scores_half() == (2 * v_stones + bonus[V],
                                       2 * h_stones + int(2 * summ["komi"]) + bonus[H])
        # (4) on a full board every stone is claimed
        if all(board):
            assert v_stones + h_stones == n * n
        self.prev_board, self.prev_owner_map = board, owners
        return v_stones, h_stones


def boardlab_cell(name, n):
    return (int(name[1:]) - 1) * n + "abcdefghijklmnopqrstuvwxyz".index(name[0])


def _check_legal(state, n):
    legal = state.legal_actions()
    P = n * n
    empty = [c for c in range(P) if state.board[c] == 0]
    expected = set(empty) | {c + P for c in empty}
    summ = state.summary()
    expected.add(2 * P + 1 if summ["button"] == "untaken" else 2 * P)  # take button / pass
    assert set(legal) == expected and len(legal) == len(expected)


def _rows(state, n):
    """The board rows, top row first, from ``state.board``."""
    return ["".join(".BW"[int(state.board[r * n + c])] for c in range(n))
            for r in range(n - 1, -1, -1)]


def _ref_rows(ref):
    n = ref.n
    return ["".join(ref.board[(r, c)] for c in range(n)) for r in range(n - 1, -1, -1)]


def _same_claims_as_oracle(state, ref):
    """Per group: the same claimed/unclaimed status and owner as the oracle."""
    n = ref.n
    owners = state.claim_owner_map()
    for g in ref.groups():
        ref_owner = {ref.markers[p] for p in g if p in ref.markers}
        assert len(ref_owner) <= 1
        eng = {int(owners[r * n + c]) for r, c in g}
        assert eng == ({ref_owner.pop()} if ref_owner else {-1}), sorted(g)


def _play_random(chooser, size, button, pass_every, with_oracle):
    """One random game from the empty board; checks everything after every move.

    ``pass_every``: 0 = only placements while any exist, k = all legal moves
    (pass or button included) on every k-th move.
    """
    game = boardlab.make("carteso", size=size, button=button, komi=0.5 if not button else 0)
    s = game.new_initial_state()
    n, P = size, size * size
    checker = CartesoChecker(s, n)
    ref = RefCarteso(n) if with_oracle else None
    moves = []
    limit = 2 * (P + 1) + 1
    while not s.is_terminal():
        assert len(moves) < limit, "the game does not end"
        _check_legal(s, n)
        legal = s.legal_actions()
        placements = [a for a in legal if a < 2 * P]
        if placements and not (pass_every and len(moves) % pass_every == pass_every - 1):
            action = chooser.pick(placements)
        else:
            action = chooser.pick(legal)
        mover = ("vertical", "horizontal").index(s.summary()["to_move"])
        moves.append(s.action_to_string(action))
        progress(f"carteso size {size}, button {button}, moves: {moves}")
        s.apply(action)
        placed = action < 2 * P
        v_stones, h_stones = checker.after(s, mover, placed)
        if ref is not None:
            assert ref.turn == mover
            if placed:
                r, c = divmod(action % P, n)
                ref.place(r, c, "BW"[action // P])
            else:
                ref.turn = 1 - ref.turn
            assert s.summary()["board"] == _ref_rows(ref)
            assert ref.scores() == [v_stones, h_stones]
            _same_claims_as_oracle(s, ref)
    # the game ended by two consecutive passes (after the button, if any)
    assert moves[-2:] == ["pass", "pass"]
    summ = s.summary()
    if button:
        assert summ["button"] in (V, H)
    v, h = s.scores_half()
    assert summ["result"] == (V if v > h else H if h > v else "draw")
    return s


@settings(max_examples=100, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(size=st.integers(2, 7), button=st.booleans(), choices=choices_st, seed=seed_st,
       pass_every=st.sampled_from([0, 5, 17]))
@isolated()
def test_c12_invariants_and_oracle_on_random_games(size, button, choices, seed, pass_every):
    _play_random(Chooser(choices, seed), size, button, pass_every, with_oracle=True)


@settings(max_examples=50, deadline=None, derandomize=True)
@given(size=st.integers(2, 7), choices=choices_st, seed=seed_st)
@isolated()
def test_c12_full_board_games_claim_every_stone(size, choices, seed):
    s = _play_random(Chooser(choices, seed), size, False, 0, with_oracle=False)
    assert all(s.board)
    owners = s.claim_owner_map()
    assert (owners >= 0).all()
    v, h = s.scores_half()
    assert (v + h - 1) // 2 == size * size  # komi 0.5, no button


@settings(max_examples=30, deadline=None, derandomize=True)
@given(size=st.integers(2, 5), choices=choices_st, seed=seed_st)
@isolated()
def test_c12_clone_is_independent(size, choices, seed):
    chooser = Chooser(choices, seed)
    s = carteso(size=size)
    for _ in range(chooser.index(size * size + 1)):
        s.apply(chooser.pick([a for a in s.legal_actions() if a < 2 * size * size]))
    before = s.summary()
    t = s.clone()
    for _ in range(3):
        if t.is_terminal():
            break
        t.apply(chooser.pick(t.legal_actions()))
    assert s.summary() == before


# Set-ups (the `position`/`claims` options that C1-C11 rely on) ------------------------------

@isolated()
def test_setup_does_not_depend_on_earlier_games_of_the_same_size():
    """The C2 set-up must be accepted whatever was played before in this process.

    (RULES §1.9: "no unclaimed finished group exists at the start" of C2.)
    """
    other = carteso(size=5)
    for move in ("Ba5", "Wb5", "Wa4"):
        other.play(move)
    s = carteso(C2, turn="horizontal")
    assert claims_of(s) == []
    s.play("Wb4")
    assert claims_of(s) == [claim("V", "a5", "a4")]


@isolated(timeout=60)  # a hang guard, not a deadline
def test_summary_of_a_setup_game_after_splits():
    """``summary()`` of a set-up game (it replays the history from a second set-up state).

    Expected values: RefCarteso, and the same moves played from the empty board
    (V Bc3 first) give the same final position and claims.
    """
    s = carteso("..B/.../...", turn="horizontal", komi=0.5, size=3)
    moves = ["Ba2", "Wa1", "Wc1", "Wc2", "Wa3", "Bb2", "Bb1", "Wb3"]
    for i, move in enumerate(moves):
        progress(f"set-up ..B/.../... (H to move), moves {moves[:i + 1]}, then summary()")
        s.play(move)
    summ = s.summary()
    assert summ["board"] == ["WWB", "BBW", "WBW"]
    assert claims_of(s) == sorted([claim("V", "a1"), claim("H", "a2", "b1", "b2"),
                                   claim("V", "c1", "c2"), claim("H", "a3", "b3"),
                                   claim("H", "c3")])
    assert summ["scores"] == {V: 3.0, H: 6.5}


def _setup_of(state, size):
    summ = state.summary()
    claims = "+".join(("V" if g["owner"] == V else "H") + g["stones"][0]
                      for g in summ["claimed"])
    return carteso("/".join(summ["board"]), turn=summ["to_move"], komi=0.5, size=size,
                   claims=claims)


_SAME = ("board", "to_move", "terminal", "winner", "result", "scores", "claimed", "legal",
         "passes")


def _comparable(state):
    summ = state.summary()
    out = {k: summ[k] for k in _SAME}
    out["claimed"] = claims_of(state)
    return out


@settings(max_examples=40, deadline=None, derandomize=True,
          phases=[Phase.explicit, Phase.generate])  # no shrinking: a hang costs the timeout
@given(size=st.integers(2, 6), choices=choices_st, seed=seed_st)
@isolated(timeout=60)  # a hang guard, not a deadline: ~0.1 s an example
def test_setup_round_trip_continues_like_the_original(size, choices, seed):
    """A set-up of a position reached in play behaves exactly like the played game."""
    chooser = Chooser(choices, seed)
    game = boardlab.make("carteso", size=size, button=False, komi=0.5)
    s = game.new_initial_state()
    P = size * size
    moves = []
    for _ in range(chooser.index(P)):
        a = chooser.pick([a for a in s.legal_actions() if a < 2 * P])
        moves.append(s.action_to_string(a))
        s.apply(a)
    progress(f"carteso size {size}, moves before the set-up: {moves}")
    t = _setup_of(s, size)
    later = []
    while not s.is_terminal():
        assert _comparable(s) == _comparable(t)
        legal = s.legal_actions()
        placements = [x for x in legal if x < 2 * P]
        action = chooser.pick(placements if placements and len(later) % 7 != 6 else legal)
        later.append(s.action_to_string(action))
        progress(f"carteso size {size}, moves before the set-up: {moves}, after it: {later}")
        s.apply(action)
        t.apply(action)
    assert t.is_terminal()
    assert _comparable(s) == _comparable(t)


@settings(max_examples=40, deadline=None, derandomize=True,
          phases=[Phase.explicit, Phase.generate])  # no shrinking: a hang costs the timeout
@given(size=st.integers(2, 6), choices=choices_st, seed=seed_st)
@isolated(timeout=60)  # a hang guard, not a deadline: ~0.1 s an example
def test_setup_of_an_oracle_position_in_a_fresh_process(size, choices, seed):
    """The set-up alone (no earlier engine game in this process), checked against the oracle.

    ``summary()`` is not used on the set-up state (it replays the history from a
    second set-up state), only board, claims, scores and legal moves.
    """
    chooser = Chooser(choices, seed)
    n, P = size, size * size
    ref = RefCarteso(n)
    for _ in range(chooser.index(P)):
        r, c = chooser.pick(sorted(p for p, v in ref.board.items() if v == "."))
        ref.place(r, c, chooser.pick("BW"))
    claims = "+".join("VH"[owner] + f"{LETTERS[c]}{r + 1}" for (r, c), owner in ref.markers.items())
    setup = dict(position="/".join(_ref_rows(ref)), claims=claims, turn=(V, H)[ref.turn])
    progress(f"carteso size {size}, set-up {setup}")
    t = carteso(setup["position"], turn=setup["turn"], komi=0.5, size=n, claims=claims)
    later = []
    while True:
        assert _rows(t, n) == _ref_rows(ref)
        _same_claims_as_oracle(t, ref)
        v, h = ref.scores()
        assert t.scores_half() == (2 * v, 2 * h + 1)
        empty = [x for x in range(P) if t.board[x] == 0]
        assert sorted(t.legal_actions()) == empty + [x + P for x in empty] + [2 * P]
        if not empty:
            break
        action = chooser.pick(empty) + P * chooser.index(2)
        later.append(t.action_to_string(action))
        progress(f"carteso size {size}, set-up {setup}, then {later}")
        t.apply(action)
        r, c = divmod(action % P, n)
        ref.place(r, c, "BW"[action // P])


# Action numbers, notation and the texts ------------------------------------------------------

@isolated()
def test_action_numbers_have_one_encoding_the_kernel_and_the_notation_share():
    from boardlab.games import carteso_kernel as K

    for spec in ("carteso(size=3,komi_protocol=bid)", "carteso(size=4)"):
        game = boardlab.make(spec)
        n, state = game.n, game.new_initial_state()
        assert game.num_actions == K.num_actions(n)
        seen = {}
        for action in range(game.num_actions):
            kind, value, colour = K.decode(n, action)
            assert K.encode(n, kind, value, colour) == action
            seen.setdefault(kind, []).append(value)
            assert state.string_to_action(state.action_to_string(action)) == action
        assert sorted(seen[K.KOMI]) == list(range(-2 * n * n, 2 * n * n + 1))
        assert seen[K.SIDE] == [0, 1] and len(seen[K.PLACE]) == 2 * n * n
        assert state.action_to_string(K.encode(n, K.PLACE, n + 2, K.WHITE)) == "Wc2"
        assert state.action_to_string(K.encode(n, K.BUTTON, 0, 0)) == "button"
    s = boardlab.make("carteso(size=3,button=off)").new_initial_state()
    s.play("Bb2")
    assert s.view(None)["board"]["marks"]["last"] == ["b2"]
    s.play("pass")
    assert s.view(None)["board"]["marks"]["last"] == []
    with pytest.raises(boardlab.NotationError):
        s.string_to_action("button")            # no button in this edition
    with pytest.raises(boardlab.IllegalMoveError, match="without the button"):
        s.apply(K.encode(3, K.BUTTON, 0, 0))


def test_rules_summary_and_notation_guide():
    game = boardlab.make("carteso")
    assert "finished" in game.rules_summary and "button" in game.rules_summary
    for word in ("Bc3", "Wa1", "pass", "button", "komi=K", "side=vertical", "bottom"):
        assert word in game.notation_guide
    assert game.new_initial_state().undo_floor() == 0
    assert game.facts()["komi"] == {"option": "komi", "receiver": "horizontal",
                                    "points": 122, "fixed_options": {"komi_protocol": "fixed"}}
