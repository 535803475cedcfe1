"""The browser tests' fixtures: one real `boardlab serve` and one Debian Chromium (through
Playwright) per session, and fresh browser contexts per test (harness.py has the helpers).

Every test is deterministic: games have explicit seeds and the moves are chosen with a
seeded ``random.Random``.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import harness
from harness import Client, Server, read_url


def pytest_configure(config):
    config.addinivalue_line("markers", "xdist_group(name): run in one xdist worker "
                                       "(with --dist loadgroup)")


def pytest_collection_modifyitems(config, items):
    """Every test of this folder in the one xdist group "browser": under `--dist loadgroup`
    they run on one worker, which starts one server and one Chromium."""
    here = Path(__file__).parent
    for item in items:
        if here in item.path.parents:
            item.add_marker(pytest.mark.xdist_group("browser"))


# The server -----------------------------------------------------------------------------
@pytest.fixture(scope="session")
def server(tmp_path_factory):
    """One real `boardlab serve --port 0` on a throw-away SQLite database, killed at the
    end (its own process group, so its AI workers go with it)."""
    folder = tmp_path_factory.mktemp("server")
    process = subprocess.Popen(
        [sys.executable, "-m", "boardlab.cli", "serve", "--host", "127.0.0.1", "--port", "0",
         "--db", str(folder / "games.db")],
        cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        start_new_session=True)
    try:
        yield Server(process, read_url(process))
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()


# The browser ------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium driven by Playwright (which never downloads a browser).

    One per test module, not per session: Playwright's sync API keeps an event loop
    running in the thread while it is open, and the other tests that xdist runs on the
    same worker afterwards call ``asyncio.run`` (pytest tears a module's fixtures down
    before the next module's tests)."""
    if not harness.CHROMIUM.exists():
        pytest.skip(f"{harness.CHROMIUM} is missing: install Debian's chromium package "
                    "(.ci/run does) to run the browser tests")
    from playwright.sync_api import sync_playwright
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(harness.CHROMIUM),
                                              args=["--no-sandbox"])
        yield chromium
        chromium.close()


@pytest.fixture
def open_page(browser):
    """``open_page(url, name, game_page=True)``: a fresh context on ``url`` (a game page:
    once it has its first view); all closed after the test."""
    made = []

    def opener(url: str, name: str = "page", game_page: bool = True) -> Client:
        made.append(Client(browser, url, name, game_page))
        return made[-1]

    yield opener
    for client in made:
        client.close()
