"""``boardlab soak``: the checks of a real server (durability, concurrency, secrets, load,
ladder)
and the reliability checks, all from :mod:`boardlab.checks`."""
from __future__ import annotations

import json

from ..core.errors import BoardlabError
from .common import interrupt_on_termination

SOAK_SPEC = "carteso(size=5)"     # a short two-seat game for the soak bots
LOAD_SPEC = "carteso(size=9)"     # the load benchmark's game
#: the secrets check's games: hidden hands and a pile (every profile and player count) ...
SECRETS_CARDS = [f"cartagena(profile={profile},players={players})"
                 for players in range(2, 6) for profile in ("basic", "advanced", "original")]
#: ... and secret squares with simultaneous team turns
SECRETS_SQUARES = [
    "ctor(size=8,teams=2v2,team_protocol=simultaneous,secret_squares=true,secret_count=1)",
    "ctor(size=8,teams=3v3,team_protocol=simultaneous,secret_squares=true,secret_count=2)",
    "ctor(size=8,secret_squares=true,secret_count=2)"]


def cmd_soak(args) -> int:
    """Durability, concurrency, secrets or load soak of a real server (a child process)."""
    interrupt_on_termination()          # SIGTERM ends it like Ctrl-C: the server is killed
    if args.check == "reliability":
        return _reliability(args)
    from ..checks import soak
    if args.check == "durability":
        if args.restarts < 1 or args.games < 1:
            raise BoardlabError("--restarts and --games must be at least 1")
        report = soak.durability(args.spec, args.restarts, args.games, db=args.db,
                                 seed=args.seed, processes=args.processes)
    elif args.check == "concurrency":
        if args.trials < 1:
            raise BoardlabError("--trials must be at least 1")
        report = soak.concurrency(args.spec, args.trials, db=args.db, seed=args.seed,
                                  processes=args.processes)
    elif args.check == "secrets":
        from ..checks.secrets_check import secrets
        if min(args.cartagena, args.ctor) < 0 or args.cartagena + args.ctor < 1 or \
                args.parallel < 1:
            raise BoardlabError("--cartagena and --ctor must be at least 0 (one game in "
                                "all), --parallel at least 1")
        report = secrets([(_valid_specs(SECRETS_CARDS), args.cartagena),
                          (_valid_specs(SECRETS_SQUARES), args.ctor)],
                         parallel=args.parallel, seed=args.seed)
    elif args.check == "ladder":
        from ..checks.ladderbench import ladder
        if args.bots < 2 or args.games < 1 or args.seconds <= 0 or args.think < 0 or \
                not 0 <= args.house <= 5:
            raise BoardlabError("--bots must be at least 2, --games at least 1, --seconds "
                                "above 0, --think at least 0 and --house 0 to 5")
        report = ladder(args.spec, args.bots, args.games, args.seconds, house=args.house,
                        think=args.think, db=args.db, seed=args.seed)
    else:
        from ..checks.loadbench import load
        if args.games < 1 or args.seconds <= 0 or args.think < 0:
            raise BoardlabError("--games must be at least 1, --seconds above 0 and --think "
                                "at least 0")
        report = load(args.spec, args.games, args.seconds, db=args.db, seed=args.seed,
                      think=args.think, processes=args.processes)
    print(json.dumps(report, indent=1))
    print("soak " + args.check + (": OK" if report["ok"] else ": FAILED"))
    return 0 if report["ok"] else 1


def _reliability(args) -> int:
    """Record fuzzing, hidden views, hostile engines and killed tournaments, in turn."""
    from ..checks.reliability import reliability
    if args.minutes <= 0:
        raise BoardlabError("--minutes must be above 0")
    outcomes = reliability(args.minutes, seed=args.seed)
    ok = not any(outcome.failed for outcome in outcomes)
    print("soak reliability" + (": OK" if ok else ": FAILED"))
    return 0 if ok else 1


def _valid_specs(specs: list[str]) -> list[str]:
    """The specs of ``specs`` that make a game (not every profile takes every count)."""
    import boardlab
    valid = []
    for spec in specs:
        try:
            boardlab.make(spec)
        except BoardlabError:
            continue
        valid.append(spec)
    return valid


def _processes_argument(parser, what: str) -> None:
    """Add ``--processes`` (1 or 2 servers on one database) to ``parser``."""
    parser.add_argument("--processes", type=int, default=1, choices=(1, 2),
                        help="`boardlab serve` processes on one database (default 1); 2 "
                        f"needs --db postgresql://...: {what}")


def _db_argument(parser) -> None:
    """Add ``--db`` (the server's database) to ``parser``."""
    parser.add_argument("--db", help="database URL or SQLite file (default: a file in a "
                        "temporary folder)")


