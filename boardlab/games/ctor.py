"""CTOR (RULES.md §4): two teams on a torus field; Put, Move, Landing, Replace.

Squares are numbered 1..N² row by row from the top left; the field wraps in
both directions. A team turn is a series of operations, each one action
(a Landing is three: two ``lift`` and one ``land``), closed by ``end``.
With ``team_protocol=single`` one agent plays for a whole team (the team's
first seat acts); with ``simultaneous`` the members of a team of two or three
commit operations at the same time, in sub-rounds (RULES §4.4).

Notation: ``put 36``, ``move 19>20``, ``lift 10``, ``land 40``, ``replace 19``,
``end``, and ``secret 36`` (picking secret squares before the game).

Where things live: every rule (the simultaneous sub-rounds included) and the
one action encoding are the compiled kernel's (``ctor_kernel``); the notation,
the rules summary and the terminal picture are ``ctor_text``; sampling the
hidden secret squares from a view is ``ctor_sample``. This module holds the
options, the declared facts, the views and the State protocol, delegating to
those.

>>> import boardlab
>>> state = boardlab.make("ctor(size=8)").new_initial_state()
>>> _ = state.play("put 1")
>>> state.legal_moves()[:2]
['put 2', 'put 3']
"""
from __future__ import annotations

import functools
import math
import re
from typing import cast

import numpy as np

from ..core.errors import OptionError
from ..core import board as boards
from ..core.game import RESIGN, SIMULTANEOUS, TERMINAL, Game, Symmetry
from ..core.options import Option, format_spec
from ..core.registry import register
from ..core.view import View
from .kernel_state import KernelState
from . import ctor_kernel as K
from . import ctor_sample as sample
from . import ctor_text as text
from . import ctor_vector
from .direct_call import direct
from .topology import square_turns, torus

_M_PHASE, _M_TEAM, _PH_OVER = K.M_PHASE, K.M_TEAM, K.PH_OVER      # (module globals: fast)
# the kernels of legal_actions and apply, replaced by their compiled entry points
# (direct_call: called without numba's dispatch) when the first state is made
_legal, _apply_if_legal = K.legal, K.apply_if_legal

QUOTAS = "2,2,1/2,2,0/3,3,0"
_TEAMS = re.compile(r"^([123])v([123])$")


def _check_teams(text):
    return None if _TEAMS.match(text) else "write teams as AvB with 1-3 players, e.g. 2v3"


def _check_quotas(text):
    try:
        rows = [[int(v) for v in row.split(",")] for row in text.split("/")]
    except ValueError:
        return "rows of put,move,landing separated by '/', e.g. 2,2,1/2,2,0/3,3,0"
    if len(rows) != 3 or any(len(r) != 3 or min(r) < 0 or max(r) > 9 for r in rows):
        return "three rows (larger team of 1, 2, 3 players) of put,move,landing in 0..9"
    return None


HIDDEN_SECRETS = "hidden"      # option secrets in a public spec: set up, not shown

OPTIONS = (
    Option("size", int, 10, "field size N (an N x N torus)", choices=(8, 10), common=True),
    Option("teams", str, "1v1", "players per team, e.g. 1v1, 2v2, 3v3, 1v2, 2v3",
           check=_check_teams, common=True),
    Option("quota_table", str, QUOTAS, "put,move,landing per turn for a larger team of 1/2/3 "
           "players (RULES 4.2)", check=_check_quotas),
    Option("quota_row", int, 0, "row of the quota table to use (0: the larger team's size)",
           minimum=0, maximum=3),
    Option("quota_by", str, "larger", "larger: both teams use the larger team's row; own: "
           "each team uses the row of its own size (T-A2)", choices=("larger", "own")),
    Option("first_team", int, 1, "the team that starts", choices=(1, 2)),
    Option("colours", str, "black,white", "the teams' colours (first team 1)"),
    Option("team_protocol", str, "single", "single: one agent plays each team turn; "
           "simultaneous: team mates commit operations at the same time (RULES 4.4)",
           choices=("single", "simultaneous"), common=True),
    Option("replace_only_after_op", bool, False, "Replace only after an operation this turn"),
    Option("end_check", str, "after_replaces", "when a full field ends the game",
           choices=("after_replaces", "immediate", "end_of_turn")),
    Option("secret_squares", bool, False, "each team secretly picks squares (RULES 4.6)",
           common=True),
    Option("secret_count", int, 5, "how many secret squares each team picks", minimum=1,
           maximum=10),
    Option("auto_replace_closure", bool, False, "after each operation every possible "
           "Replace is made at once (a simplification, RULES 4.3)"),
    Option("end_on_null_turns", bool, True, "two consecutive turns without any operation "
           "end the game (T-A10)"),
    Option("max_turns", int, 0, "turn cap, openings included (0: 4·N²)", minimum=0,
           maximum=10**6),
    Option("position", str, "", "set-up: rows top first, '/'-separated, of . and the "
           "colours' initials; play starts with regular turns", analysis=True),
    Option("turn", int, 1, "set-up: the team to move in the set-up position", choices=(1, 2),
           analysis=True),
    Option("secrets", str, "", "set-up: each team's secret squares, e.g. 1,2,3,4,5/36,7,8,9,10; "
           "'hidden' (a public spec): set up but not shown, so the game holds none",
           analysis=True),
)


