"""The game room's parts: typed log entries (and old logs replaying), the one router, the
offer machine."""
import ast
import asyncio
import json
import pathlib
import time
import types
import warnings
from datetime import UTC, datetime

import pytest

with warnings.catch_warnings():      # starlette >= 1.x would rather have httpx2
    warnings.filterwarnings("ignore", message="Using `httpx`")
    from starlette.testclient import TestClient

from boardlab.server import create_app
from boardlab.server.ai import Thinker
from boardlab.server.clients import Clock, Limits
from boardlab.server.hub import Hub
from boardlab.server.log_entries import (DRAW, RESIGN, TIMEOUT, Kind, LogEntry,
                                         LogEntryError, move, undo)
from boardlab.server.messages import FIELDS, parse
from boardlab.server.offers import DRAW as DRAW_OFFER, REMATCH, UNDO, OfferError, Offers
from boardlab.server.room import Room
from boardlab.server.store import Action, ChatMessage, Store

SERVER = pathlib.Path(__file__).resolve().parent.parent / "boardlab" / "server"


# Log entries ---------------------------------------------------------------------------------
@pytest.mark.parametrize("entry, text", [
    (move("Bc3"), "Bc3"), (RESIGN, "resign"), (TIMEOUT, "!timeout"), (undo(4), "!undo 4"),
    (undo(0), "!undo 0"), (DRAW, "!draw")])
def test_each_log_entry_is_stored_as_the_text_it_always_had(entry, text):
    assert entry.encode() == text
    assert LogEntry.decode(text) == entry


def test_a_move_named_resign_is_a_resignation_and_only_moves_are_played():
    assert move("resign") is RESIGN
    assert [e.played for e in (move("Bc3"), RESIGN, TIMEOUT, undo(1), DRAW)] == \
        [True, False, False, False, False]
    assert undo(3).kind is Kind.UNDO and undo(3).target == 3


@pytest.mark.parametrize("text", ["!undo", "!undo x", "!undo -1", "!resign", "!"])
def test_an_unknown_server_entry_is_refused(text):
    with pytest.raises(LogEntryError, match="unknown server log entry"):
        LogEntry.decode(text)


def test_a_log_written_as_text_by_an_older_server_replays(tmp_path):
    """Logs hold plain text (written here straight into the database, as servers wrote it
    before entries were typed): the server loads every kind of entry."""
    db = f"sqlite:///{tmp_path / 'old.db'}"
    store = Store(db)
    spec, seats = "carteso(size=5)", [{"kind": "open"}, {"kind": "open"}]
    clock = {"base": 60.0, "increment": 0.0}
    logs = {"drawn": ["Bc3", "Wa1", "!undo 1", "!draw"],
            "timed": ["Bc3", "!timeout"],
            "resigned": ["Bc3", "resign"]}
    movers = {"drawn": [0, 1, 0, 1], "timed": [0, 1], "resigned": [0, 0]}
    for game_id, log in logs.items():
        store.create_game(game_id, spec, 7, seats, clock=clock if game_id == "timed" else None)
        for index, (seat, text) in enumerate(zip(movers[game_id], log)):
            clocks = [60.0, 0.0] if game_id == "timed" and text == "!timeout" else None
            store.append(game_id, index, Action(seat, text, f"k{index}", clocks), "active")
    store.dispose()
    with TestClient(create_app(db, ai_processes=0)) as client:
        shown = {game_id: client.get(f"/api/games/{game_id}").json() for game_id in logs}
        record = client.get("/api/games/drawn/record").json()
    assert {game_id: game["version"] for game_id, game in shown.items()} == \
        {"drawn": 4, "timed": 2, "resigned": 2}
    assert all(game["view"]["terminal"] for game in shown.values())
    assert shown["drawn"]["view"]["result"]["draw"] and record["meta"]["agreed_draw"]
    assert record["moves"] == ["Bc3"]                # the undo took Wa1 back
    assert shown["timed"]["view"]["result"]["reason"] == "time"
    assert shown["timed"]["view"]["result"]["winners"] == ["vertical"]
    assert shown["resigned"]["view"]["result"]["winners"] == ["horizontal"]


