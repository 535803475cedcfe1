"""A :class:`~boardlab.nn.net.Network`'s forward pass compiled (numba, float32), callable
from other compiled code (the compiled search's leaves, ``agents.kernel_eval_tree``).

The weights are packed once (:func:`pack`) into a tuple of arrays that compiled code
takes as one argument; :func:`forward` reads the input as :meth:`BoardFeatures.planes
<boardlab.nn.features.BoardFeatures.planes>` lays it out, but in two parts, the board
planes and the unscaled scalars (each scalar's plane is constant, so the first
convolution's share of it is the scalar times the sum of the weights that fall on the
board, summed in advance per cell: :func:`pack`), and writes the logits and the values.

Each 3x3 convolution runs on planes padded by one cell all round (zeros, or the cells
across the edge on a torus), so that each of the nine offsets is one shift of a
contiguous run of cells: the inner loop is a multiply-add over the whole padded board,
which the compiler vectorizes. Numbers agree with :meth:`Network.forward` within float32
rounding (tests/test_compiled_eval.py).
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from .net import Network, gather_index

#: the packed tuple's entries (see :func:`pack`)
(P_GEOM, P_W0, P_S0, P_B0, P_WR, P_BR, P_PW, P_PB, P_PFW, P_PFB, P_VW, P_VB, P_V1W,
 P_V1B, P_V2W, P_V2B, P_SCALE, P_GATHER) = range(18)


def _inside_sums(w: np.ndarray, height: int, width: int, torus: bool) -> np.ndarray:
    """For each output plane, input plane and cell: the sum of the 3x3 weights whose
    offset from the cell falls on the board (all nine on a torus)."""
    out_planes, in_planes = w.shape[:2]
    sums = np.zeros((out_planes, in_planes, height * width), dtype=np.float32)
    for y in range(height):
        for x in range(width):
            for dy in range(3):
                for dx in range(3):
                    ny, nx = y + dy - 1, x + dx - 1
                    if torus or (0 <= ny < height and 0 <= nx < width):
                        sums[:, :, y * width + x] += w[:, :, dy, dx]
    return sums


def pack(network: Network, board_planes: int) -> tuple:
    """The weights of ``network`` as the tuple :func:`forward` takes (float32,
    contiguous); ``board_planes``: how many of its input planes are board planes (the
    rest are the constant planes of the scalars)."""
    shape = network.meta["features"]
    height, width, torus = int(shape["height"]), int(shape["width"]), bool(shape["torus"])
    raw = {k: np.asarray(v, dtype=np.float32) for k, v in network.w.items()}
    channels = int(network.meta["channels"])
    conv0 = raw["conv0.w"].reshape(channels, -1, 3, 3)
    f32 = np.ascontiguousarray
    w0 = f32(conv0[:, :board_planes].reshape(channels, board_planes * 9))
    s0 = f32(_inside_sums(conv0[:, board_planes:], height, width, torus))
    blocks = network.blocks
    wr = np.zeros((max(blocks - 1, 1), channels, channels * 9), dtype=np.float32)
    br = np.zeros((max(blocks - 1, 1), channels), dtype=np.float32)
    for i in range(1, blocks):
        wr[i - 1] = raw[f"conv{i}.w"].reshape(channels, channels * 9)
        br[i - 1] = raw[f"conv{i}.b"]
    geom = np.array([height, width, int(torus), blocks, channels, board_planes,
                     int(network.head_relu)], dtype=np.int64)
    return (geom, w0, s0, f32(raw["conv0.b"]), wr, br,
            f32(raw["policy.conv.w"].reshape(2, channels)), f32(raw["policy.conv.b"]),
            f32(raw["policy.fc.w"]), f32(raw["policy.fc.b"]),
            f32(raw["value.conv.w"].reshape(1, channels)), f32(raw["value.conv.b"]),
            f32(raw["value.fc1.w"]), f32(raw["value.fc1.b"]),
            f32(raw["value.fc2.w"]), f32(raw["value.fc2.b"]),
            f32(np.asarray(network.scale, dtype=np.float32)), gather_index(height, width, torus))


def scratch_for(net: tuple) -> tuple:
    """The work arrays :func:`forward` needs for ``net`` (float32)."""
    height, width, _, _, channels, board_planes, _ = (int(v) for v in net[P_GEOM])
    cells = height * width
    hidden = net[P_V1W].shape[0]
    planes = max(channels, board_planes)     # the input's planes, then the layers'
    return (np.zeros((planes, cells + 1), dtype=np.float32),         # planes (and a zero)
            np.zeros((max(channels, board_planes) * 9, cells), dtype=np.float32),  # columns
            np.zeros((channels, cells), dtype=np.float32),           # a product
            np.zeros(3 * cells + hidden, dtype=np.float32))          # the heads


@njit(cache=True, fastmath=True, inline="always")
def _columns(x, planes, gather, cells, cols):
    """The 3x3 windows of ``x``'s first ``planes`` planes (columns ``cells``: zero) as
    the rows of ``cols`` (plane, offset), one column per cell."""
    for c in range(planes):
        for k in range(9):
            row = c * 9 + k
            at = k * cells
            for i in range(cells):
                cols[row, i] = x[c, gather[at + i]]


@njit(cache=True, fastmath=True)
def forward(net, board, scalars, work, logits, values, policy):
    """The network ``net`` (:func:`pack`) on one input: ``board`` the board planes
    (planes, height * width, row by row), ``scalars`` the unscaled scalars (as
    ``BoardFeatures.raw_scalars``); writes ``logits`` (every action number) and
    ``values`` (one per seat); without ``policy`` the policy head is skipped (``logits``
    left as they were). ``work``: :func:`scratch_for`'s arrays."""
    geom = net[P_GEOM]
    height, width, blocks = geom[0], geom[1], geom[3]
    channels, board_planes, head_relu = geom[4], geom[5], geom[6] != 0
    w0, s0, b0, wr, br = net[P_W0], net[P_S0], net[P_B0], net[P_WR], net[P_BR]
    gather, scale = net[P_GATHER], net[P_SCALE]
    x, cols, y, flat = work
    cells = height * width
    # the first convolution: the board planes by a product, the constant planes summed
    for c in range(board_planes):
        for i in range(cells):
            x[c, i] = board[c * cells + i]
        x[c, cells] = 0.0
    _columns(x, board_planes, gather, cells, cols)
    np.dot(w0, cols[:board_planes * 9], y)
    for o in range(channels):
        for i in range(cells):
            y[o, i] += b0[o]
    for s in range(scalars.shape[0]):
        value = scalars[s] * scale[s]
        if value == 0.0:
            continue
        for o in range(channels):
            for i in range(cells):
                y[o, i] += value * s0[o, s, i]
    for o in range(channels):
        for i in range(cells):
            x[o, i] = max(y[o, i], 0.0)
        x[o, cells] = 0.0
    # the residual convolutions
    for b in range(blocks - 1):
        _columns(x, channels, gather, cells, cols)
        np.dot(wr[b], cols, y)
        for o in range(channels):
            for i in range(cells):
                x[o, i] = max(max(y[o, i] + br[b, o], 0.0) + x[o, i], 0.0)
    # the heads: 1x1 convolutions to 2 + 1 planes of cells, then dense layers
    pwt, pb, vw, vb = net[P_PW], net[P_PB], net[P_VW], net[P_VB]
    for h in range(0 if policy else 2, 3):
        for i in range(cells):
            acc = pb[h] if h < 2 else vb[0]
            for c in range(channels):
                acc += (pwt[h, c] if h < 2 else vw[0, c]) * x[c, i]
            if head_relu:
                acc = max(acc, 0.0)
            flat[h * cells + i] = acc
    pfw, pfb = net[P_PFW], net[P_PFB]
    for a in range(pfw.shape[0] if policy else 0):
        acc = pfb[a]
        for i in range(2 * cells):
            acc += pfw[a, i] * flat[i]
        logits[a] = acc
    v1w, v1b, v2w, v2b = net[P_V1W], net[P_V1B], net[P_V2W], net[P_V2B]
    hidden = flat[3 * cells:3 * cells + v1w.shape[0]]
    for j in range(v1w.shape[0]):
        acc = v1b[j]
        for i in range(cells):
            acc += v1w[j, i] * flat[2 * cells + i]
        hidden[j] = max(acc, 0.0)
    for s in range(v2w.shape[0]):
        acc = v2b[s]
        for j in range(v1w.shape[0]):
            acc += v2w[s, j] * hidden[j]
        values[s] = math.tanh(acc)


