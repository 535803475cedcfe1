"""Cartagena: the worked examples K1-K12 of RULES.md §3.7, and property tests.

* K1-K12: hand-checked positions, set up with the analysis options ``track``,
  ``positions``, ``hands``, ``deck``, ``discard`` and ``first_player``.
* Hidden information (§3.4): a view never changes when only what the viewer may
  not see changes (other hands, the order of the hidden part of the pile).
* Determinization: ``game.determinize(view, seed)`` is a full state consistent
  with the view.
* Random games against ``Model``, a slow and independent model of the rules
  (legal action sets, token moves, draws, lazy reshuffles, the Tortuga row,
  hand limits, turn ends, wins, deadlocks and the turn cap with the K-A7
  ranking), plus the K12 invariants checked on the engine's own arrays.
* Notation, illegal moves, replays and records, option errors.

Every test body runs in a forked child process with a time limit (``isolated``):
the engine's compiled kernels cannot be interrupted.

Track notation of RULES.md §3.7: H=♥, C=♣, D=♦, S=♠; seats 0, 1, 2 = green,
purple, red. Positions: 0 = start, 1..L = track, L+1 = end (boat).
"""
from __future__ import annotations

import json
import random
from collections import Counter

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import boardlab
from boardlab import TERMINAL
from boardlab.core.game import RESIGN
from boardlab.core.board import check_block
from boardlab.games import cartagena_kernel as K
from choices import Chooser, choices_st, seed_st
from depth import examples
from isolation import isolated, progress

GREEN, PURPLE, RED = 0, 1, 2
K1_TRACK = "HCDSCHSHCSCDHDSD"
K1_POSITIONS = "0,3,9,11/0,9,13,15/0,5,9,14"   # green / purple / red
OFF = 17                                      # the end (boat) of a 16-space track
MAX_PLAYERS = {"basic": 4, "advanced": 4, "original": 5}


def _warm_up():
    """Load the compiled kernels once in the parent, so that forked tests start fast."""
    try:
        for spec in ("cartagena", "cartagena(profile=original,players=3,visibility=tortuga)"):
            game = boardlab.make(spec)
            s = game.new_initial_state(seed=1)
            rnd = random.Random(1)
            while not s.is_terminal():
                s.apply(rnd.choice(s.legal_actions()))
            game.determinize(game.new_initial_state(seed=2).view(0), 3)
    except boardlab.BoardlabError:
        pass


_warm_up()


# Helpers -------------------------------------------------------------------------------------

def cartagena(**options):
    return boardlab.make("cartagena", **options)


def k1(hands="DC//", first_player=GREEN, seed=1, **extra):
    """The position of K1 (blog-basic, 3 players) with the given hands and mover."""
    game = cartagena(profile="basic", players=3, track=K1_TRACK, positions=K1_POSITIONS,
                     hands=hands, first_player=first_player, **extra)
    return game.new_initial_state(seed=seed)


def tokens(state, seat):
    """The seat's token positions, sorted."""
    mine = state.mine(seat)
    return [x for x in range(len(mine)) for _ in range(int(mine[x]))]


def hand_of(state, seat):
    """The seat's hand as {letter: count} without zeros."""
    return {a: int(n) for a, n in zip(state.game.alphabet, state.hand(seat)) if n}


def card_totals(state):
    """Cards per symbol over all hands, the pile and the discard pile."""
    S = len(state.game.alphabet)
    total = np.bincount(np.asarray(state.pile, dtype=np.int64), minlength=S)
    total = total + np.asarray(state.discard_counts, dtype=np.int64)
    for p in range(state.game.num_seats):
        total = total + np.asarray(state.hand(p), dtype=np.int64)
    return total.tolist()


def effect(state, move):
    """(from, to, cards drawn) of a move by the player to move, on a copy."""
    seat = state.current_player()
    after = state.clone()
    before_tokens, before_hand = Counter(tokens(state, seat)), int(state.hand(seat).sum())
    after.play(move)
    after_tokens = Counter(tokens(after, seat))
    gone, came = before_tokens - after_tokens, after_tokens - before_tokens
    assert sum(gone.values()) == 1 and sum(came.values()) == 1, (move, gone, came)
    played = 0 if move.startswith("back") else 1
    drawn = int(after.hand(seat).sum()) - before_hand + played
    return next(iter(gone)), next(iter(came)), drawn


def frozen(state):
    """Everything about a state, hidden parts included (to check that nothing changed)."""
    return (state.buf.tobytes(), list(state.history), state.resigned)


def assert_illegal(state, move):
    before = frozen(state)
    assert move not in state.legal_moves()
    with pytest.raises(boardlab.IllegalMoveError) as info:
        state.play(move)
    assert info.value.reason, f"no reason given for {move!r}"
    assert frozen(state) == before  # an illegal move changes nothing


def view_json(state, seat):
    return json.dumps(state.view(seat), sort_keys=True)


def ranking_winners(state):
    """The K-A7 ranking: tokens at the end, then the sum of positions; ties share, and
    when every seat ties nobody wins (a draw)."""
    end = state.game.L + 1
    keys = [(tokens(state, p).count(end), sum(tokens(state, p)))
            for p in range(state.game.num_seats)]
    first = [p for p, key in enumerate(keys) if key == max(keys)]
    return [] if len(first) == state.game.num_seats else first


def expected_returns(winners, seats):
    if not winners or len(winners) == seats:
        return [0.0] * seats
    return [1.0 if p in winners else -1.0 for p in range(seats)]


def random_options(draw_profile, players, chooser, extra=True):
    """Options of a random configuration (profile, players, rule options)."""
    options = dict(profile=draw_profile, players=min(players, MAX_PLAYERS[draw_profile]))
    if extra:
        if chooser.index(3) == 0:
            options["retreat_over_full"] = chooser.pick(["block", "skip"])
        if chooser.index(4) == 0:
            options["retreat_from_end"] = True
        if chooser.index(4) == 0:
            options["allow_voluntary_pass"] = True
        if chooser.index(4) == 0:
            options["hand_limit"] = chooser.pick([3, 5, 7])
        options["visibility"] = chooser.pick(["jamaica", "tortuga", "hispaniola"])
        if chooser.index(6) == 0:
            options["end_on_deadlock"] = False
    return options


# K1 ------------------------------------------------------------------------------------------

K1_EFFECTS = {
    "D@0": (0, 12, 0), "D@3": (3, 12, 0), "D@9": (9, 12, 0), "D@11": (11, 12, 0),
    "C@0": (0, 2, 0), "C@3": (3, OFF, 0), "C@9": (9, OFF, 0), "C@11": (11, OFF, 0),
    "back@9": (9, 5, 1),
}


@isolated()
def test_k1_the_blog_example_has_exactly_nine_actions():
    s = k1()
    assert s.game.alphabet == "HCDS" and s.game.L == 16
    assert s.view(None)["track"] == K1_TRACK
    assert [tokens(s, p) for p in range(3)] == [[0, 3, 9, 11], [0, 9, 13, 15], [0, 5, 9, 14]]
    assert s.current_player() == GREEN and hand_of(s, GREEN) == {"C": 1, "D": 1}
    legal = s.legal_moves()
    assert len(legal) == len(set(legal)) == 9
    assert set(legal) == set(K1_EFFECTS)
    assert set(s.view(GREEN)["legal_actions"]) == set(s.legal_actions())
    for move, expected in K1_EFFECTS.items():
        assert effect(s, move) == expected, move


@isolated()
def test_k1_illegal_retreats():
    s = k1()
    assert_illegal(s, "back@11")  # the nearest occupied space, 9, holds 3 tokens
    assert_illegal(s, "back@3")   # nothing occupied behind; the start is not a destination
    before = frozen(s)
    with pytest.raises((boardlab.NotationError, boardlab.IllegalMoveError)):
        s.play("back@0")          # the start
    assert frozen(s) == before
    assert "pass" not in s.legal_moves()  # actions exist: no pass (K-A6)


# K2 ------------------------------------------------------------------------------------------

@isolated()
def test_k2_skip_rule_adds_the_retreat_over_the_full_space():
    s = k1(retreat_over_full="skip")
    legal = s.legal_moves()
    assert len(legal) == len(set(legal)) == 10
    assert set(legal) == set(K1_EFFECTS) | {"back@11"}
    for move, expected in {**K1_EFFECTS, "back@11": (11, 5, 1)}.items():
        assert effect(s, move) == expected, move


