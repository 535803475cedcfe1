"""A network's input: board planes and scalar planes built only from one seat's view.

:class:`BoardFeatures` reads a view through :class:`ViewEncoder`, which the interop
adapters share (the seat, who acts, the board's pieces and marks, every number of the
view), and lays it out for a convolutional network: one ``height x width`` plane per
piece code and per mark of the board, then one constant plane per scalar (the
encoder's header and numbers, each multiplied by its ``scale``). It needs a ``square``
or ``torus`` board whose ``cells`` list the board row by row (every such game here
does); nothing is read from the game's name or its hidden state, so a seat's features
never depend on what it cannot see.

>>> import boardlab
>>> game = boardlab.make("carteso(size=5)")
>>> features = BoardFeatures(game)
>>> features.shape
(22, 5, 5)
>>> state = game.new_initial_state()
>>> features.encode(state.view(0)).shape
(22, 5, 5)
"""
from __future__ import annotations

import numpy as np

from ..core.errors import BoardlabError
from ..core.game import Game
from .encoding import ViewEncoder


class BoardFeatures:
    """The planes of one game configuration's views (see the module's text)."""

    def __init__(self, game: Game):
        description = game.board_description()
        if description["kind"] not in ("square", "torus"):
            raise BoardlabError(f"{game.spec}: a network needs a square or torus board "
                                f"(this one is {description['kind']!r})")
        self.width, self.height = description["width"], description["height"]
        if len(description["cells"]) != self.width * self.height:
            raise BoardlabError(f"{game.spec}: the board's cells do not fill its "
                                f"{self.width}x{self.height} rectangle")
        self.torus = description["kind"] == "torus"
        self.encoder = ViewEncoder(game)
        cells = self.width * self.height
        self.board_planes = len(self.encoder.pieces) + len(self.encoder.marks)
        self.header = 3 * len(self.encoder.seats) + 1
        self.scalars = self.header + len(self.encoder.paths)
        self.scale = np.ones(self.scalars, dtype=np.float32)
        #: where the board planes lie in an encoder vector
        self.board_cells = slice(self.header, self.header + self.board_planes * cells)

    @property
    def shape(self) -> tuple[int, int, int]:
        return (self.board_planes + self.scalars, self.height, self.width)

    def signature(self) -> dict:
        """What the layout depends on: a network trained on one layout refuses another."""
        return {"pieces": list(self.encoder.pieces), "marks": list(self.encoder.marks),
                "paths": [list(p) for p in self.encoder.paths], "width": self.width,
                "height": self.height, "torus": self.torus, "seats": list(self.encoder.seats)}

    def raw_scalars(self, flat: np.ndarray) -> np.ndarray:
        """The unscaled scalars of an encoder vector (to choose ``scale`` from data)."""
        return np.concatenate((flat[:self.header], flat[self.board_cells.stop:]))

    def symmetry_indices(self, game: Game) -> tuple[np.ndarray, np.ndarray]:
        """(vectors, policies): index arrays of the game's symmetries, the identity first
        (:meth:`Game.symmetries`). For symmetry ``j``, ``x[vectors[j]]`` is the encoder
        vector of the image of the position whose vector is ``x``, and ``p[policies[j]]``
        the image of a distribution ``p`` over the actions.

        >>> import boardlab
        >>> game = boardlab.make("rumbo(size=5)")
        >>> vectors, policies = BoardFeatures(game).symmetry_indices(game)
        >>> vectors.shape, policies.shape
        ((4, 141), (4, 155))
        """
        cells = self.width * self.height
        planes = list(self.encoder.pieces) + list(self.encoder.marks)
        pieces = len(self.encoder.pieces)
        size = self.encoder.size
        vectors, policies = [np.arange(size)], [np.arange(game.num_actions)]
        for symmetry in game.symmetries():
            vector = np.arange(size)
            for plane, code in enumerate(planes):
                image = planes.index(symmetry.pieces.get(code, code)) if plane < pieces \
                    else plane
                source = self.board_cells.start + plane * cells
                target = self.board_cells.start + image * cells + np.asarray(symmetry.cells)
                vector[target] = source + np.arange(cells)
            policy = np.empty(game.num_actions, dtype=np.int64)
            policy[np.asarray(symmetry.actions)] = np.arange(game.num_actions)
            vectors.append(vector)
            policies.append(policy)
        return np.stack(vectors), np.stack(policies)

    def encode(self, view: dict) -> np.ndarray:
        """The planes of ``view``: float32 of :attr:`shape`."""
        return self.planes(self.encoder.encode(view))

    def planes(self, flat: np.ndarray) -> np.ndarray:
        """The planes of an encoder vector (``encoder.encode``'s, or a kernel observer's)."""
        out = np.empty(self.shape, dtype=np.float32)
        out[:self.board_planes] = flat[self.board_cells].reshape(
            self.board_planes, self.height, self.width)
        out[self.board_planes:] = (self.raw_scalars(flat) * self.scale)[:, None, None]
        return out
