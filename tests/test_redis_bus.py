"""The bus between nodes on a real Redis (``TRICKROOM_TEST_REDIS``, a fresh key prefix): a table step's deliveries
go out in one pipeline, each to its own channel, in order; an intent for a table owned here stays here, handled at
once unless an earlier one is still being handled; a node's list of its users is renewed at each beat and written
anew only when asked or lost; a user connected to this node alone gets their messages in process, while no other
node listens to them too."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import AsyncIterator, Callable
from typing import Any, cast

import pytest
from conftest import need_service
from test_cluster import REDIS, _redis_ping, available

from trickroom.server.cluster import Cluster
from trickroom.server.redis_bus import RedisBus, pack, unpack
from trickroom.server.redis_publisher import publisher_for

pytestmark = pytest.mark.services


async def until(condition: Callable[[], bool]) -> None:
    """Wait up to two seconds for ``condition`` (a message crossing Redis)."""
    for _ in range(200):
        if condition():
            return
        await asyncio.sleep(0.01)


class Node:
    """One node's bus, and what its handler heard."""

    def __init__(self, bus: RedisBus) -> None:
        self.bus = bus
        self.heard: list[Any] = []

    async def handler(self, message: dict[str, Any]) -> None:
        self.heard.append(message)


@contextlib.asynccontextmanager
async def scratch_redis() -> AsyncIterator[tuple[Any, str]]:
    """A Redis client and a fresh key prefix, whose keys are deleted afterwards."""
    import redis.asyncio as redis

    client, prefix = redis.from_url(REDIS), f"trickroom-test-{secrets.token_hex(4)}:"
    try:
        yield client, prefix
    finally:
        for key in await client.keys(prefix + "*"):
            await client.delete(key)
        await client.aclose()


@contextlib.asynccontextmanager
async def two_nodes() -> AsyncIterator[tuple[Node, Node]]:
    """Two nodes' buses on one Redis, under a fresh key prefix."""
    async with scratch_redis() as (client, prefix):
        a, b = Node(RedisBus(client, prefix)), Node(RedisBus(client, prefix))
        try:
            yield a, b
        finally:
            await a.bus.close()
            await b.bus.close()


async def _deliver(items: list[tuple[str, dict[str, Any]]], listened: list[str]) -> dict[str, list[Any]]:
    got: dict[str, list[Any]] = {channel: [] for channel in listened}
    async with scratch_redis() as (client, prefix):
        bus = RedisBus(client, prefix)
        try:
            for channel in listened:
                async def handler(message: dict[str, Any], channel: str = channel) -> None:
                    got[channel].append(message["n"])
                await bus.subscribe(channel, handler)
            await bus.publish_many(items)
            expected = sum(1 for channel, _ in items if channel in listened)
            await until(lambda: sum(map(len, got.values())) >= expected)
            return got
        finally:
            await bus.close()


def test_a_step_s_deliveries_reach_each_channel_in_order() -> None:
    need_service(available(_redis_ping()), f"Redis is not reachable at {REDIS}")
    items = [("user:a", {"n": 1}), ("user:b", {"n": 2}), ("user:a", {"n": 3}), ("user:c", {"n": 4})]
    assert asyncio.run(_deliver(items, ["user:a", "user:b"])) == {"user:a": [1, 3], "user:b": [2]}
    assert asyncio.run(_deliver([("user:a", {"n": 5})], ["user:a"])) == {"user:a": [5]}  # one: a plain publish


def test_what_orjson_refuses_still_crosses_the_bus() -> None:
    for message in ({"text": "a\ud800b"}, {1: "a key that is not a string"}, {"n": 2**70}, {"text": "Αννα, Анна"}):
        assert unpack(pack(message)) == {str(k): v for k, v in message.items()}


async def _table_intents() -> tuple[int, list[Any], list[Any], int, dict[str, Any]]:
    """Node A owns table t1 and listens to user u1, as node B does too."""
    async with two_nodes() as (a, b):
        await a.bus.subscribe("table:t1", a.handler)
        await a.bus.subscribe("user:u1", a.handler)
        await b.bus.subscribe("user:u1", b.handler)
        await until(lambda: "user:u1" not in a.bus._alone)  # node A has read node B's announcement
        intent = {"kind": "intent", "n": 1}
        receivers = await a.bus.publish("table:t1", intent)  # owned here: queued here, not sent
        await a.bus.publish_many([("user:u1", {"n": 2}), ("user:u1", {"n": 3})])  # two nodes listen: through Redis
        from_b = await b.bus.publish("table:t1", {"kind": "intent", "n": 4})  # from elsewhere: through Redis
        await until(lambda: len(a.heard) >= 4 and len(b.heard) >= 2)
        return receivers, a.heard, b.heard, from_b, intent


