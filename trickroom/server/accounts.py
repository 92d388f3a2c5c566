"""Passwords (argon2id), session tokens, name rules and login attempt limits."""

from __future__ import annotations

import re
import secrets
import time
from collections import defaultdict, deque

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

NAME_PATTERN = re.compile(r"^[\w][\w .\-]{0,23}$")
PASSWORD_MIN, PASSWORD_MAX = 6, 200
DEFAULT_PREFERENCES = {"lang": "en", "verbosity": "full", "sounds": True}

_hasher = PasswordHasher()  # argon2id with the library's current defaults


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def check_password(password_hash: str, password: str) -> bool:
    try:
        return _hasher.verify(password_hash, password)
    except (VerificationError, InvalidHashError):
        return False


def valid_name(name: str) -> bool:
    return bool(NAME_PATTERN.match(name)) and name == name.strip()


def valid_password(password: str) -> bool:
    return PASSWORD_MIN <= len(password) <= PASSWORD_MAX


def new_token() -> str:
    return secrets.token_urlsafe(32)


def new_guest_id() -> str:
    return "g" + secrets.token_hex(6)


class AttemptLimiter:
    """At most ``limit`` attempts per ``window`` seconds for each key (a connection, a user name)."""

    def __init__(self, limit: int, window: float = 60.0) -> None:
        self.limit = limit
        self.window = window
        self._attempts: defaultdict[str, deque[float]] = defaultdict(deque)

    def allow(self, *keys: str) -> bool:
        now = time.monotonic()
        for key in keys:
            attempts = self._attempts[key]
            while attempts and attempts[0] < now - self.window:
                attempts.popleft()
            if len(attempts) >= self.limit:
                return False
        for key in keys:
            self._attempts[key].append(now)
        return True
