"""A Python agent in a process of its own, behind the engine line protocol.

An agent runs in the process of the game unless something keeps it out: there
it can reach every object of that process (``gc.get_objects()``), the real
state included, with the other hands, the pile and the seed. For an agent
loaded from a file (``--agents-from``), ``match``, ``tournament`` and ``duel``
therefore start, in a game with hidden information, this module as an engine:

    python -m boardlab.agents.isolated --agents-from FILE.py --agent SPEC

It speaks the engine protocol (docs/engine-protocol.md) and hands each ``go``
to the agent as ``act(view, budget)``: all the agent gets is the view of the
``view`` line, the budget of the ``go`` line and the public game of the
``newgame`` line. :class:`IsolatedAgent` is the runner's side.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shlex
import sys
import traceback
from typing import Any

from ..core.driver import TimeControl
from ..core.errors import BoardlabError
from ..core.options import Option
from ..core.registry import make
from ..core.view import Budget
from .base import load_agents_from, make_agent
from .external import PROTOCOL, EngineAgent, EngineFailure


class IsolatedAgent(EngineAgent):
    """The agent of ``agent`` (a spec) run by this module in a child process.

    ``sources`` are the agent files and modules the child loads. The child's
    agent gets a fresh seed from the operating system, as an engine seeds itself
    (a seed derived from the game's would tell it the chance seed). With
    ``own_budget`` (the runner gives no time control) the agent is asked with no
    budget and has ``limit`` seconds a move.
    """

    name = "isolated"
    description = "a Python agent run in a process of its own (see boardlab.agents.isolated)"
    declared_options = EngineAgent.declared_options + (
        Option("limit", float, 60.0, "seconds a move when the runner gives no budget",
               minimum=0.001),)

    def __init__(self, game, seat, agent: str, sources=(), own_budget: bool = False,
                 **options):
        argv = [sys.executable, "-m", __name__, "--agent", agent, "--game", game.public_spec,
                "--seat", str(seat)]               # made before the handshake, not in a move
        for source in sources:
            argv += ["--agents-from", source]
        if own_budget:
            argv.append("--own-budget")
        super().__init__(game, seat, seed=None, cmd=shlex.join(argv), **options)
        self.spec, self.own_budget = agent, own_budget

    def _go(self, budget: Budget) -> float:
        if self.own_budget:
            self._engine.send(f"go movetime {round(self.options['limit'] * 1000)}")
            return self.options["limit"]
        return super()._go(budget)

    def _unexpected(self, line: str) -> None:
        """An ``error TEXT`` line (the agent raised TEXT) is a crash; else garbage."""
        if line.startswith("error "):
            raise EngineFailure("crash", line[len("error "):])
        super()._unexpected(line)


# The child: an engine that hands each go to a Python agent ----------------------------
class _Engine:
    """The engine's state between lines."""

    def __init__(self, spec: str, own_budget: bool, out):
        self.spec, self.own_budget, self.out = spec, own_budget, out
        self.game: Any = None          # set by newgame (or prepare), then a Game
        self.agent: Any = None         # set by prepare, then an Agent
        self.view: Any = None          # the last view line's view
        self.seat: int | None = None
        self.names: list[str] = []
        self.texts: list[str] = []

    def prepare(self, game: str, seat: int) -> None:
        """Make the game and the agent now (the runner counts this in the start-up time)."""
        self.game = make(game)
        self.seat = seat
        self.agent = make_agent(self.spec, self.game, seat,
                                seed=random.SystemRandom().randrange(2**63))

    def say(self, line: str) -> None:
        self.out.write(line + "\n")
        self.out.flush()

    def command(self, line: str) -> bool:
        """Handle one line; False after ``quit``."""
        word, _, rest = line.rstrip("\r\n").partition(" ")
        if word == "boardlab":
            self.say(f"id name {self.spec}")
            self.say(f"ok {PROTOCOL}")
        elif word == "newgame":
            game = make(rest)
            if self.game is None or self.game.spec != game.spec:    # not the prepared one
                self.game = game
        elif word == "seats":
            self.names = rest.split()
        elif word == "seat":
            seat = self.names.index(rest.strip())
            if self.agent is None or seat != self.seat or self.agent.game is not self.game:
                self.prepare(self.game.spec, seat)
        elif word == "view":
            self.view = json.loads(rest)
        elif word == "legal":
            self.texts = rest.split(" | ")
        elif word == "go":
            self.say(self.move(rest.split()))
        elif word == "gameover":
            self.agent.close([float(r) for r in rest.split()])
        elif word == "quit":
            return False
        return True

    def move(self, words: list[str]) -> str:
        """The answer to ``go WORDS``: ``move TEXT``, or ``error TEXT`` if the agent raised."""
        try:
            action = self.agent.act(self.view, self.budget(words))
        except Exception as error:
            traceback.print_exc()
            return "error " + "".join(traceback.format_exception_only(type(error), error)) \
                .strip().replace("\n", " ")[:500]
        legal = self.view["legal_actions"]
        if isinstance(action, int) and not isinstance(action, bool) and action in legal:
            return "move " + self.texts[legal.index(action)]
        return f"move {action!r}"[:1000]       # not a legal move: the runner says so

    def budget(self, words: list[str]) -> dict | None:
        """``movetime MS`` or ``clock MS inc MS`` as the budget the runner would give."""
        if self.own_budget:
            return None
        values = dict(zip(words[::2], (int(w) / 1000 for w in words[1::2])))
        if "clock" in values:
            clock, increment = values["clock"], values.get("inc", 0.0)
            return TimeControl(game=max(clock, 0.001), increment=increment).budget(clock)
        return {"time": values["movetime"]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m boardlab.agents.isolated",
                                     description="run a Python agent as an engine")
    parser.add_argument("--agent", required=True, help="the agent's spec")
    parser.add_argument("--agents-from", action="append", default=[], metavar="FILE.py")
    parser.add_argument("--own-budget", action="store_true", help="ask the agent with no "
                        "budget (the runner has no time control)")
    parser.add_argument("--game", help="the public game spec, to make the game and the agent "
                        "before the handshake")
    parser.add_argument("--seat", type=int, default=0, help="the seat number (with --game)")
    args = parser.parse_args(argv)
    out = os.fdopen(os.dup(1), "w", encoding="utf-8")   # the protocol's own channel:
    os.dup2(2, 1)                                       # what the agent prints goes to stderr
    sys.stdout = sys.stderr
    try:
        load_agents_from(args.agents_from)
    except BoardlabError as error:
        print(error, file=sys.stderr)
        return 2
    engine = _Engine(args.agent, args.own_budget, out)
    if args.game:
        engine.prepare(args.game, args.seat)
    for line in sys.stdin:
        if not engine.command(line):
            break
    return 0


if __name__ == "__main__":
    sys.exit(main())
