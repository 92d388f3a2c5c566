"""The room under load: many websocket clients playing random legal moves as fast as the server answers.

    .venv/bin/python bench/load.py [--clients 100,500,1000] [--seconds 30] [--scenario play|bots|both]

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
import contextlib
import json
import os
import random
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

ROOT = Path(__file__).resolve().parent.parent
Message = dict[str, Any]

BURA_OPTIONS = {"players": 2, "scoring": "points", "target": 21}
MPOURLOTO_OPTIONS = {"target": 10000}
# --short-matches: every match is about one hand, so tables finish, close and are replaced all through the run
# (the memory check: a room whose tables come and go must not grow).
SHORT_BURA_OPTIONS = {"players": 2, "scoring": "points", "hand_limit": 1}
SHORT_MPOURLOTO_OPTIONS = {"target": 100}
SERVER_SETTINGS = "messages_per_second=100000\nmessage_burst=100000\nlogin_attempts=100000\n"


# --- the server under test -------------------------------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class Server:
    """One ``trickroom serve`` in a subprocess; CPU and memory read from /proc.

    ``database`` is its ``--db`` URL; ``settings`` are extra lines for its settings file (a PostgreSQL schema, a
    Redis prefix); ``args`` are extra flags (``--redis``, ``--node-id``). Call ``wait_ready`` before use, so that
    several nodes start side by side."""

    def __init__(self, workdir: Path, database: str, label: str = "server", settings: str = "",
                 args: tuple[str, ...] = ()) -> None:
        self.label = label
        self.port = free_port()
        config = workdir / f"{label}.env"
        config.write_text(SERVER_SETTINGS + settings, encoding="utf-8")
        command = [sys.executable, "-m", "trickroom", "serve", "--host", "127.0.0.1", "--port", str(self.port),
                   "--db", database, "--config", str(config), "--log-level", "warning", *args]
        # The settings file decides: TRICKROOM_* variables of the caller's environment would override it.
        env = {key: value for key, value in os.environ.items() if not key.upper().startswith("TRICKROOM_")}
        self.log_path = workdir / f"{label}.log"
        self.log = open(self.log_path, "wb")  # noqa: SIM115  (closed in stop)
        self.process = subprocess.Popen(command, cwd=workdir, env=env, stdout=self.log, stderr=subprocess.STDOUT)
        self.ticks = os.sysconf("SC_CLK_TCK")

    def wait_ready(self, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/health", timeout=1):
                    return
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit(f"{self.label} did not start; see {self.log_path}") from None
                time.sleep(0.1)

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def cpu_seconds(self) -> float:
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / self.ticks  # utime + stime

    def memory_mb(self) -> float:
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return 0.0

    def metric(self, name: str) -> float:
        """A counter or histogram sum/count from /metrics (0 when absent)."""
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/metrics", timeout=5) as reply:
            text = reply.read().decode()
        total = 0.0
        for line in text.splitlines():
            if line.startswith(name + " ") or line.startswith(name + "{"):
                total += float(line.rsplit(" ", 1)[1])
        return total

    def stop(self, label: str) -> None:
        """Stop the server; keep its log beside the temporary directory and name the first error in it.
        SIGINT, not SIGTERM: a node of several would first hand its tables over to nodes that are stopping too."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()
        kept = Path(tempfile.gettempdir()) / f"trickroom-load-{label}.log"
        text = self.log_path.read_text(encoding="utf-8", errors="replace")
        kept.write_text(text, encoding="utf-8")
        problems = [line for line in text.splitlines() if line.startswith(("ERROR", "CRITICAL")) or "Error:" in line]
        if problems:
            print(f"  {self.label} log ({kept}): {len(problems)} error lines; first: {problems[0][:200]}")


def loopback_only(url: str) -> str:
    host = urllib.parse.urlsplit(url).hostname
    if host not in ("127.0.0.1", "localhost", "::1"):
        raise SystemExit(f"{url}: this benchmark only talks to loopback addresses")
    return url