# K3 ------------------------------------------------------------------------------------------

@isolated()
def test_k3_forward_targets():
    s = k1(hands="HS//")
    assert effect(s, "H@0") == (0, 1, 0)
    assert effect(s, "S@3") == (3, 4, 0)
    assert effect(s, "H@11") == (11, OFF, 0)   # [13] is the only H after 11 and P is on it
    p = k1(hands="/D/", first_player=PURPLE)
    assert effect(p, "D@13") == (13, 16, 0)    # [14] is occupied


# K4 ------------------------------------------------------------------------------------------

@isolated()
def test_k4_the_draw_counts_tokens_of_any_colour():
    r = k1(hands="//", first_player=RED)
    assert effect(r, "back@14") == (14, 13, 1)  # P alone on 13
    after = r.clone()
    after.play("back@14")
    assert tokens(after, RED) == [0, 5, 9, 13] and hand_of(after, RED) and \
        int(after.hand(RED).sum()) == 1
    # the resulting position, with P to move
    game = cartagena(profile="basic", players=3, track=K1_TRACK,
                     positions="0,3,9,11/0,9,13,15/0,5,9,13", hands="//",
                     first_player=PURPLE)
    p = game.new_initial_state(seed=4)
    assert int(p.occupancy[14]) == 0 and int(p.occupancy[13]) == 2
    assert effect(p, "back@15") == (15, 13, 2)  # P and R on 13: draw 2
    p.play("back@15")
    assert int(p.occupancy[13]) == 3
    assert int(p.hand(PURPLE).sum()) == 2


# K5, K6 --------------------------------------------------------------------------------------

@isolated()
def test_k5_the_rearmost_token_cannot_retreat():
    g = k1(hands="//")
    assert "back@3" not in g.legal_moves()
    assert g.legal_moves() == ["back@9"]   # empty hand: only 9 -> 5
    r = k1(hands="//", first_player=RED)
    assert "back@5" in r.legal_moves()
    assert effect(r, "back@5") == (5, 3, 1)  # G alone on 3


@isolated()
def test_k6_leaving_a_full_space_backward_is_legal():
    s = k1()
    assert int(s.occupancy[9]) == 3
    assert effect(s, "back@9") == (9, 5, 1)
    s.play("back@9")
    assert int(s.occupancy[9]) == 2 and int(s.occupancy[5]) == 2
    assert tokens(s, GREEN) == [0, 3, 5, 11]
    assert int(s.hand(GREEN).sum()) == 3
    assert s.current_player() == PURPLE


# K7 (and K-A4) -------------------------------------------------------------------------------

def k7(seed, positions="0,0,0,5/3,3,0,0", hands="H/"):
    game = cartagena(profile="basic", players=2, track=K1_TRACK, positions=positions,
                     hands=hands, deck="S", discard="HHDCS", first_player=GREEN)
    return game.new_initial_state(seed=seed)


@isolated()
def test_k7_lazy_reshuffle_draws_from_the_shuffled_discards():
    seconds = set()
    for seed in range(30):
        s = k7(seed)
        assert s.game.deck_size == 7
        assert s.pile.tolist() == [s.game.alphabet.index("S")]
        assert int(s.discard_counts.sum()) == 5
        assert effect(s, "back@5") == (5, 3, 2)
        s.play("back@5")
        assert tokens(s, GREEN) == [0, 0, 0, 3]
        hand = Counter(hand_of(s, GREEN))
        assert sum(hand.values()) == 3                 # hand +2
        assert len(s.pile) == 4                        # 5 discards reshuffled, 1 drawn
        assert int(s.discard_counts.sum()) == 0
        second = hand - Counter("HS")
        assert sum(second.values()) == 1
        rest = Counter(s.game.alphabet[c] for c in s.pile)
        assert rest + second == Counter("HHDCS")
        seconds.add(next(iter(second)))
        again = k7(seed)
        again.play("back@5")                           # same seed: same cards, same order
        assert again.buf.tobytes() == s.buf.tobytes()
    assert len(seconds) > 1                            # the RNG decides the second card


@isolated()
def test_k7_no_eager_reshuffle_and_later_discards_join_the_reshuffle():
    s = k7(9, positions="0,0,0,5/3,0,0,0", hands="H/C")
    s.play("back@5")                  # draws S, the last card of the pile
    assert hand_of(s, GREEN) == {"H": 1, "S": 1}
    assert len(s.pile) == 0 and int(s.discard_counts.sum()) == 5  # not reshuffled yet
    assert effect(s, "C@0") == (0, 2, 0)
    s.play("C@0")                     # purple: a sixth discard
    assert int(s.discard_counts.sum()) == 6 and len(s.pile) == 0
    assert effect(s, "back@3") == (3, 2, 1)
    s.play("back@3")                  # a draw is needed now: all 6 are shuffled
    assert int(s.discard_counts.sum()) == 0 and len(s.pile) == 5
    assert int(s.hand(GREEN).sum()) == 3
    assert card_totals(s) == [3, 2, 1, 2]  # H: hand + 2 discards, C: 2, D: 1, S: 2


# K8 ------------------------------------------------------------------------------------------

@isolated()
def test_k8_a_retreat_with_nothing_left_to_draw_is_legal():
    game = cartagena(profile="basic", players=2, track=K1_TRACK, cards_per_symbol=1,
                     positions="0,0,0,5/3,0,0,0", hands="HC/DS", first_player=GREEN)
    s = game.new_initial_state(seed=2)
    assert game.deck_size == 4
    assert len(s.pile) == 0 and int(s.discard_counts.sum()) == 0
    assert "back@5" in s.legal_moves()
    assert effect(s, "back@5") == (5, 3, 0)
    s.play("back@5")
    assert hand_of(s, GREEN) == {"H": 1, "C": 1}
    assert len(s.pile) == 0 and int(s.discard_counts.sum()) == 0
    assert s.current_player() == PURPLE and not s.is_terminal()


# K9 ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("profile", ["basic", "advanced"])
@isolated()
def test_k9_forced_pass(profile):
    track = K1_TRACK if profile == "basic" else None
    tokens_each = 4 if profile == "basic" else 6
    start = ",".join(["0"] * tokens_each)
    options = dict(profile=profile, players=2, hands="/" + ("H" if profile == "basic" else "S"),
                   positions=f"{start}/{start}", first_player=GREEN)
    if track:
        options["track"] = track
    s = cartagena(**options).new_initial_state(seed=3)
    assert s.legal_moves() == ["pass"]
    s.play("pass")
    assert not s.is_terminal()              # not a deadlock: purple can act
    assert s.current_player() == PURPLE
    assert "pass" not in s.legal_moves() and s.legal_moves()
    assert s.view(None)["turn"] == 2


@isolated()
def test_voluntary_pass_option():
    s = k1(allow_voluntary_pass=True)
    assert set(s.legal_moves()) == set(K1_EFFECTS) | {"pass"}
    s.play("pass")
    assert s.current_player() == PURPLE and tokens(s, GREEN) == [0, 3, 9, 11]
    assert hand_of(s, GREEN) == {"C": 1, "D": 1}


@isolated()
def test_ka3_retreat_from_the_boat_only_with_the_option():
    options = dict(profile="basic", players=2, track=K1_TRACK, positions="0,0,0,17/16,0,0,0",
                   hands="/", first_player=GREEN)
    s = cartagena(**options).new_initial_state(seed=1)
    assert s.legal_moves() == ["pass"]
    assert_illegal(s, "back@17")
    t = cartagena(retreat_from_end=True, **options).new_initial_state(seed=1)
    assert t.legal_moves() == ["back@17"]
    assert effect(t, "back@17") == (OFF, 16, 1)


@isolated()
def test_ka14_hand_limit_discards_at_the_end_of_the_turn():
    game = cartagena(profile="basic", players=2, track=K1_TRACK, hand_limit=2, hands="HHCD/S",
                     first_player=GREEN)
    s = game.new_initial_state(seed=1)
    s.play("H@0")                           # 3 cards left > 2
    assert s.current_player() == GREEN and s.view(None)["discarding"]
    assert set(s.legal_moves()) == {"discard H", "discard C", "discard D"}
    assert_illegal(s, "S@0")
    s.play("discard C")
    assert s.current_player() == PURPLE and not s.view(None)["discarding"]
    assert hand_of(s, GREEN) == {"H": 1, "D": 1}
    assert s.view(None)["discard"] == {"H": 1, "C": 1, "D": 0, "S": 0}
    assert cartagena().options["hand_limit"] == 0   # off by default


