"""Rumbo: the worked examples R1-R10 of RULES.md §2.9.

R1-R9 are hand-checked positions; R10 is a set of property tests on random
playouts (hypothesis), with the slow oracle ``tests/reference.py::RefRumbo``
(including the set of legal (point, colour) moves). Diagrams in RULES.md print
the top row first, which is also the order of the ``position`` option.
North = up = toward higher row numbers (RULES §2.2, §2.7c).

Every test body runs in a forked child process with a time limit (``isolated``):
the engine's compiled kernels cannot be interrupted, so an endless loop in them
would otherwise hang the whole run; a fresh process per test also keeps the tests
independent of each other.
"""
from __future__ import annotations

import math
import random
import warnings

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import boardlab
from choices import Chooser, choices_st, seed_st
from depth import examples
from isolation import isolated, progress
from territory_helpers import claim, claims_of
from reference import RefRumbo

V, H = "vertical", "horizontal"
LETTERS = "abcdefghijklmnopqrstuvwxyz"


def _warm_up():
    """Load the compiled kernels once in the parent, so that forked tests start fast.

    Size 8 only (the tests use other sizes). Best effort: any failure shows up again
    in the tests themselves.
    """
    try:
        t = boardlab.make("rumbo", size=8, komi=0.5, turn="horizontal",
                          position="WB....../B......./" + "/".join(["........"] * 6),
                          claims="Va8").new_initial_state()
        t.play("Bc8")
        t.summary()
        s = boardlab.make("rumbo", size=8, komi=0.5).new_initial_state()
        for move in ("Wa8", "Bb8", "Ba7", "Wc3"):
            s.play(move)
        s.summary()
    except boardlab.BoardlabError:
        pass


_warm_up()


# Helpers -------------------------------------------------------------------------------------

def rumbo(position="", *, turn="vertical", komi=0.5, size=5, claims=""):
    """A state of a Rumbo analysis set-up (komi 0.5 unless told: no parity warning)."""
    options = dict(size=size, komi=komi, turn=turn)
    if position:
        options["position"] = position
    if claims:
        options["claims"] = claims
    return boardlab.make("rumbo", **options).new_initial_state()


def stones(state):
    """(V, H) stones in claimed groups: the scores without komi."""
    v, h = state.scores_half()
    return v / 2, (h - state.komi_half) / 2


def assert_illegal(state, move):
    before = state.summary()
    assert move not in state.legal_moves()
    with pytest.raises(boardlab.IllegalMoveError):
        state.play(move)
    assert state.summary() == before  # an illegal move changes nothing


# R1 ----------------------------------------------------------------------------------------

R1 = ".B.../...../...../...../....."


@isolated()
def test_r1_the_hole_rule_depends_on_colour():
    s = rumbo(R1)
    assert_illegal(s, "Ba4")  # a5 would be surrounded by B at b5 and a4
    assert "Wa4" in s.legal_moves()
    s.play("Wa4")
    assert s.summary()["board"][:2] == [".B...", "W...."]
    assert claims_of(s) == []
    assert s.summary()["to_move"] == H


# R2 ----------------------------------------------------------------------------------------

R2 = ".B.../...../.W.../W..../....."


@isolated()
def test_r2_a_point_illegal_for_both_colours():
    s = rumbo(R2)
    assert_illegal(s, "Ba4")  # a5 would become a B-hole
    assert_illegal(s, "Wa4")  # a3 would be surrounded by W at a4, a2, b3
    legal = s.legal_moves()
    for move in ("Ba5", "Wa5", "Ba3", "Wa3"):
        assert move in legal
        t = s.clone()
        t.play(move)
        assert claims_of(t) == []
    assert len(legal) > 0


# R3 ----------------------------------------------------------------------------------------

@isolated()
def test_r3_single_adjacency_north_goes_to_v():
    s = rumbo("WB.../...../...../...../.....")
    s.play("Ba4")
    assert claims_of(s) == [claim("V", "a5")]
    assert stones(s) == (1, 0)
    assert s.summary()["scores"] == {V: 1.0, H: 0.5}


