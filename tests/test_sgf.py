"""Carteso and Rumbo records as SGF: read back with sgfmill (an SGF library, not our
writer's own parser), every move and the result rebuilt exactly, and the server's
download."""
import random
import re
from pathlib import Path

import pytest
from sgfmill import sgf

import boardlab
from boardlab.core.driver import GameDriver
from boardlab.core.record import check_record, replay_moves, result_of
from boardlab.games.territory_sgf import MOVE
from boardlab.server import create_app

from test_server_web import FakeClock, TestClient, create, finish_by_resignation

LETTERS = "abcdefghijklmnopqrstuvwxyz"

#: both games, several sizes and every option they declare that changes the play: the
#: button, komi (whole, half, negative), the komi bid, the side to move first, set-ups
SPECS = ("carteso(size=2)", "carteso(size=3)", "carteso(size=5)",
         "carteso(size=6,button=off,komi=0)", "carteso(size=4,komi=-2.5)",
         "carteso(size=5,komi_protocol=bid)", "carteso(size=3,button=off,komi_protocol=bid)",
         "carteso(size=4,turn=horizontal)",
         "carteso(size=5,position=BW.../W..../...../..B../.....,claims=Va5)",
         "rumbo(size=2)", "rumbo(size=3)", "rumbo(size=5,komi=0.5)", "rumbo(size=6,komi=3)",
         "rumbo(size=4,komi_protocol=bid)", "rumbo(size=5,turn=horizontal)",
         "rumbo(size=5,position=BW.../W..../...../..B../.....,claims=Ha5)")
ENDINGS = ("rules", "resign", "out_of_turn", "time", "crash", "draw")


def read(text):
    """What a reader of the documented mapping gets from the SGF with sgfmill: the root,
    the move list in boardlab notation, and each stone's mover colour ('b', 'w' or None
    for a set-up node)."""
    game = sgf.Sgf_game.from_string(text)
    n = game.get_size()
    moves, movers = [], []
    for node in game.get_main_sequence()[1:]:
        colour, point = node.get_move()
        black, white, empty = node.get_setup_stones()
        if colour is not None:
            assert not (black or white or node.has_property(MOVE))
            moves.append("pass" if point is None else colour.upper() + name(point))
            movers.append(colour)
        elif black or white:
            assert len(black) + len(white) == 1 and not empty and node.has_property("PL")
            stone, points = ("B", black) if black else ("W", white)
            assert node.get("PL") == stone.lower()    # the mover is the other colour
            moves.append(stone + name(next(iter(points))))
            movers.append(None)
        else:
            moves.append(node.get(MOVE))
            movers.append(None)
    assert n == boardlab.make(game.get_root().get("GN")).n
    return game, moves, movers


def name(point):
    row, col = point                      # sgfmill: row 0 at the bottom, as ours
    return f"{LETTERS[col]}{row + 1}"


def play_random(spec, seed, ending):
    """A driver's record of a random game of ``spec`` ending by ``ending``."""
    rng = random.Random(seed)
    game = boardlab.make(spec)
    driver = GameDriver(game, seed=seed)
    stop = rng.randrange(game.max_game_length) if ending != "rules" else None
    while not driver.over and (stop is None or len(driver.state.history) < stop):
        seat = driver.acting()[0]
        driver.submit(seat, rng.choice(driver.state.legal_actions()))
    if not driver.over:
        seat = driver.acting()[0]
        if ending == "draw":
            driver.agree_draw()
        elif ending == "resign":
            driver.resign(seat)
        else:
            kind = {"out_of_turn": "resign"}.get(ending, ending)
            driver.forfeit(1 - seat if ending == "out_of_turn" else seat, kind, "test")
    return driver.record(players=[f"p{seed}", f"q{seed}"])


def expected_re(record, state):
    """RE as the docs say it, from the record's own fields."""
    result = record["result"]
    if record.get("agreed_draw") or result["winner"] is None:
        return "0"
    side = state.seat_of_side.index(state.game.seat_names.index(result["winner"]))
    colour = "BW"[side]
    kind = ((record.get("meta") or {}).get("forfeit") or {}).get("kind")
    if state.resigned is not None:
        return colour + "+" + {None: "R", "resign": "R", "time": "T"}.get(kind, "F")
    margin = abs(result["scores"]["vertical"] - result["scores"]["horizontal"])
    return f"{colour}+{margin:g}"


