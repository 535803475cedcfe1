"""Play a game in a terminal: humans at one keyboard and/or agents.

Game-agnostic: it draws with ``state.render()`` when the game provides it
and reads moves in the game's notation. Input and output streams are
parameters so that tests can drive it.
"""
from __future__ import annotations

import sys
import sysconfig
import traceback

from .core.errors import BoardlabError, IllegalMoveError
from .core.game import RESIGN, SIMULTANEOUS, Game, State
from .core.record import save

HELP = """Commands:
  <move>    a move in the game's notation (for example: {examples})
  moves     list the legal moves
  hint      a suggestion from a quick search of what you can see
  undo      take back your last move (and the AI's reply)
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
        self.seed = seed
        self.inp = inp or sys.stdin
        self.out = out or sys.stdout
        self.colour = self.out.isatty() if colour is None else colour
        self.state = game.new_initial_state(seed=seed)
        self.seed = getattr(self.state, "seed", seed)
        humans = [s for s in range(game.num_seats) if s not in agents]
        self.hide = not game.perfect_information and len(humans) > 1
        self.viewer = humans[0] if len(humans) == 1 else None

    def say(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def ask(self, prompt: str) -> str | None:
        self.out.write(prompt)
        self.out.flush()
        line = self.inp.readline()
        return None if line == "" else line.strip()

    def show(self) -> None:
        """Draw the position as the current viewer may see it."""
        state, seat = self.state, self.viewer
        self.say()
        if hasattr(state, "render"):
            self.say(state.render(colour=self.colour, seat=seat))
            for line in state.status_lines(seat=seat):
                self.say(line)
        else:
            self.say(str(state))

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
            acting = self.state.acting_seats()
            seat = acting[0] if acting else self.state.current_player()
            if seat >= 0 and seat not in self.agents and not self.hand_over(seat):
                self.say("game left unfinished")
                return self.state
            if self.state.is_terminal() and self.hide:
                self.viewer = None
            self.show()
            if self.state.is_terminal():
                return self.state
            if seat in self.agents:
                if not self.agent_turn(seat):
                    return self.state
            elif not self.human_turn(seat):
                return self.state

    def agent_turn(self, seat: int) -> bool:
        """Let the agent move; False (the game stops) when it fails."""
        agent = self.agents[seat]
        secret = self.state.current_player() == SIMULTANEOUS
        view = self.state.view(seat)
        try:
            action = agent.act(view)              # its own bug, or a broken engine
        except Exception as error:
            return self._agent_failed(seat, error)
        try:
            self.state.apply(action, seat=seat)   # nothing is applied when it is illegal
        except IllegalMoveError as error:
            return self._agent_failed(seat, error)
        seen = self.state.view(self.viewer)["history"][-1] if "history" in \
            self.state.view(self.viewer) else self.state.action_to_string(action)
        text = "has chosen (revealed with the others)" if secret else \
            f"plays {seen.partition(':')[2] or seen}"
        self.say(f"{_label(agent)} ({self.game.seat_names[seat]}) {text}")
        return True

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
            legal = self.state.legal_actions_for(seat) if seat is not None else []
            examples = ", ".join(self.state.action_to_string(a) for a in legal[:3])
            self.say(HELP.format(examples=examples))
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
            if not self.game.perfect_information:
                self.say("undo is off in games with hidden information (it would show what "
                         "comes next)")
                return False
            return self.undo()
        try:
            self.state.play(f"{self.game.seat_names[seat]}:{line}" if seat is not None
                            else line)
        except BoardlabError as error:
            self.say(f"error: {error}. Type 'help' for help.")
            return False
        return True

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
        history = self.state.history
        movers = self._movers()
        cut = len(history) - 1
        while cut > 0 and movers[cut] in self.agents:
            cut -= 1
        if cut < 0 or movers[cut] in self.agents:
            self.say("nothing to undo")
            return False
        state = self.game.new_initial_state(seed=self.seed)
        for action in history[:cut]:
            _replay_entry(state, action)
        self.state = state
        self.say(f"took back {len(history) - cut} move(s)")
        return True

    def _movers(self) -> list[int]:
        state = self.game.new_initial_state(seed=self.seed)
        movers = []
        for action in self.state.history:
            movers.append(_replay_entry(state, action))
        return movers

    def finish(self, save_path: str | None, ask: bool = True) -> None:
        """Offer to save the record (or save to ``save_path``)."""
        state = self.state
        if not state.history:
            return
        if save_path is None and ask:
            save_path = self.ask("save the record? file name (empty to skip): ")
        if save_path:
            players = [_label(self.agents[s]) if s in self.agents else "human"
                       for s in range(self.game.num_seats)]
            try:
                save(save_path, state, players=players, seed=self.seed)
            except OSError as error:
                self.say(f"could not save: {error}")
            else:
                self.say(f"record saved to {save_path}")


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


def _replay_entry(state: State, entry: int) -> int:
    """Apply one history entry (a move, a seat's commit or a resignation); return its seat."""
    size = state.game.num_actions
    if entry >= size:
        seat, action = divmod(entry, size)
        state.apply(action, seat=seat - 1)
        return seat - 1
    seat = state.current_player()
    if entry == RESIGN:
        state.resign()
    else:
        state.apply(entry)
    return seat
