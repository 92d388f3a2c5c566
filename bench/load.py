"""The room under load: many websocket clients playing random legal moves as fast as the server answers.

    .venv/bin/python bench/load.py [--clients 100,500,1000] [--seconds 30] [--scenario play|bots|both]
    .venv/bin/python bench/load.py --scenario evening --clients 1000,3000,10000 [--seconds 120] [--workers 1]
    .venv/bin/python bench/load.py --scenario idle --clients 1000,3000 [--settle 5]

The ``idle`` scenario (server memory per connected, signed-in client at the lobby) is ``bench/loadgen/idle.py``.

The ``evening`` scenario (people at human speed: think 1.5-8 s, lobby, chat, leaving, reconnecting) lives in
``bench/loadgen/evening.py`` and is described there and in docs/performance.md; what follows is the full-speed
scenarios. This file is the command line and the ``play`` scenario; the rest is in ``bench/loadgen/``: the room
under test (``deployment``), the full-speed clients (``fullspeed``), the ``bots`` scenario (``bots``) and the
report (``report``).

Each run starts its own ``trickroom serve`` on 127.0.0.1 (a free port) with a fresh SQLite file in a temporary
directory (or, with ``--nodes``, the nodes described below), and stops it at the end. Only loopback addresses are used.

``play`` scenario, for each N in ``--clients``: N clients sign in as guests, sit in pairs at Bura tables (points
to 21) and in fours at Mpourloto tables (to 10000), about half of the clients in each game, and play a random
legal action (never ``claim``) the moment their seat is to act, with no pause. A table whose match ends starts
a new one. After ``--seconds`` (or ``--max-actions`` actions) the clients stop by themselves. It prints:

- actions per second (actions the server acknowledged with ``ok``);
- action-to-broadcast latency: from sending ``act`` to receiving the first ``event`` of that action (the event
  names the actor's seat), p50 / p99 / max, over every action of the run;
- errors the server sent, by code, and client-side failures;
- the server's CPU (share of one core, mean over the run) and resident memory at the start and end of play.

``bots`` scenario: ``--bot-tables`` Bura tables of two ``hard`` bots each (a spectator host at each, who sees
every move) and ``--humans`` clients playing in pairs at full speed. It prints the bots' decision latency (from
the update that puts a bot to act to the bot's event, at the spectator) and the humans' action-to-broadcast
latency while the bots think.

``--nodes K`` (K > 1), play scenario: each N is played on one node alone (``--baseline``: PostgreSQL by default,
or SQLite, or none) and then on K nodes (``trickroom serve --redis ... --node-id nK`` on free ports of 127.0.0.1)
sharing PostgreSQL (``--postgres``) and Redis (``--redis``), in a fresh schema and under a fresh Redis key
prefix; client i connects to node i mod K, so the players of a table sit on different nodes. Each node's CPU and
memory and the totals are printed, then the runs side by side in one table. The nodes are stopped, the schema
dropped and the keys deleted at the end, on an error, on Ctrl-C and on SIGTERM (not on SIGKILL: then drop the
``trickroom_load_*`` schema and keys by hand). Only loopback addresses; at most 8 nodes and 5000 clients; a run
not seated within ``--setup-limit`` seconds is abandoned.

The server's message rate limit (20 per second per connection) is raised for the run, through a settings file:
clients that play with no pause are meant to exceed it, and the limit is not what this measures. The load
generator shares the machine's cores with the server; its own CPU time is printed too.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
import time
from collections import Counter
from typing import Any

from loadgen import deployment as room_under_test  # the package sits beside this script
from loadgen import evening, fullspeed, idle, person
from loadgen.bots import bots_scenario
from loadgen.deployment import Deployment, Phase, loopback_only
from loadgen.fullspeed import Client, Stats, keep_playing, measure, open_clients, seat_groups, stop_playing
from loadgen.report import PlayResult, latency_line, side_by_side
from loadgen.world import Plan

BURA_OPTIONS = {"players": 2, "scoring": "points", "target": 21}
MPOURLOTO_OPTIONS = {"target": 10000}
# --short-matches: every match is about one hand, so tables finish, close and are replaced all through the run
# (the memory check: a room whose tables come and go must not grow).
SHORT_BURA_OPTIONS = {"players": 2, "scoring": "points", "hand_limit": 1}
SHORT_MPOURLOTO_OPTIONS = {"target": 100}


def groups_for(clients: list[Client]) -> list[tuple[list[Client], str, dict[str, Any]]]:
    """About half the clients in Mpourloto fours, the rest in Bura pairs."""
    fours = len(clients) // 2 // 4
    groups: list[tuple[list[Client], str, dict[str, Any]]] = [
        (clients[4 * i:4 * i + 4], "mpourloto", MPOURLOTO_OPTIONS) for i in range(fours)]
    rest = clients[4 * fours:]
    groups += [(rest[i:i + 2], "bura", BURA_OPTIONS) for i in range(0, len(rest) - 1, 2)]
    return groups


async def play_scenario(deployment: Deployment, n: int, seconds: float, max_actions: int) -> PlayResult:
    """N clients, spread over the deployment's nodes round-robin (so partners are often on different nodes)."""
    servers = deployment.servers
    memory_idle = {server.label: server.memory_mb() for server in servers}
    stats = Stats()
    connect_start = time.perf_counter()
    phase = Phase(servers)
    clients = await open_clients([f"load{i}" for i in range(n)], deployment.urls, stats, n)
    signed_in, signing_cpu = time.perf_counter() - connect_start, phase.shares()
    try:
        groups = groups_for(clients)
        phase = Phase(servers)
        await seat_groups(groups)
        seating_cpu = phase.shares()
        ready = time.perf_counter() - connect_start
        stop = asyncio.Event()
        restarts = [asyncio.create_task(keep_playing(m, g, o, stop)) for m, g, o in groups]
        memory_start = {server.label: server.memory_mb() for server in servers}
        elapsed, node_cpu, client_cpu = await measure(servers, stats, seconds, max_actions)
        memory_end = {server.label: server.memory_mb() for server in servers}
        await stop_playing(groups, restarts, stop)
    finally:
        await asyncio.gather(*(c.close() for c in clients), return_exceptions=True)
    tables = Counter(game for _, game, _ in groups)
    memory = {label: (memory_idle[label], memory_start[label], memory_end[label]) for label in memory_idle}
    result = PlayResult(deployment.title, n, ready, elapsed, stats, node_cpu, memory, client_cpu)
    print(f"\n{n} clients on {deployment.title} ({tables['bura']} Bura tables, {tables['mpourloto']} Mpourloto "
          f"tables; connected, signed in and seated in {ready:.1f} s), {elapsed:.1f} s of play:")
    print(f"  connected and signed in in {signed_in:.1f} s ({signing_cpu}), then seated and started in "
          f"{ready - signed_in:.1f} s ({seating_cpu})")
    print(f"  actions: {stats.actions} ({stats.actions / elapsed:.0f} per second)")
    print("  " + latency_line("action to broadcast", stats.latencies))
    print(f"  errors: {dict(stats.errors) or 'none'}; while seating: {dict(stats.setup_errors) or 'none'}")
    if len(servers) > 1:
        for server in servers:
            idle, seated, end = memory[server.label]
            print(f"  node {server.label}: CPU {node_cpu[server.label] * 100:.0f}% of one core; memory "
                  f"{idle:.0f} MB idle, {seated:.0f} MB when all were seated, {end:.0f} MB at the end")
    idle, seated, end = (sum(m[k] for m in memory.values()) for k in range(3))
    total = "all nodes: " if len(servers) > 1 else ""
    per_action = sum(node_cpu.values()) * elapsed / stats.actions * 1e6 if stats.actions else float("nan")
    print(f"  {total}server CPU {sum(node_cpu.values()) * 100:.0f}% of one core, {per_action:.0f} us per action; "
          f"load generator CPU {client_cpu * 100:.0f}%")
    print(f"  {total}server memory: {idle:.0f} MB idle, {seated:.0f} MB when all were seated, {end:.0f} MB at the end")
    if len(stats.memory) > 2:
        print(f"  server memory each minute of play (MB): {' '.join(f'{m:.0f}' for m in stats.memory)}")
    return result


