"""`boardlab connect`: a line-protocol engine plays a seat of a server game over real sockets.

A real `boardlab serve --port 0` runs on 127.0.0.1; the tests play the other seat through a
WebSocket client. Timeouts are generous (a loaded 2-core machine) and only bound the run.
"""
import json
import random
import signal
import socket
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import pytest

import boardlab
from boardlab.core.driver import GameDriver
from boardlab.core.record import check_record
from boardlab.clients.connect import ConnectError, seat_url

httpx = pytest.importorskip("httpx")
websockets_sync = pytest.importorskip("websockets.sync.client")

ROOT = Path(__file__).resolve().parent.parent
ENGINE = f"{sys.executable} {ROOT / 'examples/engines/random_engine.py'}"
BAD_ENGINE = f"{sys.executable} {ROOT / 'tests/engines/bad_engine.py'}"
WAIT = 180                    # seconds: only bounds a run that went wrong


@contextmanager
def server(folder: Path, port: int = 0, limits: str | None = None):
    """A real `boardlab serve` on 127.0.0.1; yields its http URL (ending in /).
    ``limits``: the flood limits as JSON (the soak checks' entry point serves then)."""
    command = ["boardlab.cli", "serve", "--port", str(port), "--db",
               str(folder / "server.db")]
    if limits is not None:
        command = ["boardlab.checks.soak", "serve", "127.0.0.1", str(port),
                   f"sqlite:///{folder / 'server.db'}", limits]
    process = subprocess.Popen([sys.executable, "-m", *command],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               cwd=folder)
    try:
        line = process.stdout.readline()
        assert line.startswith("boardlab server: open http://127.0.0.1:"), \
            line + process.stderr.read()
        yield line.split("open ")[1].split()[0]
    finally:
        process.kill()
        process.wait(timeout=60)


@pytest.fixture(scope="module")
def url(tmp_path_factory):
    with server(tmp_path_factory.mktemp("connect")) as base:
        yield base


def create(base, seats, spec="carteso(size=5)", **extra):
    response = httpx.post(base + "api/games", json={"spec": spec, "seats": seats, **extra},
                          timeout=WAIT)
    assert response.status_code == 201, response.text
    return response.json()


