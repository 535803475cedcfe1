"""Reliability checks under hostile input, bounded in time (issue 25, point 7).

``boardlab soak reliability [--minutes M]`` runs, in turn, each for its share of the time:

- **records**: a seeded fuzzer changes valid records of every game (cut short, bytes
  flipped, fields of the wrong type or dropped, moves edited, other versions, huge numbers,
  deep nesting: :func:`mutate`); loading one either succeeds or raises ``RecordError`` with
  a message, nothing else.
- **hidden-views**: random positions of every configuration with hidden information, each
  with a twin sampled from one seat's view (:func:`hidden_twins`): the two give that seat,
  and a spectator, byte-identical views (:func:`twin_difference`).
- **hostile-engines**: games of each misbehaving engine of ``tests/engines/bad_engine.py``
  (a source checkout) against ``random`` through the arena's runner: each forfeits with
  the kind its misbehaviour calls for, and nothing hangs.
- **tournament-kills**: ``boardlab tournament`` as a child process on a temporary SQLite
  database, killed with SIGKILL mid-run a few times and continued with ``--resume``: at the
  end every scheduled game is stored exactly once and the standings count each one.

Each check is a function ``check(seconds, rng, limit=None) -> Outcome`` that tries cases
until its time is used (at least one), or exactly ``limit`` cases (the tests' tiny runs).
"""
from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import boardlab

from ..core.errors import RecordError

HANG = 120.0        # seconds: a hostile engine's game taking longer means something hung
WAIT = 120.0        # seconds: only bounds a stuck child process (a loaded machine)


@dataclass
class Outcome:
    """What one check found: the cases it tried and the failures among them."""
    name: str
    cases: int = 0
    failed: int = 0
    failures: list[str] = field(default_factory=list)      # the first 20 described
    note: str = ""

    def fail(self, text: str) -> None:
        self.failed += 1
        if len(self.failures) < 20:
            self.failures.append(text)

    def line(self) -> str:
        text = f"{self.name}: {self.cases} cases tried, {self.failed} failures"
        return text + (f" ({self.note})" if self.note else "")


def _cases(seconds: float, limit: int | None):
    """Case numbers 0, 1, ...: ``limit`` of them, or (without one) until ``seconds`` have
    passed, at least one."""
    if limit is not None:
        yield from range(limit)
        return
    end = time.monotonic() + seconds
    case = 0
    while True:
        yield case
        case += 1
        if time.monotonic() >= end:
            return


def every_spec() -> list[str]:
    """Every registered game in the configurations its conformance suite covers."""
    return [spec for cls in boardlab.games() for spec in cls.conformance_specs or (cls.name,)]


# Records ------------------------------------------------------------------------------------
ODD_VALUES = (None, True, False, 0, -1, 2**70, -2**63 - 1, 1e308, 0.5, "", "x", [], {}, [[[]]],
              {"a": {"b": []}}, ["x"] * 3)
FIELDS = ("format", "game", "spec", "options", "seats", "players", "moves", "result",
          "created", "seed", "meta", "agreed_draw")


def finished_record(spec: str, seed: int = 5) -> dict:
    """The record (as data) of a random game of ``spec`` played to its end."""
    state = boardlab.make(spec).new_initial_state(seed=3).played_out(seed)
    players = [f"p{seat}" for seat in range(state.game.num_seats)]
    return json.loads(boardlab.dumps(state, players=players))


def mutate(record: dict, text: str, rng: random.Random) -> str:
    """One hostile or careless change of a valid record (``text`` is ``record`` as JSON)."""
    kind = rng.randrange(9)
    if kind == 0:                                       # cut short
        return text[:rng.randrange(len(text))]
    if kind == 1:                                       # bytes flipped
        chars = list(text)
        for _ in range(rng.randint(1, 4)):
            chars[rng.randrange(len(chars))] = chr(rng.choice((rng.randrange(32, 127),
                                                               rng.randrange(0, 0x3000))))
        return "".join(chars)
    record = json.loads(text)
    if kind == 2:                                       # a field of the wrong type
        record[rng.choice(FIELDS)] = rng.choice(ODD_VALUES)
    elif kind == 3 and isinstance(record.get("result"), dict):     # a result field
        record["result"][rng.choice(("returns", "winner", "scores", "x"))] = \
            rng.choice(ODD_VALUES + (record["seats"],))
    elif kind == 4:                                     # a field dropped
        record.pop(rng.choice(FIELDS), None)
    elif kind == 5 and record["moves"]:                 # the moves edited
        moves = record["moves"]
        i = rng.randrange(len(moves))
        choice = rng.randrange(4)
        if choice == 0:
            del moves[i:]
        elif choice == 1:
            moves.insert(i, moves[i])
        elif choice == 2:
            moves[i] = rng.choice(("", "pass", "resign", "zz99", moves[0] + "x", "\x00"))
        else:
            j = rng.randrange(len(moves))
            moves[i], moves[j] = moves[j], moves[i]
    elif kind == 6:                                     # another version
        record["format"] = rng.choice(("boardlab-record/0", "boardlab-record/3",
                                       "BOARDLAB-RECORD/1", "boardlab-record/1 ", 1, 2.0))
    text = json.dumps(record)
    if kind == 7:                                       # huge numbers
        digits = rng.choice(("9" * 5000, "1" + "0" * 40, "1e999", "-1e999", "NaN"))
        return text.replace(rng.choice(('0', '1', '2', '3')), digits, 1)
    if kind == 8:                                       # deep nesting in a value
        depth = rng.choice((500, 990, 3000, 50_000))
        key = rng.choice(FIELDS)
        return text.replace(f'"{key}": ', f'"{key}": ' + "[" * depth + "]" * depth + ", "
                            f'"_{key}": ', 1)
    return text


