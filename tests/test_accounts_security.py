"""Issue 48's security checks that the accounts', challenges' and bots' own tests leave out
(those files hold the others; the audit in this branch's report maps each point to its
test):

- every game message for a seat the asker's *account* does not hold (an opponent's seat, a
  stranger, a bot acting for another bot, one's own session opened from another site) is
  refused and changes nothing (tests/test_server_matrix.py does the same for seat tokens);
- every state-changing route refuses a signed-in request without the CSRF header, or from
  another site, before it runs (read from the app's routes: a new route is checked too);
- a session cookie replayed after sign-out, after the account's deletion, or a bot token
  after its account is disabled, is refused;
- a seek is cancelled only by its seeker and is not accepted by its seeker; a bot cannot
  cancel another bot's challenge, mint or revoke its tokens;
- no look-alike or case-folded name is made through the bot and command-line paths either;
- no password (old or new), session id or bot token in the database, the logs or any
  answer but the one that hands the token out;
- no page script writes text as HTML (the Content-Security-Policy would not run it, and no
  script gives it the chance).
"""
import json
import logging
import re
import warnings
from pathlib import Path

import pytest
from sqlalchemy import create_engine, func, select

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="Using `httpx`")
    from starlette.testclient import TestClient
from starlette.routing import Route

from boardlab.server import create_app
from boardlab.server.accounts.sessions import COOKIE
from boardlab.server.clients import Limits
from boardlab.server.store import Store, metadata
from test_accounts import (CSRF, SPEC, alice, app, boardlab, clock, code, db,  # noqa: F401
                           guest, person, receive, signup)

ORIGIN = {"Origin": "http://testserver"}
EVIL = {"Origin": "https://evil.example"}
STATIC = Path(__file__).resolve().parents[1] / "boardlab" / "server" / "static"


def bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def make_bot(owner, name: str) -> str:
    response = owner.post("/api/account/bots", json={"username": name}, headers=CSRF)
    assert response.status_code == 201, response.text
    return response.json()["token"]


def accepted_challenge(challenger, challenged, headers=None, to: str = "") -> str:
    """A casual Carteso game from a challenge (the challenger seat 0); its id."""
    made = challenger.post("/api/challenges", json={"to": to, "spec": SPEC, "seat": 0},
                           headers=headers or CSRF)
    assert made.status_code == 201, made.text
    answer = challenged[0].post(f"/api/challenges/{made.json()['id']}/accept",
                                headers=challenged[1])
    assert answer.status_code == 200, answer.text
    return answer.json()["game"]


# One server for the game-message matrix ------------------------------------------------------
@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """Alice (seat 0) and Bob (seat 1) in a game from a challenge; Alice's bots alphabot
    (seat 0) and betabot (seat 1) in another; Carol, a stranger, and Bob's bot gammabot."""
    url = f"sqlite:///{tmp_path_factory.mktemp('security') / 'server.db'}"
    with TestClient(create_app(url, ai_processes=0, limits=Limits.off())) as server:
        alice, bob, carol = (person(server, name) for name in ("alice", "bob", "carol"))
        tokens = {name: make_bot(alice, name) for name in ("alphabot", "betabot")}
        tokens["gammabot"] = make_bot(bob, "gammabot")
        people = accepted_challenge(alice, (bob, CSRF), to="bob")
        bots = accepted_challenge(server, (server, bearer(tokens["betabot"])),
                                  headers=bearer(tokens["alphabot"]), to="betabot")
        with alice.websocket_connect(f"/ws/{people}", headers=ORIGIN) as socket:
            sync = receive(socket, "sync")
            assert sync["seats"] == [0] and sync["version"] == 0
            move = sync["view"]["legal"][0]
        yield {"server": server, "db": url, "games": {"people": people, "bots": bots},
               "move": move, "clients": {"alice": alice, "bob": bob, "carol": carol},
               "tokens": tokens}


#: who asks: (the game, the person whose session asks or the bot whose token does, the
#: socket's headers, the seats it holds there); a frame for seat 0 (Alice's, alphabot's)
#: from any of them is refused
ASKERS = {
    "opponent": ("people", "bob", ORIGIN, [1]),
    "stranger": ("people", "carol", ORIGIN, []),
    "own session from another site": ("people", "alice", EVIL, []),
    "a bot in no seat": ("people", "gammabot", {}, []),
    "the other bot": ("bots", "betabot", {}, [1]),
    "another person's bot": ("bots", "gammabot", {}, []),
    "a person in no seat": ("bots", "carol", ORIGIN, []),
}

