"""The game protocol: a Game holds immutable facts, a State is one position.

Actions are integers in ``range(game.num_actions)``; each has one text form
(the notation) given by :meth:`State.action_to_string`. Seats are numbered
from 0. ``current_player()`` is a seat, :data:`CHANCE`, :data:`TERMINAL` or
:data:`SIMULTANEOUS`; in the last case ``acting_seats()`` lists the seats
that still have to commit an action (``apply(action, seat=...)``). The
history is a list of :class:`Move` pairs ``(seat, action)``.

Everything a front end, the arena or an adapter needs to know about a game is
a declared fact on :class:`Game` with a default here (seats and teams, utility
bounds, simultaneous moves, hidden information, the chance model, komi, the
board description, a rules summary and a notation guide): nothing outside a
game probes for features.
"""
from __future__ import annotations

import random
from collections.abc import Iterable
from functools import cached_property
from typing import TYPE_CHECKING, Any, NamedTuple

from .errors import BoardlabError, IllegalMoveError, NotationError, OptionError
from .options import FrozenOptions, Option, format_spec, resolve

if TYPE_CHECKING:
    from .view import View

CHANCE = -1
TERMINAL = -2
RESIGN = -3  # history entry of a resignation (never in legal_actions)
RESIGN_TEXT, TIME_TEXT = "resign", "time"   # a resignation in the history: by choice, on time
SIMULTANEOUS = -4  # current_player() when several seats act at once (see acting_seats)


class Move(NamedTuple):
    """One history entry: ``seat`` (or CHANCE) did ``action`` (or RESIGN)."""

    seat: int
    action: int


_move = tuple.__new__     # Move(seat, action) without NamedTuple's Python-level __new__
#                           (the hot path of apply: about half the cost of a Move)


class KomiFacts(NamedTuple):
    """Where a game with komi keeps it, for the fair-komi finder.

    ``option``: the option that sets the komi (in points, multiples of 0.5);
    ``receiver``: the seat name credited with it once ``fixed_options`` apply
    (a game that bids for komi may name its seats otherwise while bidding); ``points``: the largest
    score margin a game can end with (bounds the search); ``fixed_options``:
    options the finder sets so that the komi is fixed (no bidding).
    """

    option: str
    receiver: str
    points: int
    fixed_options: tuple[tuple[str, object], ...] = ()


class Symmetry(NamedTuple):
    """A change of the board under which a game's rules do not change.

    Applied to a position it gives another position (its image): the piece of the
    board description's cell ``i`` stands on cell ``cells[i]`` there, with the code
    ``pieces.get(code, code)``, and a mark of cell ``i`` marks ``cells[i]``; action ``a``
    becomes ``actions[a]``. Every seat's view of the image is that of the position so
    changed, its legal actions are the images of the position's, each action leads to
    the image of where it led, and every game ends with the same returns. Training uses
    it to learn from the images of every position played (``boardlab train --augment``);
    ``tests/test_symmetries.py`` plays random games side by side to check each
    declaration.
    """

    name: str
    cells: tuple[int, ...]
    pieces: dict[str, str]
    actions: tuple[int, ...]


