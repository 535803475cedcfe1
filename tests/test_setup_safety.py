"""Set-up options and views from a hostile hand never write past a kernel buffer (issue 25).

Cartagena's kernel buffers are sized by the game's deck: a set-up (``deck=``, ``hands=``,
``discard=``, ``cards=``) is refused by validation unless it makes one deck of at most
MAX_CARDS cards, and a view that holds more cards than the game (another game's, or a
forged one) is refused by ``determinize`` before anything is written. The public spec
keeps what is public (the deck's makeup, not its order), so the public game that agents
get holds the same cards; CTOR's public spec of a set-up with secret squares says
``secrets=hidden`` and is a spec ``make`` accepts.
"""
import json
import os
from pathlib import Path
import random
import subprocess
import sys
import textwrap

import pytest
from starlette.testclient import TestClient

import boardlab
from boardlab import BoardlabError, OptionError
from boardlab.games import cartagena_sample
from boardlab.games.cartagena import MAX_CARDS
from boardlab.server import create_app

from isolation import isolated

BIG = "cartagena(deck=" + "HCDS" * 40 + ")"                       # 160 cards, not 36
ROWS = "/".join(["B......."] + ["........"] * 6 + [".......W"])


def played(game, actions: int, seed: int = 1):
    state, rng = game.new_initial_state(seed=seed), random.Random(seed)
    for _ in range(actions):
        if state.is_terminal():
            break
        seat = rng.choice(state.acting_seats())
        state.apply(rng.choice(state.legal_actions_for(seat)), seat=seat)
    return state


def same_facts(a, b) -> bool:
    return {**a.facts(), "spec": None} == {**b.facts(), "spec": None}


# Validation -----------------------------------------------------------------------------------
@pytest.mark.parametrize("options, message", [
    ({"deck": "H" * (MAX_CARDS + 1)}, f"at most {MAX_CARDS} cards in all, not {MAX_CARDS + 1}"),
    ({"deck": "H" * 200, "hands": "C" * 30 + "/" + "D" * 30}, "at most 240 cards in all, not 260"),
    ({"discard": "H" * 100, "cards_per_symbol": 40, "symbols": 6, "profile": "original",
      "deck": "S" * 150}, "at most 240"),
    ({"hands": "H" * 10 + "/C"}, "use more H cards than the deck has"),
    ({"cards": "1,2"}, "'cards': 4 whole numbers"),
    ({"cards": "9,9,9,x"}, "'cards': 4 whole numbers"),
    ({"cards": "9,9,9,-1"}, "'cards': 4 whole numbers"),
    ({"cards": "100,100,100,100"}, "at most 240 in all"),
    ({"cards": "1,0,0,0", "hands": "HH/"}, "use more H cards"),
    ({"deck": "HHH", "cards": "2,0,0,0"}, "hold 3,0,0,0, not 2,0,0,0"),
])
def test_set_up_cards_unlike_one_deck_are_refused(options, message):
    with pytest.raises(OptionError, match=message):
        boardlab.make("cartagena", **options)


@pytest.mark.parametrize("spec, cards", [
    (BIG, "40,40,40,40"),
    ("cartagena(players=2,deck=HCDSSDCHHSDCCHSDDSHCSCHDHDCSSCHCDSSDCHHS)", "10,10,9,11"),
    ("cartagena(deck=HHHC,hands=S/D,discard=HC)", "4,2,1,1"),
    ("cartagena(cards=3,0,0,1)", "3,0,0,1"),
    ("cartagena(hands=HCD/SSH,first_player=0)", None),           # the default deck
    ("cartagena(deck=HCDSSDCHHSDCCHSDDSHCSCHDHDCSSCHCDSDC)", "8,10,9,9"),
    ("cartagena(deck=" + "SDCH" * 9 + ")", None),                # the default makeup
])
def test_the_public_spec_keeps_the_decks_makeup_not_its_order(spec, cards):
    game = boardlab.make(spec)
    public = boardlab.make(game.public_spec)
    assert "deck=" not in game.public_spec and "hands=" not in game.public_spec
    assert public.options["cards"] == (cards or "")
    assert same_facts(game, public) and public.card_totals() == game.card_totals()
    assert public.deck_size == game.deck_size
    assert boardlab.make(public.public_spec).public_spec == public.public_spec


