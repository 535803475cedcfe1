"""``boardlab games``, ``agents`` and ``play``: what there is, and a game in the terminal."""
from __future__ import annotations

from ..core.errors import BoardlabError
from ..core.options import parse_spec, split_specs
from ..core.registry import games, make
from .common import agents_from, options_from_args, print_options


def cmd_games(args) -> int:
    """Print each game and its declared options."""
    for cls in games():
        print(f"{cls.name}: {cls.description}")
        print_options(cls.declared_options)
        print()
    return 0


def cmd_agents(args) -> int:
    """Print each agent, its options, and the search facts of each game."""
    from .. import agents as agent_registry

    for cls in agent_registry.agents():
        print(f"{cls.name}: {cls.description}")
        print_options(cls.declared_options)
        print()
    print("per game (what mcts and ismcts read from the game: simulations a move at "
          "level=1..5, the exploration constant c, the playout policies offered, the "
          "default first, the turns a rollout plays):")
    for line in _search_facts():
        print(f"  {line}")
    return 0


def _search_facts() -> list[str]:
    """A line per registered game: the facts the searches read from it."""
    lines = []
    for cls in games():
        playouts = [cls.playout] + [p for p in cls.playouts if p != cls.playout]
        lines.append(f"{cls.name}: level 1-5 = {', '.join(map(str, cls.level_budgets))} "
                     f"simulations; c {cls.exploration:g}; playout {', '.join(playouts)}; "
                     f"rollout_turns {cls.rollout_turns or 'to the end'}")
    return lines


def cmd_play(args, extra) -> int:
    """Play a game in the terminal: people in some seats, agents (--vs) in the rest."""
    from .. import agents as agent_registry
    from ..terminal import TerminalGame

    name, raw = parse_spec(args.game)
    raw.update(options_from_args(extra, args.game))
    game = make(name, **raw)
    vs = split_specs(args.vs or "")
    human_seats = [args.seat] if args.seat is not None else None
    if vs and human_seats is None:
        human_seats = list(range(game.num_seats - len(vs)))
    if vs and len(vs) + len(human_seats) != game.num_seats:
        raise BoardlabError(f"{game.name} has {game.num_seats} seats: give "
                            f"{game.num_seats - len(human_seats)} agent(s) with --vs")
    if human_seats and not all(0 <= s < game.num_seats for s in human_seats):
        raise BoardlabError(f"--seat must be between 0 and {game.num_seats - 1}")
    agent_seats = [s for s in range(game.num_seats) if vs and s not in human_seats]
    seed = args.seed
    agents = {seat: agent_registry.make_agent(spec, game, seat, seed=None if seed is None
                                              else seed + seat)
              for seat, spec in zip(agent_seats, vs)}
    agent_registry.make_agent(args.hint, game, 0).close()       # a bad --hint fails now

    def hint(seat, position):
        return agent_registry.make_agent(args.hint, game, seat, seed=position)
    session = TerminalGame(game, agents, seed=seed,
                           colour=False if args.no_colour else None, hint=hint)
    session.run()
    session.finish(args.save, ask=not args.no_save)
    return 1 if session.failure else 0


def add_parsers(sub) -> None:
    """The subcommands games, agents and play."""
    sub.add_parser("games", help="list the games and their options")
    agents_cmd = sub.add_parser("agents", help="list the agents and their options")
    agents_from(agents_cmd)
    play = sub.add_parser("play", help="play in the terminal (game options as --size 9)",
                          epilog="Game options go as --name value (for example --size 9 "
                          "--komi 7.5 --button off); 'boardlab games' lists each game's "
                          "options. Example: boardlab play carteso --size 9 --vs random")
    play.add_argument("game", help="game name or spec, e.g. carteso or 'carteso(size=9)'")
    play.add_argument("--vs", help="agent(s) for the other seat(s), comma-separated, "
                      "e.g. random or 'mcts(time=1,c=1.4),greedy'")
    play.add_argument("--seat", type=int, help="your seat number when playing agents "
                      "(default 0: you move first)")
    play.add_argument("--seed", type=int, help="seed for the agents and any chance")
    play.add_argument("--hint", default="mcts(iterations=1000)", metavar="AGENT",
                      help="the agent that answers 'hint' (default mcts(iterations=1000))")
    agents_from(play)
    play.add_argument("--save", help="save the record to this file at the end")
    play.add_argument("--no-save", action="store_true", help="do not offer to save")
    play.add_argument("--no-colour", action="store_true", help="plain text board")
