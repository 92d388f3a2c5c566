"""The room under test for ``bench/load.py``: one ``trickroom serve`` (``Server``: a subprocess on a free port of
127.0.0.1, its CPU and memory read from /proc, its /metrics) and a whole deployment (``Deployment``: one node on a
fresh SQLite file, one node in a fresh PostgreSQL schema, or several nodes sharing that schema and a fresh Redis
key prefix), removed again at the end. Loopback addresses only.

The server's message rate limit is raised for the run, through its settings file: the full-speed clients are
meant to exceed it, and the limit is not what the benchmark measures.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

SERVER_SETTINGS = "messages_per_second=100000\nmessage_burst=100000\n"
# --profile: where each server writes cProfile's statistics when it stops (PATH.<label>); None: not profiled.
PROFILE: str | None = None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


TICKS = os.sysconf("SC_CLK_TCK")


def process_cpu_seconds(pid: int) -> float:
    """The CPU time (user and system) process ``pid`` has used so far, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime + stime


class Server:
    """One ``trickroom serve`` in a subprocess; CPU and memory read from /proc.

    ``database`` is its ``--db`` URL; ``settings`` are extra lines for its settings file (a PostgreSQL schema, a
    Redis prefix); ``args`` are extra flags (``--redis``, ``--node-id``). Call ``wait_ready`` before use, so that
    several nodes start side by side."""

    def __init__(self, workdir: Path, database: str, label: str = "server", settings: str = "",
                 args: tuple[str, ...] = ()) -> None:
        self.label = label
        self.clustered = "--node-id" in args  # one node of several
        self.port = free_port()
        config = workdir / f"{label}.env"
        config.write_text(SERVER_SETTINGS + settings, encoding="utf-8")
        profiled = ["-m", "cProfile", "-o", f"{PROFILE}.{label}"] if PROFILE else []
        command = [sys.executable, *profiled, "-m", "trickroom", "serve", "--host", "127.0.0.1",
                   "--port", str(self.port), "--db", database, "--config", str(config), "--log-level", "warning", *args]
        # The settings file decides: TRICKROOM_* variables of the caller's environment would override it.
        env = {key: value for key, value in os.environ.items() if not key.upper().startswith("TRICKROOM_")}
        self.log_path = workdir / f"{label}.log"
        self.log = open(self.log_path, "wb")  # noqa: SIM115  (closed in stop)
        self.process = subprocess.Popen(command, cwd=workdir, env=env, stdout=self.log, stderr=subprocess.STDOUT)

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
        return process_cpu_seconds(self.process.pid)

    def waited_seconds(self) -> float:
        """How long the server's main thread (its event loop) has waited for a core: /proc/PID/schedstat."""
        return int(Path(f"/proc/{self.process.pid}/schedstat").read_text().split()[1]) / 1e9

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
        # A node logs each table another node took from it while it ran (its heartbeat finds the lease gone):
        # an owner change during play. The take-overs after the benchmark stops a node are failovers, not these.
        taken = text.count("was taken over by another node")
        if self.clustered:
            print(f"  {self.label}: {taken} of its tables taken over by another node while it ran")


class Phase:
    """The servers' and this process's CPU over one phase of a run (signing in, seating), as shares of one core:
    a server near 100% is what limits the phase; well below, the round trips of the clients' requests do."""

    def __init__(self, servers: list[Server]) -> None:
        self.servers = servers
        self.cpu0 = sum(server.cpu_seconds() for server in servers)
        self.waited0 = sum(server.waited_seconds() for server in servers)
        self.own0, self.start = time.process_time(), time.perf_counter()

    def shares(self) -> str:
        """CPU shares, and how long the servers' event loops were ready to run but waited for a core (the
        machine's other work: a quiet machine shows about 0%)."""
        elapsed = max(1e-9, time.perf_counter() - self.start)
        server = (sum(s.cpu_seconds() for s in self.servers) - self.cpu0) / elapsed
        waited = (sum(s.waited_seconds() for s in self.servers) - self.waited0) / elapsed
        own = (time.process_time() - self.own0) / elapsed
        return f"server CPU {server * 100:.0f}%, waited for a core {waited * 100:.0f}%; load generator {own * 100:.0f}%"


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

    def __init__(self, kind: str, nodes: int, postgres: str, redis_url: str, settings: str = "") -> None:
        self.kind, self.count, self.postgres, self.redis_url = kind, nodes, postgres, redis_url
        self.settings = settings  # extra lines for every node's settings file
        token = secrets.token_hex(4)
        self.schema = f"trickroom_load_{token}"  # recognisable, should a SIGKILLed run leave one behind
        self.prefix = f"trickroom_load_{token}:"
        # The nodes' logs are kept after the run under its start time, so that a later run does not overwrite them.
        self.started = time.strftime("%Y%m%d-%H%M%S")
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
            self.servers.append(Server(workdir, f"sqlite:///{workdir / 'load.sqlite3'}", settings=self.settings))
        else:
            self.created_schema = True  # the nodes create it; stop drops it even if they fail half-way
            settings = f"db_schema={self.schema}\nredis_prefix={self.prefix}\n{self.settings}"
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
                server.stop(f"{label}-{self.started}-{server.label}")
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
