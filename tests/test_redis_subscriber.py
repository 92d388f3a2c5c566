"""The bus's listening connection: what it hands on from a stream of replies (checked without a socket); on a real
Redis, the node's own subscriber and redis-py's (which a TLS Redis keeps) hear the same messages, stop hearing a
channel left, and the own one, its connection lost, opens another, subscribed to every channel again."""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Callable

import pytest
import redis.asyncio as redis
from conftest import need_service
from test_cluster import REDIS, _redis_ping, available
from test_redis_bus import until

from trickroom.server.redis_subscriber import (
    OwnSubscriber,
    PooledSubscriber,
    Subscriber,
    _Listening,
    subscriber_for,
)


class Ear:
    """What a subscriber handed on, and how often its connection was lost."""

    def __init__(self, refuse: bytes = b"") -> None:
        self.heard: list[tuple[bytes, bytes]] = []
        self.losses = 0
        self.refuse = refuse

    def on_message(self, channel: bytes, data: bytes) -> None:
        if data == self.refuse:
            raise ValueError("cannot read this one")
        self.heard.append((channel, data))

    def on_lost(self) -> None:
        self.losses += 1


def test_messages_are_handed_on_as_parsed_and_one_that_cannot_be_handled_does_not_stop_the_rest(
        caplog: pytest.LogCaptureFixture) -> None:
    async def scenario() -> tuple[Ear, bool]:
        ear = Ear(refuse=b"bad")
        subscriber = OwnSubscriber(False, {}, ear.on_message, ear.on_lost)
        link = _Listening(subscriber)
        confirmed = subscriber._confirming[b"a"] = asyncio.get_running_loop().create_future()
        stream = (b"*3\r\n$9\r\nsubscribe\r\n$1\r\na\r\n:1\r\n"
                  b"*3\r\n$7\r\nmessage\r\n$1\r\na\r\n$3\r\nbad\r\n"
                  b"*3\r\n$7\r\nmessage\r\n$1\r\na\r\n$5\r\nfirst\r\n*3\r\n$7\r\nmess")
        link.data_received(stream)
        link.data_received(b"age\r\n$1\r\nb\r\n$6\r\nsecond\r\n")
        return ear, confirmed.done() and not link.lost

    with caplog.at_level(logging.ERROR, logger="trickroom.bus"):
        ear, confirmed = asyncio.run(scenario())
    assert ear.heard == [(b"a", b"first"), (b"b", b"second")]
    assert confirmed
    assert "could not be handled" in caplog.text


def test_a_tls_redis_keeps_redis_py_s_subscriber_and_a_plain_one_gets_the_own_connection() -> None:
    ear = Ear()
    assert isinstance(subscriber_for(redis.from_url("rediss://127.0.0.1:6380/0"), ear.on_message, ear.on_lost),
                      PooledSubscriber)
    assert isinstance(subscriber_for(redis.from_url("redis://127.0.0.1:6379/3"), ear.on_message, ear.on_lost),
                      OwnSubscriber)


@pytest.mark.services
def test_both_subscribers_hear_what_is_published_until_they_leave_a_channel() -> None:
    need_service(available(_redis_ping()), f"Redis is not reachable at {REDIS}")

    async def hear(make: Callable[[redis.Redis, Ear], Subscriber]) -> tuple[list[int], list[tuple[bytes, bytes]]]:
        client, prefix = redis.from_url(REDIS), f"trickroom-test-subscriber-{secrets.token_hex(4)}:".encode()
        ear = Ear()
        subscriber = make(client, ear)
        await subscriber.subscribe(prefix + b"a")
        await subscriber.subscribe(prefix + b"b")
        counts = [await client.publish(prefix + b"a", b"1"), await client.publish(prefix + b"b", b"2"),
                  await client.publish(prefix + b"a", b"3")]
        await until(lambda: len(ear.heard) == 3)
        await subscriber.unsubscribe(prefix + b"a")
        for _ in range(100):  # (the unsubscription reaches Redis after its write)
            if (await client.pubsub_numsub(prefix + b"a"))[0][1] == 0:
                break
            await asyncio.sleep(0.01)
        counts += [await client.publish(prefix + b"a", b"4"), await client.publish(prefix + b"b", b"5")]
        await until(lambda: len(ear.heard) == 4)
        await subscriber.close()
        await client.aclose()
        return counts, [(channel[len(prefix):], data) for channel, data in ear.heard]

    own = asyncio.run(hear(lambda client, ear: subscriber_for(client, ear.on_message, ear.on_lost)))
    pooled = asyncio.run(hear(lambda client, ear: PooledSubscriber(client, ear.on_message, ear.on_lost)))
    expected = ([1, 1, 1, 0, 1], [(b"a", b"1"), (b"b", b"2"), (b"a", b"3"), (b"b", b"5")])
    assert own == expected
    assert pooled == expected


@pytest.mark.services
def test_a_lost_connection_is_opened_again_and_subscribed_again_to_every_channel() -> None:
    need_service(available(_redis_ping()), f"Redis is not reachable at {REDIS}")

    async def scenario() -> tuple[int, list[int], list[bytes]]:
        client, prefix = redis.from_url(REDIS), f"trickroom-test-subscriber-{secrets.token_hex(4)}:".encode()
        ear = Ear()
        subscriber = subscriber_for(client, ear.on_message, ear.on_lost)
        assert isinstance(subscriber, OwnSubscriber)
        await subscriber.subscribe(prefix + b"a")
        await subscriber.subscribe(prefix + b"b")
        link = subscriber._link
        assert link is not None and link.transport is not None
        link.transport.abort()  # (the connection drops)
        await until(lambda: subscriber._link is not None and subscriber._link is not link)
        await until(lambda: ear.losses == 1)
        counts = []
        for _ in range(200):  # (its subscriptions reach Redis after the new connection's write)
            counts = [await client.publish(prefix + b"a", b"again"), await client.publish(prefix + b"b", b"too")]
            if counts == [1, 1]:
                break
            await asyncio.sleep(0.01)
        await until(lambda: len(ear.heard) >= 2)
        await subscriber.close()
        await client.aclose()
        return ear.losses, counts, [data for _, data in ear.heard]

    losses, counts, heard = asyncio.run(scenario())
    assert losses == 1
    assert counts == [1, 1]
    assert heard[-2:] == [b"again", b"too"]
