"""Records from a hostile or careless hand: deep nesting, huge numbers,
stored facts that disagree with the replay, and a seeded fuzz over every game's records.

Loading a record either succeeds or raises RecordError; nothing else escapes.
"""
import json
import random

import pytest

import boardlab
from boardlab.checks.reliability import mutate
from boardlab import RecordError
from boardlab.cli import main

# one short finished game of each game (and a CTOR one with teams and secret squares)
SPECS = ("carteso(size=3)", "rumbo(size=2)", "cartagena(track=HCDSCH,cards_per_symbol=3,tokens=2)",
         "cartagena", "ctor(size=8,teams=2v2,secret_squares=true)")


def finished(spec: str, seed: int = 5) -> dict:
    state = boardlab.make(spec).new_initial_state(seed=3).played_out(seed)
    players = [f"p{seat}" for seat in range(state.game.num_seats)]
    return json.loads(boardlab.dumps(state, players=players))


def changed(record: dict, **changes) -> str:
    return json.dumps({**record, **changes})


DEEP = [("[" * 100_000, "nested too deeply"),
        ('{"a":' * 5000 + "1" + "}" * 5000, "nested too deeply"),
        ("[" * 5000 + "]" * 5000, "nested too deeply")]


@pytest.mark.parametrize("text,message", DEEP)
def test_deeply_nested_json_is_a_record_error(text, message):
    with pytest.raises(RecordError, match=message):
        boardlab.loads(text)


def test_nesting_inside_a_record_field_is_a_record_error():
    record = finished("carteso(size=3)")
    text = changed(record, meta=None).replace('"meta": null', '"meta": ' + "[" * 5000 +
                                              "]" * 5000)
    with pytest.raises(RecordError, match="nested too deeply"):
        boardlab.loads(text)


def test_huge_numbers_are_record_errors():
    record = finished("carteso(size=3)")
    with pytest.raises(RecordError, match="not a JSON record"):      # past int's digit limit
        boardlab.loads(changed(record, seed=0).replace('"seed": 0', '"seed": ' + "9" * 5000))
    with pytest.raises(RecordError, match="64 bits"):
        boardlab.loads(changed(record, seed=10**30))


def test_show_prints_the_record_error_without_a_traceback(tmp_path, capsys):
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000)
    assert main(["show", str(path)]) == 2
    err = capsys.readouterr().err
    assert "boardlab: error: not a JSON record: it is nested too deeply" in err
    assert "Traceback" not in err and "RecursionError" not in err
    assert main(["replay", "--record", str(path)]) == 2
    assert "nested too deeply" in capsys.readouterr().err


def test_a_finished_record_loads():
    for spec in SPECS:
        record = finished(spec)
        stored, state = boardlab.loads(json.dumps(record))
        assert state.is_terminal() and stored["result"]["returns"] == state.returns()


def _other_winner(record: dict) -> str:
    return next(name for name in record["result"]["scores"] if name != record["result"]["winner"])


BAD_FACTS = [
    (lambda r: {"result": {**r["result"], "winner": _other_winner(r)}}, "'winner' is"),
    (lambda r: {"result": {**r["result"], "winner": None}}, "'winner' is None"),
    (lambda r: {"result": {**r["result"], "scores": dict.fromkeys(r["result"]["scores"], 0)}},
     "'scores' is"),
    (lambda r: {"result": {**r["result"], "scores": None}}, "'scores' is None"),
    (lambda r: {"result": {"returns": r["result"]["returns"]}}, "must hold exactly"),
    (lambda r: {"result": {**r["result"], "extra": 1}}, "must hold exactly"),
    (lambda r: {"result": None}, "null but the moves end the game"),
    (lambda r: {"result": {**r["result"], "returns": r["result"]["returns"][::-1]}},
     "'returns' is"),
    (lambda r: {"seats": r["seats"][::-1]}, "are not the seats of"),
    (lambda r: {"seats": r["seats"][:1]}, "are not the seats of"),
    (lambda r: {"seats": "x"}, "are not the seats of"),
    (lambda r: {"players": r["players"][:1]}, "'players' must be null or 2 names"),
    (lambda r: {"players": ["a", 7]}, "'players' must be null or 2 names"),
    (lambda r: {"players": "ann"}, "'players' must be null or 2 names"),
    (lambda r: {"created": 7}, "'created'"),
]


@pytest.mark.parametrize("change,message", BAD_FACTS)
def test_facts_that_disagree_with_the_replay_are_refused(change, message):
    record = finished("carteso(size=3)")
    assert record["result"]["winner"] is not None
    with pytest.raises(RecordError, match=message):
        boardlab.loads(changed(record, **change(record)))


def test_the_result_of_an_unfinished_game_is_null():
    record = finished("carteso(size=3)")
    moves = record["moves"][:2]
    with pytest.raises(RecordError, match="the moves do not end the game"):
        boardlab.loads(changed(record, moves=moves))
    _, state = boardlab.loads(changed(record, moves=moves, result=None))
    assert not state.is_terminal()
    without = {key: value for key, value in record.items() if key != "result"}
    with pytest.raises(RecordError, match="'result' is missing"):
        boardlab.loads(changed(without, moves=moves))


def test_team_games_check_the_winning_team():
    record = finished("ctor(size=8,teams=2v2,secret_squares=true)")
    with pytest.raises(RecordError, match="'winner' is"):
        boardlab.loads(changed(record, result={**record["result"],
                                                "winner": _other_winner(record)}))
    with pytest.raises(RecordError, match="'players' must be null or 4 names"):
        boardlab.loads(changed(record, players=record["players"][:2]))


# The fuzz ---------------------------------------------------------------------------------

# the mutations: boardlab.checks.reliability.mutate (`boardlab soak reliability` runs them too)


@pytest.mark.parametrize("spec", SPECS)
def test_fuzzed_records_load_or_raise_record_errors(spec):
    rng = random.Random(f"records-{spec}")
    record = finished(spec)
    unfinished = {**record, "moves": record["moves"][:len(record["moves"]) // 2],
                  "result": None}
    outcomes = {"loaded": 0, "refused": 0}
    for case in range(60):
        base = rng.choice((record, unfinished))
        text = mutate(base, json.dumps(base, indent=rng.choice((None, 1))), rng)
        try:
            boardlab.loads(text)
        except RecordError as error:
            assert str(error), f"case {case}: an empty message"
            outcomes["refused"] += 1
        else:
            outcomes["loaded"] += 1
    assert outcomes["refused"] > 20 and outcomes["loaded"] > 0, outcomes
