"""The browser tests' harness: a real `boardlab serve` and pages of the web app in
Debian's Chromium, played by clicking through docs/web-app.md's DOM contract.

Every wait is one of Playwright's own (generous timeouts), never a sleep, so a loaded
machine makes the tests slower, not red.
"""
from __future__ import annotations

import json
import queue
import random
import subprocess
import threading
from dataclasses import dataclass, field
from pathlib import Path

import httpx

CHROMIUM = Path("/usr/bin/chromium")
ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "docs" / "screenshots"
VIEWPORT = {"width": 1200, "height": 800}
WAIT_MS = 60_000                    # Playwright's timeout for any one wait (a loaded machine)
SERVER_START_CAP = 120              # seconds: the server printed its URL or it is broken


# The server -----------------------------------------------------------------------------
@dataclass
class Server:
    """A `boardlab serve` child process and its base URL (``http://127.0.0.1:PORT``)."""
    process: subprocess.Popen
    url: str
    http: httpx.Client = field(init=False)

    def __post_init__(self):
        self.http = httpx.Client(base_url=self.url, timeout=60)

    def create(self, spec: str, seats, seed: int, hotseat: bool = False,
               clock: dict | None = None) -> dict:
        """POST /api/games: the answer (with each human seat's ``page`` and ``watch_page``)."""
        body = {"spec": spec, "seats": seats, "seed": seed, "clock": clock}
        if hotseat:
            body["hotseat"] = True
        answer = self.http.post("/api/games", json=body)
        assert answer.status_code == 201, answer.text
        return answer.json()

    def game(self, game_id: str) -> dict:
        """GET /api/games/{id}: what a spectator may know (view, facts, version)."""
        answer = self.http.get(f"/api/games/{game_id}")
        assert answer.status_code == 200, answer.text
        return answer.json()

    def record(self, game_id: str) -> dict:
        """GET /api/games/{id}/record (only once the game is over)."""
        answer = self.http.get(f"/api/games/{game_id}/record")
        assert answer.status_code == 200, answer.text
        return answer.json()


def read_url(process: subprocess.Popen) -> str:
    """The URL the server prints once it listens; waits for that line or the process's
    end (with a generous cap, for a server that hangs before printing)."""
    lines: queue.Queue = queue.Queue()

    def pump():
        for line in process.stdout:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=pump, daemon=True).start()
    seen = []
    while True:
        try:
            line = lines.get(timeout=SERVER_START_CAP)
        except queue.Empty:
            raise RuntimeError(f"boardlab serve printed no URL in {SERVER_START_CAP} s: "
                               f"{''.join(seen)!r}") from None
        if line is None:
            raise RuntimeError(f"boardlab serve ended (exit {process.wait()}) before it "
                               f"listened: {''.join(seen)!r}")
        seen.append(line)
        if line.startswith("boardlab server: open "):
            return line.split()[3].rstrip("/")


