"""Security headers on every response and page (boardlab/server/accounts/guard.py), and
no inline script in any page (the Content-Security-Policy allows none)."""
import re
import warnings
from pathlib import Path

import pytest

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="Using `httpx`")
    from starlette.testclient import TestClient

from boardlab.server import create_app

STATIC = Path(__file__).resolve().parents[1] / "boardlab" / "server" / "static"
PAGES = ["/", "/game/abc", "/signin", "/user/alice"]


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    db = tmp_path_factory.mktemp("headers") / "server.db"
    with TestClient(create_app(f"sqlite:///{db}", ai_processes=0)) as test_client:
        yield test_client


def check_headers(response) -> None:
    policy = response.headers["content-security-policy"]
    directives = {part.split()[0]: part.split()[1:] for part in policy.split("; ")}
    assert directives["frame-ancestors"] == ["'none'"]
    assert directives["script-src"] == ["'self'"]            # no inline, no eval
    assert directives["object-src"] == ["'none'"]
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["referrer-policy"] in ("same-origin", "no-referrer",
                                                   "strict-origin-when-cross-origin")
    assert response.headers["x-frame-options"] == "DENY"


def test_every_page_has_the_headers(client):
    for path in PAGES:
        response = client.get(path)
        assert response.status_code == 200 and "text/html" in response.headers["content-type"]
        check_headers(response)


def test_every_static_file_and_api_answer_has_them(client):
    files = [path.relative_to(STATIC).as_posix() for path in STATIC.rglob("*")
             if path.is_file()]
    assert len(files) > 5
    for name in files:
        response = client.get(f"/static/{name}")
        assert response.status_code == 200, name
        check_headers(response)
    for path in ("/api/catalog", "/api/games", "/api/account", "/api/games/nope",
                 "/api/users/nobody", "/no/such/page"):
        check_headers(client.get(path))
    check_headers(client.post("/api/account/login", json={}))          # a CSRF refusal


def test_no_page_has_an_inline_script_or_handler():
    pages = list(STATIC.glob("*.html"))
    assert {page.name for page in pages} >= {"index.html", "game.html", "signin.html",
                                             "profile.html"}
    for page in pages:
        html = page.read_text()
        for script in re.findall(r"<script\b[^>]*>(.*?)</script>", html, re.S):
            assert script.strip() == "", f"{page.name}: an inline script"
        assert all("src=" in tag for tag in re.findall(r"<script\b[^>]*>", html)), page.name
        assert not re.search(r"\son[a-z]+\s*=", html), f"{page.name}: an inline handler"
        assert "javascript:" not in html.lower(), page.name
