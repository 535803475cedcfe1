"""CPU per action of what the server builds for both seats after each move, in one process:
random Carteso 9x9 games (or SPEC) through a ``GameDriver``; after each move both seats'
views (``driver.views``), their status lines, the room's ``movers`` and each seat's frame
JSON, as ``Room._broadcast`` builds them.

    .venv/bin/python scripts/experiments/server_views.py [SPEC] [GAMES] [--profile]

Prints the median over 5 runs of the CPU (``time.thread_time``) per action in µs; with
``--profile``, a cProfile of one run instead.
"""
import cProfile
import pstats
import random
import statistics
import sys
import time

import boardlab
from boardlab.core.driver import GameDriver
from boardlab.server.wire import encode


def frames(driver: GameDriver) -> list[str]:
    """What ``Room._broadcast`` builds for seats 0 and 1 (their update's text)."""
    views = driver.views([0, 1])
    movers = [seat if seat >= 0 else None for seat, _ in driver.state.history]
    texts = []
    for seat in (0, 1):
        view = views[seat]
        lines = driver.status_lines(seat, view)
        texts.append(encode({"type": "update", "version": 1, "seat": seat, "view": view,
                             "lines": lines, "announcements": [], "movers": movers}))
    return texts


def run(spec: str, games: int, seed: int) -> tuple[float, int]:
    """CPU seconds in ``frames`` and the number of actions, over ``games`` random games."""
    game = boardlab.make(spec)
    rng = random.Random(seed)
    spent, actions = 0.0, 0
    for index in range(games):
        driver = GameDriver(game, seed=seed + index)
        while not driver.over:
            seat = driver.acting()[0]
            driver.submit(seat, rng.choice(driver.state.legal_actions()))
            start = time.thread_time()
            frames(driver)
            spent += time.thread_time() - start
            actions += 1
    return spent, actions


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    spec = args[0] if args else "carteso(size=9)"
    games = int(args[1]) if len(args) > 1 else 20
    run(spec, 1, 99)                                      # warm caches, compile kernels
    if "--profile" in sys.argv:
        profile = cProfile.Profile(time.thread_time)
        profile.enable()
        run(spec, games, 0)
        profile.disable()
        pstats.Stats(profile).sort_stats("tottime").print_stats(25)
        return
    per = []
    for _ in range(5):
        spent, actions = run(spec, games, 0)
        per.append(1e6 * spent / actions)
    print(f"{spec}: {actions} actions a run, µs/action per run "
          f"{' '.join(f'{p:.1f}' for p in per)}, median {statistics.median(per):.1f}")


if __name__ == "__main__":
    main()
