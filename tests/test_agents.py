"""Agents (boardlab.agents): random, greedy, mcts, ismcts.

1. Every agent plays every registered game (each Game class's
   ``conformance_specs`` plus the small configurations below) against random
   opponents, from different seats, returning only actions of
   ``view["legal_actions"]``; the game reaches its end. Long games cap the
   agent's own moves (``MAX_AGENT_MOVES``) and are finished by random play.
2. ``act`` changes neither the view it gets nor the real state.
3. Iteration budgets are deterministic: same spec, seed and view, same action.
4. No hidden information: a determinized Cartagena state never reproduces a
   stacked pile, does not depend on what the viewer cannot see, and an agent's
   action is the same for two real states that give the same view.
5. Listing, options and errors.
6. MCTS finds an obvious win (Carteso, Rumbo, Cartagena K11-like set-ups).
7. The komi/side pre-game with ``komi_protocol=bid``.

Game-playing bodies run in a forked child with a time limit (``isolated``):
the compiled kernels cannot be interrupted.
"""
from __future__ import annotations

import copy
import random
import time

import numpy as np
import pytest
from isolation import isolated, progress

import boardlab
import boardlab.agents
from boardlab.agents import agents, make_agent
from boardlab.agents.search_state import state_from_view
from boardlab.core.errors import OptionError, UnknownAgentError
from boardlab.core.game import Game, State

AGENT_SPECS = ("random", "greedy", "mcts(iterations=20)", "ismcts(iterations=20)",
               "mcts(level=1)", "mcts(iterations=20,evaluator=heuristic)")
SEARCH_SPECS = AGENT_SPECS[1:]
# the whole-game matrix leaves out the level: mcts(level=1) is mcts(iterations=50) (8 on
# Cartagena), the same search as mcts(iterations=20) on another budget (the checks below
# still run it everywhere)
MATRIX_SPECS = tuple(spec for spec in AGENT_SPECS if spec != "mcts(level=1)")
MAX_AGENT_MOVES = 25  # the agent's own moves per game; random play finishes long games
AGENT_SECONDS = 1.0   # ... and no more after this much search time (once it made 3 moves)

# The configurations of the brief, on top of every game's conformance_specs.
EXTRA_SPECS = (
    "carteso(size=5)", "carteso(size=5,button=false)", "carteso(size=5,komi_protocol=bid)",
    "rumbo(size=4)", "rumbo(size=4,komi_protocol=bid)",
    "cartagena(profile=basic)", "cartagena(profile=basic,players=3)",
    "cartagena(profile=advanced,players=4)", "cartagena(profile=original,players=5)",
    "cartagena(profile=original,players=3,visibility=tortuga)",
    "ctor(size=8)", "ctor(size=8,teams=2v2)", "ctor(size=8,teams=2v3)",
    "ctor(size=8,secret_squares=true)", "ctor(size=8,teams=2v3,secret_squares=true)",
    "ctor(size=8,teams=2v2,team_protocol=simultaneous)",
    "ctor(size=8,teams=2v3,team_protocol=simultaneous)",
)


def game_specs():
    """Every registered game's conformance specs, then the extra ones (by canonical spec)."""
    specs, seen = [], set()
    for cls in boardlab.games():
        for spec in tuple(cls.conformance_specs or (cls.name,)) + tuple(
                s for s in EXTRA_SPECS if boardlab.parse_spec(s)[0] == cls.name):
            canonical = boardlab.make(spec).spec
            if canonical not in seen:
                seen.add(canonical)
                specs.append(spec)
    return specs


GAME_SPECS = game_specs()

# A few configurations of every kind (bidding, hidden cards, teams, secret squares,
# simultaneous commits) for the slower checks.
SAMPLE_SPECS = ("carteso(size=5)", "carteso(size=5,komi_protocol=bid)", "rumbo(size=4)",
                "cartagena(profile=basic,players=3)",
                "cartagena(profile=original,players=4,visibility=tortuga)",
                "ctor(size=8,teams=2v2)", "ctor(size=8,secret_squares=true)",
                "ctor(size=8,teams=2v2,team_protocol=simultaneous)")


def _warm_up():
    """Load the compiled kernels once in the parent, so that forked tests start fast."""
    try:
        for spec in ("carteso(size=5)", "rumbo(size=4)", "cartagena",
                     "ctor(size=8,teams=2v2,team_protocol=simultaneous)"):
            game = boardlab.make(spec)
            state = game.new_initial_state(seed=1)
            make_agent("mcts(iterations=5)", game, 0, seed=1).act(state.view(0))
            rng = random.Random(1)
            for _ in range(60):
                if state.is_terminal():
                    break
                seat = rng.choice(state.acting_seats())
                state.apply(rng.choice(state.legal_actions_for(seat)), seat=seat)
    except boardlab.BoardlabError:
        pass


_warm_up()


# Helpers -------------------------------------------------------------------------------------

def random_step(state, rng):
    """One random action of a random acting seat."""
    seat = rng.choice(state.acting_seats())
    state.apply(rng.choice(state.legal_actions_for(seat)), seat=seat)


def acting_seats_of(game, actions=150, seed=0):
    """The seats that act in the first ``actions`` actions of a random game (sorted)."""
    state, rng, seats = game.new_initial_state(seed=seed), random.Random(seed), set()
    for _ in range(actions):
        if state.is_terminal():
            break
        seats.update(state.acting_seats())
        random_step(state, rng)
    return sorted(seats)


def positions(spec, plies=(0, 3, 12, 40), seed=3, every_seat=True):
    """(state, seat) pairs along a random game: the acting seats after each ply count."""
    game = boardlab.make(spec)
    state, rng, done, out = game.new_initial_state(seed=seed), random.Random(seed), 0, []
    for target in plies:
        while done < target and not state.is_terminal():
            random_step(state, rng)
            done += 1
        if state.is_terminal():
            break
        seats = state.acting_seats()
        out.extend((state.clone(), seat) for seat in (seats if every_seat else seats[-1:]))
    return game, out


def frozen(state):
    """Everything about a state (hidden parts included), to check that nothing changed."""
    round_ = getattr(state, "round", None)
    return (state.buf.tobytes() if hasattr(state, "buf") else None, list(state.history),
            state.resigned, repr(round_.__dict__) if round_ is not None else None,
            state.summary())


def is_legal_int(action, legal):
    return isinstance(action, int) and not isinstance(action, bool) and action in legal


# 1. Legal complete games ----------------------------------------------------------------------

