"""Agents that would cheat or crash, and what every agent is given: an agent loaded from
a file runs isolated (it cannot reach the real state; its crash is a forfeit), agents get
the public game and their runner's budget, hidden-information games get fresh deals, one
runner per tournament, and CTOR's determinizations keep the view they were drawn from."""
import json
import os
import random
import socket
import subprocess
import sys
import textwrap
from datetime import datetime, UTC

import pytest
from sqlalchemy import insert

import boardlab
from boardlab.agents import load_agents_from, make_agent
from boardlab.agents.isolated import IsolatedAgent
from boardlab.arena import duel
from boardlab.arena.game_runner import run_game
from boardlab.arena.match import run_match
from boardlab.arena.schedule import schedule
from boardlab.arena.storage import LockedError, Store, locks
from boardlab.arena.tournament import Tournament, tournament_config
from boardlab.cli import main
from boardlab.core.driver import TimeControl

from isolation import isolated
from postgres_server import throwaway_postgres

CARTAGENA = "cartagena(players=2)"

SNOOP = textwrap.dedent('''
    """A hostile agent: it looks through its process for the real state of the game."""
    import gc
    import json

    from boardlab.agents import Agent, register_agent
    from boardlab.core.game import State
    from boardlab.core.options import Option


    def states():
        """Every state of a game with hands in the process (a dead weak proxy among the
        objects raises ReferenceError when asked its class: skipped; states of other
        games, which an earlier test in the same process may have left to the garbage
        collector, have no hands to steal)."""
        for obj in gc.get_objects():
            try:
                if isinstance(obj, State) and hasattr(obj, "hand"):
                    yield obj
            except ReferenceError:
                continue


    @register_agent
    class Snoop(Agent):
        name = "snoop"
        description = "writes what it finds of the real game to its report file"
        declared_options = (Option("report", str, "", "the report file"),
                            Option("moves", int, 0, "raise after this many moves (0: never)"))
        made = 0

        def act(self, view, budget=None):
            self.made += 1
            if self.made > self.options["moves"] > 0:
                raise RuntimeError("enough")
            found = [{"seed": obj.seed,
                      "hands": [obj.hand(s).tolist() for s in range(obj.game.num_seats)]}
                     for obj in states()]
            with open(self.options["report"], "a") as handle:
                handle.write(json.dumps({"found": found, "game": self.game.spec,
                                         "seat": view["seat"], "budget": budget}) + "\\n")
            return min(view["legal_actions"])


    @register_agent
    class Crashy(Agent):
        name = "crashy"
        description = "raises"

        def act(self, view, budget=None):
            raise KeyError("nope")
''')


@pytest.fixture(scope="module")
def snoop_file(tmp_path_factory):
    """The hostile agents' file, loaded here as with --agents-from."""
    path = tmp_path_factory.mktemp("agents") / "snoop_agents.py"
    path.write_text(SNOOP)
    load_agents_from([str(path)])
    return str(path)


def reports(path) -> list[dict]:
    with open(path) as handle:
        return [json.loads(line) for line in handle]


# 2. Untrusted Python agents -------------------------------------------------------------------
def test_a_hostile_agent_finds_the_real_state_in_process(snoop_file, tmp_path):
    # What the isolation is for: in the runner's process the real state is one
    # gc.get_objects() away, with the seed and the other hand.
    report = tmp_path / "in.jsonl"
    result = run_game(CARTAGENA, [f"snoop(report={report})", "random"], seed=5,
                      max_actions=4, in_process=True)
    found = reports(report)[0]["found"]
    real = boardlab.make(CARTAGENA).new_initial_state(seed=result.record["seed"])
    assert {"seed": real.seed, "hands": [real.hand(s).tolist() for s in (0, 1)]} in found


def test_a_hostile_agent_from_a_file_is_isolated_by_default(snoop_file, tmp_path):
    report = tmp_path / "iso.jsonl"
    result = run_game(CARTAGENA, [f"snoop(report={report})", "random"], seed=5,
                      max_actions=6)
    assert result.forfeit is None
    seen = reports(report)
    assert len(seen) >= 2                            # it played, move after move
    for line in seen:
        assert line["found"] == []                   # no state in its process: view only
        assert line["game"] == boardlab.make(CARTAGENA).public_spec
        assert line["seat"] == 0 and line["budget"] is None   # the runner gave no budget