def test_an_intent_for_a_table_owned_here_stays_here_and_the_rest_cross_redis() -> None:
    need_service(available(_redis_ping()), f"Redis is not reachable at {REDIS}")
    receivers, at_a, at_b, from_b, intent = asyncio.run(_table_intents())
    assert receivers == 1 and from_b == 1
    assert at_a[0] is intent  # the very message: it never left the node
    assert sorted(m["n"] for m in at_a) == [1, 2, 3, 4]
    assert [m["n"] for m in at_b] == [2, 3]



async def _in_process_order() -> tuple[list[int], list[int], list[int]]:
    """Node A owns table t1. An intent published on A is handled before the publish returns; one published while
    A's worker handles an intent that came through Redis waits behind it."""
    async with two_nodes() as (a, b):
        heard: list[int] = []
        hold = asyncio.Event()

        async def table(message: dict[str, Any]) -> None:
            if message["n"] == 2:  # (came from node B: the worker holds it until told)
                await hold.wait()
            heard.append(message["n"])

        await a.bus.subscribe("table:t1", table)
        await a.bus.publish("table:t1", {"n": 1})
        at_once = list(heard)  # nothing waited: handled in the publish itself
        await b.bus.publish("table:t1", {"n": 2})
        await until(lambda: "table:t1" in a.bus._busy)
        await a.bus.publish("table:t1", {"n": 3})  # queued behind 2, not handled at once
        behind = list(heard)
        hold.set()
        await until(lambda: len(heard) >= 3)
        return at_once, behind, heard


def test_a_message_for_a_channel_here_is_handled_at_once_unless_an_earlier_one_is_still_handled() -> None:
    need_service(available(_redis_ping()), f"Redis is not reachable at {REDIS}")
    assert asyncio.run(_in_process_order()) == ([1], [1], [1, 2, 3])

async def _users_listed() -> list[set[str]]:
    here = {"u1": {"user": {"id": "u1", "name": "Anna"}, "lang": "en"}}
    asked: list[int] = []

    def users() -> dict[str, Any]:
        asked.append(1)
        return dict(here)

    seen: list[set[str]] = []
    async with scratch_redis() as (client, prefix):
        cluster = Cluster(client, prefix, "n1", "ws://127.0.0.1:1/ws", ttl=30, publisher=publisher_for(client))
        await cluster.heartbeat(users)  # the first beat writes the list
        seen.append(set(await cluster.online()))
        await cluster.arrive({"id": "u2", "name": "Boris"}, "ru")  # u2 comes; the list now holds more than `here`
        await cluster.heartbeat(users, rewrite=False)  # renewed, not rewritten
        seen.append(set(await cluster.online()))
        seen.append({str(len(asked))})
        await cluster.heartbeat(users, rewrite=True)  # written anew from who is here
        seen.append(set(await cluster.online()))
        await client.delete(prefix + "users:n1")  # expired (a late beat): the next beat writes it anew
        await cluster.heartbeat(users, rewrite=False)
        seen.append(set(await cluster.online()))
        await cluster.publisher.close()
    return seen


def test_a_node_s_users_are_written_anew_only_when_asked_or_lost() -> None:
    need_service(available(_redis_ping()), f"Redis is not reachable at {REDIS}")
    assert asyncio.run(_users_listed()) == [{"u1"}, {"u1", "u2"}, {"1"}, {"u1"}, {"u1"}]


