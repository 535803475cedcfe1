"""Correspondence clocks (issue 48): ``{"days": N}``, N days for each move, checked by the
server's clock machinery (a loss on time says time), refilled after each move, whose
deadline survives a restart (it comes from the stored log, not from memory). On the
server's fake clock and wall: no test waits for real time."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from boardlab.core.driver import TimeControl
from boardlab.core.errors import BoardlabError
from boardlab.server.lifecycle import Lifecycle

from test_server import (FakeClock, action, client, create, db, play_opening, reply,
                         socket, timed_app, until)

__all__ = ["client", "db"]           # the fixtures of test_server.py, used here too

DAY = 86400
SPEC = "carteso(size=5)"


def error_of(response) -> tuple[int, str, str]:
    error = response.json()["error"]
    return response.status_code, error["code"], error["message"]


@pytest.mark.parametrize("clock", [{"days": 0}, {"days": 100}, {"days": "3"},
                                   {"days": 1.5}, {"days": True}, {"days": 3, "base": 60}])
def test_a_bad_correspondence_clock_is_refused_with_what_is_wrong(client, clock):
    response = client.post("/api/games", json={"spec": SPEC, "seats": ["human", "human"],
                                               "clock": clock})
    status, code, message = error_of(response)
    assert (status, code) == (400, "bad_clock")
    assert "days per move from 1 to 14" in message
    assert client.get("/api/games").json()["games"] == []     # nothing was made


def test_a_correspondence_clock_is_accepted_and_shown_in_days(client):
    game = create(client, SPEC, ["human", "human"], clock={"days": 3})
    assert game["clock"] == {"days": 3}
    shown = client.get(f"/api/games/{game['id']}").json()
    assert shown["clock"] == {"days": 3}
    assert shown["view"]["clocks"] == {"vertical": 3 * DAY, "horizontal": 3 * DAY}


def test_a_refilled_clock_is_full_again_after_each_move():
    control = TimeControl(game=100.0, refill=True)
    assert control.budget(100.0) is None             # an agent keeps its own budget
    with pytest.raises(BoardlabError):
        TimeControl(game=100.0, increment=1.0, refill=True)


def _acting(client, game) -> tuple[int, dict]:
    """The seat that acts now and its sync."""
    for seat in range(2):
        with socket(client, game, seat) as ws:
            state = ws.receive_json()                  # the sync on connecting
            if state["view"]["legal"]:
                return seat, state
    raise AssertionError("nobody acts")


def _move(client, game, seat: int, key: str) -> dict:
    """Seat ``seat`` plays its first legal move; the answer (ack or error)."""
    with socket(client, game, seat) as ws:
        state = ws.receive_json()
        ws.send_json(action(seat, state["view"]["legal"][0], state["version"], key))
        return reply(ws)


def test_each_move_has_its_days_and_a_side_that_exceeds_them_loses_on_time(db):
    clock = FakeClock()
    with timed_app(db, clock) as client:
        game = create(client, SPEC, ["human", "human"], clock={"days": 1})
        play_opening(client, game)
        for number in range(2):                     # 23 hours a move: in time, each time
            seat, _ = _acting(client, game)
            clock.time += 23 * 3600
            assert _move(client, game, seat, f"m{number}")["type"] == "ack"
        seat, state = _acting(client, game)
        assert set(state["view"]["clocks"].values()) == {float(DAY)}    # refilled
        with socket(client, game) as watcher:
            watcher.receive_json()
            clock.time += DAY + 1
            update = until(watcher, lambda m: m["type"] == "update" and m["view"]["terminal"])
        listed = {entry["id"]: entry for entry in client.get("/api/games").json()["games"]}
    result = update["view"]["result"]
    assert result["reason"] == "time" and update["view"]["history"][-1] == "time"
    assert "lost on time" in result["summary"]
    assert listed[game["id"]]["result"]["reason"] == "time"


class Wall:
    """The lobby's wall clock, set by the test."""

    def __init__(self, time: datetime):
        self.time = time

    def __call__(self) -> datetime:
        return self.time


def test_the_deadline_of_a_turn_survives_a_restart(db):
    """Half a day after the turn began the server restarts: the seat has the other half
    left, not a fresh day (the turn's start comes from the stored log)."""
    with timed_app(db, FakeClock()) as client:
        game = create(client, SPEC, ["human", "human"], clock={"days": 1})
        play_opening(client, game)
    clock = FakeClock()
    later = Wall(datetime.now(UTC) + timedelta(hours=12))
    with timed_app(db, clock, lifecycle=Lifecycle(wall=later)) as client:
        assert client.get(f"/api/games/{game['id']}").json()["status"] == "active"
        seat, _ = _acting(client, game)
        clock.time += 12 * 3600 + 1
        with socket(client, game, seat) as ws:
            state = ws.receive_json()
            if not state["view"]["terminal"]:           # else the flag fell first
                ws.send_json(action(seat, state["view"]["legal"][0], state["version"], "l"))
                answer = reply(ws)
                assert answer["type"] == "error", answer
                assert answer["code"] in ("out_of_time", "game_over")
        shown = client.get(f"/api/games/{game['id']}").json()
    assert shown["status"] == "over" and shown["view"]["result"]["reason"] == "time"


def test_days_that_ran_out_while_the_server_was_down_lose_on_time_at_once(db):
    with timed_app(db, FakeClock()) as client:
        game = create(client, SPEC, ["human", "human"], clock={"days": 1})
        play_opening(client, game)
        seat, _ = _acting(client, game)
    later = Wall(datetime.now(UTC) + timedelta(days=2))
    with timed_app(db, FakeClock(), lifecycle=Lifecycle(wall=later)) as client:
        with socket(client, game, seat) as ws:
            state = ws.receive_json()
            if not state["view"]["terminal"]:           # the flag may not have fallen yet
                ws.send_json(action(seat, state["view"]["legal"][0], state["version"], "l"))
                answer = reply(ws)
                assert answer["type"] == "error", answer
        shown = client.get(f"/api/games/{game['id']}").json()
    assert shown["status"] == "over" and shown["view"]["result"]["reason"] == "time"


def test_a_correspondence_game_without_a_first_move_is_aborted_after_its_days(db):
    """The opening of a correspondence game lasts its days per move, not the server's
    first-move limit of minutes; then it is aborted, as a timed game's opening is."""
    clock = FakeClock()
    with timed_app(db, clock, lifecycle=Lifecycle(first_move_limit=60)) as client:
        game = create(client, SPEC, ["human", "human"], clock={"days": 2})
        with socket(client, game) as watcher:
            watcher.receive_json()
            clock.time += 3600                          # an hour: far past 60 seconds
            assert client.get(f"/api/games/{game['id']}").json()["status"] == "active"
            clock.time += 2 * DAY
            update = until(watcher, lambda m: m["type"] == "update" and m["view"]["terminal"])
    assert update["view"]["result"]["reason"] == "aborted"
