"""CTOR: the worked examples T1-T12 of RULES.md §4.9, and property tests.

Squares are numbered 1..N² row by row from the top left (RULES T-A15); the
engine's ``state.board`` is indexed by square - 1. The field is a torus. The
``position`` set-up option lists the rows top first, '/'-separated, and starts
play with a regular turn (full quotas) of team ``turn``.

The property tests play random games and compare every step with a small,
independent reading of RULES §4 (:class:`RefCtor`: legal moves as text, the
field, quotas, secret squares, the end) and with direct checks of the
invariants (counts, the 5-of-8 Replace condition on the torus, the returns).

Every test body runs in a forked child process with a time limit (``isolated``):
the engine's compiled kernels cannot be interrupted.
"""
from __future__ import annotations

import json
import random
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import boardlab
from boardlab.games import ctor_kernel as K
from choices import Chooser, choices_st, seed_st
from game_specs import conformance_specs
from depth import examples
from isolation import isolated, progress


def _warm_up():
    """Load the compiled kernels once in the parent, so that forked tests start fast."""
    try:
        for spec in ("ctor(size=8)", "ctor(size=10,teams=3v3,secret_squares=true)"):
            game = boardlab.make(spec)
            state = game.new_initial_state()
            rng = random.Random(0)
            for _ in range(40):
                state.apply(rng.choice(state.legal_actions()))
            state.summary()
            game.bench_playouts(1, seed=1)
    except boardlab.BoardlabError:
        pass


_warm_up()


# Our own geometry (not the engine's tables) ------------------------------------------------

DIRS4 = ((-1, 0), (1, 0), (0, -1), (0, 1))
DIRS8 = DIRS4 + ((-1, -1), (-1, 1), (1, -1), (1, 1))
_AROUND: dict = {}


def around(n, cell, dirs=DIRS8):
    """Cells (0-based) around ``cell`` on the n x n torus, in the order of ``dirs``."""
    key = (n, cell, dirs)
    if key not in _AROUND:
        r, c = divmod(cell, n)
        _AROUND[key] = tuple(((r + dr) % n) * n + (c + dc) % n for dr, dc in dirs)
    return _AROUND[key]


def squares4(n, square):
    return {x + 1 for x in around(n, square - 1, DIRS4)}


def squares8(n, square):
    return {x + 1 for x in around(n, square - 1, DIRS8)}


def around_counts(board, n, colour):
    """Per cell: how many of its 8 torus neighbours hold ``colour`` (numpy rolls)."""
    mine = (np.asarray(board).reshape(n, n) == colour).astype(np.int32)
    total = np.zeros_like(mine)
    for dr, dc in DIRS8:
        total += np.roll(np.roll(mine, dr, axis=0), dc, axis=1)
    return total.reshape(-1)


def replaceable(board, n, team):
    """Squares (1-based) holding an opponent chip with >= 5 of ``team``'s chips around."""
    board = np.asarray(board)
    counts = around_counts(board, n, team + 1)
    return {int(x) + 1 for x in np.flatnonzero((board == 2 - team) & (counts >= 5))}


# Helpers -----------------------------------------------------------------------------------

def field(n=8, black=(), white=()):
    """A position string (rows top first) with black and white chips on the given squares."""
    cells = ["."] * (n * n)
    for sq in black:
        cells[sq - 1] = "B"
    for sq in white:
        cells[sq - 1] = "W"
    return "/".join("".join(cells[r * n:(r + 1) * n]) for r in range(n))


def ctor(black=(), white=(), *, size=8, turn=1, position=None, **options):
    """A state of a CTOR set-up (a regular turn of team ``turn`` with full quotas)."""
    position = position or field(size, black, white)
    return boardlab.make("ctor", size=size, position=position, turn=turn,
                         **options).new_initial_state()


def squares_of(state, colour):
    return {int(x) + 1 for x in np.flatnonzero(state.board == colour)}


def replaces_offered(state):
    return {int(m.split()[1]) for m in state.legal_moves() if m.startswith("replace")}


def quotas(state):
    q = state.view(None)["quotas_left"]
    return q["put"], q["move"], q["landing"]


def to_move(state):
    """The team (0 or 1) to move, from the public view."""
    colour = state.view(None)["to_move"]
    return None if colour is None else state.game.colours.index(colour)


def assert_illegal(state, move):
    before, history = state.summary(), list(state.history)
    buf = state.buf.copy()
    assert move not in state.legal_moves()
    with pytest.raises(boardlab.IllegalMoveError) as info:
        state.play(move)
    assert isinstance(info.value.reason, str) and info.value.reason
    assert state.summary() == before and state.history == history
    assert np.array_equal(state.buf, buf)  # an illegal move changes nothing
    return info.value.reason


def play(state, *moves):
    for move in moves:
        state.play(move)


# T1, T2: geometry --------------------------------------------------------------------------

def _engine4(game, square):
    return {int(x) + 1 for x in game.topology.nbr[square - 1]}


def _engine8(game, square):
    return _engine4(game, square) | {int(x) + 1 for x in game.topology.diag[square - 1]}


@isolated()
def test_t1_four_neighbours_with_wrap():
    g8, g10 = boardlab.make("ctor", size=8), boardlab.make("ctor", size=10)
    assert _engine4(g8, 1) == {2, 8, 9, 57}
    assert _engine4(g8, 64) == {8, 56, 57, 63}
    assert _engine4(g10, 100) == {10, 90, 91, 99}
    assert _engine4(g10, 5) == {4, 6, 15, 95}
    for game in (g8, g10):
        n = game.options["size"]
        for square in range(1, n * n + 1):
            assert _engine4(game, square) == squares4(n, square)
            assert len(_engine4(game, square)) == 4


@isolated()
def test_t2_eight_neighbours_with_wrap():
    g8, g10 = boardlab.make("ctor", size=8), boardlab.make("ctor", size=10)
    assert _engine8(g8, 1) == {2, 8, 9, 10, 16, 57, 58, 64}
    assert _engine8(g10, 100) == {1, 9, 10, 81, 89, 90, 91, 99}
    for game in (g8, g10):
        n = game.options["size"]
        for square in range(1, n * n + 1):
            assert _engine8(game, square) == squares8(n, square)
            assert len(_engine8(game, square)) == 8  # all distinct for N >= 3


@isolated()
def test_corner_numbers_and_position_orientation():
    s = ctor(black=[1, 64], white=[8, 57])
    assert s.view(None)["field"][0] == "B......W"
    assert s.view(None)["field"][7] == "W......B"
    assert s.board[0] == 1 and s.board[63] == 1 and s.board[7] == 2 and s.board[56] == 2
    assert s.counts() == (2, 2)


# T3, T4: Replace across the wrap, 4 is not enough ----------------------------------------

@isolated()
def test_t3_replace_across_the_wrap():
    s = ctor(black=[2, 8, 57, 58, 64], white=[1])
    assert replaces_offered(s) == {1} == replaceable(s.board, 8, 0)
    s.play("replace 1")
    assert s.board[0] == 1 and s.counts() == (6, 0)
    assert quotas(s) == (2, 2, 1)  # a Replace uses no quota
    assert s.current_player() == 0  # and does not end the turn


@isolated()
def test_t4_four_against_four_is_not_enough():
    s = ctor(black=[64, 57, 58, 8], white=[1, 2, 9, 10, 16])
    assert replaces_offered(s) == set()
    reason = assert_illegal(s, "replace 1")
    assert "5" in reason


# T5: cascade -------------------------------------------------------------------------------

@isolated()
def test_t5_cascade():
    s = ctor(black=[10, 11, 13, 18, 21, 26, 27], white=[19, 20])
    assert replaces_offered(s) == {19}
    assert_illegal(s, "replace 20")
    s.play("replace 19")
    assert replaces_offered(s) == {20}
    s.play("replace 20")
    assert replaces_offered(s) == set()
    assert s.counts() == (9, 0)  # Black +2, White -2
    assert squares_of(s, 1) == {10, 11, 13, 18, 19, 20, 21, 26, 27}


# T6: Move with wrap ------------------------------------------------------------------------

@isolated()
def test_t6_move_with_wrap():
    s = ctor(black=[1], white=[8])
    moves = {m for m in s.legal_moves() if m.startswith("move")}
    assert moves == {"move 1>2", "move 1>9", "move 1>57"}
    assert_illegal(s, "move 1>8")  # occupied
    assert_illegal(s, "move 8>7")  # an opponent chip (T-A6)
    s.play("move 1>57")
    assert squares_of(s, 1) == {57} and s.counts() == (1, 1)
    assert quotas(s) == (2, 1, 1)


# T7: Landing -------------------------------------------------------------------------------

@isolated()
def test_t7_landing():
    s = ctor(black=[10, 11], white=[12])
    lifts = {m for m in s.legal_moves() if m.startswith("lift")}
    assert lifts == {"lift 10", "lift 11"}
    s.play("lift 10")
    assert s.legal_moves() == ["lift 11"]  # finish the Landing first
    assert_illegal(s, "end")
    assert_illegal(s, "put 40")  # the first lift must be followed by a second
    s.play("lift 11")
    assert all(m.startswith("land") for m in s.legal_moves())
    assert {int(m.split()[1]) for m in s.legal_moves()} == set(range(1, 65)) - {12}
    s.play("land 40")
    assert squares_of(s, 1) == {40} and s.counts() == (1, 1)
    assert quotas(s) == (2, 2, 0)
    assert not any(m.startswith("lift") for m in s.legal_moves())