@pytest.mark.parametrize("spec", GAME_SPECS)
@pytest.mark.parametrize("agent_spec", MATRIX_SPECS)
@isolated(timeout=60)
def test_agent_plays_legal_complete_games_against_random(agent_spec, spec):
    game = boardlab.make(spec)
    candidates = acting_seats_of(game)
    index = AGENT_SPECS.index(agent_spec) + GAME_SPECS.index(spec)
    seat = candidates[index % len(candidates)]  # different seats across the matrix
    state = game.new_initial_state(seed=index)
    agent = make_agent(agent_spec, game, seat, seed=index)
    others = {s: make_agent("random", game, s, seed=100 + s) for s in range(game.num_seats)}
    rng = random.Random(index)
    acted = steps = 0
    searched = 0.0
    while not state.is_terminal():
        assert steps <= game.max_game_length, "the game does not end"
        acting = state.acting_seats()
        assert acting, f"no seat acts in a running game after {steps} actions"
        mover = rng.choice(acting)
        steps += 1
        if acted >= MAX_AGENT_MOVES or acted >= 3 and searched >= AGENT_SECONDS:
            # The agent is done: finish at random, quickly (views are slow to build).
            state.apply(rng.choice(state.legal_actions_for(mover)), seat=mover)
            continue
        view = state.view(mover)
        legal = list(view["legal_actions"])
        assert legal, f"{game.seat_names[mover]} acts but its view has no legal actions"
        if mover != seat:
            state.apply(others[mover].act(view), seat=mover)
            continue
        progress(f"{agent_spec} as {game.seat_names[seat]} on {spec}: agent move {acted}, "
                 f"action {steps}")
        start = time.perf_counter()
        action = agent.act(view)
        searched += time.perf_counter() - start
        acted += 1
        assert is_legal_int(action, legal), \
            f"{agent_spec} returned {action!r}, not one of {legal} (action {steps})"
        state.apply(action, seat=mover)
    assert acted > 0, f"the agent at {game.seat_names[seat]} never acted"
    returns = state.returns()
    assert len(returns) == game.num_seats and all(r in (-1.0, 0.0, 1.0) for r in returns)


@isolated(timeout=60)
def test_mcts_plays_every_seat_of_a_small_game_to_the_end():
    for spec in ("carteso(size=4,button=false,komi=0.5)", "rumbo(size=4,komi=0.5)",
                 "cartagena(profile=basic,players=3)"):
        game = boardlab.make(spec)
        for seat in range(game.num_seats):
            state = game.new_initial_state(seed=seat)
            players = {s: make_agent("mcts(iterations=20)" if s == seat else "random", game, s,
                                     seed=s) for s in range(game.num_seats)}
            while not state.is_terminal():
                mover = state.current_player()
                view = state.view(mover)
                action = players[mover].act(view)
                assert is_legal_int(action, view["legal_actions"])
                state.apply(action)


# 2. Agents change nothing ---------------------------------------------------------------------

@pytest.mark.parametrize("spec", SAMPLE_SPECS)
@pytest.mark.parametrize("agent_spec", AGENT_SPECS)
@isolated(timeout=60)
def test_act_changes_neither_the_view_nor_the_state(agent_spec, spec):
    game, found = positions(spec)
    assert found
    for i, (state, seat) in enumerate(found):
        view = state.view(seat)
        before_view, before_state = copy.deepcopy(view), frozen(state)
        agent = make_agent(agent_spec, game, seat, seed=i)
        progress(f"position {i}, seat {seat}")
        action = agent.act(view)
        assert is_legal_int(action, view["legal_actions"])
        assert view == before_view, "act() changed the view it was given"
        assert frozen(state) == before_state, "act() changed the real state"
        assert state.view(seat) == before_view


# 3. Determinism -------------------------------------------------------------------------------

@pytest.mark.parametrize("spec", SAMPLE_SPECS)
@isolated(timeout=60)
def test_same_spec_seed_and_view_give_the_same_action(spec):
    game, found = positions(spec, plies=(0, 6, 25), every_seat=False)
    for agent_spec in AGENT_SPECS:
        for i, (state, seat) in enumerate(found):
            view = state.view(seat)
            first = make_agent(agent_spec, game, seat, seed=40 + i).act(copy.deepcopy(view))
            again = make_agent(agent_spec, game, seat, seed=40 + i).act(copy.deepcopy(view))
            assert first == again, f"{agent_spec} at position {i}: {first} then {again}"


@pytest.mark.parametrize("spec", ["carteso(size=5)", "cartagena(profile=advanced,players=3)",
                                  "ctor(size=8,teams=2v2)"])
@isolated(timeout=60)
def test_a_whole_seeded_game_between_search_agents_repeats(spec):
    def play():
        game = boardlab.make(spec)
        state = game.new_initial_state(seed=5)
        players = [make_agent("mcts(iterations=15)" if s % 2 == 0 else "ismcts(iterations=15)",
                              game, s, seed=s) for s in range(game.num_seats)]
        for _ in range(60):
            if state.is_terminal():
                break
            mover = state.current_player()
            state.apply(players[mover].act(state.view(mover)))
        return list(state.history)

    assert play() == play()


# 4. No hidden information (Cartagena) ---------------------------------------------------------

TRACK = "HCDSCHSHCSCDHDSD"
STACKED = "HCDSSDCHHSDCCHSDDSHCSCHDHDCSSC"  # 30 cards, top first; seats are dealt 3 each


def stacked_game(deck=STACKED, **options):
    return boardlab.make("cartagena", profile="basic", players=2, track=TRACK, deck=deck,
                         first_player=0, **options)


def scripted(state, draws=6):
    """Retreat when possible (it draws cards), else the first legal action, until
    ``draws`` cards have been drawn from the pile. The moves depend on the view only."""
    start = len(state.pile)
    texts = []
    while start - len(state.pile) < draws and not state.is_terminal():
        view = state.view(state.current_player())
        legal = view["legal_actions"]
        backs = [a for a in legal if state.action_to_string(a).startswith("back")]
        action = (backs or legal)[0]
        texts.append(state.action_to_string(action))
        state.apply(action)
    return texts


def twin_states():
    """Two real states with the same views for every seat but different hidden pile orders.

    The decks agree on every card dealt or drawn; the cards still in the pile are reversed.
    """
    probe = stacked_game().new_initial_state(seed=1)
    scripted(probe)
    used = len(STACKED) - len(probe.pile)
    other_deck = STACKED[:used] + STACKED[used:][::-1]
    assert other_deck != STACKED
    a, b = stacked_game().new_initial_state(seed=1), \
        stacked_game(other_deck).new_initial_state(seed=1)
    assert scripted(a) == scripted(b)
    assert a.pile.tolist() != b.pile.tolist()
    for seat in range(2):
        assert a.view(seat) == b.view(seat)
    return a, b


def pile_letters(state):
    return "".join(state.game.alphabet[c] for c in state.pile)


@isolated(timeout=60)
def test_the_stacked_deck_is_dealt_top_first():
    state = stacked_game().new_initial_state(seed=1)
    assert pile_letters(state) == STACKED[6:]
    assert state.view(0)["pile_size"] == 24