def random_network(features, spec: str, actions: int, channels: int = 8, blocks: int = 2,
                   seed: int = 0) -> Network:
    """An untrained network of the given size for ``features`` (a
    :class:`~boardlab.nn.features.BoardFeatures`): random weights, for measuring what a
    forward pass of that size costs and for tests."""
    rng = np.random.default_rng(seed)
    planes, cells = features.shape[0], features.width * features.height
    seats = len(features.encoder.seats)

    def weights(*shape):
        fan_in = int(np.prod(shape[1:]))
        return rng.normal(0.0, 1.0 / math.sqrt(fan_in), shape).astype(np.float32)

    arrays = {"scale": rng.uniform(0.1, 1.0, features.scalars).astype(np.float32)}
    for i in range(blocks):
        arrays[f"conv{i}.w"] = weights(channels, planes if i == 0 else channels, 3, 3)
        arrays[f"conv{i}.b"] = weights(channels, 1)[:, 0]
    for name, shape in (("policy.conv", (2, channels, 1, 1)), ("policy.fc", (actions, 2 * cells)),
                        ("value.conv", (1, channels, 1, 1)), ("value.fc1", (64, cells)),
                        ("value.fc2", (seats, 64))):
        arrays[f"{name}.w"] = weights(*shape)
        arrays[f"{name}.b"] = weights(shape[0], 1)[:, 0]
    meta = {"format": 2, "spec": spec, "blocks": blocks, "channels": channels,
            "actions": actions, "seats": seats, "features": features.signature(),
            "trained": []}
    return Network(arrays, meta, f"random({channels}x{blocks})")


@njit(cache=True)
def forward_repeat(net, board, scalars, work, logits, values, times, policy=True):
    """:func:`forward` ``times`` times over (to time it without the calls from Python;
    without ``policy``, as a search with ``priors=false`` asks it: no policy head)."""
    for _ in range(times):
        forward(net, board, scalars, work, logits, values, policy)
