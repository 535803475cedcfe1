"""The Ray runner's parts that need no cluster: batch sizes, one result a game, and a
tournament that hears of a game twice (a retry) counting it once. The cluster itself, a
node killed in the middle included, is tested by tests/ray (bash scripts/test-ray.sh)."""
import json

import pytest

from boardlab.arena import tournament as tournament_module
from boardlab.arena.executor import execute
from boardlab.arena.ray_runner import MAX_BATCH, Batches, Once, game_key
from boardlab.arena.storage import Store
from boardlab.arena.tournament import Tournament, tournament_config
from boardlab.core.errors import BoardlabError


def _tasks(n):
    return [{"spec": "carteso(size=5)", "players": ["random", "greedy"], "seed": 100 + i,
             "index": i} for i in range(n)]


def test_batches_start_with_one_game_then_last_about_half_a_second():
    batches = Batches(_tasks(200))
    assert len(batches.next(cpus=1)) == 1           # nothing known of the games yet
    for _ in range(4):
        batches.played({"seconds": 0.01})
    assert len(batches.next(cpus=1)) == 50          # 50 games of 10 ms
    batches.played({"seconds": 4.0})                # long games: one a batch
    assert len(batches.next(cpus=1)) == 1
    assert batches.sizes == [1, 50, 1]


def test_batches_are_capped_and_share_out_the_end_evenly():
    batches = Batches(_tasks(1000))
    batches.played({"seconds": 0.0001})
    assert len(batches.next(cpus=2)) == MAX_BATCH   # very short games: capped
    tail = Batches(_tasks(10))
    tail.played({"seconds": 0.001})
    assert [len(tail.next(cpus=2)) for _ in range(6)] == [3, 2, 2, 1, 1, 1]  # ceil(left/4)
    assert not tail and tail.next(cpus=2) == []


def test_a_fixed_batch_size_and_a_bad_one():
    batches = Batches(_tasks(5), size=2)
    assert [len(batches.next(cpus=8)) for _ in range(3)] == [2, 2, 1]
    with pytest.raises(BoardlabError, match="at least one game"):
        Batches(_tasks(5), size=0)


def test_a_game_comes_through_once_by_its_key():
    once, [a, b] = Once(), _tasks(2)
    assert once.first(a) and once.first(b)
    assert not once.first(dict(a)) and once.duplicates == 1
    assert game_key(a) == (0, 100)


def test_a_tournament_counts_a_game_that_comes_back_twice_once(tmp_path, monkeypatch):
    """A retried game whose first result came back too is stored and reported once."""
    def twice(tasks, *args, **kwargs):
        pairs = list(execute(tasks))
        yield from pairs
        yield pairs[0]                              # the first game again (a retry)
    monkeypatch.setattr(tournament_module, "execute", twice)
    store = Store(str(tmp_path / "t.db"))
    config = tournament_config("carteso(size=5)", {"a": "random", "b": "greedy"}, rounds=2)
    tournament, heard = Tournament(store, "t", config), []
    standings = tournament.run(on_game=lambda p: heard.append((p.done, p.last is not None)))
    games = len(tournament.games)
    assert heard == [(0, False)] + [(i, True) for i in range(1, games + 1)]
    assert [row.idx for row in tournament.rows()] == list(range(games))
    assert sum(s.games for s in standings) == 2 * games
    store.dispose()


def test_standings_lists_the_games_with_their_nodes(tmp_path, capsys):
    """``standings NAME --games``: a line (or a JSON object) a game; off Ray no node."""
    from boardlab.cli import main

    db = str(tmp_path / "g.db")
    assert main(["tournament", "carteso(size=5)", "random", "greedy", "--name", "g",
                 "--db", db, "--jobs", "1", "--plot", str(tmp_path / "g.png")]) == 0
    capsys.readouterr()
    assert main(["standings", "g", "--db", db, "--games", "--json"]) == 0
    games = json.loads(capsys.readouterr().out)
    assert [g["index"] for g in games] == [0, 1]
    assert all(g["node"] is None and g["node_ip"] is None for g in games)
    assert sorted(g["sides"][0] for g in games) == ["greedy", "random"]
    assert main(["standings", "g", "--db", db, "--games"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in lines] == ["game 1", "game 2"]
    assert "node" not in "".join(lines)


def test_a_game_line_names_its_ray_node():
    from types import SimpleNamespace

    from boardlab.arena.standings import game_lines

    row = SimpleNamespace(idx=4, sides=["a", "b"], seed=9, scores=[1.0, 0.0],
                          returns=[1.0, -1.0], forfeit=None, actions=20,
                          record={"meta": {"node": "0123456789abcdef", "node_ip": "10.0.0.7"}})
    assert game_lines([row]) == ["game 5: a vs b -> 1 0 [node 01234567 at 10.0.0.7]"]


def test_ray_batch_needs_ray_and_a_positive_number(tmp_path, capsys):
    from boardlab.cli import main

    db = str(tmp_path / "x.db")
    assert main(["tournament", "carteso(size=5)", "random", "greedy", "--db", db,
                 "--ray-batch", "4"]) == 2
    assert "--ray-batch is for games on Ray" in capsys.readouterr().err
    assert main(["tournament", "carteso(size=5)", "random", "greedy", "--db", db,
                 "--ray", "local", "--ray-batch", "0"]) == 2
    assert "--ray-batch must be at least 1, not 0" in capsys.readouterr().err
    assert not (tmp_path / "x.db").exists()           # refused before anything was made


def test_the_pool_keeps_its_workers_busy_while_the_caller_stores_a_result(monkeypatch):
    """--jobs: when the caller gets a result (and stores it, which can take longer than a
    short game), every worker still has a game to play: the next ones were submitted."""
    from concurrent.futures import ProcessPoolExecutor

    from boardlab.arena import executor

    submitted = []

    class Counting(ProcessPoolExecutor):
        def submit(self, *args, **kwargs):
            task = next(arg for arg in args if isinstance(arg, dict))    # (the game's)
            submitted.append(task["index"])
            return super().submit(*args, **kwargs)
    monkeypatch.setattr(executor, "ProcessPoolExecutor", Counting)
    jobs, ahead = 2, []
    for got, _ in enumerate(execute(_tasks(8), jobs=jobs), 1):
        ahead.append(len(submitted) - got)          # games submitted, not yet given back
    assert sorted(submitted) == list(range(8))
    assert ahead == [4, 4, 4, 4, 3, 2, 1, 0]        # 2 x jobs ahead, the next one
    assert min(ahead[:8 - jobs]) >= jobs            # submitted before the result came


def test_a_batch_ray_could_not_play_names_its_games():
    """Lost more times than Ray retries: a clear error naming the games; a game's own
    error (a task error) comes through as it is."""
    from types import SimpleNamespace

    exceptions = pytest.importorskip("ray.exceptions")
    from boardlab.arena.ray_runner import _results

    def failing(error):
        def get(ref):
            raise error
        return SimpleNamespace(get=get, exceptions=exceptions)
    with pytest.raises(BoardlabError, match=r"lost game\(s\) 3, 4 more than 4 times "
                                            r"\(NodeDiedError\)"):
        _results(failing(exceptions.NodeDiedError("gone")), None, _tasks(5)[3:])
    own = exceptions.RayTaskError("play_batch", "Traceback ...", ValueError("bad game"))
    with pytest.raises(exceptions.RayTaskError):
        _results(failing(own), None, _tasks(1))
