"""`boardlab soak reliability` (issue 25, point 7): tiny runs of each check, a few cases
each, and proof that each check does report what it looks for.

The real run is a command (`--minutes 10`); these fix the number of cases (``limit``) so
that no test depends on the clock.
"""
import io
import json
import random

import pytest

import boardlab
from boardlab.checks import reliability
from boardlab.cli import main
from boardlab.core.errors import RecordError


def test_fuzzed_records_of_every_game_load_or_are_refused():
    outcome = reliability.check_records(0, random.Random(1), limit=80)
    assert outcome.cases == 80 and outcome.failed == 0, outcome.failures
    loaded, refused = (int(word) for word in outcome.note.replace(",", "").split()[::2])
    assert loaded + refused == 80 and refused > 20 and loaded > 0, outcome.note


def test_the_record_fuzzer_reports_an_error_other_than_a_record_error(monkeypatch):
    def broken(text):
        raise KeyError("moves")
    monkeypatch.setattr(boardlab, "loads", broken)
    outcome = reliability.check_records(0, random.Random(2), limit=3)
    assert outcome.failed == 3 and "KeyError" in outcome.failures[0]

    def silent(text):
        raise RecordError("")
    monkeypatch.setattr(boardlab, "loads", silent)
    assert reliability.check_records(0, random.Random(2), limit=2).failed == 2


def test_the_mutations_are_seeded():
    record = reliability.finished_record("carteso(size=3)")
    text = json.dumps(record)
    first = [reliability.mutate(record, text, random.Random(seed)) for seed in range(20)]
    assert first == [reliability.mutate(record, text, random.Random(seed)) for seed in range(20)]
    assert len(set(first)) > 10


def test_hidden_views_of_random_positions_hide_what_they_must():
    """Three games (the first three configurations; tests/test_conformance.py plays one of
    every configuration): every twin's views are the state's."""
    specs = reliability.hidden_specs()
    assert len(specs) > 3 and all(not boardlab.make(spec).perfect_information
                                  for spec in specs)
    outcome = reliability.check_hidden_views(0, random.Random(3), limit=3)
    assert outcome.failed == 0, outcome.failures
    assert outcome.cases > 3 and "3 games of 3 configurations" in outcome.note


def test_a_twin_a_seat_can_tell_apart_is_reported():
    spec = reliability.hidden_specs()[0]
    game = boardlab.make(spec)
    state = game.new_initial_state(seed=4)
    # sampled from another seat's view: the seat's own hidden part is not kept
    found = [reliability.twin_difference(state, 0,
                                         game.determinize(state.view(1), seed))
             for seed in range(10)]
    assert any(found), found
    assert "seat 0 tells the twins apart" in [f for f in found if f]


@pytest.mark.parametrize("mode", sorted(reliability.HOSTILE_MODES))
def test_each_hostile_engine_forfeits_as_it_must(mode, tmp_path):
    assert reliability.hostile_game(mode, 1, 7, tmp_path) is None


def test_the_hostile_engine_check_reports_a_wrong_forfeit(monkeypatch):
    monkeypatch.setitem(reliability.HOSTILE_MODES, "crash", "illegal")
    outcome = reliability.check_hostile_engines(0, random.Random(5), limit=2)
    modes = sorted(reliability.HOSTILE_MODES)[:2]
    assert modes[1] == "crash" and outcome.cases == 2
    assert outcome.failed == 1 and "not illegal" in outcome.failures[0]


def test_a_tournament_killed_and_resumed_stores_every_game_once():
    outcome = reliability.check_tournament_kills(0, random.Random(6), limit=1, kills=2,
                                                 rounds=6)
    assert outcome.cases == 1 and outcome.failed == 0, outcome.failures
    assert int(outcome.note.split()[0]) >= 1, outcome.note     # it was killed mid-run


def test_the_command_prints_one_line_per_check_and_fails_on_a_failure(monkeypatch, capsys):
    def passing(seconds, rng, limit=None):
        return reliability.Outcome("fine", cases=4)

    def failing(seconds, rng, limit=None):
        outcome = reliability.Outcome("broken", cases=2)
        outcome.fail("case 1: it broke")
        return outcome

    monkeypatch.setattr(reliability, "CHECKS", (passing,))
    assert main(["soak", "reliability", "--minutes", "0.01", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "fine: 4 cases tried, 0 failures" in out and out.rstrip().endswith(": OK")
    monkeypatch.setattr(reliability, "CHECKS", (passing, failing))
    assert main(["soak", "reliability", "--minutes", "0.01"]) == 1
    out = capsys.readouterr().out
    assert "broken: 2 cases tried, 1 failures" in out and "  case 1: it broke" in out
    assert out.rstrip().endswith("soak reliability: FAILED")


def test_bad_minutes_are_refused(capsys):
    assert main(["soak", "reliability", "--minutes", "0"]) == 2
    assert "--minutes must be above 0" in capsys.readouterr().err


def test_the_share_of_time_is_passed_to_each_check():
    seen = []

    def check(seconds, rng, limit=None):
        seen.append(seconds)
        return reliability.Outcome("x")
    reliability.reliability(2, seed=1, out=io.StringIO(), checks=(check, check))
    assert seen == [60.0, 60.0]