FRAMES = {
    "action": {"type": "action", "seat": 0, "move": "MOVE", "version": 0, "key": "x-act"},
    "resign": {"type": "resign", "seat": 0, "key": "x-resign"},
    "undo": {"type": "undo", "seat": 0, "key": "x-undo"},
    "offer_draw": {"type": "offer_draw", "seat": 0},
    "accept_draw": {"type": "accept_draw", "seat": 0, "key": "x-accept"},
    "decline_draw": {"type": "decline_draw", "seat": 0},
    "leave": {"type": "leave", "seat": 0, "key": "x-leave"},
    "chat": {"type": "chat", "seat": 0, "channel": "players", "text": "as alice"},
    "sync": {"type": "sync", "seat": 0},
}


def game_state(world, game_id: str):
    store = Store(world["db"])
    try:
        log = [(a.seat, a.move) for a in store.log(game_id)]
        chat = store.chat(game_id, 10)
    finally:
        store.dispose()
    shown = world["server"].get(f"/api/games/{game_id}").json()
    return shown["version"], shown["status"], log, repr(chat)


def asker_socket(world, asker: str):
    game, who, headers, _ = ASKERS[asker]
    game_id = world["games"][game]
    if who in world["tokens"]:
        return game_id, world["server"].websocket_connect(
            f"/ws/{game_id}", headers=bearer(world["tokens"][who]))
    return game_id, world["clients"][who].websocket_connect(f"/ws/{game_id}",
                                                             headers=headers)


@pytest.mark.parametrize("kind", sorted(FRAMES))
@pytest.mark.parametrize("asker", sorted(ASKERS))
def test_no_account_acts_for_a_seat_it_does_not_hold(world, asker, kind):
    """A user cannot move, resign, offer or accept a draw, leave, chat or sync as a seat of
    another's game; a bot cannot for another bot: ``forbidden``, and nothing changes."""
    game_id, connect = asker_socket(world, asker)
    before = game_state(world, game_id)
    frame = dict(FRAMES[kind])
    if frame.get("move") == "MOVE":
        frame["move"] = world["move"]
    with connect as socket:
        assert receive(socket, "sync")["seats"] == ASKERS[asker][3]
        socket.send_json(frame)
        answer = receive(socket, "error")
        assert answer["code"] == "forbidden", answer
        assert answer.get("key") == frame.get("key")
    assert game_state(world, game_id) == before


# CSRF on every state-changing route ------------------------------------------------------------
def table_counts(url: str) -> dict[str, int]:
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            return {table.name: conn.execute(select(func.count()).select_from(table)).scalar()
                    for table in metadata.sorted_tables}
    finally:
        engine.dispose()


def test_every_state_changing_route_wants_the_csrf_header_from_this_site(app, db, alice):  # noqa: F811
    """Each POST/PUT/PATCH/DELETE route of the app, asked with Alice's session cookie and
    no ``X-Boardlab-CSRF`` header, or with it from another site: ``403 csrf_failed``
    before anything runs (the path's ids are real: an open challenge to Alice, Bob's open
    seek, a game, Alice's bot)."""
    bob = person(alice, "bob")
    make_bot(alice, "alicebot")
    challenge = bob.post("/api/challenges", json={"to": "alice", "spec": SPEC},
                         headers=CSRF).json()["id"]
    seek = bob.post("/api/seeks", json={"spec": SPEC}, headers=CSRF).json()["id"]
    game = bob.post("/api/games", json={"spec": SPEC, "seats": ["human", "open"]},
                    headers=CSRF).json()["id"]
    ids = {"challenge_id": challenge, "seek_id": seek, "game_id": game, "name": "alicebot",
           "tournament_id": "t0"}
    routes = [(method, route.path) for route in app.routes if isinstance(route, Route)
              for method in sorted(route.methods or ()) if method not in ("GET", "HEAD")]
    assert len(routes) >= 20
    body = {"username": "Alice", "password": "alice-password", "to": "bob", "spec": SPEC,
            "seats": ["human", "open"], "seat": 1, "new_password": "stolen-password"}
    before = table_counts(db)
    for method, path in routes:
        url = path.format(**ids)
        for headers in ({}, {**CSRF, **EVIL}, {**CSRF, "Sec-Fetch-Site": "cross-site"}):
            response = alice.request(method, url, json=body, headers=headers)
            assert response.status_code == 403 and code(response) == "csrf_failed", \
                (method, url, headers, response.text)
    assert table_counts(db) == before
    assert alice.get("/api/account").json()["username"] == "Alice"      # still signed in
    assert bob.get(f"/api/challenges/{challenge}").json()["status"] == "open"


