"""Tournaments in the browser: a director creates a round robin from the tournaments page,
starts it from the tournament page, and watches the standings change as its games end
(the players resign from their game pages); the tournament's name shows as text. No page
logs an error under the Content-Security-Policy."""
from harness import resign
from test_browser_accounts import sign_up

SPEC = "carteso(size=5)"
NAME = "<b>Spring</b> cup"


def test_a_round_robin_whose_standings_change_as_its_games_end(server, open_page):
    alice = open_page(server.url + "/signin", "alice", game_page=False)
    bob = open_page(server.url + "/signin", "bob", game_page=False)
    carol = open_page(server.url + "/signin", "carol", game_page=False)
    for client, name in ((alice, "t-alice"), (bob, "t-bob"), (carol, "t-carol")):
        sign_up(client, name)
    page = alice.page
    page.goto(server.url + "/tournaments")
    page.locator("body[data-loaded=true]").wait_for()
    page.locator("#t-name").fill(NAME)
    page.locator("#t-spec").fill(SPEC)
    page.locator("#t-players").fill("t-alice, t-bob, t-carol")
    page.locator("#t-create").click()
    page.wait_for_url("**/tournament/*")
    page.locator("body[data-loaded=true]").wait_for()
    assert page.locator("#tournament-name").inner_text() == NAME        # text, not markup
    assert page.locator("#tournament-name b").count() == 0
    page.locator("#start").click()
    page.locator("body[data-status=running]").wait_for()
    # round 1: two of them play, the third has the bye
    pairing = page.locator("#pairings li[data-game]:not([data-game=''])").first
    pairing.wait_for()
    game = pairing.get_attribute("data-game")
    players = {"t-alice": alice, "t-bob": bob, "t-carol": carol}
    white, black = pairing.locator("a.player-name").all_inner_texts()
    loser = players[white]
    scores_before = page.locator("#standings tbody tr").evaluate_all(
        "rows => rows.map(r => r.dataset.score)")
    loser.page.goto(f"{server.url}/game/{game}")
    loser.wait_ready()
    resign(loser.page)
    # the director's page sees the game end: the round's scores move on
    page.wait_for_function(
        "before => [...document.querySelectorAll('#standings tbody tr')]"
        ".map(r => r.dataset.score).join() !== before.join()", arg=scores_before)
    page.locator("#tournament-round", has_text="round 2 of 3").wait_for()
    row = "#standings tbody tr[data-player='{}']"
    assert page.locator(row.format(white)).get_attribute("data-score") == "0"
    assert float(page.locator(row.format(black)).get_attribute("data-score")) >= 1
    assert page.locator("#crosstable tbody tr").count() == 3
    assert page.locator("#csv").get_attribute("href").endswith("/standings.csv")
    assert page.locator("#records").get_attribute("href").endswith("/records.zip")
    for client in (alice, bob, carol):
        assert client.errors == []


def test_a_tournament_with_a_correspondence_clock_from_the_form(server, open_page):
    """The creation form offers days per move besides a Fischer clock; both at once are
    refused with the server's reason."""
    director = open_page(server.url + "/signin", "days", game_page=False)
    sign_up(director, "t-days")
    page = director.page
    page.goto(server.url + "/tournaments")
    page.locator("body[data-loaded=true]").wait_for()
    page.locator("#t-name").fill("Slow cup")
    page.locator("#t-spec").fill(SPEC)
    page.locator("#t-players").fill("ai-1, ai-2")
    page.locator("#t-base").fill("5")
    page.locator("#t-days").fill("3")
    page.locator("#t-create").click()
    page.locator("#direct-error", has_text="correspondence clock").wait_for()
    page.locator("#t-base").fill("")
    page.locator("#t-create").click()
    page.wait_for_url("**/tournament/*")
    made = server.http.get("/api/tournaments/" + page.url.rsplit("/", 1)[1]).json()
    assert made["clock"] == {"days": 3}
    assert director.errors == []
