"""Play a game in a terminal: humans at one keyboard and/or agents.

Game-agnostic: the game is run by a :class:`~boardlab.core.driver.GameDriver`,
drawn with ``state.render()`` and ``status_lines()``, explained with the
game's declared rules summary and notation guide, and moves are read in the
game's notation. Input and output streams are parameters so that tests can
drive it; at a real terminal the prompts have line editing and history.
"""
from __future__ import annotations

import json
import sys
import sysconfig
import textwrap
import traceback

from .core.driver import GameDriver, UndoError
from .core.errors import BoardlabError, IllegalMoveError
from .core.game import SIMULTANEOUS, Game, State

HELP = """Commands:
  <move>    a move in the game's notation (for example: {examples})
  moves     list the legal moves
  hint      a suggestion from a quick search of what you can see
  undo      {undo}
  resign    give up the game
  help      this text
  quit      leave without finishing"""


class TerminalGame:
    """One game between humans (by keyboard) and agents (by seat)."""

    def __init__(self, game: Game, agents: dict, seed=None, inp=None, out=None,
                 colour: bool | None = None, hint=None):
        """``hint(seat, seed)`` makes the agent that answers ``hint`` (None: no hints)."""
        self.game = game
        self.agents = agents
        self.hint = hint
        self.failure: str | None = None      # what stopped the game, if an agent failed
        self.inp = inp or sys.stdin
        self.out = out or sys.stdout
        self.colour = self.out.isatty() if colour is None else colour
        self.driver = GameDriver(game, seed=seed)
        self.seed = self.driver.seed
        humans = [s for s in range(game.num_seats) if s not in agents]
        self.hide = not game.perfect_information and len(humans) > 1
        self.viewer = humans[0] if len(humans) == 1 else None
        self.editing = _line_editing(self.inp, self.out)

    @property
    def state(self) -> State:
        return self.driver.state

    def say(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def ask(self, prompt: str) -> str | None:
        if self.editing:                     # a real terminal: arrow keys and history
            try:
                return input(prompt).strip()
            except EOFError:
                return None
        self.out.write(prompt)
        self.out.flush()
        line = self.inp.readline()
        return None if line == "" else line.strip()

    def show(self) -> None:
        """Draw the position as the current viewer may see it."""
        state, seat = self.state, self.viewer
        self.say()
        self.say(state.render(colour=self.colour, seat=seat))
        for line in state.status_lines(seat=seat):
            self.say(line)

    def hand_over(self, seat: int) -> bool:
        """Hidden hands and several humans: ask the others to look away."""
        if not self.hide or self.viewer == seat:
            return True
        self.say("\x1b[2J\x1b[H" if self.colour else "\n" * 40)
        name = self.game.seat_names[seat]
        if self.ask(f"Pass the keyboard to {name}, then press Enter ({name} only!) ") is None:
            return False
        self.viewer = seat
        return True

    def run(self) -> State:
        """Play until the game ends or the human quits; return the final state."""
        self.say(f"{self.game.title or self.game.name}: {self.game.spec}. Type 'help' for help.")
        while True:
            acting = self.driver.acting()
            seat = acting[0] if acting else None
            if seat is not None and seat not in self.agents and not self.hand_over(seat):
                self.say("game left unfinished")
                return self.state
            if self.driver.over and self.hide:
                self.viewer = None
            self.show()
            if self.driver.over:
                return self.state
            assert seat is not None, "a game that is not over has a seat to act"
            if seat in self.agents:
                if not self.agent_turn(seat):
                    return self.state
            elif not self.human_turn(seat):
                return self.state

    def agent_turn(self, seat: int) -> bool:
        """Let the agent move; False (the game stops) when it fails."""
        agent = self.agents[seat]
        secret = self.state.current_player() == SIMULTANEOUS
        before = len(self.state.history)
        try:
            action = agent.act(self.driver.view(seat))   # its own bug, or a broken engine
        except Exception as error:
            return self._agent_failed(seat, error)
        if isinstance(action, bool) or not isinstance(action, int):
            return self._agent_failed(seat, IllegalMoveError(
                f"an action must be an int, not {action!r}", move=action, reason="not an int"))
        try:
            self.driver.submit(seat, action)           # nothing is applied when it is illegal
        except BoardlabError as error:
            return self._agent_failed(seat, error)
        seen = self.state.visible_history(self.viewer)[before]
        text = "has chosen (revealed with the others)" if secret else \
            f"plays {seen.partition(':')[2] or seen}"
        self.say(f"{_label(agent)} ({self.game.seat_names[seat]}) {text}")
        self._announce(before)
        return True

    def _announce(self, before: int) -> None:
        for line in self.state.announcements(before):
            self.say(line)

    def _agent_failed(self, seat: int, error: Exception) -> bool:
        """Say which agent failed and how; the game stops (False)."""
        agent = self.agents[seat]
        self.failure = f"{_label(agent)} ({self.game.seat_names[seat]}) failed: " \
                       f"{_describe(error)}"
        self.say(self.failure + "\ngame left unfinished")
        return False

    def human_turn(self, seat: int) -> bool:
        """Read commands until a move is made; False when the player quits."""
        while True:
            line = self.ask(f"{self.game.seat_names[seat]}> ")
            if line is None or line.lower() in ("quit", "exit"):
                self.say("game left unfinished")
                return False
            if self.command(line, seat):
                return True

    def command(self, line: str, seat: int | None = None) -> bool:
        """Handle one input line; True when the turn is over."""
        word = line.lower()
        if not word:
            return False
        if word in ("help", "?", "h"):
            self.say(self.help_text(seat))
            return False
        if word in ("moves", "legal"):
            legal = self.state.legal_actions_for(seat) if seat is not None else \
                self.state.legal_actions()
            self.say(", ".join(self.state.action_to_string(a) for a in legal))
            return False
        if word == "hint":
            self.give_hint(seat)
            return False
        if word == "undo":
            return self.undo()
        before = len(self.state.history)
        try:
            if seat is None:
                self.state.play(line)
            else:
                self.driver.submit(seat, line)
        except BoardlabError as error:
            self.say(f"error: {error}. Type 'help' for help.")
            return False
        self._announce(before)
        return True

    def help_text(self, seat: int | None) -> str:
        """The commands, the goal of the game and how to write its moves."""
        legal = self.state.legal_actions_for(seat) if seat is not None else []
        examples = ", ".join(self.state.action_to_string(a) for a in legal[:3]) or "see 'moves'"
        parts = [HELP.format(examples=examples, undo=self.undo_help())]
        for title, text in (("The game", self.game.rules_summary),
                            ("Writing moves", self.game.notation_guide)):
            if text:
                parts.append(f"{title}:\n" + textwrap.fill(" ".join(text.split()), width=78,
                                                           initial_indent="  ",
                                                           subsequent_indent="  "))
        return "\n\n".join(parts)

    def undo_help(self) -> str:
        """What ``undo`` takes back in this game's set-up."""
        humans = self.game.num_seats - len(self.agents)
        if not (self.game.perfect_information and self.game.chance == "none"):
            extra = " (never across a draw of cards or a reveal of hidden information)"
        else:
            extra = ""
        if not self.agents:
            return "take back the last move (either player's: you share the keyboard)" + extra
        if humans > 1:
            return "take back moves to the last one made by a person here, with the AI " \
                   "replies after it" + extra
        return "take back your last move and every AI reply after it" + extra

    def give_hint(self, seat: int | None) -> None:
        """Ask the hint agent for a move from ``seat``'s own view (the same each time)."""
        if self.hint is None or seat is None:
            self.say("no hints in this game")
            return
        agent = self.hint(seat, len(self.state.history))
        try:
            action = agent.act(self.state.view(seat))
            text = self.state.action_to_string(action)
        except Exception as error:               # a broken hint agent costs only the hint
            text = f"none ({_label(agent)} failed: {_describe(error)})"
        finally:
            agent.close()                        # an engine used for hints stops here
        self.say(f"hint: {text}")

    def undo(self) -> bool:
        """Take back moves until it is again a human's turn, one human move at least."""
        movers = self.driver.movers()
        cut = len(movers) - 1
        while cut > 0 and not self._human(movers[cut]):
            cut -= 1
        if cut < 0 or not self._human(movers[cut]):
            self.say("nothing to undo")
            return False
        try:
            taken = self.driver.undo(cut)
        except UndoError as error:
            self.say(f"cannot undo: {error}")
            return False
        self.say(f"took back {taken} move(s)")
        return True

    def _human(self, seat: int) -> bool:
        return seat >= 0 and seat not in self.agents

    def finish(self, save_path: str | None, ask: bool = True) -> None:
        """Offer to save the record (or save to ``save_path``)."""
        if not self.state.history:
            return
        if save_path is None and ask:
            save_path = self.ask("save the record? file name (empty to skip): ")
        if save_path:
            players = [_label(self.agents[s]) if s in self.agents else "human"
                       for s in range(self.game.num_seats)]
            try:
                with open(save_path, "w", encoding="utf-8") as handle:
                    handle.write(json.dumps(self.driver.record(players=players), indent=1)
                                 + "\n")
            except OSError as error:
                self.say(f"could not save: {error}")
            else:
                self.say(f"record saved to {save_path}")


def _line_editing(inp, out) -> bool:
    """At a real terminal, turn on readline (arrow keys, history) for input()."""
    if inp is not sys.stdin or out is not sys.stdout or not (inp.isatty() and out.isatty()):
        return False
    try:
        import readline  # noqa: F401  (importing it is what turns line editing on)
    except ImportError:                          # no readline on this platform: plain input
        pass
    return True


def _label(agent) -> str:
    """How the terminal names an agent: the spec it was made from, else its name."""
    return agent.spec or agent.name


def _describe(error: Exception) -> str:
    """One line on an agent's failure: the message, and where Python code raised it."""
    if isinstance(error, BoardlabError):
        return str(error)
    text = "".join(traceback.format_exception_only(type(error), error)).strip()
    libraries = tuple(sysconfig.get_paths()[k] for k in ("stdlib", "purelib", "platlib"))
    frames = [f for f in traceback.extract_tb(error.__traceback__)
              if not f.filename.startswith(libraries)]       # the agent's code, not numpy's
    if frames:
        text += f" (at {frames[-1].filename}, line {frames[-1].lineno}, in {frames[-1].name})"
    return text
