"""The boardlab command: replay, play driven through stdin, bad input."""
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

import boardlab
from boardlab.agents import Agent, make_agent
from boardlab.cli import main
from boardlab.core.errors import SpecError
from boardlab.core.options import Option, parse_spec
from boardlab.terminal import TerminalGame

ROOT = Path(__file__).resolve().parent.parent


def run(*args, stdin=""):
    proc = subprocess.run([sys.executable, "-m", "boardlab.cli", *args], input=stdin,
                          capture_output=True, text=True, timeout=120)
    return proc.returncode, proc.stdout, proc.stderr


def test_replay_json_prints_the_summary():
    code, out, err = run("replay", "carteso(size=3,button=off)", "Bb2", "Wa3", "Wc1", "Wb3",
                         "Wa2", "Bc3", "Ba1", "Bb1", "Bc2", "--json")
    assert code == 0, err
    summary = json.loads(out)
    assert summary["board"] == ["WWB", "WBB", "BBW"]
    assert summary["scores"] == {"vertical": 0.0, "horizontal": 9 + 7.5}


def test_replay_illegal_move_exits_nonzero_with_move_index_and_reason():
    code, out, err = run("replay", "rumbo(size=5)", "Bb5", "Ba4", "--json")
    assert code != 0 and out == ""
    assert "'Ba4'" in err and "index 1" in err and "hole at a5" in err


@pytest.mark.parametrize("args, message", [
    (["replay", "chess", "e4"], "unknown game"),
    (["replay", "carteso(size=0)"], "option 'size'"),
    (["replay", "carteso(size=3)", "Xb2"], "not a move"),
    (["play", "carteso", "--colour", "red"], "unknown option 'colour'"),
    (["play", "carteso", "--vs", "genius"], "unknown agent"),
    (["play", "carteso", "--vs", "random,random,random"], "2 seats"),
    (["show", "/nonexistent/record.json"], "cannot read"),
])
def test_bad_input_gets_a_clear_error(args, message, capsys):
    assert main(args) == 2
    assert message in capsys.readouterr().err


def test_games_lists_games_and_options(capsys):
    assert main(["games"]) == 0
    out = capsys.readouterr().out
    assert "carteso:" in out and "rumbo:" in out and "komi_protocol" in out


def test_agents_lists_each_games_search_facts_from_the_game(capsys):
    """The per-game budgets, c and playouts come from the games' declared facts, and no
    agent's option help names a game (prose about one game drifts from its facts)."""
    from boardlab.agents import agents
    from boardlab.core.registry import games

    assert main(["agents"]) == 0
    out = capsys.readouterr().out
    per_game = out.split("\nper game")[1].splitlines()
    for cls in games():
        line = next(line.strip() for line in per_game if line.strip().startswith(cls.name + ":"))
        assert ", ".join(map(str, cls.level_budgets)) + " simulations" in line
        assert f"c {cls.exploration:g};" in line
        assert line.endswith("playout " + ", ".join(
            [cls.playout] + [p for p in cls.playouts if p != cls.playout]) +
            f"; rollout_turns {cls.rollout_turns or 'to the end'}")
    for agent in agents():
        for option in agent.declared_options:
            for cls in games():
                assert cls.title.lower() not in option.help.lower(), \
                    (agent.name, option.name, cls.title)


def test_hotseat_play_through_stdin_and_save(tmp_path):
    record = tmp_path / "game.json"
    moves = "Bb2\nWb2\nnonsense\nWa3\nundo\nWa3\nresign\n"
    code, out, err = run("play", "carteso", "--size", "3", "--button", "off", "--save",
                         str(record), "--no-colour", stdin=moves)
    assert code == 0, err
    assert "b2 is occupied" in out and "not a move" in out and "took back 1 move" in out
    assert "Horizontal wins (vertical resigned)" in out
    saved = json.loads(record.read_text())
    assert saved["moves"] == ["Bb2", "Wa3", "resign"]
    code, out, err = run("show", str(record))
    assert code == 0 and "3 moves" in out


def test_play_against_random_to_the_end(tmp_path):
    moves = "".join(f"B{c}{r}\n" for r in range(1, 4) for c in "abc") + "pass\n" * 12
    code, out, err = run("play", "rumbo", "--size", "3", "--komi", "0.5", "--vs", "random",
                         "--seed", "4", "--no-save", "--no-colour", stdin=moves)
    assert code == 0, err
    assert "random (horizontal) plays" in out and "game over:" in out


def test_undo_against_the_ai_takes_back_the_reply(tmp_path):
    code, out, err = run("play", "carteso", "--size", "4", "--vs", "random", "--seed", "1",
                         "--no-save", "--no-colour", stdin="Ba1\nundo\nquit\n")
    assert code == 0, err
    assert "took back 2 move(s)" in out and "game left unfinished" in out


