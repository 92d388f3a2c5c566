"""The lobby's fan-out in one process, no sockets: N followers (protocol 2, a third each in en, ru and el) hear a
batch of 3 listing changes and 2 people coming in; then a lobby of N/3 tables and N people online gives snapshots
to people coming back from their tables, as the room did before (each snapshot made and encoded whole) and as it
does now (a frame joined from entries encoded once per listing and language). Prints the CPU each takes
(``time.process_time``, so the machine's other work does not count).
``nice -n 5 .venv/bin/python bench/fanout.py [N]`` (docs/performance.md)."""

from __future__ import annotations

import asyncio
import sys
import time
from dataclasses import dataclass, field
from typing import Any, cast

from trickroom.server.bus import LocalBus
from trickroom.server.connection import Connection
from trickroom.server.lobby import Lobby
from trickroom.server.protocol import user_summary
from trickroom.server.room import Room
from trickroom.server.settings import Settings


@dataclass
class LobbyRoom:
    """What the lobby reads of its room."""

    settings: Settings = field(default_factory=lambda: Settings(lobby_batch_seconds=1000))
    bus: LocalBus = field(default_factory=LocalBus)
    connections: dict[str, Connection] = field(default_factory=dict)
    tables: dict[str, Any] = field(default_factory=dict)
    by_user: dict[str, Any] = field(default_factory=dict)
    cluster: None = None


def listing(table_id: str, taken: int) -> dict[str, Any]:
    entry = {"id": table_id, "name": "Den", "game": "bura", "options": {}, "seats": 4, "taken": taken, "bots": 0,
             "status": "waiting", "spectators": 0, "private": False, "password": False,
             "host": user_summary("u1", "Anna", False)}
    return {"kind": "listed", "entry": entry, "titles": {"en": "Bura", "ru": "Бура", "el": "Μπούρα"},
            "texts": {"en": "Bura for 4.", "ru": "Бура на четверых.", "el": "Μπούρα για 4."},
            "visible_to": None, "people": []}


async def batch_cost(followers: int, rounds: int = 40) -> float:
    room = LobbyRoom()
    lobby = Lobby(cast(Room, room), clock=lambda: 0.0)
    for n in range(followers):
        conn = Connection(id=f"n/g{n}", user=user_summary(f"g{n}", f"Guest{n}", True), protocol=2)
        conn.preferences["lang"] = ("en", "ru", "el")[n % 3]
        room.connections[conn.id] = conn
    spent = 0.0
    for r in range(rounds):
        for t in range(3):
            await lobby.on_lobby(listing(f"t{t}", r % 4))  # (gathered: flushed below, by hand)
        for p in range(2):
            await lobby.on_lobby({"kind": "presence", "user": user_summary(f"x{r}.{p}", f"New{r}.{p}", True),
                                  "online": True})
        start = time.process_time()
        lobby.flush()
        spent += time.process_time() - start
        for conn in room.connections.values():
            while not conn.queue.empty():
                conn.queue.get_nowait()
    lobby.stop()
    return spent / rounds


async def snapshot_costs(people: int, per_batch: int = 20, batches: int = 10) -> tuple[float, float]:
    """CPU per snapshot, whole and from parts: ``per_batch`` people come back to the lobby between two changes of
    a table (at 3000 people about 40 a second came back, while tables changed about as often)."""
    room = LobbyRoom(settings=Settings(lobby_batch_seconds=0))
    lobby = Lobby(cast(Room, room), clock=lambda: 0.0)
    for t in range(people // 3):
        await lobby.on_lobby(listing(f"t{t}", t % 4))
    for n in range(people):
        await lobby.on_lobby({"kind": "presence", "user": user_summary(f"g{n}", f"Guest{n}", True), "online": True})
    readers = [Connection(id=f"n/g{n}", user=user_summary(f"g{n}", f"Guest{n}", True), protocol=2)
               for n in range(per_batch)]
    whole = parts = 0.0
    for b in range(batches):
        await lobby.on_lobby(listing(f"t{b}", (b + 1) % 4))  # a new listing: its entry is encoded again
        start = time.process_time()
        for conn in readers:
            conn.send(lobby.snapshot(conn))
        whole += time.process_time() - start
        start = time.process_time()
        for conn in readers:
            lobby.send_snapshot(conn)
        parts += time.process_time() - start
        for conn in readers:
            while not conn.queue.empty():
                conn.queue.get_nowait()
    lobby.stop()
    return whole / (batches * per_batch), parts / (batches * per_batch)


def main() -> None:
    followers = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    cost = asyncio.run(batch_cost(followers))
    print(f"one lobby batch (3 tables, 2 people) to {followers} followers: {cost * 1000:.1f} ms CPU, "
          f"{cost / followers * 1e6:.1f} us per follower")
    whole, parts = asyncio.run(snapshot_costs(followers))
    print(f"one lobby snapshot ({followers // 3} tables, {followers} people, 20 readers per change): "
          f"{whole * 1000:.2f} ms CPU made whole, {parts * 1000:.2f} ms from parts ({whole / parts:.1f}x)")


if __name__ == "__main__":
    main()
