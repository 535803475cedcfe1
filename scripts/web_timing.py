"""Measure the web app on loopback: page loads and the time from a click to the screens.

    .venv/bin/python scripts/web_timing.py [--runs 20] [--seed 1]

It starts its own `boardlab serve --port 0` on a throw-away SQLite database and Debian's
Chromium through Playwright, then prints the median and the 90th percentile over ``--runs``
runs of:

- **page load**, cold (a fresh browser context: empty cache) and warm (the same context
  loads the page again): navigation start → the page's own mark, `boardlab:lobby-ready`
  (the lobby's form and games list drawn) or the first `boardlab:shown` (a game page: the
  board drawn from the first `sync`). Marks are `performance.mark`s the pages set once the
  DOM is updated, so they are relative to navigation start (`performance.timeOrigin`);
  the paint that follows adds at most one frame.
- **click → opponent's screen** and **click → own screen**: a Carteso 9x9 game with two
  human seats, one browser context each; the seat to act plays a seeded random legal move
  by clicking (the picks from `window.boardlab.picksFor`); from the final click (a
  capture-phase listener stamps `performance.timeOrigin + performance.now()`) to the
  `boardlab:shown` mark of the new version on the other page (and on its own page), both
  as absolute times of the same browser. Both pages' clocks are compared first (the median
  offset of back-to-back readings is subtracted; it is printed). For a cross-check the
  same interval is also timed from Python, from just before Playwright's final click to
  the return of a wait on the other page (this includes Playwright's round trips).
"""
from __future__ import annotations

import argparse
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from playwright.sync_api import sync_playwright

CHROMIUM = "/usr/bin/chromium"
SPEC = "carteso(size=9)"
VIEWPORT = {"width": 1280, "height": 800}
WAIT_MS = 60_000

# Stamps the last click (capture phase: before the page's own handlers run).
CLICK_STAMP = """document.addEventListener("click",
  () => { window.__clickAt = performance.timeOrigin + performance.now(); }, true);"""
LOBBY_READY = "() => performance.getEntriesByName('boardlab:lobby-ready').length > 0"
LOBBY_AT = "() => performance.getEntriesByName('boardlab:lobby-ready')[0].startTime"
FIRST_SHOWN = "() => performance.getEntriesByName('boardlab:shown').length > 0"
FIRST_SHOWN_AT = "() => performance.getEntriesByName('boardlab:shown')[0].startTime"
# The absolute time at which version v was shown (null: not yet).
SHOWN_AT = """v => {
  const mark = performance.getEntriesByName('boardlab:shown').find((m) => m.detail.version >= v);
  return mark ? performance.timeOrigin + mark.startTime : null;
}"""
NOW = "() => performance.timeOrigin + performance.now()"


def start_server(folder: Path) -> tuple[subprocess.Popen, str]:
    """`boardlab serve --port 0` in its own process group; its URL once it listens."""
    process = subprocess.Popen(
        [sys.executable, "-m", "boardlab.cli", "serve", "--host", "127.0.0.1", "--port", "0",
         "--db", str(folder / "games.db")],
        cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        start_new_session=True)
    for line in process.stdout:
        if line.startswith("boardlab server: open "):
            return process, line.split()[3].rstrip("/")
    raise RuntimeError(f"boardlab serve ended (exit {process.wait()}) before it listened")


def summary(name: str, values: list[float]) -> str:
    """`name: median, p90 (n)` in milliseconds."""
    ordered = sorted(values)
    p90 = ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]
    return (f"{name:<44} median {statistics.median(ordered):7.1f} ms   p90 {p90:7.1f} ms"
            f"   (n={len(ordered)})")


def new_game(http: httpx.Client, seed: int) -> dict:
    answer = http.post("/api/games", json={"spec": SPEC, "seats": ["human", "human"], "seed": seed})
    answer.raise_for_status()
    return answer.json()


def page_loads(browser, url: str, ready: str, ready_at: str, runs: int) -> tuple[list, list]:
    """Cold and warm loads of ``url`` (ms from navigation start to the page's mark)."""
    cold, warm = [], []
    for _ in range(runs):
        context = browser.new_context(viewport=VIEWPORT)
        page = context.new_page()
        page.set_default_timeout(WAIT_MS)
        for into in (cold, warm):
            page.goto("about:blank")        # a real load again, not a same-document jump
            page.goto(url)
            page.wait_for_function(ready)
            into.append(page.evaluate(ready_at))
        context.close()
    return cold, warm