class VectorKernel(NamedTuple):
    """How a game steps many copies of itself in one compiled call (``boardlab.vector``).

    Each copy is one row (``initial``'s length, its type or ``row_dtype``: the kernel's
    buffer and whatever the game keeps beside it, a move count or the last move, for its
    observations).
    ``functions`` is a module of six compiled functions, each taking the row and
    ``tables`` (the game's own tuple of arrays) first:

    - ``vec_reset(row, tables, initial, seed)``: a new game (``seed``: its chance, as
      ``new_initial_state(seed)`` takes it) written into ``row``;
    - ``vec_legal(row, tables, out)``: the legal actions of the seat to act written to
      ``out`` (as many entries as the game has actions), returning how many;
    - ``vec_play(row, tables, action)``: a legal action of the seat to act;
    - ``vec_player(row, tables)``: the seat to act, or -1 when the game is over;
    - ``vec_returns(row, tables, out)``: the returns per seat (float) at the end;
    - ``vec_observe(row, tables, seat, obs, planes_at, cells_at, scalars_at)``: the
      game's part of the observation of ``seat`` (only what ``seat``'s view shows), into
      the zeroed float32 vector ``obs``: a 1 at ``planes_at[k] + cells_at[cell]`` for a
      cell in plane ``k`` (the encoding has every plane the kernel names, and no other),
      the value of scalar ``k`` at ``scalars_at[k]`` (skipped where < 0: a number the
      encoding does not have in this configuration).

    Three more are optional, for speed (``boardlab.vector.loop`` writes afresh where a
    module has none, or where one returns so):

    - ``vec_observe_step(row, tables, seat, obs, planes_at, cells_at, scalars_at)``:
      the observation after a move that did not end the game, brought up to date in
      ``obs`` (which holds the last one written from this row, its header already
      moved on); False where it cannot;
    - ``vec_mask_step(row, tables, action, mask, count)``: the same for the legal-action
      mask after ``action`` (``mask`` holds the ``count`` legal actions before it);
      the new count, or -1 where it cannot;
    - ``vec_sample(row, tables, mask, count, s)``: a uniformly random legal action
      drawn with the generator state ``s`` (``kernels.rng_next``) where the row's own
      lists make that cheaper than counting through the mask: ``(action, s)``, the
      action -1 where it cannot.

    ``planes`` names the planes in the kernel's order (piece codes and marks of the
    board block, as :class:`~boardlab.nn.encoding.ViewEncoder` names them), ``cells``
    gives the board description's index of each kernel cell, ``scalars`` the view paths
    of the scalars in the kernel's order and ``zeros`` the view paths that the encoding
    reads as 0 in every position (text, lists, or None). The vector environment checks
    that these cover the encoding and the tests that it agrees with ``view()``.

    For a network, the module may also have ``state_row(state, row)`` (the row of a
    state in play, in Python: ``nn.kernel_observe``) and ``search_row(buf, moves, last,
    row)`` (compiled: the row of the compiled search's buffer ``buf`` after ``moves``
    moves, the last ``last``, so that a network is asked inside the compiled search,
    ``agents.kernel_eval_tree``).
    """

    functions: Any
    tables: tuple[Any, ...]
    initial: Any
    planes: tuple[str, ...]
    cells: tuple[int, ...]
    scalars: tuple[tuple[str, ...], ...]
    zeros: tuple[tuple[str, ...], ...] = ()
    #: the vector environment's row type where narrower than ``initial``'s (None: the
    #: same): every value the game writes into its row fits it (int16 halves the bytes
    #: a step waits on: a thousand rows are past the core's cache)
    row_dtype: Any = None


