"""CTOR (RULES.md §4): two teams on a torus field; Put, Move, Landing, Replace.

Squares are numbered 1..N² row by row from the top left; the field wraps in
both directions. A team turn is a series of operations, each one action
(a Landing is three: two ``lift`` and one ``land``), closed by ``end``.
One agent plays for a whole team (the team's first seat acts).

Notation: ``put 36``, ``move 19>20``, ``lift 10``, ``land 40``, ``replace 19``,
``end``, and ``secret 36`` (picking secret squares before the game).

>>> import boardlab
>>> state = boardlab.make("ctor(size=8)").new_initial_state()
>>> _ = state.play("put 1")
>>> state.legal_moves()[:2]
['put 2', 'put 3']
"""
from __future__ import annotations

import re

import numpy as np

from ..core.errors import NotationError, OptionError
from ..core import board as boards
from ..core.game import RESIGN, SIMULTANEOUS, TERMINAL, Game
from ..core.options import Option, format_spec
from ..core.registry import register
from .kernel_state import KernelState
from . import ctor_kernel as K
from .topology import torus

QUOTAS = "2,2,1/2,2,0/3,3,0"
_TEAMS = re.compile(r"^([123])v([123])$")
_MOVE = re.compile(r"^move\s*(\d+)\s*(?:>|-|→|->|to)\s*(\d+)$")
_SIMPLE = re.compile(r"^(put|lift|land|replace|secret)\s*(\d+)$")


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


OPTIONS = (
    Option("size", int, 10, "field size N (an N x N torus)", choices=(8, 10)),
    Option("teams", str, "1v1", "players per team, e.g. 1v1, 2v2, 3v3, 1v2, 2v3",
           check=_check_teams),
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
           choices=("single", "simultaneous")),
    Option("replace_only_after_op", bool, False, "Replace only after an operation this turn"),
    Option("end_check", str, "after_replaces", "when a full field ends the game",
           choices=("after_replaces", "immediate", "end_of_turn")),
    Option("secret_squares", bool, False, "each team secretly picks squares (RULES 4.6)"),
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
    Option("secrets", str, "", "set-up: each team's secret squares, e.g. 1,2,3,4,5/36,7,8,9,10",
           analysis=True),
)


