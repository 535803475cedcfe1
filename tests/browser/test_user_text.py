"""User-written text never runs as HTML (issue 48, security): a chat line full of markup
sent from one seat's page shows on the other's as the very text, with no element made of
it (tournament names: test_tournaments.py; account names are ASCII letters and digits)."""

SPEC = "carteso(size=5)"
HOSTILE = ('<img src=x onerror="document.body.dataset.pwned=1"><script>'
           'document.body.dataset.pwned=2</script><b>bold</b> & hello')


def test_a_chat_line_of_markup_shows_as_text(server, open_page):
    game = server.create(SPEC, ["human", "human"], seed=48)
    writer = open_page(game["seats"][0]["page"], "writer")
    reader = open_page(game["seats"][1]["page"], "reader")
    writer.page.locator("#chat-input").fill(HOSTILE)
    writer.page.locator("#chat-input").press("Enter")
    for client in (writer, reader):
        line = client.page.locator("#chat-log li", has_text="& hello")
        line.wait_for()
        assert HOSTILE in line.inner_text()
        assert client.page.locator("#chat-log img, #chat-log script, #chat-log b").count() == 0
        assert client.page.evaluate("() => document.body.dataset.pwned") is None
        assert client.errors == []
