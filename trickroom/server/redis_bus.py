"""The bus across nodes: Redis publish/subscribe (``redis.asyncio``), with the interface of :class:`LocalBus`.

Every node holds one subscriber connection. Channel names get the node group's key prefix. Messages of one
channel are handled in order, one at a time (a worker task per channel), and channels do not wait for each
other: a table busy with a password hash does not hold up the lobby.

A message that arrives for a channel this node no longer listens to (a table it just handed over) goes to
``on_unhandled``, so that the room can forward a table's intent to its new owner instead of losing it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections import defaultdict
from collections.abc import Callable, Coroutine, Sequence
from typing import Any

import redis.asyncio as redis

from trickroom.server.bus import Handler

log = logging.getLogger("trickroom.bus")
Unhandled = Callable[[str, dict[str, Any]], Coroutine[Any, Any, None]]


class RedisBus:
    def __init__(self, client: redis.Redis, prefix: str) -> None:
        self.redis = client
        self.prefix = prefix
        self.pubsub = client.pubsub()
        self._handlers: defaultdict[str, list[Handler]] = defaultdict(list)
        self._queues: dict[str, asyncio.Queue[dict[str, Any] | None]] = {}
        self._workers: dict[str, asyncio.Task[None]] = {}
        self._confirmed: dict[str, asyncio.Event] = {}
        self._reader: asyncio.Task[None] | None = None
        self.on_unhandled: Unhandled | None = None

    async def publish(self, channel: str, message: dict[str, Any]) -> int:
        receivers: int = await self.redis.publish(self.prefix + channel, json.dumps(message, separators=(",", ":")))
        return receivers

    async def publish_many(self, items: Sequence[tuple[str, dict[str, Any]]]) -> None:
        """One round trip for them all (a pipeline, not a transaction): a table step used to wait for Redis once
        per person at the table, one after another."""
        if len(items) == 1:
            await self.publish(*items[0])
            return
        async with self.redis.pipeline(transaction=False) as pipe:
            for channel, message in items:
                pipe.publish(self.prefix + channel, json.dumps(message, separators=(",", ":")))
            await pipe.execute()

    async def subscribe(self, channel: str, handler: Handler) -> None:
        self._handlers[channel].append(handler)
        if channel in self._queues:
            return
        queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        self._queues[channel] = queue
        self._workers[channel] = asyncio.get_running_loop().create_task(self._work(channel, queue))
        confirmed = self._confirmed[channel] = asyncio.Event()
        await self.pubsub.subscribe(self.prefix + channel)
        if self._reader is None:
            self._reader = asyncio.get_running_loop().create_task(self._read())
        with contextlib.suppress(TimeoutError):  # Redis confirms the subscription on the reader's connection
            await asyncio.wait_for(confirmed.wait(), timeout=5)

    async def unsubscribe(self, channel: str, handler: Handler) -> None:
        handlers = self._handlers.get(channel)
        if not handlers or handler not in handlers:
            return
        handlers.remove(handler)
        if handlers:
            return
        del self._handlers[channel]
        queue = self._queues.pop(channel, None)
        self._workers.pop(channel, None)
        self._confirmed.pop(channel, None)
        if queue is not None:
            queue.put_nowait(None)  # the worker finishes what is queued, then stops
        with contextlib.suppress(Exception):
            await self.pubsub.unsubscribe(self.prefix + channel)

    async def _work(self, channel: str, queue: asyncio.Queue[dict[str, Any] | None]) -> None:
        while True:
            message = await queue.get()
            if message is None:
                return
            for handler in list(self._handlers.get(channel, ())):
                try:
                    await handler(message)
                except Exception:  # one broken subscriber must not starve the others
                    log.exception("bus handler failed on %s", channel)

    async def _read(self) -> None:
        while True:
            try:
                raw = await self.pubsub.get_message(ignore_subscribe_messages=False, timeout=1.0)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("redis subscriber connection failed; retrying")
                await asyncio.sleep(0.5)
                continue
            if raw is None:
                continue
            channel = _text(raw["channel"])[len(self.prefix):]
            if raw["type"] == "subscribe":
                event = self._confirmed.get(channel)
                if event is not None:
                    event.set()
                continue
            if raw["type"] != "message":
                continue
            message = json.loads(_text(raw["data"]))
            queue = self._queues.get(channel)
            if queue is not None:
                queue.put_nowait(message)
            elif self.on_unhandled is not None:
                asyncio.get_running_loop().create_task(self.on_unhandled(channel, message))

    async def close(self) -> None:
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(BaseException):
                await self._reader
        for queue in self._queues.values():
            queue.put_nowait(None)
        with contextlib.suppress(Exception):
            await self.pubsub.aclose()  # type: ignore[no-untyped-call, unused-ignore]  # typed from redis 8


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