# K10 -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("rule", ["block", "skip"])
@isolated()
def test_k10_deadlock_ends_the_game_and_b_ranks_first(rule):
    game = cartagena(profile="basic", players=2, track=K1_TRACK, positions="4,4,10,17/4,10,10,17",
                     hands="/", first_player=0, retreat_over_full=rule)
    s = game.new_initial_state(seed=5)
    assert s.legal_moves() == ["pass"]
    s.play("pass")
    assert not s.is_terminal() and s.current_player() == 1
    assert s.legal_moves() == ["pass"]
    s.play("pass")
    assert s.is_terminal() and s.current_player() == TERMINAL
    assert s.end_reason() == "deadlock"
    assert sum(tokens(s, 0)) == 35 and sum(tokens(s, 1)) == 41
    assert s.winners() == [1]
    assert s.returns() == [-1.0, 1.0]
    summary = s.summary()
    assert summary["winner"] == "purple" and summary["end_reason"] == "deadlock"
    assert summary["legal"] == []


@isolated()
def test_k10_without_end_on_deadlock_the_turn_cap_ends_it():
    game = cartagena(profile="basic", players=2, track=K1_TRACK, positions="4,4,10,17/4,10,10,17",
                     hands="/", first_player=0, end_on_deadlock=False, max_turns=6)
    s = game.new_initial_state(seed=5)
    for _ in range(5):
        s.play("pass")
        assert not s.is_terminal()
    s.play("pass")
    assert s.end_reason() == "turn cap"
    assert s.winners() == [1] and s.returns() == [-1.0, 1.0]


@isolated()
def test_k10_exact_tie_is_a_shared_result():
    game = cartagena(profile="basic", players=2, track=K1_TRACK,
                     positions="1,17,17,17/1,17,17,17", hands="/", first_player=0)
    s = game.new_initial_state(seed=5)
    s.play("pass")
    s.play("pass")
    assert s.end_reason() == "deadlock"
    assert s.winners() == [] and s.returns() == [0.0, 0.0]      # everyone ties: a draw
    assert s.view(0)["result"]["draw"] and s.scores() == {"green": 3, "purple": 3}


@isolated()
def test_ka7_tokens_at_the_end_rank_before_the_position_sum():
    game = cartagena(profile="basic", players=2, track=K1_TRACK,
                     positions="1,1,17,17/16,16,16,17", hands="/", first_player=0,
                     max_turns=1)
    s = game.new_initial_state(seed=5)
    assert s.legal_moves() == ["pass"]
    s.play("pass")
    assert s.end_reason() == "turn cap"
    assert s.winners() == [0] and s.returns() == [1.0, -1.0]  # 2 home beat 1 home


# K11 -----------------------------------------------------------------------------------------

def k11(hands, deck="D"):
    # A, B, C of RULES.md = H, C, D; P = green, Q = purple
    game = cartagena(profile="basic", players=2, track="HCDHCD", symbols=4, actions_per_turn=3,
                     tokens=2, positions="4,7/3,6", hands=hands, deck=deck, first_player=0)
    return game.new_initial_state(seed=6)


@isolated()
def test_k11_three_actions_and_a_win_in_the_turn():
    s = k11("C/")
    assert s.game.L == 6 and s.view(None)["track"] == "HCDHCD"
    assert effect(s, "C@4") == (4, 5, 0)
    s.play("C@4")
    assert s.current_player() == GREEN and s.view(GREEN)["actions_done"] == 1
    assert "end" in s.legal_moves() and "pass" not in s.legal_moves()
    assert effect(s, "back@5") == (5, 3, 1)
    s.play("back@5")
    assert hand_of(s, GREEN) == {"D": 1} and len(s.pile) == 0
    assert s.current_player() == GREEN and s.view(GREEN)["actions_done"] == 2
    assert effect(s, "D@3") == (3, 7, 0)    # [6] is occupied: off
    s.play("D@3")
    assert s.is_terminal()
    assert tokens(s, GREEN) == [7, 7]
    assert s.end_reason() == "all tokens home"
    assert s.winners() == [GREEN] and s.returns() == [1.0, -1.0]
    assert s.legal_actions() == []
    assert s.history_text() == ["C@4", "back@5", "D@3"]


@isolated()
def test_k11_the_game_ends_immediately_even_with_actions_left():
    s = k11("D/")
    s.play("D@4")                           # action 1 of up to 3, and the last token is home
    assert s.is_terminal() and s.winners() == [GREEN]
    assert s.end_reason() == "all tokens home"
    assert s.legal_actions() == [] and s.history_text() == ["D@4"]
    with pytest.raises(boardlab.IllegalMoveError):
        s.play("end")


@isolated()
def test_multi_action_turn_ends_after_three_actions_or_end():
    s = k11("CCCC/H", deck="DDDD")
    assert_illegal(s, "end")                # 'end' only after an action
    s.play("C@4")
    s.play("end")                           # stop after one action
    assert s.current_player() == PURPLE
    assert s.view(None)["actions_done"] == 0 and s.view(None)["turn"] == 2
    assert effect(s, "H@3") == (3, 4, 0)    # [4] is empty again
    s.play("H@3")
    assert "back@4" not in s.legal_moves()  # nothing occupied behind 4
    assert effect(s, "back@6") == (6, 5, 1)
    s.play("back@6")
    assert hand_of(s, PURPLE) == {"D": 1}
    assert effect(s, "D@4") == (4, 6, 0)
    s.play("D@4")                           # the third action ends the turn
    assert s.current_player() == GREEN
    assert s.view(None)["actions_done"] == 0 and s.view(None)["turn"] == 3


# K12 and the rules: random games against a slow model ----------------------------------------

