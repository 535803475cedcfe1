"""What Carteso and Rumbo share: options, the komi/side pre-game, notation, summaries.

Both are two-sided square-grid territory games with neutral stones (B, W),
claimed groups and komi for Horizontal. Each game's kernel module (its
``kernel``) numbers the actions: ``kernel.encode``/``kernel.decode`` turn an
action number into (kind, value, colour) and back, where the kind is
``PLACE`` (a stone on a cell), ``PASS``, ``BUTTON``, ``SIDE`` (pre-game: the
second player picks vertical or horizontal) or ``KOMI`` (pre-game: the first
player proposes a komi in half points). Nothing here does arithmetic on action
numbers. Komi and scores are kept in half points.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import cached_property
from operator import itemgetter
from typing import Any, NamedTuple

import numpy as np

from ..core.errors import NotationError, OptionError
from ..core import board as boards
from ..core.game import RESIGN, TERMINAL, TIME_TEXT, Game, KomiFacts, Symmetry
from ..core.options import Option
from .kernel_state import KernelState
from .grid_notation import LETTERS, parse_point, point_name
from .topology import square_grid, square_turns

SIDES = ("vertical", "horizontal")   # by side number (the kernels' VERTICAL, HORIZONTAL)
COLOURS = ".BW"                      # by colour value (the kernels' EMPTY, BLACK, WHITE)
_STONES = (None, "B", "W")           # a view's cell by colour value (empty: None)
_ROW_TEXT = bytes.maketrans(b"\x00\x01\x02", COLOURS.encode())   # board values -> . B W
_KOMI = re.compile(r"^komi\s*=\s*(-?\d+(?:\.\d*)?)$")


def _half_points(value: float) -> str | None:
    return None if float(value * 2).is_integer() else "komi must be a multiple of 0.5"


def territory_options(default_komi) -> tuple[Option, ...]:
    """The options shared by the territory games."""
    return (
        Option("size", int, 11, "board size N (an N x N board of points)", minimum=2,
               maximum=26, common=True),
        Option("komi", float, default_komi, "points added to Horizontal's score (whole or .5)",
               check=_half_points, common=True),
        Option("komi_protocol", str, "fixed", "fixed komi, or bid: the first player names the "
               "komi (komi=K), then the second picks a side", choices=("fixed", "bid"),
               common=True),
        Option("position", str, "", "analysis set-up: rows top first, '/'-separated, of . B W",
               analysis=True),
        Option("claims", str, "", "analysis set-up: claimed groups, e.g. Va5+Hc3 (owner and a "
               "stone of the group)", analysis=True),
        Option("turn", str, "vertical", "analysis set-up: the side to move first",
               choices=SIDES, analysis=True),
    )


def format_komi(half: int) -> str:
    """Half points as text: 14 -> '7', 15 -> '7.5', -1 -> '-0.5'."""
    return str(half // 2) if half % 2 == 0 else f"{half / 2:g}"


class TerritoryGame(Game):
    """Facts common to Carteso and Rumbo; subclasses give the kernel and extras."""

    kernel: Any = None  # the game's kernel module: the engine and the action numbers
    record_formats = ("json", "sgf")
    shared_views = True         # perfect information, nothing in a view depends on the seat
    # At 0.25 s a move c=0.8 beat c=1.4 52 and 35 times in 60 and 40 Carteso 9x9 games,
    # 39 in 60 Rumbo 9x9 games (docs/agents.md, "The exploration constant").
    exploration = 0.8
    #: the turns of the board, besides the identity, that leave the rules unchanged: any
    #: of ``flip_rows`` (top to bottom), ``flip_columns`` (left to right), ``rotate_180``
    #: (none turns it by a quarter: that would swap Vertical's and Horizontal's roles);
    #: each is also a symmetry with the colours swapped (either side plays either colour)
    board_symmetries: tuple[str, ...] = ()

    def validate(self):
        #: board size N and its number of points N² (plain attributes: hot paths read them)
        self.n = self.options["size"]
        self.points = self.n * self.n
        self._num_actions = self.kernel.num_actions(self.n)
        self.topology = square_grid(self.n)
        self.komi_half = int(round(self.options["komi"] * 2))
        if self.bidding and "komi" in self.given:
            raise OptionError("option 'komi' cannot be set with komi_protocol=bid: "
                              "the first player proposes it in the game")
        self.setup = parse_setup(self.options["position"], self.options["claims"], self.n)

    @property
    def bidding(self) -> bool:
        return self.options["komi_protocol"] == "bid"

    @cached_property
    def seat_names(self):
        """Named by the komi protocol (options are frozen: found once; views read it
        often)."""
        return ("first", "second") if self.bidding else SIDES

    @property
    def words(self) -> tuple[str, ...]:
        """The play moves written as a word (``pass``, ``button``) in this configuration."""
        return ()

    # Declared facts ---------------------------------------------------------
    @property
    def komi(self) -> KomiFacts:
        """Komi goes to Horizontal; a margin is at most every point plus the button."""
        return KomiFacts(option="komi", receiver="horizontal",
                         points=self.points + ("button" in self.words),  # + its half point
                         fixed_options=(("komi_protocol", "fixed"),))

    @cached_property
    def draw_order(self) -> tuple[int, ...]:
        """Cell numbers row by row from the top left (the description's order)."""
        n = self.n
        return tuple(row * n + col for row in range(n - 1, -1, -1) for col in range(n))

    @cached_property
    def cell_names(self) -> tuple[str, ...]:
        return tuple(point_name(cell, self.n) for cell in self.draw_order)

    @cached_property
    def point_names(self) -> tuple[str, ...]:
        """The name of every cell, by cell number."""
        return tuple(point_name(cell, self.n) for cell in range(self.points))

    @cached_property
    def in_draw_order(self) -> Callable[[list], tuple]:
        """Per-cell values (a list by cell number) -> a tuple in ``draw_order``."""
        return itemgetter(*self.draw_order)

    def board_description(self) -> dict:
        """A square grid of points; a move is a colour, then a point."""
        gestures = [boards.gesture("place", ["piece:B|W", "cell"], "{0}{1}",
                                   "pick a colour, then an empty point")]
        buttons = list(self.words)
        if self.bidding:
            gestures.append(boards.gesture("komi", ["number"], "komi={0}",
                                           "propose the komi (whole or .5 points)"))
            buttons += ["side=vertical", "side=horizontal"]
        return boards.grid("square", self.n, self.n, self.cell_names,
                           {"B": {"label": "black stone", "owner": None},
                            "W": {"label": "white stone", "owner": None}},
                           gestures, buttons)

    @property
    def num_actions(self) -> int:
        return self._num_actions

    def symmetries(self) -> tuple[Symmetry, ...]:
        """The declared turns of the board (``board_symmetries``), each with the colours
        kept and swapped, and the colour swap alone.

        >>> import boardlab
        >>> [s.name for s in boardlab.make("rumbo(size=5)").symmetries()]
        ['swap_colours', 'rotate_180', 'rotate_180+swap_colours']
        """
        n, k = self.n, self.kernel
        turns = square_turns(n)
        order = self.draw_order                          # description cell -> kernel cell
        index = {cell: i for i, cell in enumerate(order)}
        found = []
        for turn in ("identity",) + self.board_symmetries:
            move = turns[turn]                  # a name not listed here is a bug: KeyError
            cells = tuple(row * n + col for row, col in
                          (move(*divmod(i, n)) for i in range(self.points)))
            for swap in (False, True):
                if turn == "identity" and not swap:
                    continue
                actions = list(range(self.num_actions))
                for action in actions[:]:
                    kind, value, colour = k.decode(n, action)
                    if kind == k.PLACE:
                        actions[action] = k.encode(n, kind, order[cells[index[value]]],
                                                   3 - colour if swap else colour)
                name = "+".join(([] if turn == "identity" else [turn]) +
                                (["swap_colours"] if swap else []))
                found.append(Symmetry(name, cells, {"B": "W", "W": "B"} if swap else {},
                                      tuple(actions)))
        return tuple(found)

    @cached_property
    def action_texts(self) -> tuple[str, ...]:
        """The notation of every action (it needs no context in these games)."""
        return tuple(self._text_of(action) for action in range(self.num_actions))

    def _text_of(self, action: int) -> str:
        k, n = self.kernel, self.n
        kind, value, colour = k.decode(n, action)
        if kind == k.PLACE:
            return COLOURS[colour] + point_name(value, n)
        if kind == k.SIDE:
            return f"side={SIDES[value]}"
        if kind == k.KOMI:
            return f"komi={format_komi(value)}"
        return "pass" if kind == k.PASS else "button"   # (legal or not in this configuration)

    def new_initial_state(self, seed: int | None = None) -> TerritoryState:
        raise NotImplementedError          # Carteso's and Rumbo's own

    # SGF -------------------------------------------------------------------------------
    def sgf(self, record: dict) -> str:
        """A record as SGF (FF[4]) text, written with sgfmill: Vertical is Black,
        Horizontal White (territory_sgf.py has the mapping, docs/records.md an example)."""
        from .territory_sgf import write     # (it imports this module)
        return write(self, record)


def parse_setup(position: str, claims: str, n: int):
    """Parse the set-up options into (board values, [(owner, cell)]) or None."""
    if not position and not claims:
        return None
    rows = [r.replace(" ", "") for r in position.split("/")] if position else ["." * n] * n
    if len(rows) != n or any(len(r) != n for r in rows):
        raise OptionError(f"option 'position': expected {n} rows of {n} points "
                          f"separated by '/', top row first")
    board = np.zeros(n * n, dtype=np.int32)
    for i, row in enumerate(rows):
        for col, char in enumerate(row.upper()):
            if char not in COLOURS:
                raise OptionError(f"option 'position': {char!r} is not one of . B W")
            board[(n - 1 - i) * n + col] = COLOURS.index(char)
    marks = []
    for item in filter(None, claims.replace(" ", "").split("+")):
        side = {"v": 0, "h": 1}.get(item[:1].lower())
        if side is None:
            raise OptionError(f"option 'claims': {item!r} must start with V or H, e.g. Va5")
        try:
            cell = parse_point(item[1:], n)
        except NotationError as error:
            raise OptionError(f"option 'claims': {error}") from None
        if board[cell] == 0:
            raise OptionError(f"option 'claims': {item[1:]} is empty, not a stone")
        marks.append((side, cell))
    return board, marks


class Layout(NamedTuple):
    """A territory position's board as a view reads it (:meth:`TerritoryState.claim_layout`)."""

    board: list[int]                   # by cell: 0 empty, 1 B, 2 W
    owners: list[int]                  # by cell: its group's owner side, -1 none (or empty)
    groups: list[tuple[int, list[int]]]   # the claimed groups (owner, cells), by root
    points: tuple[list[str], ...]      # per side: its claimed stones' names, drawing order


class TerritoryState(KernelState):
    """A Carteso or Rumbo position: a kernel buffer plus the pre-game facts."""

    game: TerritoryGame

    def __init__(self, game: TerritoryGame, seed=None):
        super().__init__(game, seed)
        self.kernel = game.kernel
        self.topo = game.topology
        self.buf = np.zeros(self.kernel.buffer_size(game.n), dtype=np.int32)
        self._init_buffer()
        self.komi_half = None if game.bidding else game.komi_half
        self.seat_of_side = (0, 1)
        self.chosen = not game.bidding
        if game.setup is not None:
            self._setup(*game.setup)
        if game.options["turn"] == "horizontal":
            self.buf[self.kernel.M_TURN] = 1

    # Engine hooks -------------------------------------------------------------
    def _init_buffer(self):
        raise NotImplementedError

    def _setup(self, board, marks):
        raise NotImplementedError

    def _legal_play(self) -> list[int]:
        raise NotImplementedError

    def _play_legal(self, action: int) -> bool:
        """Whether a play action is legal now (the kernel's rule)."""
        raise NotImplementedError

    def _play_reason(self, action: int) -> str:
        """Why a play action that is not legal now is illegal."""
        raise NotImplementedError

    def _apply_play(self, action: int) -> None:
        raise NotImplementedError

    def _apply_if_legal(self, action: int) -> bool:
        """In play, the kernel's check and move in one call (``_play_if_legal``)."""
        return self.chosen and self._play_if_legal(action)   # (apply: the game runs)

    def _play_if_legal(self, action: int) -> bool:
        """Make a play action if it is legal now (the kernel's rule) and say whether."""
        return False

    def _over(self) -> bool:
        raise NotImplementedError

    def _bonus(self) -> tuple[int, int]:
        """Extra half points per side (Carteso's button)."""
        return 0, 0

    # Views of the buffer --------------------------------------------------------
    def _arr(self, k):
        return self.kernel.array(self.buf, self.game.n, k)

    @property
    def board(self) -> np.ndarray:
        """Cell values (0 empty, 1 B, 2 W), cell = row * n + col, row 0 at the bottom."""
        return self._arr(self.kernel.A_BOARD)

    def phase(self) -> str:
        if self.resigned is not None or self.agreed_draw:
            return "over"
        if self.komi_half is None:
            return "komi"
        if not self.chosen:
            return "side"
        return "over" if self._over() else "play"

    def side_to_move(self) -> int | None:
        """0 (Vertical) or 1 (Horizontal) in play, else None."""
        return int(self.buf[self.kernel.M_TURN]) if self.phase() == "play" else None

    # The protocol -----------------------------------------------------------------
    def _current_player(self) -> int:
        if not self.chosen:                # the pre-game: first proposes, second picks
            return 0 if self.komi_half is None else 1
        if self._over():
            return TERMINAL
        return self.seat_of_side[self.buf.item(self.kernel.M_TURN)]

    def is_terminal(self) -> bool:
        if self.chosen and self.resigned is None and not self.agreed_draw:
            return self._over()                # in play: the hot path
        return super().is_terminal()

    def legal_actions(self) -> list[int]:
        if self.chosen and self.resigned is None and not self.agreed_draw:
            return [] if self._over() else self._legal_play()      # in play: the hot path
        phase = self.phase()
        if phase == "play":
            return self._legal_play()
        k, n = self.kernel, self.game.n
        if phase == "komi":
            most = k.max_komi_half(n)
            return [k.encode(n, k.KOMI, half, 0) for half in range(-most, most + 1)]
        if phase == "side":
            return [k.encode(n, k.SIDE, side, 0) for side in range(len(SIDES))]
        return []

    def illegal_reason(self, action: int) -> str | None:
        phase, k = self.phase(), self.kernel
        if phase == "play" and self._play_legal(action):
            return None
        kind = k.decode(self.game.n, action)[0]
        if phase == "komi":
            return None if kind == k.KOMI else "the first player must propose the komi (komi=K)"
        if phase == "side":
            return None if kind == k.SIDE else \
                "the second player must choose a side (side=vertical or side=horizontal)"
        if kind in (k.KOMI, k.SIDE):
            return f"the {'komi' if kind == k.KOMI else 'side'} is not chosen during play"
        return self._play_reason(action)

    def _apply(self, action: int) -> None:
        k = self.kernel
        if self.chosen:                    # in play: only play actions are legal
            self._apply_play(action)
            return
        kind, value, _ = k.decode(self.game.n, action)
        if kind == k.KOMI:
            self.komi_half = value
        else:                              # the second player's side
            self.seat_of_side = (1, 0) if value == k.VERTICAL else (0, 1)
            self.chosen = True

    def scores_half(self) -> tuple[int, int]:
        """(Vertical, Horizontal) scores in half points: stones, komi and bonus."""
        k = self.kernel
        bonus = self._bonus()
        return (2 * int(self.buf[k.M_SCORE_V]) + bonus[0],
                2 * int(self.buf[k.M_SCORE_H]) + (self.komi_half or 0) + bonus[1])

    def _play_out(self, seed: int) -> None:
        """Random play to the end in place (the kernel's playout policy; no history)."""
        raise NotImplementedError

    def rollout(self, seed: int, max_turns: int | None = None, policy: str = "random",
                until: int | None = None) -> list[float]:
        del until                   # no horizon (rollout_horizon is None): never given
        self.game.check_playout(policy)
        if self.phase() != "play":
            return super().rollout(seed)
        other = self.clone()
        other._play_out(seed)
        return other.returns()

    def search_kernel(self):
        tables = self._search_tables()
        if tables is None or self.phase() != "play":
            return None
        assert self.komi_half is not None, "the komi is fixed once play begins"
        return (self.kernel, self.buf, tables[0], self.game.n, self.topo.nbr, tables[1],
                int(self.komi_half), self.seat_of_side)

    def _search_tables(self):
        """``(scratch, aux)`` for the kernel's ``search_*`` functions, or None."""
        return None

    def pregame_action(self, seed: int, samples: int = 400) -> int | None:
        """In the komi phase: propose the mean margin of random games (Vertical's lead
        with komi 0), in half points; elsewhere None (search decides)."""
        if self.phase() != "komi":
            return None
        margins = []
        for i in range(samples):
            probe = self.clone()
            probe.komi_half, probe.chosen = 0, True
            probe._play_out(seed + i)
            v, h = probe.scores_half()
            margins.append(v - h)
        k, n = self.kernel, self.game.n
        most = k.max_komi_half(n)
        fair = max(-most, min(most, round(sum(margins) / len(margins))))
        return k.encode(n, k.KOMI, fair, 0)

    def heuristic(self, seat: int) -> float:
        """Claimed points (komi and button included) ahead, scaled to [-1, 1]."""
        if not self.chosen:
            return 0.0
        v, h = self.scores_half()
        side = self.seat_of_side.index(seat)
        margin = (v - h) if side == 0 else (h - v)
        return max(-1.0, min(1.0, margin / (2 * self.game.points)))

    def winner_side(self) -> int | None:
        """0 or 1 at the end if someone won, None for a draw or a running game."""
        if not self.is_terminal() or self.agreed_draw:
            return None
        if self.resigned is not None:
            return 1 - self.seat_of_side.index(self.resigned) if self.chosen else \
                None
        v, h = self.scores_half()
        return None if v == h else (0 if v > h else 1)

    def _returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0, 0.0]
        side = self.winner_side()
        if side is None:
            return [0.0, 0.0]
        result = [-1.0, -1.0]
        result[self.seat_of_side[side]] = 1.0
        return result

    # Notation -----------------------------------------------------------------------
    def _action_text(self, action: int) -> str:
        return self.game.action_texts[action]           # context-free: made once per game

    def action_to_string(self, action: int) -> str:
        texts = self.game.action_texts
        if type(action) is int and 0 <= action < len(texts):    # the common case, fast:
            return texts[action]                                # views name every legal move
        return super().action_to_string(action)

    def actions_to_strings(self, actions: Iterable[int]) -> list[str]:
        texts = self.game.action_texts
        count = len(texts)
        return [texts[a] if type(a) is int and 0 <= a < count else
                self.action_to_string(a) for a in actions]

    def string_to_action(self, text: str) -> int:
        game, k, n = self.game, self.kernel, self.game.n
        if not isinstance(text, str):
            raise NotationError(f"a move must be text, not {text!r}")
        word = text.strip()
        lower = word.lower()
        if lower in game.words:
            return k.encode(n, {"pass": k.PASS, "button": k.BUTTON}[lower], 0, 0)
        if lower.startswith("side="):
            side = lower[5:].strip()
            matches = [i for i, name in enumerate(SIDES) if side and name.startswith(side)]
            if len(matches) != 1:
                raise NotationError(f"{text!r}: the side is vertical or horizontal")
            return k.encode(n, k.SIDE, matches[0], 0)
        match = _KOMI.match(lower)
        if match:
            return self._komi_action(text, float(match.group(1)))
        if word[:1] in "BbWw" and len(word) >= 3:
            return k.encode(n, k.PLACE, parse_point(word[1:], n), COLOURS.index(word[0].upper()))
        extra = "".join(f", {w}" for w in game.words)
        raise NotationError(f"{text!r} is not a move (expected e.g. Bc3, Wa1{extra})")

    def _komi_action(self, text: str, value: float) -> int:
        k, n = self.kernel, self.game.n
        half, most = value * 2, k.max_komi_half(n)
        if not half.is_integer():
            raise NotationError(f"{text!r}: komi must be a multiple of 0.5")
        if not -most <= half <= most:
            raise NotationError(f"{text!r}: komi must be between {format_komi(-most)} and "
                                f"{format_komi(most)}")
        return k.encode(n, k.KOMI, int(half), 0)

    def _history_text(self) -> list[str]:
        """Every move so far (this notation needs no context, so no replay)."""
        return self.actions_to_strings([action for _, action in self.history])

    def _history_text_after(self, start: int) -> list[str]:
        """The moves from ``start`` on: each one's notation is its own."""
        return self.actions_to_strings([action for _, action in self.history[start:]])

    # Copies, views, summaries ------------------------------------------------------

    def claim_layout(self) -> Layout:
        """The board, its claims and the points they give each side (:class:`Layout`),
        from one walk of the union-find's parents in the drawing's order (each stone's
        chain followed to its root, as the kernel's ``group_root`` without its path
        halving). Found once for the whole of a :meth:`view`."""
        found = self.__dict__.get("_view_layout")
        if found is not None:
            return found
        k = self.kernel
        board = self.board.tolist()
        parent = self._arr(k.A_PARENT).tolist()
        owners = self._arr(k.A_OWNER).tolist()
        names = self.game.point_names
        owner_map = [-1] * len(board)
        groups: dict[int, list[int]] = {}
        points: tuple[list[str], ...] = tuple([] for _ in SIDES)
        for cell in self.game.draw_order:
            if board[cell]:
                root = cell
                while parent[root] != root:
                    root = parent[root]
                owner = owner_map[cell] = owners[root]
                if owner >= 0:
                    groups.setdefault(root, []).append(cell)
                    points[owner].append(names[cell])
        claimed = [(owners[root], cells) for root, cells in sorted(groups.items())]
        return Layout(board, owner_map, claimed, points)

    def view(self, seat: int | None, texts: bool = True) -> dict:
        """:meth:`State.view`, with the board's layout (:meth:`claim_layout`) found once
        for the claimed groups and the owner map it reads (the board block and the
        summary)."""
        self._view_layout: Layout | None = self.claim_layout()
        try:
            return super().view(seat, texts)
        finally:
            self._view_layout = None

    def claimed_groups(self) -> list[dict]:
        """Every claimed group: its owner and its stones (sorted point names)."""
        names = self.game.point_names
        return [{"owner": SIDES[owner], "stones": sorted([names[cell] for cell in cells])}
                for owner, cells in self.claim_layout().groups]

    def claim_owner_map(self) -> np.ndarray:
        """Per cell: -1 unclaimed or empty, else the owner side of its group."""
        return np.array(self.claim_layout().owners, dtype=np.int32)

    def board_rows(self) -> list[str]:
        n = self.game.n
        text = bytes(self.claim_layout().board).translate(_ROW_TEXT).decode()
        return [text[row * n:row * n + n] for row in range(n - 1, -1, -1)]

    def summary(self) -> dict:
        return self._summary(legal=True)

    def _summary(self, legal: bool) -> dict:
        """The summary; without its ``legal`` list when ``legal`` is false (a view
        gives the seat's own legal moves, and status lines need none)."""
        status = self._status()
        return {
            "game": self.game.name, "spec": self.game.spec, "size": self.game.n,
            "board": self.board_rows(),
            **{key: status[key] for key in ("to_move", "phase", "terminal", "winner", "result",
                                            "scores", "komi", "seats")},
            "claimed": self.claimed_groups(),
            **({"legal": sorted(self.legal_moves())} if legal else {}),
            **{key: status[key] for key in ("moves", "last_move", "resigned", "returns")},
            **self._extra_summary(),
        }

    def _status(self) -> dict:
        """The summary's cheap keys (no board, no groups): all that status lines need."""
        v, h = self.scores_half()
        phase = self.phase()
        side = self.side_to_move()
        winner = self.winner_side()
        return {
            "to_move": SIDES[side] if side is not None else
            (None if phase == "over" else self.game.seat_names[self.current_player()]),
            "phase": phase, "terminal": phase == "over",
            "winner": SIDES[winner] if winner is not None else None,
            "result": None if phase != "over" else SIDES[winner] if winner is not None else
            "draw" if self.resigned is None else "resigned",
            "scores": {"vertical": v / 2, "horizontal": h / 2},
            "komi": None if self.komi_half is None else self.komi_half / 2,
            "seats": {name: SIDES[self.seat_of_side.index(i)] if self.chosen else None
                      for i, name in enumerate(self.game.seat_names)},
            "moves": len(self.history),
            "last_move": None if not self.history else TIME_TEXT
            if self.lost_on_time and self.history[-1].action == RESIGN
            else self.action_to_string(self.history[-1].action),
            "resigned": None if self.resigned is None else self.game.seat_names[self.resigned],
            "returns": self.returns() if phase == "over" else None,
            **self._extra_summary(),
        }

    def _extra_summary(self) -> dict:
        return {}

    def _view(self, seat: int | None) -> dict:
        """Perfect information: every seat and spectators see everything (the envelope
        gives the seat's legal moves)."""
        return self._summary(legal=False)

    def scores(self) -> dict:
        v, h = self.scores_half()
        return {"vertical": v / 2, "horizontal": h / 2}

    def board_view(self, seat: int | None) -> dict:
        """Stones by cell; claimed stones marked with their owner; the last placement; the
        points each side's score counts (``score``)."""
        n = self.game.n
        layout = self.claim_layout()
        cells = [_STONES[value] for value in self.game.in_draw_order(layout.board)]
        points = layout.points
        marks = {f"owner:{side}": points[s] for s, side in enumerate(SIDES)}
        marks["last"] = []
        if self.history and self.history[-1].action >= 0:
            kind, cell, _ = self.kernel.decode(n, self.history[-1].action)
            if kind == self.kernel.PLACE:
                marks["last"] = [point_name(cell, n)]
        return {"kind": "square", "cells": cells, "marks": marks,
                "score": {"points": {side: list(points[s])
                                     for s, side in enumerate(SIDES)}}}

    def score_block(self, owners: list[int]) -> dict:
        """Who owns which points now, as the score counts them (the stones of each side's
        claimed groups, ``owners``: claim_owner_map): the board block's ``score``, which a
        page may overlay (the scores with komi are the view's ``scores``; lists only, so
        that the networks' encoding of a view is what it was)."""
        points = self._owned_points(owners)
        return {"points": {side: points[s] for s, side in enumerate(SIDES)}}

    def _owned_points(self, owners: list[int]) -> tuple[list[str], ...]:
        """Per side, the names of the cells ``owners`` gives it, in the drawing's order
        (one pass over the board)."""
        names, order = self.game.cell_names, self.game.draw_order
        points: tuple[list[str], ...] = tuple([] for _ in SIDES)
        for name, cell in zip(names, order):
            side = owners[cell]
            if 0 <= side < len(points):
                points[side].append(name)
        return points

    # Text rendering (for terminals) --------------------------------------------
    def render(self, colour: bool = False, seat: int | None = None) -> str:
        """The board with coordinates; a claimed stone shows its owner's marker.

        ``|`` after a stone: claimed by Vertical; ``-``: by Horizontal.
        """
        n = self.game.n
        owners = self.claim_owner_map()
        header = "    " + "".join(f"{LETTERS[c]:<3}" for c in range(n))
        lines = [header]
        for row in range(n - 1, -1, -1):
            cells = []
            for col in range(n):
                cell = row * n + col
                value, owner = int(self.board[cell]), int(owners[cell])
                mark = " |-"[owner + 1]
                text = COLOURS[value] + mark
                if colour and value:
                    text = _paint(text, value, owner)
                cells.append(text + " ")
            lines.append(f"{row + 1:>2}  " + "".join(cells) + f" {row + 1}")
        lines.append(header)
        return "\n".join(lines)

    def status_lines(self, seat: int | None = None, view: dict | None = None) -> list[str]:
        """Scores, komi, whose turn and the last move, for a terminal; read from ``view``
        when the caller has it (its own keys are :meth:`_status`'s, built once)."""
        info = view if view is not None and "last_move" in view else self._status()
        scores = info["scores"]
        lines = [f"Vertical {scores['vertical']:g}  -  Horizontal {scores['horizontal']:g}"
                 f"  (komi {'?' if self.komi_half is None else format_komi(self.komi_half)}"
                 + (f", button {info['button']}" if info.get("button") else "") + ")"]
        if info["last_move"]:
            lines.append(f"last move: {info['last_move']}")
        if info["terminal"]:
            winner = info["winner"]         # (a view's ``result`` is the envelope's block)
            text = f"{winner.capitalize()} wins" if winner is not None else \
                "a draw" if info["resigned"] is None else "no winner"
            if info["resigned"]:
                text += f" ({info['resigned']} " \
                    f"{'lost on time' if self.lost_on_time else 'resigned'})"
            lines.append(f"game over: {text}")
        else:
            lines.append(f"to move: {info['to_move']}")
        return lines


_PAINT = {(1, -1): "1;30;47", (2, -1): "1;37;40", (1, 0): "1;30;46", (2, 0): "1;37;44",
          (1, 1): "1;30;43", (2, 1): "1;37;41"}


def _paint(text: str, value: int, owner: int) -> str:
    return f"\x1b[{_PAINT[(value, owner)]}m{text}\x1b[0m"


