"""The server's frame encoder (boardlab/server/wire.py): the same JSON values as
``json.dumps`` for every game's views and the server's messages."""
import json
import random

import pytest

import boardlab
from boardlab.server.wire import encode
from game_specs import conformance_specs


@pytest.mark.parametrize("spec", conformance_specs())
def test_views_encode_to_the_same_values_as_json_dumps(spec):
    """Every seat's and a spectator's view along a random game parse back to what
    ``json.dumps`` gives (the page and the bots read the same values)."""
    game = boardlab.make(spec)
    rng = random.Random(7)
    state = game.new_initial_state(seed=7)
    for _ in range(40):
        for seat in [None, *range(game.num_seats)]:
            view = state.view(seat)
            assert json.loads(encode(view)) == json.loads(json.dumps(view))
        if state.is_terminal():
            break
        seat = rng.choice(state.acting_seats())
        action = rng.choice(state.legal_actions_for(seat))
        if state.current_player() == boardlab.SIMULTANEOUS:
            state.apply(action, seat=seat)
        else:
            state.apply(action)


def test_compact_text_keys_and_refusals():
    """Compact text, non-ASCII kept as it is, non-string keys as strings (as json.dumps
    does), and TypeError for what JSON cannot hold."""
    message = {"type": "update", "seat": 0, "clocks": {0: 1.5, 1: 2}, "name": "Größe ✓",
               "moves": (1, 2), "flag": None}
    assert encode(message) == ('{"type":"update","seat":0,"clocks":{"0":1.5,"1":2},'
                               '"name":"Größe ✓","moves":[1,2],"flag":null}')
    assert json.loads(encode(message)) == json.loads(json.dumps(message))
    with pytest.raises(TypeError):
        encode({"x": object()})
