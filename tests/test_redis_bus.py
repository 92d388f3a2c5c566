"""The bus between nodes on a real Redis (``TRICKROOM_TEST_REDIS``, a fresh key prefix): a table step's deliveries
go out in one pipeline, each to its own channel, in order."""

from __future__ import annotations

import asyncio
import secrets
from typing import Any

import pytest
from conftest import need_service
from test_cluster import REDIS, _redis_ping, available

from trickroom.server.redis_bus import RedisBus

pytestmark = pytest.mark.services


async def _deliver(items: list[tuple[str, dict[str, Any]]], listened: list[str]) -> dict[str, list[Any]]:
    import redis.asyncio as redis

    client = redis.from_url(REDIS)
    bus = RedisBus(client, f"trickroom-test-{secrets.token_hex(4)}:")
    got: dict[str, list[Any]] = {channel: [] for channel in listened}
    try:
        for channel in listened:
            async def handler(message: dict[str, Any], channel: str = channel) -> None:
                got[channel].append(message["n"])
            await bus.subscribe(channel, handler)
        await bus.publish_many(items)
        expected = sum(1 for channel, _ in items if channel in listened)
        for _ in range(200):
            if sum(map(len, got.values())) >= expected:
                break
            await asyncio.sleep(0.01)
        return got
    finally:
        await bus.close()
        await client.aclose()


def test_a_step_s_deliveries_reach_each_channel_in_order() -> None:
    need_service(available(_redis_ping()), f"Redis is not reachable at {REDIS}")
    items = [("user:a", {"n": 1}), ("user:b", {"n": 2}), ("user:a", {"n": 3}), ("user:c", {"n": 4})]
    assert asyncio.run(_deliver(items, ["user:a", "user:b"])) == {"user:a": [1, 3], "user:b": [2]}
    assert asyncio.run(_deliver([("user:a", {"n": 5})], ["user:a"])) == {"user:a": [5]}  # one: a plain publish
