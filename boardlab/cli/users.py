"""``boardlab user create|create-bots|reset-password|disable|token|revoke-tokens``: accounts,
for whoever runs the server (a bot account's API token is printed once, when it is made)."""
from __future__ import annotations

import getpass
import sys


def _read_password(args, required: bool) -> str | None:
    """The password from stdin (one line) or asked twice at the terminal; None for a bot
    created without one."""
    from ..core.errors import BoardlabError
    if args.password_stdin:
        password = sys.stdin.readline().rstrip("\r\n")
    elif not required:
        return None
    else:
        password = getpass.getpass("password: ")
        if getpass.getpass("again: ") != password:
            raise BoardlabError("the two passwords differ")
    from ..server.accounts.names import check_password
    try:
        return check_password(password)
    except ValueError as error:
        raise BoardlabError(str(error)) from None


def cmd_user(args) -> int:
    """Create an account, set a new password (ending its sessions), or disable one."""
    from ..arena.storage import database_url
    from ..core.errors import BoardlabError
    from ..server.accounts.bots import house_level, issue, revoke
    from ..server.accounts.names import NameError_, check_name
    from ..server.accounts.users import Users
    from ..server.store import DEFAULT_DB, Store
    store = Store(database_url(args.db or DEFAULT_DB))
    try:
        users = Users(store.engine)
        if args.user_command == "create":
            try:
                name = check_name(args.name)
            except NameError_ as error:
                raise BoardlabError(str(error)) from None
            password = _read_password(args, required=not args.bot)
            user_id = users.create(name, password, bot=args.bot)
            print(f"created {'bot ' if args.bot else ''}account {name}")
            if args.bot:
                print(f"its API token (shown once): {issue(store.engine, user_id)}")
            return 0
        if args.user_command == "create-bots":
            return _create_bots(store.engine, args.prefix, args.count)
        user = users.find(args.name)
        if user is None:
            raise BoardlabError(f"no account named {args.name!r}")
        if args.user_command in ("token", "revoke-tokens"):
            if not user.bot or house_level(user) is not None:
                raise BoardlabError(f"{user.username} is not a bot account of its own")
            if args.user_command == "token":
                print(f"a new API token of {user.username} (shown once): "
                      f"{issue(store.engine, user.id)}")
            else:
                print(f"revoked {revoke(store.engine, user.id)} API token(s) of "
                      f"{user.username}")
        elif args.user_command == "reset-password":
            password = _read_password(args, required=True)
            assert password is not None
            users.set_password(user.id, password)
            print(f"new password for {user.username}; its sessions ended")
        else:
            users.disable(user.id)
            print(f"disabled {user.username}; its sessions ended")
        return 0
    finally:
        store.dispose()


MAX_BOTS = 200                  # bot accounts one create-bots makes


def _create_bots(engine, prefix: str, count: int) -> int:
    """PREFIX-1 ... PREFIX-COUNT, bot accounts made together (all or none); one line
    ``NAME TOKEN`` each on stdout, the only time the tokens are shown."""
    from ..core.errors import BoardlabError
    from ..server.accounts.bots import create_many
    from ..server.accounts.names import NameError_, check_name
    if not 1 <= count <= MAX_BOTS:
        raise BoardlabError(f"create-bots makes 1 to {MAX_BOTS} accounts at once")
    try:
        made = [check_name(f"{prefix}-{number}") for number in range(1, count + 1)]
    except NameError_ as error:
        raise BoardlabError(f"{error} (the names are {prefix}-1 ... {prefix}-{count})") \
            from None
    try:
        tokens = create_many(engine, made)
    except ValueError as error:
        raise BoardlabError(str(error)) from None
    for name, token in zip(made, tokens):
        print(name, token)
    print(f"created {count} bot account(s) {made[0]} ... {made[-1]}; their API tokens, "
          "above, are shown once", file=sys.stderr)
    return 0


def add_parsers(sub) -> None:
    """The subcommand user (create, reset-password, disable)."""
    user = sub.add_parser("user", help="the game server's accounts: create, reset-password, "
                          "disable", epilog="docs/accounts.md")
    action = user.add_subparsers(dest="user_command", required=True)
    create = action.add_parser("create", help="create an account")
    create.add_argument("name")
    create.add_argument("--bot", action="store_true", help="a bot account (marked BOT; no "
                        "password needed; its API token is printed once)")
    many = action.add_parser("create-bots", help="bot accounts PREFIX-1 ... PREFIX-N at "
                             "once (all or none): one line 'NAME TOKEN' each, the tokens "
                             "shown once", epilog="docs/competitions.md")
    many.add_argument("prefix", help="the names' beginning, e.g. student")
    many.add_argument("count", type=int, metavar="N", help=f"how many (1 to {MAX_BOTS})")
    reset = action.add_parser("reset-password", help="set a new password; every session of "
                              "the account ends")
    reset.add_argument("name")
    disable = action.add_parser("disable", help="the account can no longer sign in; its "
                                "sessions end")
    disable.add_argument("name")
    token = action.add_parser("token", help="a new API token of a bot account (printed "
                              "once; its other tokens stay)")
    token.add_argument("name")
    revoke = action.add_parser("revoke-tokens", help="every API token of a bot account "
                               "stops working")
    revoke.add_argument("name")
    for command in (create, reset):
        command.add_argument("--password-stdin", action="store_true", help="read the password "
                             "from the first line of standard input (else it is asked for)")
    for command in (create, many, reset, disable, token, revoke):
        command.add_argument("--db", help="database URL or SQLite file (default "
                             "boardlab-server.db in the current folder)")
