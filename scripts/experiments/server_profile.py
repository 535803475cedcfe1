"""Where the server's CPU goes under `boardlab soak load`: the server runs in a child process
under cProfile (the event loop's thread and every worker thread, each with its own
profiler, merged at the end), the load's bots in this one (boardlab/checks/loadbench.py).

    .venv/bin/python scripts/experiments/server_profile.py [GAMES] [SECONDS] [THINK] [OUT]

Prints the server's CPU per action, then the profile's top functions by own time and by
cumulative time; the stats are kept in OUT (default /tmp/server.prof) for pstats.
"""
import asyncio
import cProfile
import os
import pstats
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

SPEC = "carteso(size=9)"
WARM_UP = 10.0              # seconds for the server's warm-up thread to finish
PROFILERS: list[cProfile.Profile] = []


def _profile_thread(*_) -> None:
    """threading.setprofile's hook: the new thread's own profiler (replaces the hook)."""
    profiler = cProfile.Profile(time.thread_time)
    PROFILERS.append(profiler)
    profiler.enable()


def serve(out: str, db: str) -> None:
    """The child: `boardlab serve` without the create limit, profiled until SIGINT."""
    from boardlab.checks.soak import NO_CREATE_LIMIT
    from boardlab.server.app import serve as run
    from boardlab.server.clients import Limits
    threading.setprofile(_profile_thread)
    main = cProfile.Profile(time.thread_time)
    PROFILERS.append(main)
    signal.signal(signal.SIGUSR1, lambda *_: [p.clear() for p in PROFILERS])
    main.enable()
    try:
        run("127.0.0.1", 0, db, Limits(**NO_CREATE_LIMIT))
    finally:
        for profiler in PROFILERS:
            profiler.disable()
        stats = pstats.Stats(main)
        for profiler in PROFILERS[1:]:
            try:
                stats.add(profiler)
            except TypeError:                   # a thread that never ran anything
                pass
        stats.dump_stats(out)


async def _measured(child, url: str, load):
    """``load``, with the profile cleared after a first game and the server's warm-up
    (start-up and compiling not counted)."""
    import httpx
    from boardlab.checks.loadbench import _first_game
    async with httpx.AsyncClient(timeout=120) as client:
        await _first_game(client, url, SPEC)
    await asyncio.sleep(WARM_UP)
    child.send_signal(signal.SIGUSR1)
    return await load


def main(games: int, seconds: float, think: float, out: str) -> None:
    from boardlab.checks.loadbench import _load, cpu_seconds
    folder = Path(tempfile.mkdtemp())
    log = folder / "serve.out"
    with open(log, "w") as stdout:
        child = subprocess.Popen([sys.executable, __file__, "serve", out,
                                  f"sqlite:///{folder}/load.db"], stdout=stdout,
                                 stderr=subprocess.STDOUT, cwd=folder)
    url = ""
    while not url:
        time.sleep(0.2)
        line = log.read_text().split("\n")[0]
        if line.startswith("boardlab server: open "):
            url = line.split("open ")[1].split()[0]
        if child.poll() is not None:
            sys.exit(log.read_text())
    report = asyncio.run(_measured(child, url, _load([url], SPEC, games, seconds, 7, think,
                               open(os.devnull, "w"), [child.pid])))
    cpu = cpu_seconds(child.pid) - report["cpu_before"][0]
    child.send_signal(signal.SIGINT)
    child.wait()
    print(f"{report['actions']} actions, {cpu:.1f} s server CPU (profiled), "
          f"{1000 * cpu / max(1, report['actions']):.2f} ms an action; ack p95 "
          f"{report['ack_ms']['p95']} ms")
    stats = pstats.Stats(out)
    stats.sort_stats("tottime").print_stats(40)
    stats.sort_stats("cumulative").print_stats(60)


if __name__ == "__main__":
    if sys.argv[1:2] == ["serve"]:
        serve(*sys.argv[2:4])
    else:
        values = sys.argv[1:5]
        main(int(values[0]) if values else 100, float(values[1]) if len(values) > 1 else 30,
             float(values[2]) if len(values) > 2 else 1.0,
             values[3] if len(values) > 3 else "/tmp/server.prof")