def test_vs_takes_agent_specs_with_several_options():
    code, out, err = run("play", "cartagena", "--players", "3", "--vs",
                         "mcts(iterations=5,c=1.2),greedy", "--seat", "0", "--seed", "2",
                         "--no-save", "--no-colour", stdin="quit\n")
    assert code == 0, err
    assert "greedy (red) plays" in out and "game left unfinished" in out


def test_hint_suggests_a_legal_move_without_playing_it():
    code, out, err = run("play", "rumbo", "--size", "4", "--vs", "random", "--seed", "2",
                         "--hint", "mcts(iterations=200)", "--no-save", "--no-colour",
                         stdin="hint\nhint\nmoves\nquit\n")
    assert code == 0, err
    hints = [line.split("hint: ")[1] for line in out.splitlines() if "hint: " in line]
    legal = out.split("> ")[-2].strip().split(", ")          # the answer to 'moves'
    assert len(hints) == 2 and hints[0] == hints[1] and hints[0] in legal
    assert "plays" not in out                                # nobody moved


def test_a_bad_hint_agent_is_refused_at_the_start():
    code, out, err = run("play", "carteso", "--hint", "mcts(bad=1)", stdin="")
    assert code == 2 and "unknown option 'bad'" in err


def test_end_of_input_leaves_cleanly():
    code, out, err = run("play", "carteso", "--size", "3", "--no-save", stdin="")
    assert code == 0 and "game left unfinished" in out


def test_cartagena_hotseat_hides_hands_between_players():
    code, out, err = run("play", "cartagena", "--players", "2", "--first-player", "0",
                         "--seed", "3", "--no-save", "--no-colour",
                         stdin="\nH@0\n\nquit\n")
    assert code == 0, err
    assert out.count("Pass the keyboard to green") == 1
    assert "Pass the keyboard to purple" in out
    screens = out.split("Pass the keyboard to purple")
    assert "green   hand: H" in screens[0] and "purple  hand: 3 cards" in screens[0]
    assert "green   hand: 2 cards" in screens[1] and "purple  hand: " in screens[1]


def test_cartagena_against_agents():
    code, out, err = run("play", "cartagena", "--players", "3", "--vs", "random,random",
                         "--seed", "3", "--no-save", "--no-colour", stdin="quit\n")
    assert code == 0, err
    assert "random (purple) plays" in out and "red     hand: 3 cards" in out


def test_ctor_hotseat_shows_the_wrap_ring_and_quotas():
    code, out, err = run("play", "ctor", "--size", "8", "--no-save", "--no-colour",
                         stdin="put 1\nput 10\nput 11\nmove 1>2\nmove 9>2\nend\nquit\n")
    assert code == 0, err
    assert " 64 | 57 58 59 60 61 62 63 64 | 57" in out
    assert "left this turn: put 2, move 1, landing 1" in out
    assert "2 is occupied" in out or "not next to" in out or "occupied" in out


def test_ctor_simultaneous_team_mates_do_not_see_each_others_choice():
    moves = "\nput 5\n\nput 9\n\nput 20\n"
    code, out, err = run("play", "ctor", "--size", "8", "--teams", "2v2", "--team-protocol",
                         "simultaneous", "--vs", "random,random", "--seed", "1", "--no-save",
                         "--no-colour", stdin=moves + "\nquit\n")
    assert code == 0, err
    second = out.split("Pass the keyboard to black-2")[1]
    assert "last move: black-1:?" in second.split("black-2>")[0]
    assert "put 9" not in second.split("black-2>")[0]


def test_hidden_information_games_keep_their_secrets_in_the_terminal():
    code, out, err = run("play", "ctor(secret_squares=true,first_team=2)", "--vs", "random",
                         "--seed", "1", "--no-save", "--no-colour", stdin="quit\n")
    assert code == 0, err
    assert "random (white) plays secret ?" in out and "plays secret 8" not in out
    code, out, err = run("play", "cartagena", "--vs", "random", "--seed", "5", "--no-save",
                         "--no-colour", stdin="D@0\nundo\nquit\n")
    assert code == 0, err
    # undo never goes back across a reveal of hidden information (the card played
    # came out of a hidden hand) or a draw of cards
    assert "cannot undo: cannot take back moves across a reveal of hidden information" in out
    assert "took back" not in out


def test_duel_needs_two_sides(capsys):
    assert main(["duel", "cartagena(players=3)", "random", "random", "--games", "2"]) == 2
    assert "needs two sides" in capsys.readouterr().err


@pytest.mark.parametrize("name", [cls.name for cls in __import__(
    "boardlab.core.registry", fromlist=["games"]).games()])
def test_play_against_a_chosen_level_in_every_game(name):
    """Whoever moves first (Cartagena draws it), the agent plays when its turn comes."""
    outputs = []
    for seat in ("0", "1"):
        code, out, err = run("play", name, "--vs", "mcts(level=3)", "--seat", seat, "--seed",
                             "2", "--no-save", "--no-colour", stdin="quit\n")
        assert code == 0, err
        outputs.append(out)
    assert any("mcts(level=3) (" in out and ") plays" in out for out in outputs)


