"""The API suite every registered game runs: seeded random games and their invariants.

The example games of examples/games/ (docs/adding-a-game.md) run it too, registered only
while a test of this module runs (the product does not list them).
"""
import doctest
import json
import subprocess
import sys
import random

import pytest

import boardlab
from boardlab.core.board import check_block
from boardlab.core.game import TERMINAL, Move
from boardlab.core.view import ENVELOPE_KEYS, RESULT_KEYS

from boardlab.checks.reliability import hidden_twins
from game_specs import (EXAMPLE_GAMES, EXAMPLE_MODULES, conformance_specs, example_specs,
                        register_examples)

SPECS = conformance_specs() + example_specs()


@pytest.fixture(autouse=True)
def _example_games_registered(monkeypatch):
    """The example games are known to ``boardlab.make`` during each test, and only then."""
    register_examples(monkeypatch)


def _game_of(spec):
    """The game of ``spec``, the example games included (at collection, before any test
    registers them)."""
    name, raw = boardlab.parse_spec(spec)
    examples = {cls.name: cls for cls in EXAMPLE_GAMES}
    return examples[name](**raw) if name in examples else boardlab.make(spec)


def random_game(spec, seed):
    game = boardlab.make(spec)
    rng = random.Random(seed)
    state = game.new_initial_state(seed=seed)
    trace = []
    while not state.is_terminal():
        assert state.current_player() != TERMINAL, f"{spec}: is_terminal disagrees"
        seats = state.acting_seats()
        assert seats, f"{spec}: nobody acts in a running game"
        seat = rng.choice(seats)
        legal = state.legal_actions_for(seat)
        assert legal, f"{spec}: no legal action in a running game"
        assert len(set(legal)) == len(legal)
        assert all(0 <= a < game.num_actions for a in legal)
        assert state.returns() == [0.0] * game.num_seats, "returns before the end"
        action = rng.choice(legal)
        trace.append((seat, action))
        if state.current_player() == boardlab.SIMULTANEOUS:
            state.apply(action, seat=seat)
        else:
            assert state.legal_actions() == legal
            state.apply(action)
        assert len(trace) <= game.max_game_length, f"{spec}: longer than its declared maximum"
    return game, state, trace


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("seed", range(4))
def test_random_games_end_properly(spec, seed):
    game, state, trace = random_game(spec, seed)
    assert state.current_player() == TERMINAL
    assert state.legal_actions() == []
    returns = state.returns()
    assert len(returns) == game.num_seats
    assert all(r in (-1.0, 0.0, 1.0) for r in returns)
    low, high = game.utility_bounds
    assert all(low <= r <= high for r in returns)
    by_team = []
    for members in game.teams:                      # team mates share one result
        assert len({returns[s] for s in members}) == 1, f"{spec}: team mates differ {returns}"
        by_team.append(returns[members[0]])
    if any(by_team):                                # someone won, so someone lost
        assert max(by_team) == 1.0 and min(by_team) == -1.0, by_team
    if len(by_team) == 2:                           # two sides: zero-sum
        assert sum(by_team) == 0
    assert all(isinstance(entry, Move) and entry.seat in (*range(game.num_seats), -1)
               for entry in state.history)


@pytest.mark.parametrize("spec", SPECS)
def test_same_seed_same_game(spec):
    assert random_game(spec, 7)[2] == random_game(spec, 7)[2]


@pytest.mark.parametrize("spec", SPECS)
def test_record_round_trip(spec):
    game, state, _ = random_game(spec, 11)
    record, loaded = boardlab.loads(boardlab.dumps(
        state, players=[f"p{seat}" for seat in range(game.num_seats)], seed=11))
    assert record["format"] == "boardlab-record/1"
    assert loaded.summary() == state.summary()
    assert loaded.history == state.history
    assert json.loads(json.dumps(loaded.summary())) == loaded.summary()


@pytest.mark.parametrize("spec", SPECS)
def test_notation_round_trips_and_clone_is_independent(spec):
    game = boardlab.make(spec)
    state = game.new_initial_state(seed=3)
    rng = random.Random(3)
    for _ in range(12):
        if state.is_terminal():
            break
        seat = state.acting_seats()[0]
        for action in state.legal_actions_for(seat):
            assert state.string_to_action(state.action_to_string(action)) == action
        copy = state.clone()
        before = copy.summary()
        state.play(f"{game.seat_names[seat]}:"
                   f"{state.action_to_string(rng.choice(state.legal_actions_for(seat)))}")
        assert copy.summary() == before


