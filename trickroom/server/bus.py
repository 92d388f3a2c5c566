"""The message bus between connections and table owners: publish/subscribe on named channels.

Channels used by the room:

- ``table:<id>``: intents for a table (client messages, presence changes), read by the table's owner only.
- ``user:<id>``: finished messages for one user (already filtered and narrated for them), read by every node
  where that user is connected; ``{"message": {...}, "conn": id?}`` (``conn`` targets one connection).
- ``lobby``: presence, table listings and lobby chat, read by every node.

:class:`LocalBus` delivers in process, in order, awaiting each handler. :class:`trickroom.server.redis_bus.RedisBus`
keeps the same interface across nodes: ``publish`` returns how many subscribers received the message (counted per
node there, as Redis ``PUBLISH`` counts connections), which the room uses to detect a table nobody owns.
``subscribe`` returns once the subscription is in force, so nothing published afterwards is missed.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol

Handler = Callable[[dict[str, Any]], Awaitable[None]]
log = logging.getLogger("trickroom.bus")


class Bus(Protocol):
    async def publish(self, channel: str, message: dict[str, Any]) -> int:
        """Send ``message`` to every subscriber of ``channel``; return how many there were."""
        ...

    async def publish_many(self, items: Sequence[tuple[str, dict[str, Any]]]) -> None:
        """``publish`` each (channel, message) of ``items``, in order (a table step's deliveries to its people)."""
        ...

    async def subscribe(self, channel: str, handler: Handler) -> None: ...

    async def unsubscribe(self, channel: str, handler: Handler) -> None: ...

    async def close(self) -> None: ...


class LocalBus:
    """In-process bus: one server process is the whole room."""

    def __init__(self) -> None:
        self._handlers: defaultdict[str, list[Handler]] = defaultdict(list)

    async def publish(self, channel: str, message: dict[str, Any]) -> int:
        handlers = list(self._handlers.get(channel, ()))
        for handler in handlers:
            try:
                await handler(message)
            except Exception:  # one broken subscriber must not starve the others
                log.exception("bus handler failed on %s", channel)
        return len(handlers)

    async def publish_many(self, items: Sequence[tuple[str, dict[str, Any]]]) -> None:
        for channel, message in items:
            await self.publish(channel, message)

    async def subscribe(self, channel: str, handler: Handler) -> None:
        self._handlers[channel].append(handler)

    async def unsubscribe(self, channel: str, handler: Handler) -> None:
        handlers = self._handlers.get(channel)
        if handlers and handler in handlers:
            handlers.remove(handler)
            if not handlers:
                del self._handlers[channel]

    async def close(self) -> None:
        self._handlers.clear()