@isolated()
def test_t7_landing_needs_two_chips_and_may_use_a_vacated_square():
    s = ctor(black=[40], white=[12])
    assert not any(m.startswith("lift") for m in s.legal_moves())
    reason = assert_illegal(s, "lift 40")
    assert "two" in reason
    t = ctor(black=[10, 11], white=[12])
    play(t, "lift 10", "lift 11")
    assert "land 10" in t.legal_moves()  # T-A8: a vacated square is allowed
    t.play("land 10")
    assert squares_of(t, 1) == {10} and t.counts() == (1, 1)


@isolated()
@pytest.mark.parametrize("teams", ["2v2", "3v3", "1v2", "2v3", "1v3"])
def test_t7_no_landing_without_quota(teams):
    black = list(range(1, 20, 2))
    s = ctor(black=black, white=[40], teams=teams)
    assert s.game.quota[2] == 0 and quotas(s)[2] == 0
    assert not any(m.startswith("lift") for m in s.legal_moves())
    assert_illegal(s, "lift 1")


# T8: opening and quotas --------------------------------------------------------------------

def _opening_turn(state, team, puts, start):
    """``team`` puts exactly ``puts`` chips (squares start, start+1, ...)."""
    game = state.game
    for i in range(puts):
        assert state.current_player() == game.captain(team)
        assert to_move(state) == team
        legal = state.legal_moves()
        assert all(m.startswith("put") for m in legal), "the opening is Puts only"
        assert "end" not in legal
        assert quotas(state) == (puts - i, 0, 0)
        assert state.view(None)["phase"] == "opening"
        state.play(f"put {start + i}")
    return start + puts


@isolated()
@pytest.mark.parametrize("teams,first,quota", [
    ("1v1", 1, (2, 2, 1)), ("2v2", 1, (2, 2, 0)), ("1v2", 1, (2, 2, 0)),
    ("2v1", 1, (2, 2, 0)), ("1v1", 2, (2, 2, 1)), ("1v2", 2, (2, 2, 0))])
def test_t8_opening_of_small_teams(teams, first, quota):
    s = boardlab.make("ctor", size=8, teams=teams, first_team=first).new_initial_state()
    a, b = first - 1, 2 - first
    nxt = _opening_turn(s, a, 1, 1)
    nxt = _opening_turn(s, b, 2, nxt)
    assert to_move(s) == a and s.current_player() == s.game.captain(a)
    assert s.view(None)["phase"] == "regular"
    assert tuple(s.game.quota) == quota and quotas(s) == quota
    assert s.counts()[a] == 1 and s.counts()[b] == 2
    legal = s.legal_moves()
    assert "end" in legal and any(m.startswith("move") for m in legal)
    assert not any(m.startswith("lift") for m in legal)  # one chip: no Landing yet


@isolated()
@pytest.mark.parametrize("teams,first", [("3v3", 1), ("2v3", 1), ("3v2", 1), ("1v3", 1),
                                         ("3v3", 2), ("2v3", 2)])
def test_t8_opening_with_a_three_player_team(teams, first):
    s = boardlab.make("ctor", size=10, teams=teams, first_team=first).new_initial_state()
    a, b = first - 1, 2 - first
    nxt = _opening_turn(s, a, 1, 1)
    nxt = _opening_turn(s, b, 2, nxt)
    nxt = _opening_turn(s, a, 3, nxt)
    assert to_move(s) == b and s.current_player() == s.game.captain(b)
    assert tuple(s.game.quota) == (3, 3, 0) and quotas(s) == (3, 3, 0)
    assert s.counts()[a] == 4 and s.counts()[b] == 2


@isolated()
def test_t8_quotas_in_the_first_regular_turn_of_1v1():
    s = boardlab.make("ctor", size=8).new_initial_state()
    play(s, "put 1", "put 20", "put 30")
    assert quotas(s) == (2, 2, 1)
    play(s, "put 3", "move 1>2", "move 2>10", "put 4")
    assert quotas(s) == (0, 0, 1)
    assert_illegal(s, "put 5")
    assert_illegal(s, "move 10>11")
    play(s, "lift 3", "lift 4", "land 5", "end")
    assert to_move(s) == 1 and quotas(s) == (2, 2, 1)


@isolated()
def test_t8_the_opening_move_is_not_a_move():
    s = boardlab.make("ctor", size=8).new_initial_state()
    s.play("put 1")
    assert_illegal(s, "end")
    s.play("put 2")
    assert_illegal(s, "move 2>3")
    assert_illegal(s, "end")


@isolated()
def test_quota_table_and_quota_row():
    g = boardlab.make("ctor", size=8, teams="1v1", quota_row=3)
    assert list(g.quota) == [3, 3, 0]
    g = boardlab.make("ctor", size=8, teams="2v3", quota_table="1,1,1/2,2,2/4,0,1")
    assert list(g.quota) == [4, 0, 1]
    s = ctor(black=[1, 2], white=[10], teams="2v3", quota_table="1,1,1/2,2,2/4,0,1")
    assert quotas(s) == (4, 0, 1)
    assert not any(m.startswith("move") for m in s.legal_moves())


# T9: end and draw --------------------------------------------------------------------------

