"""The group commit against appends one at a time: CPU per stored action with SQLite
(``synchronous=FULL``) in a temporary folder.

    .venv/bin/python scripts/experiments/server_group_commit.py [GAMES] [ACTIONS]

GAMES games each append ACTIONS / GAMES actions at once through one ``Committer`` (the
actions that arrive while a batch commits share the next transaction), then as many
``Store.append`` calls are made one after another.
"""
import asyncio
import sys
import tempfile
import time

from boardlab.server.committer import Committer
from boardlab.server.store import Action, Store


def main(games: int, actions: int) -> None:
    store = Store(f"sqlite:///{tempfile.mkdtemp()}/commit.db")
    names = [f"g{number}" for number in range(games)]
    for name in names:
        store.create_game(name, "carteso(size=9)", 1, [{"kind": "open"}, {"kind": "open"}])
    committer = Committer(store)

    async def game(name):
        for index in range(actions // games):
            await committer.append(name, index, Action(0, "Ba1"), "active")

    async def together():
        await asyncio.gather(*(game(name) for name in names))

    cpu = time.process_time()
    asyncio.run(together())
    cpu = time.process_time() - cpu
    print(f"committer: {1000 * cpu / actions:.3f} ms CPU/action in {committer.batches} "
          f"batches")
    cpu = time.process_time()
    for index in range(actions):
        store.append(names[0], actions + index, Action(0, "Ba1"), "active")
    cpu = time.process_time() - cpu
    print(f"one at a time: {1000 * cpu / actions:.3f} ms CPU/action")


if __name__ == "__main__":
    arguments = [int(a) for a in sys.argv[1:3]]
    main(*(arguments + [200, 2000][len(arguments):]))
