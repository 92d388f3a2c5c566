"""PUBLISH for the bus between nodes, on a connection of its own, pipelined.

The same connection also writes the lobby's table list beside the news of its change (``run``: an ``HSET`` and
its ``PUBLISH`` in one write; :meth:`trickroom.server.cluster.Cluster.list_table`), so that a node that reads the
list after hearing the news finds the change in it.

A table step hands its deliveries to the bus, about five messages per action at three nodes. With redis-py each
``PUBLISH`` (or each step's pipeline) took a connection from the pool, a task for its write timeout and a round of
reply parsing in Python: 83 to 89 us of CPU for a message alone, 37 to 39 us each in a step of three. Here the
commands are written as they come on one connection, and Redis's replies, which come back in the same order,
resolve the waiting callers one after another (``_Link``): 46 us alone, 17 us each in a step of three
(``bench/bus_publish.py``; docs/performance.md has the figures of whole evenings).

The RESP that this needs (a command as an array of bulk strings; a reply of one line: ``+OK``, ``:n``,
``-ERR ...``) is :func:`command` and :class:`Replies`, pure functions of bytes tested without a socket. The
connection is opened from the client's own settings (host and port or a Unix socket, user, password, database);
a TLS Redis (``rediss://``) keeps redis-py's pipeline (:class:`PooledPublisher`).

One connection keeps the order of everything the node publishes. A lost connection fails what waits on it
(``ConnectionError``; the caller decides, as with redis-py) and the next publish opens a new one.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
from collections.abc import Sequence
from typing import Any, Protocol, cast

import redis.asyncio as redis
from redis.asyncio.connection import Connection, UnixDomainSocketConnection
from redis.exceptions import ResponseError

REPLY_TIMEOUT = 5.0  # seconds a caller waits for Redis's reply before the connection counts as lost (redis-py's)


class Publisher(Protocol):
    async def publish(self, items: Sequence[tuple[str, bytes]]) -> int:
        """PUBLISH each (channel, data) of ``items``, in order; return how many received the last one."""
        ...

    async def run(self, commands: Sequence[Sequence[bytes]]) -> int | str:
        """Each command of ``commands`` (its parts: ``(b"HSET", key, field, value)``), in order, in one write;
        the last one's reply. Only commands whose reply is one line (an integer or a status)."""
        ...

    async def close(self) -> None: ...


def publisher_for(client: redis.Redis) -> Publisher:
    """The pipelined publisher on ``client``'s server, or redis-py's own where its connection is more than a socket
    (TLS)."""
    pool = client.connection_pool
    if pool.connection_class in (Connection, UnixDomainSocketConnection):
        return PipelinedPublisher(pool.connection_class is UnixDomainSocketConnection, pool.connection_kwargs)
    return PooledPublisher(client)


def command(*parts: bytes) -> bytes:
    """One command in RESP: an array of bulk strings."""
    out = [b"*%d\r\n" % len(parts)]
    for part in parts:
        out.append(b"$%d\r\n%s\r\n" % (len(part), part))
    return b"".join(out)


class Replies:
    """Redis's replies to the commands this module sends, read from a stream of bytes in any chunks: each one line,
    an integer (``:n``), a status (``+OK``) or an error (``-ERR ...``)."""

    def __init__(self) -> None:
        self._buffer = b""

    def feed(self, data: bytes) -> list[int | str | ResponseError]:
        """The replies completed by ``data``, in order (an error reply as a ``ResponseError``, not raised)."""
        buffer = self._buffer + data if self._buffer else data
        replies: list[int | str | ResponseError] = []
        start = 0
        while (end := buffer.find(b"\r\n", start)) >= 0:
            kind, text = buffer[start:start + 1], buffer[start + 1:end]
            if kind == b":":
                replies.append(int(text))
            elif kind == b"+":
                replies.append(text.decode())
            elif kind == b"-":
                replies.append(ResponseError(text.decode(errors="replace")))
            else:  # (a bulk or an array: never the answer to the commands sent here)
                raise ConnectionError(f"unexpected reply from Redis: {buffer[start:end][:40]!r}")
            start = end + 2
        self._buffer = buffer[start:]
        return replies


