"""Commands for the bus between nodes, on a connection of its own, pipelined: PUBLISH, and the few others a node
sends as people come and go.

The same connection writes the lobby's table list beside the news of its change (``run``: an ``HSET`` and its
``PUBLISH`` in one write; :meth:`trickroom.server.cluster.Cluster.list_table`), so that a node that reads the list
after hearing the news finds the change in it; and a user's arrival and departure (the node's list of its users,
the other nodes asked about them) and its announcements on a user's channel (``cluster.py``, ``redis_bus.py``),
which took a round through redis-py's pipeline each, several per move of a player to their table's node.

A table step hands its deliveries to the bus, about five messages per action at three nodes. With redis-py each
``PUBLISH`` (or each step's pipeline) took a connection from the pool, a task for its write timeout and a round of
reply parsing in Python: 83 to 89 us of CPU for a message alone, 37 to 39 us each in a step of three. Here the
commands are written as they come on one connection, and Redis's replies, which come back in the same order,
resolve the waiting callers one after another (``Link``): 46 us alone, 17 us each in a step of three
(``bench/bus_publish.py``; docs/performance.md has the figures of whole evenings).

A command is written by :func:`command` (an array of bulk strings) and the replies are read by :class:`Replies`
(hiredis's parser: integers, statuses and bulk strings as bytes, arrays as lists, errors as ``ResponseError``),
both tested without a socket. The connection is opened from the client's own settings (host and port or a Unix
socket, user, password, database); a TLS Redis (``rediss://``) keeps redis-py's pipeline (:class:`PooledPublisher`,
whose replies come in the same shapes).

One connection keeps the order of everything the node publishes. A lost connection fails what waits on it
(``ConnectionError``; the caller decides, as with redis-py) and the next publish opens a new one.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple, Protocol, TypeVar, cast

import hiredis
import redis.asyncio as redis
from redis.asyncio.connection import Connection, UnixDomainSocketConnection
from redis.exceptions import ResponseError

REPLY_TIMEOUT = 5.0  # seconds a caller waits for Redis's reply before the connection counts as lost (redis-py's)


class Publisher(Protocol):
    async def publish(self, items: Sequence[tuple[str, bytes]]) -> int:
        """PUBLISH each (channel, data) of ``items``, in order; return how many received the last one."""
        ...

    async def run(self, commands: Sequence[Sequence[bytes]]) -> list[Any]:
        """Each command of ``commands`` (its parts: ``(b"HSET", key, field, value)``), in order, in one write;
        their replies in order (as :class:`Replies` reads them). An error reply is raised (``ResponseError``)."""
        ...

    async def close(self) -> None: ...


def publisher_for(client: redis.Redis) -> Publisher:
    """The pipelined publisher on ``client``'s server, or redis-py's own where its connection is more than a socket
    (TLS)."""
    socket = socket_of(client)
    return PooledPublisher(client) if socket is None else PipelinedPublisher(*socket)


def socket_of(client: redis.Redis) -> tuple[bool, dict[str, Any]] | None:
    """Whether ``client``'s connections are a Unix socket, and their settings, for a connection of the node's own;
    None where they are more than a socket (TLS), which redis-py keeps."""
    pool = client.connection_pool
    if pool.connection_class not in (Connection, UnixDomainSocketConnection):
        return None
    return pool.connection_class is UnixDomainSocketConnection, pool.connection_kwargs


def command(*parts: bytes) -> bytes:
    """One command in RESP: an array of bulk strings."""
    out = [b"*%d\r\n" % len(parts)]
    for part in parts:
        out.append(b"$%d\r\n%s\r\n" % (len(part), part))
    return b"".join(out)


class Replies:
    """Redis's replies, read from a stream of bytes in any chunks (RESP 2, parsed by hiredis): an integer as an
    int, a status or a bulk string as bytes, an array as a list, a null as None, an error as a ``ResponseError``
    (returned, not raised)."""

    def __init__(self) -> None:
        self._reader = hiredis.Reader(protocolError=ConnectionError, replyError=ResponseError)

    def feed(self, data: bytes) -> list[Any]:
        """The replies completed by ``data``, in order. A stream that is not RESP raises ``ConnectionError``."""
        self._reader.feed(data)
        replies = []
        while (reply := self._reader.gets()) is not False:
            replies.append(reply)
        return replies


class Link(asyncio.Protocol):
    """One connection: what it writes, and a future per command waiting for its reply, oldest first."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.waiting: collections.deque[_Write] = collections.deque()
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
            if not self.take(reply):
                return

    def take(self, reply: Any) -> bool:
        """Hand ``reply`` to the oldest command waiting; False if none waits (the stream is out of step: closed)."""
        if not self.waiting:
            self.fail(ConnectionError("a reply from Redis that no command asked for"))
            return False
        write = self.waiting[0]
        write.replies.append(reply)
        if len(write.replies) == write.size:
            self.waiting.popleft()
            if not write.future.done():  # (its caller may have given up waiting)
                write.future.set_result(write.replies)
        return True

    def connection_lost(self, exc: Exception | None) -> None:
        self.fail(ConnectionError(f"the connection to Redis was lost: {exc or 'closed'}"))
        self.closed.set()

    def fail(self, error: Exception) -> None:
        """Nothing more goes through this connection: fail whatever waits, and close it."""
        self.lost = True
        while self.waiting:
            future = self.waiting.popleft().future
            if not future.done():
                future.set_exception(error)
        if self.transport is not None:
            self.transport.close()

    async def shut(self, reason: str) -> None:
        """Fail what waits (``reason``), close, and wait up to a second for the socket to close."""
        self.fail(ConnectionError(reason))
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(1):
                await self.closed.wait()

    def send(self, commands: Sequence[bytes]) -> asyncio.Future[list[Any]]:
        """Write ``commands`` in one write; the future of their replies."""
        assert self.transport is not None
        write = _Write(len(commands), asyncio.get_running_loop().create_future(), [])
        self.waiting.append(write)
        self.transport.write(b"".join(commands))
        return write.future