# The router -------------------------------------------------------------------------------
def test_every_client_message_type_has_exactly_one_route():
    hub = types.SimpleNamespace(clock=Clock())
    room = Room(hub, "g", "carteso(size=5)", 1, [{"kind": "open"}] * 2, [])
    assert set(room.routes) == set(FIELDS)
    assert all(callable(handler) for handler in room.routes.values())


def test_only_the_room_dispatches_on_a_message_type():
    """The WebSocket only parses frames: no other server module looks at a message's type."""
    readers = {path.name for path in SERVER.glob("*.py")
               if any(isinstance(node, ast.Attribute) and node.attr == "type" and
                      isinstance(node.value, ast.Name) and node.value.id == "message"
                      for node in ast.walk(ast.parse(path.read_text())))}
    assert readers <= {"room.py"}, readers


# Offers ---------------------------------------------------------------------------------------
def test_an_offer_stands_until_answered_or_withdrawn():
    offers = Offers()
    assert offers.offer(DRAW_OFFER, 0, ai_answers=False) is None
    assert offers.standing == {DRAW_OFFER: 0}
    with pytest.raises(OfferError) as refused:
        offers.offer(DRAW_OFFER, 1, ai_answers=False)
    assert refused.value.reason == "standing"
    with pytest.raises(OfferError):
        offers.accept(DRAW_OFFER, 0)                # not one's own offer
    assert offers.offered_to(DRAW_OFFER, 1) == 0
    assert offers.accept(DRAW_OFFER, 1) == 0 and offers.standing == {}
    offers.offer(DRAW_OFFER, 1, ai_answers=False)
    assert offers.decline(DRAW_OFFER, 0) == 1 and offers.standing == {}
    offers.offer(DRAW_OFFER, 1, ai_answers=False)
    with pytest.raises(OfferError):
        offers.withdraw(DRAW_OFFER, 0)
    offers.withdraw(DRAW_OFFER, 1)
    assert offers.standing == {}
    offers.offer(DRAW_OFFER, 0, ai_answers=False)
    offers.clear()
    assert offers.standing == {}


def test_ai_sides_answer_at_once_and_a_rematch_is_an_offer_people_answer():
    offers = Offers()
    assert offers.offer(DRAW_OFFER, 0, ai_answers=True) is False      # AIs decline draws
    assert offers.offer(UNDO, 0, ai_answers=True) is True             # and accept undos
    assert offers.offer(REMATCH, 0, ai_answers=True) is True          # and rematches
    assert offers.standing == {}
    assert offers.offer(REMATCH, 0, ai_answers=False) is None         # people answer it
    assert offers.standing == {REMATCH: 0}


# Several processes -----------------------------------------------------------------------
HUMANS = [{"kind": "human", "token": "x"}, {"kind": "human", "token": "y"}]


async def _one_room(store, seats=HUMANS):
    """A hub over ``store`` with one Carteso 5x5 room, and seat 0's connection to it."""
    hub = Hub(store, Thinker(0), limits=Limits.off())
    room = await hub.create("carteso(size=5)", [dict(seat) for seat in seats], seed=1)
    client = hub.client((0,))
    await room.connect(client)
    return hub, room, client

