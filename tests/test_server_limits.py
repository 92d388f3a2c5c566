"""A connection's message rate, without a server or a real clock: the token bucket, and a burst of messages
through ``serve_connection`` (the websocket is a list of frames) whose refused ones are answered with their ids."""

from __future__ import annotations

import asyncio
import functools
import json
from typing import Any

import pytest

from trickroom.server import app
from trickroom.server.app import TokenBucket, serve_connection
from trickroom.server.bus import LocalBus
from trickroom.server.room import Room
from trickroom.server.settings import Settings
from trickroom.server.store import Store


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_bucket_allows_a_burst_then_its_rate() -> None:
    clock = Clock()
    bucket = TokenBucket(rate=20, burst=40, clock=clock)
    assert [bucket.take() for _ in range(41)] == [True] * 40 + [False]
    clock.now += 0.5  # ten more tokens
    assert [bucket.take() for _ in range(11)] == [True] * 10 + [False]
    clock.now += 60  # never more than the burst
    assert sum(bucket.take() for _ in range(50)) == 40


class Socket:
    """The websocket side serve_connection reads and writes."""

    client = None  # no address
    client_state = None

    def __init__(self, texts: list[str]) -> None:
        self.frames: list[dict[str, Any]] = [{"type": "websocket.receive", "text": text} for text in texts]
        self.frames.append({"type": "websocket.disconnect"})
        self.sent: list[dict[str, Any]] = []
        self.scope: dict[str, Any] = {"type": "websocket"}  # no extensions: every frame goes through send_text

    async def receive(self) -> dict[str, Any]:
        await asyncio.sleep(0)
        return self.frames.pop(0)

    async def send_text(self, text: str) -> None:
        self.sent.append(json.loads(text))

    async def close(self, code: int = 1000, reason: str = "") -> None: ...


def test_a_message_over_the_rate_is_refused_with_its_id(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    frozen = Clock()  # no time passes while the burst arrives: exactly the burst goes through
    monkeypatch.setattr(app, "TokenBucket", functools.partial(TokenBucket, clock=frozen))
    settings = Settings(db=f"sqlite:///{tmp_path / 'limits.sqlite3'}", messages_per_second=20, message_burst=40)

    async def scenario() -> list[dict[str, Any]]:
        store = Store(settings.db)
        socket = Socket([json.dumps({"type": "ping", "id": f"p{n}"}) for n in range(45)])
        try:
            await serve_connection(socket, Room(settings, store, LocalBus()), settings)
        finally:
            await store.close()
        return socket.sent

    sent = asyncio.run(scenario())
    assert sent[0]["type"] == "hello"
    replies = sent[1:]
    assert [m["type"] for m in replies] == ["pong"] * 40 + ["error"] * 5
    # A dropped request still gets its id back, so that a client waiting for the reply hears it was refused.
    assert [(m["code"], m["re"]) for m in replies[40:]] == [("rate_limited", f"p{n}") for n in range(40, 45)]