@pytest.mark.parametrize("spec", SPECS)
def test_random_games_round_trip_through_sgfmill(spec):
    game = boardlab.make(spec)
    for seed in range(12):
        record = play_random(spec, seed, ENDINGS[seed % len(ENDINGS)])
        text = game.sgf(record)
        parsed, moves, movers = read(text)
        root = parsed.get_root()
        final = check_record(record)
        # every move, exactly, and the result it reaches
        assert moves == record["moves"], (seed, text)
        agreed = root.get("RE") == "0" and not replay_moves(spec, moves).is_terminal()
        assert agreed == bool(record.get("agreed_draw"))
        rebuilt = replay_moves(root.get("GN"), moves, agreed_draw=agreed)
        assert result_of(rebuilt) == record["result"]
        # the game information
        assert root.get("GN") == game.public_spec and root.get("RU") == game.title
        assert root.get("FF") == 4 and parsed.get_size() == game.n
        assert root.get("RE") == expected_re(record, final)
        assert root.get("DT") == record["created"][:10]
        if final.komi_half is not None:
            assert parsed.get_komi() == final.komi_half / 2
        winner = record["result"]["winner"]
        if winner is not None:
            side = final.seat_of_side.index(game.seat_names.index(winner))
            assert parsed.get_winner() == "bw"[side]
        for colour, seat in zip("bw", final.seat_of_side):  # Vertical Black, Horizontal White
            assert parsed.get_player_name(colour) == record["players"][seat]
        state = game.new_initial_state()
        for move, mover in zip(moves, movers):
            seat = state.current_player()
            state.play(move)
            if mover is not None:
                assert mover == "bw"[final.seat_of_side.index(seat)]


def test_a_score_win_and_each_kind_of_ending_has_its_standard_re():
    def sgf_of(moves, end=None, komi=0.5):
        game = boardlab.make(f"carteso(size=2,button=off,komi={komi})")
        driver = GameDriver(game)
        for move in moves:
            driver.submit(driver.acting()[0], move)
        if end:
            end(driver)
        return sgf.Sgf_game.from_string(game.sgf(driver.record(players=["ann", "bob"])))

    full = ["Ba1", "Wb1", "Ba2", "Wb2", "pass", "pass"]     # two columns: Vertical's 4
    won = sgf_of(full)
    assert won.get_root().get("RE") == "B+3.5" and won.get_winner() == "b"
    assert won.get_player_name("b") == "ann" and won.get_player_name("w") == "bob"
    assert won.get_komi() == 0.5
    lost = sgf_of(full, komi=5.5)
    assert lost.get_root().get("RE") == "W+1.5" and lost.get_winner() == "w"
    assert sgf_of(full, komi=4).get_root().get("RE") == "0"
    cases = {"W+R": lambda d: d.resign(0), "B+R": lambda d: d.resign(1),
             "W+T": lambda d: d.forfeit(0, "time", "ran out of time"),
             "B+T": lambda d: d.forfeit(1, "timeout", "used up its game clock"),
             "B+F": lambda d: d.forfeit(1, "illegal", "no such move"),
             "0": lambda d: d.agree_draw()}
    for result, end in cases.items():
        parsed = sgf_of(["Bb2"], end)
        assert parsed.get_root().get("RE") == result
        assert parsed.get_winner() == {"B": "b", "W": "w"}.get(result[0])