@register
class Ctor(Game):
    name = "ctor"
    title = "CTOR"
    description = "teams on a torus: put, move, land and replace chips to own the most squares"
    declared_options = OPTIONS
    bench_specs = ("ctor(size=8)", "ctor(size=10,teams=3v3)")
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
        self.team_sizes = tuple(int(v) for v in _TEAMS.match(o["teams"]).groups())
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
                             *self.quotas[1]], dtype=np.int32)
        self.setup = self._parse_position() if o["position"] else None
        self.secrets = self._parse_secrets() if o["secrets"] else None
        if self.setup is not None and o["secret_squares"] and self.secrets is None:
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
    @property
    def public_spec(self) -> str:
        """The spec without the set-up's secret squares."""
        return format_spec(self.name, {**self.options, "secrets": ""}, self.declared_options)

    @property
    def perfect_information(self) -> bool:
        """Secret squares and team mates' pending choices are hidden information."""
        return not self.options["secret_squares"] and self.options["team_protocol"] == "single"

    @property
    def seat_names(self):
        names = []
        for team, size in enumerate(self.team_sizes):
            colour = self.colours[team]
            names += [colour] if size == 1 else [f"{colour}-{i + 1}" for i in range(size)]
        return tuple(names)

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
        quota = [max(a, b) for a, b in zip(*self.quotas)]
        per_turn = sum(quota) + 2 * quota[2] + self.P + 1 + 3
        return 10 + int(self.cfg[K.C_MAX_TURNS]) * per_turn

    def board_description(self) -> dict:
        """A torus of squares numbered 1..N² row by row from the top left."""
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

    def new_initial_state(self, seed=None) -> "CtorState":
        return CtorState(self)

    def determinize(self, view: dict, seed: int) -> "CtorState":
        """A full state consistent with ``view``, for search.

        The other team's unrevealed secret squares are drawn among the squares
        it could still hold: not revealed, and not a square where the viewer's
        team ended a chip in a finished turn (that would have flipped it).
        Team mates' choices in the open sub-round are left out: they choose
        again in the sampled state.
        """
        history = [t for t in view["history"] if not t.endswith(":?")]
        hidden = [i for i, t in enumerate(history) if t == "secret ?"]
        if not hidden and self.secrets is None:
            return self._replay(history)
        other = 1 - self.team_of(view["seat"])
        revealed = view["revealed_secret_squares"][self.colours[other]]
        cleared = self._cleared_squares(history, hidden, revealed, 1 - other)
        rng = np.random.default_rng(seed)
        allowed = [q for q in range(1, self.P + 1) if q not in cleared and q not in revealed]
        count = len(hidden) if hidden else len(self.secrets[other])
        drawn = [int(q) for q in rng.choice(allowed, size=count - len(revealed), replace=False)]
        squares = list(revealed) + drawn
        if not hidden:                 # set up with both teams' squares: the other's are sampled
            return self._replay(history, {other: squares})
        rng.shuffle(squares)
        for i, square in zip(hidden, squares):
            history[i] = f"secret {square}"
        return self._replay(history)

    def _cleared_squares(self, history, hidden, revealed, team) -> set[int]:
        """Squares where ``team`` ended a chip in a finished turn of ``history``.

        Replays with stand-in picks whose marks are then reset, so that only
        the ``revealed`` squares act (as they did in the real game).
        """
        texts = list(history)
        taken = {int(t.split()[1]) for t in texts if t.startswith("secret ") and t[7:].isdigit()}
        spare = (q for q in range(1, self.P + 1) if q not in taken)
        for i in hidden:
            texts[i] = f"secret {next(spare)}"
        state = self.new_initial_state()
        cleared, arrived, turn, reset = set(), set(), None, False
        for text in texts:
            if not reset and state.buf[K.M_PHASE] != K.PH_SECRET:
                marks = state._arr(K.A_SECRET + 1 - team)
                marks[:] = 0
                marks[[q - 1 for q in revealed]] = 1
                reset = True
            if int(state.buf[K.M_TURNS]) != turn:
                cleared |= arrived
                arrived, turn = set(), int(state.buf[K.M_TURNS])
            word = text.split(":")[-1].strip()
            if int(state.buf[K.M_TEAM]) == team and word.split()[0] in ("put", "land", "move"):
                arrived.add(int(word.replace(">", " ").split()[-1]))
            state.play(text)
        return cleared

    def _replay(self, texts, secrets=None) -> "CtorState":
        """The state after ``texts``; ``secrets`` ({team: squares}) replaces set-up squares."""
        state = self.new_initial_state()
        for team, squares in (secrets or {}).items():
            marks = state._arr(K.A_SECRET + team)
            marks[:] = 0
            marks[[q - 1 for q in squares]] = 1
        for text in texts:
            state.play(text)
        return state

    def bench_playouts(self, count: int, seed: int) -> int:
        state = self.new_initial_state()
        return K.playouts(state.buf, self.cfg, self.topology.nbr, self.topology.diag, count,
                          seed)


