"""Server tournaments of games of more than two sides and of teams (boardlab/server/
tournaments/multiside.py; docs/tournaments.md, "Games of more sides"): a Cartagena of three
among house bots played to its end, a Swiss of four-player tables, a CTOR tournament of
teams (an entrant holds its team's seats), and the errors of bad combinations."""
import itertools
from collections import Counter

import pytest

from boardlab.server.rest import ApiError
from boardlab.server.tournaments.multiside import check_field
from test_accounts import person
from test_tournaments_server import (RandomThinker, client_sleep, clock, create, post, server,
                                     wait_until)

__all__ = ["RandomThinker", "clock", "server"]          # fixtures used by name
CARTAGENA3 = "cartagena(players=3,tokens=2,spaces_per_symbol=1)"      # short games


def test_a_three_player_cartagena_round_robin_of_house_bots_plays_to_its_end(server):
    alice = person(server, "alice")
    bots = ["ai-1", "ai-2", "ai-3", "ai-4"]
    made = create(alice, spec=CARTAGENA3, players=bots, rounds=1)
    assert made["sides"] == 3 and made["rating_kind"] == "OpenSkill mu"
    tournament = made["id"]
    post(alice, tournament, "start")
    shown = wait_until(alice, tournament, lambda s: s["status"] == "over")
    assert shown["total_rounds"] == 4 and shown["round"] == 4
    tables = list(shown["pairings"])
    assert len(tables) == 4 and all(p["forfeit"] is None for p in tables)
    assert {frozenset(p["sides"]) for p in tables} == \
        {frozenset(g) for g in itertools.combinations(bots, 3)}     # every group of 3
    for p in tables:
        assert p["white"] == p["sides"][0] and p["black"] == p["sides"][1]
        assert sorted(p["points"]) in ([0.0, 0.5, 1.0], [0.25, 0.25, 1.0],
                                       [0.0, 0.75, 0.75], [0.5, 0.5, 0.5])
        assert p["result"] == "-".join({1.0: "1", 0.75: "¾", 0.5: "½", 0.25: "¼",
                                        0.0: "0"}[x] for x in p["points"])
        game = alice.get(f"/api/games/{p['game']}").json()        # an ordinary game
        assert [s["kind"] for s in game["seats"]] == ["ai", "ai", "ai"]
        assert alice.get(f"/api/games/{p['game']}/record").status_code == 200
    seats = Counter((name, seat) for p in tables for seat, name in enumerate(p["sides"]))
    assert all(seats[(name, seat)] <= 2 for name in bots for seat in range(3))
    lines = shown["standings"]
    assert [line["rank"] for line in lines] == [1, 2, 3, 4]
    assert all(line["games"] == 3 for line in lines)
    assert sum(line["score"] for line in lines) == 4 * 1.5      # a game gives k/2 points
    assert all(line["rating"] is not None and line["rating_low"] < line["rating_high"]
               for line in lines)
    scores = [line["score"] for line in lines]
    assert scores == sorted(scores, reverse=True)
    cells = shown["crosstable"]["cells"]
    assert all(len(cells[i][j]) == 2 for i in range(4) for j in range(4) if i != j)
    assert all(cells[i][j][n] + cells[j][i][n] == 1.0
               for i in range(4) for j in range(4) if i != j for n in range(2))
    archive = alice.get(f"/api/tournaments/{tournament}/records.zip")
    assert archive.status_code == 200


def test_a_swiss_of_tables_of_four_gives_byes_and_avoids_repeats(server):
    alice = person(server, "alice")
    players = ["ai-1", "ai-2", "ai-3", "ai-4", "ai-5"]
    made = create(alice, spec="cartagena(players=4,tokens=2,spaces_per_symbol=1)",
                  format="swiss", rounds=2, players=players)
    post(alice, made["id"], "start")
    shown = wait_until(alice, made["id"], lambda s: s["status"] == "over")
    assert shown["round"] == 2
    byes = [p for p in shown["pairings"] if p["forfeit"] == "bye"]
    assert len(byes) == 2 and len({p["white"] for p in byes}) == 2   # a bye each round
    assert all(p["sides"] == [p["white"]] and p["points"] == [0.5] for p in byes)
    played = [p for p in shown["pairings"] if p["game"]]
    assert len(played) == 2 and all(len(p["sides"]) == 4 for p in played)
    lines = {line["player"]: line for line in shown["standings"]}
    assert sum(line["byes"] for line in lines.values()) == 2