@isolated(timeout=60)
def test_determinization_never_reproduces_the_stacked_pile():
    fresh = stacked_game().new_initial_state(seed=1)
    played = stacked_game().new_initial_state(seed=1)
    scripted(played)
    for real in (fresh, played):
        for seat in range(2):
            view = real.view(seat)
            other = 1 - seat
            real_other_hand = real.hand(other).tolist()
            other_hands = []
            for seed in range(20):
                state = state_from_view(real.game, view, random.Random(seed))
                assert state is not real
                assert state.pile.tolist() != real.pile.tolist(), f"seed {seed}"
                assert state.hand(seat).tolist() == real.hand(seat).tolist()
                assert len(state.pile) == len(real.pile)
                other_hands.append(state.hand(other).tolist())
            assert any(h != real_other_hand for h in other_hands), \
                "every determinization deals the opponent its real hand"


@isolated(timeout=60)
def test_a_determinized_state_does_not_depend_on_what_the_viewer_cannot_see():
    """Two real states with equal views must give identical determinized states (the
    whole buffer: stale cards outside the live pile are hidden information too)."""
    a, b = twin_states()
    for seat in range(2):
        view = a.view(seat)
        for seed in range(5):
            da = state_from_view(a.game, view, random.Random(seed))
            db = state_from_view(b.game, view, random.Random(seed))
            assert da.pile.tolist() == db.pile.tolist()
            differ = np.flatnonzero(da.buf != db.buf)
            start = a.game.layout["pile"]
            assert differ.size == 0, (
                f"seat {seat}, seed {seed}: determinized buffers differ at {differ.tolist()} "
                f"(pile region starts at {start}; live pile is {len(da.pile)} cards): "
                f"{da.buf[differ].tolist()} vs {db.buf[differ].tolist()}")


@pytest.mark.parametrize("agent_spec", SEARCH_SPECS)
@isolated(timeout=60)
def test_the_action_does_not_change_when_only_hidden_cards_change(agent_spec):
    # The order of the undrawn pile differs.
    a, b = twin_states()
    seat = a.current_player()
    for seed in range(3):
        act_a = make_agent(agent_spec, a.game, seat, seed=seed).act(a.view(seat))
        act_b = make_agent(agent_spec, b.game, seat, seed=seed).act(b.view(seat))
        assert act_a == act_b
    # The opponent's hand differs (and so does the pile).
    games = [boardlab.make("cartagena", profile="basic", players=2, track=TRACK,
                           hands=hands, first_player=0) for hands in ("HCD/SSH", "HCD/CCD")]
    states = [g.new_initial_state(seed=s) for s, g in enumerate(games)]
    assert states[0].view(0) == states[1].view(0)
    assert states[0].hand(1).tolist() != states[1].hand(1).tolist()
    for seed in range(3):
        acts = [make_agent(agent_spec, s.game, 0, seed=seed).act(s.view(0)) for s in states]
        assert acts[0] == acts[1]


def reachable(root, skip=(Game,)):
    """Every object reachable from ``root`` (attributes, slots, containers), except games,
    random generators, modules and classes."""
    seen, stack = set(), [root]
    while stack:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, skip + (random.Random, type)) or \
                type(obj).__name__ in ("module", "function", "builtin_function_or_method"):
            continue
        seen.add(id(obj))
        yield obj
        if isinstance(obj, dict):
            stack.extend(obj.keys())
            stack.extend(obj.values())
        elif isinstance(obj, (list, tuple, set, frozenset)):
            stack.extend(obj)
        elif not isinstance(obj, (str, bytes, int, float, np.ndarray, np.generic)):
            stack.extend(getattr(obj, "__dict__", {}).values())
            for cls in type(obj).__mro__:
                for name in getattr(cls, "__slots__", ()):
                    if hasattr(obj, name):
                        stack.append(getattr(obj, name))


@pytest.mark.parametrize("agent_spec", SEARCH_SPECS)
@isolated(timeout=60)
def test_nothing_the_agent_keeps_holds_the_real_pile(agent_spec):
    """Everything reachable from the agent after act(), its game aside (the Game carries
    the set-up options, deck included: see the report), is free of the real pile."""
    _, real = twin_states()
    seat = real.current_player()
    pile, letters = real.pile.tolist(), pile_letters(real)
    agent = make_agent(agent_spec, real.game, seat, seed=1)
    agent.act(real.view(seat))
    count = 0
    for obj in reachable(agent):
        count += 1
        assert obj is not real
        if isinstance(obj, State):
            assert getattr(obj, "buf", None) is not real.buf
            assert obj.pile.tolist() != pile
        elif isinstance(obj, np.ndarray):
            assert obj.tolist() != pile
        elif isinstance(obj, (list, tuple)):
            assert list(obj) != pile
        elif isinstance(obj, str):
            assert letters not in obj
    assert count > 1


# No hidden information (CTOR) -----------------------------------------------------------------

def ctor_after_secret_picks(white_picks):
    """ctor(size=8,secret_squares=true) after black picks 1-5 and white ``white_picks``."""
    game = boardlab.make("ctor(size=8,secret_squares=true)")
    state = game.new_initial_state()
    for square in (1, 2, 3, 4, 5, *white_picks):
        state.play(f"secret {square}")
    return state


@pytest.mark.parametrize("agent_spec", SEARCH_SPECS)
@isolated(timeout=60)
def test_ctor_agents_do_not_see_the_other_teams_secret_squares(agent_spec):
    a, b = ctor_after_secret_picks((60, 61, 62, 63, 64)), ctor_after_secret_picks((50, 51, 52,
                                                                                   53, 54))
    assert a.current_player() == 0 and a.view(0) == b.view(0)
    assert a.secret_squares(1) != b.secret_squares(1)
    for seed in range(2):
        act_a = make_agent(agent_spec, a.game, 0, seed=seed).act(a.view(0))
        act_b = make_agent(agent_spec, b.game, 0, seed=seed).act(b.view(0))
        assert act_a == act_b


@isolated(timeout=60)
def test_ctor_determinization_samples_the_other_teams_secret_squares():
    real = ctor_after_secret_picks((60, 61, 62, 63, 64))
    view = real.view(0)
    drawn = []
    for seed in range(10):
        state = state_from_view(real.game, view, random.Random(seed))
        assert state.secret_squares(0) == [1, 2, 3, 4, 5]
        assert len(state.secret_squares(1)) == 5
        assert state.view(0) == view
        drawn.append(state.secret_squares(1))
    assert any(squares != real.secret_squares(1) for squares in drawn)
    assert len({tuple(squares) for squares in drawn}) > 1