async def _a_user_on_one_node_then_two() -> tuple[list[Any], list[Any], list[dict[str, Any]], list[bool]]:
    alone: list[bool] = []
    async with two_nodes() as (a, b):
        await a.bus.subscribe("user:u1", a.handler)
        alone.append(await a.bus.publish("user:u1", first := {"n": 1}) == 1 and "user:u1" in a.bus._alone)
        await b.bus.subscribe("user:u1", b.handler)  # u1 signs in on a second node too
        await until(lambda: "user:u1" not in a.bus._alone)  # node A has read node B's announcement
        alone.append("user:u1" in a.bus._alone or "user:u1" in b.bus._alone)
        await a.bus.publish_many([("user:u1", {"n": 2}), ("user:u1", {"n": 3})])
        await until(lambda: len(a.heard) >= 3 and len(b.heard) >= 2)
        await b.bus.unsubscribe("user:u1", b.handler)  # u1's connection on node B closes (they moved to A)
        await until(lambda: "user:u1" in a.bus._alone)  # node A has read node B's leaving and asked Redis
        alone.append("user:u1" in a.bus._alone)
        await a.bus.publish("user:u1", last := {"n": 4})
        await until(lambda: len(a.heard) >= 4)
        # The other way round, as a move to a table's node goes: u2 is on node B, then on A too, then leaves B.
        await b.bus.subscribe("user:u2", b.handler)
        await a.bus.subscribe("user:u2", a.handler)
        await until(lambda: "user:u2" not in b.bus._alone)  # node B has read node A's announcement
        alone.append("user:u2" in a.bus._alone or "user:u2" in b.bus._alone)
        await b.bus.unsubscribe("user:u2", b.handler)
        await until(lambda: "user:u2" in a.bus._alone)
        alone.append("user:u2" in a.bus._alone)
        return a.heard, b.heard, [first, last], alone


async def _online_elsewhere() -> list[bool]:
    async with scratch_redis() as (client, prefix):
        one = Cluster(client, prefix, "n1", "ws://127.0.0.1:1/ws", ttl=30, publisher=publisher_for(client))
        two = Cluster(client, prefix, "n2", "ws://127.0.0.1:2/ws", ttl=30, publisher=publisher_for(client))
        try:
            return await _arrivals_and_departures(client, prefix, one, two)
        finally:
            await one.publisher.close()
            await two.publisher.close()


async def _arrivals_and_departures(client: Any, prefix: str, one: Cluster, two: Cluster) -> list[bool]:
    anna = {"id": "u1", "name": "Anna"}
    await one.heartbeat(dict)
    answers = [await one.arrive(anna, "en")]  # nowhere else yet
    await two.heartbeat(dict)  # a node that n1 has not seen: asked in a second trip
    answers.append(await two.arrive(anna, "en"))
    answers.append(await one.arrive(anna, "en"))  # n1 learns of n2 (a second trip again)
    answers.append(await one.leave("u1"))  # still on n2 (n2 known to n1 now: asked in the first trip)
    answers.append(await two.leave("u1"))  # gone from n1 too
    await one.arrive(anna, "en")
    await client.hset(prefix + "nodes", "n1", pack({"url": "", "until": 0}))  # n1 died: its list counts no more
    answers.append(await two.arrive(anna, "en"))
    return answers


def test_whether_a_user_is_online_on_another_live_node() -> None:
    need_service(available(_redis_ping()), f"Redis is not reachable at {REDIS}")
    assert asyncio.run(_online_elsewhere()) == [False, True, True, True, False, False]


def test_a_user_on_this_node_alone_is_told_in_process_and_through_redis_while_on_two() -> None:
    need_service(available(_redis_ping()), f"Redis is not reachable at {REDIS}")
    at_a, at_b, in_process, alone = asyncio.run(_a_user_on_one_node_then_two())
    assert alone == [True, False, True, False, True]
    assert at_a[0] is in_process[0] and at_a[3] is in_process[1]  # in process: the very messages
    assert [m["n"] for m in at_a] == [1, 2, 3, 4] and [m["n"] for m in at_b] == [2, 3]  # no announcement among them


async def _listings_heard() -> list[Any]:
    """Node A lists a table and takes it off again; node B's lobby hears each change, and reads the list as it
    hears it."""
    async with two_nodes() as (a, b):
        cluster = Cluster(a.bus.redis, a.bus.prefix, "n1", "ws://127.0.0.1:1/ws", ttl=30, publisher=a.bus.publisher)
        seen: list[Any] = []

        async def lobby(message: dict[str, Any]) -> None:
            seen.append((message, sorted((await cluster.listings()).items())))

        await b.bus.subscribe("lobby", lobby)
        listing = {"entry": {"id": "t1", "name": "Anna's table"}, "people": ["u1"]}
        await cluster.list_table("t1", listing, {"kind": "listed", **listing})
        await until(lambda: len(seen) >= 1)
        await cluster.unlist_table("t1", {"kind": "unlisted", "id": "t1"})
        await until(lambda: len(seen) >= 2)
        return seen


