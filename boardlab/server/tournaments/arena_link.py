"""``boardlab tournament --db`` on a server's database: the engine tournament in the
server's tables too (docs/arena.md, "On the server's pages").

The arena keeps running the tournament as it always has (its configuration, lock and
records in its own tables, ``--resume``), and this mirror writes the same tournament into
the server's tables in the transaction that stores each game, so a server on that
database shows it on /tournaments and ``GET /api/tournaments/{id}`` while it runs (the
page polls). Standings are computed by the one standings code (arena/tiebreaks.py) from
the pairings, as for any server tournament.

- The tournament: a row of ``server_tournaments`` whose ``arena`` column names the run
  (the server's director leaves it alone: no route starts, pauses, ends, joins or leaves
  it), directed by the account ``arena`` (a bot account, made when missing).
- Its entrants: each participant is a **bot account** named after it (letters, digits,
  ``-`` and ``_`` kept, anything else a ``-``), made when missing and reused by later
  runs, so an engine's games and results gather on one profile like any bot's. An
  account that is a person's (or a house bot's) is refused: name the participant
  otherwise (``name=spec``).
- Each game: an ordinary finished server game (id ``TOURNAMENT-INDEX``) whose action log
  is the game's record (the moves in notation, a forfeit as a resignation or a loss on
  time, a game stopped by ``--max-actions`` as an abort), so the game page replays it;
  and its pairing (round: the tournament's cycle, white: the first side; a game of more
  than two sides a table: every side's account and points, revision 0009). A participant
  fills a side, a whole team in a team game, as in the server's own tournaments.
"""
from __future__ import annotations

import re

from sqlalchemy import Connection, Engine, func, inspect, insert, select, update
from sqlalchemy.exc import IntegrityError, SQLAlchemyError

from ...arena.schedule import sides_of
from ...arena.storage import Store
from ...arena.tournament import Tournament, participants_of
from ...core.driver import GameDriver
from ...core.errors import BoardlabError
from ...core.game import CHANCE, RESIGN
from ...core.record import check_record
from ...core.registry import make
from .. import migrations
from ..accounts import names
from ..accounts.bots import house_level
from ..accounts.users import NameTaken, Users, now
from ..lifecycle import listed_result
from ..log_entries import ABORT_TEXT, RESIGN_TEXT, TIMEOUT_TEXT, perform
from ..seats import HUMAN, new_token, token_hash
from ..store import ABORTED, OVER, Action, actions, games, players as game_players
from . import records
from .records import PAUSED, RUNNING
from .schema import pairings, players, tournaments

DIRECTOR = "arena"                 # the account that directs the arena's tournaments


def server_mirror(store: Store) -> ArenaLink | None:
    """The mirror of ``store`` when its database is a server's (its schema upgraded as the
    server upgrades it: Alembic), else None (the arena's tables only, as ever)."""
    try:
        with store.engine.connect() as db:
            found = inspect(db)
            server = found.has_table(migrations.VERSION_TABLE) or \
                found.has_table("server_games")
        if not server:
            return None
        migrations.upgrade(store.engine)
    except (SQLAlchemyError, migrations.Failed) as error:
        raise BoardlabError(f"cannot upgrade the server's tables in {store.safe_url}: "
                            f"{str(error).strip().splitlines()[0]}") from None
    return ArenaLink(store.engine)


def entrant_name(participant: str) -> str:
    """The bot account's name of a participant.

    >>> entrant_name("mcts(time=0.1)"), entrant_name("engine:my_bot"), entrant_name("x")
    ('mcts-time-0-1', 'engine-my_bot', 'x-bot')
    """
    text = re.sub(r"[^A-Za-z0-9_-]+", "-", participant)
    text = re.sub(r"-{2,}", "-", text).strip("-_")[:20].strip("-_")
    return text if len(text) >= 2 else (text + "-bot").lstrip("-")


def server_log(record: dict) -> tuple[list[Action], GameDriver]:
    """The server's action log of an arena game's record, and the driver that replayed it
    as the server will (BoardlabError when the two disagree)."""
    state = check_record(record)
    driver = GameDriver(make(record["spec"]), seed=record.get("seed", 0))
    log: list[Action] = []
    for seat, action in state.history:
        if seat == CHANCE:
            continue                      # the driver draws chance itself, from the seed
        if action == RESIGN:
            text = TIMEOUT_TEXT if state.lost_on_time else RESIGN_TEXT
        else:
            text = driver.state.action_to_string(action)
        perform(driver, seat, text)
        log.append(Action(seat, text))
    if not state.is_terminal():           # stopped by --max-actions: no result
        perform(driver, 0, ABORT_TEXT)
        log.append(Action(0, ABORT_TEXT))
    if list(driver.state.history) != list(state.history):
        raise BoardlabError(f"game of {record['spec']} seed {record.get('seed')}: its "
                            f"record does not replay the same on the server")
    return log, driver


