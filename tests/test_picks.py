"""Why a click begins no legal move (core/picks.py, ``State.pick_reason``): the game's own
reason for the moves the click could still make, from the gestures the seat can use now;
and the server's ``explain`` message that asks it, and ``movers`` beside the view."""
import json
import warnings

import pytest

import boardlab

with warnings.catch_warnings():      # starlette >= 1.x would rather have httpx2
    warnings.filterwarnings("ignore", message="Using `httpx`")
    from starlette.testclient import TestClient

from boardlab.server import create_app
from boardlab.server.clients import Limits
from boardlab.server.messages import ProtocolError, parse


def test_a_legal_start_has_no_reason():
    state = boardlab.make("ctor(size=8)").new_initial_state(seed=1)
    assert state.pick_reason(0, [("cell", "5")]) is None


def test_ctor_names_what_is_wrong_with_the_click_not_every_kind_of_move():
    state = boardlab.make("ctor(size=8)").new_initial_state(seed=1)
    state.play("put 1")
    reason = state.pick_reason(1, [("cell", "1")])
    assert reason == "square 1 is occupied"          # the opening: Puts only, no secrets


def test_a_move_that_needs_two_clicks_gets_the_reason_of_its_second():
    state = boardlab.make("carteso(size=5)").new_initial_state(seed=1)
    state.play("Ba1")
    assert state.pick_reason(1, [("piece", "W"), ("cell", "a1")]) == "a1 is occupied"
    assert state.pick_reason(1, [("piece", "W"), ("cell", "b2")]) is None


def test_a_click_that_begins_no_gesture_says_what_the_seat_can_do():
    state = boardlab.make("carteso(size=5)").new_initial_state(seed=1)
    reason = state.pick_reason(0, [("cell", "a1")])
    assert reason.startswith("a cell (a1) begins no move") and "pick a colour" in reason


def test_cartagena_without_cards_says_the_start_is_no_place_to_move_back_from():
    state = boardlab.make("cartagena(hand_size=0)").new_initial_state(seed=1)
    seat = state.current_player()
    assert state.legal_moves() == ["pass"]
    assert state.pick_reason(seat, [("token", "0")]) == \
        "a pirate on the start cannot move back; you can pass"


def test_a_seat_that_does_not_act_is_told_so():
    state = boardlab.make("carteso(size=5)").new_initial_state(seed=1)
    assert state.pick_reason(1, [("piece", "B")]) == "horizontal does not act now"


@pytest.mark.parametrize("picks", [[], [{"kind": "cell"}], [{"kind": "number", "value": "1"}],
                                   [{"kind": "cell", "value": ""}], "a1",
                                   [{"kind": "cell", "value": "a1"}] * 9])
def test_explain_messages_with_bad_picks_are_refused(picks):
    with pytest.raises(ProtocolError) as refused:
        parse(json.dumps({"type": "explain", "seat": 0, "picks": picks}))
    assert refused.value.code == "bad_message"


def test_the_server_explains_a_click_and_sends_who_made_each_entry(tmp_path):
    db = f"sqlite:///{tmp_path / 'server.db'}"
    with TestClient(create_app(db, ai_processes=0, limits=Limits.off())) as client:
        game = client.post("/api/games", json={"spec": "ctor(size=8)", "seed": 3,
                                               "seats": ["human", "human"]}).json()
        tokens = [seat["token"] for seat in game["seats"]]
        with client.websocket_connect(f"/ws/{game['id']}?token={tokens[0]}") as ws:
            sync = ws.receive_json()
            assert sync["movers"] == []
            ws.send_json({"type": "action", "seat": 0, "move": "put 1", "version": 0,
                          "key": "k1"})
            kinds = {}
            while not {"ack", "update"} <= set(kinds):
                message = ws.receive_json()
                kinds[message["type"]] = message
            assert kinds["update"]["movers"] == [0]
            ws.send_json({"type": "explain", "seat": 0,
                          "picks": [{"kind": "cell", "value": "2"}]})
            answer = ws.receive_json()
            assert answer == {"type": "explanation", "version": 1, "seat": 0,
                              "picks": [{"kind": "cell", "value": "2"}],
                              "reason": "black does not act now"}
        with client.websocket_connect(f"/ws/{game['id']}?token={tokens[1]}") as ws:
            ws.receive_json()
            ws.send_json({"type": "explain", "seat": 1,
                          "picks": [{"kind": "cell", "value": "1"}]})
            assert ws.receive_json()["reason"] == "square 1 is occupied"
