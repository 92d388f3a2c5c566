"""The bus's pipelined connection: the RESP it writes and reads, checked as bytes; its connection, against a small
fake Redis on a local socket (what it was sent, its replies, an error, a connection it closes); and on a real
Redis, the same replies as redis-py's pipeline, which a TLS Redis keeps."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import redis.asyncio as redis
from conftest import need_service
from redis.exceptions import ResponseError
from test_cluster import REDIS, _redis_ping, available

from trickroom.server.redis_publisher import (
    PipelinedPublisher,
    PooledPublisher,
    Publisher,
    Replies,
    command,
    publisher_for,
)


def test_a_command_is_an_array_of_bulk_strings_counted_in_bytes() -> None:
    assert command(b"PUBLISH", "lobby:é".encode(), b'{"a":1}') == (
        b'*3\r\n$7\r\nPUBLISH\r\n$8\r\nlobby:\xc3\xa9\r\n$7\r\n{"a":1}\r\n')
    assert command(b"SELECT", b"9") == b"*2\r\n$6\r\nSELECT\r\n$1\r\n9\r\n"


def test_replies_are_read_in_any_chunks_and_an_error_is_returned_not_raised() -> None:
    stream = (b":2\r\n+OK\r\n-NOAUTH Authentication required.\r\n:0\r\n*4\r\n$2\r\nn1\r\n$5\r\n{\"a\"}\r\n"
              b"$-1\r\n:7\r\n")
    for cut in range(len(stream) + 1):  # (every split of the stream in two)
        replies = Replies()
        got = replies.feed(stream[:cut]) + replies.feed(stream[cut:])
        assert got[:2] == [2, b"OK"] and got[3:] == [0, [b"n1", b'{"a"}', None, 7]]
        assert isinstance(got[2], ResponseError) and str(got[2]) == "NOAUTH Authentication required."
    byte_by_byte = Replies()
    assert [reply for i in range(len(stream)) for reply in byte_by_byte.feed(stream[i:i + 1])][-1] == [
        b"n1", b'{"a"}', None, 7]


def test_a_stream_that_is_not_resp_is_refused() -> None:
    with pytest.raises(ConnectionError):
        Replies().feed(b"hello\r\n")


class FakeRedis:
    """Counts the commands of each connection and answers each PUBLISH ``:n`` (n: their number so far), an ``ECHO
    x`` the array ``[x, n]``, a ``FAIL`` (or the password ``wrong``) an error and the rest ``+OK``, except that it
    closes a connection, unanswered, at the command numbered ``hang_up_at``."""

    def __init__(self, hang_up_at: int | None = None) -> None:
        self.hang_up_at = hang_up_at
        self.connections = 0
        self.received: list[bytes] = []
        self.server: asyncio.Server | None = None
        self.handlers: list[asyncio.Task[None]] = []

    async def start(self) -> int:
        self.server = await asyncio.start_server(self.serve, "127.0.0.1", 0)
        port: int = self.server.sockets[0].getsockname()[1]
        return port

    async def stop(self) -> None:
        assert self.server is not None
        self.server.close()
        await self.server.wait_closed()
        async with asyncio.timeout(5):  # (each connection's handler has seen its end)
            await asyncio.gather(*self.handlers)

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self.handlers.append(task)
        self.connections += 1
        while True:
            header = await reader.readline()
            if not header:
                break
            parts = [await self._bulk(reader) for _ in range(int(header[1:]))]
            self.received.append(b" ".join(parts))
            if len(self.received) == self.hang_up_at:
                break
            if parts[0] == b"ECHO":
                writer.write(b"*2\r\n$%d\r\n%s\r\n:%d\r\n" % (len(parts[1]), parts[1], len(self.received)))
            elif parts[0] == b"FAIL" or parts[-1] == b"wrong":  # (an AUTH with the password "wrong" too)
                writer.write(b"-ERR told to\r\n")
            else:
                writer.write(b":%d\r\n" % len(self.received) if parts[0] == b"PUBLISH" else b"+OK\r\n")
        writer.close()
        await writer.wait_closed()

    @staticmethod
    async def _bulk(reader: asyncio.StreamReader) -> bytes:
        size = int((await reader.readline())[1:])
        return (await reader.readexactly(size + 2))[:-2]


def test_commands_go_out_in_order_and_each_caller_gets_its_own_reply() -> None:
    async def scenario() -> tuple[list[int], list[bytes]]:
        fake = FakeRedis()
        publisher = PipelinedPublisher(False, {"host": "127.0.0.1", "port": await fake.start()})
        counts = await asyncio.gather(publisher.publish([("a", b"1")]), publisher.publish([("b", b"2"), ("c", b"3")]),
                                      publisher.publish([("d", b"4")]))
        await publisher.close()
        await fake.stop()
        return list(counts), fake.received

    counts, received = asyncio.run(scenario())
    assert received == [b"PUBLISH a 1", b"PUBLISH b 2", b"PUBLISH c 3", b"PUBLISH d 4"]
    assert counts == [1, 3, 4]  # (the reply to the last command of each call)



def test_a_run_gets_every_reply_of_its_commands_and_an_error_among_them_is_raised() -> None:
    async def scenario() -> tuple[list[Any], list[Any], list[Any]]:
        fake = FakeRedis()
        publisher = PipelinedPublisher(False, {"host": "127.0.0.1", "port": await fake.start()})
        first, second = await asyncio.gather(publisher.run([(b"ECHO", b"a"), (b"PUBLISH", b"c", b"1")]),
                                             publisher.run([(b"HSET", b"k", b"f", b"v")]))
        with pytest.raises(ResponseError, match="told to"):
            await publisher.run([(b"FAIL",), (b"PUBLISH", b"c", b"2")])
        after = await publisher.run([(b"ECHO", b"b")])  # the connection goes on
        await publisher.close()
        await fake.stop()
        return first, second, after

    assert asyncio.run(scenario()) == ([[b"a", 1], 2], [b"OK"], [[b"b", 6]])

def test_the_greeting_logs_in_and_selects_the_database_before_anything_is_published() -> None:
    async def scenario() -> list[bytes]:
        fake = FakeRedis()
        settings = {"host": "127.0.0.1", "port": await fake.start(), "username": "room", "password": "s3cret", "db": 12}
        publisher = PipelinedPublisher(False, settings)
        await publisher.publish([("lobby", b"{}")])
        await publisher.close()
        await fake.stop()
        return fake.received

    assert asyncio.run(scenario()) == [b"AUTH room s3cret", b"SELECT 12", b"PUBLISH lobby {}"]



def test_a_greeting_refused_fails_the_publish_and_the_connection() -> None:
    async def scenario() -> list[bytes]:
        fake = FakeRedis()
        publisher = PipelinedPublisher(False, {"host": "127.0.0.1", "port": await fake.start(), "password": "wrong"})
        with pytest.raises(ResponseError, match="told to"):
            await publisher.publish([("lobby", b"{}")])
        await publisher.close()
        await fake.stop()
        return fake.received

    assert asyncio.run(scenario()) == [b"AUTH wrong"]  # nothing published

def test_a_lost_connection_fails_what_waits_on_it_and_the_next_publish_opens_another() -> None:
    async def scenario() -> tuple[int, int, int]:
        fake = FakeRedis(hang_up_at=2)
        publisher = PipelinedPublisher(False, {"host": "127.0.0.1", "port": await fake.start()})
        first = await publisher.publish([("a", b"1")])
        with pytest.raises(ConnectionError, match="lost"):
            await publisher.publish([("b", b"2")])
        third = await publisher.publish([("c", b"3")])
        await publisher.close()
        await fake.stop()
        return first, third, fake.connections

    first, third, connections = asyncio.run(scenario())
    assert (first, third, connections) == (1, 3, 2)


def test_closing_waits_for_the_replies_to_what_was_already_written() -> None:
    async def scenario() -> tuple[int, list[bytes]]:
        fake = FakeRedis()
        publisher = PipelinedPublisher(False, {"host": "127.0.0.1", "port": await fake.start()})
        await publisher.publish([("a", b"1")])  # (the connection is open)
        in_flight = asyncio.get_running_loop().create_task(publisher.publish([("b", b"2")]))
        await asyncio.sleep(0)  # (written, not yet answered)
        await publisher.close()
        count = await in_flight
        await fake.stop()
        return count, fake.received

    assert asyncio.run(scenario()) == (2, [b"PUBLISH a 1", b"PUBLISH b 2"])


def test_a_tls_redis_keeps_redis_py_s_pipeline_and_a_plain_one_gets_the_own_connection() -> None:
    assert isinstance(publisher_for(redis.from_url("rediss://127.0.0.1:6380/0")), PooledPublisher)
    assert isinstance(publisher_for(redis.from_url("redis://127.0.0.1:6379/3")), PipelinedPublisher)
    assert isinstance(publisher_for(redis.from_url("unix:///tmp/redis.sock?db=2")), PipelinedPublisher)


@pytest.mark.services
def test_both_publishers_count_the_same_listeners_on_a_real_redis() -> None:
    need_service(available(_redis_ping()), f"Redis is not reachable at {REDIS}")

    async def scenario() -> list[list[int]]:
        client = redis.from_url(REDIS)
        listener = client.pubsub()
        await listener.subscribe("trickroom-test-publisher:heard")
        counts = []
        publishers: list[Publisher] = [publisher_for(client), PooledPublisher(client)]
        for publisher in publishers:
            counts.append([await publisher.publish([("trickroom-test-publisher:heard", b"1")]),
                           await publisher.publish([("trickroom-test-publisher:heard", b"2"),
                                                    ("trickroom-test-publisher:nobody", b"3")]),
                           await publisher.publish([])])
            await publisher.close()
        heard = []
        for _ in range(50):  # (a subscription's confirmation reads as None)
            message = await listener.get_message(ignore_subscribe_messages=True, timeout=0.1)
            if message is not None:
                heard.append(message["data"])
            if len(heard) == 4:
                break
        await listener.aclose()  # type: ignore[no-untyped-call, unused-ignore]
        await client.aclose()
        assert heard == [b"1", b"2", b"1", b"2"]
        return counts

    assert asyncio.run(scenario()) == [[1, 0, 0], [1, 0, 0]]


@pytest.mark.services
def test_both_publishers_run_other_commands_with_the_same_replies_on_a_real_redis() -> None:
    need_service(available(_redis_ping()), f"Redis is not reachable at {REDIS}")
    key = b"trickroom-test-publisher:listings"

    async def scenario() -> list[list[Any]]:
        client = redis.from_url(REDIS)
        replies = []
        publishers: list[Publisher] = [publisher_for(client), PooledPublisher(client)]
        for publisher in publishers:
            replies.append([await publisher.run([(b"HSET", key, b"t1", b"1")]),  # a new field
                            await publisher.run([(b"HSET", key, b"t2", b"2"), (b"HSET", key, b"t1", b"3")]),
                            await publisher.run([(b"HGETALL", key), (b"HEXISTS", key, b"t2"),
                                                 (b"PUBSUB", b"NUMSUB", b"trickroom-test-publisher:nobody")]),
                            await publisher.run([(b"HDEL", key, b"t1"), (b"HDEL", key, b"t2")]),
                            await publisher.run([(b"HDEL", key, b"t1")])])
            await publisher.close()
        await client.aclose()
        return replies

    replies = [[1], [1, 0], [[b"t1", b"3", b"t2", b"2"], 1, [b"trickroom-test-publisher:nobody", 0]], [1, 1], [0]]
    assert asyncio.run(scenario()) == [replies, replies]
