"""``bench/load.py --scenario evening``: the room through an evening of people playing at human speed.

For each N of ``--clients``: a fresh room (one node on SQLite; with ``--nodes K``, also K nodes on PostgreSQL and
Redis, beside a one-node baseline), N people (``loadgen.person``) in ``--workers`` generator processes, signing
in over ``--ramp`` seconds and then playing ``--seconds`` more; the room's CPU and memory are read from /proc
for its own processes, apart from the generator's. Loopback addresses only; at most 12,000 people, 4 generator
processes and 900 s of play.
"""

from __future__ import annotations

import http.client
import multiprocessing
import os
import queue
import time
from dataclasses import dataclass, field
from pathlib import Path

from loadgen.deployment import Deployment, Server
from loadgen.person import MOVED
from loadgen.report import quantile
from loadgen.world import Plan, Stats, raise_file_limit, run_process

MAX_PEOPLE, MAX_WORKERS, MAX_SECONDS = 12_000, 4, 900
# Every person comes from 127.0.0.1: the room's per-address limits on failed logins would treat the whole evening
# as one guesser. They are lifted (a person's own limits stay); the message rate limit is lifted by
# loadgen.deployment.Server.
SETTINGS = "login_address_free=1000000\nlogin_room_alarm=1000000\n"


@dataclass
class Sample:
    cpu: float  # server CPU seconds, all nodes
    waited: float  # seconds the nodes' event-loop threads were ready to run but waited for a core
    memory: float  # server resident MB, all nodes
    actions: float  # trickroom_actions_total, all nodes (people's and bots' actions)
    connections: float  # trickroom_connections, all nodes (open websockets)
    at: float
    # trickroom_action_latency_seconds, all nodes: the server's own time for an action, from applying it to the end
    # of its broadcast, its database write included (not its wait for the table): how many took at most each bound
    steps: dict[float, float] = field(default_factory=dict)


STEP_BUCKET = "trickroom_action_latency_seconds_bucket"


# One kept-alive HTTP connection per node for /metrics. While thousands sign in, the kernel's queue of new
# connections overflows, and a new connection for each reading waited there longer than its timeout: the readings
# at the end of the sign-in came back empty at 10,000 people (no CPU per action, no memory per connection). A
# connection accepted at the start is already in; it is read every SAMPLE_EVERY seconds, within uvicorn's 5 s of
# keep-alive.
METRICS_CONNECTIONS: dict[int, http.client.HTTPConnection] = {}
SAMPLE_EVERY = 3.0


def metrics_text(server: Server) -> str:
    """/metrics over the node's kept-alive connection; once more on a new one if that one was closed."""
    try:
        return read_metrics(server)
    except (OSError, http.client.HTTPException):
        return read_metrics(server)


def read_metrics(server: Server) -> str:
    conn = METRICS_CONNECTIONS.get(server.port)
    if conn is None:
        conn = METRICS_CONNECTIONS[server.port] = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        conn.request("GET", "/metrics")
        with conn.getresponse() as reply:
            return reply.read().decode()
    except BaseException:  # the next reading opens a new connection
        conn.close()
        del METRICS_CONNECTIONS[server.port]
        raise


def from_metrics(server: Server) -> dict[str, float]:
    """The node's action counter, open connections and step-time histogram (``le=<bound>`` keys, cumulative)
    from /metrics; NaN when it does not answer."""
    found = {"trickroom_actions_total": float("nan"), "trickroom_connections": float("nan")}
    try:
        text = metrics_text(server)
    except (OSError, http.client.HTTPException):
        return found
    for line in text.splitlines():
        name = line.split(" ", 1)[0].split("{", 1)[0]
        if name in found:
            found[name] = float(line.rsplit(" ", 1)[1])
        elif name == STEP_BUCKET and 'le="' in line:
            bound = line.split('le="', 1)[1].split('"', 1)[0]
            found[f"le={bound}"] = float(line.rsplit(" ", 1)[1])
    return found


def step_quantile(before: Sample, after: Sample, q: float) -> str:
    """The bucket that holds the ``q`` quantile of the steps between two samples: "<= 25 ms" (or "> 2.5 s")."""
    counts = {bound: after.steps[bound] - before.steps.get(bound, 0.0) for bound in sorted(after.steps)}
    total = counts.get(float("inf"), 0.0)
    if total <= 0:
        return "no samples"
    for bound, count in counts.items():
        if count >= q * total:
            if bound == float("inf"):
                return f"> {max(b for b in counts if b != bound):g} s"
            return f"<= {bound * 1000:g} ms"
    return "no samples"


