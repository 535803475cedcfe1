"""Each declared symmetry (``Game.symmetries``) is checked by play: random games are
played side by side, one with the actions drawn and one with their images, and at every
step the second must be the image of the first: the same player to move, the images of
the legal actions, every seat's board changed as the symmetry says, and at the end the
same returns."""
import random

import pytest

import boardlab
from game_specs import conformance_specs

DECLARING = [spec for spec in conformance_specs() if boardlab.make(spec).symmetries()]
#: a game with this many symmetries or fewer has each checked by play in every
#: configuration; one with more (CTOR's torus: 8 N² - 1) has a sample checked, and its
#: whole list is checked to be the group its checked generators make
FEW = 16


def image_of_board(board: dict, symmetry, names: list) -> tuple:
    """(cells, marks) of ``board`` changed by ``symmetry``."""
    cells = [None] * len(board["cells"])
    for i, piece in enumerate(board["cells"]):
        cells[symmetry.cells[i]] = None if piece is None else symmetry.pieces.get(piece, piece)
    index = {name: i for i, name in enumerate(names)}
    marks = {mark: sorted(names[symmetry.cells[index[str(cell)]]] for cell in where)
             for mark, where in (board.get("marks") or {}).items()}
    return cells, marks


def mismatch(game, symmetry, games: int, seed: int, steps: int | None = None) -> str | None:
    """The first way in which ``symmetry`` fails in ``games`` random games (each cut
    after ``steps`` actions, if given), or None."""
    names = game.board_description()["cells"]
    rng = random.Random(seed)
    for _ in range(games):
        state, image = game.new_initial_state(), game.new_initial_state()
        for _ in range(steps or game.max_game_length + 1):
            if image.current_player() != state.current_player() or \
                    image.acting_seats() != state.acting_seats():
                return f"after {state.history_text()}: the players to move differ"
            for seat in [None, *range(game.num_seats)]:
                cells, marks = image_of_board(state.view(seat)["board"], symmetry, names)
                board = image.view(seat)["board"]
                theirs = {m: sorted(map(str, w)) for m, w in (board.get("marks") or {}).items()}
                if board["cells"] != cells or theirs != marks:
                    return f"after {state.history_text()}: the boards are not images"
            if state.is_terminal():
                if image.returns() != state.returns():
                    return f"after {state.history_text()}: the returns differ"
                break
            for seat in state.acting_seats():
                if sorted(symmetry.actions[a] for a in state.legal_actions_for(seat)) != \
                        sorted(image.legal_actions_for(seat)):
                    return f"after {state.history_text()}: the legal actions are not images"
            seat = rng.choice(state.acting_seats())
            action = rng.choice(state.legal_actions_for(seat))
            state.apply(action, seat)
            image.apply(symmetry.actions[action], seat)
    return None


def test_the_board_games_declare_their_symmetries():
    assert {boardlab.make(spec).name for spec in DECLARING} == {"carteso", "rumbo", "ctor"}

    def names(spec):
        return {s.name for s in boardlab.make(spec).symmetries()}

    assert len(names("carteso(size=5)")) == 7 and len(names("rumbo(size=5)")) == 3
    assert len(names("ctor(size=8)")) == 8 * 64 - 1
    assert len(names("ctor(size=10,teams=2v3,secret_squares=true)")) == 8 * 100 - 1


def well_formed(game, symmetry) -> bool:
    """Each symmetry moves cells and actions one to one."""
    return (sorted(symmetry.cells) == list(range(len(symmetry.cells))) and
            sorted(symmetry.actions) == list(range(game.num_actions)))


@pytest.mark.parametrize("spec", DECLARING)
def test_each_declared_symmetry_holds_in_play(spec):
    game = boardlab.make(spec)
    declared = game.symmetries()
    assert all(well_formed(game, symmetry) for symmetry in declared)
    rng = random.Random(spec)
    if len(declared) <= FEW:
        for symmetry in declared:
            assert mismatch(game, symmetry, games=6, seed=len(symmetry.name)) is None, \
                (spec, symmetry.name)
    else:                    # one, drawn by the spec, on the first 150 actions of a game
        symmetry = rng.choice(declared)
        assert mismatch(game, symmetry, games=1, seed=1, steps=150) is None, \
            (spec, symmetry.name)


