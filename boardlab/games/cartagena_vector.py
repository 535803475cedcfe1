"""Cartagena's vector kernel (``Game.vector_kernel``): each seat's observation only.

The rules are ``cartagena_kernel``'s and what each seat knows of the unseen cards is
``cartagena_seen``'s, the same compiled functions a game's state calls. A row is the
kernel's buffer, then every seat's knowledge (viewer after viewer). The observation
of a seat is :class:`~boardlab.nn.encoding.ViewEncoder`'s of its view: the tokens per
seat on each cell (counts), and the numbers :func:`scalars` names, its own hand and
knowledge among them, another seat's hand only as a count where hands are hidden.
Only configurations without a set-up (the options that place cards or tokens) have
one: a set-up is dealt in Python.
"""
from __future__ import annotations

import sys
from typing import Any

import numpy as np
from numba import njit

from ..core.game import VectorKernel
from . import cartagena_kernel as K
from . import cartagena_seen as seen

#: the game's constants (``consts``, int64)
D_SIZE, D_KNOW, D_HIDDEN, D_APT = range(4)
#: the scalars every configuration has, in kernel order (then per symbol, per seat and
#: per seat and symbol: see :func:`scalars`)
FIXED = (("actions_done",), ("actions_per_turn",), ("board", "actions_left"),
         ("board", "discarding"), ("board", "pile"), ("discarding",), ("pile_size",),
         ("turn",))


def scalars(alphabet: str, names) -> tuple[tuple[str, ...], ...]:
    """The view paths the kernel writes, in its order: :data:`FIXED`; per symbol the
    discards (board and view) and the viewer's hand; per seat its hand size (board and
    view); per seat and symbol its hand in the board block and in ``hands`` (where hands
    are open) and what the viewer knows it holds."""
    paths = list(FIXED)
    for a in alphabet:
        paths += [("board", "discard", a), ("discard", a), ("hand", a)]
    for name in names:
        paths += [("board", "hand", name), ("hand_sizes", name)]
    for name in names:
        for a in alphabet:
            paths += [("board", "hand", name, a), ("hands", name, a),
                      ("card_knowledge", "known", name, a)]
    return tuple(paths)


def declare(game: Any) -> VectorKernel:
    """The vector kernel of ``game`` (a Cartagena configuration without a set-up)."""
    size, step = game.layout["size"], game.knowledge_size
    consts = np.array([size, step, int(game.hidden_hands),
                       game.options["actions_per_turn"]], dtype=np.int64)
    totals = np.array(game.card_totals(), dtype=np.int64)
    work = np.empty(len(game.alphabet), dtype=np.int64)
    tables = (game.cfg, consts, totals, K.new_log(), work)
    initial = np.zeros(size + game.num_seats * step, dtype=np.int32)
    zeros = (("hands",),) if game.hidden_hands else (("card_knowledge",),)
    return VectorKernel(sys.modules[__name__], tables, initial,
                        tuple(f"tokens:{name}" for name in game.seat_names),
                        tuple(range(game.L + 2)), scalars(game.alphabet, game.seat_names),
                        zeros)


@njit(cache=True)
def vec_reset(row, tables, initial, seed):
    cfg, consts, totals = tables[0], tables[1], tables[2]
    K.new_game(row, cfg, seed)                # (zeroes the whole row, knowledge too)
    if consts[D_HIDDEN]:
        seen.deal(row, cfg, totals, row[consts[D_SIZE]:])


@njit(cache=True)
def vec_legal(row, tables, out):
    return K.legal(row, tables[0], out)


@njit(cache=True)
def vec_play(row, tables, action):
    cfg, consts, _, log, work = tables
    if consts[D_HIDDEN]:
        seen.act(row, cfg, action, log, row[consts[D_SIZE]:], work)
    else:
        K.apply(row, cfg, action)


@njit(cache=True)
def vec_player(row, tables):
    return -1 if row[K.M_OVER] != 0 else row[K.M_TO_MOVE]


@njit(cache=True)
def vec_returns(row, tables, out):
    first = K.first_ranked(row, tables[0])
    seats = out.shape[0]
    everyone = first == (1 << seats) - 1
    for s in range(seats):
        out[s] = 0.0 if everyone else 1.0 if first >> s & 1 else -1.0


@njit(cache=True, inline="always")
def _put(obs, scalars_at, k, value):
    if scalars_at[k] >= 0:
        obs[scalars_at[k]] = value


@njit(cache=True)
def vec_observe(row, tables, seat, obs, planes_at, cells_at, scalars_at):
    cfg, consts = tables[0], tables[1]
    L, S, NP = cfg[K.C_L], cfg[K.C_S], cfg[K.C_NP]
    o_track, o_occ, o_mine, o_hand, o_discard, o_pile = K.offsets(cfg)
    for p in range(NP):
        at = o_mine + p * (L + 2)
        for x in range(L + 2):
            obs[planes_at[p] + cells_at[x]] = row[at + x]
    over = row[K.M_OVER] != 0
    discarding = row[K.M_DISCARDING] != 0
    done = row[K.M_DONE]
    pile = row[K.M_END] - row[K.M_TOP]
    left = consts[D_APT] - done if not over and not discarding else 0
    values = (float(done), float(consts[D_APT]), float(left),
              1.0 if discarding and not over else 0.0, float(pile),
              1.0 if discarding else 0.0, float(pile), float(row[K.M_TURNS] + 1))
    for k in range(8):
        _put(obs, scalars_at, k, values[k])
    k = 8
    for s in range(S):
        _put(obs, scalars_at, k, row[o_discard + s])
        _put(obs, scalars_at, k + 1, row[o_discard + s])
        _put(obs, scalars_at, k + 2, row[o_hand + seat * S + s])
        k += 3
    hidden = consts[D_HIDDEN] != 0
    for q in range(NP):
        held = 0
        for s in range(S):
            held += row[o_hand + q * S + s]
        if hidden and q != seat:
            _put(obs, scalars_at, k, held)
        _put(obs, scalars_at, k + 1, held)
        k += 2
    step = consts[D_KNOW]
    known = consts[D_SIZE] + seat * step + seen.HEADER
    for q in range(NP):
        visible = not hidden or q == seat
        for s in range(S):
            if visible:
                _put(obs, scalars_at, k, row[o_hand + q * S + s])
                if not hidden:
                    _put(obs, scalars_at, k + 1, row[o_hand + q * S + s])
            elif q != seat:
                _put(obs, scalars_at, k + 2, row[known + q * S + s])
            k += 3
