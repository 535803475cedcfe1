"""A small policy/value network evaluated with numpy alone (no framework at play time).

The network (trained by ``boardlab train``, see docs/learning.md) reads the planes of
:class:`~boardlab.nn.features.BoardFeatures` and gives

- ``logits``: one score per action number of the game (``game.num_actions``); the
  search turns those of the legal actions into priors (a softmax);
- ``values``: one value per seat in [-1, 1], the seat's expected return.

Its shape: a 3x3 convolution to ``channels`` planes, then ``blocks - 1`` residual 3x3
convolutions (zero padding, or wrapping around on a torus), ReLU after each; a policy
head (a 1x1 convolution to 2 planes, a dense layer to the logits) and a value head
(a 1x1 convolution to 1 plane, a dense layer of 64, a dense layer to the seats, tanh).

Weights live in ``.npz`` files with their metadata (the game spec they were trained
for, the feature layout, how they were trained); those shipped with boardlab are in
``boardlab/nn/weights`` and found by the game's spec (:func:`load_network`).
"""
from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import numpy as np

from ..core.errors import OptionError
from ..core.game import Game, State
from .features import BoardFeatures
from .kernel_observe import KernelObserver

#: The layout written now. Format 1 put a ReLU after each head's 1x1 convolution, which
#: can leave a head dead from the start (the value head's single plane in about one
#: initialization in seven: the network then learns nothing, docs/learning.md); format 2
#: feeds the heads' planes to their dense layers as they are. Both are read.
FORMAT = 2
FORMATS = (1, 2)
WEIGHTS_DIR = Path(__file__).with_name("weights")


def gather_index(height: int, width: int, torus: bool) -> np.ndarray:
    """For each of the 9 offsets of a 3x3 window and each cell, the cell it reads
    (``height * width`` stands for the zero outside a board without wrap-around)."""
    cells = height * width
    index = np.empty((9, cells), dtype=np.int64)
    for dy in range(3):
        for dx in range(3):
            for y in range(height):
                for x in range(width):
                    ny, nx = y + dy - 1, x + dx - 1
                    if torus:
                        ny, nx = ny % height, nx % width
                    inside = 0 <= ny < height and 0 <= nx < width
                    index[dy * 3 + dx, y * width + x] = ny * width + nx if inside else cells
    return index.reshape(-1)


def _conv3x3(x: np.ndarray, weight: np.ndarray, bias: np.ndarray,
             gather: np.ndarray) -> np.ndarray:
    """A 3x3 convolution of ``x`` (channels, cells): ``weight`` is (out, channels * 9)
    in PyTorch's order, ``gather`` from :func:`gather_index`."""
    channels, cells = x.shape
    padded = np.zeros((channels, cells + 1), dtype=x.dtype)
    padded[:, :cells] = x
    out = weight @ padded.take(gather, axis=1).reshape(channels * 9, cells)
    out += bias[:, None]
    return out


def _relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0.0, out=x)


