"""Settings precedence (flags > environment > file), database URLs, the bus and ratings helpers."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from trickroom.server.bus import LocalBus
from trickroom.server.db_urls import async_url
from trickroom.server.ratings import teams_and_ranks, winners
from trickroom.server.settings import load_settings


def test_flags_beat_environment_beat_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "room.env"
    config.write_text("# a comment\nTRICKROOM_PORT=9001\nchat_length=100\nallowed_origins=http://a.example, "
                      "http://b.example\ngrace_seconds=5\n", encoding="utf-8")
    monkeypatch.setenv("TRICKROOM_GRACE_SECONDS", "7")
    monkeypatch.setenv("TRICKROOM_CHAT_LENGTH", "200")
    settings = load_settings(str(config), port=None, chat_length=300)
    assert settings.port == 9001  # only the file sets it
    assert settings.grace_seconds == 7  # the environment beats the file
    assert settings.chat_length == 300  # the flag beats both
    assert settings.allowed_origins == ["http://a.example", "http://b.example"]
    assert settings.db == "sqlite:///trickroom.sqlite3"
    monkeypatch.setenv("TRICKROOM_ALLOWED_ORIGINS", "https://cards.example")
    assert load_settings(str(config)).allowed_origins == ["https://cards.example"]


def test_the_frame_cap_is_a_setting_and_holds_at_least_one_message(monkeypatch: pytest.MonkeyPatch) -> None:
    assert load_settings().max_frame_bytes == 1 << 20
    monkeypatch.setenv("TRICKROOM_MAX_FRAME_BYTES", "65536")
    assert load_settings().max_frame_bytes == 65536
    with pytest.raises(ValidationError, match="max_frame_bytes must be at least max_message_bytes"):
        load_settings(max_message_bytes=100_000)


def test_database_urls_get_async_drivers() -> None:
    assert async_url("sqlite:///room.sqlite3") == "sqlite+aiosqlite:///room.sqlite3"
    assert async_url("postgresql://u@h:5432/d") == "postgresql+asyncpg://u@h:5432/d"
    assert async_url("postgres://u@h/d") == "postgresql+asyncpg://u@h/d"
    assert async_url("postgresql+asyncpg://u@h/d") == "postgresql+asyncpg://u@h/d"


def test_local_bus_delivers_in_order_and_counts_receivers() -> None:
    got: list[tuple[str, Any]] = []

    async def scenario() -> list[int]:
        bus = LocalBus()

        async def first(message: dict[str, Any]) -> None:
            got.append(("first", message["n"]))

        async def broken(message: dict[str, Any]) -> None:
            raise RuntimeError("a broken subscriber")

        await bus.subscribe("table:t1", first)
        await bus.subscribe("table:t1", broken)
        counts = [await bus.publish("table:t1", {"n": 1}), await bus.publish("table:t2", {"n": 2})]
        await bus.unsubscribe("table:t1", broken)
        counts.append(await bus.publish("table:t1", {"n": 3}))
        return counts

    assert asyncio.run(scenario()) == [2, 0, 1]
    assert got == [("first", 1), ("first", 3)]


def test_ranks_from_standings() -> None:
    bura = {"kind": "seats", "order": [2, 0, 1], "winner": 2}
    assert teams_and_ranks(bura, 3) == ([[0], [1], [2]], [2, 3, 1])
    assert winners(bura) == {2}
    mpourloto = {"kind": "teams", "teams": [[0, 2], [1, 3]], "order": [1, 0], "winner": 1}
    assert teams_and_ranks(mpourloto, 4) == ([[0, 2], [1, 3]], [2, 1])
    assert winners({"kind": "seats", "order": [0, 1], "winner": None}) == set()
