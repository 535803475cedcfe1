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


def image_of_board(board: dict, symmetry, names: list) -> tuple:
    """(cells, marks) of ``board`` changed by ``symmetry``."""
    cells = [None] * len(board["cells"])
    for i, piece in enumerate(board["cells"]):
        cells[symmetry.cells[i]] = None if piece is None else symmetry.pieces.get(piece, piece)
    index = {name: i for i, name in enumerate(names)}
    marks = {mark: sorted(names[symmetry.cells[index[str(cell)]]] for cell in where)
             for mark, where in (board.get("marks") or {}).items()}
    return cells, marks


def mismatch(game, symmetry, games: int, seed: int) -> str | None:
    """The first way in which ``symmetry`` fails in ``games`` random games, or None."""
    names = game.board_description()["cells"]
    rng = random.Random(seed)
    for _ in range(games):
        state, image = game.new_initial_state(), game.new_initial_state()
        while True:
            if image.current_player() != state.current_player():
                return f"after {state.history_text()}: the players to move differ"
            for seat in [None, *range(game.num_seats)]:
                cells, marks = image_of_board(state.view(seat)["board"], symmetry, names)
                board = image.view(seat)["board"]
                theirs = {m: sorted(map(str, w)) for m, w in (board.get("marks") or {}).items()}
                if board["cells"] != cells or theirs != marks:
                    return f"after {state.history_text()}: the boards are not images"
            if state.is_terminal():
                break
            legal = state.legal_actions()
            if sorted(symmetry.actions[a] for a in legal) != sorted(image.legal_actions()):
                return f"after {state.history_text()}: the legal actions are not images"
            action = rng.choice(legal)
            state.apply(action)
            image.apply(symmetry.actions[action])
        if image.returns() != state.returns():
            return f"after {state.history_text()}: the returns differ"
    return None


def test_the_territory_games_declare_their_symmetries():
    assert {boardlab.make(spec).name for spec in DECLARING} == {"carteso", "rumbo"}
    names = lambda spec: {s.name for s in boardlab.make(spec).symmetries()}
    assert len(names("carteso(size=5)")) == 7 and len(names("rumbo(size=5)")) == 3


@pytest.mark.parametrize("spec", DECLARING)
def test_each_declared_symmetry_holds_in_play(spec):
    game = boardlab.make(spec)
    for symmetry in game.symmetries():
        assert len(set(symmetry.cells)) == len(symmetry.cells)
        assert sorted(symmetry.actions) == list(range(game.num_actions))
        assert mismatch(game, symmetry, games=6, seed=len(symmetry.name)) is None, \
            (spec, symmetry.name)


def test_a_false_declaration_is_caught():
    """Rumbo's tie-break gives NE to Vertical and NW to Horizontal: a left-right flip is
    not one of its symmetries, and play shows it (so the check above can fail)."""
    game = boardlab.make("rumbo(size=5)")
    game.board_symmetries = ("flip_columns",)          # a wrong declaration, this game only
    flip = next(s for s in game.symmetries() if s.name == "flip_columns")
    assert mismatch(game, flip, games=40, seed=1) is not None


@pytest.mark.parametrize("spec", ["carteso(size=5)", "rumbo(size=4)"])
def test_the_networks_inputs_follow_the_symmetries(spec):
    """BoardFeatures.symmetry_indices: the image's input is the input permuted, and a
    distribution over the legal actions goes to one over the image's legal actions."""
    from boardlab.learn.features import BoardFeatures
    game = boardlab.make(spec)
    features = BoardFeatures(game)
    vectors, policies = features.symmetry_indices(game)
    assert (vectors[0] == range(vectors.shape[1])).all()
    for j, symmetry in enumerate(game.symmetries(), start=1):
        rng = random.Random(j)
        state, image = game.new_initial_state(), game.new_initial_state()
        while not state.is_terminal():
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