class Model:
    """An independent model of RULES.md §3.2-3.3 (plus the engine rules K-A6, K-A7).

    It is built from a state and then follows the actions on its own; the order of a
    reshuffled pile is the only thing it takes from the engine (checking the multisets).
    """

    def __init__(self, state):
        game, o = state.game, state.game.options
        self.game, self.n, self.L = game, game.num_seats, game.L
        self.alphabet = game.alphabet
        self.T, self.apt = o["tokens"], o["actions_per_turn"]
        self.skip = o["retreat_over_full"] == "skip"
        self.from_end, self.voluntary = o["retreat_from_end"], o["allow_voluntary_pass"]
        self.limit, self.max_turns = o["hand_limit"], o["max_turns"]
        self.end_on_deadlock = o.get("end_on_deadlock", True)
        self.row_size = 0 if o["visibility"] == "jamaica" else 12
        self.track = state.track.tolist()
        self.pos = [tokens(state, p) for p in range(self.n)]
        self.hands = [state.hand(p).tolist() for p in range(self.n)]
        self.pile = state.pile.tolist()
        self.row = len(state.face_up())
        self.discard = state.discard_counts.tolist()
        view = state.view(None)
        self.to_move = state.current_player()
        self.done, self.turn = view["actions_done"], view["turn"] - 1
        self.discarding = view["discarding"]
        self.passes = 0
        self.over, self.winners = None, []
        self.pending = None

    # the rules
    def occ(self, y):
        return sum(p.count(y) for p in self.pos)

    def forward(self, x, s):
        for y in range(x + 1, self.L + 1):
            if self.track[y] == s and self.occ(y) == 0:
                return y
        return self.L + 1

    def back(self, x):
        for y in range(x - 1, 0, -1):
            k = self.occ(y)
            if k == 0:
                continue
            if k < 3:
                return y
            if not self.skip:
                return None
        return None

    def legal(self):
        if self.over:
            return set()
        p = self.to_move
        hand = self.hands[p]
        if self.discarding:
            return {f"discard {a}" for a, k in zip(self.alphabet, hand) if k}
        moves = set()
        for s, a in enumerate(self.alphabet):
            if hand[s]:
                moves |= {f"{a}@{x}" for x in set(self.pos[p]) if x <= self.L}
        top = self.L + 1 if self.from_end else self.L
        moves |= {f"back@{x}" for x in set(self.pos[p])
                  if 1 <= x <= top and self.back(x) is not None}
        if self.done > 0:
            moves.add("end")
        elif not moves or self.voluntary:
            moves.add("pass")
        return moves

    def rank(self):
        end = self.L + 1
        keys = [(pos.count(end), sum(pos)) for pos in self.pos]
        self.winners = [p for p, key in enumerate(keys) if key == max(keys)]
        if len(self.winners) == self.n:
            self.winners = []                  # every seat ties: a draw

    def end_turn(self):
        p = self.to_move
        if self.limit and sum(self.hands[p]) > self.limit:
            self.discarding = True
            return
        self.discarding, self.done = False, 0
        self.turn += 1
        self.to_move = (p + 1) % self.n
        if self.turn >= self.max_turns:
            self.over = "turn cap"
            self.rank()

    def draw(self, p, k):
        for i in range(k):
            if not self.pile:
                if sum(self.discard) == 0:
                    return
                self.pending = (p, k - i, Counter({s: c for s, c in enumerate(self.discard)
                                                   if c}), self.hands[p][:])
                return
            self.hands[p][self.pile.pop(0)] += 1
            if self.row_size:
                self.row -= 1
                if self.row == 0:
                    self.row = min(self.row_size, len(self.pile))

    def step(self, move):
        p = self.to_move
        self.landing = None
        if move == "pass":
            self.passes += 1
            if self.end_on_deadlock and self.passes >= self.n:
                self.over = "deadlock"
                self.rank()
                return
            self.end_turn()
            return
        if move == "end":
            self.end_turn()
            return
        if move.startswith("discard"):
            s = self.alphabet.index(move.split()[1])
            self.hands[p][s] -= 1
            self.discard[s] += 1
            self.end_turn()
            return
        self.passes = 0
        head, x = move.split("@")
        x = int(x)
        if head == "back":
            y = self.back(x)
            count = self.occ(y)
            self.pos[p].remove(x)
            self.pos[p].append(y)
            self.draw(p, count)
        else:
            s = self.alphabet.index(head)
            y = self.landing = self.forward(x, s)
            self.hands[p][s] -= 1
            self.discard[s] += 1
            self.pos[p].remove(x)
            self.pos[p].append(y)
        self.pos[p].sort()
        if self.pos[p].count(self.L + 1) == self.T:
            self.over, self.winners = "all tokens home", [p]
            return
        self.done += 1
        if self.done >= self.apt:
            self.end_turn()

    def settle_reshuffle(self, state):
        """After a reshuffle: check the multisets and take the new pile's order."""
        p, wanted, discards, hand_before = self.pending
        self.pending = None
        m = sum(discards.values())
        got = Counter()
        for s in range(len(self.alphabet)):
            extra = int(state.hand(p)[s]) - hand_before[s]
            assert extra >= 0
            if extra:
                got[s] = extra
        drawn = sum(got.values())
        assert drawn == min(wanted, m), (wanted, m, got)
        pile = state.pile.tolist()
        assert len(pile) == m - drawn
        assert Counter(pile) + got == discards
        self.discard = [0] * len(self.alphabet)
        self.hands[p] = state.hand(p).tolist()
        self.pile = pile
        if self.row_size:
            row, left = min(self.row_size, m), m
            for _ in range(drawn):
                row, left = row - 1, left - 1
                if row == 0:
                    row = min(self.row_size, left)
            self.row = row

    def compare(self, state, with_view):
        if self.pending:
            self.settle_reshuffle(state)
        assert [tokens(state, p) for p in range(self.n)] == self.pos
        assert [state.hand(p).tolist() for p in range(self.n)] == self.hands
        assert state.pile.tolist() == self.pile
        assert state.discard_counts.tolist() == self.discard
        face_up = state.face_up()
        assert len(face_up) == (self.row if self.row_size else 0)
        assert face_up == [self.alphabet[c] for c in self.pile[:len(face_up)]]
        if self.over:
            assert state.current_player() == TERMINAL
            assert state.end_reason() == self.over
            assert state.winners() == self.winners
            assert state.returns() == expected_returns(self.winners, self.n)
            assert state.legal_actions() == []
            return
        assert state.current_player() == self.to_move
        assert state.returns() == [0.0] * self.n
        legal = state.legal_moves()
        assert len(legal) == len(set(legal))
        assert set(legal) == self.legal()
        if with_view:
            view = state.view(None)
            assert view["actions_done"] == self.done
            assert view["turn"] == self.turn + 1
            assert view["discarding"] == self.discarding


def check_invariants(state, composition):
    """K12 on the engine's own arrays."""
    game, L = state.game, state.game.L
    occupancy = state.occupancy.tolist()
    assert max(occupancy[1:L + 1]) <= 3, occupancy
    assert min(occupancy) >= 0
    per_seat = [state.mine(p).tolist() for p in range(game.num_seats)]
    assert [sum(col) for col in zip(*per_seat)] == occupancy
    assert all(sum(m) == game.options["tokens"] for m in per_seat)
    assert all(int(x) >= 0 for p in range(game.num_seats) for x in state.hand(p))
    totals = card_totals(state)
    assert sum(totals) == game.deck_size
    assert totals == composition


def play_checked(state, chooser, moves_limit=None, label=""):
    """Play random legal actions to the end, checking the model and the invariants."""
    game = state.game
    model = Model(state)
    composition = card_totals(state)
    model.compare(state, with_view=True)
    moves = []
    while not state.is_terminal():
        legal = state.legal_actions()
        assert legal
        action = chooser.pick(legal)
        move = state.action_to_string(action)
        moves.append(move)
        progress(f"{label} {game.spec} seed {state.seed}: {moves[-40:]}")
        mover = state.current_player()
        occupancy_before = state.occupancy.tolist()
        mine_before = Counter(tokens(state, mover))
        state.apply(action)
        assert state.history[-1] == (mover, action)
        model.step(move)
        if "@" in move and not move.startswith("back"):
            came = Counter(tokens(state, mover)) - mine_before
            (landing,) = came
            assert landing == model.landing
            assert landing == game.L + 1 or occupancy_before[landing] == 0, \
                "a forward move landed on an occupied space"
        check_invariants(state, composition)
        model.compare(state, with_view=len(moves) % 16 == 0)
        assert len(moves) <= game.max_game_length
        if moves_limit and len(moves) >= moves_limit:
            break
    model.compare(state, with_view=True)
    return moves