# the guided playout (State.rollout): how often in 1000 it takes an action of the best kind
# (docs/agents.md, "Playouts")
GUIDED_GREED = 900
# a rollout stopped before the end is worth tanh(chips ahead / CAPPED_SCALE) (docs/agents.md,
# "Playouts")
CAPPED_SCALE = 4.0


@functools.cache
def torus_symmetries(n: int) -> tuple[Symmetry, ...]:
    """CTOR's symmetries on an ``n`` x ``n`` field (:meth:`Ctor.symmetries`): they depend on
    the size alone, so each size computes them once (outside the game object, which
    stays small to copy and to send to worker processes)."""
    P, nbr = n * n, torus(n).nbr
    found = []
    for turn, move in square_turns(n).items():
        for dr in range(n):
            for dc in range(n):
                if turn == "identity" and dr == dc == 0:
                    continue
                cells = np.array([((r + dr) % n) * n + (c + dc) % n for r, c in
                                  (move(*divmod(i, n)) for i in range(P))])
                # a step from cell x in direction d goes to the image's neighbour of
                # cells[x] that is the image of the step's target
                steps = np.empty((P, 4), dtype=np.int64)
                for d in range(4):
                    target = cells[nbr[:, d]]
                    steps[:, d] = (nbr[cells] == target[:, None]).argmax(1)
                actions = np.concatenate((
                    cells,                                           # put (and land)
                    P + 4 * np.repeat(cells, 4) + steps.reshape(-1),  # move steps
                    5 * P + cells, 6 * P + cells,                   # lift, replace
                    [7 * P], 7 * P + 1 + cells))                    # end, secret
                name = "+".join(([] if turn == "identity" else [turn]) +
                                ([f"shift_{dr}_{dc}"] if dr or dc else []))
                found.append(Symmetry(name, tuple(cells.tolist()), {}, tuple(actions.tolist())))
    return tuple(found)