class Deployment:
    """The room under test, started by ``start`` and removed by ``stop`` (call it in a ``finally``).

    ``sqlite``: one node on a fresh SQLite file. ``postgres``: one node alone (no Redis) in a fresh PostgreSQL
    schema. ``nodes`` > 1: that many nodes in a fresh schema, sharing a fresh Redis key prefix. ``stop`` stops
    the processes, drops the schema and deletes the prefix's Redis keys."""

    def __init__(self, kind: str, nodes: int, postgres: str, redis_url: str) -> None:
        self.kind, self.count, self.postgres, self.redis_url = kind, nodes, postgres, redis_url
        token = secrets.token_hex(4)
        self.schema = f"trickroom_load_{token}"  # recognisable, should a SIGKILLed run leave one behind
        self.prefix = f"trickroom_load_{token}:"
        self.servers: list[Server] = []
        self.workdir: tempfile.TemporaryDirectory[str] | None = None
        self.created_schema = False

    @property
    def title(self) -> str:
        if self.kind == "sqlite":
            return "one node, SQLite"
        if self.count == 1:
            return "one node, PostgreSQL"
        return f"{self.count} nodes, PostgreSQL + Redis"

    @property
    def urls(self) -> list[str]:
        return [server.url for server in self.servers]

    def start(self) -> None:
        self.workdir = tempfile.TemporaryDirectory(prefix="trickroom-load-")
        workdir = Path(self.workdir.name)
        if self.kind == "sqlite":
            self.servers.append(Server(workdir, f"sqlite:///{workdir / 'load.sqlite3'}"))
        else:
            self.created_schema = True  # the nodes create it; stop drops it even if they fail half-way
            settings = f"db_schema={self.schema}\nredis_prefix={self.prefix}\n"
            for number in range(1, self.count + 1):
                args = ("--redis", self.redis_url, "--node-id", f"n{number}") if self.count > 1 else ()
                self.servers.append(Server(workdir, self.postgres, f"n{number}", settings, args))
        for server in self.servers:
            server.wait_ready()

    def stop(self, label: str) -> None:
        """Everything ``start`` made goes, even after an error; a second Ctrl-C does not cut the cleanup short."""
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            for server in self.servers:
                server.stop(f"{label}-{server.label}")
            if self.created_schema:
                try:
                    asyncio.run(forget(self.postgres, self.schema, self.redis_url if self.count > 1 else None,
                                       self.prefix))
                except Exception as problem:  # say what is left behind, then go on
                    print(f"  cleanup failed ({problem!r}): drop schema {self.schema} and Redis keys "
                          f"{self.prefix}* by hand")
            if self.workdir is not None:
                self.workdir.cleanup()
        finally:
            signal.signal(signal.SIGINT, previous)


async def forget(postgres: str, schema: str, redis_url: str | None, prefix: str) -> None:
    import asyncpg
    import redis.asyncio as redis

    connection = await asyncpg.connect(postgres, timeout=10)
    try:
        await connection.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
    finally:
        await connection.close()
    if redis_url is not None:
        client = redis.from_url(redis_url)
        try:
            keys = [key async for key in client.scan_iter(match=f"{prefix}*", count=1000)]
            for start in range(0, len(keys), 1000):
                await client.delete(*keys[start:start + 1000])
        finally:
            await client.aclose()


# --- clients -----------------------------------------------------------------------------------------------------

@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)  # seconds, act -> first event of that action
    bot_latencies: list[float] = field(default_factory=list)
    actions: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    setup_errors: Counter[str] = field(default_factory=Counter)  # before the measured play (tables being seated)
    measuring: bool = False  # only count once every table is playing
    memory: list[float] = field(default_factory=list)  # server MB, each minute of play and at the end


