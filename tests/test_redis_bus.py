"""The bus between nodes on a real Redis (``TRICKROOM_TEST_REDIS``, a fresh key prefix): a table step's deliveries
go out in one pipeline, each to its own channel, in order; an intent for a table owned here stays here; a node's
list of its users is renewed at each beat and written anew only when asked or lost; a user connected to this node
alone gets their messages in process, until another node listens to them too."""

from __future__ import annotations

import asyncio
import secrets
from typing import Any

import pytest
from conftest import need_service
from test_cluster import REDIS, _redis_ping, available

from trickroom.server.cluster import Cluster
from trickroom.server.redis_bus import RedisBus, pack, unpack

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


def test_what_orjson_refuses_still_crosses_the_bus() -> None:
    for message in ({"text": "a\ud800b"}, {1: "a key that is not a string"}, {"n": 2**70}, {"text": "Αννα, Анна"}):
        assert unpack(pack(message)) == {str(k): v for k, v in message.items()}


async def _table_intents() -> tuple[int, list[Any], list[Any], int, dict[str, Any]]:
    """Two nodes' buses on one Redis: node A owns table t1 and listens to user u1, as node B does too."""
    import redis.asyncio as redis

    client, prefix = redis.from_url(REDIS), f"trickroom-test-{secrets.token_hex(4)}:"
    a, b = RedisBus(client, prefix), RedisBus(client, prefix)
    at_a: list[Any] = []
    at_b: list[Any] = []

    async def heard_at_a(message: dict[str, Any]) -> None:
        at_a.append(message)

    async def heard_at_b(message: dict[str, Any]) -> None:
        at_b.append(message)
    try:
        await a.subscribe("table:t1", heard_at_a)
        await a.subscribe("user:u1", heard_at_a)
        await b.subscribe("user:u1", heard_at_b)
        for _ in range(200):  # until node a has read node b's announcement
            if "user:u1" not in a._alone:
                break
            await asyncio.sleep(0.01)
        intent = {"kind": "intent", "n": 1}
        receivers = await a.publish("table:t1", intent)  # owned here: queued here, not sent
        await a.publish_many([("user:u1", {"n": 2}), ("user:u1", {"n": 3})])  # two nodes listen: through Redis
        from_b = await b.publish("table:t1", {"kind": "intent", "n": 4})  # from elsewhere: through Redis
        for _ in range(200):
            if len(at_a) >= 4 and len(at_b) >= 2:
                break
            await asyncio.sleep(0.01)
        return receivers, at_a, at_b, from_b, intent
    finally:
        await a.close()
        await b.close()
        await client.aclose()


def test_an_intent_for_a_table_owned_here_stays_here_and_the_rest_cross_redis() -> None:
    need_service(available(_redis_ping()), f"Redis is not reachable at {REDIS}")
    receivers, at_a, at_b, from_b, intent = asyncio.run(_table_intents())
    assert receivers == 1 and from_b == 1
    assert at_a[0] is intent  # the very message: it never left the node
    assert sorted(m["n"] for m in at_a) == [1, 2, 3, 4]
    assert [m["n"] for m in at_b] == [2, 3]


async def _users_listed() -> list[set[str]]:
    import redis.asyncio as redis

    client, prefix = redis.from_url(REDIS), f"trickroom-test-{secrets.token_hex(4)}:"
    cluster = Cluster(client, prefix, "n1", "ws://127.0.0.1:1/ws", ttl=30)
    here = {"u1": {"user": {"id": "u1", "name": "Anna"}, "lang": "en"}}
    asked: list[int] = []

    def users() -> dict[str, Any]:
        asked.append(1)
        return dict(here)

    seen: list[set[str]] = []
    try:
        await cluster.heartbeat(users)  # the first beat writes the list
        seen.append(set(await cluster.online()))
        await cluster.add_user({"id": "u2", "name": "Boris"}, "ru")  # u2 comes; the list now holds more than `here`
        await cluster.heartbeat(users, rewrite=False)  # renewed, not rewritten
        seen.append(set(await cluster.online()))
        seen.append({str(len(asked))})
        await cluster.heartbeat(users, rewrite=True)  # written anew from who is here
        seen.append(set(await cluster.online()))
        await client.delete(prefix + "users:n1")  # expired (a late beat): the next beat writes it anew
        await cluster.heartbeat(users, rewrite=False)
        seen.append(set(await cluster.online()))
        return seen
    finally:
        for key in await client.keys(prefix + "*"):
            await client.delete(key)
        await client.aclose()


def test_a_node_s_users_are_written_anew_only_when_asked_or_lost() -> None:
    need_service(available(_redis_ping()), f"Redis is not reachable at {REDIS}")
    assert asyncio.run(_users_listed()) == [{"u1"}, {"u1", "u2"}, {"1"}, {"u1"}, {"u1"}]


async def _a_user_on_one_node_then_two() -> tuple[list[Any], list[Any], dict[str, Any], list[bool]]:
    import redis.asyncio as redis

    client, prefix = redis.from_url(REDIS), f"trickroom-test-{secrets.token_hex(4)}:"
    a, b = RedisBus(client, prefix), RedisBus(client, prefix)
    at_a: list[Any] = []
    at_b: list[Any] = []

    async def heard_at_a(message: dict[str, Any]) -> None:
        at_a.append(message)

    async def heard_at_b(message: dict[str, Any]) -> None:
        at_b.append(message)
    alone: list[bool] = []
    try:
        await a.subscribe("user:u1", heard_at_a)
        alone.append(await a.publish("user:u1", first := {"n": 1}) == 1 and "user:u1" in a._alone)
        await b.subscribe("user:u1", heard_at_b)  # u1 signs in on a second node too
        for _ in range(200):  # until node a has read node b's announcement
            if "user:u1" not in a._alone:
                break
            await asyncio.sleep(0.01)
        alone.append("user:u1" in a._alone or "user:u1" in b._alone)
        await a.publish_many([("user:u1", {"n": 2}), ("user:u1", {"n": 3})])
        for _ in range(200):
            if len(at_a) >= 3 and len(at_b) >= 2:
                break
            await asyncio.sleep(0.01)
        await b.unsubscribe("user:u1", heard_at_b)
        alone.append("user:u1" in a._alone)  # shared once, shared while node a listens
        return at_a, at_b, first, alone
    finally:
        await a.close()
        await b.close()
        await client.aclose()


def test_a_user_on_this_node_alone_is_told_in_process_and_through_redis_once_on_two() -> None:
    need_service(available(_redis_ping()), f"Redis is not reachable at {REDIS}")
    at_a, at_b, first, alone = asyncio.run(_a_user_on_one_node_then_two())
    assert alone == [True, False, False]
    assert at_a[0] is first  # in process: the very message
    assert [m["n"] for m in at_a] == [1, 2, 3] and [m["n"] for m in at_b] == [2, 3]  # no announcement among them
