"""The game review on the game page: a person finishes a small game against the AI,
asks for the review, sees its progress and then the win-chance chart; a click on the chart
(and the arrow keys) shows that position, and a marked move shows the AI's preferred move
on the board."""
from __future__ import annotations

import random

from harness import play_to_end, resign

SPEC = "carteso(size=5)"
W, LEFT, RIGHT = 600, 36, 8          # the chart's viewBox width and plot margins (review.js)


def shown_moves(player) -> int:
    return player.page.evaluate("() => window.boardlab.view.history.length")


def wait_shown(player, at: int) -> None:
    player.page.wait_for_function("k => window.boardlab.view.history.length === k", arg=at)


def on_board(best: str | None) -> bool:
    """Whether the AI's move ends on a cell the board can mark: not Carteso's pie-rule
    ``button`` (the review's search has a fresh seed, so its move may be either)."""
    return best is not None and best != "button"


def test_a_finished_game_is_reviewed_and_the_chart_jumps_to_positions(server, open_page):
    game = server.create(SPEC, ["human", {"ai": "mcts(level=1)"}], seed=424242)
    player = open_page(game["seats"][0]["page"], "player")
    play_to_end([player], random.Random(7))
    page = player.page
    page.locator("#review").wait_for(state="visible")
    assert page.locator("#review-chart").count() == 0

    page.locator("#review-request").click()
    page.locator("#review-progress").wait_for(state="visible")     # while the AI works
    chart = page.locator("#review-chart")
    chart.wait_for(state="visible")
    assert page.locator("#review-progress").is_hidden()
    assert page.locator("#review-request").is_hidden()
    assert chart.locator("title").first.text_content().startswith("Win chance of vertical")
    record = server.record(game["id"])
    positions = int(chart.get_attribute("data-positions"))
    assert positions == len(record["moves"]) + 1
    review = server.http.get(f"/api/games/{game['id']}/review").json()["review"]
    assert page.locator("#review-chart polyline.review-line").count() == 1   # two sides

    # A click on the chart shows the position under it.
    target = positions // 2
    box = chart.bounding_box()
    x = (LEFT + target / (positions - 1) * (W - LEFT - RIGHT)) / W * box["width"]
    chart.click(position={"x": x, "y": box["height"] / 2})
    wait_shown(player, target)
    page.locator("#looking").wait_for(state="visible")
    assert page.locator(f'#moves li[data-index="{target - 1}"].current').count() == 1

    # The arrow keys move along the chart.
    chart.focus()
    page.keyboard.press("ArrowLeft")
    wait_shown(player, target - 1)
    page.keyboard.press("Home")
    wait_shown(player, 0)

    # The marked moves: in the chart, the list and the move list; one shows the AI's move.
    for at in review["marked"]:
        assert page.locator(f'#moves li[data-index="{at}"].review-mark').count() == 1
        assert page.locator(f'#review-marks li[data-at="{at}"]').count() == 1
    with_best = [at for at in review["marked"] if on_board(review["moves"][at]["best"])]
    if with_best:
        at = with_best[0]
        chart.locator(f'.review-point[data-at="{at}"]').click()
        wait_shown(player, at)
        page.locator("#board .hint", has_text="AI").first.wait_for(state="visible")
        assert review["moves"][at]["best"] in page.locator("#review-status").text_content()
    assert not player.errors


def test_a_resignation_in_a_playable_position_is_marked_with_the_ai_move(server, open_page):
    """Resigning at once costs the whole chance the position had: the move is marked, and
    at its position the board shows the move the AI would have played."""
    game = server.create(SPEC, ["human", {"ai": "mcts(level=1)"}], seed=434343)
    player = open_page(game["seats"][0]["page"], "player")
    page = player.page
    resign(page)
    page.locator("#review").wait_for(state="visible")
    page.locator("#review-request").click()
    mark = page.locator('#review-chart .review-point[data-at="0"]')
    mark.wait_for(state="visible")
    assert page.locator('#moves li[data-index="0"].review-mark').count() == 1
    mark.focus()
    page.keyboard.press("Enter")
    wait_shown(player, 0)
    best = server.http.get(f"/api/games/{game['id']}/review").json()["review"]["moves"][0]
    if on_board(best["best"]):
        page.locator("#board .hint", has_text="AI").first.wait_for(state="visible")
    assert "the AI would play" in page.locator("#review-status").text_content()
    assert not player.errors