class Client:
    """One guest: reads every message, keeps the latest update of its table, acts when its seat is to act."""

    def __init__(self, name: str, url: str, stats: Stats, rng: random.Random) -> None:
        self.name, self.url, self.stats, self.rng = name, url, stats, rng
        self.ws: ClientConnection | None = None
        self.replies: dict[int, asyncio.Future[Message]] = {}
        self.next_id = 0
        self.table: str | None = None
        self.seat: int | None = None
        self.playing = False  # act on updates
        self.in_flight: int | None = None  # id of our act not yet acknowledged
        self.sent_at = 0.0
        self.latency_open = False
        self.to_act: list[int] = []
        self.legal: list[str] = []
        self.finished: asyncio.Event = asyncio.Event()
        self.bot_turn_at: dict[int, float] = {}  # bot tables: when each bot seat was put to act
        self.reader: asyncio.Task[None] | None = None

    async def open(self) -> None:
        self.ws = await connect(self.url, max_size=2**22, open_timeout=60, ping_interval=None)
        hello = json.loads(await self.ws.recv())
        assert hello["type"] == "hello", hello
        self.reader = asyncio.create_task(self.read())
        await self.request({"type": "login", "nickname": self.name})

    async def request(self, message: Message) -> Message:
        """Send ``message`` with an id; the reply that carries it back. An ``internal`` error (the server could
        not write to its database) or no reply within 30 s is counted and the message sent again, up to 5 times
        (the setup messages are safe to repeat: sitting in your own seat again only sends a snapshot)."""
        assert self.ws is not None
        problem = "no reply"
        for _ in range(5):
            self.next_id += 1
            message["id"] = self.next_id
            future: asyncio.Future[Message] = asyncio.get_running_loop().create_future()
            self.replies[self.next_id] = future
            await self.ws.send(json.dumps(message))
            try:
                reply = await asyncio.wait_for(future, 30)
            except TimeoutError:
                self.stats.setup_errors[f"{message['type']}: no reply in 30 s"] += 1
                continue
            if reply["type"] != "error":
                return reply
            problem = f"{reply.get('code')} {reply.get('text')}"
            if reply.get("code") != "internal":
                break
            self.stats.setup_errors[f"{message['type']}: internal"] += 1
            await asyncio.sleep(1)
        raise RuntimeError(f"{self.name}: {message['type']} refused: {problem}")

    async def read(self) -> None:
        assert self.ws is not None
        async for frame in self.ws:
            message = json.loads(frame)
            kind = message["type"]
            re = message.get("re")
            if kind == "event":
                self.on_event(message)
            elif kind == "update":
                if message["table"] == self.table:
                    self.on_update(message)
            elif kind == "table_event" and message.get("kind") == "finished" and message["table"] == self.table:
                self.finished.set()
            if re is not None and re == self.in_flight and kind in ("ok", "error"):
                self.in_flight = None
                if kind == "error":
                    self.count_error(message)
                else:
                    if self.stats.measuring:
                        self.stats.actions += 1
                    if self.latency_open:  # no event named our seat (should not happen): take the ok's time
                        self.record_latency()
                self.maybe_act()
            elif kind == "error" and re is None:
                self.count_error(message)
            elif re is not None and re in self.replies:
                self.replies.pop(re).set_result(message)

    def count_error(self, message: Message) -> None:
        errors = self.stats.errors if self.stats.measuring else self.stats.setup_errors
        errors[str(message.get("code"))] += 1

    def record_latency(self) -> None:
        self.latency_open = False
        if self.stats.measuring:
            self.stats.latencies.append(time.perf_counter() - self.sent_at)

    def on_event(self, message: Message) -> None:
        if message.get("table") != self.table:
            return
        seat = message["event"].get("seat")
        if self.latency_open and seat == self.seat:
            self.record_latency()
        if seat in self.bot_turn_at and self.stats.measuring:
            self.stats.bot_latencies.append(time.perf_counter() - self.bot_turn_at.pop(seat))

    def on_update(self, message: Message) -> None:
        self.to_act = message["to_act"]
        self.legal = message["legal"]
        if self.seat is None:  # a spectator of a bot table: note when each bot is put to act
            now = time.perf_counter()
            for seat in self.to_act:
                self.bot_turn_at.setdefault(seat, now)
            return
        self.maybe_act()

    def maybe_act(self) -> None:
        if not self.playing or self.in_flight is not None or self.seat not in self.to_act:
            return
        choices = [a for a in self.legal if a != "claim"]
        if not choices or self.ws is None:
            return
        self.next_id += 1
        self.in_flight = self.next_id
        self.sent_at = time.perf_counter()
        self.latency_open = True
        message = {"type": "act", "table": self.table, "action": self.rng.choice(choices), "id": self.next_id}
        asyncio.get_running_loop().create_task(self.send(message))

    async def send(self, message: Message) -> None:
        assert self.ws is not None
        with contextlib.suppress(ConnectionClosed):  # the run is ending
            await self.ws.send(json.dumps(message))

    async def close(self) -> None:
        self.playing = False
        if self.ws is not None:
            await self.ws.close()
        if self.reader is not None:
            self.reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.reader