@isolated(timeout=60)
def test_ctor_set_up_secret_squares_of_the_other_team_are_sampled_not_read():
    """A game made with both teams' squares (``secrets=``) has no picks in its
    history; the searcher's copy of the game must still not reveal the other team's."""
    game = boardlab.make("ctor(size=8,secret_squares=true,secrets=1,2,3,4,5/36,37,38,39,40)")
    real = game.new_initial_state()
    for text in ("put 18", "put 38", "put 57", "put 9", "put 35", "move 9>16"):
        real.play(text)
    view = real.view(0)
    assert view["revealed_secret_squares"] == {"black": [], "white": []}
    drawn = set()
    for seed in range(8):
        state = state_from_view(game, view, random.Random(seed))
        assert state.secret_squares(0) == [1, 2, 3, 4, 5]
        assert state.view(0) == view and 18 not in state.secret_squares(1)
        drawn.add(tuple(state.secret_squares(1)))
    assert len(drawn) > 1 and (36, 37, 38, 39, 40) not in drawn


def simultaneous_sub_round(first_commit=None):
    """A regular turn of black's two members (2v2, simultaneous), black-1 maybe committed."""
    rows = ["B......."] + ["........"] * 6 + [".......W"]
    game = boardlab.make("ctor", size=8, teams="2v2", team_protocol="simultaneous",
                         position="/".join(rows), turn=1)
    state = game.new_initial_state()
    if first_commit:
        state.play(f"black-1:{first_commit}")
    return state


@pytest.mark.parametrize("agent_spec", SEARCH_SPECS)
@isolated(timeout=60)
def test_ctor_agents_do_not_see_team_mates_pending_operations(agent_spec):
    a, b = simultaneous_sub_round("put 10"), simultaneous_sub_round("put 30")
    assert a.acting_seats() == [1] and a.view(1) == b.view(1)
    for seed in range(2):
        act_a = make_agent(agent_spec, a.game, 1, seed=seed).act(a.view(1))
        act_b = make_agent(agent_spec, b.game, 1, seed=seed).act(b.view(1))
        assert act_a == act_b
    samples = [state_from_view(a.game, a.view(1), random.Random(seed)) for seed in range(8)]
    assert all(sample.view(1) == a.view(1) for sample in samples)   # consistent with the view
    assert {tuple(sample.pending_of(0)) for sample in samples} != {("put 10",)}  # not read


def test_a_pending_operation_counts_for_its_own_seat_only():
    """Greedy compares its operations by the heuristic after committing each one: in an
    open sub-round the heuristic must see the seat's own pending choice (else all tie)."""
    state = simultaneous_sub_round()
    before = [state.heuristic(seat) for seat in range(4)]
    state.play("black-1:put 10")
    assert state.heuristic(0) == pytest.approx(before[0] + 1 / 64)
    assert state.heuristic(1) == before[1]            # black-2 cannot see it yet
    greedy = make_agent("greedy", state.game, 1, seed=0)
    view = state.view(1)
    assert greedy.act(view) in view["legal_actions"]


@pytest.mark.parametrize("agent_spec", ["mcts(iterations=200)", "ismcts(iterations=200)"])
@isolated(timeout=60)
def test_search_decides_for_its_own_seat_in_a_simultaneous_sub_round(agent_spec):
    """black-1 has used its share of Puts, black-2 has not: black-2's search must weigh
    black-2's own actions (its Puts included), not black-1's."""
    state = simultaneous_sub_round("put 10")
    state.play("black-2:end")
    assert state.acting_seats() == [0, 1]
    P = state.game.P
    own = state.legal_actions_for(1)
    assert not any(a < P for a in state.legal_actions_for(0)) and any(a < P for a in own)
    agent = make_agent(agent_spec, state.game, 1, seed=1)
    agent.act(state.view(1))
    assert set(agent.root.stats) == set(own), \
        f"the root holds {len(agent.root.stats)} actions; black-2 has {len(own)}"



# 5. Listing, options, errors ------------------------------------------------------------------

def test_the_listing_has_every_agent_with_a_description():
    listed = {cls.name: cls for cls in agents()}
    assert {"random", "greedy", "mcts", "ismcts"} <= set(listed)
    assert [cls.name for cls in agents()] == sorted(listed)
    for cls in listed.values():
        assert isinstance(cls.description, str) and cls.description.strip()
        for option in cls.declared_options:
            assert option.help
    names = {o.name for o in listed["mcts"].declared_options}
    assert {"time", "iterations", "c", "rollout_turns", "reuse", "level"} <= names
    ismcts_names = names - {"determinizations"} | {"opponents", "own", "worlds"}
    assert {o.name for o in listed["ismcts"].declared_options} == ismcts_names


@pytest.mark.parametrize("spec, option", [("mcts(level=9)", "level"), ("mcts(c=-1)", "c"),
                                          ("mcts(colour=1)", "colour"),
                                          ("ismcts(iterations=-5)", "iterations"),
                                          ("mcts(time=-1)", "time"),
                                          ("mcts(iterations=lots)", "iterations"),
                                          ("mcts(reuse=maybe)", "reuse"),
                                          ("mcts(rollout_turns=-1)", "rollout_turns"),
                                          ("greedy(depth=2)", "depth"),
                                          ("random(iterations=3)", "iterations")])
def test_bad_options_raise_option_error_naming_the_option(spec, option):
    game = boardlab.make("carteso(size=5)")
    with pytest.raises(boardlab.OptionError) as info:
        make_agent(spec, game, 0)
    assert repr(option) in str(info.value) or f"'{option}'" in str(info.value)


def test_an_unknown_agent_raises_unknown_agent_error():
    game = boardlab.make("carteso(size=5)")
    with pytest.raises(UnknownAgentError) as info:
        make_agent("alphazero", game, 0)
    assert isinstance(info.value, boardlab.BoardlabError)
    assert "alphazero" in str(info.value) and "mcts" in str(info.value)
    with pytest.raises(boardlab.SpecError):
        make_agent("mcts(", game, 0)


def test_unknown_agent_error_is_exported_by_boardlab():
    assert getattr(boardlab, "UnknownAgentError", None) is UnknownAgentError
    with pytest.raises(boardlab.UnknownAgentError):
        make_agent("alphazero", boardlab.make("rumbo(size=4)"), 0)


@pytest.mark.parametrize("spec, expected", [
    ("rumbo(size=5)", [50, 120, 250, 500, 1000]), ("cartagena", [8, 20, 50, 150, 4000]),
    ("carteso(size=5)", [50, 75, 115, 170, 260])])
def test_levels_set_the_budget(spec, expected):
    """Every level is a number of simulations and no clock, as the game declares them
    (docs/agents.md, "Levels")."""
    game = boardlab.make(spec)
    budgets = [make_agent(f"mcts(level={level})", game, 0).options for level in range(1, 6)]
    assert [options["iterations"] for options in budgets] == expected
    assert all(options["time"] == 0 for options in budgets)
    assert make_agent("ismcts(level=3)", game, 0).options["iterations"] == expected[2]
    assert make_agent("mcts(time=0,iterations=0)", game, 0).options["iterations"] > 0


