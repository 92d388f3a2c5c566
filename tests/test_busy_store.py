"""A busy database (every pooled connection in use, SQLite's file locked) is answered ``busy`` with
``retry_after``, not ``internal``; a failure that repeats is logged once per interval with a count, and only a
bug's with a traceback."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import pytest
from sqlalchemy.exc import OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout

from trickroom.server.app import handle_text
from trickroom.server.connection import Connection
from trickroom.server.errors import BUSY_RETRY_SECONDS, FailureLog
from trickroom.server.room import Room
from trickroom.server.settings import Settings


class FailingRoom:
    """A room whose every request fails with ``failure``."""

    def __init__(self, failure: Exception) -> None:
        self.settings = Settings()
        self.failure = failure

    async def handle(self, conn: Connection, msg: Any) -> None:
        raise self.failure

    answer = Room.answer  # the room's own answering of failures, around this handle


def answer(failure: Exception) -> dict[str, Any]:
    conn = Connection(id="n/c1")
    asyncio.run(handle_text(FailingRoom(failure), conn,  # type: ignore[arg-type]
                            json.dumps({"type": "login", "nickname": "Anna", "id": 7})))
    frame = conn.queue.get_nowait()
    assert frame is not None and conn.queue.empty()
    decoded: dict[str, Any] = json.loads(frame)
    return decoded


@pytest.mark.parametrize("failure", [
    PoolTimeout("QueuePool limit of size 5 overflow 10 reached, connection timed out, timeout 10.00"),
    OperationalError("INSERT INTO sessions", {}, Exception("database is locked")),
])
def test_a_busy_database_is_answered_busy_with_retry_after(failure: Exception) -> None:
    message = answer(failure)
    assert (message["type"], message["code"], message["re"]) == ("error", "busy", 7)
    assert message["retry_after"] == BUSY_RETRY_SECONDS
    assert message["text"] == "The room is busy just now; ask again in a moment."


def test_a_bug_is_still_internal() -> None:
    message = answer(KeyError("oops"))
    assert (message["code"], message["re"]) == ("internal", 7)
    assert "retry_after" not in message
    other = answer(OperationalError("SELECT", {}, Exception("no such table: sessions")))
    assert other["code"] == "internal"


class Clock:
    now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_repeated_failure_is_logged_once_per_interval_with_a_count(caplog: pytest.LogCaptureFixture) -> None:
    clock = Clock()
    failures = FailureLog(logging.getLogger("test.failures"), interval=10, clock=clock)
    with caplog.at_level(logging.INFO, logger="test.failures"):
        for n in range(50):
            clock.now = n * 0.1  # 50 in 5 seconds
            failures.failed("a request failed", PoolTimeout("pool"), is_busy=True)
        failures.failed("a request failed", KeyError("bug"))  # another kind: logged at once, with its traceback
        clock.now = 12.0
        failures.failed("a request failed", PoolTimeout("pool"), is_busy=True)
    records = caplog.records
    assert len(records) == 3
    assert records[0].exc_info is None and "busy" in records[0].getMessage()
    assert records[1].exc_info is not None
    assert records[2].exc_info is None and "49 more like it" in records[2].getMessage()
