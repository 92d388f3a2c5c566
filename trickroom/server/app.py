"""The ASGI application: ``/ws`` (the protocol), ``/health``, ``/metrics``, the web client at ``/`` and its words at
``/i18n/<lang>.json``.

A websocket at ``/ws`` does not go through Starlette's middleware and router (:class:`RoomApp`): each of their
layers is a coroutine, with its frame and closures, suspended for as long as the connection is open. At 3000
people that was about 40 of the 141 objects the garbage collector walked for every idle connection
(docs/performance.md, "The websocket's short path"). The short path does for ``/ws`` exactly what those layers
did: the Host check (FrontGuard), the origin check, then the protocol."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocket, WebSocketDisconnect

from trickroom.narration import LANGUAGES, translate
from trickroom.narration.web import bundle_json
from trickroom.server.bus import Bus, LocalBus
from trickroom.server.cluster import Cluster
from trickroom.server.connection import CLOSE_TOO_BIG, Connection
from trickroom.server.errors import error_message
from trickroom.server.guard import FrontGuard, allowed_host_names, metrics_allowed, request_language, scope_host_allowed
from trickroom.server.hygiene import invalid_text_at
from trickroom.server.protocol import ProtocolError, parse_client_message
from trickroom.server.redis_bus import RedisBus
from trickroom.server.room import FAILURES, Room
from trickroom.server.sessions import CLOSE_LOGIN_TIMEOUT
from trickroom.server.settings import Settings
from trickroom.server.store import Store
from trickroom.server.wire import wire_of

log = logging.getLogger("trickroom.app")
TOO_BIG_IN_A_ROW = 10  # oversized messages in a row after which the connection is closed (1009)
WEB_STATIC = Path(__file__).resolve().parent.parent / "web" / "static"
WEBSOCKET_PATH = "/ws"

FALLBACK_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>trickroom</title></head>
<body><main><h1>trickroom</h1>
<p>The room is running. The web client is not installed here; connect a client to the websocket at
<code>/ws</code> (see docs/protocol.md), or use <code>trickroom play</code> in a terminal.</p>
</main></body></html>
"""


class TokenBucket:
    def __init__(self, rate: float, burst: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate, self.burst = rate, float(burst)
        self.clock = clock
        self.tokens = float(burst)
        self.stamp = clock()

    def take(self) -> bool:
        now = self.clock()
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


def route_path(scope: Scope) -> str:
    """The request's path under the server's root path (uvicorn's ``root_path`` is part of ``path``), as
    Starlette's router reads it (its own function for this, ``starlette._utils.get_route_path``, is private)."""
    path: str = scope["path"]
    root: str = scope.get("root_path", "")
    return path[len(root):] if root and path.startswith(root + "/") else path


class RoomApp(Starlette):
    """Starlette, except that a websocket at ``/ws`` goes straight to ``websocket_door`` (see the module's
    docstring); everything else (pages, ``/health``, ``/metrics``, the lifespan) goes through the middleware and
    the router as usual."""

    websocket_door: Callable[[Scope, Receive, Send], Any] | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket" and route_path(scope) == WEBSOCKET_PATH and self.websocket_door is not None:
            scope["app"] = self
            await self.websocket_door(scope, receive, send)
            return
        await super().__call__(scope, receive, send)


def create_app(settings: Settings, bus: Bus | None = None) -> RoomApp:
    store = Store(settings.db, settings.db_schema)
    cluster: Cluster | None = None
    if settings.redis and bus is None:
        import redis.asyncio as redis

        client = redis.from_url(settings.redis)
        redis_bus = RedisBus(client, settings.redis_prefix)
        cluster = Cluster(client, settings.redis_prefix, settings.node_id, settings.websocket_url,
                          ttl=settings.lease_seconds + 2, publisher=redis_bus.publisher,
                          listing_seconds=settings.cluster_listing_seconds)
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
        client = request.client.host if request.client else None
        if not metrics_allowed(settings, client, request.headers.get("authorization")):
            lang = request_language({k.encode("latin-1"): v.encode("latin-1") for k, v in request.headers.items()})
            return PlainTextResponse(translate("http.metrics_forbidden", lang) + "\n", status_code=403)
        room.ownership.count_tables()  # (by status: counted when asked, not at each of a table's changes)
        return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)

    async def fallback(request: Request) -> Response:
        return HTMLResponse(FALLBACK_PAGE)

    async def words(request: Request) -> Response:
        """The web client's words in one language (narration/web.py); a client holding the same ETag gets 304."""
        lang = request.path_params["lang"]
        if lang not in LANGUAGES:
            return JSONResponse({"error": f"no language {lang[:20]!r}; the languages are {list(LANGUAGES)}"}, 404)
        body, etag = bundle_json(lang)
        headers = {"ETag": etag, "Cache-Control": "no-cache"}
        if request.headers.get("if-none-match") == etag:
            return Response(status_code=304, headers=headers)
        return Response(body, media_type="application/json", headers=headers)

    allowed_hosts = allowed_host_names(settings)

    async def websocket_door(scope: Scope, receive: Receive, send: Send) -> None:
        websocket = WebSocket(scope, receive, send)
        if not scope_host_allowed(dict(scope.get("headers") or []), allowed_hosts) \
                or not origin_allowed(websocket, settings):
            await websocket.close(code=1008)  # before accept: the client gets HTTP 403
            return
        await websocket.accept()
        await serve_connection(websocket, room, settings)

    routes: list[Any] = [Route("/health", health), Route("/metrics", metrics), Route("/i18n/{lang}.json", words)]
    static = Path(settings.static_dir) if settings.static_dir else WEB_STATIC
    if (static / "index.html").exists():
        routes.append(Mount("/", app=StaticFiles(directory=static, html=True), name="web"))
    else:
        routes.append(Route("/", fallback))
    guard = Middleware(FrontGuard, settings=settings, node_urls=lambda: list(room.node_urls))
    app = RoomApp(routes=routes, lifespan=lifespan, middleware=[guard])
    app.websocket_door = websocket_door
    app.state.room = room
    return app