@pytest.mark.parametrize("spec", SPECS)
def test_illegal_action_changes_nothing(spec):
    game = boardlab.make(spec)
    state = game.new_initial_state(seed=5)
    before = state.summary()
    illegal = [a for a in range(game.num_actions) if a not in set(state.legal_actions())]
    for action in illegal[:50] + [-1, game.num_actions, 10**9]:
        with pytest.raises(boardlab.IllegalMoveError):
            state.apply(action)
    with pytest.raises(boardlab.IllegalMoveError):
        state.apply("Bc3")
    assert state.summary() == before and state.history == []


@pytest.mark.parametrize("spec", SPECS)
def test_views_are_plain_data_and_only_the_mover_gets_actions(spec):
    game, state, _ = random_game(spec, 2)
    fresh = game.new_initial_state(seed=2)
    acting = fresh.acting_seats()
    for seat in list(range(game.num_seats)) + [None]:
        view = fresh.view(seat)
        json.dumps(view)
        expected = fresh.legal_actions_for(seat) if seat in acting else []
        assert view["legal_actions"] == expected
        assert bool(expected) == (seat in acting)


@pytest.mark.parametrize("spec", SPECS)
def test_resignation_ends_the_game(spec):
    game = boardlab.make(spec)
    state = game.new_initial_state(seed=1)
    seat = state.current_player()
    state.play("resign")
    assert state.is_terminal() and state.returns()[seat] == -1.0
    record, loaded = boardlab.loads(boardlab.dumps(state))
    assert record["moves"][-1] == "resign" and loaded.returns() == state.returns()


@pytest.mark.parametrize("name", ["carteso", "rumbo"])
def test_the_largest_board(name):
    game = boardlab.make(name, size=26, komi=0.5)
    state = game.new_initial_state()
    state.play("Bz26")
    state.play("Wa1")
    assert state.summary()["board"][0].endswith("B") and state.board[0] == 2
    assert game.bench_playouts(2, seed=1) >= 2 * 676
    with pytest.raises(boardlab.NotationError, match="not on the 26x26 board"):
        state.play("Ba27")


def _check_envelope(game, state, seat):
    view = state.view(seat)
    for key, kind in ENVELOPE_KEYS.items():
        assert key in view, f"{game.spec}: view has no {key!r}"
        assert isinstance(view[key], kind), f"{game.spec}: view[{key!r}] is {view[key]!r}"
    assert view["seat"] == seat and view["seats"] == list(game.seat_names)
    assert view["game"] == game.name and view["spec"] == game.public_spec
    assert sorted(s for t in view["teams"] for s in t["seats"]) == sorted(game.seat_names)
    assert view["acting"] == [game.seat_names[s] for s in
                              ([] if state.is_terminal() else state.acting_seats())]
    assert [state.string_to_action(t.rpartition(":")[2] if ":" in t and
                                   t.partition(":")[0] in game.seat_names else t)
            for t in view["legal"]] == view["legal_actions"]      # each plays back as itself
    assert view["legal_actions"] == (state.legal_actions_for(seat)
                                     if seat is not None and not state.is_terminal() else [])
    assert view["terminal"] == state.is_terminal()
    assert len(view["history"]) == len(state.history)
    if state.is_terminal():
        result = view["result"]
        for key, kind in RESULT_KEYS.items():
            assert isinstance(result[key], kind), f"{game.spec}: result[{key!r}]"
        assert result["returns"] == state.returns()
        assert result["draw"] == (not result["winners"])
        assert all(state.returns()[game.seat_names.index(w)] == max(state.returns())
                   for w in result["winners"])
    else:
        assert view["result"] is None
    problems = check_block(game.board_description(), view["board"])
    assert not problems, f"{game.spec}: {problems}"
    assert json.loads(json.dumps(view)) == view
    numbers = state.view(seat, texts=False)        # the cheap view: no notation, else alike
    assert numbers == {**view, "legal": [], "history": []}, f"{game.spec}: texts=False"
    return view


@pytest.mark.parametrize("spec", SPECS)
def test_every_view_has_the_envelope_and_a_board_block_as_declared(spec):
    game = boardlab.make(spec)
    facts = game.facts()
    assert json.loads(json.dumps(facts)) == facts
    assert facts["board"]["kind"] in ("square", "torus", "track")
    assert facts["rules"].strip() and facts["notation"].strip(), "rules summary and notation guide"
    rng = random.Random(4)
    state = game.new_initial_state(seed=4)
    checked = 0
    while True:
        if checked % 7 == 0 or state.is_terminal():
            for seat in [*range(game.num_seats), None]:
                _check_envelope(game, state, seat)
        checked += 1
        if state.is_terminal():
            break
        seat = rng.choice(state.acting_seats())
        state.apply(rng.choice(state.legal_actions_for(seat)), seat=seat)