def run_queue_seconds(server: Server) -> float:
    """How long the node's main thread (its event loop) has waited for a core: /proc/PID/schedstat's second
    field. It shows how much the machine's other work held the room back."""
    fields = Path(f"/proc/{server.process.pid}/schedstat").read_text().split()
    return int(fields[1]) / 1e9


def sample(servers: list[Server]) -> Sample:
    """/proc first (at once), then /metrics (which a busy node may take seconds to answer)."""
    at = time.monotonic()
    cpu, waited = sum(s.cpu_seconds() for s in servers), sum(run_queue_seconds(s) for s in servers)
    memory = sum(s.memory_mb() for s in servers)
    metrics = [from_metrics(server) for server in servers]
    steps: dict[float, float] = {}
    for found in metrics:
        for key, value in found.items():
            if key.startswith("le="):
                bound = float(key[3:])  # "+Inf" reads as infinity
                steps[bound] = steps.get(bound, 0.0) + value
    return Sample(cpu, waited, memory, sum(m["trickroom_actions_total"] for m in metrics),
                  sum(m["trickroom_connections"] for m in metrics), at, steps)


@dataclass
class Evening:
    title: str
    people: int
    stats: Stats
    idle: Sample
    signed_in: Sample  # at the end of the ramp
    end: Sample
    peak_memory: float
    workers: int
    load: tuple[tuple[float, float, float], tuple[float, float, float]]
    node_cpu: dict[str, float]  # share of one core over the whole evening, per node
    listen_overflows: int | None  # the machine's, over the evening (None: not Linux)


def listen_overflows() -> int | None:
    """How many times, since boot, a listening socket's queue of connections waiting to be accepted was full
    (Linux's ``TcpExt ListenOverflows``; the machine's count, every process's). A full queue drops or resets new
    connections: at 10,000 people signing in over a minute it was why some never got in (docs/performance.md)."""
    try:
        with open("/proc/net/netstat", encoding="ascii") as netstat:
            lines = [line.split() for line in netstat if line.startswith("TcpExt:")]
        names, values = lines[0], lines[1]
        return int(values[names.index("ListenOverflows")])
    except (OSError, IndexError, ValueError):
        return None


def spend_evening(deployment: Deployment, people: int, plan: Plan, seconds: float, workers: int,
                  seed: str) -> Evening:
    servers = deployment.servers
    urls = deployment.urls
    load_before = os.getloadavg()
    overflows_before = listen_overflows()
    idle = sample(servers)
    cpu0 = {server.label: server.cpu_seconds() for server in servers}
    start_at = time.monotonic() + 1.0
    ramp_end = start_at + plan.ramp
    end_at = ramp_end + seconds
    everyone = [(f"ev{i}", urls[i % len(urls)]) for i in range(people)]  # person i on node i mod K
    context = multiprocessing.get_context("fork")
    results: multiprocessing.Queue[Stats] = context.Queue()
    # The people stay 20 s past ``end_at``, so that the room's last figures are taken with them online.
    processes = [context.Process(target=run_process, daemon=True,
                                 args=(everyone[w::workers], plan, f"{seed}/{w}", start_at, end_at + 20, results))
                 for w in range(workers)]
    for process in processes:
        process.start()
    signed_in: Sample | None = None
    peak = idle.memory
    try:
        while time.monotonic() < end_at:
            time.sleep(min(SAMPLE_EVERY, max(0.05, end_at - time.monotonic())))
            now = sample(servers)
            peak = max(peak, now.memory)
            if signed_in is None and now.at >= ramp_end:
                signed_in = now
            if now.at < end_at and not any(process.is_alive() for process in processes):
                codes = [process.exitcode for process in processes]
                raise RuntimeError(f"every generator process ended before the evening did (exit codes {codes})")
        end = sample(servers)
        node_cpu = {s.label: (s.cpu_seconds() - cpu0[s.label]) / (end.at - idle.at) for s in servers}
        stats = Stats()
        for _ in processes:
            stats.merge(results.get(timeout=120))
    except queue.Empty:
        raise RuntimeError("a generator process gave no figures within 120 s of the end") from None
    finally:
        for process in processes:
            process.join(timeout=10)
            if process.is_alive():
                process.kill()
    overflows_after = listen_overflows()
    overflows = None if overflows_before is None or overflows_after is None else overflows_after - overflows_before
    return Evening(deployment.title, people, stats, idle, signed_in or end, end, peak, workers,
                   (load_before, os.getloadavg()), node_cpu, overflows)