def bridge(*args):
    """`boardlab connect ...` started in the background."""
    return subprocess.Popen([sys.executable, "-m", "boardlab.cli", "connect", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=ROOT)


def finish(process):
    out, err = process.communicate(timeout=WAIT)
    return process.returncode, out, err


def play_until_over(link, seat, rng, messages=None):
    """Play ``seat`` (random legal moves) over a WebSocket until the game is over.

    Returns the last view; ``messages`` collects every message received.
    """
    with websockets_sync.connect(link, open_timeout=WAIT) as ws:
        return play_on(ws, seat, rng, messages)


def play_on(ws, seat, rng, messages=None, stop_at=None):
    """Play on an open socket until the game is over (or its version reaches ``stop_at``)."""
    version, acted = -1, None
    while True:
        message = json.loads(ws.recv(timeout=WAIT))
        if messages is not None:
            messages.append(message)
        assert message["type"] in ("sync", "update", "ack"), message
        if message["type"] == "ack":
            continue
        version, view = message["version"], message["view"]
        if view["terminal"] or (stop_at is not None and version >= stop_at):
            return view
        if view["seats"][seat] in view["acting"] and acted != version:
            acted = version
            ws.send(json.dumps({"type": "action", "seat": seat, "version": version,
                                "move": rng.choice(view["legal"]), "key": f"h-{version}"}))


def engine_processes(marker: str) -> list[int]:
    """Live processes whose command line holds ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
                state = (entry / "stat").read_text().split(")")[-1].split()[0]
            except OSError:
                continue
            if marker in cmdline and "boardlab.cli" not in cmdline and state != "Z":
                found.append(int(entry.name))
    return found


def reference_views(record, seat):
    """The views of ``seat`` at each of its turns, replayed from the finished record."""
    driver = GameDriver(boardlab.make(record["spec"]), seed=record["seed"])
    views = []
    for move in record["moves"]:
        if seat in driver.acting():
            views.append(driver.view(seat))
        mover = driver.acting()[0]
        if move == "resign":
            driver.resign(mover)
        else:
            driver.submit(mover, move)
    assert driver.over
    return views


# Playing ------------------------------------------------------------------------------------
def test_an_engine_plays_a_person_through_the_bridge_until_the_game_is_over(url, tmp_path):
    game = create(url, ["human", "human"])
    marker = str(random.randrange(10 ** 8, 10 ** 9))          # the engine's seed: findable
    log = tmp_path / "engine.log"
    process = bridge(game["seats"][1]["link"], "--engine", f"{ENGINE} {marker}",
                     "--time", "5", "--log", str(log))
    try:
        last = play_until_over(game["seats"][0]["link"], 0, random.Random(7))
        code, out, err = finish(process)
    finally:
        process.kill()
    assert code == 0, out + err
    assert "playing horizontal" in out and "game over" in out
    assert last["result"]["winners"] in (["vertical"], ["horizontal"])
    record = httpx.get(f"{url}api/games/{game['id']}/record", timeout=WAIT).json()
    assert record["moves"] == last["history"] and len(record["moves"]) >= 2
    assert record["result"]["returns"] == last["result"]["returns"]
    assert record["players"] == ["human", "human"]
    # the engine got exactly the server's view of its seat at each of its turns, nothing else
    dialogue = log.read_text().splitlines()
    seen = [json.loads(line[len("> view "):]) for line in dialogue
            if line.startswith("> view ")]
    assert seen == reference_views(record, 1)
    check_record(record)
    assert "> newgame carteso(size=5)" in dialogue and "> seat horizontal" in dialogue
    assert any(line.startswith("> gameover ") for line in dialogue)
    assert engine_processes(marker) == []


def test_a_bad_token_is_refused_with_a_clear_error(url):
    game = create(url, ["human", "human"])
    bare = game["seats"][0]["link"].split("?")[0]
    for args, expected in (
            ([bare, "--seat-token", "forged-token-forged-token"], "forbidden: this token holds "
                                                                  "no seat here"),
            ([bare], "a seat token is needed"),
            ([url + "ws/nosuchgame?token=whatever"], "not_found: no such game")):
        code, out, err = finish(bridge(*args, "--engine", ENGINE))
        assert code == 2, out + err
        assert expected in err and "Traceback" not in err
        assert "forged" not in out + err                      # a token is never printed
    assert httpx.get(f"{url}api/games/{game['id']}", timeout=WAIT).json()["version"] == 0


def test_an_engine_that_plays_an_illegal_move_resigns_its_seat(url):
    game = create(url, ["human", {"ai": "random"}])          # it misbehaves on its 2nd move
    code, out, err = finish(bridge(game["seats"][0]["link"], "--engine",
                                   f"{BAD_ENGINE} illegal"))
    assert code == 1, out + err
    assert "illegal" in err and "vertical resigns" in err
    record = httpx.get(f"{url}api/games/{game['id']}/record", timeout=WAIT).json()
    assert len(record["moves"]) == 3 and record["moves"][-1] == "resign"
    assert record["result"]["returns"] == [-1.0, 1.0]


def test_on_failure_stop_leaves_the_seat_as_it_is(url):
    game = create(url, ["human", {"ai": "random"}])
    code, out, err = finish(bridge(game["seats"][0]["link"], "--engine",
                                   f"{BAD_ENGINE} garbage", "--on-failure", "stop"))
    assert code == 1 and "garbage" in err and "stopping" in err, out + err
    shown = httpx.get(f"{url}api/games/{game['id']}", timeout=WAIT).json()
    assert (shown["version"], shown["status"]) == (2, "active")


def test_the_bridge_reconnects_and_resyncs_after_the_server_restarts(tmp_path):
    with socket.socket() as probe:                 # a free port to restart the server on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    rng = random.Random(3)
    with server(tmp_path, port) as base:
        game = create(base, ["human", "human"])
        process = bridge(game["seats"][1]["link"], "--engine", f"{ENGINE} 11", "--time", "5")
        with websockets_sync.connect(game["seats"][0]["link"], open_timeout=WAIT) as ws:
            play_on(ws, 0, rng, stop_at=4)         # the bridge has answered twice
    try:
        with server(tmp_path, port):               # killed and started again: same database
            last = play_until_over(game["seats"][0]["link"], 0, rng)
            code, out, err = finish(process)
    finally:
        process.kill()
    assert code == 0, out + err
    assert "connection lost" in err and "game over" in out
    assert last["terminal"]


# Seat links -----------------------------------------------------------------------------------
def test_seat_urls_from_links_game_urls_and_tokens():
    link = "ws://127.0.0.1:8000/ws/G1?token=T"
    assert seat_url(link) == link
    assert seat_url("ws://127.0.0.1:8000/ws/G1", "T") == link
    assert seat_url("http://127.0.0.1:8000/api/games/G1", "T") == link
    assert seat_url("https://example.org/boardlab/ws/G1?token=T") == \
        "wss://example.org/boardlab/ws/G1?token=T"
    for bad, token, why in (("ws://h/ws/G1", None, "a seat token is needed"),
                            ("ftp://h/ws/G1?token=secret", None, "is not a seat link"),
                            ("ws://h/elsewhere", "secret", "names no game"),
                            ("ws://h/ws/G1?token=secret", "other", "another token")):
        with pytest.raises(ConnectError) as error:
            seat_url(bad, token)
        assert why in str(error.value) and "secret" not in str(error.value)


def test_connect_is_a_subcommand():
    from boardlab.cli import build_parser
    args = build_parser().parse_args(["connect", "ws://h/ws/G?token=T", "--engine", "x"])
    assert (args.command, args.engine, args.on_failure) == ("connect", "x", "resign")


def test_a_hotseat_token_plays_every_seat_with_one_engine_each(url):
    game = create(url, ["human", "human"], hotseat=True)
    code, out, err = finish(bridge(game["seats"][0]["link"], "--engine", f"{ENGINE} 5"))
    assert code == 0 and "playing vertical, horizontal" in out and "game over" in out, \
        out + err
    record = httpx.get(f"{url}api/games/{game['id']}/record", timeout=WAIT).json()
    assert len(record["moves"]) >= 2 and record["players"] == ["human", "human"]


def test_one_token_plays_both_seats_of_a_ctor_team_to_the_end(url):
    """Both seats of a CTOR team on one connection, team mates acting at once, to the end
    of the game. A team turn is many actions: the bridge paces its frames under the
    server's flood limit (it sent them as fast as its engine answered, and a frame dropped
    for flooding left it waiting for ever; whether the limit is reached depends on the
    machine's speed: test_a_frame_dropped_for_flooding_is_sent_again forces it)."""
    spec = "ctor(size=8,teams=2v2,team_protocol=simultaneous)"
    game = create(url, ["human", "human", {"ai": "random"}, {"ai": "random"}], spec=spec,
                  hotseat=True)
    code, out, err = finish(bridge(game["seats"][0]["link"], "--engine", f"{ENGINE} 7"))
    assert code == 0 and "playing black-1, black-2" in out and "game over" in out, \
        out + err
    assert "rate_limited" not in err


def test_a_frame_dropped_for_flooding_is_sent_again(tmp_path):
    """A server whose flood limit is far below the bridge's pace drops some of its
    frames unread (`rate_limited`, no key): the bridge sends the pending action again
    (its key makes the server apply it once) and plays on to the end."""
    limits = json.dumps({"frames_per_second": 2, "frames_burst": 2})
    with server(tmp_path, limits=limits) as base:
        game = create(base, ["human", "human"], hotseat=True)
        code, out, err = finish(bridge(game["seats"][0]["link"], "--engine", f"{ENGINE} 3"))
        assert code == 0 and "game over" in out, out + err
        assert "rate_limited" in err                  # it was dropped, and played on
        record = httpx.get(f"{base}api/games/{game['id']}/record", timeout=WAIT).json()
    check_record(record)


def test_sigterm_stops_the_bridge_and_kills_its_engine(url):
    game = create(url, ["human", "human"])
    marker = str(random.randrange(10 ** 8, 10 ** 9))
    process = bridge(game["seats"][0]["link"], "--engine", f"{ENGINE} {marker}")
    try:
        with websockets_sync.connect(game["seats"][1]["link"], open_timeout=WAIT) as ws:
            message = json.loads(ws.recv(timeout=WAIT))
            while message.get("version", 0) < 1:          # the engine has played: it runs
                message = json.loads(ws.recv(timeout=WAIT))
        assert engine_processes(marker)
        process.send_signal(signal.SIGTERM)
        code, out, err = finish(process)
    finally:
        process.kill()
    assert code == 130, out + err
    assert "interrupted" in err
    assert "Task was destroyed" not in err and "Exception ignored" not in err, err
    assert engine_processes(marker) == []
    assert httpx.get(f"{url}api/games/{game['id']}", timeout=WAIT).json()["version"] == 1


def test_the_engine_is_told_its_time_left_and_the_increment():
    """With a Fischer clock, the `go` budget is the seat's clock less what it has used
    this turn (the server's `elapsed`) and the game's increment (from the sync)."""
    import sys
    from boardlab.clients.connect import Bridge
    bridge = Bridge("ws://127.0.0.1:1/ws/x?token=t", f"{sys.executable} -c pass")
    bridge.game = boardlab.make("carteso(size=5)")
    view = {"clocks": {"vertical": 30.0, "horizontal": 28.0}}
    bridge._position({"type": "sync", "version": 0, "view": {"terminal": False},
                      "clock": {"base": 30.0, "increment": 2.0},
                      "elapsed": {"vertical": 4.5}})
    assert bridge._budget(0, view) == {"clock": 25.5, "increment": 2.0}
    assert bridge._budget(1, view) == {"clock": 28.0, "increment": 2.0}
    assert bridge._budget(0, {"clocks": None}) is None


def test_an_engine_in_a_correspondence_game_keeps_its_own_time():
    """Days per move are no budget for an engine's `go` line: it thinks its own time."""
    import sys
    from boardlab.clients.connect import Bridge
    bridge = Bridge("ws://127.0.0.1:1/ws/x?token=t", f"{sys.executable} -c pass")
    bridge.game = boardlab.make("carteso(size=5)")
    bridge._position({"type": "sync", "version": 0, "view": {"terminal": False},
                      "clock": {"days": 3}, "elapsed": {"vertical": 60.0}})
    assert bridge._budget(0, {"clocks": {"vertical": 259200.0, "horizontal": 259200.0}}) \
        is None
