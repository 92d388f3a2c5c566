"""Which driver a database URL names. People write plain URLs (``sqlite:///room.sqlite3``,
``postgresql://...``); the room's event loop needs SQLAlchemy's async drivers, and SQLite's writer and reader
threads the standard library's."""

from __future__ import annotations


def async_url(url: str) -> str:
    """The SQLAlchemy async URL for a plain one: sqlite -> aiosqlite, postgresql -> asyncpg."""
    for plain, driver in (("sqlite://", "sqlite+aiosqlite://"), ("postgresql://", "postgresql+asyncpg://"),
                          ("postgres://", "postgresql+asyncpg://")):
        if url.startswith(plain):
            return driver + url[len(plain):]
    return url


def sync_url(url: str) -> str:
    """The SQLAlchemy URL of SQLite's standard-library driver, for the write connection and the reader threads."""
    return url.replace("sqlite+aiosqlite://", "sqlite://", 1)
