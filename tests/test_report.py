"""`boardlab report`: tiny runs (a few games a section) and the refusals of bad input."""
import os
import re

import pytest

from boardlab.arena.match import wilson_interval
from boardlab.report import plan_report, run_report
from boardlab.cli import main

PNG = b"\x89PNG\r\n\x1a\n"
CHEAP = ["--strengths", "random,mcts(iterations=10),mcts(iterations=20)",
         "--strong", "mcts(iterations=20)", "--levels", "1,2", "--speed-seconds", "0.05"]


def sections(text: str) -> dict[str, str]:
    """'## Title' -> the text under it."""
    parts = re.split(r"^## (.+)$", text, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2]))


def table_rows(text: str) -> list[list[str]]:
    """The cells of a Markdown table's body rows."""
    rows = [line.strip("|").split("|") for line in text.splitlines() if line.startswith("| ")]
    return [[cell.strip() for cell in row] for row in rows[1:]]


def is_png(path) -> bool:
    with open(path, "rb") as handle:
        return handle.read(8) == PNG


@pytest.fixture(scope="module")
def carteso_report(tmp_path_factory):
    """One small run of every section on Carteso 5x5 (sizes 5 and 30: 30 is refused)."""
    out = tmp_path_factory.mktemp("report") / "carteso"
    code = main(["report", "carteso", "--size", "5", "--games", "3", "--komi-games", "4",
                 "--sizes", "5,30", "--out", str(out), *CHEAP])
    assert code == 0
    return out, (out / "report.md").read_text()


def test_report_has_every_section_and_the_header(carteso_report):
    out, text = carteso_report
    assert set(sections(text)) == {"First-seat win rate by strength", "Fair komi by size",
                                   "Speed", "Levels compared"}
    header = text.split("## ")[0]
    assert "`carteso(size=5)`" in header                  # --size is the game's, not --sizes
    assert "boardlab report carteso --size 5" in header and f"{os.cpu_count()} CPU" in header
    assert "3 games a self-play" in header and "4 games a komi size" in header
    for name in ("first-seat.png", "komi-by-size.png", "komi-size-5.png", "levels.png"):
        assert is_png(out / name), name
    assert not [name for name in os.listdir(out) if name.endswith(".part")]


def test_first_seat_rows_are_the_games_played(carteso_report):
    _, text = carteso_report
    rows = table_rows(sections(text)["First-seat win rate by strength"])
    assert [row[0] for row in rows] == ["random", "mcts(iterations=10)", "mcts(iterations=20)"]
    for _agent, games, points, rate, interval, _draws, forfeits, length in rows:
        assert games == "3" and 0 <= float(points) <= 3 and forfeits == "0"
        assert rate == f"{100 * float(points) / 3:.1f}%"
        low, high = wilson_interval(float(points), 3)
        assert interval == f"{100 * low:.1f}–{100 * high:.1f}%"
        assert float(length) > 0


def test_komi_table_has_the_allowed_sizes(carteso_report):
    _, text = carteso_report
    komi = sections(text)["Fair komi by size"]
    rows = table_rows(komi)
    assert [row[0] for row in rows] == ["5"] and rows[0][1] == "4"
    assert "left out: 30" in komi and "mcts(iterations=20)" in komi


def test_speed_and_levels(carteso_report):
    _, text = carteso_report
    speed = table_rows(sections(text)["Speed"])
    assert speed[0][0].startswith("random playouts/s") and float(speed[0][1].replace(",", "")) > 0
    assert any("simulations/s" in row[0] for row in speed)
    levels = table_rows(sections(text)["Levels compared"])
    assert len(levels) == 1 and levels[0][0] == "`mcts(level=2)` vs `mcts(level=1)`"
    assert levels[0][1] == "3" and 0 <= float(levels[0][2]) <= 3


def test_a_game_without_komi_gets_no_komi_section(tmp_path, capsys):
    out = tmp_path / "cartagena"
    assert main(["report", "cartagena", "--games", "2", "--strengths", "random",
                 "--skip", "speed,levels", "--out", str(out)]) == 0
    text = (out / "report.md").read_text()
    parts = sections(text)
    header = text.split("## ")[0]
    assert "2 games a self-play" in header and "komi size" not in header   # no komi budget
    assert "fair komi" not in header                                        # nor its time
    assert "No komi section" in parts["Fair komi by size"]
    assert "no komi option" in parts["Fair komi by size"]
    assert "Skipped" in parts["Speed"] and "Skipped" in parts["Levels compared"]
    assert [row[1] for row in table_rows(parts["First-seat win rate by strength"])] == ["2"]
    assert "report: " in capsys.readouterr().err                   # progress on stderr


@pytest.mark.parametrize("extra, message", [
    (["--games", "0"], "--games must be at least 1"),
    (["--komi-games", "1"], "--komi-games must be at least 2"),
    (["--jobs", "0"], "--jobs must be at least 1"),
    (["--skip", "komi,bogus"], "unknown section(s) bogus"),
    (["--sizes", "5,x"], "--sizes wants whole numbers"),
    (["--levels", "2"], "at least two levels"),
    (["--strengths", "nosuchagent"], "--strengths: unknown agent"),
    (["--strong", "random"], "--levels (the strong agent's kind at each level)"),
    (["--button", "sideways"], "button"),
    (["--no-such-option", "3"], "no-such-option"),
    (["--speed-seconds", "0"], "--speed-seconds must be a positive number"),
])
def test_bad_arguments_are_refused_before_anything_runs(tmp_path, capsys, extra, message):
    out = tmp_path / "never"
    assert main(["report", "carteso", "--size", "5", "--out", str(out), *extra]) == 2
    err = capsys.readouterr().err
    assert "boardlab: error:" in err and message.replace("_", "-") in err.replace("_", "-")
    assert not out.exists()


def test_an_out_that_is_a_file_is_refused(tmp_path, capsys):
    path = tmp_path / "file"
    path.write_text("x")
    assert main(["report", "carteso", "--size", "5", "--out", str(path)]) == 2
    assert "is a file" in capsys.readouterr().err


def test_an_interruption_keeps_what_was_measured(tmp_path):
    plan = plan_report("carteso", {"size": 5}, out=str(tmp_path / "r"), games=2,
                       strengths=["random"], strong="mcts(iterations=10)",
                       skip=["komi", "levels"], speed_seconds=0.05)

    def log(line):
        if line.startswith("speed:"):
            raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        run_report(plan, log=log)
    text = (tmp_path / "r" / "report.md").read_text()
    parts = sections(text)
    assert "**interrupted** during speed" in text
    assert [row[1] for row in table_rows(parts["First-seat win rate by strength"])] == ["2"]
    assert "Interrupted before it finished" in parts["Speed"]
    assert sorted(os.listdir(tmp_path / "r")) == ["first-seat.png", "report.md"]