class ArenaLink:
    """The server's copy of one arena tournament (a :class:`~boardlab.arena.tournament.
    Mirror`)."""

    def __init__(self, engine: Engine):
        self.engine = engine
        self.users = Users(engine)
        self.id: str | None = None
        self.accounts: dict[str, int] = {}

    # The run starts -------------------------------------------------------------------------
    def open(self, tournament: Tournament) -> None:
        self.accounts = self._entrants(list(participants_of(tournament.config)))
        self.id = self._tournament(tournament)
        done = {row.game_id for row in records.pairings_of(self.engine, self.id)}
        for row in tournament.rows():          # stored before: by a run without the server
            if self.game_id(row.idx) not in done:
                with self.engine.begin() as db:
                    self._write(db, tournament, row.idx, row.sides, row.scores, row.record,
                                row.forfeit)
        with self.engine.begin() as db:
            db.execute(update(tournaments).where(tournaments.c.id == self.id)
                       .values(status=RUNNING))

    def _entrants(self, participants: list[str]) -> dict[str, int]:
        accounts: dict[str, int] = {}
        taken: dict[str, str] = {}
        for participant in participants:
            username = entrant_name(participant)
            other = taken.setdefault(names.name_key(username), participant)
            if other != participant:
                raise BoardlabError(f"participants {other!r} and {participant!r} would both "
                                    f"be the server's bot {username!r}: name them "
                                    f"(name=spec)")
            accounts[participant] = self._bot(username, participant)
        return accounts

    def _bot(self, username: str, participant: str) -> int:
        """The bot account of a participant, made when missing."""
        hint = f"(participant {participant!r}; name it otherwise: name=spec)"
        user = self.users.find(username)
        if user is not None:
            if not user.bot or house_level(user) is not None or user.disabled:
                kind = "a disabled account" if user.disabled else "a house bot" \
                    if user.bot else "a person's account"
                raise BoardlabError(f"{username!r} is {kind} on this server {hint}")
            return user.id
        try:
            return self.users.create(names.check_name(username), None, bot=True)
        except (names.NameError_, NameTaken) as error:
            raise BoardlabError(f"{error} {hint}") from None

    def _director(self) -> int:
        user = self.users.find(DIRECTOR)
        return user.id if user is not None else self.users.create(DIRECTOR, None, bot=True)

    def _tournament(self, tournament: Tournament) -> str:
        """The server tournament of this run: found by its name, else made (with its
        players in the participants' order)."""
        found = self._find(tournament.name)
        if found is None:
            values = {"name": tournament.name[:100], "spec": tournament.game.spec,
                      "format": tournament.config["format"], "director": self._director(),
                      "clock": None, "rated": False, "rounds": tournament.config["rounds"],
                      "no_show": None, "duration": None, "started": now(),
                      "arena": tournament.name}
            try:
                found = records.add(self.engine, values, list(self.accounts.values()))
            except IntegrityError:            # made at this moment by another runner
                found = self._find(tournament.name)
                assert found is not None, "the arena column is unique"
        self._players(found)
        return found

    def _find(self, name: str) -> str | None:
        with self.engine.connect() as db:
            return db.execute(select(tournaments.c.id)
                              .where(tournaments.c.arena == name)).scalar()

    def _players(self, tournament_id: str) -> None:
        """Add the participants missing from the tournament's players (none, normally)."""
        with self.engine.begin() as db:
            have = set(db.execute(select(players.c.user_id)
                                  .where(players.c.tournament_id == tournament_id)).scalars())
            last = db.execute(select(func.max(players.c.seed))
                              .where(players.c.tournament_id == tournament_id)).scalar()
            seed = -1 if last is None else last
            for user_id in self.accounts.values():
                if user_id not in have:
                    seed += 1
                    db.execute(insert(players).values(tournament_id=tournament_id,
                                                      user_id=user_id, seed=seed,
                                                      active=True, joined=now()))

    # Each game ------------------------------------------------------------------------------
    def game_id(self, index: int) -> str:
        return f"{self.id}-{index}"

    def add(self, db: Connection, tournament: Tournament, scheduled, scores: list[float],
            result: dict) -> None:
        self._write(db, tournament, scheduled.index, scheduled.sides, scores,
                    result["record"], result["forfeit"])

    def _write(self, db: Connection, tournament: Tournament, index: int, sides,
               scores: list[float], record: dict, forfeit: dict | None) -> None:
        """The game, its log, its players and its pairing, in the transaction ``db``."""
        log, driver = server_log(record)
        game, users = tournament.game, [self.accounts[name] for name in sides]
        seats: list[dict] = [{}] * game.num_seats
        for members, user_id in zip(sides_of(game), users):
            for seat in members:
                seats[seat] = {"kind": HUMAN, "token": token_hash(new_token()),
                               "user": user_id}
        game_id, when = self.game_id(index), now()
        db.execute(insert(games).values(
            id=game_id, spec=game.spec, seed=record.get("seed", 0), seats=seats,
            status=ABORTED if driver.aborted else OVER, clock=None, pool=None,
            result=listed_result(driver.view(None)["result"]), created=when, updated=when))
        db.execute(insert(game_players), [{"game_id": game_id, "seat": seat,
                                           "user_id": held["user"]}
                                          for seat, held in enumerate(seats)])
        if log:
            db.execute(insert(actions), [{"game_id": game_id, "idx": number,
                                          "seat": action.seat, "move": action.move,
                                          "key": None, "clocks": None, "created": when}
                                         for number, action in enumerate(log)])
        round_ = index // tournament.games_a_round + 1
        table = len(users) > 2
        db.execute(insert(pairings).values(
            tournament_id=self.id, round=round_, white=users[0], black=users[1],
            game_id=game_id, score=scores[0], sides=users if table else None,
            points=list(scores) if table else None,
            forfeit=(forfeit or {}).get("kind", "forfeit")[:16] if forfeit else None,
            created=when, finished=when))
        db.execute(update(tournaments).where(tournaments.c.id == self.id,
                                             tournaments.c.round < round_)
                   .values(round=round_))

    def where(self) -> str:
        return f"/tournament/{self.id}"

    # The run ends ---------------------------------------------------------------------------
    def close(self, tournament: Tournament, over: bool) -> None:
        """Over when every game is stored; paused otherwise (``--resume`` goes on)."""
        if self.id is not None:
            records.move(self.engine, self.id, (RUNNING, PAUSED),
                         records.OVER if over else PAUSED)