# Sessions and tokens that ended ----------------------------------------------------------------
def test_a_cookie_replayed_after_sign_out_or_deletion_is_refused(app, alice):  # noqa: F811
    """The cookie's value kept by a thief: worthless once its session ends (the database
    row is gone; the signature alone opens nothing)."""
    signed_out = alice.cookies[COOKIE]
    assert alice.post("/api/account/logout", headers=CSRF).status_code == 200
    with guest(alice) as thief:
        thief.cookies.set(COOKIE, signed_out)
        assert thief.get("/api/account").json() == {"signed_in": False}
        response = thief.post("/api/account/password", json={
            "password": "alice-password", "new_password": "stolen-password"}, headers=CSRF)
        assert code(response) == "not_signed_in"
    login = {"username": "Alice", "password": "alice-password"}
    assert alice.post("/api/account/login", json=login, headers=CSRF).status_code == 200
    kept = alice.cookies[COOKIE]
    assert alice.post("/api/account/delete", json={"password": "alice-password"},
                      headers=CSRF).status_code == 200
    with guest(alice) as thief:
        thief.cookies.set(COOKIE, kept)
        assert thief.get("/api/account").json() == {"signed_in": False}
        response = thief.post("/api/games", json={"spec": SPEC, "seats": ["human", "open"],
                                                  "rated": True}, headers=CSRF)
        assert code(response) == "not_signed_in"


def test_a_disabled_bots_token_is_refused(app, alice):  # noqa: F811
    token = make_bot(alice, "alicebot")
    with guest(alice) as program:
        assert program.get("/api/account", headers=bearer(token)).json()["username"] == \
            "alicebot"
        users = app.state.accounts.users           # as `boardlab user disable` does
        users.disable(users.find("alicebot").id)
        for path in ("/api/account", "/api/challenges"):
            response = program.get(path, headers=bearer(token))
            assert response.status_code == 401 and code(response) == "bad_token", path


# Seeks, challenges and tokens of others ---------------------------------------------------------
def test_a_seek_is_cancelled_by_its_seeker_only_and_not_accepted_by_them(app, alice):  # noqa: F811
    bob = person(alice, "bob")
    made = alice.post("/api/seeks", json={"spec": SPEC}, headers=CSRF).json()
    response = bob.post(f"/api/seeks/{made['id']}/cancel", headers=CSRF)
    assert response.status_code == 403 and code(response) == "forbidden"
    response = alice.post(f"/api/seeks/{made['id']}/accept", headers=CSRF)
    assert response.status_code in (400, 403, 409), response.text
    assert [s["id"] for s in alice.get("/api/seeks").json()["seeks"]] == [made["id"]]
    with guest(alice) as anonymous:
        assert code(anonymous.post(f"/api/seeks/{made['id']}/cancel")) == "not_signed_in"
        assert code(anonymous.post(f"/api/seeks/{made['id']}/accept")) == "not_signed_in"
    assert alice.get("/api/seeks").json()["seeks"][0]["status"] == "open"


def test_a_bot_cannot_act_for_another_bot(app, alice):  # noqa: F811
    """betabot's token cannot cancel alphabot's challenge, answer one made to alphabot,
    get or revoke alphabot's tokens, nor make bots."""
    bob = person(alice, "bob")
    alpha, beta = make_bot(alice, "alphabot"), make_bot(bob, "betabot")
    with guest(alice) as program:
        made = program.post("/api/challenges", json={"to": "bob", "spec": SPEC},
                            headers=bearer(alpha)).json()
        assert code(program.post(f"/api/challenges/{made['id']}/cancel",
                                 headers=bearer(beta))) == "not_found"
        to_alpha = bob.post("/api/challenges", json={"to": "alphabot", "spec": SPEC},
                            headers=CSRF).json()
        for action in ("accept", "decline"):
            response = program.post(f"/api/challenges/{to_alpha['id']}/{action}",
                                    headers=bearer(beta))
            assert code(response) in ("not_found", "forbidden"), response.text
        for action in ("token", "revoke"):
            response = program.post(f"/api/account/bots/alphabot/{action}",
                                    headers={**bearer(beta), **CSRF})
            assert response.status_code in (403, 404), response.text
        assert code(program.post("/api/account/bots", json={"username": "deltabot"},
                                 headers={**bearer(beta), **CSRF})) == "forbidden"
        for challenge in (made, to_alpha):
            shown = program.get(f"/api/challenges/{challenge['id']}", headers=bearer(alpha))
            assert shown.json()["status"] == "open"
        assert program.get("/api/account", headers=bearer(alpha)).json()["username"] == \
            "alphabot"                          # its token still works


# Names --------------------------------------------------------------------------------------------
LOOKALIKES = ["аlice",            # Cyrillic a
              "alicе",            # Cyrillic e
              "Ａlice",            # full-width A
              "\u212alice",       # the Kelvin sign (it lower-cases to an ASCII k)
              "alıce",            # dotless i
              "ali\u200bce",      # a zero-width space
              "alice\u0301",      # a combining accent
              "ﬁlice",            # a ligature NFKC would make "filice"
              "alice ", " alice", "ALICE", "Alice"]