def ms(values: list[float]) -> str:
    if not values:
        return "no samples"
    return (f"p50 {quantile(values, 0.5) * 1000:.0f} ms, p99 {quantile(values, 0.99) * 1000:.0f} ms, "
            f"max {max(values) * 1000:.0f} ms ({len(values)} samples)")


def report(evening: Evening, plan: Plan, seconds: float) -> None:
    stats, counts = evening.stats, evening.stats.counts
    whole = evening.end.at - evening.idle.at
    play = evening.end.at - evening.signed_in.at
    print(f"\n{evening.people} people on {evening.title}, signed in over {plan.ramp:.0f} s, then {seconds:.0f} s "
          f"(load average {' '.join(f'{x:.1f}' for x in evening.load[0])} before, "
          f"{' '.join(f'{x:.1f}' for x in evening.load[1])} after):")
    print(f"  people: {stats.players} playing ({stats.seated} sat down, {stats.acted} acted), "
          f"{stats.people - stats.players} only watching the lobby; signed in {counts['signed in']}, "
          f"logged in again {counts['logged in again']} ({counts['drops']} dropped on purpose); "
          f"{MOVED} {counts[MOVED]}")
    print(f"  people's actions: {counts['actions']} ({counts['actions'] / whole:.1f} per second over the evening); "
          f"all actions (bots too): {evening.end.actions - evening.idle.actions:.0f}; matches finished "
          f"(per player) {counts['matches finished (per player)']}; chats {counts['table chats']} at tables, "
          f"{counts['lobby chats']} in the lobby")
    print(f"  action to broadcast: {ms(stats.latencies)}; of the acts after the sign-in: {ms(stats.late_latencies)}")
    late = (evening.signed_in, evening.end)
    print("  the server's own step after the sign-in (every action, bots' too: apply to the end of the broadcast, "
          f"the write included, not the wait for the table; its histogram): p50 {step_quantile(*late, 0.5)}, "
          f"p99 {step_quantile(*late, 0.99)}")
    print(f"  lobby update (create sent -> a lobby watcher hears the table listed): {ms(stats.lobby_latencies)}")
    print(f"  time to sit down (create or watch sent -> sit answered): {ms(stats.sit_times)}")
    print(f"  reconnect (dropped -> resume answered, 2-8 s offline included): {ms(stats.reconnect_times)}")
    if counts["waited in line"]:
        print(f"  waited in line to sign in: {counts['waited in line']} times, still in line at the end "
              f"{counts['still in line at the end']}; time in line {ms(stats.line_waits)}")
    overtaken = counts["acts overtaken by another seat's move"]
    print(f"  errors the server sent, and requests unanswered: {dict(stats.errors) or 'none'}"
          + (f" ({overtaken} of them acts that another seat's move overtook)" if overtaken else ""))
    print(f"  connections failed or closed by the server: {dict(stats.failures) or 'none'}")
    if evening.listen_overflows is not None:
        print(f"  the kernel's queue of connections waiting to be accepted was full {evening.listen_overflows} "
              "times (the machine's count: a full queue drops or resets new connections)")
    print(f"  lobby messages: {counts['lobby frames']} received ({counts['lobby bytes'] / 1e6:.0f} MB), "
          f"{counts['lobby frames'] / max(1, evening.people) / whole:.1f} per person per second; "
          f"all messages {counts['frames']}")
    by_kind = sorted(((n, key.removeprefix("lobby bytes: ")) for key, n in counts.items()
                      if key.startswith("lobby bytes: ")), reverse=True)
    print("  lobby bytes by message type: " + ", ".join(f"{kind} {n / 1e6:.0f} MB" for n, kind in by_kind))
    during_play = (evening.end.cpu - evening.signed_in.cpu) / play if play > 0 else float("nan")
    ramp = (evening.signed_in.cpu - evening.idle.cpu) / max(1e-9, evening.signed_in.at - evening.idle.at)
    play_actions = evening.end.actions - evening.signed_in.actions
    per_action = (evening.end.cpu - evening.signed_in.cpu) / play_actions * 1000 if play_actions else float("nan")
    nodes = "" if len(evening.node_cpu) < 2 else " (" + ", ".join(
        f"{label} {share * 100:.0f}%" for label, share in evening.node_cpu.items()) + ")"
    waited = (evening.end.waited - evening.idle.waited) / whole / len(evening.node_cpu)
    print(f"  server CPU: {(evening.end.cpu - evening.idle.cpu) / whole * 100:.0f}% of one core over the evening"
          f"{nodes}; {ramp * 100:.0f}% while signing in, {during_play * 100:.0f}% after; "
          f"{per_action:.2f} ms per action after the sign-in ({play_actions:.0f} actions, bots' included); "
          f"its event loop waited for a core {waited * 100:.0f}% of the time"
          f"{' (mean over the nodes)' if len(evening.node_cpu) > 1 else ''}")
    connected = evening.signed_in.connections
    per_person = (evening.signed_in.memory - evening.idle.memory) * 1024 / connected if connected else float("nan")
    print(f"  server memory: {evening.idle.memory:.0f} MB idle, {evening.signed_in.memory:.0f} MB at the end of the "
          f"sign-in ({connected:.0f} connections open), {evening.end.memory:.0f} MB at the end, peak "
          f"{evening.peak_memory:.0f} MB: {per_person:.0f} KB per connection (with the tables and lobby state)")
    print(f"  load generator: {evening.workers} process(es), CPU {stats.cpu_seconds / whole * 100:.0f}% of one core "
          f"in all; its event loops late by {ms(stats.loop_lag)}")


