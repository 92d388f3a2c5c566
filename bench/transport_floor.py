"""What an action costs a server of this design before any game is played: the floor under the full-speed figure.

Issue 15 asks for 5000 actions a second on one node at 100 clients, which is 200 us of one core per action, all
of it. This benchmark serves the same clients with everything of the room's that an action passes through but
the table: uvicorn with the room's own settings (``main.uvicorn_config``: uvloop, httptools, the websocket of
``wire.py`` that writes frames straight to the socket), the room's reading of a message (JSON, the text check,
the typed message), the action log's group commit on SQLite (``Store.append_action``: write before broadcast),
and for each member one frame of the size the room sends per action (``--frame-bytes``, made by the room's
encoder). No engine, no table state, no sentences. Two clients share each "table" and act the moment the frame
says it is their turn, as the full-speed clients do.

It prints the actions a second and the server's CPU per action. Whatever the room's own code costs comes on
top of that figure (``bench/table_step.py`` prints it), so the difference between the floor and 200 us is
what any table, rendering and routing could spend (docs/performance.md, "The floor under the full-speed figure, and
the collector's pauses").

    .venv/bin/python bench/transport_floor.py [--clients 100] [--seconds 20] [--frame-bytes 1500] [--no-write]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from loadgen.deployment import free_port, process_cpu_seconds  # noqa: E402
from loadgen.wsconn import Link  # noqa: E402


def serve(port: int, db: str, frame_bytes: int, write: bool) -> None:
    """The floor server: runs until killed."""
    import uvicorn

    from trickroom.server.frames import encode
    from trickroom.server.hygiene import invalid_text_at
    from trickroom.server.main import tune_garbage_collector, uvicorn_config
    from trickroom.server.protocol import Act, Watch, parse_client_message
    from trickroom.server.rows import TableRow
    from trickroom.server.settings import load_settings
    from trickroom.server.store import Store

    settings = load_settings(host="127.0.0.1", port=port, db=db)
    store = Store(settings.db, settings.db_schema)
    filler = "x" * max(0, frame_bytes - 120)  # the rest of the frame: a seat's view and the step's sentences

    class FloorTable:
        def __init__(self, name: str) -> None:
            self.name = name
            self.row_id = 0
            self.members: list[Any] = []  # each seat's wire
            self.seq = 0

        async def act(self, seat: int, action: str) -> None:
            if seat != self.seq % len(self.members):
                return  # not this seat's turn: nothing happens (the room would answer not_your_turn)
            self.seq += 1
            if write:
                await store.append_action(self.row_id, self.seq, seat, action, self.seq, "g")
            self.tell_all()

        def tell_all(self) -> None:
            turn = self.seq % len(self.members)
            for seat, wire in enumerate(self.members):
                wire.write(encode({"type": "batch", "table": self.name, "seq": self.seq, "you": seat,
                                   "to_act": [turn], "view": filler}))

    tables: dict[str, FloorTable] = {}

    async def join(name: str, wire: Any) -> int:
        table = tables.get(name)
        if table is None:
            table = tables[name] = FloorTable(name)
            table.row_id = await store.create_table(TableRow(
                game="bura", options={"players": 2}, settings={}, seats=[None, None], host={}, status="playing"))
        table.members.append(wire)
        if len(table.members) == 2:
            table.tell_all()
        return len(table.members) - 1

    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await receive()
            await store.migrate()
            await send({"type": "lifespan.startup.complete"})
            await receive()
            await store.close()
            await send({"type": "lifespan.shutdown.complete"})
            return
        if scope["type"] != "websocket":
            return
        from trickroom.server.wire import wire_of

        await receive()  # websocket.connect
        await send({"type": "websocket.accept"})
        wire = wire_of(scope)
        assert wire is not None, "the room's websocket (wire.py) did not serve this connection"
        table: FloorTable | None = None
        seat = 0
        while True:
            frame = await receive()
            if frame["type"] == "websocket.disconnect":
                return
            decoded = json.loads(frame["text"])
            if invalid_text_at(decoded) is not None:
                continue
            message = parse_client_message(decoded, settings)
            if isinstance(message, Watch):
                seat = await join(message.table, wire)
                table = tables[message.table]
            elif isinstance(message, Act) and table is not None:
                await table.act(seat, message.action)

    tune_garbage_collector()
    uvicorn.Server(uvicorn_config(app, settings, lifespan="on")).run()


class Player:
    """One client: watches its table, then acts whenever a frame says its seat is to act."""

    def __init__(self, url: str, table: str, counts: list[int], opened: asyncio.Future[None] | None) -> None:
        self.table, self.counts, self.opened = table, counts, opened
        self.next_id = 0
        self.link = Link(url, self.on_open, self.on_text, lambda reason: None)

    def on_open(self) -> None:
        self.link.send(json.dumps({"type": "watch", "table": self.table}))
        if self.opened is not None and not self.opened.done():
            self.opened.set_result(None)

    def on_text(self, data: bytes) -> None:
        message = json.loads(data)
        if message["to_act"] == [message["you"]]:
            self.next_id += 1
            self.counts[0] += 1
            self.link.send(json.dumps({"type": "act", "table": self.table, "action": "play 9h",
                                       "id": self.next_id}))


async def drive(port: int, clients: int, seconds: float, server_pid: int) -> tuple[int, float, float]:
    loop = asyncio.get_running_loop()
    counts = [0]
    url = f"ws://127.0.0.1:{port}/ws"
    opened: list[asyncio.Future[None]] = []
    for index in range(clients):
        future: asyncio.Future[None] = loop.create_future()
        opened.append(future)
        player = Player(url, f"t{index // 2}", counts, future)
        await loop.create_connection(lambda p=player: p.link, "127.0.0.1", port)  # type: ignore[misc]
    await asyncio.wait_for(asyncio.gather(*opened), 30)
    await asyncio.sleep(2)  # every table playing
    actions, cpu, started = counts[0], process_cpu_seconds(server_pid), time.monotonic()
    await asyncio.sleep(seconds)
    elapsed = time.monotonic() - started
    return counts[0] - actions, process_cpu_seconds(server_pid) - cpu, elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=100, help="clients, two to a table (default 100)")
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--frame-bytes", type=int, default=1500,
                        help="bytes of each member's frame per action (the room's two-player Bura: about 1500)")
    parser.add_argument("--no-write", action="store_true", help="leave out the action log's write")
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--db", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve, args.db, args.frame_bytes, not args.no_write)
        return
    port = free_port()
    with tempfile.TemporaryDirectory() as workdir:
        db = f"sqlite:///{workdir}/floor.db"
        command = [sys.executable, __file__, "--serve", str(port), "--db", db, "--frame-bytes", str(args.frame_bytes)]
        if args.no_write:
            command.append("--no-write")
        server = subprocess.Popen(command, cwd=BENCH.parent, stdout=subprocess.DEVNULL)
        try:
            for _ in range(100):
                with socket.socket() as probe:
                    if probe.connect_ex(("127.0.0.1", port)) == 0:
                        break
                time.sleep(0.1)
            actions, cpu, elapsed = asyncio.run(drive(port, args.clients, args.seconds, server.pid))
        finally:
            server.terminate()
            server.wait(10)
    what = "receive, read, write the log, send" if not args.no_write else "receive, read, send (no log write)"
    print(f"{args.clients} clients, {args.clients // 2} tables of two, {args.frame_bytes}-byte frames; {what}")
    print(f"  actions: {actions} ({actions / elapsed:.0f} per second)")
    print(f"  server CPU {100 * cpu / elapsed:.0f}% of one core, {1e6 * cpu / max(1, actions):.0f} us per action")


if __name__ == "__main__":
    main()