def test_an_isolated_agent_gets_the_runner_budget_and_its_crash_is_a_forfeit(snoop_file,
                                                                              tmp_path):
    report = tmp_path / "budget.jsonl"
    run_game(CARTAGENA, [f"snoop(report={report})", "random"], seed=2, max_actions=3,
             time_control=TimeControl(move=30))
    assert reports(report)[0]["budget"] == {"time": 30}
    crashed = run_game(CARTAGENA, ["crashy", "random"], seed=2)
    assert crashed.forfeit["kind"] == "crash"
    assert "KeyError: 'nope'" in crashed.forfeit["reason"]


def test_built_in_agents_and_perfect_information_games_stay_in_process(snoop_file):
    game, rumbo = boardlab.make(CARTAGENA), boardlab.make("rumbo(size=5)")
    from boardlab.arena.game_runner import isolates
    assert isolates("snoop", game) and not isolates("snoop", game, in_process=True)
    assert not isolates("mcts", game) and not isolates("snoop", rumbo)
    assert isinstance(IsolatedAgent(game, 0, "snoop"), IsolatedAgent)


def test_duel_isolates_too(snoop_file, tmp_path):
    report = tmp_path / "duel.jsonl"
    result = duel(CARTAGENA, f"snoop(report={report},moves=3)", "random", games=1, seed=3)
    assert result["forfeits"][0][1] == "crash: RuntimeError: enough"
    assert [line["found"] for line in reports(report)] == [[], [], []]


# 3. What an agent is given --------------------------------------------------------------------
@pytest.mark.parametrize("spec", [
    "cartagena(players=2,hands=HCD/SSH,first_player=0)",
    "cartagena(players=2,deck=HCDSSDCHHSDCCHSDDSHCSCHDHDCSSCHCDSDC)",
    "ctor(size=8,secret_squares=true,secrets=1,2,3,4,5/36,37,38,39,40)"])
def test_agents_get_the_public_game(spec):
    game = boardlab.make(spec)
    assert game.public_spec != game.spec
    for name in ("random", "mcts(iterations=20)", "engine(cmd=python3)"):
        agent = make_agent(name, game, 0, seed=1)
        assert agent.game.spec == game.public_spec
        agent.close()
    state = game.new_initial_state(seed=1)      # and it still plays: the view is enough
    agent = make_agent("ismcts(iterations=30)", game, state.current_player(), seed=1)
    assert agent.act(state.view(state.current_player())) in state.legal_actions()


@isolated(timeout=60)
def test_a_deck_of_another_makeup_is_public_in_the_public_game():
    # A deck of 40 cards: the public game keeps its makeup (cards=), never its order.
    game = boardlab.make("cartagena(players=2,deck=HCDSSDCHHSDCCHSDDSHCSCHDHDCSSCHCDSSDCHHS)")
    state = game.new_initial_state(seed=1)
    seat = state.current_player()
    agent = make_agent("mcts(iterations=30)", game, seat, seed=1)
    assert agent.game.spec == game.public_spec == "cartagena(cards=10,10,9,11)"
    assert agent.act(state.view(seat)) in state.legal_actions()


# 4. Deals across the games of a match ---------------------------------------------------------
def test_hidden_information_games_get_fresh_deals_by_default(tmp_path):
    outcome = run_match(CARTAGENA, {"a": "random", "b": "random"}, 4, seed=7,
                        out_dir=str(tmp_path / "m"))
    seeds = [row.record["seed"] for row in outcome.rows]
    assert seeds == [7, 8, 9, 10]
    deals = [boardlab.make(CARTAGENA).new_initial_state(seed=s).hand(0).tolist()
             for s in seeds]
    assert len({tuple(d) for d in deals}) > 1
    config = tournament_config(CARTAGENA, {"a": "random", "b": "random"}, seed=7)
    assert config["deals"] == "fresh"


def test_duplicate_deals_are_an_explicit_option(tmp_path):
    outcome = run_match(CARTAGENA, {"a": "random", "b": "random"}, 4, seed=7,
                        out_dir=str(tmp_path / "m"), deals="duplicate")
    assert [row.record["seed"] for row in outcome.rows] == [7, 7, 8, 8]
    # perfect information keeps the shared seeds (nothing is dealt)
    assert tournament_config("rumbo(size=5)", {"a": "random", "b": "random"})["deals"] == \
        "duplicate"
    assert [g.seed for g in schedule(["a", "b"], 2, "match", 2, 1, "fresh")] == [1, 2, 3, 4]
    with pytest.raises(boardlab.BoardlabError, match="unknown deals"):
        schedule(["a", "b"], 2, "match", 1, 1, "same")