@isolated()
def test_r3b_single_adjacency_west_goes_to_h():
    s = rumbo("W..../B..../...../...../.....")
    s.play("Bb5")
    assert claims_of(s) == [claim("H", "a5")]
    assert stones(s) == (0, 1)


# R4 ----------------------------------------------------------------------------------------

@isolated()
def test_r4_left_north_east_goes_to_v():
    s = rumbo("BWWB./..WB./..B../...../.....")
    s.play("Bb4")
    assert claims_of(s) == [claim("V", "b5", "c5", "c4")]
    assert stones(s) == (3, 0)


@isolated()
def test_r4_right_mirror_north_west_goes_to_h():
    s = rumbo(".BWWB/.BW../..B../...../.....")
    s.play("Bd4")
    assert claims_of(s) == [claim("H", "d5", "c5", "c4")]
    assert stones(s) == (0, 3)


# R5 ----------------------------------------------------------------------------------------

@isolated()
def test_r5_left_the_new_stones_own_group_north():
    s = rumbo("BW.../.W.../W..../...../.....")
    s.play("Ba4")
    assert claims_of(s) == [claim("V", "a5", "a4")]
    assert stones(s) == (2, 0)


@isolated()
def test_r5_right_the_new_stones_own_group_east():
    s = rumbo(".BW../WW.../...../...../.....")
    s.play("Ba5")
    assert claims_of(s) == [claim("H", "a5", "b5")]
    assert stones(s) == (0, 2)


# R6 ----------------------------------------------------------------------------------------

@isolated()
def test_r6_two_groups_claimed_by_different_players_in_one_move():
    s = rumbo("..B../.BWB./...WB/...B./.....")
    s.play("Bc3")
    assert claims_of(s) == sorted([claim("V", "c4"), claim("H", "d3")])
    assert stones(s) == (1, 1)
    # the B stone at c3 still has liberties (b3, c2) and is unclaimed
    n = 5
    assert s.claim_owner_map()[2 * n + 2] == -1


# R7 ----------------------------------------------------------------------------------------

@isolated()
def test_r7_left_triplet_nes_goes_to_v():
    s = rumbo("BWWB./B.WB./BWWB./.BB../.....")
    s.play("Bb4")
    assert claims_of(s) == [claim("V", "b5", "c5", "c4", "c3", "b3")]
    assert stones(s) == (5, 0)


@isolated()
def test_r7_right_triplet_new_goes_to_h():
    s = rumbo("BWWWB/BW.WB/.BBB./...../.....")
    s.play("Bc4")
    assert claims_of(s) == [claim("H", "b5", "c5", "d5", "b4", "d4")]
    assert stones(s) == (0, 5)


# R8 ----------------------------------------------------------------------------------------

@isolated()
def test_r8_new_stone_joins_two_groups_east_west():
    s = rumbo("WB.BW/.WWW./...../...../.....")
    assert "Bc5" in s.legal_moves()  # c5 is not a hole: mixed neighbours
    s.play("Bc5")
    assert claims_of(s) == [claim("H", "b5", "c5", "d5")]
    assert stones(s) == (0, 3)


# R9 ----------------------------------------------------------------------------------------

R9_START = ["Ba2", "Wb1", "Ba1"]


def _r9(komi):
    s = boardlab.make("rumbo", size=2, komi=komi).new_initial_state()
    for move in R9_START:
        s.play(move)
    assert claims_of(s) == []
    assert s.summary()["to_move"] == H
    assert sorted(s.legal_moves()) == ["Bb2", "Wb2"]
    return s


@isolated()
def test_r9_black_b2():
    s = _r9(1)
    s.play("Bb2")
    assert claims_of(s) == sorted([claim("H", "a2", "a1", "b2"), claim("V", "b1")])
    assert stones(s) == (1, 3)
    assert s.is_terminal()
    summ = s.summary()
    assert summ["scores"] == {V: 1.0, H: 4.0}
    assert summ["winner"] == H and s.returns() == [-1.0, 1.0]


