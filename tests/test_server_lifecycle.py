"""A game's life on the server (issue 47): a loss on time says time, no clock before every
side has moved and an abort when a first move does not come, rematch as an offer, the
answers to offers told to the offering side, results in words with scores, and the
lobby without abandoned games. In-process, on the server's fake clock: no test waits for
wall-clock time."""
from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import boardlab
from boardlab.core.record import check_record
from boardlab.core.results import summary
from boardlab.server.lifecycle import ABANDONED_AFTER, FIRST_MOVE_LIMIT, Lifecycle
from boardlab.server.store import Store

from test_server import (FakeClock, action, client, create, db, play_opening, reply,
                         socket, sync, timed_app, until)

__all__ = ["client", "db"]           # the fixtures of test_server.py, used here too

ONE_MINUTE = {"base": 60, "increment": 0}


def fresh(ws) -> dict:
    """A sync (the updates that came before it passed over)."""
    ws.send_json({"type": "sync"})
    return until(ws, lambda m: m["type"] == "sync")


def before_sync(ws) -> list[dict]:
    """The messages that came before the answer to a sync asked now."""
    ws.send_json({"type": "sync"})
    seen = []
    while (message := ws.receive_json())["type"] != "sync":
        seen.append(message)
    return seen


def lifecycle_app(db, clock, **options):
    return timed_app(db, clock, lifecycle=Lifecycle(**options))


# 1. A loss on time reads "time", not "resign" -------------------------------------------
def test_a_loss_on_time_says_time_in_the_history_the_status_and_the_record(db):
    clock = FakeClock()
    with timed_app(db, clock) as client:
        game = create(client, "carteso(size=5)", ["human", "human"],
                      clock={"base": 1, "increment": 0})
        opened = play_opening(client, game)
        with socket(client, game) as watcher:
            watcher.receive_json()
            clock.time += 1.5
            update = until(watcher, lambda m: m["type"] == "update")
        record = client.get(f"/api/games/{game['id']}/record").json()
    view, lines = update["view"], update["lines"]
    assert view["result"]["reason"] == "time" and view["history"][-1] == "time"
    assert len(view["history"]) == opened + 1
    assert view["result"]["summary"] == "Horizontal wins (vertical lost on time)"
    assert any("lost on time" in line for line in lines)
    assert not any("resign" in line for line in lines), lines
    assert record["moves"][-1] == "time" and record["meta"]["forfeit"]["kind"] == "time"
    assert check_record(record).lost_on_time           # the record replays to the flag


# 2. The opening: no clock runs until every side has moved; a missing first move aborts ----
def test_no_clock_runs_until_every_side_has_moved(db):
    clock = FakeClock()
    with timed_app(db, clock) as client:
        game = create(client, "carteso(size=5)", ["human", "human"], clock=ONE_MINUTE)
        clock.time += 8                                 # the page opens 8 s later
        with socket(client, game, 0) as first, socket(client, game, 1) as second:
            start = first.receive_json()
            second.receive_json()
            assert start["view"]["clocks"] == {"vertical": 60.0, "horizontal": 60.0}
            assert start["elapsed"] == {}
            clock.time += 5
            first.send_json(action(0, "Bc3", 0, "a1"))
            assert reply(first)["type"] == "ack"
            assert fresh(second)["elapsed"] == {}       # horizontal's first move: no clock
            clock.time += 7
            second.send_json(action(1, "Wa1", 1, "a2"))
            assert reply(second)["type"] == "ack"
            opened = fresh(first)
            assert opened["view"]["clocks"] == {"vertical": 60.0, "horizontal": 60.0}
            assert opened["elapsed"] == {"vertical": 0.0}   # vertical's clock runs now
            clock.time += 3
            assert fresh(second)["elapsed"] == {"vertical": 3.0}


def test_a_first_move_that_does_not_come_aborts_the_game(db):
    clock = FakeClock()
    with lifecycle_app(db, clock, first_move_limit=30) as client:
        game = create(client, "carteso(size=5)", ["human", "human"], clock=ONE_MINUTE)
        with socket(client, game, 0) as first, socket(client, game) as watcher:
            first.receive_json(), watcher.receive_json()
            clock.time += 29
            first.send_json(action(0, "Bc3", 0, "b1"))   # in time
            assert reply(first)["type"] == "ack"
            clock.time += 30                           # horizontal never moves
            update = until(watcher, lambda m: m["type"] == "update" and m["view"]["terminal"])
            first.send_json(action(0, "Bb2", 2, "b2"))
            assert reply(first)["code"] == "game_over"
        shown = client.get(f"/api/games/{game['id']}").json()
        record = client.get(f"/api/games/{game['id']}/record").json()
        listed = client.get("/api/games").json()["games"]
    result = update["view"]["result"]
    assert (result["winners"], result["draw"], result["reason"]) == ([], False, "aborted")
    assert result["returns"] == [0.0, 0.0] and result["summary"].startswith("Aborted")
    assert update["view"]["acting"] == [] and update["lines"] == [result["summary"]]
    assert [entry.move for entry in Store(db).log(game["id"])] == ["Bc3", "!abort"]
    assert shown["status"] == "aborted" and shown["view"]["result"]["reason"] == "aborted"
    assert record["result"] is None and record["meta"]["aborted"] is True
    check_record(record)                                # the moves, and no result
    assert game["id"] not in {entry["id"] for entry in listed}   # the lobby drops it