async def seat_group(members: list[Client], game: str, options: dict[str, Any], play: bool = False) -> None:
    """The first member creates a table, everyone sits, the host starts it; with ``play`` they begin at once."""
    host = members[0]
    snapshot = await host.request({"type": "create", "game": game, "options": options, "name": f"load {host.name}"})
    table = snapshot["table"]
    for seat, member in enumerate(members):
        member.table, member.seat, member.in_flight, member.latency_open = table, seat, None, False
        member.to_act, member.legal = [], []
        member.finished = asyncio.Event()
        await member.request({"type": "sit", "table": table, "seat": seat})
    for attempt in range(3):
        try:
            await host.request({"type": "start", "table": table})
            break
        except RuntimeError as refusal:
            # Seen on several nodes under load: a table taken over by another node between a `sit` and its
            # row being read back, so an acknowledged seat is empty again. Counted, then everyone sits again.
            if "not_ready" not in str(refusal) or attempt == 2:
                raise
            host.stats.setup_errors["start: not_ready after every sit was acknowledged"] += 1
            for seat, member in enumerate(members):
                await member.request({"type": "sit", "table": table, "seat": seat})
    if play:
        begin(members)


def begin(clients: list[Client]) -> None:
    for client in clients:
        client.playing = True
        client.maybe_act()


async def seat_groups(groups: list[tuple[list[Client], str, dict[str, Any]]]) -> None:
    """Seat every group (twenty tables at a time), then let everyone play at once."""
    for start in range(0, len(groups), 20):
        await asyncio.gather(*(seat_group(m, g, o) for m, g, o in groups[start:start + 20]))
    begin([member for members, _, _ in groups for member in members])


async def keep_playing(members: list[Client], game: str, options: dict[str, Any], stop: asyncio.Event) -> None:
    """Play table after table until ``stop``."""
    while not stop.is_set():
        await members[0].finished.wait()
        if stop.is_set():
            return
        for member in members:  # leave the finished table, as people do, so that the room may close it
            member.playing = False
            with contextlib.suppress(RuntimeError):
                await member.request({"type": "leave", "table": member.table})
        await seat_group(members, game, options, play=True)


async def stop_playing(groups: list[tuple[list[Client], str, dict[str, Any]]], restarts: list[asyncio.Task[None]],
                       stop: asyncio.Event) -> None:
    """End the run: no table is started again, and every ``keep_playing`` loop is woken and cancelled."""
    stop.set()
    for members, _, _ in groups:
        members[0].finished.set()
    for task in restarts:
        task.cancel()
    await asyncio.gather(*restarts, return_exceptions=True)


async def open_clients(names: list[str], urls: list[str], stats: Stats, seed: int) -> list[Client]:
    """Connect and sign in; client i goes to node i mod K, so the members of a table are spread over the nodes."""
    clients = [Client(name, urls[i % len(urls)], stats, random.Random(f"{seed}/{name}"))
               for i, name in enumerate(names)]
    for start in range(0, len(clients), 25):  # connect in batches: the listen backlog is finite
        await asyncio.gather(*(c.open() for c in clients[start:start + 25]))
    return clients


