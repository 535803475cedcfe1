"""The tournament the Ray cluster tests play, and how they read it."""
from __future__ import annotations

from boardlab.arena.storage import Store
from boardlab.arena.tournament import Tournament, tournament_config

SPEC = "carteso(size=5)"
#: three participants, each a ``stall`` agent (tests/ray/stall_agent.py): plays as
#: ``play``; stalls in its 4th game on a victim node, when a test names one
PLAYERS = {"a": "stall(play=random,stall_at=4)", "b": "stall(play=greedy,stall_at=4)",
           "c": "stall(play=random,stall_at=4)"}
GAMES = 30                                  # 3 pairings x 2 colours x 5 rounds


def tournament(path, name="t") -> Tournament:
    config = tournament_config(SPEC, PLAYERS, rounds=5, seed=7, deals="fresh")
    return Tournament(Store(str(path)), name, config)


def played(tournament: Tournament, **run) -> tuple[list, list, list]:
    """Run it; return the standings, the stored rows and the game indices heard of."""
    heard: list[int] = []

    def on_game(progress):
        if progress.last is not None:
            heard.append(progress.last["record"]["meta"]["game_index"])
    standings = tournament.run(on_game=on_game, **run)
    return standings, tournament.rows(), heard


def baseline(tmp_path):
    """The same tournament in this process, without Ray."""
    return played(tournament(tmp_path / "local.db"), jobs=1)


def assert_same_games(rows, reference) -> None:
    assert [(r.idx, r.seed, r.returns, r.scores, r.actions) for r in rows] == \
        [(r.idx, r.seed, r.returns, r.scores, r.actions) for r in reference]


def node(row) -> str:
    """The Ray node that played a stored game."""
    return row.record["meta"]["node"]
