"""docs/protocol.md shows one view per game: each example is what the code gives today."""
import json
import re
from pathlib import Path

import pytest

import boardlab

DOC = Path(__file__).resolve().parent.parent / "docs" / "protocol.md"
EXAMPLE = re.compile(r"\*\*(?P<spec>[^*]+)\*\*, seed (?P<seed>\d+), "
                     r"after the moves `(?P<moves>[^`]*)`, "
                     r"the view of (?P<who>[\w-]+(?: spectator)?)[^\n]*:\n\n"
                     r"```json\n(?P<view>.+?)\n```",
                     re.S)


def examples():
    return list(EXAMPLE.finditer(DOC.read_text()))


def test_the_document_has_one_example_per_game():
    shown = {boardlab.make(m["spec"]).name for m in examples()}
    assert shown == {cls.name for cls in boardlab.games()}


@pytest.mark.parametrize("match", examples(), ids=lambda m: m["spec"])
def test_each_example_is_the_view_the_code_gives(match):
    game = boardlab.make(match["spec"])
    state = game.new_initial_state(seed=int(match["seed"]))
    for move in json.loads(match["moves"]):
        state.play(move)
    who = match["who"]
    seat = None if who == "a spectator" else game.seat_names.index(who)
    assert json.loads(match["view"]) == state.view(seat)