class _Write(NamedTuple):
    """Commands written together: how many, the future of their replies, and the replies read so far."""
    size: int
    future: asyncio.Future[list[Any]]
    replies: list[Any]


def raise_errors(replies: list[Any]) -> list[Any]:
    """``replies``, unless one of them is an error: then the first is raised."""
    for reply in replies:
        if isinstance(reply, ResponseError):
            raise reply
    return replies


LinkType = TypeVar("LinkType", bound=Link)


async def open_link(factory: Callable[[], LinkType], unix: bool, settings: dict[str, Any]) -> LinkType:
    """A connection to the Redis that ``settings`` (a redis-py client's connection settings) name, logged in and
    on its database: ``factory``'s protocol, ready for commands."""
    loop, s = asyncio.get_running_loop(), settings
    timeout = s.get("socket_connect_timeout") or REPLY_TIMEOUT
    async with asyncio.timeout(timeout):
        if unix:
            transport, link = await loop.create_unix_connection(factory, s["path"])
        else:
            transport, link = await loop.create_connection(factory, s.get("host", "localhost"), s.get("port", 6379))
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
                raise_errors(await link.send(greeting))
        except BaseException:
            link.fail(ConnectionError("Redis refused the connection's greeting"))
            raise
        if link.lost:
            raise ConnectionError("Redis closed the connection after its greeting")
    return link


class PipelinedPublisher:
    def __init__(self, unix: bool, settings: dict[str, Any]) -> None:
        self.unix = unix
        self.settings = settings
        self._link: Link | None = None
        self._opening: asyncio.Lock | None = None

    async def publish(self, items: Sequence[tuple[str, bytes]]) -> int:
        if not items:
            return 0
        receivers = (await self._send([command(b"PUBLISH", channel.encode(), data) for channel, data in items]))[-1]
        assert isinstance(receivers, int)
        return receivers

    async def run(self, commands: Sequence[Sequence[bytes]]) -> list[Any]:
        return await self._send([command(*parts) for parts in commands])

    async def _send(self, commands: list[bytes]) -> list[Any]:
        link = await self._open()
        future = link.send(commands)
        try:
            async with asyncio.timeout(REPLY_TIMEOUT):
                replies = await future
        except TimeoutError:
            link.fail(ConnectionError("Redis did not answer in time"))
            raise ConnectionError("Redis did not answer in time") from None
        return raise_errors(replies)

    async def _open(self) -> Link:
        if self._link is not None and not self._link.lost:
            return self._link
        if self._opening is None:
            self._opening = asyncio.Lock()
        async with self._opening:  # (one connection, however many steps publish while it opens)
            if self._link is None or self._link.lost:
                self._link = await open_link(Link, self.unix, self.settings)
        return self._link

    async def close(self) -> None:
        """Close the connection once what was written on it has its replies (a second at most): a table step that
        published as the node began to stop gets its answer, where it used to get an error (and log it)."""
        link, self._link = self._link, None
        if link is None:
            return
        if link.waiting and not link.lost:
            with contextlib.suppress(Exception):  # (lost meanwhile, or no reply within the second)
                async with asyncio.timeout(1):
                    await asyncio.shield(link.waiting[-1].future)
        await link.shut("the publisher is closed")


class PooledPublisher:
    """redis-py's pipeline, for a connection this module does not open itself (TLS). Its replies are taken as
    redis-py reads them, without its conversions (no ``True`` for ``1``), a map flattened into its array."""

    def __init__(self, client: redis.Redis) -> None:
        self.client = client
        self.raw = redis.Redis(connection_pool=client.connection_pool)
        self.raw.response_callbacks = {}  # (the replies as Redis sent them)

    async def publish(self, items: Sequence[tuple[str, bytes]]) -> int:
        if not items:
            return 0
        async with self.client.pipeline(transaction=False) as pipe:
            for channel, data in items:
                pipe.publish(channel, data)
            counts = await pipe.execute()
        return int(counts[-1])

    async def run(self, commands: Sequence[Sequence[bytes]]) -> list[Any]:
        async with self.raw.pipeline(transaction=False) as pipe:
            for parts in commands:
                pipe.execute_command(*parts)
            replies = await pipe.execute(raise_on_error=True)
        return [_flat(reply) for reply in replies]

    async def close(self) -> None:
        return None


def _flat(reply: Any) -> Any:
    """A reply as RESP 2 has it: a map as the array of its keys and values."""
    if isinstance(reply, dict):
        return [part for pair in reply.items() for part in pair]
    if isinstance(reply, list):
        return [_flat(item) for item in reply]
    return reply
