"""The game protocol: a Game holds immutable facts, a State is one position.

Actions are integers in ``range(game.num_actions)``; each has one text form
(the notation) given by :meth:`State.action_to_string`. Seats are numbered
from 0. ``current_player()`` is a seat, :data:`CHANCE` or :data:`TERMINAL`.
"""
from __future__ import annotations

from .errors import IllegalMoveError, NotationError
from .options import Option, format_spec, resolve

CHANCE = -1
TERMINAL = -2
RESIGN = -3  # history entry of a resignation (never in legal_actions)


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

    def heuristic_hint(self) -> str:  # pragma: no cover - documentation hook
        return ""

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

    def summary(self) -> dict:
        """A JSON-ready description of the position (the ``replay`` output)."""
        raise NotImplementedError

    # Shared behaviour -------------------------------------------------------
    def current_player(self) -> int:
        """The seat to act, CHANCE, or TERMINAL (also after a resignation)."""
        return TERMINAL if self.resigned is not None else self._current_player()

    def returns(self) -> list[float]:
        """Per seat: +1 win, -1 loss, 0 draw (all 0 while the game runs)."""
        if self.resigned is not None:
            return [-1.0 if seat == self.resigned else 1.0 for seat in range(self.game.num_seats)]
        return self._returns()

    def resign(self) -> None:
        """The seat to move resigns: the game ends and that seat loses."""
        seat = self.current_player()
        if seat < 0:
            raise IllegalMoveError("illegal move 'resign': nobody is to move", move="resign",
                                   reason="nobody is to move")
        self.resigned = seat
        self.history.append(RESIGN)

    def is_terminal(self) -> bool:
        return self.current_player() == TERMINAL

    def is_chance(self) -> bool:
        return self.current_player() == CHANCE

    def apply(self, action: int) -> None:
        """Apply a legal action; an illegal one raises and changes nothing."""
        if isinstance(action, bool) or not isinstance(action, int):
            raise IllegalMoveError(f"an action must be an int, not {action!r}",
                                   move=action, reason="not an int")
        reason = self._reason(action)
        if reason:
            text = self._safe_text(action)
            raise IllegalMoveError(f"illegal move {text!r}: {reason}", move=text,
                                   reason=reason)
        self._apply(action)
        self.history.append(action)

    def play(self, text: str) -> int:
        """Parse a move in the notation (or ``resign``) and apply it; return the action."""
        if isinstance(text, str) and text.strip().lower() == "resign":
            self.resign()
            return RESIGN
        action = self.string_to_action(text)
        reason = self._reason(action)
        if reason:
            raise IllegalMoveError(f"illegal move {text!r}: {reason}", move=text,
                                   reason=reason)
        self._apply(action)
        self.history.append(action)
        return action

    def _reason(self, action: int) -> str | None:
        if self.is_terminal():
            return "the game is over"
        if not 0 <= action < self.game.num_actions:
            return f"action {action} is outside 0..{self.game.num_actions - 1}"
        return self.illegal_reason(action)

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
        replayer = self.game.new_initial_state(**self._replay_kwargs())
        texts = []
        for action in self.history:
            if action == RESIGN:
                texts.append("resign")
                break
            texts.append(replayer.action_to_string(action))
            replayer._apply(action)
        return texts

    def _replay_kwargs(self) -> dict:
        return {}

    def __str__(self):
        return "\n".join(self.summary().get("board", [])) or repr(self)
