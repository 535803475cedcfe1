"""The game protocol: a Game holds immutable facts, a State is one position.

Actions are integers in ``range(game.num_actions)``; each has one text form
(the notation) given by :meth:`State.action_to_string`. Seats are numbered
from 0. ``current_player()`` is a seat, :data:`CHANCE`, :data:`TERMINAL` or
:data:`SIMULTANEOUS`; in the last case ``acting_seats()`` lists the seats
that still have to commit an action (``apply(action, seat=...)``), and each
commit is kept in the history as ``num_actions * (seat + 1) + action``.
"""
from __future__ import annotations

from .errors import IllegalMoveError, NotationError
from .options import Option, format_spec, resolve

CHANCE = -1
TERMINAL = -2
RESIGN = -3  # history entry of a resignation (never in legal_actions)
SIMULTANEOUS = -4  # current_player() when several seats act at once (see acting_seats)


class Game:
    """Immutable facts about one configured game (options resolved)."""

    name: str = ""
    title: str = ""
    description: str = ""
    declared_options: tuple[Option, ...] = ()
    perfect_information: bool = True

    def __init__(self, **options):
        self.options = resolve(self.declared_options, options, self.name)
        self.given = frozenset(options)  # the options set explicitly
        self.validate()

    def validate(self) -> None:
        """Check combinations of options; raise OptionError. Hook for subclasses."""

    @property
    def spec(self) -> str:
        """The canonical spec string, e.g. ``carteso(size=9)``."""
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

    def new_initial_state(self, seed: int | None = None) -> "State":
        raise NotImplementedError

    def __repr__(self):
        return f"<{type(self).__name__} {self.spec}>"

    def __eq__(self, other):
        return type(self) is type(other) and self.options == other.options

    def __hash__(self):
        return hash((self.name, self.spec))


class State:
    """A position of a game. Mutable: :meth:`apply` changes it in place."""

    def __init__(self, game: Game):
        self.game = game
        self.history: list[int] = []
        self.resigned: int | None = None

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

    def illegal_reason(self, action: int) -> str | None:
        """Why ``action`` is illegal here, or None when it is legal."""
        return None if action in self.legal_actions() else "not a legal move here"

    def action_to_string(self, action: int) -> str:
        raise NotImplementedError

    def string_to_action(self, text: str) -> int:
        """Parse a move in the notation; raise NotationError if malformed."""
        raise NotImplementedError

    def clone(self) -> "State":
        raise NotImplementedError

    def view(self, seat: int | None) -> dict:
        """What ``seat`` may know (``None``: a spectator), as plain JSON data."""
        raise NotImplementedError

    def heuristic(self, seat: int) -> float:
        """A quick estimate in [-1, 1] of how well ``seat`` stands (for greedy play)."""
        return 0.0

    def rollout(self, seed: int, max_turns: int | None = None) -> list[float]:
        """Returns per seat after random play from here to the end (for search).

        Games with a compiled kernel override this with a fast playout. The
        state itself is not changed.
        """
        import random
        rng, state = random.Random(seed), self.clone()
        while not state.is_terminal():
            if state.is_chance():
                state.apply(state.sample_chance(rng))
                continue
            seat = rng.choice(state.acting_seats())
            action = rng.choice(state.legal_actions_for(seat))
            state.apply(action, seat=seat)
        return state.returns()

    def summary(self) -> dict:
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

    def sample_chance(self, rng) -> int:
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
        return TERMINAL if self.resigned is not None else self._current_player()

    def returns(self) -> list[float]:
        """Per seat: +1 win, -1 loss, 0 draw (all 0 while the game runs)."""
        if self.resigned is not None:
            return [-1.0 if seat == self.resigned else 1.0 for seat in range(self.game.num_seats)]
        return self._returns()

    def resign(self, seat: int | None = None) -> None:
        """A seat that may act (default: the first) resigns: the game ends, it loses."""
        acting = self.acting_seats()
        seat = acting[0] if seat is None and acting else seat
        if seat is None or seat not in acting:
            reason = "the game is over" if self.is_terminal() else \
                f"there is no seat {seat}" if not 0 <= seat < self.game.num_seats else \
                f"{self.game.seat_names[seat]} does not act now"
            raise IllegalMoveError(f"illegal move 'resign': {reason}", move="resign",
                                   reason=reason)
        self.resigned = seat
        self.history.append(RESIGN)

    def is_terminal(self) -> bool:
        return self.current_player() == TERMINAL

    def is_chance(self) -> bool:
        return self.current_player() == CHANCE

    def apply(self, action: int, seat: int | None = None) -> None:
        """Apply a legal action (of ``seat``, when several act at once).

        An illegal one raises IllegalMoveError and changes nothing.
        """
        if isinstance(action, bool) or not isinstance(action, int):
            raise IllegalMoveError(f"an action must be an int, not {action!r}",
                                   move=action, reason="not an int")
        self._checked_apply(action, seat, None)

    def play(self, text: str) -> int:
        """Parse a move in the notation and apply it; return the action.

        ``resign`` resigns; ``seat-name:move`` is a move of that seat (needed
        when several seats act at once).
        """
        seat, text = self._split_seat(text)
        if text.strip().lower() == "resign":
            self.resign(seat)
            return RESIGN
        action = self.string_to_action(text)
        self._checked_apply(action, seat, text)
        return action

    def _split_seat(self, text):
        if not isinstance(text, str):
            raise NotationError(f"a move must be text, not {text!r}")
        name, colon, rest = text.partition(":")
        if colon and name.strip() in self.game.seat_names:
            return self.game.seat_names.index(name.strip()), rest
        return None, text

    def _checked_apply(self, action: int, seat: int | None, text: str | None) -> None:
        simultaneous = self.current_player() == SIMULTANEOUS
        if simultaneous and seat is None:
            seats = ", ".join(self.game.seat_names[s] for s in self._acting_seats())
            reason = f"several seats act now ({seats}): say whose move it is"
        elif seat is not None and seat not in self.acting_seats():
            reason = f"{self.game.seat_names[seat]} does not act now" \
                if 0 <= seat < self.game.num_seats else f"there is no seat {seat}"
        else:
            reason = self._reason(action, seat if simultaneous else None)
        if reason:
            shown = text if text is not None else self._safe_text(action)
            raise IllegalMoveError(f"illegal move {shown!r}: {reason}", move=shown,
                                   reason=reason)
        if simultaneous:
            self._commit(seat, action)
            self.history.append(self.game.num_actions * (seat + 1) + action)
        else:
            self._apply(action)
            self.history.append(action)

    def _reason(self, action: int, seat: int | None = None) -> str | None:
        if self.is_terminal():
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
        """Every action so far, in notation (replays from the initial state)."""
        replayer = self.game.new_initial_state(seed=getattr(self, "seed", None))
        texts = []
        size = self.game.num_actions
        for action in self.history:
            if action == RESIGN:
                texts.append("resign")
                break
            if action >= size:
                seat, move = divmod(action, size)
                texts.append(f"{self.game.seat_names[seat - 1]}:"
                             f"{replayer.action_to_string(move)}")
                replayer._commit(seat - 1, move)
                continue
            texts.append(replayer.action_to_string(action))
            replayer._apply(action)
        return texts

    def __str__(self):
        return "\n".join(self.summary().get("board", [])) or repr(self)
