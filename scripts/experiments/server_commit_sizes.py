"""CPU per stored action by batch size: ``Store.append_many`` with SQLite
(``synchronous=FULL``) in a temporary folder, batches of 1, 4 and 16 actions of
different games (what the committer's window trades a few milliseconds for).

    .venv/bin/python scripts/experiments/server_commit_sizes.py [ACTIONS]
"""
import sys
import tempfile
import time

from boardlab.server.store import Action, Store


def main(actions: int) -> None:
    store = Store(f"sqlite:///{tempfile.mkdtemp()}/commit.db")
    names = [f"g{number}" for number in range(100)]
    for name in names:
        store.create_game(name, "carteso(size=9)", 1, [{"kind": "open"}, {"kind": "open"}])
    index = dict.fromkeys(names, 0)
    for size in (1, 1, 4, 16):
        batches = actions // size
        cpu, wall = time.thread_time(), time.perf_counter()
        for number in range(batches):
            first = number * size % len(names)
            entries = []
            for name in names[first:first + size]:
                index[name] += 1
                entries.append((name, index[name], Action(0, "e5", f"k{index[name]}"),
                                "active"))
            store.append_many(entries)
        cpu, wall = time.thread_time() - cpu, time.perf_counter() - wall
        print(f"batch {size:2d}: {cpu / batches / size * 1e6:4.0f} us CPU an action, "
              f"{wall / batches * 1e3:.2f} ms a commit")
    store.dispose()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 400)