def groups_for(clients: list[Client]) -> list[tuple[list[Client], str, dict[str, Any]]]:
    """About half the clients in Mpourloto fours, the rest in Bura pairs."""
    fours = len(clients) // 2 // 4
    groups: list[tuple[list[Client], str, dict[str, Any]]] = [
        (clients[4 * i:4 * i + 4], "mpourloto", MPOURLOTO_OPTIONS) for i in range(fours)]
    rest = clients[4 * fours:]
    groups += [(rest[i:i + 2], "bura", BURA_OPTIONS) for i in range(0, len(rest) - 1, 2)]
    return groups


# --- reporting ---------------------------------------------------------------------------------------------------

def quantile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def latency_line(label: str, values: list[float]) -> str:
    return (f"{label}: p50 {quantile(values, 0.5) * 1000:.1f} ms, p99 {quantile(values, 0.99) * 1000:.1f} ms, "
            f"max {max(values, default=float('nan')) * 1000:.1f} ms ({len(values)} samples)")


@dataclass
class PlayResult:
    """One play run's figures, for the detailed report and for the side-by-side table."""

    title: str
    clients: int
    ready: float  # seconds to connect, sign in and seat everyone
    elapsed: float
    stats: Stats
    node_cpu: dict[str, float]  # node label -> mean share of one core during play
    node_memory: dict[str, tuple[float, float, float]]  # node label -> MB idle, when seated, at the end
    client_cpu: float
    failure: str = ""  # why the run stopped before its figures, if it did


async def measure(servers: list[Server], stats: Stats, seconds: float,
                  max_actions: int) -> tuple[float, dict[str, float], float]:
    """Let the clients play; return the elapsed time, each server's mean CPU share and the client's.
    The servers' total memory is sampled every minute into ``stats.memory``."""
    stats.measuring = True
    cpu0 = {server.label: server.cpu_seconds() for server in servers}
    own0, start = time.process_time(), time.perf_counter()
    next_sample = start
    while time.perf_counter() - start < seconds and stats.actions < max_actions:
        if time.perf_counter() >= next_sample:
            stats.memory.append(sum(server.memory_mb() for server in servers))
            next_sample += 60
        await asyncio.sleep(0.25)
    stats.memory.append(sum(server.memory_mb() for server in servers))
    stats.measuring = False
    elapsed = time.perf_counter() - start
    node_cpu = {server.label: (server.cpu_seconds() - cpu0[server.label]) / elapsed for server in servers}
    return elapsed, node_cpu, (time.process_time() - own0) / elapsed


async def play_scenario(deployment: Deployment, n: int, seconds: float, max_actions: int) -> PlayResult:
    """N clients, spread over the deployment's nodes round-robin (so partners are often on different nodes)."""
    servers = deployment.servers
    memory_idle = {server.label: server.memory_mb() for server in servers}
    stats = Stats()
    connect_start = time.perf_counter()
    clients = await open_clients([f"load{i}" for i in range(n)], deployment.urls, stats, n)
    try:
        groups = groups_for(clients)
        await seat_groups(groups)
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
    print(f"  {total}server CPU {sum(node_cpu.values()) * 100:.0f}% of one core; "
          f"load generator CPU {client_cpu * 100:.0f}%")
    print(f"  {total}server memory: {idle:.0f} MB idle, {seated:.0f} MB when all were seated, {end:.0f} MB at the end")
    if len(stats.memory) > 2:
        print(f"  server memory each minute of play (MB): {' '.join(f'{m:.0f}' for m in stats.memory)}")
    return result