# The pages ---------------------------------------------------------------------------------
class Client:
    """One browser context on one page of the web app, recording every WebSocket frame
    its page receives (``frames``: their texts, in order)."""

    def __init__(self, browser, url: str, name: str, game_page: bool = True):
        self.name, self.url = name, url
        self.context = browser.new_context(viewport=VIEWPORT)
        self.context.set_default_timeout(WAIT_MS)
        self.page = self.context.new_page()
        self.frames: list[str] = []
        self.page.on("websocket", self._watch)
        self.errors: list[str] = []                     # uncaught errors of the page
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.page.goto(url)
        if game_page:
            self.wait_ready()

    def _watch(self, socket) -> None:
        socket.on("framereceived", lambda payload: self.frames.append(
            payload if isinstance(payload, str) else payload.decode("utf-8", "replace")))

    def wait_ready(self) -> None:
        """Until the page has its first view (`window.boardlab.view`)."""
        self.page.wait_for_function("() => window.boardlab && window.boardlab.view")

    def version(self) -> int:
        return self.page.evaluate("() => window.boardlab.version")

    def view(self) -> dict:
        return self.page.evaluate("() => window.boardlab.view")

    def wait_version(self, at_least: int) -> None:
        self.page.wait_for_function(
            "v => window.boardlab && window.boardlab.view && window.boardlab.version >= v",
            arg=at_least)

    def messages(self) -> list[dict]:
        """The frames received so far, parsed (JSON objects)."""
        return [json.loads(text) for text in self.frames]

    def play(self, move: str) -> None:
        """Make ``move`` by clicking (`picksFor`), then wait until the version moves on."""
        before = self.version()
        self.pass_device()
        picks = self.page.evaluate("m => window.boardlab.picksFor(m)", move)
        if not picks:                                   # a whole move: its button
            self.page.locator(f'#buttons button[data-move="{move}"]').click()
        for pick in picks or ():
            if pick["kind"] == "number":                # e.g. a komi bid: typed, then Enter
                box = self.page.locator('[data-pick-kind="number"]').first
                box.fill(str(pick["value"]))
                box.press("Enter")
            else:
                self.page.locator(f'[data-pick-kind="{pick["kind"]}"]'
                                  f'[data-pick="{pick["value"]}"].pickable').first.click()
        # Picks that also begin a longer move (`lift 5`, `move 5>13`) end in a choice.
        choice = f'#pick-line button.choice[data-choice="{move}"]'
        self.page.wait_for_function(
            "([v, choice]) => window.boardlab.version > v || document.querySelector(choice)",
            arg=[before, choice])
        if self.version() == before:
            self.page.locator(choice).click()
        self.wait_version(before + 1)

    def pass_device(self) -> bool:
        """Hotseat: when the pass-the-device screen shows, say the next player is ready."""
        if not self.page.locator("#pass-device").is_visible():
            return False
        self.page.locator("#pass-device-ready").click()
        self.page.locator("#pass-device").wait_for(state="hidden")
        return True

    def screenshot(self, name: str) -> Path:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=True)    # the board may be taller
        return path

    def close(self) -> None:
        self.context.close()


# Playing ---------------------------------------------------------------------------------
def play_to_end(players: list[Client], rng: random.Random, watchers=(),
                on_move=None, max_moves: int = 2000) -> int:
    """Play the game to its end by clicking: each time, the first page whose seat has
    legal moves plays a seeded random one of them (sorted, so the choice is
    deterministic); AI seats answer on their own. ``on_move(version)`` runs after each
    move once every page has caught up. Returns the final version."""
    version = max(player.version() for player in players)
    for _ in range(max_moves):
        for client in (*players, *watchers):
            client.wait_version(version)
        views = [player.view() for player in players]
        if views[0]["terminal"]:                        # an AI's last move may have come
            return max(player.version() for player in players)  # after `version` was read
        movers = [i for i, view in enumerate(views) if view["legal"]]
        if not movers:                                  # an AI thinks: wait for its move
            players[0].wait_version(version + 1)
        else:
            player = players[movers[0]]
            player.play(rng.choice(sorted(views[movers[0]]["legal"])))
        version = max(player.version() for player in players)
        if on_move is not None:
            for client in (*players, *watchers):
                client.wait_version(version)
            on_move(version)
    raise AssertionError(f"the game did not end in {max_moves} moves")


def result_shown(client: Client) -> dict:
    """What `#result` shows: winners (seat names) and draw."""
    result = client.page.locator("#result")
    result.wait_for(state="visible")
    winners = result.get_attribute("data-winners") or ""
    return {"winners": sorted(name for name in winners.split(",") if name),
            "draw": result.get_attribute("data-draw") not in (None, "false", "0")}


def resign(page) -> None:
    """Resign on a game page: the first click on #resign arms it, the second resigns."""
    button = page.locator("#resign")
    button.click()
    page.locator('#resign[data-armed="true"]').wait_for()
    button.click()


def sign_up(client: Client, name: str) -> None:
    """Sign up account ``name`` (password ``NAME-password``) on a page at /signin; wait for
    the lobby it lands on to name it and to fill its signed-in part."""
    page = client.page
    page.locator("#username").fill(name)
    page.locator("#password").fill(f"{name}-password")
    page.locator("#sign-up").click()
    page.wait_for_url("**/")
    page.locator("#account-name", has_text=name).wait_for()
    assert page.locator("#account").inner_text().split() == [name, "sign", "out"]
    page.locator("#accounts-lobby[data-ready=true]").wait_for()
