"""Seeks in the lobby (boardlab/server/accounts/seeks.py): offered by a signed-in account,
accepted by another (a game starts, each holding its seat), a rating range for rated ones,
cancelled by the seeker only; one accept wins."""
import pytest

from test_accounts import CSRF, SPEC, app, clock, code, db, guest, person, receive  # noqa: F401
from test_challenges import ORIGIN


@pytest.fixture
def two(app):  # noqa: F811
    from starlette.testclient import TestClient
    with TestClient(app) as server:
        yield server, person(server, "alice"), person(server, "bob")


def seek(client, status=201, **data):
    response = client.post("/api/seeks", json={"spec": SPEC, **data}, headers=CSRF)
    assert response.status_code == status, response.text
    return response.json()


def test_a_seek_accepted_starts_a_game_of_the_two_accounts(two):
    server, alice, bob = two
    made = seek(alice, rated=True, clock={"base": 180, "increment": 2})
    assert made["user"] == {"username": "alice", "bot": False} and made["pool"] == "carteso-5-blitz"
    assert made["speed"] == "blitz" and made["status"] == "open"
    with guest(server) as anonymous:
        assert [s["id"] for s in anonymous.get("/api/seeks").json()["seeks"]] == [made["id"]]
        assert code(anonymous.post(f"/api/seeks/{made['id']}/accept")) == "not_signed_in"
    assert code(alice.post(f"/api/seeks/{made['id']}/accept", headers=CSRF)) == "forbidden"
    assert code(bob.post(f"/api/seeks/{made['id']}/cancel", headers=CSRF)) == "forbidden"
    accepted = bob.post(f"/api/seeks/{made['id']}/accept", headers=CSRF)
    assert accepted.status_code == 200, accepted.text
    game_id = accepted.json()["game"]
    assert code(bob.post(f"/api/seeks/{made['id']}/accept", headers=CSRF)) == "not_pending"
    assert bob.get("/api/seeks").json()["seeks"] == []
    held = []
    for client in (alice, bob):
        with client.websocket_connect(f"/ws/{game_id}", headers=ORIGIN) as socket:
            held += receive(socket, "sync")["seats"]
    assert sorted(held) == [0, 1]
    assert alice.get(f"/api/games/{game_id}").json()["clock"] == {"base": 180.0,
                                                                  "increment": 2.0}


def test_rating_ranges_cancels_and_refusals(two):
    server, alice, bob = two
    narrow = seek(alice, rated=True, rating_range=[1600, 1800])
    assert narrow["rating_range"] == [1600, 1800]
    response = bob.post(f"/api/seeks/{narrow['id']}/accept", headers=CSRF)
    assert code(response) == "forbidden" and "1500" in response.json()["error"]["message"]
    assert alice.post(f"/api/seeks/{narrow['id']}/cancel", headers=CSRF).json()["status"] == \
        "cancelled"
    assert code(bob.post(f"/api/seeks/{narrow['id']}/accept", headers=CSRF)) == "not_pending"
    for data, expected in (({"rating_range": [1400, 1600]}, "bad_request"),   # casual
                           ({"rated": True, "rating_range": [1600, 1400]}, "bad_request"),
                           ({"rated": True, "rating_range": "wide"}, "bad_request"),
                           ({"spec": "cartagena(players=3)"}, "bad_spec"),
                           ({"clock": {"base": 0, "increment": 0}}, "bad_clock"),
                           ({"clock": {"days": 100}}, "bad_clock")):
        assert code(alice.post("/api/seeks", json={"spec": SPEC, **data},
                               headers=CSRF)) == expected, data
    for _ in range(3):
        seek(alice)
    assert code(alice.post("/api/seeks", json={"spec": SPEC}, headers=CSRF)) == \
        "rate_limited"
    assert code(bob.post("/api/seeks/nope/accept", headers=CSRF)) == "not_found"