@register
class Ctor(Game):
    name = "ctor"
    rating_options = ('size', 'teams')
    title = "CTOR"
    description = "teams on a torus: put, move, land and replace chips to own the most squares"
    declared_options = OPTIONS
    bench_specs = ("ctor(size=8)", "ctor(size=10,teams=3v3)")
    playouts = ("random", "guided", "tactical")
    playout = "guided"
    rollout_turns = 1
    # With rollouts stopped after the other team's answer, simulations gain most below
    # ~50 and less above: in 20 games each 50 beat 20 19 times, 250 beat 50 14.5, 1,000
    # beat 250 12.5 and 4,000 beat 1,000 14.5 (docs/agents.md, "Levels").
    level_budgets = (20, 50, 250, 1000, 4000)
    setup_examples = ("ctor(size=8,position=B......./......../......../......../......../"
                      "......../......../.......W,turn=2)",
                      "ctor(size=8,secret_squares=true,secrets=1,2,3,4,5/36,7,8,9,10)")
    conformance_specs = tuple(
        f"ctor(size={size},teams={teams}{',secret_squares=true' if secret else ''})"
        for size in (8, 10) for teams in ("1v1", "2v2", "3v3", "1v2", "2v3")
        for secret in (False, True)) + (
        "ctor(size=8,teams=2v2,team_protocol=simultaneous)",
        "ctor(size=10,teams=2v3,team_protocol=simultaneous,secret_squares=true)",
        "ctor(size=8,secret_squares=true,teams=3v3,end_check=end_of_turn)")

    def validate(self):
        o = self.options
        self.n = o["size"]
        self.P = self.n * self.n
        teams = _TEAMS.match(o["teams"])
        assert teams is not None, "the teams option's check allows only NvM"
        self.team_sizes = tuple(int(v) for v in teams.groups())
        rows = [[int(v) for v in row.split(",")] for row in o["quota_table"].split("/")]
        self.quotas = [rows[(o["quota_row"] or (size if o["quota_by"] == "own" else
                                                max(self.team_sizes))) - 1]
                       for size in self.team_sizes]
        self.quota = self.quotas[0]
        self.colours = tuple(c.strip().lower() for c in o["colours"].split(","))
        if len(self.colours) != 2 or len({c[:1] for c in self.colours}) != 2 or \
                not all(c.isalpha() for c in self.colours):
            raise OptionError("option 'colours': two names with different initials, "
                              "e.g. black,white")
        self.letters = tuple(c[0].upper() for c in self.colours)
        self.topology = torus(self.n)
        first = o["first_team"] - 1
        self.cfg = np.array([self.n, *self.quota, max(self.team_sizes) == 3,
                             o["replace_only_after_op"],
                             ("after_replaces", "immediate", "end_of_turn").index(o["end_check"]),
                             o["max_turns"] or 4 * self.P,
                             o["secret_count"] if o["secret_squares"] else 0, first,
                             o["auto_replace_closure"], o["end_on_null_turns"],
                             *self.quotas[1], o["team_protocol"] == "simultaneous",
                             *self.team_sizes], dtype=np.int32)
        assert len(self.cfg) == K.NCFG
        self.setup = self._parse_position() if o["position"] else None
        # secrets=hidden (a public spec): squares were set up but are not shown; the game
        # holds none (a searcher samples both teams' from a view, see ctor_sample)
        self.secrets = self._parse_secrets() if o["secrets"] and \
            o["secrets"] != HIDDEN_SECRETS else None
        if o["secrets"] == HIDDEN_SECRETS and not o["secret_squares"]:
            raise OptionError("option 'secrets' needs secret_squares=true")
        if self.setup is not None and o["secret_squares"] and not o["secrets"]:
            raise OptionError("option 'secrets': a 'position' set-up with secret squares "
                              "needs them given, e.g. secrets=1,2,3,4,5/6,7,8,9,10")

    def _parse_position(self):
        rows = [r.replace(" ", "") for r in self.options["position"].split("/")]
        if len(rows) != self.n or any(len(r) != self.n for r in rows):
            raise OptionError(f"option 'position': {self.n} rows of {self.n} squares, "
                              f"'/'-separated, top row first")
        board = np.zeros(self.P, dtype=np.int32)
        marks = "." + "".join(self.letters)
        for i, char in enumerate("".join(rows).upper()):
            if char not in marks:
                raise OptionError(f"option 'position': {char!r} is not one of {' '.join(marks)}")
            board[i] = marks.index(char)
        if not (board == 0).any():
            raise OptionError("option 'position': the field is already full")
        return board

    def _parse_secrets(self):
        if not self.options["secret_squares"]:
            raise OptionError("option 'secrets' needs secret_squares=true")
        parts = self.options["secrets"].split("/")
        try:
            sets = [[int(v) - 1 for v in p.split(",") if v.strip()] for p in parts]
        except ValueError:
            raise OptionError("option 'secrets': square numbers, e.g. 1,2,3,4,5/6,7,8,9,10") \
                from None
        count = self.options["secret_count"]
        if len(sets) != 2 or any(len(set(s)) != count or not all(0 <= v < self.P for v in s)
                                 for s in sets):
            raise OptionError(f"option 'secrets': {count} different squares 1-{self.P} per team")
        return sets

    # Facts ------------------------------------------------------------------
    @functools.cached_property
    def public_spec(self) -> str:
        """The spec without the set-up's secret squares: ``secrets=hidden`` says that
        they were set up (a searcher samples them from a view, see ctor_sample); written
        once (the options are frozen), not at every view."""
        hidden = HIDDEN_SECRETS if self.options["secrets"] else ""
        return format_spec(self.name, {**self.options, "secrets": hidden},
                           self.declared_options)

    @property
    def simultaneous(self) -> bool:  # type: ignore[override]  # Game: a plain attribute
        """Team mates act at once: team_protocol=simultaneous and a team of 2-3 members."""
        return self.options["team_protocol"] == "simultaneous" and max(self.team_sizes) > 1

    @property
    def perfect_information(self) -> bool:  # type: ignore[override]  # Game: a plain attribute
        """Secret squares and team mates' pending choices are hidden information."""
        return not self.options["secret_squares"] and not self.simultaneous

    chance = "none"
    can_sample = True              # determinize() samples the other team's secret squares

    @property
    def rules_summary(self) -> str:  # type: ignore[override]  # Game: a plain attribute
        return text.rules_summary(self)

    @property
    def notation_guide(self) -> str:  # type: ignore[override]  # Game: a plain attribute
        return text.notation_guide(self)

    @property
    def seat_names(self):
        names = []
        for team, size in enumerate(self.team_sizes):
            colour = self.colours[team]
            names += [colour] if size == 1 else [f"{colour}-{i + 1}" for i in range(size)]
        return tuple(names)

    @property
    def teams(self) -> tuple[tuple[int, ...], ...]:
        """The seats of each team: the first team's seats, then the second's."""
        first = self.team_sizes[0]
        return tuple(range(first)), tuple(range(first, first + self.team_sizes[1]))

    @property
    def team_names(self) -> tuple[str, ...]:
        """Teams are named by their colours."""
        return self.colours

    def team_of(self, seat: int) -> int:
        return 0 if seat < self.team_sizes[0] else 1

    def captain(self, team: int) -> int:
        """The seat that plays for ``team`` (its first member)."""
        return 0 if team == 0 else self.team_sizes[0]

    @property
    def num_actions(self) -> int:
        return 8 * self.P + 1

    @property
    def max_game_length(self) -> int:
        """Secret picks, then at most max_turns team turns. A turn has at most its
        quotas' actions (a Landing is three) and one Replace per opponent chip; in
        simultaneous team play a sub-round either performs an operation or ends the
        turn (each may be followed by one re-choice sub-round), and every member
        commits up to three actions in each."""
        quota = [max(a, b) for a, b in zip(*self.quotas)]
        if self.simultaneous:
            per_turn = (2 * sum(quota) + 1) * 3 * max(self.team_sizes) + self.P + 3
        else:
            per_turn = sum(quota) + 2 * quota[2] + self.P + 1 + 3
        return 2 * int(self.cfg[K.C_SECRETS]) + 10 + int(self.cfg[K.C_MAX_TURNS]) * per_turn

    def symmetries(self) -> tuple[Symmetry, ...]:
        """Every shift of the field, after each of the square's rotations and flips: the
        torus has no edge, no corner and no favoured direction, so the rules cannot tell
        a position from any of these images (``8 * N² - 1`` of them besides the identity;
        colours are not swapped, as black moves first).

        >>> import boardlab
        >>> found = boardlab.make("ctor(size=8)").symmetries()
        >>> len(found), found[0].name, found[-1].name
        (511, 'shift_0_1', 'flip_antidiagonal+shift_7_7')
        """
        return torus_symmetries(self.n)

    def board_description(self) -> dict:
        """A torus of squares named "1".."N²" row by row from the top left; chips are
        the colours' initials. Marks of a view's block: ``secret`` (the viewer's
        team's unspent secret squares), ``revealed`` (spent secret squares of both
        teams) and ``last`` (the squares of the last move the viewer may see)."""
        pieces = {letter: {"label": f"{colour} chip", "owner": colour}
                  for letter, colour in zip(self.letters, self.colours)}
        gestures = [boards.gesture("put", ["cell"], "put {0}", "an empty square"),
                    boards.gesture("move", ["cell", "cell"], "move {0}>{1}",
                                   "one of your chips, then a neighbouring empty square"),
                    boards.gesture("lift", ["cell"], "lift {0}", "a Landing: lift a chip"),
                    boards.gesture("land", ["cell"], "land {0}", "a Landing: land a chip"),
                    boards.gesture("replace", ["cell"], "replace {0}",
                                   "an opponent chip surrounded by 5 of yours"),
                    boards.gesture("secret", ["cell"], "secret {0}", "pick a secret square")]
        return boards.grid("torus", self.n, self.n, [str(q) for q in range(1, self.P + 1)],
                           pieces, gestures, ["end"])

    def new_initial_state(self, seed=None) -> CtorState:
        return CtorState(self)

    def determinize(self, view: View, seed: int) -> CtorState:
        """A full state consistent with ``view``, for search (see ``ctor_sample``):
        the other team's unrevealed secret squares drawn among the squares it could
        still hold; the commits hidden from the viewer in the open sub-round drawn
        among those seats' legal ones."""
        return sample.determinize(self, cast(dict, view), seed)

    def vector_kernel(self):
        """One agent per team and no secret squares: nothing is hidden from the seat to
        act (``ctor_vector``); the rows start as a new state's buffer, set-ups included."""
        if not self.perfect_information:
            return None
        return ctor_vector.declare(self, self.new_initial_state().buf)

    def bench_playouts(self, count: int, seed: int) -> int:
        state = self.new_initial_state()
        return K.playouts(state.buf, self.cfg, self.topology.nbr, self.topology.diag, count,
                          seed)


