"""The bus's listening side: one connection of the node's own, subscribed to the channels it listens to.

redis-py's subscriber read each message in a task of the bus's: a wait for ``get_message`` with its timeout, the
connection's lock, the reply turned into a dict. Here each message is handed to the bus as hiredis parses it, in
the connection's ``data_received``, with no task and no timeout per message; ``SUBSCRIBE`` and ``UNSUBSCRIBE``
are written as they come (``bench/bus_publish.py`` times both sides).

A lost connection is opened again half a second later, subscribed again to every channel in one command, and the
bus is told (``on_lost``): a message published meanwhile is lost, as it was with redis-py. A TLS Redis keeps
redis-py's subscriber (:class:`PooledSubscriber`), as it keeps redis-py's pipeline for publishing.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any, Protocol

import redis.asyncio as redis

from trickroom.server.redis_publisher import Link, command, open_link, socket_of

log = logging.getLogger("trickroom.bus")
Heard = Callable[[bytes, bytes], None]  # a message's channel and data
CONFIRM_TIMEOUT = 5.0  # seconds a subscription waits for Redis's confirmation before going on without it
RETRY_AFTER = 0.5  # seconds between attempts to open a lost connection again


class Subscriber(Protocol):
    async def subscribe(self, channel: bytes) -> None:
        """Listen to ``channel``; return once Redis confirms (or after ``CONFIRM_TIMEOUT``)."""
        ...

    async def unsubscribe(self, channel: bytes) -> None: ...

    async def close(self) -> None: ...


def subscriber_for(client: redis.Redis, on_message: Heard, on_lost: Callable[[], None]) -> Subscriber:
    """The node's own subscriber on ``client``'s server, or redis-py's where its connection is more than a socket
    (TLS)."""
    socket = socket_of(client)
    if socket is None:
        return PooledSubscriber(client, on_message, on_lost)
    return OwnSubscriber(*socket, on_message, on_lost)


def hand_on(on_message: Heard, channel: bytes, data: Any) -> None:
    """Give a message to the bus; one it cannot handle is logged, and the connection goes on for the rest."""
    try:
        on_message(channel, data)
    except Exception:
        log.exception("a message on %r could not be handled", channel)


class _Listening(Link):
    """The subscriber's connection: the replies of its greeting go to their command, the rest (``message``,
    ``subscribe``, ``unsubscribe``) to the subscriber."""

    def __init__(self, subscriber: OwnSubscriber) -> None:
        super().__init__()
        self.subscriber = subscriber

    def take(self, reply: Any) -> bool:
        if type(reply) is list and len(reply) == 3:
            self.subscriber.heard(reply[0], reply[1], reply[2])
            return True
        return super().take(reply)

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        self.subscriber.lost(self)


class OwnSubscriber:
    def __init__(self, unix: bool, settings: dict[str, Any], on_message: Heard, on_lost: Callable[[], None]) -> None:
        self.unix = unix
        self.settings = settings
        self.on_message = on_message
        self.on_lost = on_lost
        self.channels: set[bytes] = set()
        self._confirming: dict[bytes, asyncio.Future[None]] = {}
        self._link: _Listening | None = None
        self._opening: asyncio.Lock | None = None
        self._reopening: asyncio.Task[None] | None = None
        self._closed = False

    async def subscribe(self, channel: bytes) -> None:
        self.channels.add(channel)
        future = self._confirming.get(channel)
        if future is None:
            future = self._confirming[channel] = asyncio.get_running_loop().create_future()
        link = await self._open()
        if channel not in self.channels:  # (unsubscribed while the connection opened)
            return
        if link.transport is not None:  # (again, if a new connection subscribed it with the rest: harmless)
            link.transport.write(command(b"SUBSCRIBE", channel))
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(CONFIRM_TIMEOUT):
                await asyncio.shield(future)

    async def unsubscribe(self, channel: bytes) -> None:
        self.channels.discard(channel)
        link = self._link
        if link is not None and not link.lost and link.transport is not None:
            link.transport.write(command(b"UNSUBSCRIBE", channel))

    def heard(self, kind: bytes, channel: bytes, data: Any) -> None:
        if kind == b"message":
            hand_on(self.on_message, channel, data)
        elif kind == b"subscribe":
            future = self._confirming.pop(channel, None)
            if future is not None and not future.done():
                future.set_result(None)

    def lost(self, link: _Listening) -> None:
        """``link`` closed: if it was this subscriber's, tell the bus and open another (unless closing)."""
        if link is not self._link or self._closed:
            return
        self._link = None
        log.warning("redis subscriber connection lost; opening another")
        self.on_lost()
        if self._reopening is None or self._reopening.done():
            self._reopening = asyncio.get_running_loop().create_task(self._reopen())

    async def _reopen(self) -> None:
        while not self._closed and self._link is None:
            await asyncio.sleep(RETRY_AFTER)
            try:
                await self._open()
            except Exception:
                log.exception("redis subscriber connection failed; retrying")

    async def _open(self) -> _Listening:
        if self._link is not None and not self._link.lost:
            return self._link
        if self._opening is None:
            self._opening = asyncio.Lock()
        async with self._opening:
            if self._link is None or self._link.lost:
                link = await open_link(lambda: _Listening(self), self.unix, self.settings)
                if self.channels and link.transport is not None:  # (every channel, on a connection opened again)
                    link.transport.write(command(b"SUBSCRIBE", *sorted(self.channels)))
                self._link = link
        return self._link

    async def close(self) -> None:
        self._closed = True
        if self._reopening is not None:
            self._reopening.cancel()
        link, self._link = self._link, None
        if link is not None:
            await link.shut("the subscriber is closed")


class PooledSubscriber:
    """redis-py's subscriber, for a connection this module does not open itself (TLS): a task reads its messages
    and hands them on as :class:`OwnSubscriber` does."""

    def __init__(self, client: redis.Redis, on_message: Heard, on_lost: Callable[[], None]) -> None:
        self.pubsub = client.pubsub()
        self.on_message = on_message
        self.on_lost = on_lost
        self._confirming: dict[bytes, asyncio.Event] = {}
        self._reader: asyncio.Task[None] | None = None

    async def subscribe(self, channel: bytes) -> None:
        confirmed = self._confirming[channel] = asyncio.Event()
        await self.pubsub.subscribe(channel)
        if self._reader is None:
            self._reader = asyncio.get_running_loop().create_task(self._read())
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(confirmed.wait(), timeout=CONFIRM_TIMEOUT)

    async def unsubscribe(self, channel: bytes) -> None:
        await self.pubsub.unsubscribe(channel)

    async def _read(self) -> None:
        while True:
            try:
                raw = await self.pubsub.get_message(ignore_subscribe_messages=False, timeout=1.0)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("redis subscriber connection failed; retrying")
                self.on_lost()
                await asyncio.sleep(RETRY_AFTER)
                continue
            if raw is None:
                continue
            channel = raw["channel"] if isinstance(raw["channel"], bytes) else str(raw["channel"]).encode()
            if raw["type"] == "message":
                hand_on(self.on_message, channel, raw["data"])
            elif raw["type"] == "subscribe" and (confirmed := self._confirming.pop(channel, None)) is not None:
                confirmed.set()

    async def close(self) -> None:
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(BaseException):
                await self._reader
        with contextlib.suppress(Exception):
            await self.pubsub.aclose()  # type: ignore[no-untyped-call, unused-ignore]  # typed from redis 8