class Game:
    """Immutable facts about one configured game (options resolved)."""

    name: str = ""
    title: str = ""
    description: str = ""
    declared_options: tuple[Option, ...] = ()

    # Declared facts (class-level defaults; games override) ------------------
    #: no seat ever lacks information another seat or the game has
    perfect_information: bool = True
    #: several seats can have to act at once (current_player() == SIMULTANEOUS)
    simultaneous: bool = False
    #: "none"; "seeded": chance lives in the state, drawn from its seed (shuffles),
    #: never as CHANCE nodes; "explicit": CHANCE nodes with chance_outcomes()
    chance: str = "none"
    #: determinize(view, seed) samples a full state consistent with any view
    can_sample: bool = False
    #: a sampled state can redeal(viewer, seed) the hidden part cheaply, in place
    cheap_resample: bool = False
    #: State.private_key(seat) tells apart what each seat alone holds (a hand)
    private_hands: bool = False
    #: states list their legal actions in an array and move on in one step for searchers
    #: (State.search_listed, State.search_step); seats take turns, no chance nodes
    listed_search: bool = False
    #: (lowest, highest) return a seat can get
    utility_bounds: tuple[float, float] = (-1.0, 1.0)
    #: the simulations a move of ``mcts(level=1..5)`` (and ``ismcts``), spaced so that each
    #: level beats the one below about 75% of the time (docs/agents.md, "Levels")
    level_budgets: tuple[int, ...] = (50, 120, 250, 500, 1000)
    #: the exploration constant of UCB that ``mcts`` and ``ismcts`` use unless given one
    #: (``c``), as measured for the game (docs/agents.md, "The exploration constant")
    exploration: float = 1.4
    #: the playout policies ``State.rollout`` can play (``random``, uniformly random legal
    #: actions, in every game; a game may add its own), and the one ``mcts`` and ``ismcts``
    #: use unless given one (``playout``), as measured (docs/agents.md, "Playouts")
    playouts: tuple[str, ...] = ("random",)
    playout: str = "random"
    #: how many more turns the searches' rollouts play before the position is valued
    #: (``State.rollout``'s ``max_turns``), unless given one (``rollout_turns``); None:
    #: to the end (a game whose play always ends soon on its own)
    rollout_turns: int | None = None
    #: plain-text rules summary and notation guide (terminal ``help``, the web app)
    rules_summary: str = ""
    notation_guide: str = ""
    #: the configurations ``boardlab bench`` measures by default
    bench_specs: tuple[str, ...] = ()
    #: the configurations the conformance suite and `boardlab soak reliability` cover
    #: (none declared: the game with its defaults)
    conformance_specs: tuple[str, ...] = ()
    #: configurations with an analysis set-up (a position given as options), one for each
    #: kind of set-up the game has: the warm-up plays them too (``boardlab.warmup``)
    setup_examples: tuple[str, ...] = ()
    #: the formats a finished game's record can be downloaded in ("json" always; a game
    #: that lists "sgf" implements :meth:`sgf`)
    record_formats: tuple[str, ...] = ("json",)
    #: the options that name the game's rating pool beside its name (``carteso-9``: size);
    #: a rated game keeps every other option at its default
    rating_options: tuple[str, ...] = ()
    #: the options a rated game may set without leaving its pool (Cartagena's player count:
    #: one pool for 2 to 5 players, as Board Game Arena rates it)
    rating_free_options: tuple[str, ...] = ()
    #: ``view(seat)`` differs from ``view(None)`` only in the envelope's ``seat`` and, for a
    #: seat that acts, its ``legal`` moves: :meth:`State.views` then builds the rest once
    #: for all seats (a server's update to every player); the conformance suite checks it
    shared_views: bool = False

    def __init__(self, **options: Any) -> None:
        self.options = resolve(self.declared_options, options, self.name)
        self.given = frozenset(options)  # the options set explicitly
        self.validate()                  # may normalise options (aliases)
        self.options = FrozenOptions(self.options)
        self.__dict__.pop("spec", None)   # a spec asked for while validating is made again

    def validate(self) -> None:
        """Check combinations of options; raise OptionError. Hook for subclasses."""

    def check_playout(self, policy: str) -> None:
        """Raise ``OptionError`` unless the game offers the playout ``policy``
        (``State.rollout``; the searches' ``playout`` option)."""
        if policy not in self.playouts:
            raise OptionError(f"playout {policy!r} is not one {self.name} offers "
                              f"(it offers: {', '.join(self.playouts)})")

    @cached_property
    def spec(self) -> str:
        """The canonical spec string, e.g. ``carteso(size=9)`` (options are frozen:
        made once)."""
        return format_spec(self.name, self.options, self.declared_options)

    # Facts every game declares -------------------------------------------
    @property
    def num_seats(self) -> int:
        return len(self.seat_names)

    @property
    def seat_names(self) -> tuple[str, ...]:
        raise NotImplementedError

    @property
    def num_actions(self) -> int:
        """Size of the fixed action space."""
        raise NotImplementedError

    @property
    def max_game_length(self) -> int:
        """An upper bound on the number of actions in any game."""
        raise NotImplementedError

    def new_initial_state(self, seed: int | None = None) -> State:
        raise NotImplementedError

    @property
    def public_spec(self) -> str:
        """The spec as every seat may see it (games with secret set-ups hide them)."""
        return self.spec

    # Seats and teams ----------------------------------------------------------
    @property
    def teams(self) -> tuple[tuple[int, ...], ...]:
        """The seats of each team (side); by default every seat plays for itself."""
        return tuple((seat,) for seat in range(self.num_seats))

    @property
    def team_names(self) -> tuple[str, ...]:
        """One name per team; a one-seat team is named after its seat."""
        return tuple(self.seat_names[t[0]] if len(t) == 1 else f"team-{i + 1}"
                     for i, t in enumerate(self.teams))

    def team_of(self, seat: int) -> int:
        """The index in ``teams`` of the team ``seat`` plays for."""
        for index, members in enumerate(self.teams):
            if seat in members:
                return index
        raise BoardlabError(f"{self.spec} has no seat {seat}")

    @property
    def agreed_draws(self) -> bool:
        """Whether the sides may agree a draw (:meth:`State.agree_draw`): exactly two
        sides, and a return of 0 for everybody within the utility bounds."""
        low, high = self.utility_bounds
        return len(self.teams) == 2 and low <= 0 <= high

    def sgf(self, record: dict[str, Any]) -> str:
        """The SGF text of a finished game's record (games listing "sgf" in
        ``record_formats``)."""
        raise BoardlabError(f"{self.spec} has no SGF form (its record formats: "
                            f"{', '.join(self.record_formats)})")

    @property
    def komi(self) -> KomiFacts | None:
        """Komi facts for the fair-komi finder, or None for a game without komi."""
        return None

    def symmetries(self) -> tuple[Symmetry, ...]:
        """The changes of the board other than the identity that leave the rules as
        they are (see :class:`Symmetry`); none unless a game declares them."""
        return ()

    # What a user interface draws from -----------------------------------------
    def board_description(self) -> dict[str, Any]:
        """How to draw this game's board without knowing the game (see core/board.py)."""
        raise NotImplementedError

    def facts(self) -> dict[str, Any]:
        """Every declared fact as plain JSON data (for front ends and adapters)."""
        return {
            "game": self.name, "title": self.title or self.name, "spec": self.public_spec,
            "seats": list(self.seat_names),
            "teams": [{"name": name, "seats": [self.seat_names[s] for s in members]}
                      for name, members in zip(self.team_names, self.teams)],
            "utility_bounds": list(self.utility_bounds),
            "perfect_information": self.perfect_information,
            "simultaneous": self.simultaneous, "chance": self.chance,
            "can_sample": self.can_sample or self.perfect_information,
            "komi": None if self.komi is None else dict(self.komi._asdict(),
                                                        fixed_options=dict(self.komi.fixed_options)),
            "num_actions": self.num_actions, "max_game_length": self.max_game_length,
            "board": self.board_description(),
            "rules": self.rules_summary, "notation": self.notation_guide,
            "record_formats": list(self.record_formats), "agreed_draws": self.agreed_draws,
        }

    # Sampling hidden information ----------------------------------------------
    def determinize(self, view: View, seed: int) -> State:
        """A full state consistent with ``view`` (for search).

        With perfect information this is exact: the view's history replayed.
        Games with hidden information that declare ``can_sample`` override it.
        """
        if not self.perfect_information:
            raise BoardlabError(f"{self.spec}: cannot sample a state consistent with a view "
                                f"(this game hides information and declares no sampler)")
        state = self.new_initial_state(seed=0)
        for text in view["history"]:
            state.play(text)
        return state

    def vector_kernel(self) -> VectorKernel | None:
        """The compiled steps of many copies of this configuration at once
        (:class:`VectorKernel`, for ``boardlab.vector``), or None where the game offers
        none: only configurations in which the seat to act sees everything it needs
        (nothing simultaneous, no pre-game phase played in Python)."""
        return None

    # Benchmarks -------------------------------------------------------------------
    def bench_playouts(self, count: int, seed: int) -> int:
        """Play ``count`` random games through the fastest path; return the moves made."""
        moves = 0
        for i in range(count):
            state = self.new_initial_state(seed=seed + i)
            before = len(state.history)
            state = state.played_out(seed + i)
            moves += len(state.history) - before
        return moves

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.spec}>"

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self.options == other.options

    def __hash__(self) -> int:
        return hash((self.name, self.spec))