async def serve_connection(websocket: WebSocket, room: Room, settings: Settings) -> None:
    conn = room.open(websocket.client.host if websocket.client else "unknown", wire_of(websocket.scope), websocket)
    doorman = LoginDeadline(conn, settings.login_timeout)
    bucket = TokenBucket(settings.messages_per_second, settings.message_burst)
    too_big_in_a_row = 0
    try:
        while conn.closing is None:
            frame = await websocket.receive()
            if frame["type"] == "websocket.disconnect":
                break
            raw = frame.get("text")
            if raw is None:
                raw_bytes = frame.get("bytes") or b""
                raw = raw_bytes.decode("utf-8", "replace")
            # Frames up to max_frame_bytes are read and answered; uvicorn closes the connection (1009) on a bigger
            # one before it reaches here.
            if len(raw.encode("utf-8")) > settings.max_message_bytes:
                too_big_in_a_row += 1
                send_error(conn, ProtocolError("too_big", limit=settings.max_message_bytes))
                if too_big_in_a_row >= TOO_BIG_IN_A_ROW:
                    log.info("connection %s sent %d oversized messages in a row; closing it", conn.id,
                             too_big_in_a_row)
                    conn.close(CLOSE_TOO_BIG, "too many oversized messages")
                continue
            too_big_in_a_row = 0
            if not bucket.take():
                # The message is dropped unread, but a client waiting for its reply must learn that: answer its id.
                send_error(conn, ProtocolError("rate_limited"), request_id(raw))
                continue
            await handle_text(room, conn, raw)
    except WebSocketDisconnect:
        pass
    finally:
        doorman.cancel()
        conn.end()  # the writer sends what is queued (then the close frame, if closing)
        await room.close(conn)
        writer = conn.writer
        if writer is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(writer, timeout=5)
            writer.cancel()


class LoginDeadline:
    """A connection that is not logged in (never, or not since it logged out) closes after ``timeout`` seconds of
    that: an idle socket holds nothing for long. Pings do not count. One timer per connection, looked at again
    every ``timeout`` while it is logged in: a task sleeping in a loop would hold a coroutine and its frame for
    every idle client (docs/performance.md, "Memory per idle client"). ``clock`` and ``call_later`` are the
    event loop's unless a test gives its own."""

    __slots__ = ("call_later", "clock", "conn", "since", "timeout", "timer")

    def __init__(self, conn: Connection, timeout: float, clock: Callable[[], float] = time.monotonic,
                 call_later: Callable[[float, Callable[[], None]], asyncio.TimerHandle] | None = None) -> None:
        self.conn, self.timeout, self.clock = conn, timeout, clock
        self.call_later = call_later or asyncio.get_running_loop().call_later
        self.since: float | None = None
        self.timer: asyncio.TimerHandle | None = None
        self.arm()

    def arm(self) -> None:
        since = self.since = self.conn.logged_out_at
        delay = max(0.0, since + self.timeout - self.clock()) if since is not None else self.timeout
        self.timer = self.call_later(delay, self.check)

    def check(self) -> None:
        conn = self.conn
        if conn.closing is not None:
            return
        if conn.user is None and conn.logged_out_at is not None and conn.logged_out_at == self.since:
            conn.close(CLOSE_LOGIN_TIMEOUT, "not logged in")
            return
        self.arm()

    def cancel(self) -> None:
        if self.timer is not None:
            self.timer.cancel()


def id_of(decoded: Any) -> str | int | None:
    """The ``id`` of a decoded client message, to answer as ``re``; None if there is no usable one."""
    candidate = decoded.get("id") if isinstance(decoded, dict) else None
    if isinstance(candidate, str) and invalid_text_at(candidate) is not None:
        return None  # it could not be sent back
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
        invalid = invalid_text_at(decoded)
        if invalid is not None:  # a lone surrogate: refused whole, before anything reads it (hygiene.py)
            raise ProtocolError("bad_text", field=invalid[:60])
        message = parse_client_message(decoded, room.settings)
    except ProtocolError as err:
        send_error(conn, err, re)
        return
    except Exception as exc:
        FAILURES.failed("internal error reading a client message", exc)
        send_error(conn, ProtocolError("internal"), re)
        return
    await room.answer(conn, message, re)


def send_error(conn: Connection, err: ProtocolError, re: Any = None) -> None:
    conn.send(error_message(err, conn.lang, re))
