"""External engines: the example engines speak the protocol; misbehaving ones forfeit.

Every test also checks that no engine process (nor a child it started) is left
running afterwards.
"""
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

import boardlab
from boardlab.agents import EngineFailure, make_agent
from boardlab.arena.game_runner import TimeControl, run_game
from boardlab.core.errors import OptionError
from boardlab.core.record import check_record

ROOT = Path(__file__).resolve().parent.parent
PY_ENGINE = f"{sys.executable} {ROOT / 'examples/engines/random_engine.py'}"
BAD = f"{sys.executable} {ROOT / 'tests/engines/bad_engine.py'}"
SPECS = ["carteso(size=4)", "rumbo(size=4)", "cartagena", "cartagena(players=3)",
         "ctor(size=8,secret_squares=on)", "ctor(teams=2v2,size=8)"]


@pytest.fixture(scope="module")
def c_engine(tmp_path_factory):
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("no C compiler (cc/gcc) on this machine to build the C example engine")
    binary = tmp_path_factory.mktemp("engine") / "random_engine"
    subprocess.run([compiler, "-O2", "-Wall", "-Werror", "-o", str(binary),
                    str(ROOT / "examples/engines/random_engine.c")], check=True)
    return str(binary)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as handle:          # a zombie is not running
        return handle.read().split(")")[-1].split()[0] != "Z"


def _engine_children() -> list[int]:
    """Live engine processes whose parent is this test process."""
    mine = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        state, parent = stat.split(")")[-1].split()[:2]
        if ("bad_engine.py" in cmdline or "random_engine" in cmdline) and state != "Z" \
                and int(parent) == os.getpid():
            mine.append(int(entry.name))
    return mine


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("which", ["python", "c"])
def test_example_engines_play_whole_games(spec, which, request):
    engine = PY_ENGINE if which == "python" else request.getfixturevalue("c_engine")
    game = boardlab.make(spec)
    players = [f"engine(cmd={engine} {seat})" for seat in range(game.num_seats)]
    result = run_game(spec, players, seed=5, time_control=TimeControl(move=2))
    assert result.forfeit is None
    state = check_record(result.record)                 # the record replays to the same end
    assert state.is_terminal() and state.returns() == result.returns
    assert not _engine_children()


def test_engine_is_told_the_game_and_only_its_own_view(tmp_path):
    log = tmp_path / "dialogue.log"
    result = run_game("cartagena", [f"engine(cmd={PY_ENGINE} 1,log={log})", "random"], seed=3,
                      time_control=TimeControl(move=1), max_actions=12)
    assert result.forfeit is None
    lines = log.read_text().splitlines()
    assert lines[:2] == ["> boardlab 1", "< id name random-py"]
    assert "> newgame cartagena" in lines and "> seats green purple" in lines
    assert "> seat green" in lines
    views = [line for line in lines if line.startswith("> view ")]
    assert views and all('"hands":null' in v for v in views)      # never the others' cards
    gos = [line for line in lines if line.startswith("> go ")]
    assert gos[0] == "> go movetime 1000"


def test_game_clock_is_sent_and_counts_down(tmp_path):
    slow = tmp_path / "slow.py"                      # thinks 50 ms a move
    slow.write_text(Path(ROOT / "examples/engines/random_engine.py").read_text().replace(
        'print(f"move', 'import time; time.sleep(0.05); print(f"move'))
    log = tmp_path / "dialogue.log"
    run_game("carteso(size=4)", [f"engine(cmd={sys.executable} {slow},log={log})", "random"],
             seed=3, time_control=TimeControl(game=5, increment=0.1), max_actions=6)
    gos = [line.split() for line in log.read_text().splitlines() if line.startswith("> go")]
    clocks = [int(words[3]) for words in gos]
    assert gos[0][2:] == ["clock", "5000", "inc", "100"]
    steps = [later - earlier for earlier, later in zip(clocks, clocks[1:])]
    assert len(clocks) == 3 and all(step <= 51 for step in steps), steps   # +100 - >= 50


@pytest.mark.parametrize("mode, kind", [
    ("crash", "crash"), ("hang", "timeout"), ("garbage", "garbage"), ("illegal", "illegal"),
    ("wrong-version", "garbage"), ("long", "garbage"), ("late", "timeout")])