@isolated(timeout=120)
def test_a_level_plays_the_same_moves_under_a_seed():
    """No clock in a level: the same seed gives the same move, however long it took."""
    game = boardlab.make("carteso(size=5)")
    state = game.new_initial_state()
    moves = set()
    for _ in range(2):
        agent = make_agent("mcts(level=2)", game, 0, seed=3)
        moves.add(agent.act(state.view(0)))
        assert agent.iterations_done <= 120
    assert len(moves) == 1


@isolated(timeout=60)
def test_a_time_budget_is_kept():
    game = boardlab.make("carteso(size=5)")
    state = game.new_initial_state()
    agent = make_agent("mcts(time=0.3,early_stop=false)", game, 0, seed=1)
    start = time.perf_counter()
    action = agent.act(state.view(0))
    elapsed = time.perf_counter() - start
    assert action in state.legal_actions()
    # it thinks its 0.3 s, and stops: the upper bound only catches a budget ignored (a
    # loaded machine may take longer than 0.3 s, never a minute)
    assert 0.25 <= elapsed < 30 and agent.iterations_done > 20


@isolated(timeout=60)
def test_the_budget_argument_overrides_the_options():
    game = boardlab.make("rumbo(size=4)")
    state = game.new_initial_state()
    agent = make_agent("mcts(iterations=500)", game, 0, seed=1)
    agent.act(state.view(0), budget={"iterations": 7})
    assert agent.iterations_done == 7


def test_a_level_with_its_own_time_or_iterations_is_refused():
    game = boardlab.make("carteso(size=5)")
    for spec, named in (("mcts(level=1,time=5)", "time"),
                        ("ismcts(level=4,iterations=9)", "iterations")):
        with pytest.raises(OptionError) as info:
            make_agent(spec, game, 0)
        assert "'level'" in str(info.value) and named in str(info.value)


@pytest.mark.parametrize("spec, budget, limits", [
    ("mcts", {"time": 5}, (5, 0)),                   # a runner's time lifts the default cap
    ("mcts(iterations=50)", {"time": 5}, (5, 50)),   # ... not one the spec asked for
    ("mcts(level=1)", {"time": 5}, (5, 50)),         # ... nor the level's
    ("mcts(time=1)", {"iterations": 7}, (1, 7)),
    ("mcts", {"iterations": 0}, (0, 1000)),          # zeros are no limit: the options hold
    ("mcts(iterations=0)", {"time": 5}, (5, 0)),     # 0 asks for no cap: none is kept
    ("mcts(time=2)", {"time": 0, "iterations": 0}, (2, 0)),
    ("mcts", None, (0, 1000))])
def test_a_moves_limits_are_the_budget_over_the_options(spec, budget, limits):
    agent = make_agent(spec, boardlab.make("carteso(size=5)"), 0)
    assert agent._limits(budget) == limits


@isolated(timeout=60)
def test_a_budget_without_limits_still_ends_the_search():
    game = boardlab.make("rumbo(size=4)")
    state = game.new_initial_state()
    agent = make_agent("mcts(iterations=40,early_stop=false)", game, 0, seed=1)
    for budget in ({"iterations": 0}, {"time": 0}, {}):
        assert agent.act(state.view(0), budget) in state.legal_actions()
        assert agent.iterations_done == 40


@pytest.mark.parametrize("spec, words", [
    ("mcts(seed=3)", ("agent 'mcts'", "'seed'", "runner")),
    ("greedy(game=carteso)", ("agent 'greedy'", "'game'")),
    ("mcts(self=1)", ("agent 'mcts'", "'self'")),
    ("greedy(time=1)", ("agent 'greedy'", "unknown option 'time'", "takes no options")),
    ("mcts(time=abc)", ("agent 'mcts'", "option 'time'", "'abc'")),
    ("ismcts(worlds=many)", ("agent 'ismcts'", "option 'worlds'"))])
def test_bad_agent_specs_say_which_agent_and_what(spec, words):
    with pytest.raises(OptionError) as info:
        make_agent(spec, boardlab.make("carteso(size=5)"), 0)
    for word in words:
        assert word in str(info.value), (word, str(info.value))
    assert str(info.value).count("agent '") == 1


def test_ismcts_samples_worlds_only_where_something_is_hidden():
    assert not make_agent("ismcts", boardlab.make("carteso(size=5)"), 0).resample
    assert make_agent("ismcts", boardlab.make("cartagena"), 0).resample
    assert make_agent("ismcts", boardlab.make("ctor(size=8,secret_squares=true)"), 0).resample


@isolated(timeout=60)
def test_the_tree_is_reused_along_the_moves_played():
    game = boardlab.make("carteso(size=3,button=false,komi=0.5)")
    state = game.new_initial_state()
    agent = make_agent("mcts(iterations=400,compiled=false)", game, 0, seed=2)
    mine = agent.act(state.view(0))
    child = agent.root.children[mine]
    reply = max(child.stats, key=lambda a: child.stats[a][0])
    expected = child.children[reply]
    state.apply(mine)
    state.apply(reply)
    agent.act(state.view(0), budget={"iterations": 1})
    assert agent.root is expected
    assert _searched_afresh("mcts(iterations=400,reuse=false,compiled=false)", state)


def _searched_afresh(spec, state):
    """Whether ``spec`` (with ``reuse=false``), after a search of the opening, searches
    ``state`` from a new root: one simulation there leaves one visit at the root."""
    fresh = make_agent(spec, state.game, 0, seed=2)
    fresh.act(boardlab.make(state.game.spec).new_initial_state().view(0))
    fresh.act(state.view(0), budget={"iterations": 1})
    return sum(entry[0] for entry in fresh.root.stats.values()) == 1


@isolated(timeout=60)
def test_the_compiled_tree_is_reused_along_the_moves_played():
    game = boardlab.make("carteso(size=3,button=false,komi=0.5)")
    state = game.new_initial_state()
    agent = make_agent("mcts(iterations=400)", game, 0, seed=2)
    mine = agent.act(state.view(0))
    tree, node = agent.ktree, agent.kroot
    child = tree.child(node, mine)
    replies = tree.children(child)
    reply = max(replies, key=lambda a: replies[a][0])
    expected = tree.child(child, reply)
    kept = tree.children(expected)
    state.apply(mine)
    state.apply(reply)
    agent.act(state.view(0), budget={"iterations": 1})
    assert agent.ktree is tree and agent.kroot == expected
    assert sum(v for v, _, _ in agent.ktree.children(expected).values()) == \
        sum(v for v, _, _ in kept.values()) + 1
    assert _searched_afresh("mcts(iterations=400,reuse=false)", state)


# 6. Obvious wins ------------------------------------------------------------------------------