def test_an_aborted_game_stays_aborted_after_a_restart(db):
    clock = FakeClock()
    with lifecycle_app(db, clock, first_move_limit=10) as client:
        game = create(client, "carteso(size=5)", ["human", "human"], clock=ONE_MINUTE)
        with socket(client, game) as watcher:
            watcher.receive_json()
            clock.time += 10
            until(watcher, lambda m: m["type"] == "update")
    with timed_app(db, FakeClock()) as client:
        shown = client.get(f"/api/games/{game['id']}").json()
    assert shown["status"] == "aborted" and shown["view"]["terminal"]


def test_the_command_line_defaults_are_the_servers():
    from boardlab.cli.serve import ABANDONED_DAYS, FIRST_MOVE_LIMIT as CLI_LIMIT
    assert (CLI_LIMIT, ABANDONED_DAYS * 86400) == (FIRST_MOVE_LIMIT, ABANDONED_AFTER)


# 3. Rematch is an offer --------------------------------------------------------------------
def finished(client, spec="carteso(size=5)"):
    """A game of two people that horizontal resigned."""
    game = create(client, spec, ["human", "human"])
    with socket(client, game, 1) as ws:
        ws.receive_json()
        ws.send_json({"type": "resign", "seat": 1, "key": "r0"})
        assert reply(ws)["type"] == "ack"
    return game


def test_a_rematch_is_an_offer_the_other_side_accepts_or_declines(client):
    game = finished(client)
    with socket(client, game, 0) as first, socket(client, game, 1) as second, \
            socket(client, game) as watcher:
        for ws in (first, second, watcher):
            ws.receive_json()
        first.send_json({"type": "rematch"})
        told = [ws.receive_json() for ws in (first, second, watcher)]
        assert {(m["type"], m["event"], m["by"], m["rematch_offer"]) for m in told} == \
            {("rematch_offer", "offered", "vertical", "vertical")}
        assert sync(watcher)["rematch_offer"] == "vertical" and sync(watcher)["rematch"] is None
        first.send_json({"type": "accept_rematch"})         # not one's own offer
        assert first.receive_json()["code"] == "no_rematch"
        second.send_json({"type": "decline_rematch"})
        assert second.receive_json()["event"] == "declined"
        assert first.receive_json()["event"] == "declined"
        assert first.receive_json() == {"type": "declined", "offer": "rematch",
                                        "by": "horizontal"}    # the offerer is told
        watcher.receive_json()
        assert sync(first)["rematch_offer"] is None
        first.send_json({"type": "rematch"})
        first.send_json({"type": "withdraw_rematch"})
        assert [first.receive_json()["event"] for _ in range(2)] == ["offered", "withdrawn"]
        second.send_json({"type": "accept_rematch"})         # nothing stands now
        assert until(second, lambda m: m["type"] == "error")["code"] == "no_rematch"
        second.send_json({"type": "rematch"})
        until(first, lambda m: m["type"] == "rematch_offer")
        first.send_json({"type": "accept_rematch"})
        made = until(first, lambda m: m["type"] == "rematch")
        theirs = until(second, lambda m: m["type"] == "rematch")
    assert made["id"] == theirs["id"] and (made["seats"], theirs["seats"]) == ([1], [0])
    assert client.get(f"/api/games/{game['id']}").json()["rematch"] == made["id"]


def test_a_rematch_offer_is_withdrawn_when_its_maker_leaves(client):
    game = finished(client)
    with socket(client, game, 0) as first:
        first.receive_json()
        with socket(client, game, 1) as second:
            second.receive_json()
            second.send_json({"type": "rematch"})
            offered = until(first, lambda m: m["type"] in ("rematch_offer", "rematch"))
            assert (offered["type"], offered["event"]) == ("rematch_offer", "offered")
        gone = until(first, lambda m: m["type"] == "rematch_offer")
        assert (gone["event"], gone["rematch_offer"]) == ("withdrawn", None)
        assert sync(first)["rematch_offer"] is None


def test_a_rematch_is_made_at_once_where_no_person_of_another_side_is_connected(client):
    game = finished(client)
    with socket(client, game, 0) as first:
        first.receive_json()
        first.send_json({"type": "rematch"})
        made = first.receive_json()
    assert made["type"] == "rematch" and made["seats"] == [1]