def _checkerboard(n=8, hole=64):
    black = [sq for sq in range(1, n * n + 1)
             if sq != hole and ((sq - 1) // n + (sq - 1) % n) % 2 == 0]
    white = [sq for sq in range(1, n * n + 1)
             if sq != hole and ((sq - 1) // n + (sq - 1) % n) % 2 == 1]
    return black, white


@isolated()
@pytest.mark.parametrize("end_check", ["after_replaces", "immediate", "end_of_turn"])
def test_t9_full_field_draw(end_check):
    black, white = _checkerboard()
    s = ctor(black=black, white=white, end_check=end_check)
    assert s.counts() == (31, 32)
    assert replaces_offered(s) == set() == replaceable(s.board, 8, 0)
    assert replaceable(s.board, 8, 1) == set()
    s.play("put 64")
    if end_check == "end_of_turn":
        assert not s.is_terminal()
        # full, yet the turn goes on: no Put or Move is possible, the Landing is (RULES 4.5)
        assert set(s.legal_moves()) == {f"lift {q}" for q in black + [64]} | {"end"}
        s.play("end")
    assert s.is_terminal() and s.end_reason() == "field full"
    assert s.counts() == (32, 32)
    assert s.returns() == [0.0, 0.0]
    summary = s.summary()
    assert summary["winner"] is None and summary["terminal"] and summary["legal"] == []


# T10: secret squares -----------------------------------------------------------------------

SECRETS = "1,2,3,4,5/36,7,8,9,10"


@isolated()
def test_t10_secret_square_flips_at_the_end_of_the_turn():
    black, white = [18, 19, 20, 26, 50], [27, 60]
    s = ctor(black=black, white=white, secret_squares=True, secrets=SECRETS)
    plain = ctor(black=black, white=white)
    assert s.secret_squares(1) == [7, 8, 9, 10, 36] and s.secret_squares(0) == [1, 2, 3, 4, 5]
    assert s.secret_squares(1, spent=True) == []
    for t in (s, plain):
        t.play("put 36")
        assert t.board[35] == 1 and t.counts() == (6, 2)  # black for the rest of the turn
        assert replaces_offered(t) == {27}  # #36 is the fifth black neighbour of #27
        t.play("replace 27")
        t.play("end")
    assert plain.board[35] == 1 and plain.counts() == (7, 1)
    assert s.board[35] == 2 and s.counts() == (6, 2)  # Black -1, White +1
    assert s.secret_squares(1, spent=True) == [36]
    assert s.secret_squares(1, spent=False) == [7, 8, 9, 10]
    for seat in (0, 1, None):
        assert s.view(seat)["revealed_secret_squares"] == {"black": [], "white": [36]}
    assert to_move(s) == 1


@isolated()
def test_t10_secret_square_in_the_opening_and_single_use():
    s = boardlab.make("ctor", size=8, secret_squares=True, secrets=SECRETS).new_initial_state()
    assert s.view(None)["phase"] == "opening"
    s.play("put 36")  # the opening turn ends: the chip flips before White's turn
    assert s.board[35] == 2 and s.counts() == (0, 1)
    assert s.secret_squares(1, spent=True) == [36]
    play(s, "put 1", "put 2")  # White on Black's squares 1 and 2
    assert s.board[0] == 1 and s.board[1] == 1 and s.counts() == (2, 1)
    assert s.secret_squares(0, spent=True) == [1, 2]
    # Black's regular turn: 36 is spent, 7 is not
    play(s, "put 7", "lift 1", "lift 7", "land 60", "end")
    assert s.board[6] == 0 and s.secret_squares(1, spent=True) == [7, 36]
    assert s.board[59] == 1  # the lifted chip on 7 left: spent, nothing flips


@isolated()
def test_secret_squares_move_destination_landing_target_and_not_replace():
    black, white = [17, 25, 33, 41, 50, 51], [12]
    opts = dict(secret_squares=True, secrets="60,61,62,63,64/9,18,20,26,34")
    s = ctor(black=black, white=white, **opts)
    play(s, "move 17>18", "move 18>19")  # passes over 18, ends on 19: spent, no flip
    play(s, "lift 50", "lift 51", "land 20", "end")  # landing target 20: flips
    assert s.board[18] == 1 and s.board[19] == 2
    assert s.secret_squares(1, spent=True) == [18, 20]
    assert s.counts() == (4, 2)
    # a Black chip that arrives on a White secret square by Replace does not trigger
    t = ctor(black=[1, 2, 3, 17, 19, 25, 26, 27], white=[18], **opts)
    t.play("replace 18")
    t.play("end")
    assert t.board[17] == 1 and t.secret_squares(1, spent=True) == []
    # a chip of the square's own team does not trigger it
    u = ctor(black=[1], white=[2], turn=2, **opts)
    play(u, "put 9", "end")
    assert u.board[8] == 2 and u.secret_squares(1, spent=True) == []
    # a move destination that stays: flips
    v = ctor(black=[33], white=[2], **opts)
    play(v, "move 33>34", "end")
    assert v.board[33] == 2 and v.secret_squares(1, spent=True) == [34]


@isolated()
def test_secret_picks_before_the_game():
    game = boardlab.make("ctor", size=8, secret_squares=True, teams="2v3")
    s = game.new_initial_state()
    assert s.view(None)["phase"] == "secret"
    for team, squares in ((0, [1, 2, 3, 4, 5]), (1, [5, 6, 7, 8, 64])):  # sets may overlap
        for i, sq in enumerate(squares):
            assert s.current_player() == game.captain(team)
            assert all(m.startswith("secret") for m in s.legal_moves())
            assert len(s.legal_moves()) == 64 - i
            assert_illegal(s, "put 20")
            s.play(f"secret {sq}")
    assert s.secret_squares(0) == [1, 2, 3, 4, 5] and s.secret_squares(1) == [5, 6, 7, 8, 64]
    assert s.view(None)["phase"] == "opening" and s.current_player() == 0
    assert_illegal(s, "secret 20")
    # the other team's picks are hidden in the views, the own ones are shown
    assert s.view(0)["history"][:10] == [f"secret {x}" for x in (1, 2, 3, 4, 5)] + \
        ["secret ?"] * 5
    assert s.view(2)["history"][:10] == ["secret ?"] * 5 + \
        [f"secret {x}" for x in (5, 6, 7, 8, 64)]
    assert s.view(None)["history"][:10] == ["secret ?"] * 10
    assert s.view(1)["my_secret_squares"] == [1, 2, 3, 4, 5]
    assert s.view(4)["my_secret_squares"] == [5, 6, 7, 8, 64]


@isolated()
def test_secret_picks_refuse_a_square_twice():
    s = boardlab.make("ctor", size=8, secret_squares=True).new_initial_state()
    s.play("secret 7")
    assert "secret 7" not in s.legal_moves()
    assert_illegal(s, "secret 7")


@isolated()
def test_secret_squares_flip_at_the_end_of_the_last_turn():
    """RULES 4.6: flips also happen at the end of a turn that ends the game."""
    black, white = _checkerboard(hole=64)
    for end_check in ("after_replaces", "immediate", "end_of_turn"):
        s = ctor(black=black, white=white, secret_squares=True,
                 secrets="1,3,5,7,9/64,2,4,6,8", end_check=end_check)
        s.play("put 64")
        if not s.is_terminal():
            s.play("end")
        assert s.is_terminal() and s.board[63] == 2
        assert s.counts() == (31, 33) and s.returns() == [-1.0, 1.0]


# T11: Move quota in steps ------------------------------------------------------------------

@isolated()
def test_t11_move_quota_counts_steps():
    s = ctor(black=[19, 1], white=[50])
    play(s, "move 19>20", "move 20>21")
    assert squares_of(s, 1) == {1, 21}
    assert not any(m.startswith("move") for m in s.legal_moves())
    reason = assert_illegal(s, "move 21>22")
    assert "Move" in reason or "move" in reason
    assert_illegal(s, "move 1>2")
    assert quotas(s) == (2, 0, 1)
    play(s, "lift 1", "lift 21", "land 40", "put 2", "put 3")
    assert squares_of(s, 1) == {2, 3, 40}
    assert s.legal_moves() == ["end"]


# T12: Replace timing -----------------------------------------------------------------------

T12_BLACK, T12_WHITE = [10, 11, 12, 18, 20], [19, 40]


@isolated()
def test_t12_replace_before_the_first_operation_by_default():
    s = ctor(black=T12_BLACK, white=[40], turn=2)
    play(s, "put 19", "end")  # White puts a chip among five black ones
    assert to_move(s) == 0 and quotas(s) == (2, 2, 1)
    assert replaces_offered(s) == {19}
    play(s, "replace 19", "end")
    assert s.board[18] == 1 and s.counts() == (6, 1)


@isolated()
def test_t12_replace_only_after_an_operation():
    s = ctor(black=T12_BLACK, white=[40], turn=2, replace_only_after_op=True)
    play(s, "put 19", "end")
    assert replaces_offered(s) == set()
    reason = assert_illegal(s, "replace 19")
    assert "operation" in reason
    s.play("lift 10")
    s.play("lift 11")
    assert replaces_offered(s) == set()  # a Landing is complete only with its target
    s.play("land 60")
    assert replaces_offered(s) == set()  # #19 lost two black neighbours
    s = ctor(black=T12_BLACK, white=T12_WHITE, replace_only_after_op=True)
    s.play("put 1")
    assert replaces_offered(s) == {19}
    s.play("replace 19")
    assert s.counts() == (7, 1)


@isolated()
def test_t12_after_a_move_step_too():
    s = ctor(black=T12_BLACK + [30], white=T12_WHITE, replace_only_after_op=True)
    s.play("move 30>31")
    assert replaces_offered(s) == {19}


# End of the game on a full field: end_check --------------------------------------------------

def _nearly_full():
    """Columns in pairs BBWWBBWW, #63 black too, #64 empty (black 33, white 30).

    Every white chip has 3 or 4 black neighbours; Put #64 gives 7, 8, 55 and 56
    (the neighbours of 64 next to the black 63) a fifth.
    """
    black = [sq for sq in range(1, 65) if (sq - 1) % 8 % 4 < 2] + [63]
    white = [sq for sq in range(1, 64) if sq not in black]
    return black, white


def _closure(board, n, team):
    board = np.array(board)
    flipped = 0
    while True:
        todo = replaceable(board, n, team)
        if not todo:
            return board, flipped
        for sq in todo:
            board[sq - 1] = team + 1
            flipped += 1


@isolated()
def test_nearly_full_position_is_what_we_think():
    black, white = _nearly_full()
    s = ctor(black=black, white=white)
    assert replaceable(s.board, 8, 0) == set() == replaces_offered(s)
    assert replaceable(s.board, 8, 1) == set() and s.counts() == (33, 30)
    board = s.board.copy()
    board[63] = 1
    assert replaceable(board, 8, 0) == {7, 8, 55, 56}


@isolated()
def test_end_check_after_replaces_ends_when_no_replace_is_left():
    black, white = _nearly_full()
    s = ctor(black=black, white=white)
    s.play("put 64")
    assert not s.is_terminal() and s.view(None)["field_full"]
    assert replaces_offered(s) == {7, 8, 55, 56}
    assert set(s.legal_moves()) == {"replace 7", "replace 8", "replace 55", "replace 56",
                                    "end"}  # no Put, Move or Landing
    final, flipped = _closure(s.board, 8, 0)
    while not s.is_terminal():
        offered = replaces_offered(s)
        assert offered == replaceable(s.board, 8, 0) and offered
        s.play(f"replace {min(offered)}")
    assert s.end_reason() == "field full"
    assert np.array_equal(s.board, final) and s.counts()[0] == 34 + flipped
    assert s.returns() == [1.0, -1.0]


@isolated()
def test_end_check_after_replaces_allows_stopping_early():
    black, white = _nearly_full()
    s = ctor(black=black, white=white)
    play(s, "put 64", "end")
    assert s.is_terminal() and s.counts() == (34, 30) and s.end_reason() == "field full"


@isolated()
def test_end_check_immediate():
    black, white = _nearly_full()
    s = ctor(black=black, white=white, end_check="immediate")
    s.play("put 64")
    assert s.is_terminal() and s.end_reason() == "field full"
    assert s.counts() == (34, 30) and s.legal_actions() == []


@isolated()
def test_end_check_end_of_turn():
    black, white = _nearly_full()
    s = ctor(black=black, white=white, end_check="end_of_turn")
    s.play("put 64")
    assert not s.is_terminal()
    final, flipped = _closure(s.board, 8, 0)
    while replaces_offered(s):
        lifts = {f"lift {x}" for x in squares_of(s, 1)}  # the Landing stays legal (RULES 4.5)
        assert set(s.legal_moves()) == {f"replace {x}" for x in replaces_offered(s)} | \
            lifts | {"end"}
        s.play(f"replace {min(replaces_offered(s))}")
    assert not s.is_terminal()
    assert set(s.legal_moves()) == {f"lift {x}" for x in squares_of(s, 1)} | {"end"}
    s.play("end")
    assert s.is_terminal() and np.array_equal(s.board, final)


@isolated()
def test_end_check_end_of_turn_keeps_every_operation_the_quota_allows():
    """RULES 4.5 (end_of_turn): a field that fills mid-turn does not end the game. A
    Landing frees a square, and then Puts and Moves are legal again; the game is over
    only if the field is full when the turn ends."""
    black, white = _nearly_full()
    s = ctor(black=black, white=white, end_check="end_of_turn")
    s.play("put 64")
    assert s.view(None)["field_full"] and not s.is_terminal()
    assert quotas(s) == (1, 2, 1)
    assert not any(m.startswith(("put", "move")) for m in s.legal_moves())  # nowhere to go
    play(s, "lift 1", "lift 2", "land 1")
    assert not s.view(None)["field_full"] and s.board[1] == 0
    legal = set(s.legal_moves())
    assert {"put 2", "move 1>2", "move 10>2", "move 58>2"} <= legal
    assert not any(m.startswith("lift") for m in legal)  # the one Landing is used
    s.play("move 10>2")
    play(s, "put 10")  # the field is full again
    assert s.view(None)["field_full"] and quotas(s) == (0, 1, 0)
    s.play("end")
    assert s.is_terminal() and s.end_reason() == "field full"
    # a turn that ends with a free square does not end the game
    t = ctor(black=black, white=white, end_check="end_of_turn")
    play(t, "put 64", "lift 1", "lift 2", "land 1", "end")
    assert not t.is_terminal() and to_move(t) == 1 and t.board[1] == 0
    assert "put 2" in t.legal_moves()
    # the other end checks: no Landing once the field is full
    for end_check in ("after_replaces", "immediate"):
        u = ctor(black=black, white=white, end_check=end_check)
        u.play("put 64")
        assert not any(m.startswith("lift") for m in u.legal_moves())
        if not u.is_terminal():
            assert "the field is full" in assert_illegal(u, "lift 1")


@isolated()
def test_a_full_field_is_never_reached_by_a_landing():
    black, white = _checkerboard(hole=64)
    s = ctor(black=black, white=white)
    play(s, "lift 1", "lift 3", "land 64")
    assert not s.is_terminal() and s.counts() == (30, 32)


# Termination: null turns and the turn cap ---------------------------------------------------

@isolated()
def test_two_null_turns_end_the_game():
    s = boardlab.make("ctor", size=8).new_initial_state()
    play(s, "put 1", "put 2", "put 3", "end")
    assert not s.is_terminal()
    s.play("end")
    assert s.is_terminal() and s.end_reason() == "two null turns"
    assert s.counts() == (1, 2) and s.returns() == [-1.0, 1.0]


@isolated()
def test_a_turn_with_an_operation_or_a_replace_is_not_null():
    s = boardlab.make("ctor", size=8).new_initial_state()
    play(s, "put 1", "put 2", "put 3", "end", "move 2>10", "end", "end")
    assert not s.is_terminal()
    s.play("end")
    assert s.is_terminal() and s.end_reason() == "two null turns"
    t = ctor(black=T12_BLACK, white=T12_WHITE, turn=2)
    play(t, "end", "replace 19", "end")  # a turn of just one Replace is not null
    assert not t.is_terminal()
    t.play("end")
    assert not t.is_terminal()
    t.play("end")
    assert t.is_terminal() and t.end_reason() == "two null turns"


@isolated()
def test_the_opening_is_never_a_null_turn_and_counts_for_the_cap():
    g = boardlab.make("ctor", size=8, max_turns=3)
    s = g.new_initial_state()
    play(s, "put 1", "put 2", "put 3")
    assert not s.is_terminal()
    s.play("end")
    assert s.is_terminal() and s.end_reason() == "turn cap" and s.counts() == (1, 2)
    s = boardlab.make("ctor", size=8, max_turns=2).new_initial_state()
    play(s, "put 1", "put 2", "put 3")
    assert s.is_terminal() and s.end_reason() == "turn cap"


@isolated()
def test_default_turn_cap_is_four_n_squared_team_turns():
    s = boardlab.make("ctor", size=8).new_initial_state()
    play(s, "put 1", "put 20", "put 40")
    turns = 2
    while not s.is_terminal():
        team = to_move(s)
        chip = (squares_of(s, team + 1) - {20} if team == 1 else squares_of(s, 1)).pop()
        target = min(sq for sq in squares4(8, chip) if s.board[sq - 1] == 0)
        play(s, f"move {chip}>{target}", "end")
        turns += 1
        assert turns <= 256
    assert turns == 4 * 64 and s.end_reason() == "turn cap"


# Options -----------------------------------------------------------------------------------

@isolated()
@pytest.mark.parametrize("options,name", [
    (dict(teams="4v1"), "teams"), (dict(teams="0v1"), "teams"), (dict(teams="2-2"), "teams"),
    (dict(size=9), "size"), (dict(size=12), "size"),
    (dict(quota_table="1,2"), "quota_table"), (dict(quota_table="1,2,3/4,5,6"), "quota_table"),
    (dict(quota_table="a,b,c/1,2,3/1,2,3"), "quota_table"),
    (dict(quota_table="1,2,3/4,5,6/7,8,-1"), "quota_table"),
    (dict(colours="black,blue"), "colours"), (dict(colours="red"), "colours"),
    (dict(colours="red,green,blue"), "colours"),
    (dict(secrets="1,2,3,4,5/6,7,8,9,10"), "secrets"),
    (dict(secret_squares=True, secrets="1,2,3,4/6,7,8,9,10"), "secrets"),
    (dict(secret_squares=True, secrets="1,1,2,3,4/6,7,8,9,10"), "secrets"),
    (dict(secret_squares=True, secrets="1,2,3,4,65/6,7,8,9,10"), "secrets"),
    (dict(secret_squares=True, secrets="1,2,3,4,5"), "secrets"),
    (dict(secret_squares=True, secrets="a,2,3,4,5/6,7,8,9,10"), "secrets"),
    (dict(first_team=3), "first_team"), (dict(end_check="later"), "end_check"),
    (dict(quota_row=4), "quota_row"), (dict(max_turns=-1), "max_turns"),
    (dict(position="B......./......."), "position"),
    (dict(position="/".join(["X......."] + ["........"] * 7)), "position"),
    (dict(position="/".join(["BBBBBBBB"] * 8)), "position"),
    (dict(turn=3), "turn"), (dict(replace_only_after_op="maybe"), "replace_only_after_op"),
    (dict(unknown=1), "unknown"), (dict(quota_by="mine"), "quota_by"),
    (dict(secret_squares=True, secret_count=0), "secret_count"),
    (dict(secret_squares=True, secret_count=11), "secret_count"),
    (dict(team_protocol="chaos"), "team_protocol"),
    (dict(auto_replace_closure="often"), "auto_replace_closure"),
    (dict(end_on_null_turns="x"), "end_on_null_turns"),
])
def test_bad_options_raise_option_error_naming_the_option(options, name):
    options = dict(options)
    options.setdefault("size", 8)
    with pytest.raises(boardlab.OptionError, match=name):
        boardlab.make("ctor", **options)


@isolated()
def test_colours_are_configurable():
    g = boardlab.make("ctor", size=8, colours="red,green", teams="1v2")
    assert g.seat_names == ("red", "green-1", "green-2")
    s = boardlab.make("ctor", size=8, colours="red,green",
                      position="/".join(["RG......"] + ["........"] * 7)).new_initial_state()
    assert s.counts() == (1, 1) and s.view(None)["to_move"] == "red"
    assert s.view(None)["field"][0] == "RG......"
    with pytest.raises(boardlab.OptionError, match="position"):
        boardlab.make("ctor", size=8, colours="red,green",
                      position="/".join(["BW......"] + ["........"] * 7))


@isolated()
def test_team_seats_captains_and_resignation():
    g = boardlab.make("ctor", size=8, teams="2v3")
    assert [g.team_of(s) for s in range(5)] == [0, 0, 1, 1, 1]
    assert g.captain(0) == 0 and g.captain(1) == 2
    s = g.new_initial_state()
    s.play("put 1")
    assert s.current_player() == 2
    s.play("resign")
    assert s.is_terminal() and s.returns() == [1.0, 1.0, -1.0, -1.0, -1.0]
    assert s.end_reason() == "resignation"


# Notation ----------------------------------------------------------------------------------

@isolated()
def test_notation_forms():
    s = ctor(black=[19, 1, 2], white=[50])
    assert s.string_to_action("move 19>20") == s.string_to_action("move 19-20") \
        == s.string_to_action("  MOVE 19 > 20 ") == s.string_to_action("move 19->20")
    assert s.action_to_string(s.string_to_action("move 19-20")) == "move 19>20"
    assert s.string_to_action("put36") == s.string_to_action("put 36") == 35
    assert s.action_to_string(35) == "put 36"
    assert s.string_to_action("end") == s.string_to_action(" END ")
    assert s.action_to_string(s.string_to_action("replace 19")) == "replace 19"
    assert s.action_to_string(s.string_to_action("lift 10")) == "lift 10"
    assert s.action_to_string(s.string_to_action("secret 36")) == "secret 36"
    assert s.string_to_action("move 1>57") == s.string_to_action("move 1-57")  # wrap
    assert s.string_to_action("move 64>8") != s.string_to_action("move 64>57")
    assert len({s.string_to_action(t) for t in ("put 1", "lift 1", "replace 1", "secret 1",
                                                 "end", "move 1>2")}) == 6
    play(s, "lift 1", "lift 2")
    assert s.action_to_string(s.string_to_action("land 40")) == "land 40"


@isolated()
@pytest.mark.parametrize("text", [
    "", "put", "put 0", "put 65", "put -1", "put 3.5", "put x", "move 19", "move 19>21",
    "move 1>1", "move 19>>20", "hop 3", "land", "lift", "replace 19 20", "secret", "pass",
    "end 3", "19", "B19", 42, None])
def test_bad_text_raises_notation_error(text):
    s = ctor(black=[19, 1], white=[50])
    before = s.summary()
    with pytest.raises(boardlab.NotationError):
        s.string_to_action(text)
    with pytest.raises(boardlab.NotationError):
        s.play(text)
    assert s.summary() == before


@isolated()
def test_action_to_string_rejects_out_of_range():
    s = ctor(black=[19], white=[50])
    for action in (-1, s.game.num_actions, 10 ** 6):
        with pytest.raises(boardlab.NotationError):
            s.action_to_string(action)


@isolated()
def test_illegal_moves_raise_with_a_reason_and_change_nothing():
    s = ctor(black=[19, 1], white=[50, 20])
    for move in ("put 19", "put 50", "move 19>20", "move 50>51", "lift 50", "replace 1",
                 "replace 50", "secret 3", "lift 60"):
        assert_illegal(s, move)
    s.play("put 60")
    s.play("put 61")
    assert_illegal(s, "put 62")
    with pytest.raises(boardlab.IllegalMoveError):
        s.apply(-5)
    with pytest.raises(boardlab.IllegalMoveError):
        s.apply(s.game.num_actions)
    with pytest.raises(boardlab.IllegalMoveError):
        s.apply("put 3")
    s.play("end")
    s.play("end")
    s.play("end")
    assert s.is_terminal()
    assert_illegal(s, "end")
    assert_illegal(s, "put 2")


@isolated()
def test_reason_for_a_bad_second_lift():
    """In the middle of a Landing, lifting a square without an own chip: say so."""
    s = ctor(black=[10, 11, 13], white=[12])
    s.play("lift 10")
    for square in (12, 20, 10):
        reason = assert_illegal(s, f"lift {square}")
        assert f"square {square}" in reason, reason  # not "no Landing left this turn"


# Random games: a reference reading of RULES §4 ------------------------------------------------

class RefCtor:
    """RULES §4, written directly (single-agent teams). Moves are notation strings."""

    def __init__(self, game):
        o = game.options
        self.n = n = o["size"]
        self.P = n * n
        sizes = tuple(int(v) for v in o["teams"].split("v"))
        table = [[int(v) for v in row.split(",")] for row in o["quota_table"].split("/")]
        # T-A2: the larger team's row for both (default) or each team its own size's row
        self.quotas = [table[(o["quota_row"] or (size if o["quota_by"] == "own" else
                                                  max(sizes))) - 1] for size in sizes]
        self.opening = 3 if max(sizes) == 3 else 2
        self.after_op = o["replace_only_after_op"]
        self.end_check = o["end_check"]
        self.auto = o["auto_replace_closure"]
        self.null_end = o["end_on_null_turns"]
        self.secret_count = o["secret_count"]
        self.max_turns = o["max_turns"] or 4 * self.P
        self.board = [0] * self.P
        self.secret = [{}, {}]  # cell -> spent
        self.pending = set()
        self.turns = self.nulls = 0
        self.over = None
        self.full = False
        self.step = 0
        self.team = o["first_team"] - 1
        self.first = self.team
        self.picks = 0
        if o["secrets"]:
            for team, part in enumerate(o["secrets"].split("/")):
                self.secret[team] = {int(v) - 1: False for v in part.split(",")}
        if o["position"]:
            rows = o["position"].replace(" ", "").split("/")
            marks = "." + "".join(c[0].upper() for c in game.colours)
            self.board = [marks.index(ch) for ch in "".join(rows).upper()]
            self.start(o["turn"] - 1, "regular")
        elif o["secret_squares"] and not o["secrets"]:
            self.phase = "secret"
            self.picks = self.secret_count
        else:
            self.start(self.team, "opening")

    def start(self, team, phase):
        self.team, self.phase = team, phase
        self.ops = self.replaced = self.lifts = 0
        if phase == "opening":
            self.left = {"put": self.step + 1, "move": 0, "land": 0}
        else:
            self.left = dict(zip(("put", "move", "land"), self.quotas[team]))

    def count(self, team):
        return self.board.count(team + 1)

    def can_replace(self, x, team):
        if self.board[x] != 2 - team:
            return False
        return sum(self.board[q] == team + 1 for q in around(self.n, x)) >= 5

    def replaces(self):
        return [x for x in range(self.P) if self.can_replace(x, self.team)]

    def legal(self):
        if self.over:
            return set()
        t, P, colour = self.team, self.P, self.team + 1
        if self.phase == "secret":
            return {f"secret {x + 1}" for x in range(P) if x not in self.secret[t]}
        mine = [x for x in range(P) if self.board[x] == colour]
        empty = [x for x in range(P) if self.board[x] == 0]
        if self.lifts == 1:
            return {f"lift {x + 1}" for x in mine}
        if self.lifts == 2:
            return {f"land {x + 1}" for x in empty}
        if self.phase == "opening":
            return {f"put {x + 1}" for x in empty}
        out = {"end"}
        if not self.full or self.end_check == "end_of_turn":  # RULES 4.5
            if self.left["put"]:
                out |= {f"put {x + 1}" for x in empty}
            if self.left["move"]:
                out |= {f"move {x + 1}>{y + 1}" for x in mine
                        for y in around(self.n, x, DIRS4) if self.board[y] == 0}
            if self.left["land"] and len(mine) >= 2:
                out |= {f"lift {x + 1}" for x in mine}
        if self.ops or not self.after_op:
            out |= {f"replace {x + 1}" for x in self.replaces()}
        return out

    def replaces_allowed(self):
        return self.phase == "regular" and not self.lifts and not self.over and \
            (self.ops or not self.after_op)

    def arrive(self, x):
        if self.secret[1 - self.team].get(x) is False:
            self.pending.add(x)

    def apply(self, move):
        team, turns = self.team, self.turns
        self.apply_one(move)
        if self.auto and move.split()[0] in ("put", "move", "land") and not self.over and \
                self.phase == "regular" and (self.team, self.turns) == (team, turns):
            while (self.team, self.turns) == (team, turns) and not self.over and \
                    self.replaces():  # RULES 4.3: the closure, after each operation
                self.apply_one(f"replace {self.replaces()[0] + 1}")

    def apply_one(self, move):
        t = self.team
        if move == "end":
            return self.end_turn()
        kind, arg = move.split()
        if kind == "secret":
            self.secret[t][int(arg) - 1] = False
            self.picks -= 1
            if self.picks == 0:
                if t == self.first:
                    self.team, self.picks = 1 - t, self.secret_count
                else:
                    self.start(self.first, "opening")
            return
        if kind == "move":
            x, y = (int(v) - 1 for v in arg.split(">"))
            assert self.board[x] == t + 1 and self.board[y] == 0
            self.board[x], self.board[y] = 0, t + 1
            self.left["move"] -= 1
            self.ops += 1
            self.arrive(y)
            return
        x = int(arg) - 1
        if kind == "lift":
            if self.lifts == 0:
                self.left["land"] -= 1
            self.lifts += 1
            self.board[x] = 0
            self.full = False  # (a full field only lets one lift happen with end_of_turn)
        elif kind in ("put", "land"):
            self.board[x] = t + 1
            self.arrive(x)
            self.ops += 1
            if kind == "land":
                self.lifts = 0
            else:
                self.left["put"] -= 1
            if self.phase == "opening":
                if self.left["put"] == 0 or 0 not in self.board:
                    self.end_turn()
            elif 0 not in self.board:
                self.full = True
                if self.end_check == "immediate" or \
                        self.end_check == "after_replaces" and not self.replaces():
                    self.end_turn()
        elif kind == "replace":
            self.board[x] = t + 1
            self.replaced += 1
            if self.full and self.end_check == "after_replaces" and not self.replaces():
                self.end_turn()

    def end_turn(self):
        t = self.team
        for x in self.pending:  # RULES 4.6: the opponent's triggered squares flip
            self.secret[1 - t][x] = True
            if self.board[x] == t + 1:
                self.board[x] = 2 - t
        self.pending.clear()
        if self.phase == "regular":
            self.nulls = self.nulls + 1 if self.ops == 0 and self.replaced == 0 else 0
        self.turns += 1
        if self.full:
            self.over = "field full"
        elif self.null_end and self.nulls >= 2:
            self.over = "two null turns"
        elif self.turns >= self.max_turns:
            self.over = "turn cap"
        elif self.phase == "opening" and self.step + 1 < self.opening:
            self.step += 1
            self.start(1 - t, "opening")
        else:
            self.start(1 - t, "regular")

    def spent(self, team):
        return sorted(x + 1 for x, s in self.secret[team].items() if s)

    def all_secret(self, team):
        return sorted(x + 1 for x in self.secret[team])


def check_hidden(state):
    """Views of one team and of a spectator do not depend on the other team's hidden squares."""
    game = state.game
    pending = state._arr(K.A_PENDING)
    for team in (0, 1):
        marks = state._arr(K.A_SECRET + team)
        hidden = [int(x) for x in np.flatnonzero(marks == 1) if not pending[x]]
        free = [int(x) for x in np.flatnonzero(marks == 0) if not pending[x]]
        if not hidden or not free:
            continue
        other = state.clone()
        arr = other._arr(K.A_SECRET + team)
        arr[hidden[len(hidden) // 2]] = 0
        arr[free[(7 * len(free)) // 11]] = 1
        assert other.secret_squares(team) != state.secret_squares(team)
        for seat in [s for s in range(game.num_seats) if game.team_of(s) != team] + [None]:
            a = json.dumps(state.view(seat), sort_keys=True)
            b = json.dumps(other.view(seat), sort_keys=True)
            assert a == b, f"seat {seat} sees team {team + 1}'s hidden secret squares"
        for seat in [s for s in range(game.num_seats) if game.team_of(s) == team]:
            assert other.view(seat)["my_secret_squares"] == other.secret_squares(team)


def _touched(game, action):
    """Squares (0-based) an action of the game phase puts, moves, lifts or replaces."""
    P, nbr = game.P, game.topology.nbr
    if action < P:
        return {action}
    if action < 5 * P:
        x, d = divmod(action - P, 4)
        return {x, int(nbr[x, d])}
    if action < 7 * P:
        return {action % P}
    return set()


def check_twin_views(state):
    """Replay the game with one team's unspent secret picks on other, untouched squares:
    the other team's and the spectator's views must be the same."""
    game = state.game
    P, count = game.P, game.options["secret_count"]
    history = [action for _, action in state.history]
    picks = [i for i, a in enumerate(history) if 7 * P < a < game.num_actions]
    touched = set().union(*[_touched(game, a) for a in history if a < 7 * P])
    first = game.options["first_team"] - 1
    compared = 0
    for team in (0, 1):
        mine = [i for k, i in enumerate(picks) if (k < count) == (team == first)]
        squares = {history[i] - 7 * P - 1 for i in mine}
        unspent = {x - 1 for x in state.secret_squares(team, spent=False)}
        free = [x for x in range(P) if x not in touched and x not in squares]
        twin_history = list(history)
        for i in mine:
            if history[i] - 7 * P - 1 in unspent and free:
                twin_history[i] = 7 * P + 1 + free.pop(len(free) // 2)
        if twin_history == history:
            continue
        twin = game.new_initial_state()
        for action in twin_history:
            twin.apply(action)
        assert twin.secret_squares(team) != state.secret_squares(team)
        for seat in [s for s in range(game.num_seats) if game.team_of(s) != team] + [None]:
            a = json.dumps(state.view(seat), sort_keys=True)
            b = json.dumps(twin.view(seat), sort_keys=True)
            assert a == b, f"seat {seat} sees team {team + 1}'s secret picks"
        compared += 1
    return compared


def check_views(state, ref):
    game = state.game
    revealed = {game.colours[t]: ref.spent(t) for t in (0, 1)}
    for seat in list(range(game.num_seats)) + [None]:
        view = state.view(seat)
        assert view["revealed_secret_squares"] == revealed
        team = None if seat is None else game.team_of(seat)
        assert view["my_secret_squares"] == (None if team is None else ref.all_secret(team))
        mover = state.current_player()
        assert (view["legal_actions"] != []) == (seat == mover and not state.is_terminal())


def play_random(options, chooser, lazy=0, hidden_checks=0):
    """One random game checked step by step against RefCtor and the invariants."""
    game = boardlab.make("ctor", **options)
    n = game.options["size"]
    s = game.new_initial_state()
    ref = RefCtor(game)
    moves, length = [], 0
    check_at = {chooser.rnd.randrange(1, 200) for _ in range(hidden_checks)}
    while True:
        board = s.board
        # counts match the field, and the reference
        assert s.counts() == (int((board == 1).sum()), int((board == 2).sum()))
        assert board.tolist() == ref.board, "field differs from the reference"
        assert (ref.over is not None) == s.is_terminal()
        if s.is_terminal():
            break
        team = ref.team
        assert s.current_player() == game.captain(team)
        legal = s.legal_moves()
        assert len(set(legal)) == len(legal)
        assert set(legal) == ref.legal(), (
            f"legal moves differ: engine-only {sorted(set(legal) - ref.legal())[:6]}, "
            f"reference-only {sorted(ref.legal() - set(legal))[:6]}")
        # the Replace condition, by our own neighbour count
        offered = {int(m.split()[1]) for m in legal if m.startswith("replace")}
        mine = replaceable(board, n, team)
        assert offered <= mine
        if ref.replaces_allowed():
            assert offered == mine
        if ref.secret[0] or ref.secret[1]:
            for t in (0, 1):
                assert s.secret_squares(t) == ref.all_secret(t)
                assert s.secret_squares(t, spent=True) == ref.spent(t)
        if length in check_at and game.options["secret_squares"]:
            check_hidden(s)
            check_views(s, ref)
            check_twin_views(s)
        if lazy and "end" in legal and chooser.index(lazy) == 0:
            move = "end"
        else:
            move = chooser.pick(legal)
        moves.append(move)
        progress(f"ctor {options}, moves: {moves}")
        s.play(move)
        ref.apply(move)
        length += 1
        assert length <= game.max_game_length
    assert s.end_reason() == ref.over
    assert s.legal_actions() == []
    a, b = s.counts()
    returns = s.returns()
    sign = (a > b) - (a < b)
    for seat in range(game.num_seats):
        assert returns[seat] == (sign if game.team_of(seat) == 0 else -sign)
    if ref.over == "field full":
        assert (s.board != 0).all()
    if ref.over == "turn cap":
        assert ref.turns == ref.max_turns
    if game.options["secret_squares"]:
        check_views(s, ref)
    return s, moves


TEAMS = ("1v1", "2v2", "3v3", "1v2", "2v3")


@pytest.mark.parametrize("secret", [False, True])
@pytest.mark.parametrize("size", [8, 10])
@pytest.mark.parametrize("teams", TEAMS)
@isolated()
def test_random_games_follow_the_rules(teams, size, secret):
    rnd = random.Random(f"{teams}{size}{secret}")
    for lazy in (0, 5):
        play_random(dict(size=size, teams=teams, secret_squares=secret),
                    Chooser([], rnd.randrange(2 ** 32)), lazy=lazy,
                    hidden_checks=3 if secret else 0)


@settings(max_examples=examples(60), deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(teams=st.sampled_from(TEAMS + ("2v1", "3v1", "3v2")), size=st.sampled_from([8, 10]),
       secret=st.booleans(), first=st.sampled_from([1, 2]),
       end_check=st.sampled_from(["after_replaces", "immediate", "end_of_turn"]),
       after_op=st.booleans(), max_turns=st.sampled_from([0, 0, 7, 30]),
       quota_table=st.sampled_from(["2,2,1/2,2,0/3,3,0", "1,3,2/2,1,1/3,0,2"]),
       quota_by=st.sampled_from(["larger", "own"]), auto=st.booleans(),
       null_end=st.sampled_from([True, True, False]), secret_count=st.sampled_from([5, 5, 1, 3]),
       lazy=st.sampled_from([0, 3, 8]), choices=choices_st, seed=seed_st)
@isolated()
def test_random_games_with_random_options(teams, size, secret, first, end_check, after_op,
                                          max_turns, quota_table, quota_by, auto, null_end,
                                          secret_count, lazy, choices, seed):
    options = dict(size=size, teams=teams, secret_squares=secret, first_team=first,
                   end_check=end_check, replace_only_after_op=after_op, max_turns=max_turns,
                   quota_table=quota_table, quota_by=quota_by, auto_replace_closure=auto,
                   end_on_null_turns=null_end, secret_count=secret_count)
    # the views with secret_count != 5: see test_secret_picks_of_other_counts_stay_hidden
    play_random(options, Chooser(choices, seed), lazy=lazy,
                hidden_checks=2 if secret and secret_count == 5 else 0)


@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(teams=st.sampled_from(TEAMS), size=st.sampled_from([8, 10]), choices=choices_st,
       seed=seed_st, steps=st.integers(0, 400), first=st.sampled_from([1, 2]))
@isolated()
def test_secret_squares_are_hidden_from_the_opponents(teams, size, choices, seed, steps, first):
    game = boardlab.make("ctor", size=size, teams=teams, secret_squares=True, first_team=first)
    s = game.new_initial_state()
    chooser = Chooser(choices, seed)
    for _ in range(steps):
        if s.is_terminal():
            break
        s.apply(chooser.pick(s.legal_actions()))
    check_hidden(s)
    check_twin_views(s)
    for seat in range(game.num_seats):
        team = game.team_of(seat)
        assert s.view(seat)["my_secret_squares"] == s.secret_squares(team)
    for seat in list(range(game.num_seats)) + [None]:
        assert s.view(seat)["revealed_secret_squares"] == {
            game.colours[t]: s.secret_squares(t, spent=True) for t in (0, 1)}


@isolated()
def test_secret_squares_given_as_an_option_are_hidden_from_the_opponents():
    """The ``secrets`` set-up option must not show up in the other team's views."""
    views = []
    for secrets in ("1,2,3,4,5/36,7,8,9,10", "11,12,13,14,15/36,7,8,9,10"):
        s = boardlab.make("ctor", size=8, secret_squares=True,
                          secrets=secrets).new_initial_state()
        s.play("put 20")
        views.append(json.dumps(s.view(1), sort_keys=True))
    assert views[0] == views[1], "White's view shows Black's secret squares (in 'spec')"


@isolated()
@pytest.mark.parametrize("count", [3, 7])
def test_secret_picks_of_other_counts_stay_hidden(count):
    """secret_count != 5: each team's picks must still show as 'secret ?' to the other."""
    game = boardlab.make("ctor", size=8, secret_squares=True, secret_count=count)
    s = game.new_initial_state()
    black, white = list(range(1, count + 1)), list(range(40, 40 + count))
    for sq in black + white:
        s.play(f"secret {sq}")
    assert s.secret_squares(0) == black and s.secret_squares(1) == white
    assert s.view(None)["phase"] == "opening"
    assert s.view(0)["history"] == [f"secret {x}" for x in black] + ["secret ?"] * count
    assert s.view(1)["history"] == ["secret ?"] * count + [f"secret {x}" for x in white]
    assert s.view(None)["history"] == ["secret ?"] * (2 * count)
    assert check_twin_views(s) == 2


@isolated()
def test_secret_count_and_the_secrets_option():
    s = boardlab.make("ctor", size=8, secret_squares=True, secret_count=2,
                      secrets="36,1/36,2").new_initial_state()
    assert s.secret_squares(0) == [1, 36] and s.secret_squares(1) == [2, 36]
    s.play("put 36")  # White's 36: flips; Black's own 36 is not triggered by Black
    assert s.board[35] == 2 and s.secret_squares(1, spent=True) == [36]
    assert s.secret_squares(0, spent=True) == []
    with pytest.raises(boardlab.OptionError, match="secrets"):
        boardlab.make("ctor", size=8, secret_squares=True, secret_count=2,
                      secrets="1,2,3/4,5,6")


@isolated()
def test_quota_by_own_size():
    """T-A2 switched: each team uses the row of its own size."""
    s = ctor(black=[1, 2], white=[10, 11], teams="1v2", quota_by="own")
    assert quotas(s) == (2, 2, 1)
    play(s, "lift 1", "lift 2", "land 30", "end")
    assert quotas(s) == (2, 2, 0)
    assert not any(m.startswith("lift") for m in s.legal_moves())
    s = ctor(black=[1, 2], white=[10, 11], teams="2v3", quota_by="own", turn=2)
    assert quotas(s) == (3, 3, 0)
    s.play("end")
    assert quotas(s) == (2, 2, 0)
    s = ctor(black=[1, 2], white=[10, 11], teams="1v2")
    assert quotas(s) == (2, 2, 0)  # default: the larger team's row for both
    s = boardlab.make("ctor", size=8, teams="1v3", quota_by="own").new_initial_state()
    play(s, "put 1", "put 2", "put 3", "put 4", "put 5", "put 6")  # opening 1, 2, 3
    assert to_move(s) == 1 and quotas(s) == (3, 3, 0)
    s.play("end")
    assert quotas(s) == (2, 2, 1)


@isolated()
def test_null_turn_rule_can_be_switched_off():
    s = boardlab.make("ctor", size=8, end_on_null_turns=False, max_turns=9).new_initial_state()
    play(s, "put 1", "put 2", "put 3")
    for _ in range(3, 10):
        assert not s.is_terminal()
        s.play("end")
    assert s.is_terminal() and s.end_reason() == "turn cap"


@isolated()
def test_auto_replace_closure():
    s = ctor(black=[10, 11, 13, 18, 21, 26, 27], white=[19, 20], auto_replace_closure=True)
    assert replaces_offered(s) == {19}  # before any operation: offered, not automatic
    s.play("put 60")
    assert s.board[18] == 1 and s.board[19] == 1 and s.counts() == (10, 0)
    assert replaces_offered(s) == set()
    assert s.history_text() == ["put 60"]
    t = ctor(black=[10, 11, 13, 18, 21, 26], white=[19, 20], auto_replace_closure=True)
    play(t, "put 60", "lift 13", "lift 21")
    assert t.board[18] == 2 and t.counts() == (5, 2)  # 19 has four black neighbours
    t.play("land 27")  # the fifth: 19 flips; 20 then has three (11, 19, 27)
    assert t.board[18] == 1 and t.board[19] == 2 and t.counts() == (7, 1)


@isolated()
def test_land_and_put_are_kept_apart_in_the_notation():
    s = ctor(black=[1, 2], white=[10])
    with pytest.raises(boardlab.NotationError):
        s.play("land 40")  # not in a Landing
    play(s, "lift 1", "lift 2")
    with pytest.raises(boardlab.NotationError):
        s.play("put 40")  # a Landing ends with land
    s.play("land 40")
    assert squares_of(s, 1) == {40}


# Records, replay, round trips ------------------------------------------------------------------

@settings(max_examples=20, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(teams=st.sampled_from(TEAMS), size=st.sampled_from([8, 10]), secret=st.booleans(),
       choices=choices_st, seed=seed_st, steps=st.integers(0, 300))
@isolated()
def test_notation_round_trip_and_records(teams, size, secret, choices, seed, steps):
    game = boardlab.make("ctor", size=size, teams=teams, secret_squares=secret)
    s = game.new_initial_state()
    chooser = Chooser(choices, seed)
    for i in range(steps):
        if s.is_terminal():
            break
        legal = s.legal_actions()
        if i % 7 == 0:
            for action in legal:
                assert s.string_to_action(s.action_to_string(action)) == action
            illegal = sorted(set(range(game.num_actions)) - set(legal))
            for action in random.Random(i).sample(illegal, min(5, len(illegal))):
                buf = s.buf.copy()
                with pytest.raises(boardlab.IllegalMoveError) as info:
                    s.apply(action)
                assert info.value.reason
                assert np.array_equal(buf, s.buf)
        s.apply(chooser.pick(legal))
    record, loaded = boardlab.loads(boardlab.dumps(s))
    assert loaded.summary() == s.summary()
    assert boardlab.replay(game.spec, record["moves"]) == s.summary()
    assert boardlab.replay(game.spec, s.history_text()) == s.summary()


@isolated()
def test_records_of_a_set_up_position():
    s = ctor(black=T12_BLACK, white=T12_WHITE, secret_squares=True, secrets=SECRETS)
    play(s, "replace 19", "put 36", "lift 10", "lift 11", "land 45", "end", "put 1", "end")
    record, loaded = boardlab.loads(boardlab.dumps(s))
    assert loaded.summary() == s.summary()
    assert boardlab.replay(s.game.spec, record["moves"]) == s.summary()
    assert record["moves"] == ["replace 19", "put 36", "lift 10", "lift 11", "land 45",
                               "end", "put 1", "end"]


# Declared facts, the board block, text for front ends -------------------------------------------

@isolated()
def test_declared_facts():
    g = boardlab.make("ctor", size=8, teams="2v3")
    assert g.teams == ((0, 1), (2, 3, 4)) and g.team_names == ("black", "white")
    assert [g.team_of(s) for s in range(5)] == [0, 0, 1, 1, 1]
    assert g.perfect_information and not g.simultaneous
    assert g.chance == "none" and g.can_sample
    assert boardlab.make("ctor", size=8, secret_squares=True).perfect_information is False
    # simultaneous only where a team has several members
    assert boardlab.make("ctor", size=8, teams="2v3", team_protocol="simultaneous").simultaneous
    one = boardlab.make("ctor", size=8, team_protocol="simultaneous")
    assert not one.simultaneous and one.perfect_information
    red = boardlab.make("ctor", size=8, colours="red,green")
    assert red.team_names == ("red", "green") and red.teams == ((0,), (1,))
    facts = g.facts()
    assert facts["teams"] == [{"name": "black", "seats": ["black-1", "black-2"]},
                              {"name": "white", "seats": ["white-1", "white-2", "white-3"]}]
    for text in (g.rules_summary, g.notation_guide):
        assert text.strip() and "\n" not in text.strip()
    for word in ("put N", "move A>B", "lift", "land", "replace N", "'end'", "secret N",
                 "1 to 64", "row by row", "top left", "wraps"):
        assert word in g.notation_guide, word
    assert "more chips" in g.rules_summary


@isolated()
def test_scores_winners_and_end_reason():
    black, white = _checkerboard(hole=64)
    s = ctor(black=black + [2], white=[w for w in white if w != 2], end_check="immediate")
    assert s.scores() == {"black": 32, "white": 31} and s.winners() == []
    assert s.end_reason() is None and s.view(None)["result"] is None
    s.play("put 64")
    assert s.is_terminal() and s.scores() == {"black": 33, "white": 31}
    assert s.winners() == [0] and s.end_reason() == "field full"
    view = s.view(1)
    assert view["winner"] == "black" and view["end_reason"] == "field full"
    assert view["result"] == {"winners": ["black"], "draw": False, "returns": [1.0, -1.0],
                              "scores": {"black": 33, "white": 31}, "reason": "field full",
                              "summary": "Black wins 33–31 (field full)"}
    t = boardlab.make("ctor", size=8, teams="2v2").new_initial_state()
    play(t, "put 1", "put 2", "put 3", "end", "end")
    assert t.winners() == [2, 3] and t.view(0)["winner"] == "white"
    assert t.view(0)["result"]["winners"] == ["white-1", "white-2"]
    u = boardlab.make("ctor", size=8, teams="2v2").new_initial_state()
    u.play("put 1")
    u.play("resign")
    assert u.winners() == [0, 1] and u.end_reason() == "resignation"


@isolated()
def test_board_description_and_block():
    from boardlab.core.board import check_block
    g = boardlab.make("ctor", size=8, secret_squares=True, secrets=SECRETS,
                      position=field(black=[18, 19, 20, 26, 50], white=[27, 60]))
    desc = g.board_description()
    assert desc["kind"] == "torus" and desc["width"] == desc["height"] == 8
    assert desc["cells"] == [str(q) for q in range(1, 65)]
    assert desc["pieces"] == {"B": {"label": "black chip", "owner": "black"},
                              "W": {"label": "white chip", "owner": "white"}}
    s = g.new_initial_state()
    block = s.view(0)["board"]
    assert not check_block(desc, block)
    assert block["cells"][17] == "B" and block["cells"][26] == "W" and block["cells"][0] is None
    assert block["marks"] == {"secret": ["1", "2", "3", "4", "5"], "revealed": [], "last": []}
    assert s.view(1)["board"]["marks"]["secret"] == ["7", "8", "9", "10", "36"]
    assert s.view(None)["board"]["marks"]["secret"] == []
    s.play("move 19>11")
    assert s.view(None)["board"]["marks"]["last"] == ["19", "11"]
    play(s, "put 36", "end")  # white's 36 flips
    for seat in (0, 1, None):
        marks = s.view(seat)["board"]["marks"]
        assert marks["revealed"] == ["36"] and marks["last"] == ["36"]  # 'end' passes
        assert s.view(seat)["board"]["cells"][35] == "W"
    assert s.view(1)["board"]["marks"]["secret"] == ["7", "8", "9", "10"]


@isolated()
def test_the_last_mark_never_shows_a_hidden_pick():
    s = boardlab.make("ctor", size=8, secret_squares=True, secret_count=1).new_initial_state()
    s.play("secret 20")
    assert s.view(0)["board"]["marks"]["last"] == ["20"]
    assert s.view(1)["board"]["marks"]["last"] == [] == s.view(None)["board"]["marks"]["last"]
    s.play("secret 30")  # hidden entries are passed over, like 'end'
    assert s.view(0)["board"]["marks"]["last"] == ["20"]
    assert s.view(1)["board"]["marks"]["last"] == ["30"]
    assert s.view(None)["board"]["marks"]["last"] == []


@isolated()
def test_status_lines_hide_the_quotas_while_secret_squares_are_picked():
    s = boardlab.make("ctor", size=8, secret_squares=True, secret_count=2).new_initial_state()
    lines = s.status_lines(0)
    assert not any("put" in line or "landing" in line for line in lines), lines
    assert any("picks secret squares (2 to go)" in line for line in lines)
    play(s, "secret 5", "secret 6")
    assert any("white picks secret squares (2 to go)" in line for line in s.status_lines(1))
    play(s, "secret 7", "secret 8")
    assert any("left this turn: put 1, move 0, landing 0" in line for line in s.status_lines(0))
    assert "your secret squares: 5, 6" in "\n".join(s.status_lines(0))
    rendered = s.render(seat=0)
    assert "  *" in rendered and " 7 " in rendered.replace("|", " ")


@isolated()
def test_undo_floor():
    s = boardlab.make("ctor", size=8).new_initial_state()
    play(s, "put 1", "put 2", "put 3", "put 4", "end")
    assert s.undo_floor() == 0  # perfect information: anywhere
    # secret squares: never before the end of a turn (a flip, or the news of none)
    t = boardlab.make("ctor", size=8, secret_squares=True, secret_count=1).new_initial_state()
    play(t, "secret 5", "secret 6")
    assert t.undo_floor() == 0  # the picks reveal nothing
    t.play("put 1")  # the opening turn ends
    assert t.undo_floor() == 3
    play(t, "put 5", "put 7")  # white on black's 5: flips at the end of this turn
    assert t.undo_floor() == 5 and t.board[4] == 1
    play(t, "put 8")
    assert t.undo_floor() == 5
    t.play("end")
    assert t.undo_floor() == 7
    t.play("resign")
    assert t.undo_floor() == 7


@isolated()
def test_announcements_of_secret_squares():
    s = ctor(black=[18, 19, 20, 26, 50], white=[27, 60], secret_squares=True, secrets=SECRETS)
    play(s, "move 50>51", "move 51>43")  # not on 36
    assert s.announcements(0) == []
    play(s, "put 36", "put 9", "end")
    assert s.announcements(4) == ["white's secret square 9: black's chip turns white",
                                  "white's secret square 36: black's chip turns white"]
    assert s.announcements(2) == s.announcements(4) and s.announcements(5) == []
    t = ctor(black=[17, 25, 33], white=[12], secret_squares=True,
             secrets="60,61,62,63,64/9,18,20,26,34")
    play(t, "move 17>18", "move 18>19", "end")
    assert t.announcements(0) == ["white's secret square 18 is revealed "
                                  "(the chip has left it: nothing turns)"]


def _reference_visible_history(state, seat):
    """visible_history as first written: every entry in notation, then the hidden ones
    found by their text (a commit of another member in the open sub-round, the other
    team's secret picks) and written over."""
    game = state.game
    texts = state.history_text()
    team = None if seat is None else game.team_of(seat)
    if K.in_round(state.buf, game.cfg):
        hidden = int(K.pending_total(state.buf, game.cfg))
        own = None if seat is None else game.seat_names[seat]
        end = len(texts) - (state.resigned is not None)
        for i in range(end - hidden, end):
            name = texts[i].partition(":")[0]
            if name in game.seat_names and name != own:
                texts[i] = f"{name}:?"
    picks = [i for i, move in enumerate(texts) if move.startswith("secret ")]
    count, first = int(game.cfg[K.C_SECRETS]), int(game.cfg[K.C_FIRST])
    for k, i in enumerate(picks):
        if (first if k < count else 1 - first) != team:
            texts[i] = "secret ?"
    return texts


def _reference_last_squares(history):
    """The squares of the latest visible entry that names some, read from its text."""
    for entry in reversed(history):
        move = entry.partition(":")[2] if ":" in entry else entry
        numbers = re.findall(r"\d+", move)
        if numbers:
            return numbers
    return []


@pytest.mark.parametrize("spec", [s for s in conformance_specs() if s.startswith("ctor")])
def test_the_hidden_entries_and_the_last_squares_are_found_without_writing_the_history(spec):
    """Views find what a seat may not see, and the squares of the last move it may, from
    the actions (quicker): the same as reading the written history."""
    game = boardlab.make(spec)
    rng = random.Random(7)
    for g in range(3):
        state = game.new_initial_state(seed=g)
        plies = 0
        while not state.is_terminal() and plies < 120:
            for seat in [None, *range(game.num_seats)]:
                expected = _reference_visible_history(state, seat)
                assert state.visible_history(seat) == expected
                assert state.board_view(seat)["marks"]["last"] == _reference_last_squares(expected)
            if state.is_chance():
                state.apply(state.sample_chance(rng))
                continue
            seat = rng.choice(state.acting_seats())
            if plies == 100 and g == 2:
                state.resign(seat, out_of_turn=True)   # in a sub-round or not
            else:
                state.apply(rng.choice(state.legal_actions_for(seat)), seat=seat)
            plies += 1