class CtorState(KernelState):
    """A CTOR position: the kernel buffer (plus, in simultaneous team play, the
    sub-round: each member's pending operation and its use of the quotas)."""

    def __init__(self, game: Ctor):
        super().__init__(game, None)
        self.round = None
        self.commits: frozenset[int] = frozenset()   # history indices of simultaneous commits
        self.buf = np.zeros(K.buffer_size(game.n), dtype=np.int32)
        K.init(self.buf, game.cfg)
        self._out = np.empty(game.num_actions, dtype=np.int32)
        if game.secrets is not None:
            for team, squares in enumerate(game.secrets):
                self._arr(K.A_SECRET + team)[squares] = 1
            K._start_turn(self.buf, game.cfg, game.cfg[K.C_FIRST], K.PH_OPENING)
        if game.setup is not None:
            self.board[:] = game.setup
            for team in (0, 1):
                self.buf[K.M_COUNT + team] = int((game.setup == team + 1).sum())
            self.buf[K.M_EMPTY] = int((game.setup == 0).sum())
            K._start_turn(self.buf, game.cfg, game.options["turn"] - 1, K.PH_REGULAR)

    def _arr(self, k):
        P = self.game.P
        return self.buf[K.META + k * P:K.META + (k + 1) * P]

    @property
    def board(self):
        """Per square (number - 1): 0 empty, 1 the first team's colour, 2 the second's."""
        return self._arr(K.A_BOARD)

    def counts(self) -> tuple[int, int]:
        return int(self.buf[K.M_COUNT]), int(self.buf[K.M_COUNT_2])

    # Protocol ---------------------------------------------------------------------
    def _current_player(self) -> int:
        if self.buf[K.M_PHASE] == K.PH_OVER:
            return TERMINAL
        if self._team_round() is not None:
            return SIMULTANEOUS
        return self.game.captain(int(self.buf[K.M_TEAM]))

    # Simultaneous team play (RULES 4.4) --------------------------------------------
    def _team_round(self):
        """The open sub-round of a simultaneous team turn, or None."""
        game = self.game
        team = int(self.buf[K.M_TEAM])
        if game.options["team_protocol"] != "simultaneous" or \
                self.buf[K.M_PHASE] != K.PH_REGULAR or game.team_sizes[team] == 1:
            self.round = None
            return None
        if self.round is None or self.round.team != team or self.round.turn != \
                int(self.buf[K.M_TURNS]):
            self.round = TeamRound(game, team, int(self.buf[K.M_TURNS]))
        return self.round

    def _acting_seats(self) -> list[int]:
        return self._team_round().waiting()

    def _scratch(self, seat):
        """The buffer as ``seat`` sees its own turn: its shares, its pending actions."""
        work = self.buf.copy()
        round_ = self._team_round()
        left = round_.available(seat, self.buf)
        work[[K.M_PUT, K.M_MOVE, K.M_LAND]] = left
        work[K.M_LIFTS] = 0
        for action in round_.pending[seat]:
            self._kernel_apply(work, action)
        return work

    def _legal_for(self, seat: int) -> list[int]:
        if self.round is not None and self.round.complete(seat):
            return []
        work = self._scratch(seat)
        count = K.legal(work, self.game.cfg, self.game.topology.nbr, self.game.topology.diag,
                        self._out)
        legal = self._out[:count].tolist()
        if seat in self.round.rechoose:
            legal = [a for a in legal if a < self.game.P or a == 7 * self.game.P]
        return legal

    def _commit_reason(self, seat: int, action: int) -> str | None:
        return None if action in self._legal_for(seat) else \
            "not one of your legal operations in this sub-round (see 'moves')"

    def _commit(self, seat: int, action: int) -> None:
        self.commits = self.commits | {len(self.history)}
        round_ = self._team_round()
        round_.pending[seat].append(action)
        if not round_.waiting():
            round_.resolve(self)

    def pending_of(self, seat: int) -> list[str]:
        """``seat``'s own uncommitted-to-the-board actions in this sub-round."""
        if self._team_round() is None:
            return []
        work, texts = self.buf.copy(), []
        for action in self.round.pending.get(seat, []):
            texts.append(self.action_to_string_in(work, action))
            self._kernel_apply(work, action)
        return texts

    def _own_board(self, seat: int):
        """The board as ``seat`` sees it in an open sub-round: its own pending operations
        done (its team mates' are hidden from it); outside one, the board itself."""
        if self._team_round() is None:
            return self.buf
        work = self.buf.copy()
        for action in self.round.pending.get(seat, []):
            self._kernel_apply(work, action)
        return work

    def _kernel_apply(self, buf, action: int) -> None:
        """Apply one step to ``buf`` (the board or a scratch copy of it) in the kernel."""
        K.apply(buf, self.game.cfg, self.game.topology.nbr, self.game.topology.diag, action)

    def action_to_string_in(self, work, action):
        saved, self.buf = self.buf, work
        try:
            return self._action_text(action)
        finally:
            self.buf = saved

    def legal_actions(self) -> list[int]:
        if self.resigned is not None or self._team_round() is not None:
            return []
        count = K.legal(self.buf, self.game.cfg, self.game.topology.nbr,
                        self.game.topology.diag, self._out)
        return self._out[:count].tolist()

    def _apply(self, action: int) -> None:
        self._kernel_apply(self.buf, action)

    def illegal_reason(self, action: int) -> str | None:
        if action in self.legal_actions():
            return None
        game = self.game
        kind, square, target = self._decode(action)
        phase, lifts = int(self.buf[K.M_PHASE]), int(self.buf[K.M_LIFTS])
        if phase == K.PH_SECRET:
            return "pick your secret squares first (secret N)" if kind != "secret" else \
                f"square {square} is already one of your secret squares"
        if kind == "secret":
            return "secret squares are picked before the game"
        colour = int(self.buf[K.M_TEAM]) + 1
        if lifts == 1:
            if kind != "lift":
                return "finish the Landing: lift a second chip of yours"
            return f"square {square} does not hold your chip"
        if lifts == 2 and kind != "put":
            return "finish the Landing: land on a free square (land N)"
        if phase == K.PH_OPENING and kind != "put":
            return "the opening turns are Puts only"
        if kind in ("put", "land") and self.board[square - 1]:
            return f"square {square} is occupied"
        if self.buf[K.M_FULL] and kind in ("put", "move", "lift"):
            return "the field is full: only Replaces (and end) remain"
        quota = {"put": K.M_PUT, "move": K.M_MOVE, "lift": K.M_LAND}.get(kind)
        if quota is not None and self.buf[quota] == 0:
            return f"no {'Landing' if kind == 'lift' else kind.capitalize()} left this turn"
        if kind in ("move", "lift") and self.board[square - 1] != colour:
            return f"square {square} does not hold your chip"
        if kind == "lift" and self.counts()[colour - 1] < 2:
            return "a Landing needs two of your chips"
        if kind == "move":
            return f"square {target} is occupied"
        if kind == "replace":
            if self.board[square - 1] != 3 - colour:
                return f"square {square} does not hold an opponent chip"
            if self.buf[K.M_OPS] == 0 and game.options["replace_only_after_op"]:
                return "Replace only after an operation this turn"
            return f"square {square} has fewer than 5 of your chips around it"
        return "not legal now"

    def history_text(self) -> list[str]:
        """Every action in notation, in one pass (no replay): a put that follows
        its player's two lifts is the Landing's ``land``."""
        names, commits = self.game.seat_names, self.commits
        lifts: dict = {}
        texts = []
        for index, (seat, action) in enumerate(self.history):
            if action == RESIGN:
                texts.append("resign")
                continue
            key = seat if index in commits else None
            kind, square, target = self._decode(action, landing=lifts.get(key, 0) == 2)
            lifts[key] = lifts.get(key, 0) + 1 if kind == "lift" else 0
            text = f"move {square}>{target}" if kind == "move" else \
                kind if kind == "end" else f"{kind} {square}"
            texts.append(f"{names[seat]}:{text}" if index in commits else text)
        return texts

    def _decode(self, action: int, landing: bool | None = None):
        P = self.game.P
        if landing is None:
            landing = self.buf[K.M_LIFTS] == 2
        if action < P:
            return ("land" if landing else "put"), action + 1, None
        if action < 5 * P:
            x, d = divmod(action - P, 4)
            return "move", x + 1, int(self.game.topology.nbr[x, d]) + 1
        if action < 6 * P:
            return "lift", action - 5 * P + 1, None
        if action < 7 * P:
            return "replace", action - 6 * P + 1, None
        if action == 7 * P:
            return "end", None, None
        return "secret", action - 7 * P, None

    def _action_text(self, action: int) -> str:
        kind, square, target = self._decode(action)
        if kind == "move":
            return f"move {square}>{target}"
        return kind if kind == "end" else f"{kind} {square}"

    def string_to_action(self, text: str) -> int:
        game, P = self.game, self.game.P
        if not isinstance(text, str):
            raise NotationError(f"a move must be text, not {text!r}")
        word = " ".join(text.strip().lower().split())
        if word == "end":
            return 7 * P
        move = _MOVE.match(word)
        simple = _SIMPLE.match(word)
        if not move and not simple:
            raise NotationError(f"{text!r} is not a move (expected put N, move N>M, lift N, "
                                f"land N, replace N, end, secret N)")
        squares = [int(v) for v in (move.groups() if move else simple.groups()[1:])]
        for square in squares:
            if not 1 <= square <= P:
                raise NotationError(f"{text!r}: squares are numbered 1-{P}")
        x = squares[0] - 1
        if move:
            for d in range(4):
                if game.topology.nbr[x, d] == squares[1] - 1:
                    return P + 4 * x + d
            raise NotationError(f"{text!r}: {squares[1]} is not next to {squares[0]} "
                                f"(up, down, left or right, with wrap-around)")
        kind = simple.group(1)
        if self._team_round() is None:          # team mates' Landings are private
            landing = self.buf[K.M_LIFTS] == 2
            if kind == "land" and not landing:
                raise NotationError(f"{text!r}: 'land' ends a Landing (after two lifts); "
                                    f"use put N")
            if kind == "put" and landing:
                raise NotationError(f"{text!r}: finish the Landing with land N")
        return {"put": 0, "land": 0, "lift": 5 * P, "replace": 6 * P,
                "secret": 7 * P + 1}[kind] + x

    # Results ----------------------------------------------------------------------
    def _returns(self) -> list[float]:
        game = self.game
        if not self.is_terminal():
            return [0.0] * game.num_seats
        a, b = self.counts()
        result = (a > b) - (a < b)
        return [float(result if game.team_of(s) == 0 else -result)
                for s in range(game.num_seats)]

    def returns(self) -> list[float]:
        if self.resigned is None:
            return self._returns()
        team = self.game.team_of(self.resigned)
        return [-1.0 if self.game.team_of(s) == team else 1.0
                for s in range(self.game.num_seats)]

    def heuristic(self, seat: int) -> float:
        """Chips ahead of the other team, scaled to [-1, 1], on ``seat``'s own view of an
        open sub-round (its pending operations done)."""
        board = self._own_board(seat)
        a, b = int(board[K.M_COUNT]), int(board[K.M_COUNT_2])
        margin = a - b if self.game.team_of(seat) == 0 else b - a
        return margin / self.game.P

    def rollout(self, seed: int, max_turns: int | None = None) -> list[float]:
        """Random play to the end through the kernel. In simultaneous team play the
        open sub-round's pending choices are dropped and the rest is played as if one
        agent ran each team (a cheap approximation, good enough for rollouts)."""
        other = self.clone()
        K.playout(other.buf, self.game.cfg, self.game.topology.nbr, self.game.topology.diag,
                  seed)
        return other.returns()

    def end_reason(self):
        if self.resigned is not None:
            return "resignation"
        return {0: None, K.OVER_FULL: "field full", K.OVER_NULL: "two null turns",
                K.OVER_CAP: "turn cap"}[int(self.buf[K.M_OVER_REASON])]

    # Copies, views ----------------------------------------------------------------
    def _cloned(self, other) -> None:
        other.round = self.round.copy() if self.round is not None else None

    def field_rows(self) -> list[str]:
        n, marks = self.game.n, "." + "".join(self.game.letters)
        return ["".join(marks[v] for v in self.board[r * n:(r + 1) * n]) for r in range(n)]

    def secret_squares(self, team: int, spent: bool | None = None) -> list[int]:
        """Team's secret squares (numbers); ``spent`` filters revealed/unrevealed."""
        marks = self._arr(K.A_SECRET + team)
        wanted = (1, 2) if spent is None else ((2,) if spent else (1,))
        return [int(x) + 1 for x in np.flatnonzero(np.isin(marks, wanted))]

    def _view(self, seat: int | None) -> dict:
        """What ``seat`` may know: its own team's secret squares, nobody else's."""
        game = self.game
        over = self.is_terminal()
        team = None if seat is None else game.team_of(seat)
        counts = self.counts()
        phase = ("secret", "opening", "regular", "over")[int(self.buf[K.M_PHASE])]
        return {
            "game": game.name, "spec": game.public_spec, "seat": seat,
            "seats": list(game.seat_names),
            "field": self.field_rows(),
            "counts": {game.colours[t]: counts[t] for t in (0, 1)},
            "phase": "over" if over else phase,
            "to_move": None if over else game.colours[int(self.buf[K.M_TEAM])],
            "quotas_left": {"put": int(self.buf[K.M_PUT]), "move": int(self.buf[K.M_MOVE]),
                            "landing": int(self.buf[K.M_LAND])},
            "landing_lifts": int(self.buf[K.M_LIFTS]), "field_full": bool(self.buf[K.M_FULL]),
            "turn": int(self.buf[K.M_TURNS]) + 1, "terminal": over,
            "winner": self._winner(), "end_reason": self.end_reason(),
            "my_secret_squares": None if team is None else self.secret_squares(team),
            "revealed_secret_squares": {game.colours[t]: self.secret_squares(t, spent=True)
                                        for t in (0, 1)},
            "my_pending": self.pending_of(seat) if seat is not None else [],
        }

    def visible_history(self, seat: int | None) -> list[str]:
        return self._public_history(None if seat is None else self.game.team_of(seat), seat)

    def board_view(self, seat: int | None) -> dict:
        """Chips by square (as ``seat`` sees them: its own pending operations done);
        its team's secret squares, and every revealed one, marked."""
        game = self.game
        board = self._own_board(seat) if seat is not None else self.buf
        saved, self.buf = self.buf, board
        try:
            field = [None if v == 0 else game.letters[int(v) - 1] for v in self.board]
        finally:
            self.buf = saved
        marks = {"secret": [] if seat is None else
                 [str(q) for q in self.secret_squares(game.team_of(seat), spent=False)],
                 "revealed": [str(q) for t in (0, 1) for q in self.secret_squares(t, spent=True)]}
        return {"kind": "torus", "cells": field, "marks": marks}

    def _public_history(self, team, seat=None):
        """Moves in notation as ``seat`` (of ``team``) may see them: the other
        team's secret picks show as 'secret ?', team mates' commits in the open
        sub-round as 'name:?'."""
        texts = self.history_text()
        if self.round is not None and self.resigned is None and self._team_round() is not None:
            hidden = sum(len(actions) for actions in self.round.pending.values())
            for i in range(len(texts) - hidden, len(texts)):
                name = texts[i].partition(":")[0]
                if name in self.game.seat_names and (seat is None or
                                                     name != self.game.seat_names[seat]):
                    texts[i] = f"{name}:?"
        picks = [i for i, (_, a) in enumerate(self.history) if 7 * self.game.P < a <
                 self.game.num_actions]
        count = int(self.game.cfg[K.C_SECRETS])
        for i in picks:
            picker = 0 if picks.index(i) < count else 1
            picker = picker if self.game.cfg[K.C_FIRST] == 0 else 1 - picker
            if picker != team:
                texts[i] = "secret ?"
        return texts

    def _winner(self):
        if not self.is_terminal():
            return None
        returns = self.returns()
        if max(returns) == 0:
            return None
        return self.game.colours[self.game.team_of(returns.index(1.0))]

    def summary(self) -> dict:
        """Everything (secret squares of both teams included), for analysis and replays."""
        info = self._view(None)
        info["history"] = self.history_text()
        info["secret_squares"] = {self.game.colours[t]: self.secret_squares(t) for t in (0, 1)}
        info["legal"] = self.legal_moves()
        info["returns"] = self.returns() if info["terminal"] else None
        del info["seat"], info["my_secret_squares"], info["my_pending"]
        info["acting"] = [self.game.seat_names[s] for s in self.acting_seats()]
        return info

    # Terminal rendering -----------------------------------------------------------
    def render(self, colour: bool = False, seat: int | None = None) -> str:
        """The field with its wrap-around ring (the outer squares repeat the far side)."""
        n, marks = self.game.n, "." + "".join(self.game.letters)
        team = None if seat is None else self.game.team_of(seat)
        mine = set(self.secret_squares(team, spent=False)) if team is not None else set()

        def cell(r, c, ring):
            square = (r % n) * n + (c % n)
            value = int(self.board[square])
            text = marks[value] if value else ("*" if square + 1 in mine else str(square + 1))
            text = f"{text:>3}"
            return f"\x1b[2m{text}\x1b[0m" if colour and ring else text

        lines = []
        for r in range(-1, n + 1):
            ring_row = r in (-1, n)
            row = [cell(r, c, ring_row or c in (-1, n)) for c in range(-1, n + 1)]
            lines.append(row[0] + " |" + "".join(row[1:-1]) + " |" + row[-1])
            if r in (-1, n - 1):
                lines.append("    +" + "-" * (3 * n + 1) + "+")
        return "\n".join(lines)

    def status_lines(self, seat: int | None = None) -> list[str]:
        view = self.view(seat)
        counts = "  ".join(f"{c} {v}" for c, v in view["counts"].items())
        lines = [f"chips: {counts}   (the outer ring repeats the opposite edge)"]
        if view["my_secret_squares"]:
            lines.append(f"your secret squares: {view['my_secret_squares']} (* when empty)")
        if view["history"]:
            lines.append(f"last move: {view['history'][-1]}")
        if view["my_pending"]:
            lines.append(f"your operation so far: {', '.join(view['my_pending'])}")
        if view["terminal"]:
            lines.append(f"game over ({view['end_reason']}): "
                         f"{view['winner'] + ' wins' if view['winner'] else 'a draw'}")
            return lines
        q = view["quotas_left"]
        lines.append(f"turn {view['turn']} ({view['phase']}): {view['to_move']} to move; left "
                     f"this turn: put {q['put']}, move {q['move']}, landing {q['landing']}"
                     + ("  [landing: lift/land]" if view["landing_lifts"] else ""))
        return lines


