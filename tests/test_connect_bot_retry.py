"""`boardlab connect --token` stays online through transient HTTP failures: a fake server on
127.0.0.1 answers 502, 503 and a reset connection to the account, the event stream and a
decline before it works; the bot logs each failure in one line to stderr, tries again after
capped, jittered pauses, and declines the challenge told again on the reopened stream. A
401 or 403 stops it with a clear message (the CLI exits nonzero). No wall-clock deadlines:
the pauses are injected tiny; WAIT only bounds a stuck run."""
import asyncio
import io
import json
import random
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from test_connect import ENGINE, WAIT

pytest.importorskip("httpx")

ACCOUNT = {"username": "randbot", "bot": True}
CHALLENGE = {"id": "c1", "from": {"username": "dana"}, "spec": "carteso(size=5)",
             "game_name": "carteso", "clock": None, "rated": False}


class Fake:
    """A scripted server: per path, the statuses to answer before it works."""

    def __init__(self, script: dict[str, list]):
        self.script = {path: list(answers) for path, answers in script.items()}
        self.seen: list[tuple[str, int | str]] = []
        self.declined = threading.Event()
        self.stop = threading.Event()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def answer(self, status: int, body: dict) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def handle_one(self) -> None:
                path = self.path
                if self.command == "POST":
                    self.rfile.read(int(self.headers.get("content-length") or 0))
                planned = fake.script.get(path, [])
                status = planned.pop(0) if planned else 200
                fake.seen.append((path, status))
                if status == "reset":
                    self.connection.close()
                    return
                if status != 200:
                    text = b"<html>bad gateway</html>"   # a proxy's page, not JSON
                    self.send_response(status)
                    self.send_header("content-length", str(len(text)))
                    self.end_headers()
                    self.wfile.write(text)
                    return
                if path == "/api/account":
                    self.answer(200, ACCOUNT)
                elif path == "/api/stream/event":
                    self.send_response(200)
                    self.send_header("content-type", "application/x-ndjson")
                    self.end_headers()
                    self.wfile.write(b"\n" + json.dumps({"type": "challenge",
                                                         "challenge": CHALLENGE}).encode()
                                     + b"\n")
                    self.wfile.flush()
                    fake.stop.wait(WAIT)
                elif path.endswith("/decline"):
                    self.answer(200, {"ok": True})
                    fake.declined.set()
                else:
                    self.answer(404, {"error": {"code": "not_found", "message": path}})

            do_GET = do_POST = handle_one

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"

    def __enter__(self):
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.server.shutdown()
        self.server.server_close()


def bot_for(url: str, err: io.StringIO):
    from boardlab.clients.bot import Bot, Settings
    return Bot(url, "secret-token", ENGINE, Settings(games=frozenset({"rumbo"})),
               out=io.StringIO(), err=err, first_pause=0.01, last_pause=0.04,
               rng=random.Random(7))


async def until_declined(fake: Fake, running: asyncio.Future) -> bool:
    """Wait until the fake server saw a decline or the bot stopped (WAIT bounds a stuck
    run); whether it declined."""
    loop = asyncio.get_running_loop()
    start = loop.time()
    while not fake.declined.is_set() and not running.done() and loop.time() - start < WAIT:
        await asyncio.sleep(0.01)
    if running.done():
        running.result()                         # the bot's own error, if it raised
    return fake.declined.is_set()


def test_the_bot_retries_through_502_503_and_resets_and_then_declines():
    script = {"/api/account": [502, "reset"],
              "/api/stream/event": [502, 503],
              "/api/challenges/c1/decline": [502]}
    err = io.StringIO()
    with Fake(script) as fake:
        async def main():
            bot = bot_for(fake.url, err)
            running = asyncio.ensure_future(bot.run())
            declined = await until_declined(fake, running)
            bot.done.set()
            return declined, await asyncio.wait_for(running, WAIT)
        declined, code = asyncio.run(main())
    assert declined, fake.seen
    assert code == 0
    said = err.getvalue().splitlines()
    assert len(said) == 5, said                  # one line per failure
    assert all("reconnecting in" in line for line in said)
    assert "502" in said[0] and "503" in said[3] and "decline" in said[4]
    assert "secret-token" not in err.getvalue()
    # the challenge was told again on the reopened stream and declined there
    assert [path for path, status in fake.seen if path.endswith("decline")] == \
        ["/api/challenges/c1/decline"] * 2


def test_the_pauses_grow_capped_with_jitter():
    script = {"/api/stream/event": [503] * 6}
    err = io.StringIO()
    with Fake(script) as fake:
        async def main():
            bot = bot_for(fake.url, err)
            running = asyncio.ensure_future(bot.run())
            assert await until_declined(fake, running)
            bot.done.set()
            return await asyncio.wait_for(running, WAIT)
        assert asyncio.run(main()) == 0
    pauses = [float(line.split("reconnecting in ")[1].split()[0])
              for line in err.getvalue().splitlines()]
    assert len(pauses) == 6 and max(pauses) <= 0.04


@pytest.mark.parametrize("where", ["/api/account", "/api/stream/event",
                                   "/api/challenges/c1/decline"])
@pytest.mark.parametrize("status", [401, 403])
def test_a_refused_token_stops_the_bot_with_a_clear_message(where, status):
    from boardlab.clients.connect import ConnectError
    with Fake({where: [status]}) as fake:
        with pytest.raises(ConnectError, match=f"HTTP {status}.*bad or revoked token"):
            asyncio.run(asyncio.wait_for(bot_for(fake.url, io.StringIO()).run(), WAIT))


def test_the_cli_exits_nonzero_on_a_revoked_token(capsys, monkeypatch):
    from boardlab.cli import main
    with Fake({"/api/account": [401]}) as fake:
        monkeypatch.setenv("BOARDLAB_TOKEN", "secret-token")
        code = main(["connect", fake.url, "--engine", ENGINE])
    assert code != 0
    assert "bad or revoked token" in capsys.readouterr().err
