"""The bus across nodes: Redis publish/subscribe (``redis.asyncio``), with the interface of :class:`LocalBus`.

Every node holds one subscriber connection. Channel names get the node group's key prefix. Messages of one
channel are handled in order, one at a time (a worker task per channel), and channels do not wait for each
other: a table busy with a password hash does not hold up the lobby.

A message that arrives for a channel this node no longer listens to (a table it just handed over) goes to
``on_unhandled``, so that the room can forward a table's intent to its new owner instead of losing it.

A message whose channel has this node as its only listener is delivered here, without the round trip through
Redis (the bus was about a sixth of three nodes' CPU, docs/performance.md): at once, as the one-node bus does,
unless earlier messages of the channel wait in its queue (then after them):

- a table's channel has one listener in the whole room, its owner (``SOLE_LISTENER``);
- a user's channel is heard wherever they are connected, nearly always on one node (``WATCHED``). A node that
  starts listening to one announces it on the channel (``JOINED``) and asks Redis how many listen. It is alone
  if Redis counts one; it stops being alone when another node's announcement comes. A node that stops listening
  announces that too (``LEFT``), and the others ask Redis again: a player who moved to their table's node
  (docs/protocol.md, "Several nodes") is alone there again once their old connection has closed.
  A node that joins can miss what the other sent in process before reading its announcement: messages for a
  connection still signing in, which asks for the tables' state afterwards (as it always could miss what came
  just before it listened).

Every other channel (the lobby's, the cluster's) goes through Redis.

Messages cross Redis as JSON made and read by orjson, several times faster than the standard library, which
stays the fallback for the few values orjson refuses (a lone surrogate, a key that is not a string). They are
published on a connection of the bus's own, pipelined (``redis_publisher.py``), and read on another
(``redis_subscriber.py``), each handed to :meth:`RedisBus.heard` as hiredis parses it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from collections import defaultdict
from collections.abc import Callable, Coroutine, Sequence
from typing import Any

import orjson
import redis.asyncio as redis

from trickroom.server.bus import Handler
from trickroom.server.redis_publisher import publisher_for
from trickroom.server.redis_subscriber import subscriber_for

log = logging.getLogger("trickroom.bus")
Unhandled = Callable[[str, dict[str, Any]], Coroutine[Any, Any, None]]
SOLE_LISTENER = ("table:",)  # channels only one node listens to (a table's owner), delivered here when it is this one
WATCHED = ("user:",)  # channels one node or several listen to: delivered here while this node is the only one
JOINED = "__joined__"  # a node's announcement on a WATCHED channel that it listens too (never reaches a handler)
LEFT = "__left__"  # a node's announcement on a WATCHED channel that it stopped listening (never reaches a handler)


class RedisBus:
    def __init__(self, client: redis.Redis, prefix: str) -> None:
        self.redis = client
        self.prefix = prefix
        self.publisher = publisher_for(client)
        self.subscriber = subscriber_for(client, self.heard, self.lost)
        self._handlers: defaultdict[str, list[Handler]] = defaultdict(list)
        self._queues: dict[str, asyncio.Queue[dict[str, Any] | None]] = {}
        self._workers: dict[str, asyncio.Task[None]] = {}
        self.on_unhandled: Unhandled | None = None
        self.node = secrets.token_hex(8)  # this bus among the nodes' (its own announcements are not news)
        self._alone: set[str] = set()  # WATCHED channels this node alone listens to
        self._shared: set[str] = set()  # WATCHED channels another node announced, until a node leaves them
        self._busy: set[str] = set()  # channels whose worker is handling a message from its queue
        self._tasks: set[asyncio.Task[None]] = set()

    async def publish(self, channel: str, message: dict[str, Any]) -> int:
        if await self._here(channel, message):
            return 1
        return await self.publisher.publish([(self.prefix + channel, pack(message))])

    async def _here(self, channel: str, message: dict[str, Any]) -> bool:
        """Deliver ``message`` here if ``channel`` has its one listener on this node (see the module's text): at
        once, as :class:`LocalBus` does, when nothing of the channel waits in its queue (a table's own lock keeps
        its intents in order), else after what waits."""
        queue = self._queues.get(channel)
        if queue is None or not (channel in self._alone or channel.startswith(SOLE_LISTENER)):
            return False
        if queue.empty() and channel not in self._busy:
            await self._run_handlers(channel, message)
        else:
            queue.put_nowait(message)
        return True

    async def publish_many(self, items: Sequence[tuple[str, dict[str, Any]]]) -> None:
        """One write and one wait for them all: a table step used to wait for Redis once per person at the table,
        one after another."""
        away = [(self.prefix + channel, pack(message))
                for channel, message in items if not await self._here(channel, message)]
        if away:
            await self.publisher.publish(away)

    async def subscribe(self, channel: str, handler: Handler) -> None:
        self._handlers[channel].append(handler)
        if channel in self._queues:
            return
        queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        self._queues[channel] = queue
        self._workers[channel] = asyncio.get_running_loop().create_task(self._work(channel, queue))
        await self.subscriber.subscribe((self.prefix + channel).encode())
        if channel.startswith(WATCHED):
            await self._join(channel)

    async def _join(self, channel: str, announce: str = JOINED) -> None:
        """Announce on ``channel`` that this node listens to it (or, ``announce=""``, only ask again after another
        node left it), and learn whether it is the only one."""
        name = (self.prefix + channel).encode()
        announcement = [(b"PUBLISH", name, pack({announce: self.node}))] if announce else []
        channel_and_count = (await self.publisher.run([*announcement, (b"PUBSUB", b"NUMSUB", name)]))[-1]
        alone = int(channel_and_count[1]) == 1
        if alone and channel in self._queues and channel not in self._shared:  # (no announcement read meanwhile)
            self._alone.add(channel)

    async def unsubscribe(self, channel: str, handler: Handler) -> None:
        handlers = self._handlers.get(channel)
        if not handlers or handler not in handlers:
            return
        handlers.remove(handler)
        if handlers:
            return
        del self._handlers[channel]
        self._alone.discard(channel)
        self._shared.discard(channel)
        queue = self._queues.pop(channel, None)
        self._workers.pop(channel, None)
        if queue is not None:
            queue.put_nowait(None)  # the worker finishes what is queued, then stops
        with contextlib.suppress(Exception):
            await self.subscriber.unsubscribe((self.prefix + channel).encode())
            if channel.startswith(WATCHED):
                await self.publisher.publish([(self.prefix + channel, pack({LEFT: self.node}))])

    async def _work(self, channel: str, queue: asyncio.Queue[dict[str, Any] | None]) -> None:
        while True:
            message = await queue.get()
            if message is None:
                return
            self._busy.add(channel)
            try:
                await self._run_handlers(channel, message)
            finally:
                self._busy.discard(channel)

    async def _run_handlers(self, channel: str, message: dict[str, Any]) -> None:
        for handler in list(self._handlers.get(channel, ())):
            try:
                await handler(message)
            except Exception:  # one broken subscriber must not starve the others
                log.exception("bus handler failed on %s", channel)

    def heard(self, name: bytes, data: bytes) -> None:
        """A message from Redis on the channel ``name`` (the prefix included): to its channel's queue, or, on a
        channel this node no longer listens to, to ``on_unhandled``."""
        channel = name.decode()[len(self.prefix):]
        message = unpack(data)
        if isinstance(message, dict) and JOINED in message:
            if message[JOINED] != self.node and channel in self._queues:  # another node listens too
                self._shared.add(channel)  # (through Redis from now on, until a node leaves the channel)
                self._alone.discard(channel)
            return
        if isinstance(message, dict) and LEFT in message:
            if message[LEFT] != self.node and channel in self._queues and channel not in self._alone:
                self._shared.discard(channel)  # perhaps alone now: ask Redis (an announcement read meanwhile
                self._spawn(self._join(channel, announce=""))  # puts the channel back among the shared)
            return
        queue = self._queues.get(channel)
        if queue is not None:
            queue.put_nowait(message)
        elif self.on_unhandled is not None:
            self._spawn(self.on_unhandled(channel, message))

    def lost(self) -> None:
        """The subscriber's connection was lost: an announcement may have been lost with it, so every channel goes
        through Redis from now on."""
        self._alone.clear()

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        """Run ``coro`` beside the reader (kept referenced until done: the loop holds tasks only weakly)."""
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def close(self) -> None:
        await self.subscriber.close()
        for queue in self._queues.values():
            queue.put_nowait(None)
        await self.publisher.close()


def pack(message: Any) -> bytes:
    """``message`` as the bus carries it (JSON)."""
    try:
        return orjson.dumps(message)
    except orjson.JSONEncodeError:  # a lone surrogate, a non-string key: the standard library writes them
        return json.dumps(message, separators=(",", ":")).encode()


def unpack(data: bytes | str) -> Any:
    """What :func:`pack` made (or a node of an earlier version, with the standard library)."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:  # the fallback's \ud800 escapes, which orjson refuses
        return json.loads(data)
