"""The protocol pieces: options, spec strings, registry, records, errors."""
import json

import pytest

import boardlab
from boardlab.core.errors import SpecError
from boardlab.core.options import parse_spec


def test_make_by_keywords_and_spec_agree():
    a = boardlab.make("carteso", size=9, komi=7)
    b = boardlab.make("carteso(size=9,komi=7)")
    assert a == b and a.options["size"] == 9 and a.options["komi"] == 7.0
    assert boardlab.make(a.spec) == a


@pytest.mark.parametrize("spec, words", [
    ("carteso(size=1)", ["size", "2..26"]),
    ("carteso(size=nine)", ["size", "int"]),
    ("carteso(colour=red)", ["colour", "size"]),
    ("carteso(komi=7.25)", ["komi", "0.5"]),
    ("carteso(button=maybe)", ["button", "bool"]),
    ("carteso(komi_protocol=auction)", ["komi_protocol", "fixed|bid"]),
    ("rumbo(size=27)", ["size", "2..26"]),
    ("carteso(komi_protocol=bid,komi=3)", ["komi", "bid"]),
    ("carteso(komi_protocol=bid,komi=7)", ["komi", "bid"]),
    ("carteso(size=5,position=BW)", ["position", "5 rows"]),
    ("carteso(size=2,position=BX/..)", ["position", "'X'"]),
])
def test_bad_options_name_the_option_and_what_is_allowed(spec, words):
    with pytest.raises(boardlab.OptionError) as info:
        boardlab.make(spec)
    for word in words:
        assert word in str(info.value)


def test_unknown_game_and_bad_spec():
    with pytest.raises(boardlab.UnknownGameError, match="known games: .*carteso"):
        boardlab.make("chess")
    for bad in ("carteso(size)", "carteso(size=9", "9x9", "carteso(size=9,size=9)"):
        with pytest.raises(boardlab.SpecError):
            boardlab.make(bad)
    with pytest.raises(boardlab.OptionError, match="given in the spec and as a keyword"):
        boardlab.make("carteso(size=9)", size=9)


def test_parse_spec():
    assert parse_spec("Carteso( size = 9 , komi=7.5 )") == ("carteso", {"size": "9",
                                                                       "komi": "7.5"})
    assert parse_spec("rumbo") == ("rumbo", {})
    assert parse_spec("MCTS(TIME=1,C=2)") == ("mcts", {"time": "1", "c": "2"})  # any case
    with pytest.raises(SpecError, match="option 'time' given twice"):
        parse_spec("mcts(time=1,Time=2)")


def test_games_declare_their_options():
    for cls in boardlab.games():
        assert cls.name and cls.description
        for option in cls.declared_options:
            assert option.help and option.allowed()


def test_replay_error_names_move_index_and_reason():
    with pytest.raises(boardlab.IllegalMoveError) as info:
        boardlab.replay("carteso(size=3)", ["Bb2", "Wb2"])
    error = info.value
    assert error.index == 1 and error.move == "Wb2" and "occupied" in str(error)
    assert "index 1" in str(error) and "'Wb2'" in str(error)


def test_replay_summary_has_the_contract_keys():
    summary = boardlab.replay("carteso(size=3)", ["Bb2"])
    for key in ("board", "to_move", "terminal", "winner", "scores", "claimed", "legal"):
        assert key in summary
    assert summary["board"] == ["...", ".B.", "..."]
    assert summary["to_move"] == "horizontal"
    assert summary["legal"] == sorted(summary["legal"]) and "button" in summary["legal"]


def _record(**changes):
    state = boardlab.replay_moves("carteso(size=3,button=off,komi=0.5)", ["Bb2", "pass",
                                                                          "pass"])
    record = json.loads(boardlab.dumps(state))
    record["created"] = "2026-01-01T00:00:00+00:00"   # fixed: test ids must not depend on
    record.update(changes)                           # the second each worker collects in
    return json.dumps(record)


@pytest.mark.parametrize("text, message", [
    ("not json", "not a JSON record"),
    ("[1, 2]", "JSON object"),
    (_record(format="boardlab-record/9"), "unknown record format"),
    (_record(format=None), "unknown record format"),
    (_record(moves="Bb2"), "'moves'"),
    (_record(moves=["Bb2", 3]), "strings"),
    (_record(moves=["Bb2", "Bb2"]), "does not replay"),
    (_record(spec="carteso(size=99)"), "does not replay"),
    (_record(game="rumbo"), "says game"),
    (_record(options={"size": 4}), "options do not match"),
    (_record(result={"returns": [1.0, -1.0]}), "result does not match"),
    (_record(result="x"), "'result' must be an object"),
    (_record(result=[1]), "'result' must be an object"),
    (_record(meta=7), "'meta' must be an object"),
    (_record(seed=2**64), "integer of 64 bits"),
    (_record(seed=True), "integer of 64 bits"),
])
def test_bad_records_are_rejected(text, message):
    with pytest.raises(boardlab.RecordError, match=message):
        boardlab.loads(text)


def test_record_file_round_trip(tmp_path):
    state = boardlab.replay_moves("rumbo(size=2,komi=1)", ["Ba2", "Wb1", "Ba1", "Wb2"])
    path = tmp_path / "game.json"
    boardlab.save(path, state, players=["ann", "bob"])
    record, loaded = boardlab.load(path)
    assert record["players"] == ["ann", "bob"] and record["result"]["winner"] == "horizontal"
    assert loaded.summary() == state.summary()
    with pytest.raises(boardlab.RecordError, match="cannot read"):
        boardlab.load(tmp_path / "missing.json")


def test_bid_pregame_maps_seats_to_sides():
    game = boardlab.make("carteso(size=3,komi_protocol=bid,button=off)")
    state = game.new_initial_state()
    assert game.seat_names == ("first", "second")
    assert state.current_player() == 0 and len(state.legal_actions()) == 4 * 9 + 1
    with pytest.raises(boardlab.IllegalMoveError, match="propose the komi"):
        state.play("Bb2")
    state.play("komi=2.5")
    assert state.current_player() == 1 and state.legal_moves() == ["side=vertical",
                                                                     "side=horizontal"]
    state.play("side=vertical")
    assert state.current_player() == 1          # the second player chose Vertical
    for move in ("pass", "pass"):
        state.play(move)
    assert state.summary()["scores"] == {"vertical": 0.0, "horizontal": 2.5}
    assert state.returns() == [1.0, -1.0]       # seat 0 is Horizontal and wins on komi
    with pytest.raises(boardlab.NotationError):
        boardlab.make("carteso(size=3,komi_protocol=bid)").new_initial_state().play("komi=0.3")