def test_no_lookalike_name_through_the_bot_and_command_line_paths(app, db, alice):  # noqa: F811
    """Signing up refuses them (test_accounts); making a bot account and `boardlab user
    create` do too, so no account can pose as Alice by any path."""
    for name in LOOKALIKES:
        response = alice.post("/api/account/bots", json={"username": name}, headers=CSRF)
        assert response.status_code in (400, 409), (name, response.text)
        assert code(response) in ("bad_username", "name_taken"), name
        assert code(signup(guest(alice, "10.1.0.1"), name, "alice-password",
                           response.status_code)) == code(response)
    assert alice.get("/api/account/bots").json() == {"bots": []}
    for name in ("аlice", "ALICE"):
        done = boardlab("user", "create", name, "--password-stdin", "--db", db,
                        stdin="another-password\n")
        assert done.returncode == 2, (name, done.stdout)
    for name in ("аlice", "Ａlice"):
        assert alice.get(f"/api/users/{name}").status_code == 404, name


# No secret anywhere ----------------------------------------------------------------------------
def test_no_password_session_or_bot_token_in_database_logs_or_answers(tmp_path, caplog):
    """Every secret of a signed-in life (the first and the changed password, each session
    id, each bot token) is absent from the database's files, every log record and every
    answer (but the one that hands out a token, and the cookie to its holder)."""
    caplog.set_level(logging.DEBUG)
    url = f"sqlite:///{tmp_path / 'server.db'}"
    first, second = "first-secret-password", "second-secret-password"
    answers, made = [], []
    sessions = []
    server = create_app(url, ai_processes=0)
    with TestClient(server) as client:
        answers.append(signup(client, "Erin", first))
        sessions.append(server.state.accounts.signer.unsign(client.cookies[COOKIE]))
        with guest(client) as laptop:
            answers.append(laptop.post("/api/account/login", json={
                "username": "erin", "password": first}, headers=CSRF))
            sessions.append(server.state.accounts.signer.unsign(laptop.cookies[COOKIE]))
        answers.append(client.post("/api/account/password", json={
            "password": first, "new_password": second}, headers=CSRF))
        answers.append(client.post("/api/account/login", json={
            "username": "Erin", "password": first}, headers=CSRF))         # now wrong
        answers.append(client.post("/api/account/login", json={
            "username": "Erin", "password": second}, headers=CSRF))
        sessions.append(server.state.accounts.signer.unsign(client.cookies[COOKIE]))
        response = client.post("/api/account/bots", json={"username": "erinbot"},
                               headers=CSRF)
        made.append(response.json()["token"])
        response = client.post("/api/account/bots/erinbot/token", headers=CSRF)
        made.append(response.json()["token"])
        with guest(client) as program:
            for token in made:
                answers.append(program.get("/api/account", headers=bearer(token)))
            answers.append(program.post("/api/challenges", json={
                "to": "erin", "spec": SPEC}, headers=bearer(made[1])))
            answers.append(program.get("/api/challenges", headers=bearer(made[1])))
        for path in ("/api/account", "/api/account/bots", "/api/users/Erin",
                     "/api/users/erinbot", "/api/challenges", "/api/account/playing",
                     "/user/Erin"):
            answers.append(client.get(path))
        answers.append(client.post("/api/account/bots/erinbot/revoke", headers=CSRF))
    Store(url).dispose()
    raw = b"".join(path.read_bytes() for path in tmp_path.glob("server.db*"))
    secrets = [first, second, *sessions, *made]
    assert all(isinstance(secret, str) and len(secret) >= 16 for secret in secrets)
    for secret in secrets:
        assert secret.encode() not in raw, secret
        assert secret not in caplog.text, secret
        for answer in answers:
            assert secret not in answer.text, (secret, answer.request.url)
            assert secret not in json.dumps({name: value for name, value in
                                             answer.headers.items() if name != "set-cookie"})


# User text as text -------------------------------------------------------------------------------
SINKS = re.compile(r"\.innerHTML|\.outerHTML|insertAdjacentHTML|document\.write|"
                   r"\beval\s*\(|new\s+Function\b|createContextualFragment|\.srcdoc\b|"
                   r"setAttribute\(\s*[\"']on|setTimeout\(\s*[\"'`]|setInterval\(\s*[\"'`]")


def test_no_page_script_turns_text_into_html():
    """Names, chat, decline reasons and tournament names reach the pages as text: no
    module of the front end parses a string as HTML or code (so the names a user writes
    are only ever ``textContent``), and the policy forbids inline scripts besides
    (tests/test_security_headers.py)."""
    modules = sorted((STATIC / "js").rglob("*.js"))
    assert len(modules) > 10
    for module in modules:
        text = module.read_text()
        found = SINKS.search(text)
        assert found is None, f"{module.relative_to(STATIC)}: {found.group(0)}"