class _Link(asyncio.Protocol):
    """One connection: what it writes, and a future per command waiting for its reply, oldest first."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.waiting: collections.deque[asyncio.Future[Any] | None] = collections.deque()  # None: not awaited
        self.replies = Replies()
        self.lost = False
        self.closed = asyncio.Event()  # the socket is closed (connection_lost came)

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # (uvloop's is not an asyncio.Transport subclass)

    def data_received(self, data: bytes) -> None:
        try:
            replies = self.replies.feed(data)
        except ConnectionError as error:
            self.fail(error)
            return
        for reply in replies:
            if not self.waiting:  # (a reply nobody asked for: the stream is out of step)
                self.fail(ConnectionError("a reply from Redis that no command asked for"))
                return
            future = self.waiting.popleft()
            if future is None or future.done():  # (a reply nobody waits for, or its caller gave up waiting)
                continue
            if isinstance(reply, ResponseError):
                future.set_exception(reply)
            else:
                future.set_result(reply)

    def connection_lost(self, exc: Exception | None) -> None:
        self.fail(ConnectionError(f"the connection to Redis was lost: {exc or 'closed'}"))
        self.closed.set()

    def fail(self, error: Exception) -> None:
        """Nothing more goes through this connection: fail whatever waits, and close it."""
        self.lost = True
        while self.waiting:
            future = self.waiting.popleft()
            if future is not None and not future.done():
                future.set_exception(error)
        if self.transport is not None:
            self.transport.close()

    def send(self, commands: Sequence[bytes]) -> asyncio.Future[Any]:
        """Write ``commands`` in one write; the future of the last one's reply."""
        assert self.transport is not None
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        self.waiting.extend([None] * (len(commands) - 1))
        self.waiting.append(future)
        self.transport.write(b"".join(commands))
        return future


class PipelinedPublisher:
    def __init__(self, unix: bool, settings: dict[str, Any]) -> None:
        self.unix = unix
        self.settings = settings
        self._link: _Link | None = None
        self._opening: asyncio.Lock | None = None

    async def publish(self, items: Sequence[tuple[str, bytes]]) -> int:
        if not items:
            return 0
        receivers = await self._send([command(b"PUBLISH", channel.encode(), data) for channel, data in items])
        assert isinstance(receivers, int)
        return receivers

    async def run(self, commands: Sequence[Sequence[bytes]]) -> int | str:
        return await self._send([command(*parts) for parts in commands])

    async def _send(self, commands: list[bytes]) -> int | str:
        link = await self._open()
        future = link.send(commands)
        try:
            async with asyncio.timeout(REPLY_TIMEOUT):
                reply: int | str = await future
        except TimeoutError:
            link.fail(ConnectionError("Redis did not answer in time"))
            raise ConnectionError("Redis did not answer in time") from None
        return reply

    async def _open(self) -> _Link:
        if self._link is not None and not self._link.lost:
            return self._link
        if self._opening is None:
            self._opening = asyncio.Lock()
        async with self._opening:  # (one connection, however many steps publish while it opens)
            if self._link is None or self._link.lost:
                self._link = await self._connect()
        return self._link

    async def _connect(self) -> _Link:
        loop, s = asyncio.get_running_loop(), self.settings
        timeout = s.get("socket_connect_timeout") or REPLY_TIMEOUT
        async with asyncio.timeout(timeout):
            if self.unix:
                transport, link = await loop.create_unix_connection(_Link, s["path"])
            else:
                transport, link = await loop.create_connection(_Link, s.get("host", "localhost"), s.get("port", 6379))
        link.transport = link.transport or transport  # (uvloop calls connection_made on the next turn)
        greeting = []
        if s.get("password"):
            user = [s["username"].encode()] if s.get("username") else []
            greeting.append(command(b"AUTH", *user, str(s["password"]).encode()))
        if s.get("db"):
            greeting.append(command(b"SELECT", str(s["db"]).encode()))
        if greeting:
            try:
                async with asyncio.timeout(timeout):
                    await link.send(greeting)
            except BaseException:
                link.fail(ConnectionError("Redis refused the connection's greeting"))
                raise
            if link.lost:
                raise ConnectionError("Redis closed the connection after its greeting")
        return link

    async def close(self) -> None:
        link, self._link = self._link, None
        if link is not None:
            link.fail(ConnectionError("the publisher is closed"))
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(1):
                    await link.closed.wait()


class PooledPublisher:
    """redis-py's pipeline, for a connection this module does not open itself (TLS)."""

    def __init__(self, client: redis.Redis) -> None:
        self.client = client

    async def publish(self, items: Sequence[tuple[str, bytes]]) -> int:
        if not items:
            return 0
        async with self.client.pipeline(transaction=False) as pipe:
            for channel, data in items:
                pipe.publish(channel, data)
            counts = await pipe.execute()
        return int(counts[-1])

    async def run(self, commands: Sequence[Sequence[bytes]]) -> int | str:
        async with self.client.pipeline(transaction=False) as pipe:
            for parts in commands:
                pipe.execute_command(*parts)
            replies = await pipe.execute()
        last: int | str | bytes = replies[-1]
        return last.decode() if isinstance(last, bytes) else last

    async def close(self) -> None:
        return None
