"""What the command modules share: game options given as ``--name value`` words, the
listing of declared options, the match runners' flags, and SIGTERM taken as Ctrl-C."""
from __future__ import annotations

import signal

from ..core.errors import BoardlabError
from ..core.options import parse_spec, resolve
from ..core.registry import game_class


def options_from_args(extra: list[str], game: str | None = None) -> dict:
    """``--size 9 --komi-protocol bid`` -> {'size': '9', 'komi_protocol': 'bid'}.

    With ``game`` (a name or spec), an option the game does not declare is
    reported as unknown even when its value is missing.
    """
    declared = game_class(parse_spec(game)[0]).declared_options if game else None
    options, i = {}, 0
    while i < len(extra):
        word = extra[i]
        if not word.startswith("--") or len(word) < 3:
            raise BoardlabError(f"unexpected argument {word!r} (game options look like "
                                f"--size 9)")
        key, sep, value = word[2:].partition("=")
        if declared is not None and key.replace("-", "_") not in {o.name for o in declared}:
            resolve(declared, {key.replace("-", "_"): value}, parse_spec(game)[0])
        if not sep:
            if i + 1 >= len(extra):
                raise BoardlabError(f"option {word} needs a value")
            value = extra[i + 1]
            i += 1
        options[key.replace("-", "_")] = value
        i += 1
    return options


def print_options(declared) -> None:
    """Print declared options: name, allowed values, default, help."""
    for option in declared:
        default = "depends on other options" if callable(option.default) else option.default
        if isinstance(default, bool):
            default = "true" if default else "false"
        shown = f"'{default}'" if default == "" else default
        tag = "set-up, " if option.analysis else ""
        print(f"  {option.name} ({tag}{option.allowed()}, default {shown})")
        print(f"      {option.help}")


def agents_from(parser) -> None:
    """Add ``--agents-from FILE.py`` (agents of one's own) to ``parser``."""
    parser.add_argument("--agents-from", action="append", default=[], metavar="FILE.py",
                        help="import agents of your own from a Python file or module "
                        "(repeatable; see docs/agents.md)")


def runner_options(parser, jobs: int = 1) -> None:
    """Add the flags of a match runner (clocks, jobs, Ray, deals, agents) to ``parser``."""
    agents_from(parser)
    parser.add_argument("--move-time", type=float, help="seconds per move for every agent")
    parser.add_argument("--game-time", type=float, help="seconds per game and seat (a clock)")
    parser.add_argument("--increment", type=float, help="seconds added to the clock after "
                        "each move (with --game-time)")
    parser.add_argument("--jobs", type=int, default=jobs, help=f"games played in parallel "
                        f"(default {jobs})")
    parser.add_argument("--ray", metavar="ADDRESS", help="play on a Ray cluster ('auto', "
                        "'ray://host:10001', or 'local' for a Ray instance on this machine)")
    parser.add_argument("--deals", choices=["fresh", "duplicate"], help="fresh: every game "
                        "its own chance seed (the default in games with hidden information); "
                        "duplicate: the seat rotations of a pairing share one (see "
                        "docs/arena.md for the risk)")
    in_process(parser)


def in_process(parser) -> None:
    """Add ``--in-process`` to ``parser``."""
    parser.add_argument("--in-process", action="store_true", help="run agents of your own "
                        "(--agents-from) in this process also in games with hidden "
                        "information, where they could read the real state (default: a "
                        "process of their own; see docs/agents.md)")


def check_runner_args(args) -> None:
    """Refuse numbers that make no sense before anything starts."""
    if args.jobs < 1:
        raise BoardlabError(f"--jobs must be at least 1, not {args.jobs}")
    for flag in ("games", "rounds", "max_actions", "ray_batch"):
        value = getattr(args, flag, None)
        if value is not None and value < 1:
            raise BoardlabError(f"--{flag.replace('_', '-')} must be at least 1, not {value}")
    if getattr(args, "ray_batch", None) is not None and args.ray is None:
        raise BoardlabError("--ray-batch is for games on Ray: give --ray ADDRESS too")
    seed = getattr(args, "seed", None)
    if seed is not None and not 0 <= seed < 2**31 - 10**6:
        raise BoardlabError(f"--seed must be between 0 and {2**31 - 10**6 - 1}, not {seed}")


def time_control(args):
    """The time control of ``--move-time``, ``--game-time`` and ``--increment``."""
    from ..core.driver import TimeControl

    return TimeControl(move=args.move_time, game=args.game_time,
                       increment=args.increment or 0.0)


def interrupt_on_termination() -> None:
    """SIGTERM and SIGHUP end the command like Ctrl-C: cleanup (engines) runs, results stay."""
    def interrupt(signum, frame):
        raise KeyboardInterrupt
    for name in ("SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), interrupt)