def test_a_table_s_listing_is_in_the_list_when_the_lobby_hears_of_it() -> None:
    need_service(available(_redis_ping()), f"Redis is not reachable at {REDIS}")
    listing = {"entry": {"id": "t1", "name": "Anna's table"}, "people": ["u1"]}
    assert asyncio.run(_listings_heard()) == [({"kind": "listed", **listing}, [("t1", listing)]),
                                             ({"kind": "unlisted", "id": "t1"}, [])]


async def _listings_gathered() -> tuple[list[Any], list[Any], list[Any]]:
    """Node A lists a table, then changes two more while it waits to write again: node B's lobby hears the first
    at once, the other two in one message when the wait is over, and the list has them when it hears them."""
    async with two_nodes() as (a, b):
        waits: list[float] = []
        waited = asyncio.Event()

        async def sleep(seconds: float) -> None:
            waits.append(seconds)
            await waited.wait()

        now = [50.0]
        cluster = Cluster(a.bus.redis, a.bus.prefix, "n1", "ws://127.0.0.1:1/ws", ttl=30, publisher=a.bus.publisher,
                          listing_seconds=0.1, clock=lambda: now[0], sleep=sleep)
        seen: list[Any] = []
        marked = asyncio.Event()

        async def lobby(message: dict[str, Any]) -> None:
            if message.get("kind") == "marker":
                marked.set()
                return
            seen.append((message, sorted((await cluster.listings()).items())))

        await b.bus.subscribe("lobby", lobby)
        one, two = ({"entry": {"id": f"t{n}"}, "people": [f"u{n}"]} for n in (1, 2))
        await cluster.list_table("t1", one, {"kind": "listed", **one})
        await until(lambda: len(seen) >= 1)
        now[0] += 0.04
        await cluster.list_table("t2", two, {"kind": "listed", **two})
        await cluster.unlist_table("t1", {"kind": "unlisted", "id": "t1"})
        # A marker on the same connection: once B hears it, B has heard whatever A wrote before it.
        await a.bus.publisher.publish([(a.bus.prefix + "lobby", pack({"kind": "marker"}))])
        async with asyncio.timeout(5):
            await marked.wait()
        before = list(seen)
        waited.set()
        await until(lambda: len(seen) >= 2)
        return waits, before, seen


def test_a_node_s_listing_changes_are_gathered_and_written_together() -> None:
    need_service(available(_redis_ping()), f"Redis is not reachable at {REDIS}")
    waits, before, seen = asyncio.run(_listings_gathered())
    one, two = ({"entry": {"id": f"t{n}"}, "people": [f"u{n}"]} for n in (1, 2))
    assert waits == [pytest.approx(0.06)]  # what was left of the 0.1 s since the first write
    assert before == [({"kind": "listed", **one}, [("t1", one)])]  # the first at once, the others not yet
    assert seen[1] == ({"kind": "several", "news": [{"kind": "listed", **two}, {"kind": "unlisted", "id": "t1"}]},
                       [("t2", two)])


class UnreachableRedis:
    """A publisher whose Redis is gone."""

    async def publish(self, items: Any) -> int:
        raise ConnectionError("Redis is gone")

    async def run(self, commands: Any) -> list[Any]:
        raise ConnectionError("Redis is gone")

    async def close(self) -> None:
        return None


def test_a_listing_redis_refuses_fails_its_caller_when_written_at_once_and_is_logged_when_gathered(
        caplog: pytest.LogCaptureFixture) -> None:
    async def scenario() -> list[float]:
        waits: list[float] = []

        async def sleep(seconds: float) -> None:
            waits.append(seconds)

        cluster = Cluster(cast(Any, None), "p:", "n1", "ws://127.0.0.1:1/ws", ttl=30, publisher=UnreachableRedis(),
                          listing_seconds=0.1, clock=lambda: 10.0, sleep=sleep)
        listing = {"entry": {"id": "t1"}, "people": []}
        with pytest.raises(ConnectionError):
            await cluster.list_table("t1", listing, {"kind": "listed", **listing})  # at once: the caller hears
        await cluster.unlist_table("t1", {"kind": "unlisted", "id": "t1"})  # gathered: the writer logs
        assert cluster._writer is not None
        await cluster._writer
        await cluster.flush()  # (nothing left to write)
        return waits

    assert asyncio.run(scenario()) == [pytest.approx(0.1)]
    assert [r.getMessage() for r in caplog.records] == ["could not write the lobby's listings to Redis"]
