"""Session cookies: a random session id, signed (itsdangerous, with the server's key);
the database keeps only the id's SHA-256, so a logout or a password change ends a session
by deleting its row, and a copy of the database holds no usable session.

The cookie is HttpOnly, SameSite=Lax, and Secure when the server is told it is behind
HTTPS (``boardlab serve --https``).
"""
from __future__ import annotations

import hashlib
import secrets

from itsdangerous import BadSignature, TimestampSigner

COOKIE = "boardlab_session"
LIFETIME = 30 * 86400          # seconds a session lasts


def new_session_id() -> str:
    """A fresh session id (256 random bits)."""
    return secrets.token_urlsafe(32)


def session_hash(session_id: str) -> str:
    """The stored form of a session id."""
    return hashlib.sha256(session_id.encode()).hexdigest()


class Signer:
    """Signs session ids into cookie values, and checks them (signature and age)."""

    def __init__(self, key: str):
        self.signer = TimestampSigner(key, salt="boardlab-session")

    def sign(self, session_id: str) -> str:
        return self.signer.sign(session_id).decode()

    def unsign(self, value: str | None) -> str | None:
        """The session id of a cookie value; None when forged, damaged or too old."""
        if not value or len(value) > 200:
            return None
        try:
            return self.signer.unsign(value, max_age=LIFETIME).decode()
        except BadSignature:            # SignatureExpired is one too
            return None


def cookie_header(value: str, secure: bool, max_age: int = LIFETIME) -> str:
    """A Set-Cookie value for the session (max_age 0: delete it)."""
    parts = [f"{COOKIE}={value}", "Path=/", f"Max-Age={max_age}", "HttpOnly",
             "SameSite=Lax"]
    if secure:
        parts.append("Secure")
    return "; ".join(parts)