def test_the_torus_symmetries_are_the_group_of_checked_generators():
    """CTOR declares 511 symmetries on 8x8. Four of them are checked by play here: a
    step right, a step down, a quarter turn and a flip; every shift, turn and flip of
    the torus is made of those, and the declared list is exactly what they make (each
    symmetry once, the identity left out), cells and actions alike."""
    game = boardlab.make("ctor(size=8)")
    declared = {s.name: s for s in game.symmetries()}
    generators = [declared[name] for name in ("shift_0_1", "shift_1_0", "rotate_90",
                                              "flip_rows")]
    for symmetry in generators:                  # the first to the end, the others cut
        steps = None if symmetry is generators[0] else 200
        assert mismatch(game, symmetry, games=1, seed=7, steps=steps) is None, symmetry.name
    identity = (tuple(range(game.P)), tuple(range(game.num_actions)))
    made, frontier = {identity}, [identity]
    while frontier:                              # the closure under the generators
        cells, actions = frontier.pop()
        for g in generators:
            image = (tuple(g.cells[c] for c in cells), tuple(g.actions[a] for a in actions))
            if image not in made:
                made.add(image)
                frontier.append(image)
    assert made - {identity} == {(s.cells, s.actions) for s in declared.values()}
    assert len(made) == 8 * game.P


def test_a_wrong_torus_symmetry_is_caught():
    """A quarter turn whose move steps keep their directions (a step right stays a step
    right, though the board turned) is not a symmetry, and play shows it."""
    from boardlab.core.game import Symmetry
    game = boardlab.make("ctor(size=8)")
    turn = next(s for s in game.symmetries() if s.name == "rotate_90")
    P, actions = game.P, list(turn.actions)
    for action in range(P, 5 * P):
        cell, direction = divmod(action - P, 4)
        actions[action] = P + 4 * turn.cells[cell] + direction
    wrong = Symmetry("rotate_90, steps unturned", turn.cells, {}, tuple(actions))
    assert mismatch(game, wrong, games=1, seed=1) is not None


def test_a_false_declaration_is_caught():
    """Rumbo's tie-break gives NE to Vertical and NW to Horizontal: a left-right flip is
    not one of its symmetries, and play shows it (so the check above can fail)."""
    game = boardlab.make("rumbo(size=5)")
    game.board_symmetries = ("flip_columns",)          # a wrong declaration, this game only
    flip = next(s for s in game.symmetries() if s.name == "flip_columns")
    assert mismatch(game, flip, games=40, seed=1) is not None


@pytest.mark.parametrize("spec, sample", [("carteso(size=5)", None), ("rumbo(size=4)", None),
                                          ("ctor(size=8,secret_squares=true)", 2)])
def test_the_networks_inputs_follow_the_symmetries(spec, sample):
    """BoardFeatures.symmetry_indices: the image's input is the input permuted, and a
    distribution over the legal actions goes to one over the image's legal actions
    (every symmetry to the end of a game, or a ``sample`` of them for 200 actions)."""
    from boardlab.learn.features import BoardFeatures
    game = boardlab.make(spec)
    features = BoardFeatures(game)
    vectors, policies = features.symmetry_indices(game)
    assert (vectors[0] == range(vectors.shape[1])).all()
    numbered = list(enumerate(game.symmetries(), start=1))
    for j, symmetry in (random.Random(2).sample(numbered, sample) if sample else numbered):
        rng = random.Random(j)
        state, image = game.new_initial_state(), game.new_initial_state()
        for _ in range(200 if sample else game.max_game_length):
            if state.is_terminal():
                break
            for seat in range(game.num_seats):
                mine = features.encoder.encode(state.view(seat))
                theirs = features.encoder.encode(image.view(seat))
                assert (mine[vectors[j]] == theirs).all(), (symmetry.name, state.history_text())
            policy = [0.0] * game.num_actions
            for a in state.legal_actions():
                policy[a] = 1.0 + a
            moved = [policy[i] for i in policies[j]]
            assert {b for b, p in enumerate(moved) if p} == set(image.legal_actions())
            assert all(moved[symmetry.actions[a]] == policy[a] for a in state.legal_actions())
            action = rng.choice(state.legal_actions())
            state.apply(action)
            image.apply(symmetry.actions[action])