def fuzz_case(record: dict, rng: random.Random) -> tuple[str, str | None]:
    """Load one mutation of ``record`` (or of its first half, unfinished): ("loaded" or
    "refused", None), or ("failed", what went wrong)."""
    unfinished = {**record, "moves": record["moves"][:len(record["moves"]) // 2],
                  "result": None}
    base = rng.choice((record, unfinished))
    text = mutate(base, json.dumps(base, indent=rng.choice((None, 1))), rng)
    try:
        boardlab.loads(text)
    except RecordError as error:
        if not str(error):
            return "failed", "a RecordError without a message"
        return "refused", None
    except Exception as error:          # noqa: BLE001 - what the check looks for
        return "failed", f"{type(error).__name__}: {error}"[:300]
    return "loaded", None


def check_records(seconds: float, rng: random.Random, limit: int | None = None) -> Outcome:
    outcome = Outcome("records")
    specs, records = every_spec(), {}
    counts = {"loaded": 0, "refused": 0}
    for case in _cases(seconds, limit):
        spec = rng.choice(specs)
        if spec not in records:
            records[spec] = finished_record(spec)
        kind, failure = fuzz_case(records[spec], rng)
        outcome.cases += 1
        if failure:
            outcome.fail(f"{spec} case {case}: {failure}")
        else:
            counts[kind] += 1
    outcome.note = f"{counts['loaded']} loaded, {counts['refused']} refused"
    return outcome


# Hidden views -------------------------------------------------------------------------------
def hidden_specs() -> list[str]:
    """Every covered configuration in which a seat does not see everything."""
    return [spec for spec in every_spec() if not boardlab.make(spec).perfect_information]


def hidden_twins(spec: str, seed: int, every: int = 9):
    """(game, state, seat, twin) along a random game of ``spec``: every ``every`` moves and
    at the end, each seat's twin, sampled from its view, differs from the state at most in
    what that seat cannot see."""
    game = boardlab.make(spec)
    rng = random.Random(seed)
    state = game.new_initial_state(seed=seed)
    step = 0
    while not state.is_terminal():
        if step % every == 0:
            for seat in range(game.num_seats):
                yield game, state, seat, game.determinize(state.view(seat), rng.randrange(2**31))
        step += 1
        seat = rng.choice(state.acting_seats())
        state.apply(rng.choice(state.legal_actions_for(seat)), seat=seat)
    for seat in range(game.num_seats):                  # and the end of the game
        yield game, state, seat, game.determinize(state.view(seat), rng.randrange(2**31))


def _dump(data) -> str:
    return json.dumps(data, sort_keys=True, default=str)


def twin_difference(state, seat: int, twin) -> str | None:
    """Who tells ``state`` and its ``twin`` (sampled from ``seat``'s view) apart: None when
    neither ``seat`` nor a spectator can."""
    if _dump(twin.view(seat)) != _dump(state.view(seat)):
        return f"seat {seat} tells the twins apart"
    if _dump(twin.view(None)) != _dump(state.view(None)):
        return "a spectator tells the twins apart"
    return None


def twins_differ(state, twin) -> bool:
    """Whether the twins hold different hidden information (else the check says nothing)."""
    return _dump(twin.summary()) != _dump(state.summary())


def check_hidden_views(seconds: float, rng: random.Random, limit: int | None = None) -> Outcome:
    outcome = Outcome("hidden-views")
    specs = hidden_specs()
    differ = 0
    games = 0
    for case in _cases(seconds, limit):
        spec, seed = specs[case % len(specs)], rng.randrange(2**31)
        games += 1
        for _, state, seat, twin in hidden_twins(spec, seed, every=rng.randint(3, 12)):
            outcome.cases += 1
            failure = twin_difference(state, seat, twin)
            if failure:
                outcome.fail(f"{spec} seed {seed}, move {len(state.history)}: {failure}")
            differ += twins_differ(state, twin)
    if not differ:
        outcome.fail("no twin differed in hidden information (the check would be empty)")
    outcome.note = f"{games} games of {min(games, len(specs))} configurations, " \
                   f"{differ} twins differed"
    return outcome


# Hostile engines ----------------------------------------------------------------------------
#: the repository's hostile engine (boardlab/checks/ -> the checkout's tests/engines/)
HOSTILE_ENGINE = Path(__file__).resolve().parents[2] / "tests" / "engines" / "bad_engine.py"
#: each misbehaviour of the hostile engine and the forfeit it must end in
HOSTILE_MODES = {"crash": "crash", "hang": "timeout", "garbage": "garbage",
                 "illegal": "illegal", "wrong-version": "garbage", "long": "garbage",
                 "late": "timeout", "silent": "timeout", "child": "timeout",
                 "orphan": "crash"}
ENGINE_SPEC = "carteso(size=4)"         # a short two-seat game


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat") as stat:        # a zombie is gone
            return stat.read().rsplit(")", 1)[-1].split()[0] != "Z"
    except OSError:
        return True


def _end(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def hostile_game(mode: str, seat: int, seed: int, folder: Path) -> str | None:
    """One game of the hostile engine in ``mode`` at ``seat`` against ``random``: None, or
    what went wrong."""
    from ..arena.game_runner import TimeControl, run_game
    pidfile = folder / f"{mode}-{seed}.pid"
    engine = f"engine(cmd={sys.executable} {HOSTILE_ENGINE} {mode} {pidfile}," \
             "grace=0.3,startup=1)"
    players = ["random", "random"]
    players[seat] = engine
    # an orphan keeps the output open: the runner notices the exit itself, within 5 s
    move = 5.0 if mode == "orphan" else 0.3
    started = time.monotonic()
    try:
        result = run_game(ENGINE_SPEC, players, seed=seed, time_control=TimeControl(move=move))
    finally:
        if mode == "orphan" and pidfile.exists():  # in a session of its own: not the
            _end(int(pidfile.read_text()))         # runner's to kill; it sleeps 60 s
    took = time.monotonic() - started
    forfeit = result.forfeit or {}
    expected = HOSTILE_MODES[mode]
    name = boardlab.make(ENGINE_SPEC).seat_names[seat]
    if forfeit.get("kind") != expected or forfeit.get("seat") != name:
        return f"{mode} at {name}: forfeit {result.forfeit}, not {expected} of {name}"
    if result.record["moves"][-1] != "resign" or result.record["meta"].get("forfeit") != forfeit:
        return f"{mode}: the record does not end in the forfeit: {result.record['moves'][-3:]}"
    if took > HANG:
        return f"{mode}: the game took {took:.0f} s"
    if mode == "child" and pidfile.exists():       # the hanging engine's child is killed too
        child = int(pidfile.read_text())
        deadline = time.monotonic() + WAIT
        while _alive(child) and time.monotonic() < deadline:
            time.sleep(0.05)
        if _alive(child):
            return f"child: the engine's child {child} still runs"
    return None


def check_hostile_engines(seconds: float, rng: random.Random,
                          limit: int | None = None) -> Outcome:
    outcome = Outcome("hostile-engines")
    if not HOSTILE_ENGINE.exists():
        outcome.note = f"skipped: {HOSTILE_ENGINE} is missing (a source checkout has it)"
        return outcome
    modes = sorted(HOSTILE_MODES)
    folder = Path(tempfile.mkdtemp(prefix="boardlab-reliability-"))
    try:
        for case in _cases(seconds, limit):
            mode, seat, seed = modes[case % len(modes)], rng.randrange(2), rng.randrange(2**31)
            outcome.cases += 1
            try:
                failure = hostile_game(mode, seat, seed, folder)
            except Exception as error:      # noqa: BLE001 - the runner must not raise
                failure = f"{mode}: the runner raised {type(error).__name__}: {error}"
            if failure:
                outcome.fail(failure)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    outcome.note = f"{min(outcome.cases, len(modes))} misbehaviours"
    return outcome


# Tournament kills ---------------------------------------------------------------------------
TOURNAMENT_SPEC = "carteso(size=5)"


def _tournament(folder: Path, db: str, name: str, arguments: list[str]) -> subprocess.Popen:
    """``boardlab tournament`` as a child in its own process group, output to files."""
    command = [sys.executable, "-m", "boardlab.cli", "tournament", *arguments, "--db", db,
               "--jobs", "1", "--plot", str(folder / f"{name}.png")]
    with open(folder / "out", "a") as out:
        return subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, cwd=folder, start_new_session=True)


def _kill(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait(timeout=WAIT)


def killed_tournament(folder: Path, rng: random.Random, kills: int,
                      rounds: int) -> tuple[int, str | None]:
    """A tournament killed up to ``kills`` times mid-run and resumed: the kills done, and
    None or what went wrong."""
    from sqlalchemy import create_engine

    from ..arena.storage import Store
    from ..arena.tournament import Tournament
    db = str(folder / "t.db")
    reader = create_engine(f"sqlite:///file:{db}?mode=ro&uri=true")
    name = f"kill-{rng.randrange(10**6)}"
    arguments = [TOURNAMENT_SPEC, "random", "random", "--rounds", str(rounds), "--name", name,
                 "--seed", str(rng.randrange(2**31))]
    process = _tournament(folder, db, name, arguments)
    killed = 0
    try:
        while True:
            stored = _stored(reader, name)
            deadline = time.monotonic() + WAIT      # until one more game is stored
            while _stored(reader, name) <= stored and process.poll() is None:
                if time.monotonic() > deadline:
                    return killed, "the tournament stored no game for a long time"
                time.sleep(0.02)
            if process.poll() is not None:
                break
            if killed == kills:
                process.wait(timeout=WAIT * 10)
                break
            time.sleep(rng.uniform(0, 0.1))             # somewhere in the next game
            if process.poll() is not None:              # it was done meanwhile
                break
            _kill(process)
            killed += 1
            process = _tournament(folder, db, name, ["--resume", name])
    finally:
        reader.dispose()
        if process.poll() is None:
            _kill(process)
    if process.returncode != 0:
        return killed, f"the tournament exited with {process.returncode}: " \
            + (folder / "out").read_text()[-300:]
    store = Store(db, create=False)
    try:
        tournament = Tournament.resume(store, name)
        indices = sorted(row.idx for row in tournament.rows())
        scheduled = sorted(g.index for g in tournament.games)
        counted = sum(line.games for line in tournament.standings())
    finally:
        store.dispose()
    if indices != scheduled:
        return killed, f"after {killed} kills the stored games are {indices}, not {scheduled}"
    if counted != 2 * len(scheduled):
        return killed, f"the standings count {counted} games of {len(scheduled)} (two sides " \
            "each)"
    return killed, None


def _stored(reader, name: str) -> int:
    """How many games of tournament ``name`` are stored (0 before it exists). ``reader``
    is a read-only engine: a Store would create the tables, racing the child's own
    creation of them."""
    from sqlalchemy import func, select
    from sqlalchemy.exc import SQLAlchemyError

    from ..arena.storage import games, tournaments
    query = select(func.count()).select_from(games.join(tournaments)) \
        .where(tournaments.c.name == name)
    try:
        with reader.connect() as db:
            return db.execute(query).scalar_one()
    except SQLAlchemyError:             # no file or tables yet, or the child is writing
        return 0


def check_tournament_kills(seconds: float, rng: random.Random,
                           limit: int | None = None, kills: int = 3,
                           rounds: int = 12) -> Outcome:
    """Tournaments of ``rounds`` rounds (two games each), each killed ``kills`` times."""
    outcome = Outcome("tournament-kills")
    done = 0
    for case in _cases(seconds, limit):
        folder = Path(tempfile.mkdtemp(prefix="boardlab-reliability-"))
        try:
            outcome.cases += 1
            killed, failure = killed_tournament(folder, rng, kills, rounds)
            done += killed
            if failure:
                outcome.fail(f"tournament {case}: {failure}")
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    outcome.note = f"{done} SIGKILLs and resumes in all"
    return outcome


# The command --------------------------------------------------------------------------------
CHECKS = (check_records, check_hidden_views, check_hostile_engines, check_tournament_kills)


def reliability(minutes: float = 10.0, seed: int | None = None, out=None,
                checks=None) -> list[Outcome]:
    """Run every check (of ``checks``, default :data:`CHECKS`) for its share of
    ``minutes``; print one line each, and its failures; return the outcomes."""
    out = out or sys.stdout
    checks = CHECKS if checks is None else checks
    seed = random.randrange(2**31) if seed is None else seed
    print(f"reliability: seed {seed}, {minutes:g} minutes", file=out, flush=True)
    outcomes = []
    for check in checks:
        outcome = check(minutes * 60 / len(checks), random.Random(f"{seed}-{check.__name__}"))
        print(outcome.line(), file=out, flush=True)
        for failure in outcome.failures:
            print(f"  {failure}", file=out, flush=True)
        outcomes.append(outcome)
    return outcomes
