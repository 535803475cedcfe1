"""The lobby of a signed-in person: the "rated" box, a challenge to the house bot ai-1
that lands in the game (whose players panel names both accounts, the bot marked BOT), and a
seek of one person accepted by another (docs/accounts.md)."""
from harness import sign_up


def held_seats(client) -> list:
    """The seats the game socket says this page holds (its first message with them)."""
    client.page.wait_for_function("() => window.boardlab && window.boardlab.view")
    return next(message["seats"] for message in client.messages() if message.get("seats"))


def test_the_rated_box_and_a_challenge_to_a_house_bot(server, open_page):
    lina = open_page(server.url + "/signin", "lina", game_page=False)
    sign_up(lina, "lina")
    page = lina.page
    page.locator("#rated").check()                      # a rated game: mine, the others open
    page.wait_for_function("() => document.querySelector('#seats select[data-seat=\"1\"]')"
                           ".value === 'open'")
    assert page.locator('#seats select[data-seat="0"]').input_value() == "me"
    page.locator("#rated").uncheck()
    page.locator("#challenge-to").fill("ai-1")
    page.locator("#challenge-send").click()
    page.wait_for_url("**/game/**")                     # the house bot accepts at once
    game_id = page.url.rsplit("/", 1)[1]
    assert held_seats(lina)
    bot = page.locator('#players .player-account[data-account="ai-1"]')   # the panel names
    assert bot.locator(".bot-badge").inner_text() == "BOT"                 # both accounts
    assert page.locator('#players .player-account[data-account="lina"] .bot-badge').count() == 0
    page.goto(server.url + "/")
    page.locator("#accounts-lobby[data-ready=true]").wait_for()
    assert page.locator(f'#playing li[data-game="{game_id}"]').count() == 1
    assert lina.errors == []


def test_a_seek_accepted_by_another_person(server, open_page):
    omar = open_page(server.url + "/signin", "omar", game_page=False)
    nina = open_page(server.url + "/signin", "nina", game_page=False)
    sign_up(omar, "omar")
    sign_up(nina, "nina")
    omar.page.locator("#seek-create").click()
    mine = omar.page.locator("#seeks li[data-mine=true]")
    mine.wait_for()
    seek_id = mine.get_attribute("data-seek")
    theirs = nina.page.locator(f'#seeks li[data-seek="{seek_id}"]')
    theirs.locator("button.accept").click()             # found on the lobby's refresh
    nina.page.wait_for_url("**/game/**")
    game_id = nina.page.url.rsplit("/", 1)[1]
    assert held_seats(nina)
    listed = omar.page.locator(f'#playing li[data-game="{game_id}"] a.game-link')
    listed.click()                                      # on the seeker's lobby's refresh
    omar.page.wait_for_url(f"**/game/{game_id}")
    assert held_seats(omar)
    assert sorted(held_seats(omar) + held_seats(nina)) == [0, 1]
    assert omar.errors == [] and nina.errors == []


def test_the_games_list_names_the_accounts_of_a_rated_game(server, open_page):
    """The lobby's public list names the accounts holding a game's seats, with their
    ratings in a rated game's pool ("?": provisional), to anyone, signed in or not."""
    pia = open_page(server.url + "/signin", "pia", game_page=False)
    ravi = open_page(server.url + "/signin", "ravi", game_page=False)
    sign_up(pia, "pia")
    sign_up(ravi, "ravi")
    pia.page.locator("#rated").check()
    pia.page.locator("#clock-kind").select_option("days")
    pia.page.locator("#clock-days").fill("2")
    pia.page.locator("#seek-create").click()
    mine = pia.page.locator("#seeks li[data-mine=true]")
    mine.wait_for()
    assert "2 days per move" in mine.inner_text() and "correspondence" in mine.inner_text()
    theirs = ravi.page.locator(f'#seeks li[data-seek="{mine.get_attribute("data-seek")}"]')
    theirs.locator("button.accept").click()
    ravi.page.wait_for_url("**/game/**")
    game_id = ravi.page.url.rsplit("/", 1)[1]
    assert held_seats(ravi)                             # the clocks show days and hours
    assert ravi.page.locator("#players [data-clock]").all_text_contents() == ["2d 0h"] * 2
    visitor = open_page(server.url + "/", "visitor", game_page=False)
    row = visitor.page.locator(f'#games li[data-game="{game_id}"]')
    row.locator(".player").first.wait_for()
    names = sorted(row.locator(".player a").all_text_contents())
    assert names == ["pia", "ravi"]
    assert row.locator(".player .rating").all_text_contents() == [" (1500?)"] * 2
    assert "-correspondence)" in row.locator(".game-meta").inner_text()
    assert row.locator(".bot-badge").count() == 0
    assert visitor.errors == [] and pia.errors == [] and ravi.errors == []