def summary(evenings: list[Evening]) -> None:
    """One line per evening, for the docs."""
    print("\npeople  setup                          act p50/p99/max ms   lobby p99 ms   sit p99 ms  errors  "
          "server CPU  KB/person")
    for e in evenings:
        lat = e.stats.latencies
        whole = e.end.at - e.idle.at
        print(f"{e.people:>6}  {e.title:<30} {quantile(lat, .5) * 1000:>5.0f}/{quantile(lat, .99) * 1000:>5.0f}/"
              f"{max(lat, default=float('nan')) * 1000:>6.0f}  {quantile(e.stats.lobby_latencies, .99) * 1000:>12.0f}"
              f"  {quantile(e.stats.sit_times, .99) * 1000:>10.0f}  {sum(e.stats.errors.values()):>6}  "
              f"{(e.end.cpu - e.idle.cpu) / whole * 100:>9.0f}%  "
              f"{(e.signed_in.memory - e.idle.memory) * 1024 / max(1.0, e.signed_in.connections):>9.0f}")


def main(counts: list[int], seconds: float, plan: Plan, workers: int, nodes: int, baseline: str, postgres: str,
         redis_url: str) -> int:
    if not all(1 <= n <= MAX_PEOPLE for n in counts) or not 1 <= workers <= MAX_WORKERS or seconds > MAX_SECONDS:
        raise SystemExit(f"evening: 1 to {MAX_PEOPLE} people, 1 to {MAX_WORKERS} workers, at most {MAX_SECONDS} s")
    limit = raise_file_limit()  # the server processes inherit it
    if max(counts) + 100 > limit:
        raise SystemExit(f"evening: the open-file limit is {limit}; {max(counts)} people need more (ulimit -Hn)")
    setups = [("sqlite", 1)] if nodes == 1 else ([] if baseline == "none" else [(baseline, 1)]) + [("postgres", nodes)]
    evenings: list[Evening] = []
    for n in counts:
        for kind, count in setups:
            deployment = Deployment(kind, count, postgres, redis_url, SETTINGS)
            try:
                deployment.start()
                evening = spend_evening(deployment, n, plan, seconds, workers, f"evening/{n}")
                report(evening, plan, seconds)
                evenings.append(evening)
            except (RuntimeError, OSError) as failure:
                print(f"\n{n} people on {deployment.title}: the evening failed: {failure!r}")
            finally:
                deployment.stop(f"evening-{n}-{kind}-{count}")
    if len(evenings) > 1:
        summary(evenings)
    return 0
