"""``trickroom serve``: run the room (see docs/server.md for every setting)."""

from __future__ import annotations

import argparse
import asyncio
import gc
import logging
import signal
import socket
from types import FrameType
from typing import Any

import uvicorn

from trickroom.server.collector import CollectionClock
from trickroom.server.room import Room
from trickroom.server.settings import Settings, load_settings

log = logging.getLogger("trickroom.main")

# The room keeps hundreds of thousands of long-lived objects (connections, tables and their journals, the lobby).
# What startup made (the imports, the app) is frozen out of every collection. Then the collector runs on a clock
# (collector.py, the setting gc_young_seconds), automatic collection off; with that setting at 0, Python's own
# schedule runs with these thresholds: young collections that wait for 50,000 new objects let a step's messages die
# before they are promoted, and the middle generation is collected after every 5 young collections rather than 20,
# the same work in shorter pauses (docs/performance.md, "Frames written straight to the socket").
GC_THRESHOLDS = (50_000, 5, 10)


def tune_garbage_collector() -> None:
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def collections_for(settings: Settings) -> CollectionClock | None:
    """The collector's clock the settings ask for; None: Python's own schedule."""
    if settings.gc_young_seconds <= 0:
        return None
    return CollectionClock(settings.gc_young_seconds, settings.gc_full_minutes * 60)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, help="port to listen on (default 8000)")
    parser.add_argument("--db", help="database URL: sqlite:///path.sqlite3 (default: ./trickroom.sqlite3) "
                                     "or postgresql://user@host/dbname")
    parser.add_argument("--config", help="settings file (KEY=value lines, TRICKROOM_ prefix optional)")
    parser.add_argument("--allowed-origin", action="append", dest="allowed_origins",
                        help="a web origin allowed to open the websocket besides this host (repeatable)")
    parser.add_argument("--log-level", help="debug, info, warning, error (default info)")
    parser.add_argument("--redis", help="redis://host:6379/0: run as one node of several sharing the database "
                                        "(PostgreSQL) and this Redis (docs/deployment.md)")
    parser.add_argument("--node-id", help="this node's name (default node-<pid>)")
    parser.add_argument("--public-url", help="this node's websocket address as clients reach it "
                                             "(default ws://host:port/ws)")
    parser.add_argument("--allow-test-decks", action="store_const", const=True, default=None,
                        help="test-only: let `create` fix the deal with \"seed\" and \"decks\"")


def run(args: argparse.Namespace) -> int:
    from trickroom.server.app import create_app
    from trickroom.server.logs import setup_logging

    settings = load_settings(args.config, host=args.host, port=args.port, db=args.db,
                             allowed_origins=args.allowed_origins, log_level=args.log_level,
                             allow_test_decks=args.allow_test_decks, redis=args.redis, node_id=args.node_id,
                             public_url=args.public_url)
    setup_logging(settings.log_level)
    app = create_app(settings)
    tune_garbage_collector()
    app.state.room.collections = collections_for(settings)
    print(f"trickroom: the room is at http://{settings.host}:{settings.port}/ "
          f"(websocket ws://{settings.host}:{settings.port}/ws, database {settings.db})", flush=True)
    config = uvicorn_config(app, settings)
    sockets = listening_sockets(settings.host, settings.port, settings.listen_sockets)
    try:
        DrainingServer(config, app.state.room).run(sockets=sockets)
    except KeyboardInterrupt:
        # Ctrl-C: uvicorn has shut the room down cleanly, then raises the signal again for the default handler;
        # the conventional exit status of an interrupted program, without a traceback.
        return 130
    return 0


def uvicorn_config(app: Any, settings: Settings, **overrides: Any) -> uvicorn.Config:
    """How uvicorn serves the room: a deadline for request headers (``header_timeout``), X-Forwarded-For believed
    only from ``trusted_proxies`` (the client address is what the login limits count), websocket pings that drop
    half-open sockets, and websocket compression only if ``websocket_compression`` asks for it. Without
    compression, frames are written straight to the socket (``wire.py``)."""
    from trickroom.server.guard import http_protocol
    from trickroom.server.wire import WireProtocol

    values: dict[str, Any] = {
        "host": settings.host, "port": settings.port, "log_config": None, "lifespan": "on",
        "ws_max_size": settings.max_frame_bytes, "http": http_protocol(settings.header_timeout),
        "ws_per_message_deflate": settings.websocket_compression,
        "ws": "auto" if settings.websocket_compression else WireProtocol,
        "proxy_headers": True, "forwarded_allow_ips": settings.trusted_proxies, **overrides}
    return uvicorn.Config(app, **values)


def listening_sockets(host: str, port: int, count: int) -> list[socket.socket]:
    """``count`` sockets listening on one port (SO_REUSEPORT; one where the system has no such option), the
    kernel sharing new connections among them.

    uvloop accepts at most one connection per listening socket at each turn of the event loop: a busy node with one
    socket let in 15 to 100 people a second, and thousands arriving overflowed the kernel's queue, whose
    connections wait seconds to be tried again (docs/performance.md). With several, the node takes connections as
    they come, and the waiting line (waiting_line.py) decides how fast newcomers sign in."""
    family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                                         flags=socket.AI_PASSIVE)[0]
    shared = hasattr(socket, "SO_REUSEPORT")
    sockets: list[socket.socket] = []
    try:
        for _ in range(max(1, count) if shared else 1):
            sock = socket.socket(family, kind, proto)
            sockets.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if shared:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
            sock.bind(address)
            address = sock.getsockname()  # port 0: the others share the port the first was given
            sock.set_inheritable(True)
    except OSError:
        for sock in sockets:
            sock.close()
        raise
    return sockets


class DrainingServer(uvicorn.Server):
    """uvicorn, except that SIGTERM on a node of several first hands its tables over and sends its clients
    elsewhere (``Room.drain``), then stops as usual. A second signal stops at once."""

    def __init__(self, config: uvicorn.Config, room: Room) -> None:
        super().__init__(config)
        self.room = room
        self.draining = False

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        loop = self.room.loop
        if sig != signal.SIGTERM or self.draining or self.room.cluster is None or loop is None:
            super().handle_exit(sig, frame)
            return
        self.draining = True
        loop.call_soon_threadsafe(lambda: self.room.spawn(self.drain_then_exit()))

    async def drain_then_exit(self) -> None:
        try:
            await asyncio.wait_for(self.room.drain(), timeout=10)
            await asyncio.sleep(0.3)  # let the writers send "reconnect" and close the sockets
        except Exception:
            log.exception("could not hand everything over; stopping anyway")
        self.should_exit = True
