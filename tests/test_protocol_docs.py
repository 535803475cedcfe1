"""docs/protocol.md shows one view per game: each example is what the code gives today."""
import json
import re
from pathlib import Path

import pytest

import boardlab

DOC = Path(__file__).resolve().parent.parent / "docs" / "protocol.md"
EXAMPLE = re.compile(r"\*\*(?P<spec>[^*]+)\*\*, seed (?P<seed>\d+), "
                     r"after the moves `(?P<moves>[^`]*)`, "
                     r"the view of (?P<who>[\w-]+(?: spectator)?)[^\n]*:\n\n"
                     r"```json\n(?P<view>.+?)\n```",
                     re.S)


def examples():
    return list(EXAMPLE.finditer(DOC.read_text()))


def test_the_document_has_one_example_per_game():
    shown = {boardlab.make(m["spec"]).name for m in examples()}
    assert shown == {cls.name for cls in boardlab.games()}


@pytest.mark.parametrize("match", examples(), ids=lambda m: m["spec"])
def test_each_example_is_the_view_the_code_gives(match):
    game = boardlab.make(match["spec"])
    state = game.new_initial_state(seed=int(match["seed"]))
    for move in json.loads(match["moves"]):
        state.play(move)
    who = match["who"]
    seat = None if who == "a spectator" else game.seat_names.index(who)
    assert json.loads(match["view"]) == state.view(seat)



# docs/server-protocol.md: the messages' fields are what the server sends ---------------------
SERVER_DOC = DOC.parent / "server-protocol.md"


def documented_fields(kind: str) -> set[str]:
    """The fields of the server -> client message ``kind`` in the protocol's table."""
    row = re.search(r'^\| `\{"type": "' + kind + r'"(?P<row>[^`]*)\}` \|', SERVER_DOC.read_text(),
                    re.M)
    assert row, kind
    return {"type"} | set(re.findall(r'"(\w+)"', row["row"]))


def documented_create_answer() -> dict:
    text = SERVER_DOC.read_text()
    start = text.index("```json\n", text.index("### `POST /api/games` — create"))
    start = text.index("```json\n", start + 1) + len("```json\n")
    return json.loads(text[start:text.index("```", start)])


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    import warnings
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Using `httpx`")
        from starlette.testclient import TestClient
    from boardlab.server import create_app
    db = f"sqlite:///{tmp_path_factory.mktemp('served') / 'server.db'}"
    with TestClient(create_app(db, ai_processes=0)) as client:
        yield client


def test_the_create_answer_has_the_documented_fields(served):
    shown = documented_create_answer()
    answer = served.post("/api/games", json={"spec": "carteso(size=5)", "seats": [
        "human", {"ai": "mcts(level=2)"}]}).json()
    assert set(answer) == set(shown)
    assert [set(seat) for seat in answer["seats"]] == [set(seat) for seat in shown["seats"]]
    assert answer["seats"][0]["page"].endswith(f"/game/{answer['id']}#token="
                                               f"{answer['seats'][0]['token']}")
    assert answer["watch_page"].endswith(f"/game/{answer['id']}")


def test_sync_update_position_and_ack_have_the_documented_fields(served):
    game = served.post("/api/games", json={"spec": "carteso(size=5)", "seats": [
        "human", "human"], "clock": {"base": 600, "increment": 0}}).json()
    token = game["seats"][0]["token"]
    with served.websocket_connect(f"/ws/{game['id']}?token={token}") as ws:
        sync = ws.receive_json()
        ws.send_json({"type": "action", "seat": 0, "move": "Bc3", "version": 0, "key": "d1"})
        ack, update = ws.receive_json(), ws.receive_json()
        ws.send_json({"type": "look", "at": 0})
        position = ws.receive_json()
    for message in (sync, ack, update, position):       # a clock: "elapsed" is there too
        assert set(message) == documented_fields(message["type"]), message["type"]