class State:
    """A position of a game. Mutable: :meth:`apply` changes it in place."""

    #: the sides agreed a draw (:meth:`agree_draw`): the game is over, drawn
    agreed_draw = False
    #: the resignation was a loss on time (``resign(..., on_time=True)``): the history's
    #: last entry reads ``time`` (not ``resign``) and the end reason is "time"
    lost_on_time = False

    def __init__(self, game: Game, seed: int | None = None):
        self.game = game
        self.seed = seed          # the seed of the game's chance (None: no chance)
        self.history: list[Move] = []
        self.resigned: int | None = None
        self.resign_named = False     # a resignation by a seat that was not the only one acting

    # To be provided by each game -----------------------------------------
    def _current_player(self) -> int:
        raise NotImplementedError

    def _returns(self) -> list[float]:
        raise NotImplementedError

    def legal_actions(self) -> list[int]:
        raise NotImplementedError

    def _apply(self, action: int) -> None:
        """Apply an action already known to be legal."""
        raise NotImplementedError

    def _apply_if_legal(self, action: int) -> bool:
        """Apply ``action`` (in range, of the one seat to act) if it is legal, in one
        step, and say whether it did; False changes nothing and leaves :meth:`apply` to
        check the move and say why not. A game whose kernel checks and plays in one
        compiled call overrides it: the hot path of :meth:`apply` (no rule of its own)."""
        return False

    def illegal_reason(self, action: int) -> str | None:
        """Why ``action`` is illegal here, or None when it is legal."""
        return None if action in self.legal_actions() else "not a legal move here"

    def pick_reason(self, seat: int, picks: list[tuple[str, str]]) -> str | None:
        """Why the clicks ``[(kind, value), ...]`` of one gesture (see core/board.py; the
        last one new) of ``seat`` begin no legal move now, or None when some legal move
        begins with them: the reasons :meth:`illegal_reason` gives for the moves they
        could still make (core/picks.py). A game may say it better."""
        from .picks import pick_reason
        return pick_reason(self, seat, picks)

    def _action_text(self, action: int) -> str:
        """The notation of an action in range (the game's part of action_to_string)."""
        raise NotImplementedError

    def action_to_string(self, action: int) -> str:
        """The notation of ``action`` here; ``resign`` for RESIGN.

        Raises NotationError for a number outside the action space.
        """
        if action == RESIGN:
            return "resign"
        if isinstance(action, bool) or not isinstance(action, int) or \
                not 0 <= action < self.game.num_actions:
            raise NotationError(f"{action!r} is not an action of {self.game.spec}")
        return self._action_text(action)

    def actions_to_strings(self, actions: Iterable[int]) -> list[str]:
        """The notation of each of ``actions`` here (a view's legal moves); a game whose
        notation needs no context looks them up at once."""
        return [self.action_to_string(action) for action in actions]

    def string_to_action(self, text: str) -> int:
        """Parse a move in the notation; raise NotationError if malformed."""
        raise NotImplementedError

    def clone(self) -> State:
        raise NotImplementedError

    def view(self, seat: int | None, texts: bool = True) -> dict[str, Any]:
        """What ``seat`` may know (``None``: a spectator), as plain JSON data.

        The envelope every game shares (see core/view.py) plus the game's own keys.
        ``texts=False`` leaves the two lists of notation (``legal`` and ``history``)
        empty, for a program that reads only numbers (a network's input): writing
        them is about a quarter of a view's cost.
        """
        from .results import summary
        from .view import envelope
        if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int)
                                 or not 0 <= seat < self.game.num_seats):
            raise BoardlabError(f"{self.game.spec} has no seat {seat!r}")
        own = self._view(seat)
        shared = envelope(self, seat, texts)
        if "to_move" in own:               # the game names the mover its own way (a side)
            shared["to_move"] = own["to_move"]
        if self.agreed_draw:               # whatever the game's own rules would say
            result = {"winners": [], "draw": True, "returns": self.returns(),
                      "scores": self.scores(), "reason": "agreement"}
            shared.update(to_move=None, result={**result,
                                                "summary": summary(self.game, result)})
        return {**shared, **{k: v for k, v in own.items() if k not in shared}}

    def views(self, seats: Iterable[int | None]) -> dict[int | None, dict[str, Any]]:
        """``view(seat)`` for each of ``seats``, equal to asking one by one. A game that
        declares ``shared_views`` has its view built once and each seat's copy given its
        ``seat`` and legal moves; the copies share their nested data (read them only).
        """
        seats = list(dict.fromkeys(seats))
        if not self.game.shared_views or len(seats) < 2:
            return {seat: self.view(seat) for seat in seats}
        public = self.view(None)
        acting = [] if public["terminal"] else self.acting_seats()
        found: dict[int | None, dict[str, Any]] = {}
        for seat in seats:
            if seat is None:
                found[seat] = public
                continue
            if isinstance(seat, bool) or not isinstance(seat, int) or \
                    not 0 <= seat < self.game.num_seats:
                raise BoardlabError(f"{self.game.spec} has no seat {seat!r}")
            legal = self.legal_actions_for(seat) if seat in acting else []
            found[seat] = {**public, "seat": seat,
                           "legal": self.actions_to_strings(legal),
                           "legal_actions": list(legal)}
        return found

    def _view(self, seat: int | None) -> dict[str, Any]:
        """The game's own keys of ``view(seat)`` (nothing hidden from ``seat``)."""
        return {}

    def board_view(self, seat: int | None) -> dict[str, Any]:
        """The ``board`` block of ``view(seat)``, in the shape the description declares."""
        raise NotImplementedError

    def visible_history(self, seat: int | None) -> list[str]:
        """The history in notation as ``seat`` may see it (games hide secret picks)."""
        return self.history_text()

    def scores(self) -> dict[str, Any] | None:
        """Scores by seat or team name, when the game keeps a score."""
        return None

    def winners(self) -> list[int]:
        """The seats that won (all members of a winning team); empty while running or drawn."""
        if not self.is_terminal():
            return []
        returns = self.returns()
        if self.agreed_draw:
            return []
        best = max(returns)
        if best <= min(returns):
            return []
        return [seat for seat, value in enumerate(returns) if value == best]

    def end_reason(self) -> str | None:
        """Why the game ended (None while it runs)."""
        if not self.is_terminal():
            return None
        if self.agreed_draw:
            return "agreement"
        if self.resigned is not None:
            return "time" if self.lost_on_time else "resignation"
        return "the rules"

    def undo_floor(self) -> int:
        """The shortest history an undo may go back to: never before a reveal of
        hidden information or a draw of cards. By default: anywhere with perfect
        information and no chance, nowhere otherwise."""
        if self.game.perfect_information and self.game.chance == "none":
            return 0
        return len(self.history)

    # Presentation (terminal) ---------------------------------------------------
    def render(self, colour: bool = False, seat: int | None = None) -> str:
        """The position as text for a terminal, as ``seat`` may see it."""
        return str(self)

    def status_lines(self, seat: int | None = None,
                     view: dict[str, Any] | None = None) -> list[str]:
        """Lines under the board: scores, whose turn, the last move, the result.

        ``view``: ``self.view(seat)`` when the caller has it already (a server sends
        both), so that a game whose lines read its view does not build it twice.
        """
        return []

    def announcements(self, before: int) -> list[str]:
        """What a front end should announce about the entries after ``history[before]``
        (collisions in simultaneous rounds, for instance); public facts only."""
        return []

    # Search helpers --------------------------------------------------------------
    def pregame_action(self, seed: int) -> int | None:
        """The game's own choice in a pre-game phase it knows how to play (a komi bid)."""
        return None

    def private_key(self, seat: int) -> bytes:
        """What ``seat`` alone holds (games that declare ``private_hands``)."""
        return b""

    def redeal(self, viewer: int | None, seed: int) -> None:
        """Deal again what ``viewer`` cannot see (games that declare ``cheap_resample``)."""
        raise BoardlabError(f"{self.game.spec} cannot redeal")

    def search_listed(self) -> tuple[int, int, Any]:
        """``(current_player(), count, array)``: the legal actions are ``array[:count]``,
        an array of the state's own that the next :meth:`search_step` rewrites (games
        that declare ``listed_search``)."""
        raise BoardlabError(f"{self.game.spec} does not list its actions for search")

    def search_step(self, action: int, player: int) -> tuple[int, int]:
        """``apply_unchecked(action, None, player)`` for one of the listed actions, then
        :meth:`search_listed`'s player and count (games that declare ``listed_search``)."""
        raise BoardlabError(f"{self.game.spec} does not list its actions for search")

    def search_kernel(self) -> tuple[Any, ...] | None:
        """The compiled search's view of this position (``agents.kernel_tree``), or None
        where the game offers none or it does not apply here (a pre-game phase):
        ``(kernel module, buffer, scratch, n, nbr, aux, komi in half points, the seat
        of each side)``, the kernel's ``search_*`` functions taking the middle five."""
        return None

    def played_out(self, seed: int) -> State:
        """A copy of this state played to the end at random."""
        rng, state = random.Random(seed), self.clone()
        while not state.is_terminal():
            if state.is_chance():
                state.apply(state.sample_chance(rng))
                continue
            seat = rng.choice(state.acting_seats())
            state.apply(rng.choice(state.legal_actions_for(seat)), seat=seat)
        return state

    def heuristic(self, seat: int) -> float:
        """A quick estimate in [-1, 1] of how well ``seat`` stands (for greedy play)."""
        return 0.0

    def rollout(self, seed: int, max_turns: int | None = None,
                policy: str = "random", until: int | None = None) -> list[float]:
        """Returns per seat after random play from here to the end (for search).

        Games with a compiled kernel override this with a fast playout, and may
        offer other playout ``policy``s than ``random`` (``Game.playouts``). The
        state itself is not changed. ``until`` is the turn :meth:`rollout_horizon`
        named; a game whose horizon is None (this one) is never given one.
        """
        del until
        self.game.check_playout(policy)
        return self.played_out(seed).returns()

    def rollout_horizon(self, turns: int) -> int | None:
        """Where the rollouts of a search rooted here should stop, when a game wants
        them all to stop at one turn (``rollout``'s ``until``): None (the default),
        each rollout counts its ``max_turns`` from its own start."""
        del turns
        return None

    def played_to_horizon(self, seed: int, until: int, policy: str = "random") -> State:
        """The position a rollout with ``until`` (a :meth:`rollout_horizon`) stops at: a
        copy played on by ``policy`` to the end or to the horizon, where a network may
        value it instead of the rollout's own estimate (``mcts(net_at=horizon)``). Only
        games whose rollouts stop at a horizon offer it."""
        raise NotImplementedError(f"{self.game.name}: rollouts play to the end here")

    def summary(self) -> dict[str, Any]:
        """A JSON-ready description of the position (the ``replay`` output)."""
        raise NotImplementedError

    # Chance (games with explicit chance moves) ----------------------------
    def chance_outcomes(self) -> list[tuple[int, float]]:
        """At a CHANCE node: each outcome (an action) with its probability.

        Uniform over ``legal_actions()`` unless a game overrides it. The four
        games here keep their chance inside the state (a seeded pile) and
        never stop at a CHANCE node; searchers and the runner still handle one.
        """
        actions = self.legal_actions()
        return [(action, 1.0 / len(actions)) for action in actions]

    def sample_chance(self, rng: random.Random) -> int:
        """One outcome of this CHANCE node, drawn with ``rng`` by its probability."""
        outcomes = self.chance_outcomes()
        return rng.choices([a for a, _ in outcomes], weights=[p for _, p in outcomes])[0]

    # Simultaneous moves (games that have them override these) -------------
    def _acting_seats(self) -> list[int]:
        return []

    def _legal_for(self, seat: int) -> list[int]:
        return []

    def _commit_reason(self, seat: int, action: int) -> str | None:
        return None if action in self._legal_for(seat) else "not a legal move here"

    def _commit(self, seat: int, action: int) -> None:
        raise NotImplementedError

    def acting_seats(self) -> list[int]:
        """The seats that may act now (one, several at once, or none)."""
        player = self.current_player()
        if player == SIMULTANEOUS:
            return self._acting_seats()
        return [player] if player >= 0 else []

    def legal_actions_for(self, seat: int) -> list[int]:
        """The legal actions of ``seat`` now (empty if it does not act)."""
        if self.current_player() == SIMULTANEOUS:
            return self._legal_for(seat) if seat in self._acting_seats() else []
        return self.legal_actions() if seat == self.current_player() else []

    # Shared behaviour -------------------------------------------------------
    def current_player(self) -> int:
        """The seat to act, CHANCE, or TERMINAL (also after a resignation)."""
        return TERMINAL if self.resigned is not None or self.agreed_draw else \
            self._current_player()

    def returns(self) -> list[float]:
        """Per seat: +1 win, -1 loss, 0 draw (all 0 while the game runs).

        After a resignation the resigning seat's whole team loses and every
        other seat wins.
        """
        if self.agreed_draw:
            return [0.0] * self.game.num_seats
        if self.resigned is not None:
            team = self.game.team_of(self.resigned)
            return [-1.0 if self.game.team_of(seat) == team else 1.0
                    for seat in range(self.game.num_seats)]
        return self._returns()

    def agree_draw(self) -> None:
        """The sides agree a draw: the game ends, every return 0, reason "agreement".

        Not a history entry (the moves stay the moves played; a record says
        ``"agreed_draw": true``). Only in a game that allows it (``game.agreed_draws``)
        and is not over; else IllegalMoveError, nothing changes. A game's own
        ``winners()``/``end_reason()`` need not know: the view and the record take the
        result from here.
        """
        reason = "the game is over" if self.is_terminal() else None if \
            self.game.agreed_draws else "this game allows no agreed draw"
        if reason:
            raise IllegalMoveError(f"illegal move 'draw': {reason}", move="draw",
                                   reason=reason)
        self.agreed_draw = True

    def resign(self, seat: int | None = None, out_of_turn: bool = False,
               on_time: bool = False) -> None:
        """A seat that may act (default: the first) resigns: the game ends, its team loses.

        ``out_of_turn``: any seat may (a forfeit, a player leaving), not only one that acts.
        ``on_time``: it is a loss on time (its clock ran out): the history says ``time``.
        """
        acting = self.acting_seats()
        if seat is None and len(acting) > 1:
            names = ", ".join(self.game.seat_names[s] for s in acting)
            reason = f"several seats act now ({names}): say who resigns (name:resign)"
            raise IllegalMoveError(f"illegal move 'resign': {reason}", move="resign",
                                   reason=reason)
        seat = acting[0] if seat is None and acting else seat
        allowed = acting if not out_of_turn or self.is_terminal() else \
            range(self.game.num_seats)
        if seat is None or seat not in allowed:
            reason = "the game is over" if self.is_terminal() else \
                "nobody acts now" if seat is None else \
                f"there is no seat {seat}" if not 0 <= seat < self.game.num_seats else \
                f"{self.game.seat_names[seat]} does not act now"
            raise IllegalMoveError(f"illegal move 'resign': {reason}", move="resign",
                                   reason=reason)
        self.resigned = seat
        self.resign_named = acting != [seat]     # the record names who resigned
        if on_time:
            self.lost_on_time = True
        self.history.append(Move(seat, RESIGN))

    def is_terminal(self) -> bool:
        return self.current_player() == TERMINAL

    def is_chance(self) -> bool:
        return self.current_player() == CHANCE

    def apply(self, action: int, seat: int | None = None) -> None:
        """Apply a legal action (of ``seat``, when several act at once).

        An illegal one raises IllegalMoveError and changes nothing.
        """
        if type(action) is not int and (isinstance(action, bool) or
                                        not isinstance(action, int)):
            raise IllegalMoveError(f"an action must be an int, not {action!r}",
                                   move=action, reason="not an int")
        self._checked_apply(action, seat, None)

    def play(self, text: str) -> int:
        """Parse a move in the notation and apply it; return the action.

        ``resign`` resigns (``time``: loses on time, as a record of a flag says);
        ``seat-name:move`` is a move of that seat (needed when several seats act at once).
        """
        seat, text = self._split_seat(text)
        word = text.strip().lower()
        if word in (RESIGN_TEXT, TIME_TEXT):        # a named seat may resign at any time
            self.resign(seat, out_of_turn=seat is not None, on_time=word == TIME_TEXT)
            return RESIGN
        action = self.string_to_action(text)
        self._checked_apply(action, seat, text)
        return action

    def _split_seat(self, text: str) -> tuple[int | None, str]:
        if not isinstance(text, str):
            raise NotationError(f"a move must be text, not {text!r}")
        name, colon, rest = text.partition(":")
        if colon and name.strip() in self.game.seat_names:
            return self.game.seat_names.index(name.strip()), rest
        return None, text

    def _checked_apply(self, action: int, seat: int | None, text: str | None) -> None:
        player = self.current_player()          # asked once: the hot path of search
        if player >= 0 and (seat is None or seat == player) and \
                0 <= action < self.game.num_actions and self._apply_if_legal(action):
            self.history.append(_move(Move, (player, action)))
            return
        simultaneous = player == SIMULTANEOUS
        reason: str | None
        if simultaneous and seat is None:
            seats = ", ".join(self.game.seat_names[s] for s in self._acting_seats())
            reason = f"several seats act now ({seats}): say whose move it is"
        elif seat is not None and seat not in self.acting_seats():
            reason = f"{self.game.seat_names[seat]} does not act now" \
                if 0 <= seat < self.game.num_seats else f"there is no seat {seat}"
        else:
            reason = self._reason(action, seat if simultaneous else None, player)
        if reason:
            shown = text if text is not None else self._safe_text(action)
            raise IllegalMoveError(f"illegal move {shown!r}: {reason}", move=shown,
                                   reason=reason)
        self._enact(action, seat, player)

    def apply_unchecked(self, action: int, seat: int | None = None,
                        player: int | None = None) -> None:
        """Apply ``action`` as :meth:`apply` does, without checking that it is legal.

        For searchers that took ``action`` from this state's own legal list
        (``legal_actions()``, or ``legal_actions_for(seat)`` when several act at once,
        where ``seat`` is then required); anything else may corrupt the state. Players'
        and records' moves go through :meth:`apply`. ``player``: ``current_player()``,
        where the caller has just asked it (else it is asked here).
        """
        self._enact(action, seat, self.current_player() if player is None else player)

    def _enact(self, action: int, seat: int | None, player: int) -> None:
        """Make the legal ``action`` (of ``seat`` in a simultaneous round; ``player`` is
        ``current_player()``) and write its history entry."""
        if player == SIMULTANEOUS:
            assert seat is not None, "a move in a simultaneous round needs its seat"
            self._commit(seat, action)
            self.history.append(_move(Move, (seat, action)))
        else:
            self._apply(action)
            self.history.append(_move(Move, (player, action)))

    def _reason(self, action: int, seat: int | None = None,
                player: int | None = None) -> str | None:
        if (self.current_player() if player is None else player) == TERMINAL:
            return "the game is over"
        if not 0 <= action < self.game.num_actions:
            return f"action {action} is outside 0..{self.game.num_actions - 1}"
        return self._commit_reason(seat, action) if seat is not None else \
            self.illegal_reason(action)

    def _safe_text(self, action: int) -> str:
        try:
            return self.action_to_string(action)
        except (NotationError, IndexError, ValueError):
            return str(action)

    def legal_moves(self) -> list[str]:
        """The legal actions in notation."""
        return [self.action_to_string(a) for a in self.legal_actions()]

    def history_text(self) -> list[str]:
        """Every action so far, in notation.

        A seat's commit in a simultaneous round reads ``seat-name:move``; so does
        a resignation by a seat that was not the only one acting (a forfeit, or one
        member of a simultaneous round): ``name:resign``.

        Kept until the history grows (views of every seat read it at each version; a
        history list only ever grows, and a copy of the state has a list of its own).
        """
        memo = self.__dict__.get("_history_memo")
        length = len(self.history)
        if memo is not None and memo[0] is self.history and memo[1] == length:
            texts = list(memo[2])
        else:
            more = self._history_text_after(memo[1]) if memo is not None and \
                memo[0] is self.history and memo[1] < length else None
            texts = self._history_text() if memo is None or more is None else \
                [*memo[2], *more]
            self._history_memo = (self.history, length, tuple(texts))
        if self.resigned is not None and texts:
            word = TIME_TEXT if self.lost_on_time else RESIGN_TEXT
            texts[-1] = f"{self.game.seat_names[self.resigned]}:{word}" \
                if self.resign_named else word
        return texts

    def _history_text_after(self, start: int) -> list[str] | None:
        """The notation of the history entries from ``start`` on, as ``_history_text``
        writes them, where it needs no earlier entry (None: not so in this game; the
        whole history is written again)."""
        return None

    def _history_text(self) -> list[str]:
        """Every action so far, in notation, by replaying from the initial state.

        Games whose notation needs no context override this with a quicker pass.
        """
        replayer = self.game.new_initial_state(seed=self.seed)
        texts = []
        for seat, action in self.history:
            if action == RESIGN:
                texts.append("resign")
                break
            if replayer.current_player() == SIMULTANEOUS:
                texts.append(f"{self.game.seat_names[seat]}:{replayer.action_to_string(action)}")
                replayer._commit(seat, action)
                continue
            texts.append(replayer.action_to_string(action))
            replayer._apply(action)
        return texts

    def replay_entry(self, entry: Move) -> None:
        """Apply one history entry of another state of the same game (checked)."""
        seat, action = entry
        if action == RESIGN:
            self.resign(seat, out_of_turn=True)
        elif self.current_player() == SIMULTANEOUS:
            self.apply(action, seat=seat)
        else:
            self.apply(action)

    def __str__(self) -> str:
        rows = self.summary().get("board", [])
        return "\n".join(rows) if isinstance(rows, list) else repr(self)
