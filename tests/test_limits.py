"""The guess limiter on a fake clock, in one process and in Redis (shared by the nodes of a room), and the
confusable keys of names."""

from __future__ import annotations

import asyncio
import os
import secrets
from collections.abc import Awaitable, Callable

import pytest
from conftest import need_service

from trickroom.server.limits import Counters, FakeClock, GuessLimiter, MemoryCounters, Policy, RedisCounters
from trickroom.server.names import NameIndex, name_keys, names_clash, skeleton, unicode_version
from trickroom.server.redis_publisher import publisher_for

REDIS = os.environ.get("TRICKROOM_TEST_REDIS", "redis://127.0.0.1:6379/9")
POLICY = Policy(free=3, base=1.0, cap=8.0, target_alarm=10, origin_free=6, global_alarm=40, global_wait=5.0)
WINDOW = 900.0


def limiter(counters: Counters, clock: FakeClock, policy: Policy = POLICY) -> GuessLimiter:
    return GuessLimiter("test", counters, policy, clock)


async def fail_until_refused(limit: GuessLimiter, target: str, source: str) -> list[float]:
    """Fail as soon as allowed, ten times; the waits asked for in between."""
    waits = []
    for _ in range(10):
        wait = await limit.retry_after(target, [source], origin=source)
        waits.append(wait)
        limit.clock.advance(wait)  # type: ignore[attr-defined]
        await limit.failed(target, [source], origin=source)
    return waits


def both(test: Callable[[Callable[[], Counters]], Awaitable[None]]) -> Callable[[str], None]:
    """Run ``test`` with in-process counters and with Redis counters (a fresh key prefix each time)."""

    def run(backend: str) -> None:
        async def go() -> None:
            if backend == "memory":
                await test(lambda: MemoryCounters(WINDOW))
                return
            import redis.asyncio as redis

            client = redis.from_url(REDIS)
            try:
                await client.ping()
            except Exception:
                await client.aclose()
                need_service(False, f"Redis is not reachable at {REDIS}")
            prefix = f"trickroom_test_{secrets.token_hex(4)}:"
            clients, publishers = [], []

            def counters() -> Counters:  # each call: another node's connection to the same Redis
                other = redis.from_url(REDIS)
                clients.append(other)
                publishers.append(publisher_for(other))
                return RedisCounters(other, prefix, WINDOW, publishers[-1])

            try:
                await test(counters)
            finally:
                keys = [k async for k in client.scan_iter(match=prefix + "*")]
                if keys:
                    await client.delete(*keys)
                for publisher in publishers:
                    await publisher.close()
                for other in clients:
                    await other.aclose()
                await client.aclose()

        asyncio.run(go())

    return pytest.mark.parametrize("backend", ["memory", pytest.param("redis", marks=pytest.mark.services)])(run)


@both
async def test_a_pair_backs_off_and_doubles_to_the_cap(counters: Callable[[], Counters]) -> None:
    limit = limiter(counters(), FakeClock())
    assert await fail_until_refused(limit, "anna", "203.0.113.1") == [0, 0, 0, 1, 2, 4, 8, 8, 8, 8]


@both
async def test_asking_early_extends_nothing_and_counts_are_forgotten(counters: Callable[[], Counters]) -> None:
    clock = FakeClock()
    limit = limiter(counters(), clock)
    for _ in range(3):
        await limit.failed("anna", ["a"], origin="a")
    assert await limit.retry_after("anna", ["a"], origin="a") == 1
    for _ in range(5):  # refused attempts are not failures
        assert await limit.retry_after("anna", ["a"], origin="a") == 1
    clock.advance(0.5)
    assert await limit.retry_after("anna", ["a"], origin="a") == 0.5
    clock.advance(WINDOW + 1)
    assert await limit.retry_after("anna", ["a"], origin="a") == 0
    await limit.failed("anna", ["a"], origin="a")
    assert await limit.retry_after("anna", ["a"], origin="a") == 0  # counting starts again from one


