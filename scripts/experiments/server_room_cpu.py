"""CPU per action of the game room in one process, no WebSocket: GAMES Carteso 9x9 games,
two seat connections each, random legal moves through ``parse`` and ``room.receive``,
stored in SQLite in a temporary folder (the group commit included).

    .venv/bin/python scripts/experiments/server_room_cpu.py [GAMES] [ACTIONS]

Prints the CPU and wall time per action (the bots' own work, choosing a move and writing
its frame, is counted too).
"""
import asyncio
import json
import random
import sys
import tempfile
import time

from boardlab.server.ai import Thinker
from boardlab.server.clients import Limits
from boardlab.server.hub import Hub
from boardlab.server.messages import parse
from boardlab.server.store import Store

SPEC = "carteso(size=9)"
SEATS = [{"kind": "human", "token": "x"}, {"kind": "human", "token": "y"}]


async def main(games: int, actions: int) -> None:
    hub = Hub(Store(f"sqlite:///{tempfile.mkdtemp()}/room.db"), Thinker(0),
              limits=Limits.off())
    rng = random.Random(1)

    async def table(seed):
        room = await hub.create(SPEC, [dict(seat) for seat in SEATS], seed=seed)
        clients = [hub.client((0,)), hub.client((1,))]
        for client in clients:
            await room.connect(client)
        return room, clients

    tables = [await table(seed) for seed in range(games)]
    done = key = 0
    cpu, wall = time.process_time(), time.perf_counter()
    while done < actions:
        index = rng.randrange(games)
        room, clients = tables[index]
        if room.over:
            tables[index] = await table(games + done)
            continue
        seat = room.acting()[0]
        state = room.driver.state
        key += 1
        frame = json.dumps({"type": "action", "seat": seat, "version": room.version,
                            "move": state.action_to_string(rng.choice(state.legal_actions())),
                            "key": f"k{key}"})
        await room.receive(clients[seat], parse(frame))
        for client in clients:
            while not client.outbox.empty():
                client.outbox.get_nowait()
        done += 1
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    print(f"{actions} actions in {games} games: {1000 * cpu / actions:.3f} ms CPU/action, "
          f"{1000 * wall / actions:.3f} ms wall/action")
    await hub.close()


if __name__ == "__main__":
    arguments = [int(a) for a in sys.argv[1:3]]
    asyncio.run(main(*(arguments + [50, 3000][len(arguments):])))