def test_misbehaving_engine_forfeits_and_is_killed(mode, kind):
    spec = "carteso(size=4)"
    started = time.monotonic()
    result = run_game(spec, [f"engine(cmd={BAD} {mode},grace=0.3)", "random"], seed=2,
                      time_control=TimeControl(move=0.3))
    assert result.forfeit is not None and result.forfeit["kind"] == kind, result.forfeit
    assert result.forfeit["seat"] == "vertical"
    assert result.returns == [-1.0, 1.0]
    assert result.record["meta"]["forfeit"] == result.forfeit
    assert result.record["moves"][-1] == "resign"
    check_record(result.record)
    # The engine was killed, not waited for: a hanging one sleeps 600 s. The bound only
    # catches a stuck runner; a loaded machine stays far below it.
    assert time.monotonic() - started < 300
    assert not _engine_children()


def test_silent_engine_times_out_at_start_up():
    result = run_game("carteso(size=4)", ["random", f"engine(cmd={BAD} silent,startup=0.5)"],
                      seed=2)
    assert result.forfeit["kind"] == "timeout" and result.forfeit["seat"] == "horizontal"
    assert not _engine_children()


def test_children_of_a_hanging_engine_are_killed_too(tmp_path):
    pidfile = tmp_path / "child.pid"
    result = run_game("carteso(size=4)", [f"engine(cmd={BAD} child {pidfile},grace=0.2)",
                                          "random"], seed=2, time_control=TimeControl(move=0.5))
    assert result.forfeit["kind"] == "timeout"
    child = int(pidfile.read_text())
    deadline = time.monotonic() + 120              # a bound for a stuck kill only
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(child)
    assert not _engine_children()


def test_missing_program_or_log_folder_is_refused_before_any_game(tmp_path):
    game = boardlab.make("carteso(size=4)")
    with pytest.raises(OptionError, match="cannot run '/no/such/engine'"):
        make_agent("engine(cmd=/no/such/engine)", game, 0)
    with pytest.raises(OptionError, match="not on the PATH"):
        make_agent("engine(cmd=no-such-engine-program)", game, 0)
    with pytest.raises(OptionError, match="does not exist"):
        make_agent(f"engine(cmd={PY_ENGINE},log={tmp_path}/no/dir/x.log)", game, 0)
    with pytest.raises(OptionError, match="not an executable file"):
        make_agent(f"engine(cmd={tmp_path})", game, 0)                  # a folder
    with pytest.raises(OptionError, match="cannot write"):
        make_agent(f"engine(cmd={PY_ENGINE},log={tmp_path})", game, 0)  # a folder as log


def test_an_engine_that_exits_after_starting_forfeits_as_a_crash(tmp_path):
    script = tmp_path / "quitter.py"
    script.write_text("print('ok 1', flush=True)\n")
    result = run_game("carteso(size=4)", [f"engine(cmd={sys.executable} {script})", "random"],
                      seed=1, time_control=TimeControl(move=0.5))
    assert result.forfeit["kind"] == "crash" and "exited with code 0" in \
        result.forfeit["reason"]


def test_an_engine_that_exits_while_its_child_holds_the_output_forfeits_at_once(tmp_path):
    """The orphan keeps the pipe open, so no end of output comes: the runner must
    notice the exit itself, and stopping the reader must not wait for the orphan."""
    pidfile = tmp_path / "orphan.pid"
    try:
        result = run_game("carteso(size=4)", [f"engine(cmd={BAD} orphan {pidfile})", "random"],
                          seed=2, time_control=TimeControl(move=5))
        assert result.forfeit["kind"] == "crash", result.forfeit
        assert "exited with code 3" in result.forfeit["reason"]
        # The orphan holds the output open for 60 s: still alive, so nothing waited for it.
        assert _alive(int(pidfile.read_text()))
    finally:
        if pidfile.exists():
            os.kill(int(pidfile.read_text()), 9)
    assert not _engine_children()