def test_a_ctor_teams_tournament_gives_each_entrant_its_whole_team(server):
    alice = person(server, "alice")
    made = create(alice, spec="ctor(size=8,teams=2v2)", players=["ai-1", "ai-2", "ai-3"])
    assert made["sides"] == 2 and made["rating_kind"] == "Elo (Bradley-Terry)"
    post(alice, made["id"], "start")
    shown = wait_until(alice, made["id"], lambda s: s["status"] == "over")
    played = [p for p in shown["pairings"] if p["game"]]
    assert len(played) == 3
    for p in played:
        game = alice.get(f"/api/games/{p['game']}").json()
        holders = {seat["name"]: seat["account"]["username"] for seat in game["seats"]}
        assert len(holders) == 4 and all(s["kind"] == "ai" for s in game["seats"])
        for team, name in zip(game["facts"]["teams"], (p["white"], p["black"])):
            assert len(team["seats"]) == 2                        # a team a side
            assert {holders[seat] for seat in team["seats"]} == {name}
    assert all(line["games"] == 2 for line in shown["standings"])


def test_bad_combinations_get_specific_errors(server):
    alice = person(server, "alice")
    refused = create(alice, status=400, spec="ctor(size=8,teams=2v2)", rated=True)
    assert code_of(refused) == "bad_spec" and "whole team" in message(refused)
    many = [f"ai-{n}" for n in range(1, 6)]
    made = create(alice, spec=CARTAGENA3, players=many[:2])
    refused = post(alice, made["id"], "start", status=409)
    assert refused["error"]["code"] == "bad_state" and "at least 3" in message(refused)
    rated = create(alice, spec="cartagena(players=3)", rated=True, players=many[:3])
    assert rated["rated"] is True                 # rated by OpenSkill in its pool
    with pytest.raises(ApiError, match="make it a Swiss") as refused_field:
        check_field("round-robin", 5, 14, 1)                  # 2002 games
    assert refused_field.value.code == "bad_request"
    check_field("round-robin", 5, 13, 1)                      # 1287: allowed
    check_field("swiss", 5, 200, None)                        # a Swiss of any field
    check_field("round-robin", 2, 200, 2)                     # two sides: Berger tables


def code_of(answer: dict) -> str:
    return answer["error"]["code"]


def message(answer: dict) -> str:
    return answer["error"]["message"]


def test_a_ladder_of_tables_of_three_seats_the_idle_by_rating(server):
    alice = person(server, "alice")
    bots = ["ai-1", "ai-2", "ai-3", "ai-4", "ai-5"]
    made = create(alice, spec=CARTAGENA3, format="ladder", rounds=None, players=bots)
    post(alice, made["id"], "start")
    shown = wait_until(alice, made["id"], lambda s: len(s["games"]) >= 6)
    post(alice, made["id"], "end")
    tables = [p for p in shown["pairings"] if p["game"]]
    assert all(len(set(p["sides"])) == 3 for p in tables)
    # five players, tables of three: one game at a time (two wait for the next end)
    assert Counter(p["round"] for p in shown["pairings"]) == \
        dict.fromkeys(range(1, shown["round"] + 1), 1)
    for before, after in zip(tables, tables[1:]):          # the last table is not re-met
        assert set(after["sides"]) != set(before["sides"])
    assert all(line["rating"] is not None for line in shown["standings"])


def test_a_no_show_at_a_table_forfeits_and_places_last(server, clock):
    alice = person(server, "alice")
    person(server, "bob")
    made = create(alice, spec=CARTAGENA3, players=["bob", "ai-1", "ai-2"], no_show=60)
    post(alice, made["id"], "start")                   # bob takes the first seat, never comes
    clock.time += 59
    client_sleep(server)
    assert alice.get(f"/api/tournaments/{made['id']}").json()["pairings"][0]["result"] is None
    clock.time += 2                   # (a dealt first player may delay bob's first turn)
    shown = wait_until(alice, made["id"], lambda s: s["status"] == "over", clock)
    (table,) = shown["pairings"]
    assert (table["sides"], table["forfeit"], table["points"], table["result"]) == \
        (["bob", "ai-1", "ai-2"], "no-show", [0.0, 0.75, 0.75], "0-¾-¾")
    assert alice.get(f"/api/games/{table['game']}/record").json()["moves"][-1] == "resign"
    lines = {line["player"]: line for line in shown["standings"]}
    assert (lines["bob"]["score"], lines["bob"]["forfeits"], lines["bob"]["losses"]) == \
        (0.0, 1, 1)
    assert lines["ai-1"]["rating"] is None                 # a forfeit is no evidence


def test_a_rated_tournament_of_three_sides_rates_its_games_in_the_pool(server):
    alice = person(server, "alice")
    bots = ["ai-1", "ai-2", "ai-3"]
    made = create(alice, spec="cartagena(players=3)", rated=True, players=bots)
    post(alice, made["id"], "start")
    shown = wait_until(alice, made["id"], lambda s: s["status"] == "over")
    (table,) = shown["pairings"]
    for name, points in zip(table["sides"], table["points"]):   # OpenSkill's Weng-Lin
        rated = alice.get(f"/api/users/{name}").json()["ratings"]
        (pool,) = rated
        assert pool.startswith("cartagena-") and rated[pool]["games"] == 1
        if points == max(table["points"]):
            assert rated[pool]["rating"] > 1500
        if points == min(table["points"]) < max(table["points"]):
            assert rated[pool]["rating"] < 1500
