"""The lobby (`/`): a game made from the form (a game picked, an option changed, a seat
given to an AI at level 1) shows its links, and the seat link plays it to the end."""
import random

from harness import play_to_end, result_shown


def test_a_game_created_in_the_lobby_is_played_from_its_seat_link(server, open_page):
    lobby = open_page(server.url + "/", "lobby", game_page=False)
    page = lobby.page
    page.locator('#game-picker button[data-game="rumbo"]').click()
    page.locator('#game-picker button[data-game="rumbo"][aria-pressed="true"]').wait_for()
    size = page.locator('#options-form [data-option="size"]')
    size.fill("5")
    size.dispatch_event("change")
    page.wait_for_function(
        "() => document.querySelector('#spec-line').textContent.includes('rumbo(size=5)')")
    page.locator('#seats select[data-seat="1"]').select_option("ai")
    page.locator('#seats select[data-seat-level="1"]').select_option("1")
    page.locator("#create").click()
    page.locator("#created").wait_for(state="visible")
    links = [box.input_value() for box in page.locator("#created input").all()]
    assert any("/game/" in link and "#token=" in link for link in links)
    assert any(link.endswith("/game/" + link.split("/game/")[1].split("#")[0])
               and "#token=" not in link for link in links)            # the watch link
    game_id = links[0].split("/game/")[1].split("#")[0]
    made = server.game(game_id)
    assert made["spec"] == "rumbo(size=5)"
    assert [seat["kind"] for seat in made["seats"]] == ["human", "ai"]
    assert made["seats"][1]["agent"] == "mcts(level=1)"

    page.locator("#play").click()
    page.wait_for_url("**/game/**#token=*")
    lobby.wait_ready()
    assert page.evaluate("() => window.boardlab.seat") == 0
    final = play_to_end([lobby], random.Random(17))
    shown = server.game(game_id)
    assert shown["status"] == "over" and shown["version"] == final
    assert result_shown(lobby)["winners"] == sorted(shown["view"]["result"]["winners"])