# 5. One runner per tournament -----------------------------------------------------------------
def _tournament(url, name="locked"):
    store = Store(url)
    config = tournament_config("carteso(size=4)", {"a": "random", "b": "random"}, seed=1)
    return store, Tournament(store, name, config)


def test_a_second_runner_of_a_tournament_is_refused_and_told_who_holds_it(tmp_path, capsys):
    db = str(tmp_path / "t.db")
    store, tournament = _tournament(db)
    with tournament.held():
        code = main(["tournament", "--resume", "locked", "--db", db, "--jobs", "1", "--plot",
                     str(tmp_path / "never.png")])
        error = capsys.readouterr().err
        assert code == 2
        assert f"process {os.getpid()} on {socket.gethostname()}" in error
        assert tournament.rows() == []                        # it played nothing
        with pytest.raises(LockedError):
            Tournament(Store(db), "locked", tournament.config).run()
    assert main(["tournament", "--resume", "locked", "--db", db, "--jobs", "1", "--plot",
                 str(tmp_path / "locked.png")]) == 0
    assert len(tournament.rows()) == len(tournament.games)


def test_a_lock_left_by_a_killed_runner_is_taken_over(tmp_path):
    db = str(tmp_path / "t.db")
    store, tournament = _tournament(db)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    with store.engine.begin() as conn:
        conn.execute(insert(locks).values(tournament_id=tournament.id,
                                          host=socket.gethostname(), pid=dead.pid,
                                          since=datetime.now(UTC)))
    tournament.run()
    assert len(tournament.rows()) == len(tournament.games)
    with store.engine.begin() as conn:                         # released after the run
        assert conn.execute(locks.select()).first() is None


def test_the_lock_works_on_postgresql():
    with throwaway_postgres() as server:
        store, tournament = _tournament(server.url, "pg")
        with tournament.held():
            with pytest.raises(LockedError, match=f"process {os.getpid()}"):
                Tournament(Store(server.url), "pg", tournament.config).run()
        tournament.run()
        assert len(tournament.rows()) == len(tournament.games)
        store.dispose()


# 6. CTOR determinization ----------------------------------------------------------------------
CTOR_CONFIGS = [f"ctor(size={size},teams={teams},team_protocol={protocol},"
                f"secret_squares={secret},secret_count=2)"
                for size in (8, 10) for teams in ("1v1", "2v2", "3v3")
                for protocol in ("single", "simultaneous") for secret in ("false", "true")]


@pytest.mark.parametrize("spec", CTOR_CONFIGS)
def test_a_ctor_determinization_has_the_view_it_was_drawn_from(spec):
    game, rng = boardlab.make(spec), random.Random(spec)
    for _ in range(3):
        state = game.new_initial_state()
        for _ in range(rng.randrange(400)):
            if state.is_terminal():
                break
            seat = rng.choice(state.acting_seats())
            state.apply(rng.choice(state.legal_actions_for(seat)), seat=seat)
        for seat in range(game.num_seats):
            view = state.view(seat)
            assert game.determinize(view, rng.randrange(2**31)).view(seat) == view


# The command line -----------------------------------------------------------------------------
def test_match_flags_choose_the_process_and_the_deals(snoop_file, tmp_path, capsys):
    def match(out, *flags):
        report = tmp_path / f"{out}.jsonl"
        code = main(["match", CARTAGENA, f"snoop(report={report},moves=1)", "random",
                     "--games", "2", "--out", str(tmp_path / out), "--agents-from",
                     snoop_file, *flags])
        assert code == 0
        seeds = [json.loads((tmp_path / out / f"game-000{i}.json").read_text())["seed"]
                 for i in (1, 2)]
        return [line["found"] for line in reports(report)], seeds
    found, seeds = match("isolated")
    assert found == [[], []] and seeds == [1, 2]
    found, seeds = match("in-process", "--in-process", "--deals", "duplicate")
    assert all(found) and seeds == [1, 1]
    db = str(tmp_path / "t.db")
    assert main(["tournament", "rumbo(size=5)", "random", "random", "--name", "t", "--db", db,
                 "--jobs", "1", "--plot", str(tmp_path / "t.png")]) == 0
    capsys.readouterr()
    assert main(["tournament", "--resume", "t", "--db", db, "--deals", "fresh"]) == 2
    assert "do not give --deals" in capsys.readouterr().err