# Found by exact search over random 5x5 endings (each is the only winning move there).
CARTESO_WIN = {"position": "BBWW./B..BB/BBWWW/WBBWW/WWW..", "move": "Wc4", "gain": 7}
RUMBO_WIN = {"position": "BWWBB/.BW.W/.BB.B/W.B.B/WBWWB", "move": "Bd4", "gain": 4}


@pytest.mark.parametrize("name, setup, options", [
    ("carteso", CARTESO_WIN, {"button": False, "turn": "vertical"}),
    ("rumbo", RUMBO_WIN, {"turn": "horizontal"}),
])
@pytest.mark.parametrize("agent_spec", ["mcts(iterations=3000)", "ismcts(iterations=3000)",
                                        "mcts(iterations=1000,compiled=false)"])
@isolated(timeout=60)
def test_search_claims_the_big_group_that_wins(agent_spec, name, setup, options):
    game = boardlab.make(name, size=5, komi=0.5, position=setup["position"], **options)
    state = game.new_initial_state()
    seat = state.current_player()
    side = options["turn"]
    win = state.string_to_action(setup["move"])
    after = state.clone()
    after.apply(win)
    assert after.summary()["scores"][side] - state.summary()["scores"][side] == setup["gain"]
    assert len(state.legal_actions()) >= 9
    for seed in range(4):
        action = make_agent(agent_spec, game, seat, seed=seed).act(state.view(seat))
        assert state.action_to_string(action) == setup["move"], f"seed {seed}"


def cartagena_finish(hands, positions, actions_per_turn):
    """A K11-like ending (RULES.md §3.7): track HCDHCD, green (seat 0) to move."""
    game = boardlab.make("cartagena", profile="basic", players=2, track="HCDHCD",
                         actions_per_turn=actions_per_turn, tokens=2, positions=positions,
                         hands=hands, deck="D", first_player=0)
    return game.new_initial_state(seed=6)


@pytest.mark.parametrize("agent_spec", ["mcts(iterations=300)", "ismcts(iterations=300)"])
@isolated(timeout=60)
def test_search_wins_a_cartagena_race_at_once(agent_spec):
    # D@4 jumps over purple's 6 into the boat; C@4 would let purple win with D@6.
    state = cartagena_finish("DC/D", "4,7/6,7", 1)
    assert sorted(state.legal_moves()) == ["C@4", "D@4"]
    lost = state.clone()
    lost.play("C@4")
    lost.play("D@6")
    assert lost.winners() == [1]
    for seed in range(4):
        action = make_agent(agent_spec, state.game, 0, seed=seed).act(state.view(0))
        assert state.action_to_string(action) == "D@4", f"seed {seed}"


@pytest.mark.parametrize("agent_spec", ["mcts(iterations=300)", "ismcts(iterations=300)"])
@isolated(timeout=60)
def test_search_finds_a_three_action_win_before_the_rival_can_win(agent_spec):
    # K11: C@4, back@5 (draws the D), D@3 wins in one turn (so does back@4, D@3);
    # after 'C@4 end' purple would win with D@3, D@6.
    state = cartagena_finish("C/DD", "4,7/3,6", 3)
    for seed in range(4):
        game_state = state.clone()
        agent = make_agent(agent_spec, state.game, 0, seed=seed)
        moves = []
        while not game_state.is_terminal() and game_state.current_player() == 0:
            action = agent.act(game_state.view(0))
            moves.append(game_state.action_to_string(action))
            game_state.apply(action)
        assert game_state.is_terminal() and game_state.winners() == [0], (seed, moves)


# 7. The komi bid ------------------------------------------------------------------------------

@pytest.mark.parametrize("spec", ["carteso(size=5,komi_protocol=bid)",
                                  "rumbo(size=4,komi_protocol=bid)"])
@pytest.mark.parametrize("agent_spec", ["mcts(iterations=20)", "ismcts(iterations=20)",
                                        "mcts(level=1)"])
@isolated(timeout=60)
def test_search_proposes_a_komi_and_the_chooser_picks_a_side(agent_spec, spec):
    game = boardlab.make(spec)
    state = game.new_initial_state()
    assert state.current_player() == 0
    view = state.view(0)
    komi = make_agent(agent_spec, game, 0, seed=1).act(view)
    assert is_legal_int(komi, view["legal_actions"])
    text = state.action_to_string(komi)
    assert text.startswith("komi="), text
    assert abs(float(text[5:])) <= game.points
    again = make_agent(agent_spec, game, 0, seed=1).act(state.view(0))
    assert again == komi
    state.apply(komi)
    assert state.current_player() == 1
    view = state.view(1)
    side = make_agent(agent_spec, game, 1, seed=2).act(view)
    assert is_legal_int(side, view["legal_actions"])
    assert state.action_to_string(side).startswith("side=")
    state.apply(side)
    summary = state.summary()
    assert summary["phase"] == "play" and sorted(summary["seats"].values()) == \
        ["horizontal", "vertical"]


@pytest.mark.parametrize("spec", ["carteso(size=5,komi_protocol=bid)",
                                  "rumbo(size=5,komi_protocol=bid)"])
@isolated(timeout=60)
def test_greedy_bids_the_games_own_fair_komi_as_search_does(spec):
    """One ply of claimed points cannot price a komi (every bid ties at 0), so
    greedy takes the game's pre-game choice, the same one MCTS makes."""
    game = boardlab.make(spec)
    view = game.new_initial_state().view(0)
    for seed in range(3):
        mine = make_agent("greedy", game, 0, seed=seed).act(view)
        assert mine == make_agent("mcts(iterations=20)", game, 0, seed=seed).act(view)
        assert abs(float(game.new_initial_state().action_to_string(mine)[5:])) <= \
            game.points / 4


def test_a_time_budget_alone_is_not_capped_by_the_default_iterations():
    game = boardlab.make("carteso(size=5)")
    timed = boardlab.agents.make_agent("mcts(time=1)", game, 0)
    assert timed.options["time"] == 1 and timed.options["iterations"] == 0
    both = boardlab.agents.make_agent("mcts(time=1,iterations=50)", game, 0)
    assert both.options["iterations"] == 50
    assert boardlab.agents.make_agent("mcts", game, 0).options["iterations"] == 1000
    quick = boardlab.agents.make_agent("mcts(time=0.05)", game, 0)
    state = game.new_initial_state()
    quick.act(state.view(0))
    assert quick.iterations_done > 0


# Early stop --------------------------------------------------------------------------------

def _root_with(stats):
    from boardlab.agents.search_node import Node
    root = Node()
    root.stats = {a: list(entry) for a, entry in stats.items()}
    return root


def test_settled_when_the_leader_cannot_be_caught():
    from boardlab.agents.budgets import settled
    root = _root_with({0: [50, 10.0, 60], 1: [20, 2.0, 60], 2: [10, 0.0, 60]})
    assert settled(root, [0, 1, 2], left=29)
    assert not settled(root, [0, 1, 2], left=30)       # a tie would still be possible
    assert settled(root, [0, 2], left=39)               # only legal actions count


