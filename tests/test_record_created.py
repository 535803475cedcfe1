"""A record's ``created`` is when the game began, the same in every copy: the driver's
(the terminal, the arena) and the server's (the stored game's creation time)."""
import io
import json
from datetime import UTC, datetime, timedelta, timezone

import pytest
from sqlalchemy import create_engine, update

import boardlab
from boardlab.core import record as records
from boardlab.core.driver import GameDriver
from boardlab.core.errors import RecordError
from boardlab.server import create_app
from boardlab.server.store import games
from boardlab.terminal import TerminalGame

from test_server_web import FakeClock, TestClient, create, finish_by_resignation

START = datetime(2024, 3, 5, 6, 7, 8, tzinfo=UTC)


@pytest.fixture
def ticking(monkeypatch):
    """The records' clock moves on an hour each time it is read, from START."""
    moments = (START + timedelta(hours=hour) for hour in range(1000))

    class Ticking(datetime):
        @classmethod
        def now(cls, tz=None):
            return next(moments)

    monkeypatch.setattr(records, "datetime", Ticking)


def test_a_drivers_record_says_when_the_game_began_in_every_copy(ticking):
    driver = GameDriver(boardlab.make("carteso(size=3)"))
    driver.submit(0, "Bb2")
    first, again = driver.record(), driver.record()
    assert first["created"] == again["created"] == "2024-03-05T06:07:08+00:00"
    assert records.check_record(first).history_text() == ["Bb2"]


def test_a_terminal_games_saved_record_says_when_the_game_began(ticking, tmp_path):
    path = tmp_path / "game.json"
    session = TerminalGame(boardlab.make("carteso(size=3)"), {}, seed=1,
                           inp=io.StringIO("Bb2\nresign\n"), out=io.StringIO(), colour=False)
    session.run()
    records.datetime.now(UTC)                     # an hour later, the record is saved
    session.finish(str(path))
    saved, state = records.load(path)
    assert saved["created"] == "2024-03-05T06:07:08+00:00" and state.is_terminal()


def test_created_is_iso_time_in_utc():
    assert records.iso_time(datetime(2024, 3, 5, 6, 7, 8, 999)) == "2024-03-05T06:07:08+00:00"
    east = datetime(2024, 3, 5, 9, 7, 8, tzinfo=timezone(timedelta(hours=2)))
    assert records.iso_time(east) == "2024-03-05T07:07:08+00:00"
    record = json.loads(boardlab.dumps(boardlab.replay_moves("carteso(size=3)", ["Bb2"])))
    assert records.check_record(record).history_text() == ["Bb2"]
    for bad in ("yesterday", 7, "2024-13-01"):
        with pytest.raises(RecordError, match="'created' must be a time in ISO format"):
            records.check_record({**record, "created": bad})


def test_the_servers_record_says_when_the_game_was_created_however_often_asked(tmp_path):
    db = f"sqlite:///{tmp_path / 'server.db'}"
    with TestClient(create_app(db, ai_processes=0, clock=FakeClock())) as client:
        game = create(client, "carteso(size=3)", ["human", "human"], hotseat=True)
        engine = create_engine(db)                # the game was made long ago
        with engine.begin() as connection:
            connection.execute(update(games).where(games.c.id == game["id"])
                               .values(created=START))
        engine.dispose()
        record = finish_by_resignation(client, game, ["Bb2"])
        again = client.get(f"/api/games/{game['id']}/record").json()
        sgf = client.get(f"/api/games/{game['id']}/record.sgf").text
    assert record["created"] == again["created"] == "2024-03-05T06:07:08+00:00"
    assert "DT[2024-03-05]" in sgf
    with TestClient(create_app(db, ai_processes=0, clock=FakeClock())) as client:
        reloaded = client.get(f"/api/games/{game['id']}/record").json()   # a new process
    assert reloaded == record
