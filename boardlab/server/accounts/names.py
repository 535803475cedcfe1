"""Usernames and passwords as accepted: a name is 2 to 20 ASCII letters, digits, ``-`` and
``_`` (starting with a letter or digit), unique without regard to case (``Admin`` is
``admin``); no other script, so no look-alike Unicode name can impersonate another. A few
names are reserved (the house bots ``ai-N``, ``admin`` ...)."""
from __future__ import annotations

import hashlib
import re

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{1,19}")
RESERVED = re.compile(r"ai-\d+|admin|administrator|root|system|boardlab|moderator|deleted|"
                      r"anonymous|spectator|open|human|ai")
MIN_PASSWORD, MAX_PASSWORD = 8, 200


class NameError_(ValueError):
    """A username that cannot be used (the message says why)."""


def name_key(username: str) -> str:
    """The case-folded key a name is unique by."""
    return username.lower()


def deleted_key(key: str) -> str:
    """What a deleted account keeps of its name: a hash, so that the name is never given
    to anyone else (no one inherits its games) and is not readable in the database."""
    return "#" + hashlib.sha256(key.encode()).hexdigest()


def check_name(username) -> str:
    """``username`` when it may be a new account's name, else NameError_."""
    if not isinstance(username, str) or not NAME.fullmatch(username):
        raise NameError_("a username has 2 to 20 characters: ASCII letters, digits, - and _, "
                         "starting with a letter or digit")
    if RESERVED.fullmatch(name_key(username)):
        raise NameError_(f"the name {username!r} is reserved")
    return username


def check_password(password) -> str:
    """``password`` when it may be a password, else ValueError."""
    if not isinstance(password, str) or not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise ValueError(f"a password has {MIN_PASSWORD} to {MAX_PASSWORD} characters")
    return password