def side_by_side(results: list[PlayResult]) -> None:
    """The runs at one N in one table, one column each."""
    def ms(values: list[float], q: float | None) -> str:
        value = max(values, default=float("nan")) if q is None else quantile(values, q)
        return f"{value * 1000:.0f} ms"

    rows: list[tuple[str, list[str]]] = [
        ("clients", [str(r.clients) for r in results]),
        ("seconds of play", [f"{r.elapsed:.1f}" for r in results]),
        ("actions per second", [f"{r.stats.actions / r.elapsed:.0f}" for r in results]),
        ("action to broadcast p50", [ms(r.stats.latencies, 0.5) for r in results]),
        ("action to broadcast p99", [ms(r.stats.latencies, 0.99) for r in results]),
        ("action to broadcast max", [ms(r.stats.latencies, None) for r in results]),
        ("errors during play", [str(sum(r.stats.errors.values())) for r in results]),
        ("errors while seating", [str(sum(r.stats.setup_errors.values())) for r in results]),
        ("seating time", [f"{r.ready:.0f} s" for r in results]),
        ("server CPU, all nodes", [f"{sum(r.node_cpu.values()) * 100:.0f}% of a core" for r in results]),
        ("server memory at the end", [f"{sum(m[2] for m in r.node_memory.values()):.0f} MB" for r in results]),
        ("load generator CPU", [f"{r.client_cpu * 100:.0f}% of a core" for r in results]),
    ]
    for index, result in enumerate(results):  # a failed run's column says so instead of showing figures
        if result.failure:
            for label, cells in rows[1:]:
                cells[index] = "failed" if label == "actions per second" else "-"
    titles = [r.title for r in results]
    widths = [max(len(title), *(len(row[1][i]) for row in rows)) for i, title in enumerate(titles)]
    label_width = max(len(label) for label, _ in rows)
    print("\n" + " " * label_width + "   " + "   ".join(t.rjust(w) for t, w in zip(titles, widths, strict=True)))
    for label, cells in rows:
        print(label.ljust(label_width) + "   " + "   ".join(c.rjust(w) for c, w in zip(cells, widths, strict=True)))


async def bots_scenario(tables: int, humans: int, seconds: float, max_actions: int) -> None:
    deployment = Deployment("sqlite", 1, "", "")
    try:
        deployment.start()
        server = deployment.servers[0]
        stats = Stats()
        hosts = await open_clients([f"host{i}" for i in range(tables)], deployment.urls, stats, 1)
        for host in hosts:
            snapshot = await host.request({"type": "create", "game": "bura", "options": BURA_OPTIONS,
                                           "name": f"bots {host.name}"})
            host.table = snapshot["table"]
            for seat in range(2):
                await host.request({"type": "bot_add", "table": host.table, "level": "hard", "seat": seat})
            await host.request({"type": "start", "table": host.table})
        people = await open_clients([f"human{i}" for i in range(humans)], deployment.urls, stats, 2)
        groups = [(people[i:i + 2], "bura", BURA_OPTIONS) for i in range(0, len(people) - 1, 2)]
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


def run_bounded(coroutine: Any, limit: float) -> Any:
    """``asyncio.run`` with a limit on the whole run (seating included): the benchmark always stops by itself."""
    async def bounded() -> Any:
        return await asyncio.wait_for(coroutine, limit)
    return asyncio.run(bounded())


def stop_on_sigterm(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt  # the same way out as Ctrl-C: every ``finally`` cleans up


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--clients", default="100,500,1000", help="client counts, comma-separated (100,500,1000)")
    parser.add_argument("--seconds", type=float, default=30.0, help="play time per run (default 30)")
    parser.add_argument("--max-actions", type=int, default=1_000_000, help="stop a run after this many actions")
    parser.add_argument("--scenario", choices=("play", "bots", "both"), default="both")
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
    parser.add_argument("--setup-limit", type=float, default=900,
                        help="seconds allowed for connecting and seating, beyond --seconds, before a run is "
                             "abandoned (default 900)")
    args = parser.parse_args(argv)
    if args.short_matches:
        global BURA_OPTIONS, MPOURLOTO_OPTIONS
        BURA_OPTIONS, MPOURLOTO_OPTIONS = SHORT_BURA_OPTIONS, SHORT_MPOURLOTO_OPTIONS
    counts = [int(part) for part in args.clients.split(",")]
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
        run_bounded(bots_scenario(args.bot_tables, args.humans, args.seconds, args.max_actions), limit)
    return 0


if __name__ == "__main__":
    try:
        raise SystemExit(main())
    except KeyboardInterrupt:
        print("\ninterrupted: the servers are stopped, the schema dropped and the Redis keys deleted", file=sys.stderr)
        raise SystemExit(130) from None
