"""Start-up stays light: games and their compiled kernels load when first used.

Each check runs in a fresh interpreter and looks at ``sys.modules``; no timing.
"""
import importlib.util
import json
import subprocess
import sys


def loaded_after(code: str) -> dict:
    """Run ``code`` in a new interpreter; which modules were loaded, and its printed value."""
    probe = (f"import sys, json\n{code}\n"
             "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in "
             "('numba', 'numpy', 'boardlab'))))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True).stdout
    return set(json.loads(out.splitlines()[-1]))


def test_importing_the_library_and_the_cli_loads_no_game_and_no_numba():
    # building the parser is what `boardlab --help` does: every subcommand's options
    modules = loaded_after("import boardlab, boardlab.cli; boardlab.cli.build_parser()")
    assert "boardlab.cli" in modules
    assert not any(m.split(".")[0] in ("numba", "numpy") for m in modules)
    assert not any(m.startswith("boardlab.games.") for m in modules)


def test_making_a_game_loads_that_game_only():
    modules = loaded_after("import boardlab; boardlab.make('rumbo(size=9)')")
    assert "boardlab.games.rumbo" in modules and "numba" in modules
    assert not {"boardlab.games.carteso", "boardlab.games.cartagena",
                "boardlab.games.ctor"} & modules


def test_the_listing_loads_every_game():
    modules = loaded_after("import boardlab; print([c.name for c in boardlab.games()])")
    assert {"boardlab.games.carteso", "boardlab.games.rumbo", "boardlab.games.cartagena",
            "boardlab.games.ctor"} <= modules


def test_lazy_games_are_listed_and_named_in_errors():
    import boardlab
    from boardlab.core import registry

    assert [cls.name for cls in boardlab.games()] == ["cartagena", "carteso", "ctor", "rumbo"]
    try:
        boardlab.make("nogame")
    except boardlab.UnknownGameError as error:
        assert "cartagena, carteso, ctor, rumbo" in str(error)
    else:
        raise AssertionError("an unknown game was made")
    try:
        registry.register_lazy("rumbo", "somewhere.else")
    except ValueError:
        pass
    else:
        raise AssertionError("a second module was accepted for a registered name")


def test_bench_appends_one_json_line_per_figure(tmp_path, capsys):
    """``boardlab bench --json-out FILE``: each measurement is a JSON object on its own line."""
    from boardlab.cli import main

    out = tmp_path / "bench.jsonl"
    out.write_text('{"earlier": true}\n')                 # appended to, never replaced
    assert main(["bench", "carteso(size=4)", "--runs", "2", "--seconds", "0.02", "--api",
                 "--json-out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "us/move" in printed and "carteso(size=4)" in printed
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert lines[0] == {"earlier": True}
    if importlib.util.find_spec("pyspiel") is not None:     # the API's reference, paired
        reference = lines.pop(2)
        assert reference["spec"] == "openspiel:go(board_size=9)" and reference["rate"] > 0
        assert reference["result"]["paired_with"] == "carteso(size=4)"
        assert "openspiel:go(board_size=9) through pyspiel" in printed
        assert lines[2]["result"]["x"] > 0
    assert len(lines) == 3
    kernel, api = lines[1:]
    assert (kernel["mode"], kernel["unit"], api["mode"], api["unit"]) == \
        ("kernel", "playouts/s", "api", "moves/s")
    for record in (kernel, api):
        assert record["spec"] == "carteso(size=4)" and record["runs"] == 2
        assert record["rate"] > 0 and record["date"].endswith("+00:00")
        assert "commit" in record and "load" in record
    assert api["result"]["us_per_move"] == 1e6 / api["rate"]


def test_the_warm_up_runs_every_registered_game():
    """``python -m boardlab.warmup`` (run by scripts/setup-env.sh after installing) plays
    every declared configuration of every game, and its analysis set-ups: a line per game,
    moves played in each."""
    import io
    import boardlab
    from boardlab import warmup
    from boardlab.core.registry import games
    out = io.StringIO()
    warmup.warm_up(out)
    lines = out.getvalue().splitlines()
    assert [line.split(":")[0].strip() for line in lines] == [cls.name for cls in games()]
    for cls in games():
        count = len(cls.conformance_specs or (cls.name,)) + len(cls.setup_examples)
        assert f"{cls.name}: {count} configuration" in out.getvalue()
    assert warmup.warm_game("carteso(size=4)") > 0
    for cls in games():     # a game with set-up options shows one; each is a game that goes on
        set_up = {o.name for o in cls.declared_options if o.analysis}
        assert bool(cls.setup_examples) == bool(set_up), cls.name
        for spec in cls.setup_examples:
            assert boardlab.make(spec).given & set_up, spec
            assert warmup.warm_game(spec) > 0, spec


def test_the_search_bench_skips_positions_with_one_legal_move():
    """A seed whose initial position leaves one legal move is not searched (its rate, 0,
    would pull the median down): Cartagena basic, 2 players, seed 4 is one."""
    import boardlab
    from boardlab.bench import _searchable
    game = boardlab.make("cartagena(profile=basic,players=2)")
    state = game.new_initial_state(seed=4)
    assert len(state.legal_actions_for(state.acting_seats()[0])) == 1
    cases = _searchable(game, 3, 3)
    assert cases == [3, 5, 6]
    for case in cases:
        state = game.new_initial_state(seed=case)
        assert len(state.legal_actions_for(state.acting_seats()[0])) > 1


def test_bench_api_times_the_reference_and_the_game_in_alternation(monkeypatch):
    """Each run of the game comes right after a run of OpenSpiel's reference (a load that
    comes and goes weighs on both alike); ``x`` is the median of the pairs' ratios."""
    from boardlab import bench

    calls = []
    monkeypatch.setattr(bench, "_openspiel_reference", lambda name: "a pyspiel game")
    monkeypatch.setattr(bench, "_openspiel_games",
                        lambda game, seconds, rng: calls.append("reference") or (1.0, 1.0, 100))
    costs = iter([9.0, 1.0, 3.0, 2.0, 1.0, 1.0])   # the game's CPU seconds: warm-up, runs
    monkeypatch.setattr(bench, "_api_games",
                        lambda game, seconds, rng: calls.append("game") or (1.0, next(costs), 100))
    result = bench.bench_api("carteso(size=4)", seconds=0.01, runs=3,
                             reference="go(board_size=9)")
    assert calls == ["game", "reference"] + ["reference", "game"] * 3   # warm-ups, then pairs
    assert result["reference"]["cpu_us_per_move"] == 1e4
    assert result["x"] == 2.0 and result["cpu_us_per_move"] == 2e4
    assert "reference" not in bench.bench_api("carteso(size=4)", seconds=0.01, runs=1)
