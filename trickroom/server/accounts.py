"""Passwords (argon2id), session tokens and name rules. Limits on guessing are in :mod:`trickroom.server.limits`."""

from __future__ import annotations

import hashlib
import re
import secrets

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

NAME_PATTERN = re.compile(r"^[\w][\w .\-]{0,23}$")
PASSWORD_MIN, PASSWORD_MAX = 6, 200
# lobby_chat_at_table: whether a connection at a table (one that stopped following the lobby) still hears the
# lobby's chat; off by default, since a player at a table listens to the game (docs/protocol.md, "Lobby chat").
DEFAULT_PREFERENCES = {"lang": "en", "verbosity": "full", "sounds": True, "auto_pass": True,
                       "lobby_chat_at_table": False}

_hasher = PasswordHasher()  # argon2id with the library's current defaults


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def check_password(password_hash: str, password: str) -> bool:
    try:
        return _hasher.verify(password_hash, password)
    except (VerificationError, InvalidHashError):
        return False


def needs_rehash(password_hash: str) -> bool:
    """The hash was made with older parameters than the library's current ones (rehash it at the next login)."""
    try:
        return _hasher.check_needs_rehash(password_hash)
    except InvalidHashError:
        return True


_unknown_user_hash: str | None = None


def unknown_user_hash() -> str:
    """A hash of a random password with the current parameters: checked for a name that has no account, so that
    a wrong name costs exactly what a wrong password does."""
    global _unknown_user_hash
    if _unknown_user_hash is None:
        _unknown_user_hash = hash_password(secrets.token_urlsafe(16))
    return _unknown_user_hash


def valid_name(name: str) -> bool:
    return bool(NAME_PATTERN.match(name)) and name == name.strip()


def valid_password(password: str) -> bool:
    return PASSWORD_MIN <= len(password) <= PASSWORD_MAX


def new_token() -> str:
    return secrets.token_urlsafe(32)


def token_digest(token: str) -> str:
    """What the database keeps of a session token: its SHA-256 (hex). A token has 256 random bits, so a fast hash
    is enough: nobody can search for a token that matches a stolen digest."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def new_guest_id() -> str:
    return "g" + secrets.token_hex(6)
