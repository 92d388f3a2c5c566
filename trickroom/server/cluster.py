"""What the nodes of one room share in Redis besides messages: who the nodes are, who is online, the lobby's
table list. (Tables' truth and leases live in the database; see ``Store.claim_table``.)

Keys, under the group's prefix:

- ``nodes`` (hash): node id -> ``{"url": websocket address, "until": epoch seconds}``, renewed by each node's
  heartbeat; a node whose ``until`` has passed is dead (or stopped).
- ``users:<node>`` (hash): user id -> ``{"user": summary, "lang": "en"}`` for the users connected to that node;
  the key expires when the node stops renewing it.
- ``listings`` (hash): table id -> the table's lobby listing, so that a node that starts later knows every table.

A node's listing changes are gathered for up to ``listing_seconds`` (0.1 s in the room) and written together: one
``HSET`` and one ``PUBLISH`` of their news (``{"kind": "several", "news": [...]}`` when there are more than one).
Tables change their listings with every sit, start, finish and leave, about 0.7 times per action in a busy evening,
and each write to Redis cost the node about a tenth of a millisecond of CPU, and every node another read
(docs/performance.md, "The lobby's news gathered"). The lobby's clients hear changes in batches every 0.3 s anyway.
A change with nothing written in the last ``listing_seconds`` is written at once.

Who is online is the union of the live nodes' user hashes: every node computes it the same way, so the lobby is
the same everywhere and a dead node's users drop out by themselves when its entry expires.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

import redis.asyncio as redis

from trickroom.server.redis_bus import pack, unpack
from trickroom.server.redis_publisher import Publisher

log = logging.getLogger("trickroom.room")
Message = dict[str, Any]
Change = tuple[Message | None, Message]  # a table's listing (None: unlisted) and the lobby's news of it


class Cluster:
    def __init__(self, client: redis.Redis, prefix: str, node_id: str, url: str, ttl: float,
                 publisher: Publisher, listing_seconds: float = 0.0,
                 clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep) -> None:
        self.redis = client
        self.publisher = publisher  # the bus's own connection: listings in order with the lobby's news, users
        self.prefix = prefix
        self.node_id = node_id
        self.url = url
        self.ttl = ttl
        self._others: list[str] = []  # the other live nodes, as last read (who is online elsewhere asks them)
        self.listing_seconds, self.clock, self.sleep = listing_seconds, clock, sleep
        self._changes: dict[str, Change] = {}  # table id -> its latest change not written yet, in order
        self._last_write = -float("inf")
        self._writer: asyncio.Task[None] | None = None  # waits to write the changes gathered meanwhile

    def key(self, name: str) -> str:
        return self.prefix + name

    async def heartbeat(self, users: Callable[[], dict[str, Message]], draining: bool = False,
                        rewrite: bool = True) -> None:
        """Announce this node alive for ``ttl`` seconds more, and its list of users with it. A draining node
        (stopping) still counts its users online for the ttl but is no longer offered to clients.

        The list is kept up to date as people come and go (:meth:`arrive`, :meth:`leave`); ``rewrite``
        writes it anew from ``users()`` (who is connected here), the safety net for a change lost on the way. It
        is rewritten anyway if it expired (a late beat). Rewriting it at every beat cost each node a thousand
        entries a second at 3000 people (docs/performance.md, "Measured by sampling: three nodes, the writes, a
        sign-in")."""
        entry = pack({"url": self.url, "until": time.time() + self.ttl, "draining": draining})
        key = self.key(f"users:{self.node_id}")
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hset(self.key("nodes"), self.node_id, entry)
            pipe.pexpire(key, int(self.ttl * 1000))
            _, kept = await pipe.execute()
        if kept and not rewrite:
            return
        here = users()
        if not here and not kept:
            return
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.delete(key)
            if here:
                pipe.hset(key, mapping={uid: pack(value) for uid, value in here.items()})
            pipe.pexpire(key, int(self.ttl * 1000))
            await pipe.execute()

    async def live_nodes(self) -> dict[str, Message]:
        """Node id -> {"url", "until", "draining"} of every live node (this one once it has a heartbeat)."""
        return self._live(await self.redis.hgetall(self.key("nodes")))

    def _live(self, raw: dict[Any, Any]) -> dict[str, Message]:
        now = time.time()
        return {_text(node): entry for node, value in raw.items() if (entry := unpack(value))["until"] > now}

    async def addresses(self, exclude: str | None = None) -> list[str]:
        """The websocket addresses clients may use: live nodes that are not stopping."""
        return addresses_of(await self.live_nodes(), exclude)

    async def online(self) -> dict[str, Message]:
        """User id -> {"user", "lang"} for everyone connected to a live node."""
        found: dict[str, Message] = {}
        for node in await self.live_nodes():
            for uid, value in (await self.redis.hgetall(self.key(f"users:{node}"))).items():
                found.setdefault(_text(uid), unpack(value))
        return found

    async def arrive(self, user: Message, lang: str) -> bool:
        """Count ``user`` online on this node, and tell whether they were already online on another: one round
        trip to Redis on the bus's connection (a second one only when a node this one has not seen yet is
        alive). A move to a table's node made four of them one after another on each side, then one through
        redis-py's pipeline, which cost more than the bus's connection."""
        key = self.key(f"users:{self.node_id}").encode()
        asked, questions = self._ask_elsewhere(user["id"])
        replies = await self.publisher.run([(b"HSET", key, user["id"].encode(), pack({"user": user, "lang": lang})),
                                            (b"PEXPIRE", key, b"%d" % int(self.ttl * 1000)), *questions])
        return await self._elsewhere(user["id"], asked, replies[2:])

    async def leave(self, uid: str) -> bool:
        """Count ``uid`` no longer online on this node, and tell whether they are still online on another: one
        round trip, as :meth:`arrive`."""
        asked, questions = self._ask_elsewhere(uid)
        replies = await self.publisher.run([(b"HDEL", self.key(f"users:{self.node_id}").encode(), uid.encode()),
                                            *questions])
        return await self._elsewhere(uid, asked, replies[1:])

    def _ask_elsewhere(self, uid: str) -> tuple[list[str], list[tuple[bytes, ...]]]:
        """The other nodes seen alive the last time, and the commands that ask for the list of nodes and, for each
        of them, whether ``uid`` is in its list of users."""
        asked = list(self._others)
        return asked, [(b"HGETALL", self.key("nodes").encode()),
                       *((b"HEXISTS", self.key(f"users:{node}").encode(), uid.encode()) for node in asked)]

    async def _elsewhere(self, uid: str, asked: list[str], replies: list[Any]) -> bool:
        """From the replies to :meth:`_ask_elsewhere`: whether a live node other than this one lists ``uid``. A
        node alive now that was not asked about (it started since) is asked in a second trip."""
        nodes = replies[0]
        others = [node for node in self._live(dict(zip(nodes[::2], nodes[1::2], strict=True))) if node != self.node_id]
        self._others = others
        found = dict(zip(asked, replies[1:], strict=True))
        if any(found.get(node) for node in others):
            return True
        unasked = [node for node in others if node not in found]
        if not unasked:
            return False
        return any(await self.publisher.run([(b"HEXISTS", self.key(f"users:{node}").encode(), uid.encode())
                                             for node in unasked]))

    async def list_table(self, table_id: str, listing: Message, news: Message) -> None:
        """Keep ``listing`` as the table's entry in the list and tell the lobby ``news``, with this node's other
        changes of the moment (see the module's text). The entry and the news go in one write on the bus's
        connection, so that the lobby hears them in order with the rest of this node's news, and any node reading
        the list after the news finds the entry."""
        await self._change(table_id, (listing, news))

    async def unlist_table(self, table_id: str, news: Message) -> None:
        """Take the table off the list and tell the lobby ``news``, as :meth:`list_table`."""
        await self._change(table_id, (None, news))

    async def _change(self, table_id: str, change: Change) -> None:
        self._changes.pop(table_id, None)  # (a table's news goes after the changes of tables before it)
        self._changes[table_id] = change
        if self._writer is not None and not self._writer.done():
            return  # the waiting writer takes this change too
        wait = self._last_write + self.listing_seconds - self.clock()
        if wait <= 0:
            await self.write_listings()
        else:
            self._writer = asyncio.get_running_loop().create_task(self._write_after(wait))

    async def _write_after(self, wait: float) -> None:
        while self._changes:
            await self.sleep(wait)
            await self.flush()
            wait = max(0.0, self._last_write + self.listing_seconds - self.clock())

    async def flush(self) -> None:
        """Write the changes gathered so far now (a node that hands a table over writes its listing before the next
        owner writes its own); a failure is logged, not raised."""
        try:
            await self.write_listings()
        except Exception:  # Redis is unreachable: the bus is down too; each table's next change is written anew
            log.exception("could not write the lobby's listings to Redis")

    async def write_listings(self) -> None:
        """Write the changes gathered so far: the entries, the tables unlisted, and the news, in one write."""
        changes, self._changes = self._changes, {}
        if not changes:
            return
        self._last_write = self.clock()
        key = self.key("listings").encode()
        listed = [part for table_id, (listing, _) in changes.items() if listing is not None
                  for part in (table_id.encode(), pack(listing))]
        unlisted = [table_id.encode() for table_id, (listing, _) in changes.items() if listing is None]
        news = [news for _, news in changes.values()]
        await self.publisher.run([*([(b"HSET", key, *listed)] if listed else []),
                                  *([(b"HDEL", key, *unlisted)] if unlisted else []),
                                  (b"PUBLISH", self.key("lobby").encode(),
                                   pack(news[0] if len(news) == 1 else {"kind": "several", "news": news}))])

    async def close(self) -> None:
        """Write what is gathered now, instead of after the wait (a node that stops)."""
        if self._writer is not None:
            self._writer.cancel()
        await self.flush()

    async def listings(self) -> dict[str, Message]:
        raw = await self.redis.hgetall(self.key("listings"))
        return {_text(k): unpack(v) for k, v in raw.items()}


def addresses_of(nodes: dict[str, Message], exclude: str | None = None) -> list[str]:
    """The websocket addresses of ``nodes`` (as :meth:`Cluster.live_nodes` gives them) that are not stopping."""
    return sorted(str(e["url"]) for node, e in nodes.items() if not e.get("draining") and node != exclude)


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