def test_the_other_colour_is_a_set_up_node_and_extra_moves_a_private_property():
    game = boardlab.make("carteso(size=3)")
    driver = GameDriver(game)
    for move in ["Wb2", "Wa1", "button", "Bc3", "pass", "pass"]:
        driver.submit(driver.acting()[0], move)
    text = game.sgf(driver.record())
    assert ";AW[bb]PL[W];W[ac];BLMOVE[button]C[vertical: button]PL[W];AB[ca]PL[B];B[];W[])" \
        in text.replace("\n", "")
    nodes = sgf.Sgf_game.from_string(text).get_main_sequence()
    assert nodes[1].get_setup_stones() == (set(), {(1, 1)}, set())
    assert nodes[2].get_move() == ("w", (0, 0))
    assert nodes[3].get(MOVE) == "button"
    assert nodes[5].get_move() == ("b", None) and nodes[6].get_move() == ("w", None)
    assert "PB" not in text and "PW" not in text          # no players named: none given


# The server's download ---------------------------------------------------------------------
@pytest.fixture
def client(tmp_path):
    app = create_app(f"sqlite:///{tmp_path / 'server.db'}", ai_processes=0, clock=FakeClock())
    with TestClient(app) as test_client:
        yield test_client


def test_the_sgf_download_of_a_bid_game_names_its_players_by_the_side_they_took(client):
    spec = "carteso(size=5,komi_protocol=bid)"
    game = create(client, spec, ["human", "human"], hotseat=True)
    url = f"/api/games/{game['id']}/record.sgf"
    assert client.get(url).status_code == 409
    assert client.get(url).json()["error"]["code"] == "not_over"
    moves = ["komi=2.5", "side=horizontal", "Wc3", "Ba1", "Wb2", "Be5"]
    record = finish_by_resignation(client, game, moves)
    response = client.get(url)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/x-go-sgf")
    parsed, read_moves, _ = read(response.text)
    root = parsed.get_root()
    assert read_moves == record["moves"] == moves + ["resign"]
    assert root.get("KM") == 2.5 and root.get("GN") == spec and root.get("RU") == "Carteso"
    # the second player took Horizontal: the first is Vertical, Black, and resigned
    assert record["result"]["winner"] == "second" and root.get("RE") == "W+R"
    assert parsed.get_winner() == "w"
    assert root.get("DT") == record["created"][:10]
    nodes = parsed.get_main_sequence()
    assert nodes[3].get_setup_stones()[1] == {(2, 2)}    # Vertical (Black) placed white c3
    assert nodes[4].get_setup_stones()[0] == {(0, 0)}    # Horizontal (White) placed black a1


def test_a_pass_is_an_empty_move_and_a_game_without_sgf_says_so(client):
    facts = client.get("/api/facts", params={"spec": "carteso(size=3)"}).json()
    assert facts["record_formats"] == ["json", "sgf"]
    assert client.get("/api/facts", params={"spec": "cartagena"}).json()[
        "record_formats"] == ["json"]
    game = create(client, "carteso(size=3)", ["human", "human"], hotseat=True)
    record = finish_by_resignation(client, game, ["Bb2", "button", "pass"])
    parsed, moves, _ = read(client.get(f"/api/games/{game['id']}/record.sgf").text)
    nodes = parsed.get_main_sequence()
    assert nodes[3].get_move() == ("b", None)
    assert moves == record["moves"] and parsed.get_root().get("RE") == "B+R"
    other = create(client, "cartagena", ["human", "human"])
    response = client.get(f"/api/games/{other['id']}/record.sgf")
    assert response.status_code == 404 and response.json()["error"]["code"] == "no_sgf"


def test_the_docs_example_is_what_the_writer_writes():
    docs = (Path(__file__).resolve().parent.parent / "docs" / "records.md").read_text()
    example = re.search(r"```\n(\(;FF\[4\].*?)```", docs, re.S).group(1)
    game = boardlab.make("carteso(size=3,komi=0.5)")
    driver = GameDriver(game)
    for move in "Bb2 Wa1 Wa3 button Bc3 Bb3 Wc1 pass pass".split():
        driver.submit(driver.acting()[0], move)
    record = driver.record(players=["ann", "bob"])
    del record["created"]                                 # the docs show no date
    version = re.compile(r"AP\[boardlab:[^\]]*\]")
    assert version.sub("AP[]", game.sgf(record)) == version.sub("AP[]", example)
    parsed, moves, _ = read(example)
    assert moves == record["moves"] and parsed.get_winner() == "w"