@isolated()
def test_r9_white_b2_komi_0_is_a_draw():
    with pytest.warns(UserWarning, match="parity"):
        game = boardlab.make("rumbo", size=2, komi=0)
    s = game.new_initial_state()
    for move in R9_START + ["Wb2"]:
        s.play(move)
    assert claims_of(s) == sorted([claim("V", "b2", "b1"), claim("H", "a2", "a1")])
    assert stones(s) == (2, 2)
    assert s.is_terminal()
    summ = s.summary()
    assert summ["scores"] == {V: 2.0, H: 2.0}
    assert summ["result"] == "draw" and summ["winner"] is None
    assert s.returns() == [0.0, 0.0]


@isolated()
def test_r9_white_b2_komi_1_h_wins():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # komi 1 has the other parity than N = 2: no warning
        s = _r9(1)
    s.play("Wb2")
    assert s.is_terminal()
    assert s.summary()["scores"] == {V: 2.0, H: 3.0}
    assert s.summary()["winner"] == H and s.returns() == [-1.0, 1.0]


@isolated()
def test_r9_replay():
    with pytest.warns(UserWarning, match="parity"):
        summ = boardlab.replay("rumbo(size=2,komi=0)", ["Ba2", "Wb1", "Ba1", "Wb2"])
    assert summ["board"] == ["BW", "BW"]
    assert summ["result"] == "draw" and summ["terminal"]


@isolated()
def test_rumbo_has_no_pass_and_default_komi():
    s = boardlab.make("rumbo", size=5).new_initial_state()
    assert s.summary()["komi"] == 6.0  # RULES §2.6: 6 for odd N
    assert "pass" not in s.legal_moves() and len(s.legal_moves()) == 50
    with pytest.raises((boardlab.IllegalMoveError, boardlab.NotationError)):
        s.play("pass")


# R10: property tests -------------------------------------------------------------------------

DIRS = (("N", 1, 0, 1), ("E", 0, 1, 2), ("S", -1, 0, 4), ("W", 0, -1, 8))
V_MASKS = {1, 3, 4, 5, 7, 12, 13}
H_MASKS = {2, 6, 8, 9, 10, 11, 14}


def _nbrs(n, cell):
    r, c = divmod(cell, n)
    for _, dr, dc, bit in DIRS:
        if 0 <= r + dr < n and 0 <= c + dc < n:
            yield (r + dr) * n + c + dc, bit


def _flood(board, n, start):
    v = board[start]
    seen, todo = {start}, [start]
    while todo:
        x = todo.pop()
        for q, _ in _nbrs(n, x):
            if q not in seen and board[q] == v:
                seen.add(q)
                todo.append(q)
    return frozenset(seen)


def _groups(board, n):
    seen, out = set(), []
    for cell in range(n * n):
        if board[cell] and cell not in seen:
            g = _flood(board, n, cell)
            seen |= g
            out.append(g)
    return out


def _liberties(board, n, group):
    return {q for s in group for q, _ in _nbrs(n, s) if board[q] == 0}


def _is_hole(board, n, cell):
    if board[cell]:
        return False
    around = {board[q] for q, _ in _nbrs(n, cell)}
    return len(around) == 1 and 0 not in around


def _legal_set(board, n):
    """(cell, colour) pairs that are legal by the text of RULES §2.3, computed directly."""
    out = set()
    for cell in range(n * n):
        if board[cell]:
            continue
        for colour in (1, 2):
            board[cell] = colour
            if not any(_is_hole(board, n, q) for q, _ in _nbrs(n, cell)):
                out.add((cell, colour))
            board[cell] = 0
    return out


def _name(cell, n):
    return f"{LETTERS[cell % n]}{cell // n + 1}"