class Network:
    """The weights of one trained network and its forward pass (see the module)."""

    def __init__(self, arrays: dict, meta: dict, source: str = ""):
        if meta.get("format") not in FORMATS:
            raise OptionError(f"network {source or '?'}: format {meta.get('format')!r}, "
                              f"this boardlab reads formats "
                              f"{', '.join(map(str, FORMATS))}")
        self.head_relu = meta["format"] == 1
        self.meta, self.source = meta, source
        self.spec = meta["spec"]
        self.blocks = int(meta["blocks"])
        shape = meta["features"]
        self.torus = bool(shape["torus"])
        self.gather = gather_index(shape["height"], shape["width"], self.torus)
        self.scale = np.asarray(arrays["scale"], dtype=np.float32)
        self.w = {k: np.ascontiguousarray(v, dtype=np.float32) for k, v in arrays.items()}
        for i in range(self.blocks):
            w = self.w[f"conv{i}.w"]
            self.w[f"conv{i}.w"] = w.reshape(w.shape[0], -1)
        for head in ("policy.conv.w", "value.conv.w"):
            w = self.w[head]
            self.w[head] = w.reshape(w.shape[0], -1)

    @property
    def asked_at(self) -> str:
        """Where a search should ask this network (``mcts``'s ``net_at`` when not given):
        ``horizon`` for one whose last training learned the starts of turns only
        (``boardlab train --positions turn-starts``), else ``leaf``."""
        last = (self.meta.get("trained") or [{}])[-1]
        # (files written between commits 247243b and d6a345b say it in "positions", over
        # the count of positions that key holds elsewhere)
        learned = last.get("learned_from", last.get("positions"))
        return "horizon" if learned == "turn-starts" else "leaf"

    # Files ---------------------------------------------------------------------------
    @classmethod
    def load(cls, path: str | Path) -> Network:
        path = Path(path)
        try:
            with np.load(path, allow_pickle=False) as data:
                arrays = {k: data[k] for k in data.files if k != "meta"}
                meta = json.loads(str(data["meta"]))
        except (OSError, KeyError, ValueError) as exc:
            raise OptionError(f"cannot read network {str(path)!r}: {exc}") from None
        return cls(arrays, meta, str(path))

    @staticmethod
    def save(path: str | Path, arrays: dict, meta: dict) -> None:
        planes: dict[str, Any] = {k: np.asarray(v, dtype=np.float32) for k, v in arrays.items()}
        np.savez_compressed(path, meta=np.array(json.dumps(meta, sort_keys=True)), **planes)

    # The forward pass ----------------------------------------------------------------
    def forward(self, planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(logits over every action number, one value per seat) of one input."""
        w, gather = self.w, self.gather
        x = planes.reshape(planes.shape[0], -1)
        for i in range(self.blocks):
            y = _relu(_conv3x3(x, w[f"conv{i}.w"], w[f"conv{i}.b"], gather))
            x = y if i == 0 else _relu(y + x)
        flat = x
        p = w["policy.conv.w"] @ flat + w["policy.conv.b"][:, None]
        v = w["value.conv.w"] @ flat + w["value.conv.b"][:, None]
        if self.head_relu:
            p, v = _relu(p), _relu(v)
        logits = w["policy.fc.w"] @ p.reshape(-1) + w["policy.fc.b"]
        v = v.reshape(-1)
        h = _relu(w["value.fc1.w"] @ v + w["value.fc1.b"])
        values = np.tanh(w["value.fc2.w"] @ h + w["value.fc2.b"])
        return logits, values


def shipped(folder: Path = WEIGHTS_DIR) -> dict[str, Path]:
    """The networks shipped with boardlab: their game spec -> file. Where several files
    are for one spec, the one of the shortest name is its default (``carteso-9.npz``
    over ``carteso-9-small.npz``); the others are loaded by name (``net=carteso-9-small``)."""
    found: dict[str, Path] = {}
    for path in sorted(folder.glob("*.npz"), key=lambda p: (len(p.name), p.name)):
        try:
            with np.load(path, allow_pickle=False) as data:
                found.setdefault(json.loads(str(data["meta"]))["spec"], path)
        except (OSError, KeyError, ValueError):
            continue
    return found


def load_network(game: Game, name: str = "", features: BoardFeatures | None = None) -> Network:
    """The network for ``game``: the file ``name`` (a path or a shipped file's name), or
    with no name the one shipped for the game's spec. Refused (OptionError) if it was
    trained for another spec or another feature layout (``features``: the game's, if
    already made)."""
    if name:
        path = Path(name)
        if not path.exists() and (WEIGHTS_DIR / name).exists():
            path = WEIGHTS_DIR / name
        elif not path.exists() and (WEIGHTS_DIR / f"{name}.npz").exists():
            path = WEIGHTS_DIR / f"{name}.npz"
        network = Network.load(path)
    else:
        known = shipped()
        if game.spec not in known:
            have = ", ".join(sorted(known)) or "none"
            raise OptionError(f"no trained network ships for {game.spec} (networks ship "
                              f"for: {have}); train one with 'boardlab train' and give "
                              f"its file as net=PATH")
        network = Network.load(known[game.spec])
    if network.spec != game.spec:
        raise OptionError(f"network {network.source!r} was trained for {network.spec}, "
                          f"not {game.spec}")
    if network.meta["features"] != (features or BoardFeatures(game)).signature():
        raise OptionError(f"network {network.source!r}: the game's views changed since it "
                          f"was trained (feature layout differs); train it again")
    return network


_LIMITS: list[Any] = []        # the limit in force, kept alive


def _one_blas_thread() -> None:
    """Keep the BLAS library of this process on one thread: for matrices this small its
    threads cost more than they give, several times more on a busy machine (measured:
    0.34 ms a forward pass on Carteso 9x9 with one thread, 2.3 ms with two on a loaded
    2-core machine). Search runs one agent per core."""
    if not _LIMITS:
        from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]
        _LIMITS.append(threadpool_limits(limits=1, user_api="blas"))


class NetworkEvaluator:
    """A leaf evaluator (see ``agents.evaluators``) that also gives priors.

    ``evaluate`` returns the network's values; ``evaluate_with_priors`` returns them
    with the logits of every action number, from which MCTS makes PUCT priors.
    The input is the view of the seat that acts (of the first acting seat where
    several act at once); a finished state is never asked.
    """

    name = "net"

    def __init__(self, game: Game, network: Network, features: BoardFeatures | None = None):
        self.game, self.network = game, network
        _one_blas_thread()
        self.features = features or BoardFeatures(game)
        self.features.scale = network.scale
        # the position written by the game's compiled kernel where it can (a third of an
        # evaluation's time saved on 9x9: nn.kernel_observe), else through the view
        self.observer = KernelObserver.for_game(game, self.features.encoder)

    def evaluate_with_priors(self, state: State, rng: random.Random):
        seats = state.acting_seats()
        seat = seats[0] if seats else 0
        flat = self.observer.encode(state, seat) if self.observer is not None else None
        if flat is None:
            flat = self.features.encoder.encode(state.view(seat, texts=False))
        logits, values = self.network.forward(self.features.planes(flat))
        return values.tolist(), logits

    def evaluate(self, state: State, rng: random.Random) -> list[float]:
        return self.evaluate_with_priors(state, rng)[0]