def test_an_action_another_process_stored_under_its_key_is_acknowledged_again(tmp_path):
    """A client resends its action (same key) through a process that has not yet caught
    up with the one that stored it: the append conflicts, the room catches up, and the
    answer is the ack of the stored action, not ``stale_version`` (keys are idempotent
    across processes too)."""

    async def play():
        store = Store(f"sqlite:///{tmp_path / 'two.db'}")
        hub, room, client = await _one_room(store)
        store.append(room.id, 0, Action(0, "Bc3", "k1"), "active")   # "the other process"
        await room.receive(client, parse('{"type": "action", "seat": 0, "move": "Bc3", '
                                         '"version": 0, "key": "k1"}'))
        frames = []
        while not client.outbox.empty():
            frames.append(client.outbox.get_nowait())
        await hub.close()
        return room.version, frames

    version, frames = asyncio.run(play())
    assert version == 1
    kinds = [json.loads(frame)["type"] for frame in frames]
    assert "ack" in kinds and "error" not in kinds, frames


def test_notices_to_other_processes_leave_in_the_order_they_happened(tmp_path, monkeypatch):
    """A draw offer and the AI side's refusal are two notices: the second is sent only
    after the first, even when the first is slow (each once took a thread of its own)."""
    sent = []

    def announce(game_id, what):
        if what.startswith("draw:offered"):
            time.sleep(0.2)                     # the first notice is slow to leave
        sent.append(what)

    async def play():
        store = Store(f"sqlite:///{tmp_path / 'notices.db'}")
        monkeypatch.setattr(store, "shared", True)
        monkeypatch.setattr(store, "announce", announce)
        hub, room, client = await _one_room(
            store, [HUMANS[0], {"kind": "ai", "agent": "random"}])
        await room.receive(client, parse('{"type": "offer_draw", "seat": 0}'))
        while len(sent) < 2 and any(not task.done() for task in hub.tasks):
            await asyncio.sleep(0.05)
        await hub.close()

    asyncio.run(play())
    assert sent == ["draw:offered:0", "draw:declined:1"]


def test_a_chat_message_another_process_stored_first_still_reaches_this_ones_readers(
        tmp_path):
    """Two processes' chat messages race for one index: the loser stores its own as the
    next one, and delivers the winner's too (it was skipped, and its notice then found
    nothing new)."""
    async def play():
        store = Store(f"sqlite:///{tmp_path / 'chat.db'}")
        hub, room, client = await _one_room(store)
        store.add_chat(room.id, ChatMessage(0, "players", None, "horizontal", "from afar",
                                            datetime.now(UTC)))
        await room.receive(client, parse('{"type": "chat", "seat": 0, "channel": '
                                         '"players", "text": "from here"}'))
        frames = [json.loads(client.outbox.get_nowait()) for _ in range(client.outbox.qsize())]
        await hub.close()
        return [frame["text"] for frame in frames if frame["type"] == "chat"]

    texts = asyncio.run(play())
    assert texts == ["from afar", "from here"]


def test_movers_kept_between_calls_follow_moves_undos_and_replays():
    """``Room.movers`` extends the list it kept: after moves, an undo to an earlier
    position with other moves played from there, and a replay from the log, it equals the
    list made afresh from the history."""
    from boardlab.server.log_entries import perform
    hub = types.SimpleNamespace(clock=Clock())
    room = Room(hub, "g", "carteso(size=5)", 1, [{"kind": "open"}] * 2, [])

    def fresh():
        return [seat if seat >= 0 else None for seat, _ in room.driver.state.history]

    def play(seat, text):
        perform(room.driver, seat, move(text))
        assert room.movers() == fresh()

    for seat, text in [(0, "Bc3"), (1, "Wa1"), (0, "Bb2"), (1, "Wd4")]:
        play(seat, text)
    before = room.movers()
    perform(room.driver, 1, undo(2))                  # back to two entries ...
    assert room.movers() == fresh() == before[:2]
    play(0, "Be5")                                    # ... and on from there
    play(1, "Wa5")
    play(0, "Ba2")
    assert room.movers() == fresh() and len(fresh()) == 5
    room.rebuild([Action(0, "Bc3", None, None)])      # a replay: new history entries
    assert room.movers() == fresh() == [0]
    assert room.movers() is not room.movers()         # each call's list is its own