class CtorState(KernelState):
    """A CTOR position: the kernel buffer (in simultaneous team play it holds the
    open sub-round too: each member's pending operation and its use of the quotas)."""

    game: Ctor

    def __init__(self, game: Ctor):
        super().__init__(game, None)
        self.commits: frozenset[int] = frozenset()   # history indices of simultaneous commits
        self.buf = np.zeros(K.buffer_size(game.n), dtype=np.int32)
        K.init(self.buf, game.cfg)
        self._out = np.empty(game.num_actions, dtype=np.int32)
        self._simultaneous = game.simultaneous      # else no sub-round ever opens
        # the kernel's tables and each team's captain, made once (the protocol's hot path)
        self._t = (game.cfg, game.topology.nbr, game.topology.diag)
        self._captains = (game.captain(0), game.captain(1))
        global _legal, _apply_if_legal
        if _legal is K.legal:
            _legal = direct(K.legal, self.buf, *self._t, self._out)
            _apply_if_legal = direct(K.apply_if_legal, self.buf, *self._t, 0)
        if game.secrets is not None:
            for team, squares in enumerate(game.secrets):
                self._arr(K.A_SECRET + team)[squares] = 1
            K.start_turn(self.buf, game.cfg, game.cfg[K.C_FIRST], K.PH_OPENING)
        if game.setup is not None:
            self.board[:] = game.setup
            for team in (0, 1):
                self.buf[K.M_COUNT + team] = int((game.setup == team + 1).sum())
            self.buf[K.M_EMPTY] = int((game.setup == 0).sum())
            K.start_turn(self.buf, game.cfg, game.options["turn"] - 1, K.PH_REGULAR)

    def _arr(self, k):
        P = self.game.P
        return self.buf[K.META + k * P:K.META + (k + 1) * P]

    def secret_marks(self, team: int):
        """Per square (number - 1), ``team``'s secret-square marks (a view of the buffer):
        0 none, 1 a secret square, 2 spent (revealed)."""
        return self._arr(K.A_SECRET + team)

    @property
    def board(self):
        """Per square (number - 1): 0 empty, 1 the first team's colour, 2 the second's."""
        return self._arr(K.A_BOARD)

    def counts(self) -> tuple[int, int]:
        return int(self.buf[K.M_COUNT]), int(self.buf[K.M_COUNT_2])

    def _tables(self):
        return self._t

    # Protocol ---------------------------------------------------------------------
    def _in_round(self) -> bool:
        """Whether a simultaneous sub-round is open (the kernel's rule; only asked in
        simultaneous team play)."""
        return self._simultaneous and K.in_round(self.buf, self.game.cfg)

    def _current_player(self) -> int:
        buf = self.buf
        if buf.item(_M_PHASE) == _PH_OVER:
            return TERMINAL
        if self._simultaneous and K.in_round(buf, self.game.cfg):
            return SIMULTANEOUS
        return self._captains[buf.item(_M_TEAM)]

    def is_terminal(self) -> bool:
        """(``current_player() == TERMINAL``, asked without the rest.)"""
        return self.resigned is not None or self.agreed_draw or \
            self.buf.item(_M_PHASE) == _PH_OVER

    def legal_actions(self) -> list[int]:
        if self.resigned is not None or self._in_round():
            return []
        out = self._out
        return out[:_legal(self.buf, *self._t, out)].tolist()

    def _apply(self, action: int) -> None:
        K.apply(self.buf, *self._t, action)

    def _apply_if_legal(self, action: int) -> bool:
        """The kernel's check and move in one call (one seat acts: no round is open)."""
        return _apply_if_legal(self.buf, *self._t, action)

    def illegal_reason(self, action: int) -> str | None:
        if self.resigned is None and not self._in_round() and \
                0 <= action < self.game.num_actions and \
                K.is_legal(self.buf, *self._tables(), action):
            return None                # (one of legal_actions(), without making the list)
        game = self.game
        kind, cell, target = K.decode(action, game.P, game.topology.nbr)
        square = int(cell) + 1
        phase, lifts = int(self.buf[K.M_PHASE]), int(self.buf[K.M_LIFTS])
        if phase == K.PH_SECRET:
            return "pick your secret squares first (secret N)" if kind != K.KIND_SECRET else \
                f"square {square} is already one of your secret squares"
        if kind == K.KIND_SECRET:
            return "secret squares are picked before the game"
        colour = int(self.buf[K.M_TEAM]) + 1
        if lifts == 1:
            if kind != K.KIND_LIFT:
                return "finish the Landing: lift a second chip of yours"
            return f"square {square} does not hold your chip"
        if lifts == 2 and kind != K.KIND_PUT:
            return "finish the Landing: land on a free square (land N)"
        if phase == K.PH_OPENING and kind != K.KIND_PUT:
            return "the opening turns are Puts only"
        if kind == K.KIND_PUT and self.board[cell]:
            return f"square {square} is occupied"
        if self.buf[K.M_FULL] and game.cfg[K.C_END_CHECK] != K.END_OF_TURN and \
                kind in (K.KIND_PUT, K.KIND_MOVE, K.KIND_LIFT):
            return "the field is full: only Replaces (and end) remain"
        quota = {K.KIND_PUT: K.M_PUT, K.KIND_MOVE: K.M_MOVE, K.KIND_LIFT: K.M_LAND}.get(kind)
        if quota is not None and self.buf[quota] == 0:
            return f"no {'Landing' if kind == K.KIND_LIFT else K.KINDS[kind].capitalize()} " \
                f"left this turn"
        if kind in (K.KIND_MOVE, K.KIND_LIFT) and self.board[cell] != colour:
            return f"square {square} does not hold your chip"
        if kind == K.KIND_LIFT and self.counts()[colour - 1] < 2:
            return "a Landing needs two of your chips"
        if kind == K.KIND_MOVE:
            return f"square {int(target) + 1} is occupied"
        if kind == K.KIND_REPLACE:
            if self.board[cell] != 3 - colour:
                return f"square {square} does not hold an opponent chip"
            if self.buf[K.M_OPS] == 0 and game.options["replace_only_after_op"]:
                return "Replace only after an operation this turn"
            return f"square {square} has fewer than 5 of your chips around it"
        return "not legal now"

    # Simultaneous team play (RULES 4.4): thin wrappers of the kernel's sub-round ----
    def _member(self, seat: int) -> int | None:
        """``seat``'s index in the team to move (None if it is not on that team)."""
        team = int(self.buf[K.M_TEAM])
        if self.game.team_of(seat) != team:
            return None
        return seat - self.game.captain(team)

    def _acting_seats(self) -> list[int]:
        members = np.empty(K.MAX_MEMBERS, dtype=np.int32)
        count = K.waiting(self.buf, self.game.cfg, members)
        first = self.game.captain(int(self.buf[K.M_TEAM]))
        return [first + int(m) for m in members[:count]]

    def _legal_for(self, seat: int) -> list[int]:
        member = self._member(seat)
        if member is None:
            return []
        count = K.member_legal(self.buf, *self._tables(), member, self._out)
        return self._out[:count].tolist()

    def _commit_reason(self, seat: int, action: int) -> str | None:
        return None if action in self._legal_for(seat) else \
            "not one of your legal operations in this sub-round (see 'moves')"

    def _commit(self, seat: int, action: int) -> None:
        self.commits = self.commits | {len(self.history)}
        K.commit(self.buf, *self._tables(), self._member(seat), action)

    def in_sub_round(self) -> bool:
        """Whether a simultaneous sub-round is open."""
        return self.resigned is None and bool(K.in_round(self.buf, self.game.cfg))

    def pending_actions(self, seat: int) -> list[int]:
        """``seat``'s committed, not yet revealed actions in the open sub-round."""
        member = self._member(seat)
        if member is None or not self.in_sub_round():
            return []
        out = np.empty(3, dtype=np.int32)
        return out[:K.pending(self.buf, member, out)].tolist()

    def pending_of(self, seat: int) -> list[str]:
        """``seat``'s own not yet revealed actions in this sub-round, in notation."""
        return text.operation_texts(self.game, self.pending_actions(seat))

    def seen_by(self, seat: int | None):
        """The buffer as ``seat`` sees it in an open sub-round: its own pending operations
        done (its team mates' are hidden from it); otherwise the buffer itself."""
        member = None if seat is None else self._member(seat)
        if seat is None or member is None or not self.pending_actions(seat):
            return self.buf
        work = np.empty_like(self.buf)
        K.member_board(self.buf, *self._tables(), member, work)
        return work

    # Notation -----------------------------------------------------------------------
    def _action_text(self, action: int) -> str:
        return text.action_text(self.game, action, landing=self.buf[K.M_LIFTS] == 2)

    def string_to_action(self, move: str) -> int:
        return text.parse_action(self, move)

    def _history_text(self) -> list[str]:
        """Every action in notation, in one pass (no replay): a put that follows
        its player's two lifts is the Landing's ``land``."""
        return text.history_texts(self.game, self.history, self.commits)

    # Results ----------------------------------------------------------------------
    def _returns(self) -> list[float]:
        game = self.game
        if not self.is_terminal():
            return [0.0] * game.num_seats
        a, b = self.counts()
        result = (a > b) - (a < b)
        return [float(result if game.team_of(s) == 0 else -result)
                for s in range(game.num_seats)]

    def scores(self) -> dict:
        """Chips on the field per colour (the score: more chips wins)."""
        return dict(zip(self.game.colours, self.counts()))

    def end_reason(self) -> str | None:
        if self.resigned is not None or self.agreed_draw:
            return super().end_reason()
        return {0: None, K.OVER_FULL: "field full", K.OVER_NULL: "two null turns",
                K.OVER_CAP: "turn cap"}[int(self.buf[K.M_OVER_REASON])]

    def winner(self) -> str | None:
        """The winning team's colour (None while running or drawn)."""
        winners = self.winners()
        return self.game.colours[self.game.team_of(winners[0])] if winners else None

    def heuristic(self, seat: int) -> float:
        """Chips ahead of the other team, scaled to [-1, 1], on ``seat``'s own view of an
        open sub-round (its pending operations done)."""
        board = self.seen_by(seat)
        a, b = int(board[K.M_COUNT]), int(board[K.M_COUNT_2])
        margin = a - b if self.game.team_of(seat) == 0 else b - a
        return margin / self.game.P

    def rollout_horizon(self, turns: int) -> int:
        """The end of the turn ``turns`` turns after the one in play: the turn count
        every rollout of a search rooted here stops at (``rollout``'s ``until``), so
        that all of them end after the same team's turn, the other team's answer to
        the move searched played out when ``turns`` is 1."""
        return int(self.buf[K.M_TURNS]) + 1 + turns

    def rollout(self, seed: int, max_turns: int | None = None,
                policy: str = "random", until: int | None = None) -> list[float]:
        """Play on through the kernel (the simultaneous sub-rounds too, from the pending
        choices this state holds): random play, or with ``policy="guided"`` nine times in
        ten an action of the best kind (Replace, Put, a Move step or the end, a Landing
        last; ``ctor_kernel.guided_playout``), or with ``"tactical"`` the action judged
        best from the chips around it (``ctor_kernel.tactical_worth``).

        To the end, ranked by the chips; or with ``max_turns``, only until the end of
        the first round (the turn of the team that moves second) at least that many
        turns on, each
        team then worth ``tanh(chips ahead / CAPPED_SCALE)``: a margin a few turns on
        says more than who leads, and ending every playout after the same team's turn
        keeps a lead that is only that team's last Puts from favouring some moves.

        ``until`` (a search's :meth:`rollout_horizon`; it overrides ``max_turns``):
        stop when that many turns have ended, or from a position at or past it, at
        the first end of a turn of the same team as that one's."""
        game = self.game
        other = self.played_out_to(seed, self._rollout_cap(max_turns, until), policy)
        if other.is_terminal():
            return other.returns()
        a, b = other.counts()
        value = math.tanh((a - b) / CAPPED_SCALE)
        return [value if game.team_of(s) == 0 else -value for s in range(game.num_seats)]

    def played_to_horizon(self, seed: int, until: int, policy: str = "random"):
        """The copy :meth:`rollout` with ``until`` would value: played on to the end, or
        to the start of the turn after the horizon's (the searching team's turn again,
        when the horizon is one turn: see :meth:`rollout_horizon`)."""
        return self.played_out_to(seed, self._rollout_cap(None, until), policy)

    def _rollout_cap(self, max_turns: int | None, until: int | None) -> int | None:
        """How many turns have ended where a rollout stops (None: at the game's end)."""
        cap = None
        turn = int(self.buf[K.M_TURNS])
        if until is not None and self.resigned is None:
            cap = until if turn < until else until + 2 * ((turn + 2 - until) // 2)
        elif max_turns is not None and self.resigned is None:
            cap = turn + max_turns
            cap += cap % 2
        if cap is not None and cap >= self.game.cfg[K.C_MAX_TURNS]:
            cap = None                          # the rules' own cap comes first
        return cap

    def played_out_to(self, seed: int, cap: int | None, policy: str = "random"):
        """A copy played on by :meth:`rollout`'s policy until the game ends, or until
        turn number ``cap`` has ended and the next begun (the copy still in play; its
        history is this state's, the playout records no moves)."""
        if policy not in ("guided", "tactical"):
            self.game.check_playout(policy)
        other = self.clone()
        if other.resigned is None:
            cfg, nbr, diag = self._tables()
            K.guided_playout(other.buf, cfg, nbr, diag, seed,
                             0 if policy == "random" else GUIDED_GREED, policy == "tactical",
                             -1 if cap is None else cap)
        return other

    # Hidden information: reveals, undo, announcements --------------------------------
    def _replayed(self):
        """Replay the history through the kernel: yields ``(index, before, after)``,
        the buffers around each entry (``after`` is live: copy it to keep it)."""
        game = self.game
        cfg, nbr, diag = self._tables()
        buf = game.new_initial_state().buf
        for index, (seat, action) in enumerate(self.history):
            if action == RESIGN:
                return
            before = buf.copy()
            if K.in_round(buf, cfg):
                team = int(buf[K.M_TEAM])
                K.commit(buf, cfg, nbr, diag, seat - game.captain(team), action)
            else:
                K.apply(buf, cfg, nbr, diag, action)
            yield index, before, buf

    def undo_floor(self) -> int:
        """The shortest history an undo may go back to: right after the last reveal.

        With perfect information there is none (0). Otherwise these entries reveal
        something, so an undo never goes back before them (else the table would
        watch a seat choose again, knowing what it has seen):

        * every entry that resolved a simultaneous sub-round: its commits, hidden
          until then, were shown to everybody;
        * with secret squares, every entry that ended a team turn after the picks
          (opening turns included). Triggered squares flip and are revealed then,
          and even a turn end that flips nothing tells the moving team that the
          squares it ended chips on were none of the other team's unspent ones.
          Conservatively every turn end counts, whether or not it showed anything.

        Secret picks themselves show nothing to the other team (they stay hidden),
        so undoing within the picking phase reveals nothing.
        """
        if self.game.perfect_information:
            return 0
        secret = self.game.cfg[K.C_SECRETS] > 0
        floor = 0
        for index, before, after in self._replayed():
            if after[K.M_ROUNDS] != before[K.M_ROUNDS] or \
                    (secret and after[K.M_TURNS] != before[K.M_TURNS]):
                floor = index + 1
        return floor

    def announcements(self, before: int) -> list[str]:
        """Public events of the entries from ``history[before]`` on: lost operations in
        each revealed sub-round (RULES 4.4) and secret squares revealed at a turn's end."""
        lines = []
        for index, prev, after in self._replayed():
            if index >= before:
                lines += text.events(self.game, prev, after)
        return lines

    # Copies, views ----------------------------------------------------------------
    def field_rows(self) -> list[str]:
        n, marks = self.game.n, "." + "".join(self.game.letters)
        return ["".join(marks[v] for v in self.board[r * n:(r + 1) * n]) for r in range(n)]

    def secret_squares(self, team: int, spent: bool | None = None) -> list[int]:
        """Team's secret squares (numbers); ``spent`` filters revealed/unrevealed."""
        marks = self._arr(K.A_SECRET + team)
        chosen = marks > 0 if spent is None else marks == (2 if spent else 1)
        return [int(x) + 1 for x in np.flatnonzero(chosen)]

    def _view(self, seat: int | None) -> dict:
        """What ``seat`` may know: its own team's secret squares, nobody else's."""
        game = self.game
        over = self.is_terminal()
        team = None if seat is None else game.team_of(seat)
        counts = self.counts()
        phase = ("secret", "opening", "regular", "over")[int(self.buf[K.M_PHASE])]
        return {
            "field": self.field_rows(),
            "counts": {game.colours[t]: counts[t] for t in (0, 1)},
            "phase": "over" if over else phase,
            "to_move": None if over else game.colours[int(self.buf[K.M_TEAM])],
            "quotas_left": {"put": int(self.buf[K.M_PUT]), "move": int(self.buf[K.M_MOVE]),
                            "landing": int(self.buf[K.M_LAND])},
            "landing_lifts": int(self.buf[K.M_LIFTS]), "field_full": bool(self.buf[K.M_FULL]),
            "picks_left": int(self.buf[K.M_PICKS]) if phase == "secret" and not over else 0,
            "turn": int(self.buf[K.M_TURNS]) + 1,
            "winner": self.winner(), "end_reason": self.end_reason(),
            "my_secret_squares": None if team is None else self.secret_squares(team),
            "revealed_secret_squares": {game.colours[t]: self.secret_squares(t, spent=True)
                                        for t in (0, 1)},
            "my_pending": self.pending_of(seat) if seat is not None else [],
        }

    def visible_history(self, seat: int | None) -> list[str]:
        """The history as ``seat`` may see it: the other team's secret picks show as
        'secret ?', team mates' commits in the open sub-round as 'name:?'."""
        texts = self.history_text()
        for i in self._hidden_from(seat):
            texts[i] = f"{texts[i].partition(':')[0]}:?" if i in self.commits else "secret ?"
        return texts

    def _hidden_from(self, seat: int | None) -> set[int]:
        """The history entries ``seat`` may not see: the other team's secret picks (the
        first entries of a game with secret squares) and, in an open sub-round (or one
        cut short by a resignation), the other members' commits."""
        game, history = self.game, self.history
        team = None if seat is None else game.team_of(seat)
        hidden: set[int] = set()
        if K.in_round(self.buf, game.cfg):
            pending = int(K.pending_total(self.buf, game.cfg))
            end = len(history) - (self.resigned is not None)   # commits before the resign
            hidden.update(i for i in range(end - pending, end)
                          if i in self.commits and history[i][0] != seat)
        count, first = int(game.cfg[K.C_SECRETS]), int(game.cfg[K.C_FIRST])
        for k, (_, action) in enumerate(history[:2 * count]):
            if action == RESIGN or self._kind(action) != K.KIND_SECRET:
                break
            if (first if k < count else 1 - first) != team:
                hidden.add(k)
        return hidden

    def _kind(self, action: int) -> int:
        return int(K.decode(action, self.game.P, self.game.topology.nbr)[0])

    def _last_squares(self, seat: int | None) -> list[str]:
        """The squares of the latest entry ``seat`` may see that names some (an ``end``,
        a resignation and hidden entries passed over), found from the actions, not by
        writing the history out."""
        hidden = self._hidden_from(seat)
        for i in range(len(self.history) - 1, -1, -1):
            action = self.history[i][1]
            if action == RESIGN or i in hidden:
                continue
            kind, cell, target = (int(v) for v in K.decode(action, self.game.P,
                                                           self.game.topology.nbr))
            if kind != K.KIND_END:
                return [str(cell + 1)] + ([str(target + 1)] if kind == K.KIND_MOVE else [])
        return []

    def board_view(self, seat: int | None) -> dict:
        """Chips by square, as ``seat`` sees them (its own pending operations done);
        marks: its team's unspent secret squares (``secret``), every spent one
        (``revealed``), and the squares of the last move it may see (``last``)."""
        game = self.game
        board = self.seen_by(seat)[K.META:K.META + game.P]
        cells = [None if v == 0 else game.letters[int(v) - 1] for v in board]
        marks = {"secret": [] if seat is None else
                 [str(q) for q in self.secret_squares(game.team_of(seat), spent=False)],
                 "revealed": [str(q) for t in (0, 1) for q in self.secret_squares(t, spent=True)],
                 "last": self._last_squares(seat)}
        return {"kind": "torus", "cells": cells, "marks": marks}

    def summary(self) -> dict:
        """Everything (secret squares of both teams included), for analysis and replays."""
        game = self.game
        info = {"game": game.name, "spec": game.public_spec, "seats": list(game.seat_names),
                **self._view(None)}
        info["history"] = self.history_text()
        info["secret_squares"] = {self.game.colours[t]: self.secret_squares(t) for t in (0, 1)}
        info["legal"] = self.legal_moves()
        info["terminal"] = self.is_terminal()
        info["returns"] = self.returns() if info["terminal"] else None
        info["acting"] = [self.game.seat_names[s] for s in self.acting_seats()]
        del info["my_secret_squares"], info["my_pending"]
        return info

    # Terminal rendering (ctor_text) -----------------------------------------------
    def render(self, colour: bool = False, seat: int | None = None) -> str:
        """The field with its wrap-around ring (the outer squares repeat the far side)."""
        return text.render(self, colour, seat)

    def status_lines(self, seat: int | None = None, view: dict | None = None) -> list[str]:
        return text.status_lines(self, seat, view)