class RumboChecker:
    """The R10 invariants after every move."""

    def __init__(self, n):
        self.n = n
        self.claimed = {}  # cell -> (group at claim time, owner)
        self.masks = set()

    def after(self, state, cell):
        n = self.n
        board = [int(x) for x in state.board]
        owners = [int(x) for x in state.claim_owner_map()]
        # no holes on the board
        assert not any(_is_hole(board, n, x) for x in range(n * n)), "a hole"
        on_board = sum(bit for _, bit in _nbrs(n, cell))
        for g in _groups(board, n):
            own = {owners[s] for s in g}
            assert len(own) == 1, "a group with mixed owners"
            owner = own.pop()
            libs = _liberties(board, n, g)
            # every liberty-less group is claimed, and only those
            assert (owner >= 0) == (not libs), f"group {sorted(_name(s, n) for s in g)}"
            if owner < 0:
                continue
            old = {self.claimed[s] for s in g if s in self.claimed}
            if old:
                # a claimed group never changes again (stones and owner)
                assert old == {(g, owner)}, "a claimed group changed"
                continue
            # a new claim: it touches the stone just placed; its adj set decides the owner
            # (for the placed stone's own group: the directions of its same-coloured
            # neighbours; for another group: the directions in which it touches p)
            mask = sum(bit for q, bit in _nbrs(n, cell) if q in g)
            assert mask != 0, "adj(G) is empty"
            assert mask != 15, "adj(G) is the full set"
            assert mask & on_board != on_board, "adj(G) covers all of p's neighbours"
            assert owner == (0 if mask in V_MASKS else 1), f"mask {mask}"
            self.masks.add(mask)
            for s in g:
                self.claimed[s] = (g, owner)
        v = sum(1 for o in owners if o == 0)
        h = sum(1 for o in owners if o == 1)
        assert state.scores_half() == (2 * v, 2 * h + state.komi_half)
        return board, v, h