def test_a_deck_of_its_makeup_is_shuffled_by_the_seed():
    game = boardlab.make("cartagena(cards=20,0,0,4)")
    piles = {tuple(game.new_initial_state(seed=s).pile.tolist()) for s in range(4)}
    assert len(piles) > 1
    state = game.new_initial_state(seed=3)
    held = [c for p in range(2) for c in range(4) for _ in range(int(state.hand(p)[c]))]
    assert len(held) == 2 * game.options["hand_size"]
    assert sorted(state.pile.tolist() + held) == [0] * 20 + [3] * 4


# Views that do not fit the game ----------------------------------------------------------------
@isolated(timeout=120)
def test_the_public_game_holds_the_views_cards():
    """Agents get the public game: it samples the real game's views, knowledge or not."""
    for spec in (BIG, "cartagena(deck=HHHC,hands=S/D,discard=HC)",
                 "cartagena(cards=12,3,3,12,hand_limit=5,visibility=hispaniola)"):
        game = boardlab.make(spec)
        public = boardlab.make(game.public_spec)
        for actions in (0, 7, 25):
            state = played(game, actions)
            for seat in (0, 1):
                view = state.view(seat)
                for data in (view, {**view, "card_knowledge": None}):
                    sample = public.determinize(data, 5)
                    assert sample.view(seat)["hand_sizes"] == view["hand_sizes"]
                    assert sample.view(seat)["pile_size"] == view["pile_size"]
                    assert sample.played_out(2).is_terminal()


@isolated(timeout=120)
def test_a_view_with_more_cards_than_the_game_is_refused_before_any_write():
    small = boardlab.make("cartagena")
    for actions in (0, 9):
        view = played(boardlab.make(BIG), actions).view(0)
        for data in (view, {**view, "card_knowledge": None}):
            with pytest.raises(BoardlabError, match="do not add up"):
                small.determinize(data, 1)


def _forged(view: dict, rng: random.Random) -> dict:
    view = json.loads(json.dumps(view))
    where = rng.choice(("hand_sizes", "discard", "hand", "pile_size", "face_up", "knowledge"))
    value = rng.choice((-1, 10**6, 37, 2**40, 0, "3", None, 1.5))
    if where == "pile_size":
        view["pile_size"] = value
    elif where == "face_up":
        view["face_up"] = rng.choice((["H"] * 40, ["Z"], [0], "H", ["H"] * (view["pile_size"] + 1)))
    elif where == "knowledge" and view.get("card_knowledge"):
        group, key = rng.choice(view["card_knowledge"]["groups"]), rng.choice(("cards", "hands"))
        group[key] = dict.fromkeys(group[key], value)
        if rng.random() < 0.5:
            group["pile"] = value
    elif isinstance(view.get(where), dict):
        view[where][rng.choice(list(view[where]))] = value
    return view


@isolated(timeout=120)
def test_forged_card_counts_are_refused():
    game = boardlab.make("cartagena(visibility=hispaniola)")
    rng, refused = random.Random(25), 0
    for case in range(150):
        view = played(game, rng.randrange(30), seed=case).view(rng.choice((0, 1)))
        forged = _forged(view, rng)
        try:
            sample = game.determinize(forged, case)
        except BoardlabError:
            refused += 1
            continue
        total = sum(sample.view(None)["hand_sizes"].values()) + \
            sum(sample.view(None)["discard"].values()) + sample.view(None)["pile_size"]
        assert total == game.deck_size
    assert refused > 50


