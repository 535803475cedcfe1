"""Sampling CTOR's hidden information from a view (for search): ``determinize``.

What a seat does not see: the other team's unspent secret squares, and its
team mates' commits in the open sub-round of simultaneous team play. A
sampled state draws the first among the squares the other team could still
hold, and leaves the second out (the team mates choose again in it).
"""
from __future__ import annotations

import numpy as np

from . import ctor_kernel as K


def determinize(game, view: dict, seed: int):
    """A full state consistent with ``view``, for search.

    The other team's unrevealed secret squares are drawn among the squares
    it could still hold: not revealed, and not a square where the viewer's
    team ended a chip in a finished turn (that would have flipped it).
    Commits hidden from the viewer in the open sub-round (``name:?``) are
    drawn among that seat's legal ones, as many actions as it committed (one,
    or a Landing's two or three), so the sample's view is the viewer's view.
    """
    rng = np.random.default_rng(seed)
    history = list(view["history"])
    hidden = [i for i, t in enumerate(history) if t == "secret ?"]
    if game.secrets is None and _set_up_squares(game, view):
        game = _with_squares(game, view)
    if not hidden and game.secrets is None:
        return replay(game, history, rng=rng, acting=view["acting"])
    other = 1 - game.team_of(view["seat"])
    revealed = view["revealed_secret_squares"][game.colours[other]]
    cleared = cleared_squares(game, [t for t in history if not t.endswith(":?")], hidden,
                              revealed, 1 - other)
    allowed = [q for q in range(1, game.P + 1) if q not in cleared and q not in revealed]
    count = len(hidden) if hidden else len(game.secrets[other])
    drawn = [int(q) for q in rng.choice(allowed, size=count - len(revealed), replace=False)]
    squares = list(revealed) + drawn
    if not hidden:                 # set up with both teams' squares: the other's are sampled
        return replay(game, history, {other: squares}, rng=rng, acting=view["acting"])
    rng.shuffle(squares)
    for i, square in zip(hidden, squares):
        history[i] = f"secret {square}"
    return replay(game, history, rng=rng, acting=view["acting"])


def _set_up_squares(game, view: dict) -> bool:
    """Whether the secret squares were given by a set-up (``secrets=``) that the
    public game (the one agents get) leaves out: past the picks, and none in the history."""
    return bool(game.cfg[K.C_SECRETS]) and view["phase"] != "secret" and \
        not any(t.startswith("secret ") for t in view["history"])


def _with_squares(game, view: dict):
    """The game set up with the viewer's team's squares (from its view) and stand-ins
    for the other team's (the caller samples those)."""
    own = game.team_of(view["seat"])
    stand_ins = list(range(1, game.options["secret_count"] + 1))
    sets = [view["my_secret_squares"], stand_ins][::1 if own == 0 else -1]
    text = "/".join(",".join(str(q) for q in squares) for squares in sets)
    return type(game)(**{**game.options, "secrets": text})


def cleared_squares(game, history, hidden, revealed, team) -> set[int]:
    """Squares where ``team`` ended a chip in a finished turn of ``history``.

    Replays with stand-in picks whose marks are then reset, so that only
    the ``revealed`` squares act (as they did in the real game).
    """
    texts = list(history)
    taken = {int(t.split()[1]) for t in texts if t.startswith("secret ") and t[7:].isdigit()}
    spare = (q for q in range(1, game.P + 1) if q not in taken)
    for i in hidden:
        texts[i] = f"secret {next(spare)}"
    state = game.new_initial_state()
    cleared: set[int] = set()
    arrived: set[int] = set()
    turn, reset = None, False
    for text in texts:
        if not reset and state.buf[K.M_PHASE] != K.PH_SECRET:
            marks = state.secret_marks(1 - team)
            marks[:] = 0
            marks[[q - 1 for q in revealed]] = 1
            reset = True
        if int(state.buf[K.M_TURNS]) != turn:
            cleared |= arrived
            arrived, turn = set(), int(state.buf[K.M_TURNS])
        mover, rounds = int(state.buf[K.M_TEAM]), int(state.buf[K.M_ROUNDS])
        sequential = not state.in_sub_round()
        state.play(text)
        if mover != team:
            continue
        word = text.split(":")[-1].strip()
        if sequential and word.split()[0] in ("put", "land", "move"):
            arrived.add(int(word.replace(">", " ").split()[-1]))
        elif state.buf[K.M_ROUNDS] != rounds:     # a revealed sub-round: what was made
            arrived |= _made_arrivals(game, state.buf)
    if int(state.buf[K.M_TURNS]) != turn:         # the last entry finished a turn too
        cleared |= arrived
    return cleared


def _made_arrivals(game, buf) -> set[int]:
    """The squares (numbers) where operations performed in the last revealed sub-round
    ended a chip (Put and Landing targets, Move destinations)."""
    squares, actions = set(), np.empty(3, dtype=np.int32)
    for m in range(K.MAX_MEMBERS):
        outcome, _, count = K.revealed(buf, m, actions)
        if outcome != K.OUT_DONE:
            continue
        for action in actions[:count]:
            kind, cell, target = K.decode(action, game.P, game.topology.nbr)
            if kind == K.KIND_PUT:
                squares.add(int(cell) + 1)
            elif kind == K.KIND_MOVE:
                squares.add(int(target) + 1)
    return squares


def replay(game, texts, secrets=None, rng=None, acting=()):
    """The state after ``texts``; ``secrets`` ({team: squares}) replaces set-up squares.

    A hidden commit ``name:?`` becomes a legal commit of that seat drawn with ``rng``,
    of the same shape: a seat still ``acting`` has begun a Landing (its hidden entries
    are lifts); one that is done made a one-action operation (one hidden entry) or a
    whole Landing (three). A Replace is never hidden: it is made at once.
    """
    state = game.new_initial_state()
    for team, squares in (secrets or {}).items():
        marks = state.secret_marks(team)
        marks[:] = 0
        marks[[q - 1 for q in squares]] = 1
    names = game.seat_names
    counts: dict[str, int] = {}
    for text in texts:
        if text.endswith(":?"):
            counts[text[:-2]] = counts.get(text[:-2], 0) + 1
    done = dict.fromkeys(counts, 0)
    for text in texts:
        if not text.endswith(":?"):
            state.play(text)
            continue
        name = text[:-2]
        seat = names.index(name)
        lift = (counts[name] > 1 or name in acting) and done[name] < 2
        kinds = {a: K.decode(a, game.P, game.topology.nbr)[0]
                 for a in state.legal_actions_for(seat)}
        choices = [a for a, kind in kinds.items() if kind != K.KIND_REPLACE and
                   (kind == K.KIND_LIFT) == lift]
        state.apply(int(rng.choice(choices)), seat=seat)
        done[name] += 1
    return state