def _play_random(chooser, size, with_oracle):
    s = boardlab.make("rumbo", size=size, komi=0.5).new_initial_state()
    n, P = size, size * size
    checker = RumboChecker(n)
    ref = RefRumbo(n) if with_oracle else None
    moves, movers = [], []
    while not s.is_terminal():
        board = [int(x) for x in s.board]
        legal = s.legal_actions()
        mine = _legal_set(board, n)
        # at least one legal (point, colour) while the board has empty points
        assert legal, "no legal move on a board with empty points"
        assert all(a < 2 * P for a in legal), "Rumbo has no pass"
        engine_set = {(a % P, 1 + a // P) for a in legal}
        assert len(engine_set) == len(legal)
        assert engine_set == mine
        if ref is not None:
            ref_set = {(r * n + c, 1 + "BW".index(colour)) for r in range(n) for c in range(n)
                       for colour in "BW" if ref.legal(r, c, colour)}
            assert engine_set == ref_set
            assert ref.turn == s.current_player()
        assert s.current_player() == len(moves) % 2  # V, H alternate; no passing
        movers.append(s.current_player())
        action = chooser.pick(legal)
        cell, colour = action % P, 1 + action // P
        moves.append(s.action_to_string(action))
        progress(f"rumbo size {size}, moves: {moves}")
        s.apply(action)
        board, v, h = checker.after(s, cell)
        if ref is not None:
            r, c = divmod(cell, n)
            ref.place(r, c, "BW"[colour - 1])
            ref_board = ["".join(ref.board[(r, c)] for c in range(n))
                         for r in range(n - 1, -1, -1)]
            assert s.summary()["board"] == ref_board
            assert ref.scores() == [v, h]
            owners = s.claim_owner_map()
            marked = {}
            for p, owner in ref.markers.items():
                for q in _flood(board, n, p[0] * n + p[1]):
                    assert marked.setdefault(q, owner) == owner
            assert {x: int(owners[x]) for x in range(P) if owners[x] >= 0} == marked
    # the end: a full board after exactly N² placements, V made ceil(N²/2) of them
    assert len(moves) == P and all(s.board)
    assert movers.count(0) == math.ceil(P / 2)
    v, h = stones(s)
    assert v + h == P
    summ = s.summary()
    assert summ["terminal"] and summ["legal"] == []
    assert summ["winner"] == (V if v > h + 0.5 else H)  # komi 0.5: no draw
    return s, checker


@settings(max_examples=examples(60), deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(size=st.integers(2, 7), choices=choices_st, seed=seed_st)
@isolated()
def test_r10_invariants_and_oracle_on_random_games(size, choices, seed):
    _play_random(Chooser(choices, seed), size, with_oracle=True)


@isolated(timeout=120)
def test_r10_all_fourteen_adjacency_sets_occur_with_the_table_owner():
    """RULES §2.7b: every one of the 14 sets is reachable (and each is checked)."""
    masks = set()
    rnd = random.Random(2024)
    for i in range(120):
        _, checker = _play_random(Chooser([], rnd.randrange(2 ** 32)), 4 + i % 3,
                                  with_oracle=False)
        masks |= checker.masks
        if len(masks) == 14:
            break
    assert masks == V_MASKS | H_MASKS


def _setup_of(state, size):
    summ = state.summary()
    claims = "+".join(("V" if g["owner"] == V else "H") + g["stones"][0]
                      for g in summ["claimed"])
    return rumbo("/".join(summ["board"]), turn=summ["to_move"], size=size, claims=claims)


_SAME = ("board", "to_move", "terminal", "winner", "result", "scores", "claimed", "legal")


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
    s = boardlab.make("rumbo", size=size, komi=0.5).new_initial_state()
    P = size * size
    moves = []
    for _ in range(chooser.index(P)):
        a = chooser.pick(s.legal_actions())
        moves.append(s.action_to_string(a))
        s.apply(a)
    progress(f"rumbo size {size}, moves before the set-up: {moves}")
    t = _setup_of(s, size)
    later = []
    while True:
        assert _comparable(s) == _comparable(t)
        if s.is_terminal():
            break
        action = chooser.pick(s.legal_actions())
        later.append(s.action_to_string(action))
        progress(f"rumbo size {size}, moves before the set-up: {moves}, after it: {later}")
        s.apply(action)
        t.apply(action)
    assert t.is_terminal()


@isolated()
def test_setup_rejects_holes_and_unclaimed_liberty_less_groups():
    with pytest.raises(boardlab.OptionError):
        rumbo(".B.../B..../...../...../.....")  # a5 is a hole
    with pytest.raises(boardlab.OptionError):
        rumbo("WB.../B..../...../...../.....")  # W a5 has no liberty and no claim
    s = rumbo("WB.../B..../...../...../.....", claims="Va5")
    assert claims_of(s) == [claim("V", "a5")]


# Action numbers, notation and the texts ------------------------------------------------------

@isolated()
def test_action_numbers_have_one_encoding_the_kernel_and_the_notation_share():
    from boardlab.games import rumbo_kernel as K

    game = boardlab.make("rumbo(size=3,komi_protocol=bid)")
    n, state = game.n, game.new_initial_state()
    assert game.num_actions == K.num_actions(n)
    for action in range(game.num_actions):
        kind, value, colour = K.decode(n, action)
        assert K.encode(n, kind, value, colour) == action
        if kind in (K.PASS, K.BUTTON):
            continue                            # numbered as in Carteso, no Rumbo move
        assert state.string_to_action(state.action_to_string(action)) == action
    s = rumbo("...../...../...../...../.W...")
    with pytest.raises(boardlab.IllegalMoveError, match="no passing and no button"):
        s.apply(K.encode(5, K.PASS, 0, 0))
    with pytest.raises(boardlab.IllegalMoveError, match="it would make a hole at a1$"):
        s.play("Wa2")                          # a1 would see only white (a2, b1)
    s.play("Ba2")
    assert s.view(None)["board"]["marks"]["last"] == ["a2"]


def test_rules_summary_and_notation_guide():
    game = boardlab.make("rumbo")
    assert "hole" in game.rules_summary and "no passing" in game.rules_summary
    for word in ("Bc3", "Wa1", "no pass", "komi=K", "side=vertical", "bottom", "north"):
        assert word in game.notation_guide
    assert game.new_initial_state().undo_floor() == 0
    assert game.facts()["komi"]["points"] == 121 and game.facts()["board"]["buttons"] == []
