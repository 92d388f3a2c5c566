"""The full-speed clients of ``bench/load.py`` (the ``play`` and ``bots`` scenarios): guests that sign in, sit in
groups at tables and play a random legal action (never ``claim``) the moment their seat is to act, with no pause;
a table whose match ends is left and a new one started. ``measure`` lets them play and reads the servers' CPU
and memory meanwhile.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from loadgen.deployment import Server

Message = dict[str, Any]
# The protocol the clients speak (load.py's --protocol sets it): 2 stops the lobby's changes once a client is at
# its table, as the web and terminal clients do; 1 hears every batch of them all along (docs/protocol.md, "Lobby");
# 3 is 2 with a table step's messages in one batch frame, as the web and terminal clients speak it.
PROTOCOL = 3


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
        await self.request({"type": "login", "nickname": self.name, "protocol": PROTOCOL})

    async def at_table(self) -> None:
        """Seated: with protocol 2 the lobby's changes stop, as a client showing its table asks."""
        if PROTOCOL >= 2:
            await self.send({"type": "lobby", "follow": False})

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
            parsed = json.loads(frame)
            for message in parsed["messages"] if parsed["type"] == "batch" else (parsed,):
                self.on_message(message)

    def on_message(self, message: Message) -> None:
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
        await member.at_table()
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