def run_bounded(coroutine: Any, limit: float) -> Any:
    """``asyncio.run`` with a limit on the whole run (seating included): the benchmark always stops by itself."""
    async def bounded() -> Any:
        return await asyncio.wait_for(coroutine, limit)
    return asyncio.run(bounded())


def stop_on_sigterm(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt  # the same way out as Ctrl-C: every ``finally`` cleans up


def evening_main(args: argparse.Namespace, counts: list[int]) -> int:
    if args.nodes > 1:
        loopback_only(args.postgres)
        loopback_only(args.redis)
    signal.signal(signal.SIGTERM, stop_on_sigterm)
    low, high = (float(part) for part in args.think.split(","))
    plan = Plan(think=(low, high), ramp=args.ramp, hands=args.hands)
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} cores; server and load generator on this machine")
    return evening.main(counts, args.seconds, plan, args.workers, args.nodes, args.baseline, args.postgres,
                        args.redis)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--clients", default="100,500,1000", help="client counts, comma-separated (100,500,1000)")
    parser.add_argument("--seconds", type=float, default=30.0, help="play time per run (default 30)")
    parser.add_argument("--max-actions", type=int, default=1_000_000, help="stop a run after this many actions")
    parser.add_argument("--scenario", choices=("play", "bots", "both", "evening", "idle"), default="both")
    parser.add_argument("--workers", type=int, default=1, help="evening: generator processes (1 to 4)")
    parser.add_argument("--ramp", type=float, default=60.0, help="evening: seconds over which people sign in (60)")
    parser.add_argument("--think", default="1.5,8", help="evening: seconds of thought before a decision (1.5,8)")
    parser.add_argument("--hands", type=int, default=1, help="evening: hands per match (1)")
    parser.add_argument("--settle", type=float, default=5.0,
                        help="idle: seconds to wait after the sign-ins (and after the leaving) before reading memory")
    parser.add_argument("--bot-tables", type=int, default=50, help="bots scenario: tables of two hard bots (50)")
    parser.add_argument("--humans", type=int, default=4, help="bots scenario: people playing in pairs (4)")
    parser.add_argument("--nodes", type=int, default=1,
                        help="play scenario: with K > 1, also run each N on K nodes sharing PostgreSQL and Redis, "
                             "clients spread over them round-robin, beside a one-node run (--baseline)")
    parser.add_argument("--baseline", choices=("postgres", "sqlite", "none"), default="postgres",
                        help="with --nodes K > 1: the one-node run to compare with: one node alone on PostgreSQL "
                             "(default: same database, no Redis), one node on SQLite, or none")
    parser.add_argument("--postgres", default="postgresql://postgres@127.0.0.1:5432/test",
                        help="with --nodes: the PostgreSQL database (a fresh schema is made in it and dropped)")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/12",
                        help="with --nodes: the Redis database (a fresh key prefix is used and its keys deleted)")
    parser.add_argument("--short-matches", action="store_true",
                        help="play scenario: one-hand matches (Bura hand limit 1, Mpourloto to 100), so that tables "
                             "finish and are replaced throughout; for the memory check")
    parser.add_argument("--protocol", type=int, choices=(1, 2, 3), default=3,
                        help="the protocol the clients speak: 3 (default) is 2 with a table step's messages in one "
                             "frame; 2 stops the lobby's changes once seated; 1 hears them all along")
    parser.add_argument("--lobby-tables", choices=("open", "all"), default="open",
                        help="evening: the tables people's lobbies list: open (default: the waiting ones and their "
                             "own, as the web and terminal clients ask) or all (as before the seventh session)")
    parser.add_argument("--lobby-people", choices=("auto", "all"), default="auto",
                        help="evening: the people their lobbies list: auto (default: everyone while the room has at "
                             "most the server's lobby_people_limit, their count above it, as the web and terminal "
                             "clients ask) or all (as before the eighth session)")
    parser.add_argument("--profile", metavar="PATH",
                        help="run each server under cProfile, its statistics written to PATH.<node> when it stops "
                             "(read them with python -m pstats); the figures are then the profiled server's")
    parser.add_argument("--server-setting", action="append", default=[], metavar="KEY=VALUE",
                        help="a line for every server's settings file (repeatable), e.g. line_lag_ms=0 "
                             "listen_sockets=1 for a node without the waiting line")
    parser.add_argument("--setup-limit", type=float, default=900,
                        help="seconds allowed for connecting and seating, beyond --seconds, before a run is "
                             "abandoned (default 900)")
    args = parser.parse_args(argv)
    fullspeed.PROTOCOL = person.PROTOCOL = args.protocol  # the clients' protocol: a setting of the whole run
    person.LOBBY_TABLES = args.lobby_tables
    person.LOBBY_PEOPLE = args.lobby_people
    room_under_test.PROFILE = args.profile  # cProfile for every server started from now on
    room_under_test.SERVER_SETTINGS += "".join(f"{line.strip()}\n" for line in args.server_setting)
    if args.short_matches:
        global BURA_OPTIONS, MPOURLOTO_OPTIONS
        BURA_OPTIONS, MPOURLOTO_OPTIONS = SHORT_BURA_OPTIONS, SHORT_MPOURLOTO_OPTIONS
    counts = [int(part) for part in args.clients.split(",")]
    if args.scenario == "evening":
        return evening_main(args, counts)
    if args.scenario == "idle":
        print(f"Python {sys.version.split()[0]}, {os.cpu_count()} cores; server and load generator on this machine")
        return idle.main(counts, args.settle)
    if not 1 <= args.nodes <= 8 or not all(1 <= n <= 5000 for n in counts):
        parser.error("--nodes is 1 to 8 and every --clients count 1 to 5000 (one machine, loopback only)")
    if args.nodes > 1:
        loopback_only(args.postgres)
        loopback_only(args.redis)
    signal.signal(signal.SIGTERM, stop_on_sigterm)
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} cores; server and load generator on this machine")
    limit = args.seconds + args.setup_limit
    if args.scenario in ("play", "both"):
        if args.nodes == 1:
            setups = [("sqlite", 1)]
        else:
            setups = ([] if args.baseline == "none" else [(args.baseline, 1)]) + [("postgres", args.nodes)]
        for n in counts:
            results = []
            for kind, nodes in setups:
                deployment = Deployment(kind, nodes, args.postgres, args.redis)
                try:
                    deployment.start()
                    results.append(run_bounded(play_scenario(deployment, n, args.seconds, args.max_actions), limit))
                except (RuntimeError, TimeoutError, OSError) as failure:  # report it, go on with the next run
                    print(f"\n{n} clients on {deployment.title}: the run failed: {failure!r}")
                    results.append(PlayResult(deployment.title, n, float("nan"), float("nan"), Stats(), {}, {},
                                              float("nan"), failure=repr(failure)))
                finally:
                    deployment.stop(f"play-{n}-{kind}-{nodes}")
            if len(results) > 1:
                side_by_side(results)
    if args.scenario in ("bots", "both"):
        run_bounded(bots_scenario(args.bot_tables, args.humans, args.seconds, args.max_actions,
                                  BURA_OPTIONS), limit)
    return 0


if __name__ == "__main__":
    try:
        raise SystemExit(main())
    except KeyboardInterrupt:
        print("\ninterrupted: the servers are stopped, the schema dropped and the Redis keys deleted", file=sys.stderr)
        raise SystemExit(130) from None