@settings(max_examples=examples(35), deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(profile=st.sampled_from(["basic", "advanced", "original"]), players=st.integers(2, 5),
       max_turns=st.sampled_from([1000, 120, 40, 5]), choices=choices_st, seed=seed_st)
@isolated()
def test_k12_random_games_follow_the_model(profile, players, max_turns, choices, seed):
    chooser = Chooser(choices, seed)
    options = random_options(profile, players, chooser)
    if max_turns != 1000:
        options["max_turns"] = max_turns
    game = cartagena(**options)
    state = game.new_initial_state(seed=seed % 100000)
    play_checked(state, chooser)
    assert state.is_terminal()
    if state.end_reason() != "all tokens home":
        assert state.winners() == ranking_winners(state)


SET_UPS = {
    "k1": lambda: k1(), "k1 skip": lambda: k1(retreat_over_full="skip"),
    "k1 empty hands": lambda: k1(hands="//"),
    "k7": lambda: k7(3), "k7 lazy": lambda: k7(4, positions="0,0,0,5/3,0,0,0", hands="H/C"),
    "k11": lambda: k11("C/"), "k11 long": lambda: k11("CCCC/H", deck="DDDD"),
    "tortuga small pile": lambda: cartagena(
        profile="original", players=3, visibility="tortuga", hands="SSS/DD/K",
        discard="KKKKKBBB", deck="PPPHHHSS", positions="0,0,0,0,0,0/0,0,0,0,0,0/0,0,0,0,0,0",
        first_player=2).new_initial_state(seed=8),
}


@pytest.mark.parametrize("name", list(SET_UPS))
@isolated()
def test_k12_set_up_positions_follow_the_model_too(name):
    """Random continuations of the hand-made positions (custom tracks and tiny piles)."""
    for seed in range(5):
        play_checked(SET_UPS[name](), Chooser([], seed), moves_limit=300, label=name)


@isolated()
def test_turn_cap_of_five_turns_ends_with_the_ranking():
    for profile in ("basic", "advanced", "original"):
        for seed in range(15):
            game = cartagena(profile=profile, players=2 + seed % 3, max_turns=5)
            s = game.new_initial_state(seed=seed)
            rnd = random.Random(seed)
            ends = 0
            while not s.is_terminal():
                before = s.view(None)["turn"]
                s.apply(rnd.choice(s.legal_actions()))
                ends += s.is_terminal() or s.view(None)["turn"] != before
            assert s.end_reason() == "turn cap", (profile, seed)
            assert ends == 5
            assert s.view(None)["terminal"]
            assert s.winners() == ranking_winners(s)
            assert s.returns() == expected_returns(s.winners(), game.num_seats)
            if profile == "basic":
                assert len(s.history) == 5   # one action a turn


@isolated()
def test_deadlocks_in_random_games_end_after_a_full_round_of_passes():
    deadlocks = 0
    default = cartagena(players=2)
    assert default.options["max_turns"] == 1000
    for seed in range(60):
        players = 2 + seed % 2
        s = cartagena(players=players).new_initial_state(seed=seed)
        rnd = random.Random(seed)
        while not s.is_terminal():
            s.apply(rnd.choice(s.legal_actions()))
        assert len(s.history) <= s.game.max_game_length
        if s.end_reason() == "deadlock":
            deadlocks += 1
            assert s.history_text()[-players:] == ["pass"] * players
            assert s.winners() == ranking_winners(s)
            assert s.returns() == expected_returns(s.winners(), players)
        elif s.end_reason() == "all tokens home":
            (winner,) = s.winners()
            assert tokens(s, winner) == [s.game.L + 1] * 4
            assert s.current_player() == TERMINAL
    assert deadlocks >= 3


# Set-up and profiles ------------------------------------------------------------------------

@isolated()
def test_profiles_and_initial_states():
    expected = {
        "basic": ("HCDS", 16, 4, 3, 36, 1, "block", 4),
        "blog-basic": ("HCDS", 16, 4, 3, 36, 1, "block", 4),
        "advanced": ("SDKBPH", 36, 6, 6, 102, 3, "block", 4),
        "blog-advanced": ("SDKBPH", 36, 6, 6, 102, 3, "block", 4),
        "original": ("SDKBPH", 36, 6, 6, 102, 3, "skip", 5),
        "colovini": ("SDKBPH", 36, 6, 6, 102, 3, "skip", 5),
    }
    for profile, (alphabet, L, T, hand, deck, apt, retreat, most) in expected.items():
        for players in range(2, most + 1):
            game = cartagena(profile=profile, players=players)
            assert game.alphabet == alphabet and game.L == L and game.deck_size == deck
            assert game.options["actions_per_turn"] == apt
            assert game.options["retreat_over_full"] == retreat
            assert game.seat_names == ("green", "purple", "red", "blue", "yellow")[:players]
            firsts, tracks = set(), set()
            for seed in range(40):
                s = game.new_initial_state(seed=seed)
                track = s.view(None)["track"]
                tracks.add(track)
                per = L // len(alphabet)
                assert Counter(track) == dict.fromkeys(alphabet, per)
                if retreat == "skip":  # segments: each run of 6 is a permutation
                    for k in range(0, L, 6):
                        assert sorted(track[k:k + 6]) == sorted(alphabet)
                assert s.track[0] == -1 and s.track[L + 1] == -1
                assert all(tokens(s, p) == [0] * T for p in range(players))
                assert all(int(s.hand(p).sum()) == hand for p in range(players))
                assert len(s.pile) == deck - players * hand
                assert int(s.discard_counts.sum()) == 0
                assert card_totals(s) == [deck // len(alphabet)] * len(alphabet)
                assert s.view(None)["face_up"] == []
                firsts.add(s.current_player())
            assert firsts == set(range(players))     # a random first player
            assert len(tracks) > 30                  # a random track
            fixed = cartagena(profile=profile, players=players, first_player=players - 1)
            assert fixed.new_initial_state(seed=3).current_player() == players - 1


@isolated()
def test_deck_option_is_the_deck_before_the_deal():
    deck = "HHHCCCDDDSSSHCDS"
    game = cartagena(players=2, deck=deck)
    s = game.new_initial_state(seed=1)
    assert game.deck_size == len(deck)
    dealt = Counter(hand_of(s, 0)) + Counter(hand_of(s, 1))
    assert dealt == Counter(deck[:6])
    assert "".join(game.alphabet[c] for c in s.pile) == deck[6:]


@isolated()
def test_tortuga_and_hispaniola_lay_out_twelve_cards():
    for visibility in ("tortuga", "hispaniola"):
        s = cartagena(profile="original", players=3,
                      visibility=visibility).new_initial_state(seed=2)
        face_up = s.view(None)["face_up"]
        assert len(face_up) == 12
        assert face_up == [s.game.alphabet[c] for c in s.pile[:12]]


# Hidden information --------------------------------------------------------------------------

def swap_between_hands(state, a, b, rnd):
    """Move one card a -> b and one of another symbol b -> a (sizes kept); False if none."""
    ha, hb = state.hand(a), state.hand(b)
    pairs = [(x, y) for x in range(len(ha)) if ha[x] for y in range(len(hb)) if hb[y] and x != y]
    if not pairs:
        return False
    x, y = rnd.choice(pairs)
    ha[x] -= 1
    hb[x] += 1
    hb[y] -= 1
    ha[y] += 1
    return True


def swap_with_pile(state, a, rnd):
    """Swap a card of hand a with a different hidden card of the pile (beyond the face-up)."""
    hand, pile, left = state.hand(a), state.pile, len(state.face_up())
    pairs = [(x, i) for x in range(len(hand)) if hand[x]
             for i in range(left, len(pile)) if pile[i] != x]
    if not pairs:
        return False
    x, i = rnd.choice(pairs)
    y = int(pile[i])
    hand[x] -= 1
    hand[y] += 1
    pile[i] = x
    return True


def permute_hidden_pile(state, rnd):
    pile, left = state.pile, len(state.face_up())
    hidden = pile[left:].tolist()
    if len(set(hidden)) < 2:
        return False
    while True:
        rnd.shuffle(hidden)
        if hidden != pile[left:].tolist():
            break
    pile[left:] = hidden
    return True


def perturbed(state, viewer, rnd):
    """Copies of state, each with one change the viewer must not see."""
    others = [p for p in range(state.game.num_seats) if p != viewer]
    copies = []
    for _ in range(3):
        c = state.clone()
        if len(others) >= 2 and swap_between_hands(c, *rnd.sample(others, 2), rnd):
            copies.append(("swap hands", c))
        c = state.clone()
        if swap_with_pile(c, rnd.choice(others), rnd):
            copies.append(("swap with pile", c))
    c = state.clone()
    if permute_hidden_pile(c, rnd):
        copies.append(("permute pile", c))
    return copies


def check_hidden_information(state, rnd):
    game = state.game
    visibility = game.options["visibility"]
    hidden_changes = 0
    for viewer in [None, *range(game.num_seats)]:
        view = state.view(viewer)
        base = json.dumps(view, sort_keys=True)
        assert view["hand"] == (None if viewer is None else
                                {a: int(n) for a, n in zip(game.alphabet, state.hand(viewer))})
        if visibility == "tortuga":
            assert view["hands"] == {name: {a: int(n) for a, n in zip(game.alphabet,
                                                                       state.hand(p))}
                                     for p, name in enumerate(game.seat_names)}
        else:
            assert view["hands"] is None
        if visibility == "jamaica":
            assert view["face_up"] == []
        else:
            assert view["face_up"] == [game.alphabet[c]
                                       for c in state.pile[:len(view["face_up"])]]
            assert 1 <= len(view["face_up"]) <= 12 or len(state.pile) == 0
        assert view["pile_size"] == len(state.pile)
        mover = state.current_player()
        if viewer != mover:
            assert view["legal_actions"] == []
        for what, copy in perturbed(state, viewer, rnd):
            hidden_changes += 1
            assert card_totals(copy) == card_totals(state)
            changed = json.dumps(copy.view(viewer), sort_keys=True)
            if visibility == "tortuga" and what != "permute pile":
                assert changed != base       # open hands: every view shows them
            else:
                assert changed == base, (viewer, what, game.spec)
    return hidden_changes


@settings(max_examples=30, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(profile=st.sampled_from(["basic", "advanced", "original"]), players=st.integers(2, 5),
       visibility=st.sampled_from(["jamaica", "tortuga", "hispaniola"]),
       choices=choices_st, seed=seed_st)
@isolated()
def test_views_hide_exactly_what_they_should(profile, players, visibility, choices, seed):
    chooser = Chooser(choices, seed)
    game = cartagena(profile=profile, players=min(players, MAX_PLAYERS[profile]),
                     visibility=visibility)
    s = game.new_initial_state(seed=seed % 10000)
    rnd = random.Random(seed)
    checked = changes = 0
    step = 0
    while not s.is_terminal() and checked < 6:
        if step % 7 == 0 or chooser.index(9) == 0:
            progress(f"{game.spec} seed {s.seed}: {s.history_text()[-30:]}")
            changes += check_hidden_information(s, rnd)
            checked += 1
        s.apply(chooser.pick(s.legal_actions()))
        step += 1
    assert changes > 0


# Determinization -----------------------------------------------------------------------------

def check_determinization(state, viewer, seed):
    d = state.game.determinize(state.view(viewer), seed)
    check_consistent(state, viewer, d)
    return d


def check_redeal(state, viewer, seed):
    """A determinization dealt again (the searchers' fast resample) is one too."""
    d = state.game.determinize(state.view(viewer), seed).clone()
    d.redeal(viewer, seed + 1)
    check_consistent(state, viewer, d)
    return d


def check_consistent(state, viewer, d):
    game = state.game
    view = state.view(viewer)
    seats = range(game.num_seats)
    assert d.track.tolist() == state.track.tolist(), "the track is public"
    assert d.occupancy.tolist() == state.occupancy.tolist()
    assert all(d.mine(p).tolist() == state.mine(p).tolist() for p in seats)
    assert d.discard_counts.tolist() == state.discard_counts.tolist()
    if viewer is not None:
        assert d.hand(viewer).tolist() == state.hand(viewer).tolist()
    if game.options["visibility"] == "tortuga":
        assert all(d.hand(p).tolist() == state.hand(p).tolist() for p in seats)
    assert [int(d.hand(p).sum()) for p in seats] == [int(state.hand(p).sum()) for p in seats]
    assert len(d.pile) == len(state.pile)
    k = len(state.face_up())
    assert d.face_up() == state.face_up()
    assert d.pile[:k].tolist() == state.pile[:k].tolist()
    assert card_totals(d) == card_totals(state)
    assert d.current_player() == state.current_player()
    assert d.history == state.history
    assert json.dumps(d.view(viewer), sort_keys=True) == json.dumps(view, sort_keys=True)
    if viewer == state.current_player() or game.options["visibility"] == "tortuga":
        assert d.legal_actions() == state.legal_actions()   # the mover's hand is known


def hidden_part(state, viewer):
    others = tuple(tuple(state.hand(p).tolist()) for p in range(state.game.num_seats)
                   if p != viewer)
    return others, tuple(state.pile.tolist())


@settings(max_examples=30, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(profile=st.sampled_from(["basic", "advanced", "original"]), players=st.integers(2, 5),
       visibility=st.sampled_from(["jamaica", "tortuga", "hispaniola"]),
       choices=choices_st, seed=seed_st)
@isolated()
def test_determinization_is_consistent_with_the_view(profile, players, visibility, choices,
                                                     seed):
    chooser = Chooser(choices, seed)
    game = cartagena(profile=profile, players=min(players, MAX_PLAYERS[profile]),
                     visibility=visibility)
    s = game.new_initial_state(seed=seed % 10000)
    checked = 0
    step = 0
    while not s.is_terminal() and checked < 5:
        if step % 9 == 0 or chooser.index(12) == 0:
            progress(f"{game.spec} seed {s.seed}: {s.history_text()[-30:]}")
            checked += 1
            for viewer in {s.current_player(), chooser.index(game.num_seats), None}:
                samples = {hidden_part(check_determinization(s, viewer, 100 * checked + k),
                                       viewer) for k in range(6)}
                redealt = {hidden_part(check_redeal(s, viewer, 100 * checked + k), viewer)
                           for k in range(6)}
                # the unseen cards: other hands and the pile beyond the face-up cards
                unseen = Counter()
                for p in range(game.num_seats):
                    if p != viewer and visibility != "tortuga":
                        unseen.update({x: int(n) for x, n in enumerate(s.hand(p))})
                unseen.update(s.pile[len(s.face_up()):].tolist())
                if len(+unseen) >= 2:
                    assert len(samples) > 1, "determinizations never differ"
                    assert len(redealt) > 1, "redeals never differ"
        s.apply(chooser.pick(s.legal_actions()))
        step += 1


@isolated()
def test_determinized_state_plays_on_like_the_real_one():
    """The viewer's own moves lead to the same public facts in both states."""
    for seed in range(20):
        game = cartagena(profile=("basic", "advanced", "original")[seed % 3], players=2 + seed % 3)
        s = game.new_initial_state(seed=seed)
        rnd = random.Random(seed)
        for _ in range(rnd.randrange(1, 40)):
            if s.is_terminal():
                break
            s.apply(rnd.choice(s.legal_actions()))
        if s.is_terminal():
            continue
        me = s.current_player()
        d = game.determinize(s.view(me), seed + 1)
        while not s.is_terminal() and s.current_player() == me:
            plays = [a for a in s.legal_actions() if not s.action_to_string(a).startswith("back")]
            a = rnd.choice(plays or s.legal_actions())
            s.apply(a)
            d.apply(a)
            if s.action_to_string(a).startswith("back"):
                break  # drawn cards may differ from here on
            assert d.view(None)["tokens"] == s.view(None)["tokens"]
            assert d.current_player() == s.current_player()
            assert d.is_terminal() == s.is_terminal()


@isolated()
def test_determinization_of_finished_games():
    reasons = set()
    for seed in range(24):
        game = cartagena(profile=("basic", "original")[seed % 2], players=2 + seed % 3,
                         max_turns=(1000, 60)[seed % 3 == 0])
        s = game.new_initial_state(seed=seed)
        rnd = random.Random(seed)
        while not s.is_terminal():
            s.apply(rnd.choice(s.legal_actions()))
        reasons.add(s.end_reason())
        for viewer in (None, 0, 1):
            d = check_determinization(s, viewer, seed)
            assert d.is_terminal() and d.end_reason() == s.end_reason()
            assert d.winners() == s.winners() and d.returns() == s.returns()
    assert {"all tokens home", "turn cap"} <= reasons


@isolated()
def test_determinization_after_a_resignation_is_finished():
    game = cartagena(players=3)
    s = game.new_initial_state(seed=4)
    s.play(s.legal_moves()[0])
    s.resign()
    assert s.is_terminal() and s.end_reason() == "resignation"
    d = game.determinize(s.view(0), 3)
    assert d.is_terminal(), "the determinized state of a resigned game is still running"
    assert d.end_reason() == "resignation"
    assert d.winners() == s.winners() and d.returns() == s.returns()


@isolated()
def test_determinization_keeps_the_deadlock_count_after_a_hand_limit_discard():
    """A voluntary pass, then a hand-limit discard: one more pass is a full round (K-A7)."""
    game = cartagena(profile="advanced", players=2, hand_limit=1, allow_voluntary_pass=True,
                     hands="SS/D", first_player=0)
    s = game.new_initial_state(seed=1)
    s.play("pass")
    assert s.legal_moves() == ["discard S"]
    s.play("discard S")
    d = game.determinize(s.view(1), 7)
    s.play("pass")
    assert s.is_terminal() and s.end_reason() == "deadlock"
    d.play("pass")
    assert d.is_terminal() and d.end_reason() == "deadlock", \
        "the determinized state forgot the pass made before the discard"


# Notation, illegal moves ---------------------------------------------------------------------

BAD_NOTATION = ["", "   ", "X@3", "Q@0", "D3", "D@", "D@x", "@3", "DD@3", "D@-1", "D@17",
                "back@", "back@0", "back@18", "back@x", "discard", "discard Q", "discard DD",
                "end now", "passs", "go", "D@3@4"]


@isolated()
def test_bad_notation_raises_notation_error():
    s = k1()
    before = frozen(s)
    for text in BAD_NOTATION:
        with pytest.raises(boardlab.NotationError):
            s.string_to_action(text)
        with pytest.raises(boardlab.NotationError):
            s.play(text)
    for thing in (None, 3, 2.5, ["D@3"]):
        with pytest.raises(boardlab.NotationError):
            s.string_to_action(thing)
    with pytest.raises(boardlab.NotationError):
        s.action_to_string(s.game.num_actions)
    with pytest.raises(boardlab.NotationError):
        s.action_to_string(-7)
    assert frozen(s) == before


@isolated()
def test_illegal_moves_in_k1_give_reasons_and_change_nothing():
    s = k1()
    for move in ("D@5", "H@0", "S@3", "back@11", "back@3", "back@13", "back@17", "end",
                 "pass", "discard D"):
        assert_illegal(s, move)
    for action in (-1, s.game.num_actions, 10 ** 6):
        before = frozen(s)
        with pytest.raises(boardlab.IllegalMoveError):
            s.apply(action)
        assert frozen(s) == before
    for thing in (True, "D@3", 1.0, None):
        with pytest.raises(boardlab.IllegalMoveError):
            s.apply(thing)
    s.play("back@9")  # game continues normally
    assert s.current_player() == PURPLE


@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(profile=st.sampled_from(["basic", "advanced", "original"]), players=st.integers(2, 5),
       choices=choices_st, seed=seed_st)
@isolated()
def test_notation_round_trip_and_illegal_actions_on_random_states(profile, players, choices,
                                                                  seed):
    chooser = Chooser(choices, seed)
    options = random_options(profile, players, chooser)
    game = cartagena(**options)
    s = game.new_initial_state(seed=seed % 10000)
    rnd = random.Random(seed)
    steps = 0
    while not s.is_terminal() and steps < 400:
        legal = s.legal_actions()
        for action in legal:
            text = s.action_to_string(action)
            assert s.string_to_action(text) == action
            assert s.string_to_action(f"  {text.lower()} ") == action
            assert s.string_to_action(text.upper()) == action
        if steps % 10 == 0:
            progress(f"{game.spec} seed {s.seed}: {s.history_text()[-30:]}")
            others = [a for a in rnd.sample(range(game.num_actions), 12) if a not in legal]
            for action in others:
                before = frozen(s)
                with pytest.raises(boardlab.IllegalMoveError) as info:
                    s.apply(action)
                assert info.value.reason
                assert frozen(s) == before
        s.apply(chooser.pick(legal))
        steps += 1
    if s.is_terminal():
        before = frozen(s)
        with pytest.raises(boardlab.IllegalMoveError):
            s.apply(0)
        assert frozen(s) == before


# Replays and records -------------------------------------------------------------------------

@settings(max_examples=20, deadline=None, derandomize=True,
          phases=[Phase.explicit, Phase.generate],
          suppress_health_check=[HealthCheck.too_slow])
@given(profile=st.sampled_from(["basic", "advanced", "original"]), players=st.integers(2, 5),
       choices=choices_st, seed=seed_st)
@isolated()
def test_replay_and_records_reproduce_the_state(profile, players, choices, seed):
    chooser = Chooser(choices, seed)
    options = random_options(profile, players, chooser)
    game = cartagena(**options)
    s = game.new_initial_state(seed=seed % 10000)
    stop = chooser.index(500)
    while not s.is_terminal() and len(s.history) < stop:
        s.apply(chooser.pick(s.legal_actions()))
    moves = s.history_text()
    assert boardlab.replay(game.spec, moves, seed=s.seed) == s.summary()
    again = boardlab.replay_moves(game.spec, moves, seed=s.seed)
    assert again.buf.tobytes() == s.buf.tobytes()    # hidden parts too (pile order, RNG)
    record, loaded = boardlab.loads(boardlab.dumps(s))
    assert record["seed"] == s.seed and record["moves"] == moves
    assert loaded.summary() == s.summary()
    assert loaded.pile.tolist() == s.pile.tolist()
    assert boardlab.make(game.spec) == game


@isolated()
def test_set_up_games_round_trip_through_their_spec_and_records():
    """The set-up options (positions use commas) must survive game.spec and records."""
    s = k1()
    s.play("back@9")
    again = boardlab.make(s.game.spec)
    assert again == s.game
    _, loaded = boardlab.loads(boardlab.dumps(s))
    assert loaded.summary() == s.summary()


# Options -------------------------------------------------------------------------------------

BAD_OPTIONS = [
    (dict(profile="basic", players=5), "players"),
    (dict(profile="advanced", players=5), "players"),
    (dict(profile="original", players=6), "players"),
    (dict(players=1), "players"),
    (dict(players=2, first_player=3), "first_player"),
    (dict(players=2, first_player=2), "first_player"),
    (dict(players=3, first_player=-2), "first_player"),
    (dict(track="HCDSCHSHCSCDHDSX"), "track"),
    (dict(track="HCDK"), "track"),
    (dict(track="H"), "track"),
    (dict(players=3, track=K1_TRACK, positions="5,5,0,0/5,5,0,0/0,0,0,0"), "positions"),
    (dict(players=2, track=K1_TRACK, positions="0,0,0/0,0,0,0"), "positions"),
    (dict(players=2, track=K1_TRACK, positions="0,0,0,18/0,0,0,0"), "positions"),
    (dict(players=2, track=K1_TRACK, positions="0,0,0,-1/0,0,0,0"), "positions"),
    (dict(players=2, track=K1_TRACK, positions="a,b,c,d/0,0,0,0"), "positions"),
    (dict(players=2, track=K1_TRACK, positions="0,0,0,0"), "positions"),
    (dict(players=2, hands="DC"), "hands"),
    (dict(players=2, hands="DX/"), "hands"),
    (dict(players=2, cards_per_symbol=1, hands="HH/"), "hands"),
    (dict(players=2, deck="HCDZ"), "deck"),
    (dict(players=2, discard="HQ"), "discard"),
    (dict(retreat_over_full="maybe"), "retreat_over_full"),
    (dict(visibility="cuba"), "visibility"),
    (dict(profile="chess"), "profile"),
    (dict(actions_per_turn=4), "actions_per_turn"),
    (dict(tokens=7), "tokens"),
    (dict(max_turns=0), "max_turns"),
    (dict(hand_limit=-1), "hand_limit"),
    (dict(retreat_from_end="perhaps"), "retreat_from_end"),
    (dict(colour="red"), "colour"),
]


@isolated()
def test_bad_options_raise_option_error_naming_the_option():
    for options, name in BAD_OPTIONS:
        with pytest.raises(boardlab.OptionError) as info:
            cartagena(**options)
        assert name in str(info.value), (options, str(info.value))
    with pytest.raises(boardlab.OptionError) as info:
        boardlab.make("cartagena(profile=basic,players=5)")
    assert "players" in str(info.value)
    # the good neighbours of the bad values are fine
    cartagena(profile="original", players=5)
    cartagena(players=2, first_player=1)
    cartagena(players=3, track=K1_TRACK, positions="5,5,5,0/0,0,0,0/0,0,0,0")
    cartagena(profile="original", players=5, visibility="tortuga", retreat_from_end=True)


@isolated(timeout=60)
def test_a_redeal_samples_the_unseen_cards_like_a_new_determinization():
    game = cartagena()
    state = game.new_initial_state(seed=5)
    view = state.view(0)
    base = game.determinize(view, 1)

    def opponent_hand(sample):
        return tuple(sample.hand(1).tolist())

    fresh = Counter(opponent_hand(game.determinize(view, k)) for k in range(3000))
    redealt = Counter()
    for k in range(3000):
        sample = base.clone()
        sample.redeal(0, k)
        redealt[opponent_hand(sample)] += 1
    distance = sum(abs(fresh[h] - redealt[h]) for h in fresh | redealt) / 2 / 3000
    assert len(fresh) > 5 and distance < 0.06, (distance, fresh, redealt)


def test_a_seed_beyond_64_bits_is_refused_clearly():
    game = boardlab.make("cartagena")
    with pytest.raises(boardlab.OptionError, match="64 bits"):
        game.new_initial_state(seed=2**64)
    assert game.new_initial_state(seed=2**63 - 1).view(None)["pile_size"] > 0


# The action encoding, facts, the board block, the undo floor ------------------------------------

ENCODING_SPECS = ["cartagena", "cartagena(profile=advanced,players=3,hand_limit=5)",
                  "cartagena(profile=original,players=5,retreat_from_end=true)",
                  "cartagena(tokens=3,track=HCDSHCDSHC,players=2)"]


@pytest.mark.parametrize("spec", ENCODING_SPECS)
def test_one_action_encoding_round_trips(spec):
    game = boardlab.make(spec)
    cfg, L, S = game.cfg, game.L, len(game.alphabet)
    assert game.num_actions == K.num_actions(cfg) == S * (L + 1) + (L + 2) + 2 + S
    kinds = Counter()
    for action in range(game.num_actions):
        kind, symbol, x = K.decode(cfg, action)
        kinds[kind] += 1
        assert K.encode(cfg, kind, symbol, x) == action
        assert (symbol >= 0) == (kind in (K.PLAY, K.DISCARD))
        assert (x >= 0) == (kind in (K.PLAY, K.BACK))
        text = game.new_initial_state(seed=1).action_to_string(action)
        if text != "back@0":                      # in the space, never legal nor written
            assert game.new_initial_state(seed=1).string_to_action(text) == action
    assert kinds == {K.PLAY: S * (L + 1), K.BACK: L + 2, K.END: 1, K.PASS: 1, K.DISCARD: S}


@pytest.mark.parametrize("spec", ENCODING_SPECS + ["cartagena(visibility=tortuga)"])
def test_facts_rules_summary_and_notation_guide(spec):
    game = boardlab.make(spec)
    facts = game.facts()
    assert json.loads(json.dumps(facts)) == facts
    assert facts["chance"] == "seeded" and facts["can_sample"] and game.cheap_resample
    assert game.private_hands and not facts["perfect_information"]
    rules, notation = game.rules_summary, game.notation_guide
    assert "boat" in rules and str(game.L) in rules
    assert f"0 is the start, 1 to {game.L} the spaces, {game.L + 1} the boat" in notation
    assert f"{game.alphabet[0]}@3" in notation and "back@9" in notation and "pass" in notation
    assert ("end ends" in notation) == (game.options["actions_per_turn"] > 1)
    assert ("discard" in notation) == bool(game.options["hand_limit"])
    board = facts["board"]
    assert board["kind"] == "track"
    assert board["cells"] == [str(x) for x in range(game.L + 2)]
    assert board["labels"] == {"0": "start", str(game.L + 1): "boat"}
    fixed = game.options["track"]
    assert board["symbols"] == ([None] + list(fixed) + [None] if fixed else [None] * (game.L + 2))
    assert ("end" in board["buttons"]) == (game.options["actions_per_turn"] > 1)
    assert set(board["legend"]) == set(game.alphabet)
    assert all(set(entry) == {"label", "glyph"} for entry in board["legend"].values())


def test_profiles_have_their_own_summaries():
    games = [boardlab.make("cartagena", profile=p) for p in ("basic", "advanced", "original")]
    assert len({g.rules_summary for g in games}) == 3
    assert "one action" in games[0].rules_summary and "up to 3 actions" in games[1].rules_summary
    assert "skipped" in games[2].rules_summary and "stops" in games[1].rules_summary
    assert "hearts" in games[0].notation_guide and "skull" in games[1].notation_guide


@pytest.mark.parametrize("visibility", ["jamaica", "tortuga", "hispaniola"])
@isolated()
def test_the_board_block_shows_what_the_seat_may_see(visibility):
    game = cartagena(profile="advanced", players=3, visibility=visibility, hand_limit=7)
    s = game.new_initial_state(seed=987654321)
    rnd = random.Random(3)
    names = game.seat_names
    for _ in range(120):
        if s.is_terminal():
            break
        for seat in [None, *range(game.num_seats)]:
            view = s.view(seat)
            block = view["board"]
            assert not check_block(game.board_description(), block)
            assert block["tokens"] == view["tokens"]
            assert block["symbols"] == [None, *view["track"], None]
            for p, name in enumerate(names):
                if p == seat or visibility == "tortuga":
                    assert block["hand"][name] == hand_of(s, p) | {
                        a: 0 for a in game.alphabet if a not in hand_of(s, p)}
                else:
                    assert block["hand"][name] == int(s.hand(p).sum())
            assert block["pile"] == len(s.pile) and block["discard"] == view["discard"]
            assert ("face_up" in block) == (visibility != "jamaica")
            if visibility != "jamaica":
                assert block["face_up"] == s.face_up()
            left = 0 if view["discarding"] else 3 - view["actions_done"]
            assert block["actions_left"] == left and block["discarding"] == view["discarding"]
            assert "seed" not in json.dumps(view) and "987654321" not in json.dumps(view)
        s.apply(rnd.choice(s.legal_actions()))


@pytest.mark.parametrize("visibility", ["jamaica", "tortuga", "hispaniola"])
@isolated()
def test_the_undo_floor_is_after_the_last_draw_or_reveal(visibility):
    """Draws (with their reshuffles and face-up rows) always; plays and discards too where
    hands are hidden (they show a card of a hidden hand). Passes and ends never."""
    discards = 0
    for seed in range(6):
        game = cartagena(profile=("basic", "advanced")[seed % 2], players=2 + seed % 2,
                         visibility=visibility, hand_limit=(0, 4)[seed % 3 == 0],
                         allow_voluntary_pass=seed % 2 == 1)
        s = game.new_initial_state(seed=seed)
        rnd = random.Random(seed)
        floor = 0
        assert s.undo_floor() == 0
        while not s.is_terminal():
            action = rnd.choice(s.legal_actions())
            kind = K.decode(game.cfg, action)[0]
            seat = s.current_player()
            held, pile = int(s.hand(seat).sum()), (len(s.pile), int(s.discard_counts.sum()))
            s.apply(action)
            drew = kind == K.BACK and int(s.hand(seat).sum()) > held
            assert drew or kind != K.BACK or pile == (len(s.pile), int(s.discard_counts.sum()))
            if drew or (visibility != "tortuga" and kind in (K.PLAY, K.DISCARD)):
                floor = len(s.history)
            assert s.undo_floor() == floor
        d = game.determinize(s.view(0), 1)                 # a sample: never below the real one
        assert d.undo_floor() >= s.undo_floor()
        assert d.history == s.history                      # seats from the turn structure
        discards += sum(t.startswith("discard") for t in s.history_text())
    assert discards                                        # the hand-limit turns were seen


@isolated()
def test_going_back_to_the_undo_floor_shows_every_seat_what_it_saw_then():
    game = cartagena(players=3)
    s = game.new_initial_state(seed=11)
    rnd = random.Random(11)
    views = [[s.view(p) for p in range(3)]]
    while not s.is_terminal() and len(s.history) < 60:
        s.apply(rnd.choice(s.legal_actions()))
        views.append([s.view(p) for p in range(3)])
    floor = s.undo_floor()
    back = boardlab.replay_moves(game.spec, s.history_text()[:floor], seed=s.seed)
    assert [back.view(p) for p in range(3)] == views[floor]


@isolated()
def test_history_seats_survive_an_out_of_turn_resignation_in_a_sample():
    game = cartagena(players=3, profile="advanced", hand_limit=6)
    s = game.new_initial_state(seed=2)
    rnd = random.Random(2)
    for _ in range(25):
        s.apply(rnd.choice(s.legal_actions()))
    bystander = (s.current_player() + 1) % 3
    s.resign(bystander, out_of_turn=True)
    assert s.history[-1] == (bystander, RESIGN)
    for viewer in (None, 0, 1, 2):
        d = game.determinize(s.view(viewer), 5)
        assert d.history == s.history and d.resigned == bystander
        assert d.winners() == s.winners() and d.end_reason() == "resignation"


@isolated()
def test_scores_are_pirates_in_the_boat_and_agree_with_the_result():
    s = k11("C/")
    assert s.scores() == {"green": 1, "purple": 0}
    for move in ("C@4", "back@5", "D@3"):
        s.play(move)
    result = s.view(None)["result"]
    assert result == {"winners": ["green"], "draw": False, "returns": [1.0, -1.0],
                      "scores": {"green": 2, "purple": 0}, "reason": "all tokens home",
                      "summary": "Green wins 2–0 (all tokens home)"}


def test_the_track_block_marks_the_last_moved_token_from_where_to_where():
    """The view's board block names the last move's token ("last": [from, to]) after a
    move of a token, in copies too, and not once another action (a card drawn by ending
    the turn, a pass) moved none."""
    rng = random.Random(11)
    state = boardlab.make("cartagena(profile=basic,players=3)").new_initial_state(5)
    marked = 0
    while not state.is_terminal() and marked < 30:
        seat = state.current_player()
        if seat < 0:
            state.apply(rng.choice(state.legal_actions()))
            continue
        before = state.mine(seat).copy()
        state.apply(rng.choice(state.legal_actions()))
        change = state.mine(seat) - before
        last = state.view(seat)["board"].get("last")
        if change.any():
            assert last == [int(np.argmin(change)), int(np.argmax(change))]
            assert state.clone().view(None)["board"].get("last") == last
            marked += 1
        else:
            assert last is None
    assert marked == 30