class _Failing(Agent):
    """An agent of one's own with a bug (or one that answers an illegal action)."""
    name = "failing"
    declared_options = (Option("bug", str, "raise", "raise or illegal"),)

    def act(self, view, budget=None):
        if self.options["bug"] == "raise":
            return view["no such key"]
        return -5


@pytest.mark.parametrize("bug, words", [
    ("raise", ["KeyError: 'no such key'", "test_cli.py", "in act"]),
    ("illegal", ["illegal move '-5'"])])
def test_a_failing_agent_stops_the_terminal_game_with_its_name_and_changes_nothing(bug,
                                                                                  words):
    game = boardlab.make("carteso(size=4)")
    agent = _Failing(game, 0, bug=bug)
    out = io.StringIO()
    session = TerminalGame(game, {0: agent}, seed=1, inp=io.StringIO(""), out=out,
                           colour=False)
    state = session.run()
    assert state.history == [] and state.current_player() == 0        # nothing applied
    assert session.failure.startswith("failing (vertical) failed: ")
    assert all(word in session.failure for word in words), session.failure
    assert "game left unfinished" in out.getvalue()


def test_a_crashing_engine_in_play_exits_nonzero_and_suggests_its_log():
    engine = f"engine(cmd={sys.executable} {ROOT / 'tests/engines/bad_engine.py'} crash)"
    code, out, err = run("play", "carteso", "--size", "4", "--vs", engine, "--seat", "1",
                         "--no-save", "--no-colour", stdin="Bd4\nquit\n")   # it crashes on
    assert code == 1, err                                                   # its 2nd move
    assert f"{engine} (vertical) failed: crash: exited with code 3 (engine(log=FILE) " \
           "keeps its stderr)" in out


def test_an_agent_keeps_the_spec_it_was_made_from():
    game = boardlab.make("carteso(size=4)")
    assert make_agent(" mcts(level=1) ", game, 0).spec == "mcts(level=1)"
    assert _Failing(game, 0).spec == ""                        # made directly


def test_a_failing_hint_agent_costs_only_the_hint():
    game = boardlab.make("carteso(size=4)")
    out = io.StringIO()
    session = TerminalGame(game, {}, seed=1, inp=io.StringIO("hint\nBa1\nquit\n"), out=out,
                           colour=False, hint=lambda seat, seed: _Failing(game, seat))
    state = session.run()
    assert "hint: none (failing failed: KeyError: 'no such key' (at " in out.getvalue()
    assert len(state.history) == 1 and session.failure is None   # the game went on


def test_a_stray_comma_in_a_spec_is_named():
    with pytest.raises(SpecError, match="a stray comma after 'time=1'"):
        parse_spec("mcts(time=1 , ,c=1)")
    assert parse_spec("engine(cmd=bot --sep ,)")[1] == {"cmd": "bot --sep ,"}  # a last value


def test_duel_says_who_forfeited_and_why(tmp_path):
    agents = tmp_path / "crashing_agents.py"
    agents.write_text("from boardlab.agents import Agent, register_agent\n\n@register_agent\n"
                      "class Crashing(Agent):\n    name = 'crashing'\n"
                      "    def act(self, view, budget=None):\n        return view['nope']\n")
    code, out, err = run("duel", "carteso(size=4)", "crashing", "random", "--games", "2",
                         "--agents-from", str(agents))
    assert code == 0, err
    assert "crashing vs random: 0/2 = 0.0%" in out
    assert "crashing forfeited 2 game(s); the first: crash: KeyError: 'nope'" in out
    assert "random forfeited" not in out


def test_an_unknown_option_is_named_even_without_a_value():
    code, out, err = run("play", "carteso", "--bogus-flag")
    assert code == 2 and "unknown option 'bogus_flag'" in err and "needs a value" not in err
    code, out, err = run("play", "carteso", "--size")
    assert code == 2 and "option --size needs a value" in err


def test_match_report_with_no_games_says_so(tmp_path):
    code, out, err = run("match", "carteso(size=5)", "random", "greedy", "--report",
                         "--out", str(tmp_path))
    assert code == 0, err
    assert "no games" in out and "nothing to report" in out and "Wilson" not in out


@pytest.mark.parametrize("spec", ["carteso(size=5)", "rumbo(size=5)", "cartagena",
                                  "ctor(size=8)"])
def test_help_explains_the_goal_and_the_notation(spec):
    game = boardlab.make(spec)
    out = io.StringIO()
    handover = "" if game.perfect_information else "\n"     # "pass the keyboard": Enter
    session = TerminalGame(game, {}, seed=1, inp=io.StringIO(handover + "help\nquit\n"),
                           out=out, colour=False)
    session.run()
    text = " ".join(out.getvalue().split())
    assert "The game:" in text and "Writing moves:" in text
    assert " ".join(game.rules_summary.split())[:40] in text
    assert " ".join(game.notation_guide.split())[:40] in text
    assert "undo take back the last move" in text        # hotseat: either player's
