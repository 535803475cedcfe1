"""The rooms of one spec share its Game instance (server/game_specs.py), and each still
plays its own position."""
import types

from boardlab.server.clients import Clock
from boardlab.server.game_specs import game_of
from boardlab.server.room import Room


def room(game_id: str, spec: str, seed: int) -> Room:
    hub = types.SimpleNamespace(clock=Clock())
    return Room(hub, game_id, spec, seed, [{"kind": "open"}] * 2, [])


def test_rooms_of_one_spec_share_the_game_and_keep_their_own_states():
    first, second = room("a", "carteso(size=5)", 1), room("b", "carteso(size=5)", 2)
    other = room("c", "carteso(size=7)", 1)
    assert first.driver.game is second.driver.game is game_of("carteso(size=5)")
    assert other.driver.game is not first.driver.game
    before = second.view(None)
    seat = first.acting()[0]
    first.driver.submit(seat, first.view(seat)["legal"][0])
    assert first.driver.state is not second.driver.state
    assert second.view(None) == before          # the other room's position is untouched
    assert len(first.driver.state.history) > len(second.driver.state.history)