# 13. A declined offer is told to the offering side ---------------------------------------
def test_a_declined_draw_is_told_to_the_offerer(client):
    game = create(client, "carteso(size=5)", ["human", "human"])
    with socket(client, game, 0) as first, socket(client, game, 1) as second:
        first.receive_json(), second.receive_json()
        first.send_json({"type": "offer_draw", "seat": 0})
        first.receive_json(), second.receive_json()
        second.send_json({"type": "decline_draw", "seat": 1})
        assert second.receive_json()["event"] == "declined"
        assert before_sync(second) == []              # the decliner gets no notice of its own
        assert before_sync(first) == [
            {"type": "draw", "version": 0, "by": "horizontal", "event": "declined",
             "draw_offer": None},
            {"type": "declined", "offer": "draw", "by": "horizontal"}]


def test_an_ai_side_that_declines_a_draw_is_told_too(client):
    game = create(client, "carteso(size=5)", ["human", {"ai": "random"}])
    with socket(client, game, 0) as ws:
        ws.receive_json()
        ws.send_json({"type": "offer_draw", "seat": 0})
        seen = before_sync(ws)
    assert {"type": "declined", "offer": "draw", "by": "horizontal"} in seen


# 8. Results in words, with scores; 14. the lobby ------------------------------------------
def play_out(client, game, rng):
    """Play random legal moves for both seats until the game ends; the last update."""
    with socket(client, game, 0) as first, socket(client, game, 1) as second:
        sockets = (first, second)
        for ws in sockets:
            ws.receive_json()
        for number in range(400):
            states = [fresh(ws) for ws in sockets]
            if states[0]["view"]["terminal"]:
                return states[0]
            seat = next(i for i, state in enumerate(states) if state["view"]["legal"])
            move = rng.choice(sorted(states[seat]["view"]["legal"]))
            sockets[seat].send_json(action(seat, move, states[seat]["version"], f"p{number}"))
            assert reply(sockets[seat])["type"] == "ack"
    raise AssertionError("the game did not end")


def test_a_result_by_the_rules_gives_the_score_in_words(client):
    game = create(client, "carteso(size=3)", ["human", "human"], seed=5)
    end = play_out(client, game, random.Random(3))
    result = end["view"]["result"]
    assert result["reason"] == "the rules" and result["scores"]
    words = result["summary"]
    assert words == summary(boardlab.make("carteso(size=3)"), result)
    scores = sorted(result["scores"].values(), reverse=not result["draw"])
    shown = "–".join(f"{value:g}" for value in scores)
    if result["winners"]:
        winner = result["winners"][0]
        assert words.startswith(f"{winner.capitalize()} wins {result['scores'][winner]:g}–")
    assert shown in words or result["draw"], words
    listed = {entry["id"]: entry for entry in client.get("/api/games").json()["games"]}
    assert listed[game["id"]]["result"]["summary"] == words
    assert listed[game["id"]]["result"]["winners"] == result["winners"]


class Wall:
    """The lobby's wall clock, moved on by the test."""

    def __init__(self):
        self.time = datetime.now(UTC)

    def __call__(self):
        return self.time


def test_the_lobby_drops_abandoned_games_and_shows_who_won(db):
    wall, clock = Wall(), FakeClock()
    with lifecycle_app(db, clock, first_move_limit=5, abandoned_after=86400,
                       wall=wall) as client:
        idle = create(client, "carteso(size=5)", ["human", "human"])
        won = finished(client)
        aborted = create(client, "carteso(size=5)", ["human", "human"], clock=ONE_MINUTE)
        with socket(client, aborted) as watcher:
            watcher.receive_json()
            clock.time += 5
            until(watcher, lambda m: m["type"] == "update")
        before = {entry["id"]: entry for entry in client.get("/api/games").json()["games"]}
        wall.time += timedelta(days=2)
        after = {entry["id"]: entry for entry in client.get("/api/games").json()["games"]}
    assert set(before) == {idle["id"], won["id"]}          # aborted: gone at once
    assert set(after) == {won["id"]}                       # idle for two days: abandoned
    result = after[won["id"]]["result"]
    assert after[won["id"]]["status"] == "over" and result["winners"] == ["vertical"]
    assert result["summary"] == "Vertical wins (horizontal resigned)"
    assert before[idle["id"]]["result"] is None


def test_a_finished_game_without_a_stored_result_is_listed_with_it(db):
    with timed_app(db, FakeClock()) as client:
        game = finished(client)
    store = Store(db)
    store.set_result(game["id"], None)                     # as an older server left it
    store.dispose()
    with timed_app(db, FakeClock()) as client:
        listed = {entry["id"]: entry for entry in client.get("/api/games").json()["games"]}
    assert listed[game["id"]]["result"]["winners"] == ["vertical"]
    assert Store(db).game(game["id"]).result["summary"] == \
        "Vertical wins (horizontal resigned)"
