"""The server's CPU for a game's coming and going, without its moves: create a game
(REST), join both seats (two WebSockets, each gets its sync), resign, wait for the
other seat's update, close; ``GAMES`` such games, ``AT_ONCE`` at a time, on one
`boardlab serve` (SQLite) started as `boardlab soak load` starts it. Prints the server's CPU
time (user and system) a game.

    .venv/bin/python scripts/experiments/server_churn.py [GAMES] [AT_ONCE]
"""
import asyncio
import json
import sys
import time

from boardlab.checks.loadbench import _first_game, _settled, cpu_seconds
from boardlab.checks.soak import (NO_CREATE_LIMIT, ServerProcess, _libraries, _ws,
                                  http_limits, workspace)

SPEC = "carteso(size=9)"


async def one_game(client, url: str, connect) -> None:
    response = await client.post(url + "api/games", json={"spec": SPEC,
                                                          "seats": ["human", "human"]})
    game = response.json()
    links = [_ws(url) + "ws/" + seat["link"].split("/ws/", 1)[1] for seat in game["seats"]]
    async with connect(links[0]) as first, connect(links[1]) as second:
        await first.recv()
        await second.recv()                                 # both synced
        await first.send(json.dumps({"type": "resign", "seat": 0, "key": "r"}))
        while True:
            message = json.loads(await second.recv())
            if message["type"] == "update" and message["view"]["terminal"]:
                return


async def main(games: int, at_once: int) -> None:
    httpx, connect, _ = _libraries()
    with workspace(None) as (folder, db):
        server = ServerProcess(folder, db, NO_CREATE_LIMIT)
        url = server.start()
        try:
            pid = server.process.pid
            async with httpx.AsyncClient(timeout=60, limits=http_limits()) as client:
                await _first_game(client, url, SPEC)        # kernels loaded, not counted
                await _settled([pid])
                before, started = cpu_seconds(pid), time.monotonic()
                turns = asyncio.Semaphore(at_once)

                async def turn() -> None:
                    async with turns:
                        await one_game(client, url, connect)

                await asyncio.gather(*(turn() for _ in range(games)))
                used = cpu_seconds(pid) - before
            print(f"{games} games, {at_once} at a time, {time.monotonic() - started:.1f} s: "
                  f"server CPU {used:.2f} s, {used * 1000 / games:.2f} ms a game")
        finally:
            server.close()


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 300,
                     int(sys.argv[2]) if len(sys.argv) > 2 else 10))
