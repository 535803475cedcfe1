"""``boardlab replay`` and ``show``: a position from moves or from a saved record."""
from __future__ import annotations

import json

from ..core.errors import BoardlabError
from ..core.record import load, replay_moves


def cmd_replay(args) -> int:
    """Replay moves (from a spec or a record) and print the position or its summary."""
    if args.record:
        _, state = load(args.record)
        if args.moves:
            for text in args.moves:
                state.play(text)
    else:
        if not args.spec:
            raise BoardlabError("give a game spec and moves, or --record FILE")
        state = replay_moves(args.spec, args.moves, seed=args.seed)
    summary = state.summary()
    if args.json:
        print(json.dumps(summary))
    else:
        print(state.render())
        for line in state.status_lines():
            print(line)
    return 0


def cmd_show(args) -> int:
    """Check a saved record and print its final position."""
    record, state = load(args.record)
    print(f"{record['spec']}: {len(record['moves'])} moves, players "
          f"{record.get('players') or 'unknown'}")
    print(state.render())
    for line in state.status_lines():
        print(line)
    return 0


def add_parsers(sub) -> None:
    """The subcommands replay and show."""
    replay = sub.add_parser("replay", help="replay moves and print the final position")
    replay.add_argument("spec", nargs="?", help="game spec, e.g. 'carteso(size=9,komi=7)'")
    replay.add_argument("moves", nargs="*", help="moves in notation, e.g. Bc3 Wa1 pass")
    replay.add_argument("--json", action="store_true", help="print the summary as JSON")
    replay.add_argument("--record", help="start from a saved record instead of a spec")
    replay.add_argument("--seed", type=int, default=0,
                        help="seed for games with chance (default 0)")
    show = sub.add_parser("show", help="check a saved record and show its final position")
    show.add_argument("record")
