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
    assert_chart_names_apart(page, ["t-alice", "t-bob", "t-carol"])
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


def test_a_three_player_round_robin_shows_its_table_places_and_standings(server, open_page):
    """A Cartagena of three from the form (its sides shown under the spec): the table of
    three with a watch link, and the standings change when the director resigns its game
    (places, not W-D-L; OpenSkill ratings; a crosstable of pairwise results)."""
    director = open_page(server.url + "/signin", "three", game_page=False)
    sign_up(director, "t-three-cup")
    player = open_page(server.url + "/signin", "three-player", game_page=False)
    sign_up(player, "t-three")
    page = director.page
    page.goto(server.url + "/tournaments")
    page.locator("body[data-loaded=true]").wait_for()
    page.locator("#t-name").fill("Three cup")
    page.locator("#t-spec").fill("cartagena(players=3,tokens=2,spaces_per_symbol=1)")
    page.locator("#t-sides", has_text="3 sides a game").wait_for()
    page.locator("#t-players").fill("t-three, ai-1, ai-2")
    page.locator("#t-create").click()
    page.wait_for_url("**/tournament/*")
    page.locator("body[data-loaded=true]").wait_for()
    page.locator("#places-head", has_text="1st-mid-last").wait_for()
    page.locator("#start").click()
    table = page.locator("#pairings li[data-sides='3']:not([data-game=''])").first
    table.wait_for()
    assert sorted(table.locator("a.player-name").all_inner_texts()) == \
        ["ai-1", "ai-2", "t-three"]
    game = table.get_attribute("data-game")
    assert table.locator("a.watch").get_attribute("href") == f"/game/{game}"
    scores_before = page.locator("#standings tbody tr").evaluate_all(
        "rows => rows.map(r => r.dataset.score)")
    assert scores_before == ["0", "0", "0"]
    player.page.goto(f"{server.url}/game/{game}")
    player.wait_ready()
    resign(player.page)
    page.wait_for_function(
        "before => [...document.querySelectorAll('#standings tbody tr')]"
        ".map(r => r.dataset.score).join() !== before.join()", arg=scores_before)
    page.locator("body[data-status=over]").wait_for()
    row = "#standings tbody tr[data-player='{}']"
    assert page.locator(row.format("t-three")).get_attribute("data-score") == "0"
    assert page.locator(row.format("ai-1")).get_attribute("data-score") == "0.75"
    assert page.locator(row.format("t-three") + " td").nth(4).inner_text() == "0-0-1"
    assert page.locator("#crosstable tbody tr").count() == 3
    assert page.locator("#crosstable-note").is_visible()
    assert page.locator("#pairings li .result").first.inner_text() in \
        ("¾-¾-0", "¾-0-¾", "0-¾-¾")
    assert_chart_names_apart(page, ["ai-1", "ai-2", "t-three"])     # two level on 0.75
    for client in (director, player):
        assert client.errors == []


def assert_chart_names_apart(page, players: list[str]) -> None:
    """The score chart names each player's line at its end, the names apart (players
    level on points too) and inside the chart."""
    names = page.locator("#score-chart svg").evaluate(
        "svg => { const box = svg.getBoundingClientRect();"
        " return [...svg.querySelectorAll('text[fill]')].map(t => {"
        " const b = t.getBoundingClientRect();"
        " return [t.textContent, b.left, b.top, b.right, b.bottom, box.right]; }); }")
    assert sorted(name for name, *_ in names) == sorted(players)
    for i, (name, left, top, right, bottom, edge) in enumerate(names):
        assert right <= edge + 0.5, f"{name} runs out of the chart"
        for other, left2, top2, right2, bottom2, _ in names[i + 1:]:
            apart = bottom <= top2 or bottom2 <= top or right <= left2 or right2 <= left
            assert apart, f"{name} and {other} overlap"