@pytest.mark.parametrize("line, overflows", [("info thinking", False), ("x", True)])
def test_unread_output_is_capped(monkeypatch, line, overflows):
    """2 MB written in one go (32 times the cap set here): at most MAX_BUFFER bytes are kept;
    beyond it ``info`` lines are dropped and any other line makes the engine forfeit as
    ``garbage``."""
    from boardlab.agents import external
    monkeypatch.setattr(external, "MAX_BUFFER", 64 * 1024)
    count = 2_000_000 // (len(line) + 1)
    process = external.EngineProcess([sys.executable, "-c",
                                      f"import sys; sys.stdout.write({line + chr(10)!r} * "
                                      f"{count})"])
    try:
        assert process.proc.wait(timeout=600) == 0      # a bound for a stuck writer only
        reader = process.threads[0]         # it drains what the pipe still holds: on a busy
        reader.join(timeout=600)            # machine up to 64 KiB more, which would be read
        assert not reader.is_alive()        # in while the lines below are taken
        assert process.buffered <= 64 * 1024
        taken, failure = 0, None
        try:                        # up to the end of the output, or the overflow marker
            while process._take(120) is not None:
                taken += 1
                assert process.buffered <= 64 * 1024
        except EngineFailure as error:
            failure = error
        assert taken * (len(line) + 1) <= 64 * 1024
        assert (failure is not None) == overflows
        if overflows:
            assert failure.kind == "garbage" and "bytes of output" in failure.detail
    finally:
        process.kill()


def test_game_clock_is_enforced_for_engines(tmp_path):
    slow = tmp_path / "slow.py"
    slow.write_text(Path(ROOT / "examples/engines/random_engine.py").read_text().replace(
        'print(f"move', 'import time; time.sleep(0.15); print(f"move'))
    result = run_game("carteso(size=5)", [f"engine(cmd={sys.executable} {slow},grace=0.1)",
                                          "random"], seed=1,
                      time_control=TimeControl(game=0.6))
    assert result.forfeit is not None and result.forfeit["kind"] == "timeout"
    assert "game clock" in result.forfeit["reason"] or "in time" in result.forfeit["reason"]
    assert 2 <= result.forfeit["move_number"] <= 12
    assert not _engine_children()


def test_lines_written_without_being_asked_are_garbage(tmp_path):
    chatty = tmp_path / "chatty.py"
    chatty.write_text(Path(ROOT / "examples/engines/random_engine.py").read_text().replace(
        'print(f"move {choose(legal, view, rng)}", flush=True)',
        'print(f"move {choose(legal, view, rng)}\\nmove again", flush=True)'))
    # the opponent waits 0.3 s before each move, so the stray line has arrived before the
    # next go (an opponent that searched 300 iterations became too quick for that once the
    # search got 3x faster)
    slow = tmp_path / "slow.py"
    slow.write_text(Path(ROOT / "examples/engines/random_engine.py").read_text().replace(
        'print(f"move', 'import time; time.sleep(0.3); print(f"move'))
    result = run_game("carteso(size=4)", [f"engine(cmd={sys.executable} {chatty})",
                                          f"engine(cmd={sys.executable} {slow})"],
                      seed=1, time_control=TimeControl(move=10))
    assert result.forfeit["kind"] == "garbage" and "without being asked" in \
        result.forfeit["reason"]


def test_simultaneous_team_moves_reach_the_engine_once_revealed(tmp_path):
    spec = "ctor(teams=2v2,size=8,team_protocol=simultaneous)"
    log = tmp_path / "seat1.log"
    players = ["random", f"engine(cmd={PY_ENGINE} 4,log={log})", "random", "random"]
    result = run_game(spec, players, seed=3, time_control=TimeControl(move=1), max_actions=80)
    assert result.forfeit is None
    played = [line[len("> played "):] for line in log.read_text().splitlines()
              if line.startswith("> played ")]
    assert played and not any(text.endswith(":?") for text in played)
    state = boardlab.make(spec).new_initial_state(seed=3)
    for text in played:                              # what the engine got replays as it is
        state.play(text)
    assert state.history_text() == result.record["moves"][:len(played)]


def test_python_agent_that_raises_forfeits(monkeypatch):
    from boardlab.agents.random_agent import RandomAgent

    def broken(self, view, budget=None):
        raise ZeroDivisionError("oops")

    monkeypatch.setattr(RandomAgent, "act", broken)
    result = run_game("carteso(size=4)", ["greedy", "random"], seed=1)
    assert result.forfeit == {"seat": "horizontal", "kind": "crash",
                              "reason": "ZeroDivisionError: oops", "move_number": 2}


def test_engine_needs_a_command():
    game = boardlab.make("carteso(size=4)")
    with pytest.raises(OptionError, match="needs a command"):
        make_agent("engine", game, 0)
    with pytest.raises(OptionError, match="cmd"):
        make_agent("engine(cmd=python3 'unclosed)", game, 0)


def test_engine_failure_names_kind_and_detail():
    failure = EngineFailure("garbage", "expected 'move ...'")
    assert failure.kind == "garbage" and "expected" in str(failure)
