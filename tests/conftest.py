"""Shared test helpers.

Tests that need an outside service (PostgreSQL, Redis, chromium) call :func:`need_service`: without the
service they are skipped with a reason, except under ``TRICKROOM_REQUIRE_SERVICES=1`` (CI), where they fail.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

REQUIRE_SERVICES = os.environ.get("TRICKROOM_REQUIRE_SERVICES") == "1"
# The test rooms (in this process and in the servers it starts) have no waiting line: it follows the event loop's
# lag, which the tests running beside them would make come and go at random. The line's own tests turn it on.
os.environ["TRICKROOM_LINE_LAG_MS"] = "0"


def need_service(available: bool, reason: str) -> None:
    if available:
        return
    if REQUIRE_SERVICES:
        pytest.fail(f"{reason} (TRICKROOM_REQUIRE_SERVICES=1 makes this mandatory)")
    pytest.skip(reason)


# A module of browser tests gets, unless it defines its own: a room on its own SQLite file (made once for the
# module), a headless chromium, and a fresh desktop page that records what it says (tests/web_helpers.py).


@pytest.fixture(scope="module")
def room(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Iterator[str]:
    from web_helpers import CHROMIUM, room_process

    need_service(os.path.exists(CHROMIUM), "Debian's chromium is not installed (make browser-deps)")
    with room_process(tmp_path_factory.mktemp(request.module.__name__) / "room.sqlite3") as base:
        yield base


@pytest.fixture(scope="module")
def browser(room: str) -> Iterator[Any]:
    from web_helpers import chromium

    with chromium() as launched:
        yield launched


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    from web_helpers import recorded_page
    from web_play import DESKTOP

    with recorded_page(browser, viewport=DESKTOP) as recorded:
        yield recorded
