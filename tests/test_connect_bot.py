"""`boardlab connect URL --token` stays online across a dropped connection (issue 48, Bot
accounts): the server is killed in the middle of a game the bot plays and started again on
the same port and database; the bot opens its event stream again, finishes that game
through its reconnected game socket, accepts a challenge made after the restart and plays
it to the end. Real processes on 127.0.0.1; timeouts only bound a stuck run."""
import os
import queue
import random
import socket
import subprocess
import sys
import threading

import pytest

from test_bots import signed_up
from test_connect import ENGINE, ROOT, WAIT, play_on, server

httpx = pytest.importorskip("httpx")
websockets_sync = pytest.importorskip("websockets.sync.client")

SPEC = "carteso(size=5)"


def lines_of(stream) -> queue.Queue:
    """The lines a child process writes, as they come (None at its end)."""
    lines: queue.Queue = queue.Queue()

    def pump():
        for line in stream:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=pump, daemon=True).start()
    return lines


def until(lines: queue.Queue, text: str) -> str:
    """The first line holding ``text`` (AssertionError, with what it said instead, if the
    process ends first or says nothing more for WAIT seconds)."""
    said = []
    while True:
        try:
            line = lines.get(timeout=WAIT)
        except queue.Empty:
            raise AssertionError(f"the bot did not say {text!r} but {said}") from None
        assert line is not None, f"the bot ended before saying {text!r} but {said}"
        if text in line:
            return line
        said.append(line)


def challenged(client, lines: queue.Queue) -> str:
    """Challenge randbot (the challenger seat 0); the game it accepted."""
    made = client.post("api/challenges", json={"to": "randbot", "spec": SPEC, "seat": 0})
    assert made.status_code == 201, made.text
    return until(lines, "accepted dana's challenge").split("game ")[-1].strip()


def play(base: str, client, game_id: str, rng, stop_at=None) -> dict:
    link = base.replace("http", "ws", 1) + f"ws/{game_id}"
    cookie = f"boardlab_session={client.cookies['boardlab_session']}"
    with websockets_sync.connect(link, open_timeout=WAIT,
                                 additional_headers={"Cookie": cookie}) as ws:
        return play_on(ws, 0, rng, stop_at=stop_at)


def test_a_bot_online_with_connect_token_survives_a_server_restart(tmp_path):
    with socket.socket() as probe:                 # a free port to restart the server on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    rng = random.Random(48)
    with server(tmp_path, port) as base:
        dana = signed_up(base, "dana")
        token = dana.post("api/account/bots", json={"username": "randbot"}).json()["token"]
        bot = subprocess.Popen([sys.executable, "-m", "boardlab.cli", "connect", base,
                                "--engine", ENGINE, "--games", "carteso", "--max-games", "2",
                                "--concurrency", "2"],     # the first game's end may reach
                                                           # the bot after the challenge
                               env={**os.environ, "BOARDLAB_TOKEN": token},
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               cwd=ROOT)
        try:
            out, errors = lines_of(bot.stdout), lines_of(bot.stderr)
            until(out, "online as randbot (BOT)")
            first = challenged(dana, out)
            assert not play(base, dana, first, rng, stop_at=2)["terminal"]  # the bot moved
        except BaseException:
            bot.kill()
            raise
    try:
        with server(tmp_path, port) as again:      # killed and started again: same database
            assert again == base
            dana = httpx.Client(base_url=base, timeout=WAIT, cookies=dana.cookies,
                                headers=dana.headers)
            assert play(base, dana, first, rng)["terminal"]
            second = challenged(dana, out)         # told on the reopened event stream
            assert play(base, dana, second, rng)["terminal"]
            code = bot.wait(timeout=WAIT)
            err = "".join(iter(lambda: errors.get(timeout=WAIT) or "", ""))
            assert code == 0, err
            assert "the event stream dropped" in err and token not in err
            for game_id in (first, second):
                shown = dana.get(f"api/games/{game_id}").json()
                assert shown["status"] == "over"
                assert [seat["account"]["username"] for seat in shown["seats"]] == \
                    ["dana", "randbot"]
    finally:
        bot.kill()
        bot.wait(timeout=WAIT)


def test_the_bots_settings_decline_what_they_do_not_allow_with_a_reason():
    """Which challenges `connect --token` accepts: its games, speeds (from the clock, as the
    server names them), rated or casual, and how many games at once."""
    from boardlab.clients.bot import Settings
    from boardlab.clients.connect import ConnectError

    def offer(game="carteso", clock=None, rated=False):
        return {"game_name": game, "clock": clock, "rated": rated}

    blitz = {"base": 180, "increment": 2}
    anything = Settings()
    assert anything.refusal(offer(), 0) is None
    assert anything.refusal(offer("rumbo", blitz, True), 0) is None
    assert "1 game(s) at once" in anything.refusal(offer(), 1)
    picky = Settings(games=frozenset({"carteso"}), speeds=frozenset({"blitz", "rapid"}),
                     modes=frozenset({"rated"}), concurrency=3)
    assert picky.refusal(offer("carteso", blitz, True), 2) is None
    assert picky.refusal(offer("rumbo", blitz, True), 0) == "this bot plays only carteso"
    assert picky.refusal(offer("carteso", None, True), 0) == \
        "this bot does not play correspondence games"
    assert picky.refusal(offer("carteso", {"base": 15, "increment": 0}, True), 0) == \
        "this bot does not play ultrabullet games"
    assert picky.refusal(offer("carteso", blitz, False), 0) == \
        "this bot does not play casual games"
    assert "3 game(s) at once" in picky.refusal(offer("carteso", blitz, True), 3)
    for bad in ({"speeds": frozenset({"lightning"})}, {"modes": frozenset({"ranked"})},
                {"concurrency": 0}):
        with pytest.raises(ConnectError):
            Settings(**bad)