@pytest.mark.parametrize("spec", [s for s in SPECS if not _game_of(s).perfect_information])
def test_a_view_hides_what_it_must(spec):
    """Two states that differ only in what a seat cannot see give that seat (and any
    spectator) byte-identical views; and such twins really differ somewhere."""
    differ = 0
    for _game, state, seat, twin in hidden_twins(spec, 9):
        assert json.dumps(twin.view(seat), sort_keys=True) == \
            json.dumps(state.view(seat), sort_keys=True), f"{spec}: seat {seat} tells twins apart"
        assert json.dumps(twin.view(None), sort_keys=True) == \
            json.dumps(state.view(None), sort_keys=True), f"{spec}: a spectator tells them apart"
        differ += json.dumps(twin.summary(), sort_keys=True, default=str) != \
            json.dumps(state.summary(), sort_keys=True, default=str)
    assert differ, f"{spec}: no twin differed in hidden information (the test would be empty)"


def _views_one_by_one_differ(game, states):
    """The positions of ``states`` where ``state.views`` of every seat and a spectator
    differs from asking ``view`` one seat at a time."""
    seats = [None, *range(game.num_seats)]
    return [len(state.history) for state in states
            if state.views(seats) != {seat: state.view(seat) for seat in seats}]


def _positions(spec, seed, every=7):
    """Every ``every``-th position of a seeded random game of ``spec``, and its end."""
    game, end, trace = random_game(spec, seed)
    state, found = game.new_initial_state(seed=seed), []
    for number, (seat, action) in enumerate(trace):
        if number % every == 0:
            found.append(state.clone())
        if state.current_player() == boardlab.SIMULTANEOUS:
            state.apply(action, seat=seat)
        else:
            state.apply(action)
    return game, found + [end]


@pytest.mark.parametrize("spec", SPECS)
def test_views_of_all_seats_at_once_equal_views_one_by_one(spec):
    """``State.views`` (one build for every seat where the game declares ``shared_views``,
    as the server's updates use it) gives each seat exactly its own ``view``."""
    game, states = _positions(spec, seed=3)
    assert _views_one_by_one_differ(game, states) == []


def test_a_game_that_wrongly_declares_shared_views_is_caught(monkeypatch):
    """CTOR's views differ by seat (each team's own secret squares): declaring its views
    shared must make the check above fail."""
    spec = "ctor(size=8,teams=1v1)"
    game, states = _positions(spec, seed=3)
    monkeypatch.setattr(type(game), "shared_views", True)
    assert _views_one_by_one_differ(game, states)


@pytest.mark.parametrize("spec", SPECS)
def test_a_named_seat_may_resign_out_of_turn_and_the_record_says_who(spec):
    game = boardlab.make(spec)
    state = game.new_initial_state(seed=1)
    idle = [s for s in range(game.num_seats) if s not in state.acting_seats()]
    seat = idle[-1] if idle else state.acting_seats()[0]
    state.play(f"{game.seat_names[seat]}:resign")
    team = game.team_of(seat)
    assert state.returns() == [-1.0 if game.team_of(s) == team else 1.0
                               for s in range(game.num_seats)]
    record, loaded = boardlab.loads(boardlab.dumps(state))
    assert loaded.returns() == state.returns()
    assert record["moves"][-1] == (f"{game.seat_names[seat]}:resign" if idle else "resign")


def test_there_is_an_example_game_and_the_product_does_not_list_it():
    """docs/adding-a-game.md's example runs this suite, and ``boardlab games`` (a process
    of its own: no test's registration) lists the product's games only."""
    assert "tictactoe" in [cls.name for cls in EXAMPLE_GAMES]
    assert any(spec.startswith("tictactoe") for spec in SPECS)
    listed = subprocess.run([sys.executable, "-c", "import boardlab.cli, sys; "
                             "sys.exit(boardlab.cli.main(['games']))"],
                            capture_output=True, text=True, check=True).stdout
    assert "carteso" in listed and "tictactoe" not in listed


@pytest.mark.parametrize("module", EXAMPLE_MODULES, ids=lambda module: module.__name__)
def test_the_example_games_docstrings(module):
    """The examples in an example game's docstrings run and give what they show."""
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted and result.failed == 0


def test_a_game_registered_as_the_doc_says_is_made_by_name():
    """docs/adding-a-game.md: ``boardlab.register(MyGame)`` makes it known by name."""
    cls = next(cls for cls in EXAMPLE_GAMES if cls.name == "tictactoe")
    assert boardlab.register(cls) is cls
    game = boardlab.make("tictactoe(size=5,line=4)")
    assert type(game) is cls and game.spec == "tictactoe(size=5,line=4)"
    with pytest.raises(boardlab.OptionError, match="longer than the board"):
        boardlab.make("tictactoe(line=4)")
