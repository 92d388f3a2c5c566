"""What a node's lobby listings cost to write to Redis and to hear, written one by one (``cluster_listing_seconds``
0, as until 2026-12-06) against gathered for 0.1 s (the room's default since the twenty-fifth session).

    .venv/bin/python bench/listings.py [--redis redis://127.0.0.1:6379/12] [--changes 600] [--rate 40] [--rounds 3]

One process holds two nodes' buses on a real Redis, both listening to the lobby's channel, as every node does. One
node's ``Cluster`` changes the listings of 300 tables (about 600 bytes each, as the evening's are) at ``rate``
changes a second, about what one of three nodes makes in the issue's evening (0.73 changes per action, some 70
actions a second per node). Printed per change: this process's CPU (``process_time``: the writing, and the reading
and unpacking by both nodes; Redis's own work is not counted), the writes Redis read (its ``total_reads_processed``,
which counts the other connections' reads as well, so run it on a quiet Redis), and how long the change took to be
heard. The two settings alternate for ``rounds`` rounds. Only loopback addresses are accepted.
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
import statistics
import sys
import time
from typing import Any
from urllib.parse import urlsplit

import redis.asyncio as redis
import uvloop

from trickroom.server.cluster import Cluster
from trickroom.server.redis_bus import RedisBus

TABLES = 300
ENTRY = {"name": "Anna's table", "game": "bura", "options": {"players": 3, "target": 11}, "seats": 3, "taken": 1,
         "bots": 0, "status": "waiting", "spectators": 0, "private": False, "password": False,
         "host": {"id": "u12345678", "name": "Anna", "guest": True}}


def listing(number: int, taken: int, sent: float) -> dict[str, Any]:
    return {"entry": {**ENTRY, "id": f"t{number}", "taken": taken, "sent": sent},
            "titles": {"en": "Bura, 3 players", "ru": "Бура, 3 игрока", "el": "Μπούρα, 3 παίκτες"},
            "texts": {"en": "Bura for 3, to 11 points.", "ru": "Бура на троих, до 11 очков.",
                      "el": "Μπούρα για 3, ως τους 11 πόντους."},
            "visible_to": None, "people": [f"u{number}{seat}" for seat in range(taken)]}


async def reads(client: redis.Redis) -> int:
    return int((await client.info("stats"))["total_reads_processed"])


async def one_round(url: str, seconds: float, changes: int, rate: float) -> tuple[float, float, float]:
    """CPU microseconds per change, Redis reads per change, and the median ms from a change to both nodes
    hearing it."""
    prefix = f"bench:{secrets.token_hex(4)}:"
    writer, other = RedisBus(redis.from_url(url), prefix), RedisBus(redis.from_url(url), prefix)
    cluster = Cluster(writer.redis, prefix, "n1", "ws://127.0.0.1:1/ws", ttl=30, publisher=writer.publisher,
                      listing_seconds=seconds)
    delays: list[float] = []
    heard = 0

    async def lobby(message: dict[str, Any]) -> None:
        nonlocal heard
        now = time.monotonic()
        for news in message["news"] if message["kind"] == "several" else [message]:
            delays.append(now - news["entry"]["sent"])
            heard += 1

    await writer.subscribe("lobby", lobby)
    await other.subscribe("lobby", lobby)
    await cluster.list_table("t0", listing(0, 0, time.monotonic()), {"kind": "listed", **listing(0, 0, 0.0)})
    await asyncio.sleep(0.5)
    heard, delays = 0, []
    reads_before, started = await reads(writer.redis), time.process_time()
    for n in range(changes):
        entry = listing(n % TABLES, n % 3, time.monotonic())
        await cluster.list_table(f"t{n % TABLES}", entry, {"kind": "listed", **entry})
        await asyncio.sleep(1 / rate)
    await cluster.close()
    await asyncio.sleep(0.5)  # (both nodes hear the last write)
    cpu = time.process_time() - started
    writes = await reads(writer.redis) - reads_before - 1  # (this INFO's own read)
    await writer.redis.delete(prefix + "listings")
    for bus in (writer, other):
        await bus.close()
    return cpu / changes * 1e6, writes / changes, statistics.median(delays) * 1000


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/12")
    parser.add_argument("--changes", type=int, default=600)
    parser.add_argument("--rate", type=float, default=40.0)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    if urlsplit(args.redis).hostname not in ("127.0.0.1", "localhost", "::1"):
        sys.exit("bench/listings.py only runs against a Redis on this machine")
    print(f"{args.changes} listing changes at {args.rate:g} a second, two nodes hearing them; per change:")
    for n in range(1, args.rounds + 1):
        for seconds in (0.0, 0.1):
            cpu, writes, delay = await one_round(args.redis, seconds, args.changes, args.rate)
            print(f"  round {n}, gathered for {seconds:.1f} s: {cpu:6.1f} us of CPU, {writes:.2f} writes to Redis, "
                  f"heard after a median {delay:.1f} ms")


if __name__ == "__main__":
    uvloop.run(main())