def test_settled_when_every_move_won_or_lost_every_simulation():
    from boardlab.agents.budgets import settled
    won = _root_with({0: [25, 25.0, 49], 1: [24, 24.0, 49]})
    assert settled(won, [0, 1], left=1000)
    lost = _root_with({0: [25, -25.0, 49], 1: [24, -24.0, 49]})
    assert settled(lost, [0, 1], left=1000)
    mixed = _root_with({0: [25, 25.0, 49], 1: [24, 22.0, 49]})
    assert not settled(mixed, [0, 1], left=1000)
    too_few = _root_with({0: [25, 25.0, 49], 1: [19, 19.0, 49]})
    assert not settled(too_few, [0, 1], left=1000)
    untried = _root_with({0: [25, 25.0, 49]})
    assert not settled(untried, [0, 1], left=1000)


@pytest.mark.parametrize("spec", ["carteso(size=4)", "rumbo(size=5)", "cartagena"])
def test_early_stop_never_changes_the_move_of_an_iteration_budget(spec):
    game = boardlab.make(spec)
    state = game.new_initial_state(seed=3)
    chooser = random.Random(3)
    for _ in range(14):                                   # into the middle game
        state.apply(chooser.choice(state.legal_actions()), seat=state.acting_seats()[0])
    stopped = 0
    for turn in range(6):
        seat = state.acting_seats()[0]
        view = state.view(seat)
        quick = make_agent("mcts(iterations=1500,reuse=false)", game, seat, seed=turn)
        full = make_agent("mcts(iterations=1500,reuse=false,early_stop=false)", game, seat,
                          seed=turn)
        action = full.act(view)
        got = quick.act(view)
        # The one exception (docs/agents.md, the solver): a proof that the longer search
        # found after the early stop, of the root or of the move the quick one played.
        late_proof = full.solving and (full.root.proven is not None or
                                       got in (full.root.lost or ()))
        assert got == action or late_proof
        assert full.iterations_done == 1500 or len(view["legal_actions"]) == 1
        stopped += quick.iterations_done < 1500
        state.apply(action, seat=seat)
    assert stopped > 0


# Found in a match against random (seed 913, green to play): D@16 brings a third pirate
# home but leaves the last one alone at the back with no cards, frozen for good; the
# opponent can then bring all its pirates home. Rollouts capped at 60 turns ranked that
# as a win; 200-turn rollouts see it.
FROZEN_LAST_PIRATE = ("S@0 D@0 C@7 S@0 back@13 S@2 D@0 back@7 back@7 D@0 D@0 back@10 D@0 "
                      "back@8 back@8 H@0 C@16 S@4 H@2 back@4 back@4 H@2 C@6 back@9 H@13 S@3 "
                      "S@2 back@10 pass D@7 back@11 H@7 H@8 back@7 back@12 C@3 S@3 C@5 back@7 "
                      "back@8 H@3 C@13 back@6 back@14 D@9 D@3")


@isolated(timeout=120)
def test_mcts_does_not_freeze_its_last_pirate_in_cartagena():
    game = boardlab.make("cartagena")
    state = game.new_initial_state(seed=913)
    for text in FROZEN_LAST_PIRATE.split():
        state.play(text)
    assert sorted(state.legal_moves()) == ["D@16", "D@3", "back@16"]
    for seed in range(2):
        agent = make_agent("mcts(iterations=2000)", game, 0, seed=seed)
        assert state.action_to_string(agent.act(state.view(0))) != "D@16"


# Evaluators -------------------------------------------------------------------------------

class FavourOneMove:
    """Values +1 for ``seat`` exactly when ``move`` was played from the root (ply ``at``)."""

    def __init__(self, seat, move, at):
        self.seat, self.move, self.at, self.calls = seat, move, at, 0

    def evaluate(self, state, rng):
        self.calls += 1
        good = len(state.history) > self.at and state.history[self.at].action == self.move
        return [(1.0 if good else -1.0) * (1 if s == self.seat else -1)
                for s in range(state.game.num_seats)]


