"""``bench/load.py --scenario bots``: Bura tables of two ``hard`` bots each (a spectator host at each, who sees
every move) and people playing in pairs at full speed beside them; the bots' decision latency (from the update that
puts a bot to act to the bot's event, at the spectator) and the people's action-to-broadcast latency while the
bots think. ``options``: the Bura tables' options (``load.py --short-matches`` makes them one hand long).
"""

from __future__ import annotations

import asyncio
from typing import Any

from loadgen.deployment import Deployment
from loadgen.fullspeed import Stats, keep_playing, measure, open_clients, seat_groups, stop_playing
from loadgen.report import latency_line


async def bots_scenario(tables: int, humans: int, seconds: float, max_actions: int,
                        options: dict[str, Any]) -> None:
    deployment = Deployment("sqlite", 1, "", "")
    try:
        deployment.start()
        server = deployment.servers[0]
        stats = Stats()
        hosts = await open_clients([f"host{i}" for i in range(tables)], deployment.urls, stats, 1)
        for host in hosts:
            snapshot = await host.request({"type": "create", "game": "bura", "options": options,
                                           "name": f"bots {host.name}"})
            host.table = snapshot["table"]
            for seat in range(2):
                await host.request({"type": "bot_add", "table": host.table, "level": "hard", "seat": seat})
            await host.request({"type": "start", "table": host.table})
        people = await open_clients([f"human{i}" for i in range(humans)], deployment.urls, stats, 2)
        groups = [(people[i:i + 2], "bura", options) for i in range(0, len(people) - 1, 2)]
        await seat_groups(groups)
        stop = asyncio.Event()
        restarts = [asyncio.create_task(keep_playing(m, g, o, stop)) for m, g, o in groups]
        thinking0 = (server.metric("trickroom_bot_thinking_seconds_sum"),
                     server.metric("trickroom_bot_thinking_seconds_count"))
        elapsed, node_cpu, client_cpu = await measure([server], stats, seconds, max_actions)
        thinking = (server.metric("trickroom_bot_thinking_seconds_sum") - thinking0[0],
                    server.metric("trickroom_bot_thinking_seconds_count") - thinking0[1])
        await stop_playing(groups, restarts, stop)
        await asyncio.gather(*(c.close() for c in hosts + people), return_exceptions=True)
        print(f"\n{tables} Bura tables of two hard bots, {humans} people playing in pairs, {elapsed:.1f} s:")
        print("  " + latency_line("bot decision (update to the bot's event, at a spectator)", stats.bot_latencies))
        if thinking[1]:
            print(f"  bot thinking inside the server: {thinking[1]:.0f} decisions, "
                  f"mean {thinking[0] / thinking[1] * 1000:.0f} ms")
        print(f"  people's actions: {stats.actions} ({stats.actions / elapsed:.0f} per second)")
        print("  " + latency_line("people's action to broadcast", stats.latencies))
        print(f"  errors: {dict(stats.errors) or 'none'}; while seating: {dict(stats.setup_errors) or 'none'}")
        print(f"  server CPU {node_cpu[server.label] * 100:.0f}% of one core; load generator CPU "
              f"{client_cpu * 100:.0f}%; server memory {server.memory_mb():.0f} MB")
    finally:
        deployment.stop("bots")