@both
async def test_others_failures_never_hold_back_someone_who_has_not_failed(counters: Callable[[], Counters]) -> None:
    clock = FakeClock()
    limit = limiter(counters(), clock)
    for i in range(30):  # the account is under attack from many addresses
        await limit.failed("anna", [f"bot{i}"], origin=f"bot{i}")
    assert await limit.retry_after("anna", ["owner"], origin="owner") == 0
    await limit.failed("anna", ["owner"], origin="owner")  # one typo: under attack, one free failure only
    assert await limit.retry_after("anna", ["owner"], origin="owner") == 1
    await limit.succeeded("anna", ["owner"])
    assert await limit.retry_after("anna", ["owner"], origin="owner") == 0


@both
async def test_an_address_spraying_many_targets_backs_off(counters: Callable[[], Counters]) -> None:
    limit = limiter(counters(), FakeClock())
    for i in range(6):
        assert await limit.retry_after(f"user{i}", ["spray"], origin="spray") == 0
        await limit.failed(f"user{i}", ["spray"], origin="spray")
    assert await limit.retry_after("user99", ["spray"], origin="spray") == 1
    assert await limit.retry_after("user99", ["clean"], origin="clean") == 0


@both
async def test_a_room_wide_flood_makes_every_failed_address_wait(counters: Callable[[], Counters]) -> None:
    clock = FakeClock()
    limit = limiter(counters(), clock)
    for i in range(40):
        await limit.failed(f"user{i}", [f"addr{i}"], origin=f"addr{i}")
    assert await limit.retry_after("someone", ["addr0"], origin="addr0") == 5
    assert await limit.retry_after("someone", ["fresh"], origin="fresh") == 0
    clock.advance(61)  # the flood is over a minute later
    assert await limit.retry_after("someone", ["addr0"], origin="addr0") == 0


@both
async def test_failures_count_on_every_node(counters: Callable[[], Counters]) -> None:
    clock = FakeClock()
    one, two = limiter(counters(), clock), limiter(counters(), clock)
    for node in (one, two, one):
        await node.failed("anna", ["a"], origin="a")
    expected = 1 if isinstance(one.counters, RedisCounters) else 0  # in-process counters are the node's own
    assert await two.retry_after("anna", ["a"], origin="a") == expected


def test_the_in_process_counters_are_bounded() -> None:
    async def go() -> None:
        counters = MemoryCounters(WINDOW, max_keys=50)
        limit = limiter(counters, FakeClock())
        for i in range(1000):
            await limit.failed(f"user{i}", [f"addr{i}"], origin=f"addr{i}")
        assert len(counters.counts) == 50
        assert len(counters.buckets) <= 7

    asyncio.run(go())


def test_names_that_look_alike_clash() -> None:
    assert unicode_version() == "15.0.0"
    clashes = [("\u0410nna", "Anna"), ("ANNA", "anna"), ("AIice", "Alice"), ("b0b", "bob"), ("\u0412oris", "Boris"),
               ("rn", "m"), ("Ira", "Ira"), ("Vera", "V\u0435ra"), ("paypal", "\u0440\u0430ypal")]
    for one, other in clashes:
        assert names_clash(one, other), (one, other)
    for one, other in [("mail", "mall"), ("Anna", "Anne"), ("Dasha", "Даша"), ("Ира", "Ика")]:
        assert not names_clash(one, other), (one, other)
    assert name_keys("Anna") == ("anna", "Anna")
    assert skeleton("\u0410") == "A" and skeleton("A") == "A"


def test_the_index_of_online_names_refuses_what_names_clash_refuses() -> None:
    held = ["Anna", "AIice", "b0b", "\u0412oris", "rn", "Vera", "mail", "Dasha", "Ира"]
    index = NameIndex()
    for name in held:
        index.add(name)
    tried = ["\u0410nna", "ANNA", "Alice", "bob", "Boris", "m", "V\u0435ra", "mall", "Anne", "Даша", "Ика", "Ira",
             "paypal", "dasha"]
    for name in tried:
        assert index.clashes(name) == any(names_clash(name, other) for other in held), name
    index.add("Anna")  # held twice (two nodes' copies): it stays held until both leave
    index.remove("Anna")
    assert index.clashes("anna")
    index.remove("Anna")
    assert not index.clashes("anna") and not index.keys.get("anna")
    assert index.clashes("AIice")