@pytest.mark.parametrize("spec", ["rumbo(size=5)", "cartagena", "ctor(size=8)"])
def test_a_python_evaluator_object_drives_the_search(spec):
    from boardlab.agents.mcts import MCTS
    game = boardlab.make(spec)
    state = game.new_initial_state(seed=4)
    chooser = random.Random(4)
    while len(state.legal_actions_for(state.acting_seats()[0])) < 3:
        state.apply(chooser.choice(state.legal_actions()), seat=state.acting_seats()[0])
    seat = state.acting_seats()[0]
    legal = state.legal_actions_for(seat)
    target = legal[len(legal) // 2]
    evaluator = FavourOneMove(seat, target, len(state.history))
    agent = MCTS(game, seat, seed=1, evaluator=evaluator, iterations=300)
    assert agent.act(state.view(seat)) == target
    assert 0 < evaluator.calls <= 300


def test_the_evaluator_option_picks_a_named_evaluator():
    from boardlab.agents.evaluators import HeuristicEvaluator, RolloutEvaluator
    game = boardlab.make("carteso(size=5)")
    assert isinstance(make_agent("mcts", game, 0).evaluator, RolloutEvaluator)
    assert isinstance(make_agent("mcts(evaluator=heuristic)", game, 0).evaluator,
                      HeuristicEvaluator)
    assert make_agent("mcts(rollout_turns=33)", game, 0).evaluator.turns == 33
    assert make_agent("mcts", game, 0).evaluator.turns is game.rollout_turns is None
    cartagena = boardlab.make("cartagena")
    assert make_agent("ismcts", cartagena, 0).evaluator.turns == cartagena.rollout_turns == 200
    ctor = boardlab.make("ctor(size=8)")
    assert make_agent("ismcts", ctor, 0).evaluator.turns == ctor.rollout_turns == 1
    with pytest.raises(OptionError, match="evaluator"):
        make_agent("mcts(evaluator=network)", game, 0)


# Chance nodes -------------------------------------------------------------------------------

@pytest.mark.parametrize("p, best", [(0.8, "gamble"), (0.5, "safe"), (0.56, "safe"),
                                     (0.66, "gamble")])
def test_mcts_weighs_chance_outcomes_by_their_probability(p, best):
    from chance_game import GambleGame
    game = GambleGame(p=p)
    state = game.new_initial_state()
    agent = make_agent("mcts(iterations=3000,early_stop=false)", game, 0, seed=1)
    assert state.action_to_string(agent.act(state.view(0))) == best
    win = agent.root.children[1].children[2]              # gamble, then the chance move win
    assert max(win.stats, key=lambda a: win.stats[a][0]) == 4        # keep


def test_the_runner_plays_chance_moves_by_their_probability(monkeypatch):
    from chance_game import GambleGame
    from boardlab.arena import game_runner
    monkeypatch.setattr(game_runner, "make", lambda spec: GambleGame(p=0.8))
    outcomes = []
    for seed in range(400):
        moves = game_runner.run_game("gamble", ["random", "random"], seed).record["moves"]
        if moves[0] == "gamble":
            outcomes.append(moves[1])
    assert set(outcomes) == {"win", "lose"} and len(outcomes) > 150
    assert 0.7 <= outcomes.count("win") / len(outcomes) <= 0.9          # 0.8 expected
    same = [game_runner.run_game("gamble", ["random", "random"], 7).record["moves"]
            for _ in range(2)]
    assert same[0] == same[1]


def _cartagena_with_a_choice():
    """Cartagena a few moves in, where the player to move has at least three actions."""
    game = boardlab.make("cartagena")
    state = game.new_initial_state(seed=6)
    chooser = random.Random(6)
    while len(state.legal_actions()) < 3:
        state.apply(chooser.choice(state.legal_actions()))
    return game, state, state.current_player()


def _info_keys(node):
    """The keys of ``node``'s children that split it by private information."""
    return {key for key in node.children if isinstance(key, tuple) and key[0] == "info"}


def test_determinizations_search_several_sampled_states_in_trees_of_their_own():
    game, state, seat = _cartagena_with_a_choice()
    view = state.view(seat)
    agent = make_agent("mcts(iterations=400,determinizations=4,early_stop=false)", game, seat,
                       seed=3)
    assert agent.act(view) in view["legal_actions"]
    assert [sum(e[0] for e in root.stats.values()) for root in agent.roots] == [100] * 4
    worlds = agent._worlds(state_from_view(game, view, random.Random(1)), view)
    other = 1 - seat
    assert len({w.private_key(other) for w in worlds}) > 1      # the hidden hand differs
    plain = make_agent("mcts(iterations=400,determinizations=4)", boardlab.make("rumbo(size=5)"),
                       0, seed=3)
    plain.act(boardlab.make("rumbo(size=5)").new_initial_state().view(0))
    assert len(plain.roots) == 1                         # nothing hidden: one state, one tree


def test_informed_opponents_split_their_decisions_by_hand():
    game, state, seat = _cartagena_with_a_choice()
    informed = make_agent("ismcts(iterations=400,opponents=informed)", game, seat, seed=1)
    assert informed.act(state.view(seat)) in state.legal_actions()
    below = [child for key, child in informed.root.children.items() if not isinstance(key, tuple)]
    hands = {key for child in below for key in _info_keys(child)}
    assert len(hands) > 3                      # the opponent's hand differs between samples
    fused = make_agent("ismcts(iterations=400)", game, seat, seed=1)
    fused.act(state.view(seat))
    assert not any(_info_keys(child) for child in fused.root.children.values())


def test_own_split_gives_own_decisions_below_the_root_one_node_per_hand():
    game, state, seat = _cartagena_with_a_choice()
    agent = make_agent("ismcts(iterations=2000,own=split)", game, seat, seed=1)
    agent.act(state.view(seat))
    assert not _info_keys(agent.root)                 # the root's hand is known: no split
    grandchildren = [grand for child in agent.root.children.values()
                     for grand in child.children.values()]
    own_nodes = [grand for grand in grandchildren if _info_keys(grand)]
    assert own_nodes and max(len(_info_keys(n)) for n in own_nodes) > 1   # after a draw
    fused = make_agent("ismcts(iterations=2000)", game, seat, seed=1)
    fused.act(state.view(seat))
    assert not any(_info_keys(grand) for child in fused.root.children.values()
                   for grand in child.children.values())


def _ctor_with_hidden_secrets():
    game = boardlab.make("ctor(size=8,secret_squares=true)")
    state = game.new_initial_state(seed=2)
    chooser = random.Random(2)
    while len(state.history) < 40:
        seat = state.acting_seats()[0]
        state.apply(chooser.choice(state.legal_actions_for(seat)), seat=seat)
    return game, state, state.acting_seats()[0]


def test_the_sampler_pools_determinizations_where_it_cannot_redeal():
    from boardlab.agents.search_state import Sampler
    game, state, seat = _ctor_with_hidden_secrets()
    view = state.view(seat)
    rng = random.Random(5)
    sampler = Sampler(state_from_view(game, view, rng), view, rng, worlds=4)
    other = 1 - game.team_of(seat)
    samples = [sampler.sample() for _ in range(11)]
    secrets = [tuple(s.secret_squares(other, spent=False)) for s in samples]
    assert len(set(secrets[:3])) > 1                       # new determinizations first ...
    assert set(secrets[3:]) <= set(secrets[:3]) | {tuple(sampler.base.secret_squares(
        other, spent=False))}                              # ... then the pool again
    for sample in samples:
        assert sample.view(seat) == view
        assert all(sample is not kept for kept in sampler.pool)


def test_ismcts_worlds_fixes_how_many_determinizations_a_move_uses():
    from boardlab.agents.search_state import Sampler
    game = boardlab.make("cartagena")
    state = game.new_initial_state(seed=4)
    view = state.view(0)
    rng = random.Random(3)
    base = state_from_view(game, view, rng)
    fresh = Sampler(base, view, rng)
    hands = {fresh.sample().hand(1).tobytes() + fresh.sample().pile.tobytes() for _ in range(20)}
    assert len(hands) == 20                                # a new world every time
    few = Sampler(base, view, rng, worlds=3)
    worlds = [few.sample().pile.tobytes() for _ in range(12)]
    assert len(set(worlds)) == 3 and worlds[3:6] == worlds[6:9] == worlds[9:12]
    for sample in (fresh.sample(), few.sample()):
        assert sample.view(0) == view


def test_ismcts_determinizes_at_most_a_pool_where_that_replays_the_game(monkeypatch):
    from boardlab.agents.search_state import Sampler
    game, state, seat = _ctor_with_hidden_secrets()
    calls = []
    real = type(game).determinize
    monkeypatch.setattr(type(game), "determinize",
                        lambda self, view, seed: calls.append(seed) or real(self, view, seed))
    agent = make_agent("ismcts(iterations=300,early_stop=false)", game, seat, seed=1)
    assert agent.act(state.view(seat)) in state.legal_actions_for(seat)
    pool = Sampler.FALLBACK_WORLDS
    assert agent.iterations_done == 300 and len(calls) == pool


def test_ismcts_with_few_worlds_plays_legally_and_the_same_under_a_seed():
    game = boardlab.make("cartagena")
    state = game.new_initial_state(seed=9)
    view = state.view(state.acting_seats()[0])
    moves = {make_agent("ismcts(iterations=120,worlds=2)", game, view["seat"], seed=4).act(view)
             for _ in range(3)}
    assert len(moves) == 1 and moves <= set(view["legal_actions"])
