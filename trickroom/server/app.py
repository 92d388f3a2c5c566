"""The ASGI application: ``/ws`` (the protocol), ``/health``, ``/metrics`` and the web client at ``/``."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from trickroom.server.bus import Bus, LocalBus
from trickroom.server.cluster import Cluster
from trickroom.server.protocol import ProtocolError, parse_client_message
from trickroom.server.redis_bus import RedisBus
from trickroom.server.room import Connection, Room, protocol_error_message
from trickroom.server.settings import Settings
from trickroom.server.store import Store

log = logging.getLogger("trickroom.app")
WEB_STATIC = Path(__file__).resolve().parent.parent / "web" / "static"

FALLBACK_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>trickroom</title></head>
<body><main><h1>trickroom</h1>
<p>The room is running. The web client is not installed here; connect a client to the websocket at
<code>/ws</code> (see docs/protocol.md), or use <code>trickroom play</code> in a terminal.</p>
</main></body></html>
"""


class TokenBucket:
    def __init__(self, rate: float, burst: int) -> None:
        self.rate, self.burst = rate, float(burst)
        self.tokens = float(burst)
        self.stamp = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


def origin_allowed(websocket: WebSocket, settings: Settings) -> bool:
    """Browsers send Origin: it must be this server's host or an allowed origin. Other clients send none."""
    origin = websocket.headers.get("origin")
    if origin is None:
        return True
    if origin in settings.allowed_origins or "*" in settings.allowed_origins:
        return True
    host = websocket.headers.get("host", "")
    return urlsplit(origin).netloc.lower() == host.lower()


def create_app(settings: Settings, bus: Bus | None = None) -> Starlette:
    store = Store(settings.db, settings.db_schema)
    cluster: Cluster | None = None
    if settings.redis and bus is None:
        import redis.asyncio as redis

        client = redis.from_url(settings.redis)
        redis_bus = RedisBus(client, settings.redis_prefix)
        cluster = Cluster(client, settings.redis_prefix, settings.node_id, settings.websocket_url,
                          ttl=settings.lease_seconds + 2)
        bus = redis_bus
    room = Room(settings, store, bus or LocalBus(), cluster)
    if isinstance(bus, RedisBus):
        bus.on_unhandled = lambda channel, message: room.forward(message)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await store.migrate()
        room.loop = asyncio.get_running_loop()
        await room.start()
        log.info("room ready", extra={"node": settings.node_id, "address": f"{settings.host}:{settings.port}"})
        yield
        await room.stop()
        await room.bus.close()
        await store.close()

    async def health(request: Request) -> Response:
        return JSONResponse({"status": "ok", "node": settings.node_id, "tables": len(room.tables),
                             "connections": len(room.connections)})

    async def metrics(request: Request) -> Response:
        return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)

    async def fallback(request: Request) -> Response:
        return HTMLResponse(FALLBACK_PAGE)

    async def websocket_endpoint(websocket: WebSocket) -> None:
        if not origin_allowed(websocket, settings):
            await websocket.close(code=1008)  # before accept: the client gets HTTP 403
            return
        await websocket.accept()
        await serve_connection(websocket, room, settings)

    routes: list[Any] = [Route("/health", health), Route("/metrics", metrics),
                         WebSocketRoute("/ws", websocket_endpoint)]
    static = Path(settings.static_dir) if settings.static_dir else WEB_STATIC
    if (static / "index.html").exists():
        routes.append(Mount("/", app=StaticFiles(directory=static, html=True), name="web"))
    else:
        routes.append(Route("/", fallback))
    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.room = room
    return app


async def serve_connection(websocket: WebSocket, room: Room, settings: Settings) -> None:
    conn = room.open()
    writer = asyncio.get_running_loop().create_task(write_loop(websocket, conn))
    bucket = TokenBucket(settings.messages_per_second, settings.message_burst)
    too_big_in_a_row = 0
    try:
        while True:
            frame = await websocket.receive()
            if frame["type"] == "websocket.disconnect":
                break
            raw = frame.get("text")
            if raw is None:
                raw_bytes = frame.get("bytes") or b""
                raw = raw_bytes.decode("utf-8", "replace")
            if len(raw.encode("utf-8")) > settings.max_message_bytes:
                too_big_in_a_row += 1
                send_error(conn, ProtocolError("too_big", limit=settings.max_message_bytes))
                if too_big_in_a_row >= 10:
                    break
                continue
            too_big_in_a_row = 0
            if not bucket.take():
                # The message is dropped unread, but a client waiting for its reply must learn that: answer its id.
                send_error(conn, ProtocolError("rate_limited"), request_id(raw))
                continue
            await handle_text(room, conn, raw)
            if conn.overflowed:
                break
    except WebSocketDisconnect:
        pass
    finally:
        conn.queue.put_nowait(None)
        await room.close(conn)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(writer, timeout=5)
        writer.cancel()


def id_of(decoded: Any) -> str | int | None:
    """The ``id`` of a decoded client message, to answer as ``re``; None if there is no usable one."""
    candidate = decoded.get("id") if isinstance(decoded, dict) else None
    return candidate if isinstance(candidate, (str, int)) and not isinstance(candidate, bool) else None


def request_id(raw: str) -> str | int | None:
    try:
        return id_of(json.loads(raw))
    except (ValueError, RecursionError):
        return None


async def handle_text(room: Room, conn: Connection, raw: str) -> None:
    re: Any = None
    try:
        try:
            decoded = json.loads(raw)
        except (ValueError, RecursionError):
            raise ProtocolError("bad_json") from None
        re = id_of(decoded)
        message = parse_client_message(decoded)
        await room.handle(conn, message)
    except ProtocolError as err:
        send_error(conn, err, re)
    except Exception:
        log.exception("internal error on a client message")
        send_error(conn, ProtocolError("internal"), re)


def send_error(conn: Connection, err: ProtocolError, re: Any = None) -> None:
    conn.send(protocol_error_message(err, conn.lang, re))


async def write_loop(websocket: WebSocket, conn: Connection) -> None:
    while True:
        message = await conn.queue.get()
        if message is None:
            if conn.reconnect_elsewhere:  # the node is stopping; 1012: service restart
                with contextlib.suppress(Exception):
                    await websocket.close(code=1012)
            if conn.overflowed:
                with contextlib.suppress(Exception):
                    await websocket.close(code=1008)
            return
        try:
            await websocket.send_text(json.dumps(message, ensure_ascii=False, separators=(",", ":")))
        except Exception:
            return