@pytest.mark.parametrize("change, message", [
    (lambda v: {"tokens": {**v["tokens"], "green": [-1, 0, 0, 0]}}, "tokens must be 4 positions"),
    (lambda v: {"tokens": {**v["tokens"], "green": [0, 0, 0, 18]}}, "tokens must be 4 positions"),
    (lambda v: {"tokens": {"green": [0] * 4}}, "tokens must be"),
    (lambda v: {"track": v["track"] + "H"}, "track must be 16 symbols"),
    (lambda v: {"face_up": ["H"]}, "do not add up"),          # jamaica shows no row
    (lambda v: {"pile_size": v["pile_size"] + 1}, "do not add up"),
    (lambda v: {"hand": {**v["hand"], "H": v["hand"]["H"] + 1}}, "not a hand of its size"),
])
def test_forged_boards_are_refused(change, message):
    game = boardlab.make("cartagena")
    view = played(game, 6).view(0)
    with pytest.raises(BoardlabError, match=message):
        game.determinize({**view, **change(view)}, 1)


def test_a_pile_larger_than_the_deck_is_refused():
    game = boardlab.make("cartagena")
    state = game.new_initial_state(seed=1)
    with pytest.raises(BoardlabError, match="a pile of 37 cards"):
        cartagena_sample._set_pile(state, [0] * 37, 0)
    with pytest.raises(BoardlabError, match="does not fit"):
        cartagena_sample._set_pile(state, [9] * 3, 0)
    with pytest.raises(BoardlabError, match="does not fit"):
        cartagena_sample._set_pile(state, [0] * 3, 4)


# CTOR ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("extra", ["", f",position={ROWS}",
                                   f",teams=2v2,team_protocol=simultaneous,position={ROWS}"])
def test_ctor_public_spec_of_set_up_secret_squares_is_a_game(extra):
    game = boardlab.make(f"ctor(size=8,secret_squares=true,secrets=1,2,3,4,5/36,37,38,39,40"
                         f"{extra})")
    assert "secrets=hidden" in game.public_spec and "36" not in game.public_spec
    public = boardlab.make(game.public_spec)
    assert same_facts(game, public) and public.public_spec == game.public_spec
    state = played(game, 10)
    for seat in range(game.num_seats):
        view = state.view(seat)
        assert public.determinize(view, 3).view(seat) == view


def test_ctor_secrets_given_or_hidden_only_with_secret_squares():
    with pytest.raises(OptionError, match="needs secret_squares=true"):
        boardlab.make("ctor(size=8,secrets=hidden)")
    with pytest.raises(OptionError, match="needs them given"):
        boardlab.make(f"ctor(size=8,secret_squares=true,position={ROWS})")


# The server ----------------------------------------------------------------------------------
HOSTILE = [
    ("cartagena(deck=" + "H" * 5000 + ")", 400),
    ("cartagena(deck=" + "H" * 241 + ")", 400),
    ("cartagena(cards=240,0,0,1)", 400),
    ("cartagena(cards=-5,9,9,9)", 400),
    ("cartagena(hands=" + "H" * 30 + "/C)", 400),
    ("cartagena(deck=HHHH,cards=9,9,9,9)", 400),
    (BIG, 201),
    ("cartagena(deck=H)", 201),
    ("cartagena(deck=HC,hands=/,hand_size=6)", 201),
    ("cartagena(cards=0,0,0,0)", 201),
    (f"ctor(size=8,secret_squares=true,position={ROWS},secrets=hidden)", 201),
    (f"ctor(size=8,secret_squares=true,position={ROWS})", 400),
]


@pytest.fixture
def client(tmp_path):
    with TestClient(create_app(f"sqlite:///{tmp_path / 'db.sqlite'}", ai_processes=0)) as c:
        yield c


