"""Cartagena: what a seat knows of the unseen cards, and the worlds sampled from it.

Random games in every profile and visibility check, after every action and for
every seat, that the knowledge is true of the real game: the cards a seat is
said to hold are in its hand, and the groups hold exactly the cards the viewer
has not placed. Samples (``determinize`` and ``redeal``) never contradict it,
and after a reshuffle in a two-player game the opponent's hand is exact.
"""
from __future__ import annotations

import random

import numpy as np
import pytest
from isolation import isolated

import boardlab
from boardlab.games import cartagena_kernel as K
from boardlab.games.cartagena_knowledge import CardKnowledge

SPECS = ["cartagena", "cartagena(players=4)", "cartagena(profile=advanced,players=3)",
         "cartagena(profile=original,players=5)",
         "cartagena(visibility=hispaniola)",
         "cartagena(profile=advanced,hand_limit=7,allow_voluntary_pass=true,"
         "visibility=hispaniola)"]


def check_knowledge(state, seat):
    """The seat's knowledge is true of ``state``: known cards are held, groups are exact."""
    knowledge, S = state.knowledge[seat], len(state.game.alphabet)
    unplaced = np.zeros(S, dtype=int)
    for q in range(state.game.num_seats):
        if q == seat:
            continue
        hand, known = state.hand(q), np.array(knowledge.known[q])
        assert (known <= hand).all(), (q, known, hand)
        unplaced += hand - known
        slots = sum(g[1][q] for g in knowledge.groups)
        assert slots == hand.sum() - known.sum()
    face_up = int(state.buf[K.M_ROW_LEFT])
    hidden = state.pile[face_up:]
    unplaced += np.bincount(hidden, minlength=S).astype(int)
    grouped = np.array([g[0] for g in knowledge.groups]).sum(axis=0) if knowledge.groups \
        else np.zeros(S, dtype=int)
    assert (grouped == unplaced).all(), (grouped, unplaced)
    assert sum(g[2] for g in knowledge.groups) == len(hidden)
    assert all(g[2] == 0 for g in knowledge.groups[:-1])     # only the newest is in the pile


def check_sample(state, seat, seed):
    view = state.view(seat)
    sample = state.game.determinize(view, seed)
    assert sample.view(seat) == view
    known = state.knowledge[seat].known
    for q in range(state.game.num_seats):
        assert (sample.hand(q) >= np.array(known[q])).all() or q == seat
    again = sample.clone()
    again.redeal(seat, seed + 1)
    assert again.view(seat) == view
    for q in range(state.game.num_seats):
        assert (again.hand(q) >= np.array(known[q])).all() or q == seat
    return sample


@pytest.mark.parametrize("spec", SPECS)
@isolated(timeout=240)
def test_knowledge_stays_true_through_random_games(spec):
    game = boardlab.make(spec)
    for seed in range(6):
        state = game.new_initial_state(seed=seed)
        rng = random.Random(seed)
        for step in range(400):
            if state.is_terminal():
                break
            for seat in range(game.num_seats):
                check_knowledge(state, seat)
            if step % 9 == 0:
                check_sample(state, state.current_player(), seed * 1000 + step)
            state.apply(rng.choice(state.legal_actions()))


def _after_first_reshuffle(seed):
    """A two-player basic game played at random until just after a reshuffle."""
    state = boardlab.make("cartagena").new_initial_state(seed=seed)
    rng = random.Random(seed)
    while not state.is_terminal():
        before = sum(state.discard_counts)
        action = rng.choice(state.legal_actions())
        kind = K.decode(state.game.cfg, action)[0]
        state.apply(action)
        if kind == K.BACK and sum(state.discard_counts) < before:
            return state
    return None


@isolated(timeout=120)
def test_after_a_reshuffle_the_other_hand_of_two_is_known_exactly():
    exact = 0
    for seed in range(40):
        state = _after_first_reshuffle(seed)
        if state is None:
            continue
        for seat in (0, 1):
            other = 1 - seat
            knowledge = state.knowledge[seat]
            if any(g[1][other] for g in knowledge.groups):
                continue                    # it drew from the new pile in the same move
            exact += 1
            truth = state.hand(other).tolist()
            assert knowledge.known[other] == truth
            for sample_seed in range(5):
                sample = state.game.determinize(state.view(seat), sample_seed)
                assert sample.hand(other).tolist() == truth
                sample.redeal(seat, sample_seed + 99)
                assert sample.hand(other).tolist() == truth
    assert exact >= 10


@isolated(timeout=120)
def test_hispaniola_draws_are_public():
    game = boardlab.make("cartagena(visibility=hispaniola)")
    state = game.new_initial_state(seed=3)
    rng = random.Random(3)
    seen = 0
    while not state.is_terminal() and seen < 5:
        seat = state.current_player()
        action = rng.choice(state.legal_actions())
        before = state.hand(seat).copy()
        state.apply(action)
        drawn = state.hand(seat) - before
        if (drawn > 0).any():
            seen += 1
            other = state.knowledge[1 - seat]
            assert (np.array(other.known[seat]) >= drawn).all()
    assert seen == 5


def test_a_play_that_could_come_from_two_groups_merges_them():
    k = CardKnowledge(0, [[0, 0], [0, 0], [0, 0]],
                      [[[1, 1], [0, 1, 1], 0], [[1, 1], [0, 1, 0], 1]])
    k.played(1, 0)                 # seat 1 holds one card of each group: either gave the 0
    assert len(k.groups) == 1 and k.groups[0] == [[1, 2], [0, 1, 1], 1]


def test_a_known_card_is_played_first():
    k = CardKnowledge(0, [[0, 0], [1, 0]], [[[1, 1], [0, 1], 1]])
    k.played(1, 0)
    assert k.known[1] == [0, 0] and k.groups == [[[1, 1], [0, 1], 1]]


def test_knowledge_survives_the_view_as_plain_data():
    state = boardlab.make("cartagena(players=3)").new_initial_state(seed=5)
    data = state.view(1)["card_knowledge"]
    back = CardKnowledge.from_data(data, 1, state.game.alphabet, state.game.seat_names)
    assert back.to_data(state.game.alphabet, state.game.seat_names) == data
    assert state.view(None)["card_knowledge"] is None
    open_hands = boardlab.make("cartagena(profile=original,visibility=tortuga)")
    assert open_hands.new_initial_state(seed=1).view(0)["card_knowledge"] is None


def test_the_terminal_shows_the_cards_a_seat_knows_another_holds():
    game = boardlab.make("cartagena(visibility=hispaniola)")
    state = game.new_initial_state(seed=1)
    rng = random.Random(1)
    while not any(state.knowledge[0].known[1]):
        state.apply(rng.choice(state.legal_actions()))
    known = " ".join(a for a, n in zip(game.alphabet, state.knowledge[0].known[1])
                     for _ in range(n))
    assert f"you know of {known}" in "\n".join(state.status_lines(0))
    assert "you know of" not in "\n".join(state.status_lines(None))


def test_a_sample_played_on_no_longer_claims_its_viewers_knowledge():
    state = boardlab.make("cartagena").new_initial_state(seed=2)
    seat = state.current_player()
    sample = state.game.determinize(state.view(seat), 7)
    assert sample.view(seat)["card_knowledge"] == state.view(seat)["card_knowledge"]
    sample.apply(sample.legal_actions()[0])
    assert sample.view(seat)["card_knowledge"] is None
