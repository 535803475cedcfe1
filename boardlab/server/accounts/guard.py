"""The security headers on every HTTP response, and the CSRF check of state-changing
requests (an ASGI middleware around the whole app).

Headers: a Content-Security-Policy (scripts only from this origin, no inline script, no
framing: ``frame-ancestors 'none'``), ``X-Content-Type-Options: nosniff``, a
``Referrer-Policy``, ``X-Frame-Options: DENY`` for older browsers, and a
``Cross-Origin-Opener-Policy``. Inline styles stay allowed (the boards set colours as
style attributes); scripts never.

CSRF: a POST/PUT/PATCH/DELETE that carries the session cookie, and every request under
/api/account (sign-in and sign-up too: no login CSRF), must send the header
``X-Boardlab-CSRF: 1`` and, when the browser says where it comes from (``Origin``,
``Sec-Fetch-Site``), come from this origin. A page of another site cannot send a custom
header without a CORS preflight this server never approves, and a form cannot send one at
all; curl and programs add it in one flag. Requests without the cookie carry no account's
authority and pass as before (seat tokens are not ambient). Refused: 403 ``csrf_failed``.
"""
from __future__ import annotations

import json

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..rest import ApiError
from .sessions import COOKIE

CSRF_HEADER = "x-boardlab-csrf"
SAFE = frozenset({"GET", "HEAD", "OPTIONS"})
ACCOUNT_PATHS = ("/api/account",)
POLICY = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
          "img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; "
          "form-action 'self'; frame-ancestors 'none'")
HEADERS = [(b"content-security-policy", POLICY.encode()),
           (b"x-content-type-options", b"nosniff"),
           (b"referrer-policy", b"same-origin"),
           (b"x-frame-options", b"DENY"),
           (b"cross-origin-opener-policy", b"same-origin")]


class Guard:
    """The middleware: headers on every response, CSRF refusals before the app runs."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                have = {name.lower() for name, _ in message.get("headers", [])}
                message["headers"] = [*message.get("headers", []),
                                      *[h for h in HEADERS if h[0] not in have]]
            await send(message)

        refusal = csrf_refusal(scope)
        if refusal is not None:
            body = json.dumps({"error": {"code": refusal.code,
                                         "message": refusal.message}}).encode()
            await with_headers({"type": "http.response.start", "status": refusal.status,
                                "headers": [(b"content-type", b"application/json"),
                                            (b"content-length", str(len(body)).encode())]})
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, with_headers)


def csrf_refusal(scope: Scope) -> ApiError | None:
    """Why a request fails the CSRF check (None: it passes)."""
    if scope["method"] in SAFE:
        return None
    headers = Headers(scope=scope)
    cookies = headers.get("cookie", "")
    if not scope["path"].startswith(ACCOUNT_PATHS) and f"{COOKIE}=" not in cookies:
        return None
    if headers.get(CSRF_HEADER) != "1":
        return ApiError("csrf_failed", f"a signed-in or account request needs the header "
                        f"{CSRF_HEADER}: 1 (docs/accounts.md)")
    if not same_origin(scope, headers):
        return ApiError("csrf_failed", "a request from another site")
    return None


def same_origin(scope: Scope, headers: Headers) -> bool:
    """Whether the browser's Origin (and Sec-Fetch-Site) say this very origin (a request
    without them, from curl or a program, passes)."""
    if headers.get("sec-fetch-site", "same-origin") not in ("same-origin", "none"):
        return False
    origin = headers.get("origin")
    if origin is None:
        return True
    host = headers.get("host", "")
    return origin in (f"http://{host}", f"https://{host}")
