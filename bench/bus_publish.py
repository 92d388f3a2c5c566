"""The CPU that the bus between nodes costs, per message: publishing through redis-py's pipeline (as the bus published
until 2026-12-06) against the bus's own pipelined connection (``trickroom/server/redis_publisher.py``), and reading
through redis-py's subscriber (until 2026-12-06, the twenty-fourth session) against the bus's own
(``trickroom/server/redis_subscriber.py``).

    .venv/bin/python bench/bus_publish.py [--redis redis://127.0.0.1:6379/12] [--messages 20000]

Each message is a typical table delivery (about 700 bytes of JSON) to a channel nobody listens to, published in
steps of one (an intent for a table on another node) and of three (a step's deliveries to three people on other
nodes), each step awaited as a table awaits it. For the reading, another process publishes the same message to a
channel the subscriber listens to, one at a time, each awaited (a node hears the others' deliveries one by one), and
the subscriber hands each to a function that counts it. The CPU is this process's (``process_time``), so a busy
machine changes it little; Redis's own work and the other process's are not counted. Only loopback addresses are
accepted.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from urllib.parse import urlsplit

import redis.asyncio as redis
import uvloop
from redis.utils import HIREDIS_AVAILABLE

from trickroom.server.redis_bus import pack
from trickroom.server.redis_publisher import PipelinedPublisher, PooledPublisher, Publisher, publisher_for
from trickroom.server.redis_subscriber import OwnSubscriber, PooledSubscriber, Subscriber, subscriber_for

MESSAGE = pack({"message": {"type": "table", "events": [{"text": "x" * 600}]}, "conn": None, "say": None})


async def cost(publisher: Publisher, messages: int, per_step: int) -> float:
    """Microseconds of CPU per message."""
    step = [(f"bench:nobody:{i}", MESSAGE) for i in range(per_step)]
    await publisher.publish(step)  # (the connection opened before the clock starts)
    started = time.process_time()
    for _ in range(messages // per_step):
        await publisher.publish(step)
    return (time.process_time() - started) / (messages // per_step * per_step) * 1e6


PUBLISH_ONE_BY_ONE = """
import sys, redis
client = redis.Redis.from_url(sys.argv[1])
for _ in range(int(sys.argv[3])):
    client.publish(sys.argv[2], %r)
"""


async def reading_cost(url: str, make: type[OwnSubscriber] | type[PooledSubscriber], messages: int) -> float:
    """Microseconds of this process's CPU per message heard by a subscriber of the kind ``make`` makes."""
    client, channel, done = redis.from_url(url), b"bench:heard", asyncio.Event()
    heard = 0

    def on_message(_channel: bytes, _data: bytes) -> None:
        nonlocal heard
        heard += 1
        if heard == messages:
            done.set()

    subscriber: Subscriber = (subscriber_for(client, on_message, lambda: None) if make is OwnSubscriber
                              else PooledSubscriber(client, on_message, lambda: None))
    assert isinstance(subscriber, make)
    await subscriber.subscribe(channel)
    started = time.process_time()
    publisher = await asyncio.create_subprocess_exec(sys.executable, "-c", PUBLISH_ONE_BY_ONE % MESSAGE, url,
                                                     channel.decode(), str(messages))
    await done.wait()
    spent = time.process_time() - started
    await publisher.wait()
    await subscriber.close()
    await client.aclose()
    return spent / messages * 1e6


async def main(url: str, messages: int) -> None:
    client = redis.from_url(url)
    pipelined = publisher_for(client)
    assert isinstance(pipelined, PipelinedPublisher), "a plain TCP Redis is needed"
    publishers: list[tuple[str, Publisher]] = [("redis-py pipeline", PooledPublisher(client)),
                                               ("own connection", pipelined)]
    print(f"{messages} messages of {len(MESSAGE)} bytes; hiredis {'on' if HIREDIS_AVAILABLE else 'off'}")
    for per_step in (1, 3):
        for name, publisher in publishers:
            print(f"  {per_step} per step, {name:18}: {await cost(publisher, messages, per_step):6.1f} us of CPU "
                  "per message")
    await pipelined.close()
    await client.aclose()
    for name, make in (("redis-py subscriber", PooledSubscriber), ("own subscriber", OwnSubscriber)):
        print(f"  read one by one, {name:19}: {await reading_cost(url, make, messages):6.1f} us of CPU per message")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/12")
    parser.add_argument("--messages", type=int, default=20000)
    args = parser.parse_args()
    if urlsplit(args.redis).hostname not in ("127.0.0.1", "localhost", "::1"):
        parser.error("only a Redis on this machine (127.0.0.1)")
    uvloop.run(main(args.redis, args.messages))
