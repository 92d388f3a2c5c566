"""``bench/load.py --scenario idle``: what a connected, signed-in, idle client at the lobby costs the server in memory.

For each N of ``--clients``, on a fresh room (one node, SQLite): a few clients sign in and leave first (the first
sign-in's imports and caches belong to no client), the server's resident memory is read with nobody connected,
then N guests connect and sign in with the clients' protocol (2 by default), and stay in the lobby following its
changes, reading whatever the room sends. Once the lobby's last batch has gone out (``--settle`` seconds after the
last sign-in) the memory is read again: (with N - with none) / N is the figure, next to the issue's target of
50 KB. Then everyone leaves and the memory is read a third time (what the room gives back). Each connection is a
file on both sides: the generator raises its soft limit of open files to the hard one, which the server it starts
inherits, and refuses an N that does not fit.
"""

from __future__ import annotations

import asyncio
import json
import time
import urllib.request
from dataclasses import dataclass

from loadgen.deployment import Deployment, Phase, Server
from loadgen.fullspeed import Stats, open_clients
from loadgen.world import raise_file_limit

WARM_UP = 20  # clients that sign in and leave before the baseline is read
TARGET_KB = 50.0  # issue 15: under 50 KB per connected idle client


@dataclass
class IdleResult:
    clients: int
    none_mb: float  # resident memory with nobody connected (after the warm-up)
    idle_mb: float  # ... with the N clients connected, signed in and idle
    after_mb: float  # ... once they have all gone
    connections: int  # open websockets, as the server's /health counts them
    sign_in_seconds: float
    sign_in_cpu: str  # the server's and the generator's CPU while they signed in

    @property
    def per_client_kb(self) -> float:
        return (self.idle_mb - self.none_mb) * 1024 / self.clients


def connections(server: Server) -> int:
    with urllib.request.urlopen(f"http://127.0.0.1:{server.port}/health", timeout=10) as reply:
        return int(json.loads(reply.read())["connections"])


async def settle_until(server: Server, count: int, limit: float) -> None:
    """Wait until the server counts ``count`` connections (a closed one is counted off when its reader ends)."""
    deadline = time.monotonic() + limit
    while connections(server) != count and time.monotonic() < deadline:
        await asyncio.sleep(0.2)


async def idle_run(deployment: Deployment, n: int, settle: float) -> IdleResult:
    server = deployment.servers[0]
    stats = Stats()
    warm = await open_clients([f"warm{i}" for i in range(WARM_UP)], deployment.urls, stats, 0)
    await asyncio.gather(*(c.close() for c in warm), return_exceptions=True)
    await settle_until(server, 0, 30)
    await asyncio.sleep(settle)
    none_mb = server.memory_mb()
    start, phase = time.perf_counter(), Phase([server])
    clients = await open_clients([f"idle{i}" for i in range(n)], deployment.urls, stats, n)
    signed_in, cpu = time.perf_counter() - start, phase.shares()
    try:
        await asyncio.sleep(settle)  # the lobby's batches of these arrivals go out, the send queues empty
        idle_mb, open_now = server.memory_mb(), connections(server)
    finally:
        await asyncio.gather(*(c.close() for c in clients), return_exceptions=True)
    await settle_until(server, 0, 60)
    await asyncio.sleep(settle)
    return IdleResult(n, none_mb, idle_mb, server.memory_mb(), open_now, signed_in, cpu)


def main(counts: list[int], settle: float) -> int:
    limit = raise_file_limit()
    # The generator's end and the server's end of each connection are both on this machine, one file each, and
    # each process has its own limit; a margin for the server's database, logs and listening socket.
    too_many = [n for n in counts if n + 200 > limit]
    if too_many:
        raise SystemExit(f"--clients {too_many}: above the open-file limit ({limit}, raised to the hard limit)")
    print(f"open-file limit {limit} (soft raised to the hard limit); idle clients follow the lobby")
    for n in counts:
        deployment = Deployment("sqlite", 1, "", "")
        try:
            deployment.start()
            result = asyncio.run(asyncio.wait_for(idle_run(deployment, n, settle), 900))
        finally:
            deployment.stop(f"idle-{n}")
        verdict = "under" if result.per_client_kb < TARGET_KB else "over"
        print(f"\n{n} idle clients on {deployment.title} (connected and signed in in {result.sign_in_seconds:.1f} s, "
              f"{result.sign_in_cpu}; the server counted {result.connections} connections):")
        print(f"  server memory: {result.none_mb:.1f} MB with none, {result.idle_mb:.1f} MB with {n}, "
              f"{result.after_mb:.1f} MB after they left")
        print(f"  per connected idle client: {result.per_client_kb:.1f} KB ({verdict} the {TARGET_KB:.0f} KB target)")
    return 0
