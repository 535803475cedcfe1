"""An n-tuple (pattern) network: a position's value as a sum of table lookups.

The method behind strong Othello and 2048 programs (Lucas 2008; Szubert and Jaskowski
2014), for any two-seat game on a square or torus board whose encoding
(:class:`~boardlab.nn.encoding.ViewEncoder`) has piece planes: each point is in one of
``S`` states, read from the encoder's vector (0 empty, ``1 + i`` a piece of the ``i``-th
code, ``1 + pieces + j`` a point that carries the ``j``-th ``owner:`` mark: an owner mark
outranks the piece under it), and each *tuple*, a few points (the cells of a small
rectangle: ``2x3``, ``3x2``, ``1x5``...; on a torus also the rectangles that cross its
seams), reads its points' states as one number below ``S ** k`` that indexes its own
weight table. The value of seat 0 is
``tanh(sum of the lookups + bias[seat to act])``; seat 1's is its negation.

**Symmetries share weights**: the game's declared symmetries (:meth:`Game.symmetries`,
with the identity) form a group ``G``; a position ``s`` is valued as ``sum over g in G
of f(g s)``, ``f`` the plain sum of lookups, so that symmetric positions get equal
values by construction. Concretely each tuple's table is read ``|G|`` times, through the
images of its points, with the symmetry's change of piece codes; tuples that are images
of one another keep one table (one per orbit).

Everything that runs per position is compiled (:func:`value`, :func:`indices`); the
search evaluates leaves with it (``boardlab.agents.kernel_ntuple``), and TD learning
updates it (:mod:`.ntuple_td`). :func:`reference_value` is a plain-Python statement of
the same sum, for tests.
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
from numba import njit

from ..core.errors import BoardlabError
from ..core.game import Game
from .features import BoardFeatures

#: where shipped n-tuple weights live, ``ntuple-<spec slug>.npz`` (see :func:`shipped_file`)
WEIGHTS_DIR = Path(__file__).with_name("weights")
DEFAULT_SHAPES = "2x3,3x2"
FORMAT = 1


def parse_shapes(text: str) -> list[tuple[int, int]]:
    """``"2x3,3x2"`` -> ``[(2, 3), (3, 2)]`` (rows x columns of each tuple's rectangle)."""
    shapes = []
    for part in text.split(","):
        try:
            rows, cols = (int(x) for x in part.strip().split("x"))
        except ValueError:
            raise BoardlabError(f"n-tuple shape {part!r}: expected ROWSxCOLUMNS, e.g. 2x3") \
                from None
        if rows < 1 or cols < 1 or rows * cols > 9:
            raise BoardlabError(f"n-tuple shape {part!r}: 1 to 9 points a tuple")
        shapes.append((rows, cols))
    return shapes


class NTupleNet:
    """The tuples of one game configuration and their weights (see the module)."""

    def __init__(self, game: Game, shapes: str = DEFAULT_SHAPES,
                 features: BoardFeatures | None = None):
        features = features or BoardFeatures(game)
        if game.num_seats != 2:
            raise BoardlabError(f"{game.spec}: an n-tuple network needs two seats "
                                f"(this game has {game.num_seats})")
        self.spec, self.shapes, self.features = game.spec, shapes, features
        encoder = features.encoder
        width, height, cells = features.width, features.height, encoder.cells
        owners = [m for m in encoder.marks if m.startswith("owner:")]
        pieces = list(encoder.pieces)
        self.states = 1 + len(pieces) + len(owners)
        #: per state plane: where it starts in an encoder vector and the state it sets
        #: (pieces first: an owner mark read later outranks the piece)
        self.plane_at = np.array(
            [features.header + pieces.index(p) * cells for p in pieces] +
            [features.header + (len(pieces) + list(encoder.marks).index(m)) * cells
             for m in owners], dtype=np.int64)
        self.plane_code = np.arange(1, self.states, dtype=np.int64)
        group = [(tuple(range(cells)), {})] + [(s.cells, s.pieces) for s in game.symmetries()]
        inverse = []
        smap = np.zeros((len(group), self.states), dtype=np.int64)
        for g, (image, codes) in enumerate(group):
            inv = [0] * cells
            for i, j in enumerate(image):
                inv[j] = i
            inverse.append(inv)
            smap[g] = np.arange(self.states)
            for i, code in enumerate(pieces):
                smap[g, 1 + i] = 1 + pieces.index(codes.get(code, code))
        tables, seen = [], set()
        torus = features.torus           # a torus's rectangles also cross its seams
        for rows, cols in parse_shapes(shapes):
            if rows > height or cols > width:
                raise BoardlabError(f"n-tuple shape {rows}x{cols} does not fit "
                                    f"{game.spec}'s {height}x{width} board")
            for r in range(height if torus else height - rows + 1):
                for c in range(width if torus else width - cols + 1):
                    points = [(r + i) % height * width + (c + j) % width
                              for i in range(rows) for j in range(cols)]
                    key = min(tuple(sorted(image[p] for p in points)) for image, _ in group)
                    if key not in seen:
                        seen.add(key)
                        tables.append(points)
        width_k = max(len(t) for t in tables)
        lookups, sym, table_of = [], [], []
        for t, points in enumerate(tables):
            for g, inv in enumerate(inverse):
                lookups.append([inv[p] for p in points] + [-1] * (width_k - len(points)))
                sym.append(g)
                table_of.append(t)
        sizes = [self.states ** len(t) for t in tables]
        self.offset = np.concatenate(([0], np.cumsum(sizes)))[:-1].astype(np.int64)
        self.lookups = np.array(lookups, dtype=np.int64)          # (L, k): cells, -1 pad
        self.lookup_base = self.offset[np.array(table_of, dtype=np.int64)]
        self.lookup_sym = np.array(sym, dtype=np.int64)
        self.smap = smap
        self.tables = len(tables)
        self.weights = np.zeros(int(sum(sizes)), dtype=np.float32)
        self.bias = np.zeros(2, dtype=np.float32)
        self.meta: dict = {}

    @property
    def group_size(self) -> int:
        return self.smap.shape[0]

    def pack(self) -> tuple:
        """The arrays :func:`value` reads (the weights themselves, not copies)."""
        cells = self.features.encoder.cells
        return (self.plane_at, self.plane_code, self.lookups, self.lookup_base,
                self.lookup_sym, self.smap, self.weights, self.bias,
                np.int64(self.states), np.zeros(cells, dtype=np.int64),
                np.zeros(self.lookups.shape[0], dtype=np.int64))

    def value(self, obs: np.ndarray, mover: int) -> float:
        """Seat 0's value of the encoder vector ``obs`` with seat ``mover`` to act."""
        return float(value(obs, mover, self.pack()))

    # Files --------------------------------------------------------------------------
    def save(self, path: Path | str) -> None:
        """Write the weights (as float16: half the file, values within 1e-3) and what they
        were made for (``.npz``, compressed)."""
        np.savez_compressed(path, weights=self.weights.astype(np.float16), bias=self.bias,
                            spec=np.array(self.spec), shapes=np.array(self.shapes),
                            format=np.array(FORMAT), states=np.array(self.states),
                            meta=np.array(repr(self.meta)))

    @classmethod
    def load(cls, game: Game, path: Path | str) -> NTupleNet:
        """The weights of ``path`` for ``game`` (refused, with a message, where they were
        made for another configuration)."""
        with np.load(path) as data:
            spec, shapes = str(data["spec"]), str(data["shapes"])
            if spec != game.spec:
                raise BoardlabError(f"{path}: n-tuple weights for {spec}, not {game.spec}")
            net = cls(game, shapes)
            if data["weights"].shape != net.weights.shape or int(data["states"]) != net.states:
                raise BoardlabError(f"{path}: its tables do not fit {game.spec}'s tuples")
            net.weights[:] = data["weights"]
            net.bias[:] = data["bias"]
            net.meta = {"file": str(path), "record": str(data["meta"])}
        return net


def shipped_file(game: Game, folder: Path = WEIGHTS_DIR) -> Path:
    """Where the n-tuple weights shipped for ``game``'s spec would be."""
    slug = game.spec.replace("(", "-").replace(")", "").replace("=", "").replace(",", "-")
    return folder / f"ntuple-{slug}.npz"


def load_ntuple(game: Game, name: str = "") -> NTupleNet:
    """The weights in file ``name``, else those shipped for ``game``'s spec."""
    path = Path(name) if name else shipped_file(game)
    if not path.exists():
        raise BoardlabError(f"{game.spec}: no n-tuple weights at {path} (make them with "
                            f"`python -m boardlab.nn.ntuple_td`, see docs/learning.md)")
    return NTupleNet.load(game, path)


@njit(cache=True, inline="always")
def indices(obs, pack, out) -> None:
    """Each lookup's entry of the weights for the encoder vector ``obs`` into ``out``."""
    plane_at, plane_code, lookups, base, sym, smap, _, _, S, states, _ = pack
    for c in range(states.shape[0]):
        states[c] = 0
    for q in range(plane_at.shape[0]):
        at, code = plane_at[q], plane_code[q]
        for c in range(states.shape[0]):
            if obs[at + c] > 0.5:
                states[c] = code
    for li in range(lookups.shape[0]):
        index, g = 0, sym[li]
        for j in range(lookups.shape[1] - 1, -1, -1):
            cell = lookups[li, j]
            if cell >= 0:
                index = index * S + smap[g, states[cell]]
        out[li] = base[li] + index


@njit(cache=True, inline="always")
def value(obs, mover, pack) -> float:
    """Seat 0's value of ``obs`` (see the module), ``mover`` the seat to act."""
    weights, bias, idx = pack[6], pack[7], pack[10]
    indices(obs, pack, idx)
    total = bias[mover]
    for li in range(idx.shape[0]):
        total += weights[idx[li]]
    return math.tanh(total)


@njit(cache=True)
def value_repeat(obs, mover, pack, times) -> float:
    """:func:`value` ``times`` times over (to time it without calls from Python)."""
    total = 0.0
    for _ in range(times):
        total += value(obs, mover, pack)
    return total


def reference_value(net: NTupleNet, obs: np.ndarray, mover: int) -> float:
    """:func:`value` in plain Python, from the definition (tests compare the two)."""
    features, encoder = net.features, net.features.encoder
    cells, pieces = encoder.cells, list(encoder.pieces)
    owners = [m for m in encoder.marks if m.startswith("owner:")]
    game_states = []
    for c in range(cells):
        state = 0
        for i in range(len(pieces)):
            if obs[features.header + i * cells + c] > 0.5:
                state = 1 + i
        for j, mark in enumerate(owners):
            plane = len(pieces) + list(encoder.marks).index(mark)
            if obs[features.header + plane * cells + c] > 0.5:
                state = 1 + len(pieces) + j
        game_states.append(state)
    total = float(net.bias[mover])
    for li in range(net.lookups.shape[0]):
        index = 0
        for j, cell in enumerate(int(x) for x in net.lookups[li] if x >= 0):
            index += int(net.smap[net.lookup_sym[li], game_states[cell]]) * net.states ** j
        total += float(net.weights[net.lookup_base[li] + index])
    return math.tanh(total)