class TeamRound:
    """One sub-round of a simultaneous team turn (RULES 4.4, T-A12).

    Every member commits one operation (a Landing is its three actions) or
    ``end`` to skip. When all have, the operations are revealed: those whose
    squares meet an earlier seat's are lost (in an unequal game the larger
    team's members re-choose a lost Put once); the rest run in seat order
    against the team's quotas. A sub-round where everybody skips ends the turn.
    """

    def __init__(self, game, team, turn):
        self.game, self.team, self.turn = game, team, turn
        first = game.captain(team)
        self.members = list(range(first, first + game.team_sizes[team]))
        self.pending = {seat: [] for seat in self.members}
        self.used = {seat: [0, 0, 0] for seat in self.members}
        self.rechoose: set[int] = set()
        self.acting = list(self.members)

    def copy(self):
        other = object.__new__(TeamRound)
        other.__dict__.update(self.__dict__)
        other.pending = {s: list(a) for s, a in self.pending.items()}
        other.used = {s: list(u) for s, u in self.used.items()}
        other.rechoose = set(self.rechoose)
        other.acting = list(self.acting)
        return other

    def available(self, seat, buf):
        """Put, move steps and Landings ``seat`` may still use: its share, capped by the team's."""
        size = len(self.members)
        team_left = [int(buf[K.M_PUT]), int(buf[K.M_MOVE]), int(buf[K.M_LAND])]
        return [max(0, min(-(-q // size) - u, left))
                for q, u, left in zip(self.game.quotas[self.team], self.used[seat], team_left)]

    def complete(self, seat) -> bool:
        actions = self.pending[seat]
        if not actions:
            return False
        P = self.game.P
        lifts = sum(1 for a in actions if 5 * P <= a < 6 * P)
        return lifts == 0 or (lifts == 2 and len(actions) == 3)

    def waiting(self) -> list[int]:
        return [s for s in self.acting if not self.complete(s)]

    def squares(self, actions):
        P, nbr = self.game.P, self.game.topology.nbr
        result = set()
        for a in actions:
            if a < P:
                result.add(a)
            elif a < 5 * P:
                x, d = divmod(a - P, 4)
                result |= {x, int(nbr[x, d])}
            elif a < 7 * P:
                result.add((a - P) % P)
        return result

    def kind(self, actions) -> int | None:
        """Quota index of an operation: 0 put, 1 move, 2 landing, None otherwise."""
        P, first = self.game.P, actions[0]
        if first < P:
            return 0
        if first < 5 * P:
            return 1
        if first < 6 * P:
            return 2
        return None

    def resolve(self, state):
        """Reveal the sub-round's operations and perform those that do not collide."""
        P, cfg = self.game.P, self.game.cfg
        buf = state.buf
        taken, lost_puts, skipped = set(), [], 0
        out = np.empty(self.game.num_actions, dtype=np.int32)
        for seat in self.acting:
            actions = self.pending[seat]
            if actions == [7 * P]:
                skipped += 1
                continue
            squares = self.squares(actions)
            if squares & taken:
                if self.kind(actions) == 0 and seat not in self.rechoose and \
                        len(self.members) == max(self.game.team_sizes) and \
                        self.game.team_sizes[0] != self.game.team_sizes[1]:
                    lost_puts.append(seat)
                continue
            taken |= squares
            if self._perform(buf, actions, out):
                kind = self.kind(actions)
                if kind is not None:
                    self.used[seat][kind] += 1
            if buf[K.M_PHASE] == K.PH_OVER or buf[K.M_TEAM] != self.team or \
                    buf[K.M_TURNS] != self.turn:
                return
        everyone_skipped = skipped == len(self.acting) and not self.rechoose
        self.pending = {seat: [] for seat in self.members}
        if lost_puts:
            self.rechoose, self.acting = set(lost_puts), lost_puts
            return
        self.rechoose, self.acting = set(), list(self.members)
        if everyone_skipped:
            K.end_turn(buf, cfg)

    def _perform(self, buf, actions, out) -> bool:
        """Run one operation if every step is legal now (else it is lost)."""
        cfg, topo = self.game.cfg, self.game.topology
        trial = buf.copy()
        for action in actions:
            count = K.legal(trial, cfg, topo.nbr, topo.diag, out)
            if action not in out[:count]:
                return False
            K.apply(trial, cfg, topo.nbr, topo.diag, action)
        buf[:] = trial
        return True