def clock_offset(a, b) -> float:
    """Median of (b's clock − a's clock) over back-to-back readings (a, b, a)."""
    offsets = []
    for _ in range(15):
        before, middle, after = a.evaluate(NOW), b.evaluate(NOW), a.evaluate(NOW)
        offsets.append(middle - (before + after) / 2)
    return statistics.median(offsets)


def click_move(page, move: str) -> None:
    """Click the picks of ``move`` (and the choice button when the picks end in one)."""
    picks = page.evaluate("m => window.boardlab.picksFor(m)", move)
    if not picks:
        page.locator(f'#buttons button[data-move="{move}"]').click()
        return
    for pick in picks:
        page.locator(f'[data-pick-kind="{pick["kind"]}"][data-pick="{pick["value"]}"]'
                     '.pickable').first.click()
    choice = page.locator(f'#pick-line button.choice[data-choice="{move}"]')
    if choice.count():
        choice.click()


def click_to_screens(browser, http: httpx.Client, url: str, runs: int, seed: int) -> dict:
    """Click → own and opponent's screen over ``runs`` moves (new games as they end)."""
    rng = random.Random(seed)
    times = {"opponent": [], "own": [], "python": []}
    offsets = []
    while len(times["own"]) < runs:
        game = new_game(http, rng.randrange(1 << 30))
        contexts = [browser.new_context(viewport=VIEWPORT) for _ in game["seats"]]
        pages = []
        for context, seat in zip(contexts, game["seats"]):
            page = context.new_page()
            page.set_default_timeout(WAIT_MS)
            page.add_init_script(CLICK_STAMP)
            page.goto(url + seat["page"] if seat["page"].startswith("/") else seat["page"])
            page.wait_for_function(FIRST_SHOWN)
            pages.append(page)
        offset = clock_offset(pages[0], pages[1])      # page 1's clock − page 0's
        offsets.append(offset)
        while len(times["own"]) < runs:
            view = pages[0].evaluate("() => window.boardlab.view")
            if view["terminal"]:
                break
            version = pages[0].evaluate("() => window.boardlab.version")
            mover = next(i for i, p in enumerate(pages)
                         if p.evaluate("() => window.boardlab.view.legal.length"))
            other = 1 - mover
            legal = sorted(pages[mover].evaluate("() => window.boardlab.view.legal"))
            started = time.perf_counter()
            click_move(pages[mover], rng.choice(legal))
            pages[other].wait_for_function(f"v => ({SHOWN_AT})(v) !== null", arg=version + 1)
            times["python"].append((time.perf_counter() - started) * 1000)
            pages[mover].wait_for_function(f"v => ({SHOWN_AT})(v) !== null", arg=version + 1)
            clicked = pages[mover].evaluate("() => window.__clickAt")
            own = pages[mover].evaluate(SHOWN_AT, version + 1)
            theirs = pages[other].evaluate(SHOWN_AT, version + 1)
            # Express the other page's time on the mover's clock.
            to_mover = -offset if mover == 0 else offset
            times["own"].append(own - clicked)
            times["opponent"].append(theirs + to_mover - clicked)
        for context in contexts:
            context.close()
    times["offsets"] = offsets
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        process, url = start_server(Path(folder))
        try:
            http = httpx.Client(base_url=url, timeout=60)
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM,
                                                     args=["--no-sandbox"])
                print(f"server {url}; Chromium {browser.version}; {args.runs} runs each; "
                      f"load: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} "
                      f"{os.getloadavg()[2]:.2f} on {os.cpu_count()} CPUs")
                cold, warm = page_loads(browser, url + "/", LOBBY_READY, LOBBY_AT, args.runs)
                print(summary("lobby load, cold cache", cold))
                print(summary("lobby load, warm cache", warm))
                game = new_game(http, args.seed)
                cold, warm = page_loads(browser, url + game["seats"][0]["page"]
                                        if game["seats"][0]["page"].startswith("/")
                                        else game["seats"][0]["page"],
                                        FIRST_SHOWN, FIRST_SHOWN_AT, args.runs)
                print(summary(f"game page load ({SPEC}), cold cache", cold))
                print(summary(f"game page load ({SPEC}), warm cache", warm))
                times = click_to_screens(browser, http, url, args.runs, args.seed)
                print(summary("click -> opponent's screen (page clocks)", times["opponent"]))
                print(summary("click -> own screen (page clocks)", times["own"]))
                print(summary("click -> opponent's screen (from Python)", times["python"]))
                print("page clock offsets (ms): " +
                      ", ".join(f"{value:.2f}" for value in times["offsets"]))
                print(f"load after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
                browser.close()
        finally:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()


if __name__ == "__main__":
    main()
