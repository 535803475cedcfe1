"""The accounts' event streams read the database only when woken (issue: each stream used
to read it every 2 s, 25 reads a second with 50 bots): N idle streams cost the process's
one shared watcher's read a period; a change in this process reaches a stream at once,
without waiting for a read; another process's change (a row written without a wake-up)
reaches it through the watcher. The period is injected; WAIT only bounds a stuck run."""
import asyncio

from sqlalchemy import event
from starlette.testclient import TestClient

from test_accounts import CSRF, SPEC, app, clock, db, signup  # noqa: F401
from test_connect import WAIT

from boardlab.server.accounts import challenges as challenge_store
from boardlab.server.accounts.notifier import Notifier
from boardlab.server.accounts.stream import Tracker, follow


def accounts_of(app):  # noqa: F811
    with TestClient(app) as client:
        signup(client, "Alice", "alice-password")
        client.post("/api/account/bots", json={"username": "alicebot"}, headers=CSRF)
    users = app.state.accounts.users
    return users.engine, users.find("alice").id, users.find("alicebot").id


async def until(condition) -> None:
    loop = asyncio.get_running_loop()
    start = loop.time()
    while not condition():
        assert loop.time() - start < WAIT, "stuck"
        await asyncio.sleep(0.005)


def reads_of(engine) -> list[str]:
    seen: list[str] = []
    event.listen(engine, "before_cursor_execute",
                 lambda conn, cursor, statement, *rest: seen.append(statement))
    return seen


def test_idle_streams_share_one_read_a_period(app):  # noqa: F811
    engine, alice, bot = accounts_of(app)
    streams = 20

    async def main():
        notifier = Notifier(engine, period=0.01)
        trackers = [Tracker(engine, (alice, bot)[i % 2]) for i in range(streams)]
        firsts = [tracker.poll() for tracker in trackers]
        reads = reads_of(engine)
        told: list[str] = []

        async def read(tracker, first):
            async for line in follow(tracker, notifier, tracker.user_id, first,
                                     keepalive=3600):
                told.append(line)
        tasks = [asyncio.ensure_future(read(t, f)) for t, f in zip(trackers, firsts)]
        await until(lambda: notifier.looks >= 10)
        looks, count = notifier.looks, len(reads)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        assert notifier.watcher is None and not notifier.waiting   # stopped with them
        return looks, count, told
    looks, count, told = asyncio.run(main())
    assert told == ["\n"] * streams                  # open, nothing happened
    assert count <= looks + 1, (count, looks)       # the watcher's reads only (+1 going)
    assert count < streams


def test_a_change_in_this_process_reaches_the_stream_without_a_read_of_its_own(app):  # noqa: F811
    engine, alice, bot = accounts_of(app)

    async def main():
        notifier = Notifier(engine, period=3600)    # the watcher never looks
        tracker = Tracker(engine, bot)
        lines = follow(tracker, notifier, bot, tracker.poll(), keepalive=3600)
        assert await anext(lines) == "\n"
        waiting = asyncio.ensure_future(anext(lines))
        await until(lambda: bot in notifier.waiting)
        made = challenge_store.add(engine, alice, bot, SPEC, None, False, 0)
        notifier.notify([alice, bot])               # what the route does
        line = await asyncio.wait_for(waiting, WAIT)
        await lines.aclose()
        return made, line, notifier.looks
    made, line, looks = asyncio.run(main())
    assert made in line and '"type": "challenge"' in line and looks == 0


def test_another_processs_change_reaches_the_stream_through_the_watcher(app):  # noqa: F811
    engine, alice, bot = accounts_of(app)

    async def main():
        notifier = Notifier(engine, period=0.01)
        tracker = Tracker(engine, bot)
        lines = follow(tracker, notifier, bot, tracker.poll(), keepalive=3600)
        assert await anext(lines) == "\n"
        waiting = asyncio.ensure_future(anext(lines))
        await until(lambda: notifier.looks >= 1)
        made = challenge_store.add(engine, alice, bot, SPEC, None, False, 0)  # no wake-up
        line = await asyncio.wait_for(waiting, WAIT)
        await lines.aclose()
        return made, line
    made, line = asyncio.run(main())
    assert made in line and '"type": "challenge"' in line