@pytest.mark.parametrize("spec, status", HOSTILE)
def test_the_create_route_refuses_or_plays_hostile_set_ups(client, spec, status):
    real = None if status == 400 else boardlab.make(spec)
    seats = ["human"] * (real.num_seats if real else 2)
    response = client.post("/api/games", json={"spec": spec, "seats": seats})
    assert response.status_code == status, response.text
    if status == 400:
        assert response.json()["error"]["code"] == "bad_spec"
        return
    game = response.json()
    assert "deck=" not in game["spec"] and "hands=" not in game["spec"]
    assert same_facts(boardlab.make(game["spec"]), real)
    sockets = [client.websocket_connect(f"/ws/{game['id']}?token={seat['token']}")
               for seat in game["seats"]]
    for ws in sockets:
        ws.__enter__()
    try:
        views = [ws.receive_json()["view"] for ws in sockets]
        for version in range(8):                # the acting seat plays its first legal move
            acting = [s for s, view in enumerate(views) if view["legal"]]
            if not acting:
                assert views[0]["terminal"]
                break
            seat = acting[0]
            sockets[seat].send_json({"type": "action", "seat": seat, "version": version,
                                     "move": views[seat]["legal"][0], "key": f"k{version}"})
            messages = [sockets[seat].receive_json() for _ in range(2)]
            assert {m["type"] for m in messages} == {"ack", "update"}, messages
            for other, ws in enumerate(sockets):
                if other != seat:
                    assert ws.receive_json()["type"] == "update"
            views = [sync_view(ws) for ws in sockets]
            assert len(views[0]["history"]) == version + 1
    finally:
        for ws in sockets:
            ws.__exit__(None, None, None)


def sync_view(ws) -> dict:
    ws.send_json({"type": "sync"})
    message = ws.receive_json()
    assert message["type"] == "sync", message
    return message["view"]


# The fuzz: odd set-ups, with the kernels' bounds checked ----------------------------------------
FUZZ = textwrap.dedent("""
    import random, sys
    import boardlab
    from boardlab import BoardlabError
    rng, made = random.Random(int(sys.argv[1])), 0
    for case in range(int(sys.argv[2])):
        letters = "".join(rng.choice("HCDSX ") for _ in range(rng.choice((0, 1, 5, 40, 239, 300))))
        options = {}
        if rng.random() < 0.7:
            options["deck"] = letters
        if rng.random() < 0.5:
            options["hands"] = "/".join(rng.choice(("", "H", "HHHHHHHHHHHH", "CDS", letters[:7]))
                                        for _ in range(rng.choice((1, 2, 2, 3))))
        if rng.random() < 0.3:
            options["cards"] = ",".join(str(rng.choice((0, 1, 9, 60, -1))) for _ in range(4))
        if rng.random() < 0.3:
            options["discard"] = rng.choice(("", "HH", letters[:20]))
        options["hand_size"] = rng.choice((0, 3, 20))
        options["visibility"] = rng.choice(("jamaica", "tortuga", "hispaniola"))
        options["hand_limit"] = rng.choice((0, 2))
        try:
            game = boardlab.make("cartagena", **options)
        except BoardlabError:
            continue
        made += 1
        public = boardlab.make(game.public_spec)
        assert public.deck_size == game.deck_size, options
        state = game.new_initial_state(seed=case)
        while not state.is_terminal() and len(state.history) < 60:
            state.apply(rng.choice(state.legal_actions()))
            if rng.random() < 0.2:
                for seat in (0, 1, None):
                    view = state.view(seat)
                    try:
                        sample = public.determinize(view, case)
                    except BoardlabError as error:
                        sys.exit(f"{options}: {error}")
                    sample.played_out(case)
        game.bench_playouts(2, case)
    print("made", made)
""")


def test_odd_set_ups_never_write_past_a_kernel_buffer():
    """Every kernel index is checked (NUMBA_BOUNDSCHECK, with a compile cache of its own in
    the environment: numba's cache key does not include the flag): a write or read past a
    buffer is an IndexError that fails the run instead of corrupting memory."""
    cache = Path(sys.prefix) / "numba-boundscheck-cache"
    env = {**os.environ, "NUMBA_BOUNDSCHECK": "1", "NUMBA_CACHE_DIR": str(cache)}
    run = subprocess.run([sys.executable, "-c", FUZZ, "25", "80"], env=env,
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-3000:]
    assert int(run.stdout.split()[-1]) > 20