def _timed_arguments(parser, seconds: float) -> None:
    """Add what the load and ladder benchmarks share to ``parser``: ``--seconds``,
    ``--db``, ``--spec`` and ``--think``."""
    parser.add_argument("--seconds", type=float, default=seconds,
                        help=f"how long (default {seconds:g})")
    _db_argument(parser)
    parser.add_argument("--spec", default=LOAD_SPEC, help="the game played, two seats "
                        f"(default {LOAD_SPEC})")
    parser.add_argument("--think", type=float, default=1.0, help="mean seconds a bot "
                        "thinks before a move, uniform over 0 to twice it (default 1: a "
                        "quick person; 0: it answers at once, a saturation test)")


def add_parsers(sub) -> None:
    """The subcommand soak and its checks."""
    soak = sub.add_parser("soak", help="soak a real server: SIGKILL-and-restart durability, "
                          "two simultaneous actions for one seat, secrets in every frame, "
                          "or latencies under load; or the reliability checks",
                          epilog="Runs `boardlab serve` on 127.0.0.1 as a child process in a "
                          "temporary folder (reliability: no server). Exit code 0 when every "
                          "invariant held, 1 if not. See docs/server-checks.md.")
    checks = soak.add_subparsers(dest="check", required=True)
    durable = checks.add_parser("durability", help="kill the server with SIGKILL and restart it "
                                "while bot clients play; every acknowledged action must stay")
    durable.add_argument("--restarts", type=int, default=200, help="kills and restarts "
                         "(default 200)")
    durable.add_argument("--games", type=int, default=4, help="games played at once, two "
                         "WebSocket clients each (default 4)")
    _db_argument(durable)
    durable.add_argument("--seed", type=int, help="seed of the bots and the kill times")
    _processes_argument(durable, "the bots use both; each restart kills one in turn, every "
                        "fourth both")
    durable.add_argument("--spec", default=SOAK_SPEC, help="the game the bots play, two "
                         f"seats (default {SOAK_SPEC})")
    racing = checks.add_parser("concurrency", help="two connections of one seat send two "
                               "different actions at one version; exactly one is accepted")
    racing.add_argument("--trials", type=int, default=1000, help="trials (default 1000)")
    racing.add_argument("--seed", type=int, help="seed of the moves chosen")
    _db_argument(racing)
    _processes_argument(racing, "the two racing connections go to different ones")
    racing.add_argument("--spec", default=SOAK_SPEC, help="the game played, two seats "
                        f"(default {SOAK_SPEC})")
    hidden = checks.add_parser("secrets", help="bots play games with hidden information; "
                               "every frame each connection receives must hold only what its "
                               "seat may know")
    hidden.add_argument("--cartagena", type=int, default=1000, help="games with hidden hands "
                        "and a pile, every profile and player count (default 1000)")
    hidden.add_argument("--ctor", type=int, default=1000, help="games with secret squares and "
                        "simultaneous team turns (default 1000)")
    hidden.add_argument("--parallel", type=int, default=8, help="games played at once "
                        "(default 8)")
    hidden.add_argument("--seed", type=int, help="seed of the games and the bots")
    loaded = checks.add_parser("load", help="many games at once for a while: latencies of "
                               "acks and updates, errors, the server's peak memory")
    loaded.add_argument("--games", type=int, default=200, help="games played at once, two "
                        "WebSocket bots each (default 200)")
    _timed_arguments(loaded, 180)
    _processes_argument(loaded, "each game's two seats play through different ones")
    loaded.add_argument("--seed", type=int, help="seed of the bots")
    laddered = checks.add_parser("ladder", help="a ladder of bot accounts playing through "
                                 "the bot API (event stream and game socket), several games "
                                 "at once each: latencies, games at once, CPU per action")
    laddered.add_argument("--bots", type=int, default=50, help="bot accounts (default 50)")
    laddered.add_argument("--house", type=int, default=0, help="house bots ai-1 ... ai-N in "
                          "the ladder too (0 to 5; default 0: their AI seats think in the "
                          "server, which the CPU figure then includes)")
    laddered.add_argument("--games", type=int, default=200, help="games at once the ladder "
                          "is to hold: each player may be in ceil(2 x games / players) "
                          "(default 200)")
    _timed_arguments(laddered, 60)
    laddered.add_argument("--seed", type=int, help="seed of the bots")
    reliable = checks.add_parser("reliability", help="in turn, for a bounded time: fuzzed "
                                 "records, hidden views of random positions, hostile "
                                 "engines, tournaments killed with SIGKILL and resumed")
    reliable.add_argument("--minutes", type=float, default=10.0, help="the whole run, shared "
                          "equally by the four checks (default 10)")
    reliable.add_argument("--seed", type=int, help="seed of every check")
