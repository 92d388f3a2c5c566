"""What the nodes of one room share in Redis besides messages: who the nodes are, who is online, the lobby's
table list. (Tables' truth and leases live in the database; see ``Store.claim_table``.)

Keys, under the group's prefix:

- ``nodes`` (hash): node id -> ``{"url": websocket address, "until": epoch seconds}``, renewed by each node's
  heartbeat; a node whose ``until`` has passed is dead (or stopped).
- ``users:<node>`` (hash): user id -> ``{"user": summary, "lang": "en"}`` for the users connected to that node;
  the key expires when the node stops renewing it.
- ``listings`` (hash): table id -> the table's lobby listing, so that a node that starts later knows every table.

Who is online is the union of the live nodes' user hashes: every node computes it the same way, so the lobby is
the same everywhere and a dead node's users drop out by themselves when its entry expires.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import redis.asyncio as redis

from trickroom.server.redis_bus import pack, unpack

Message = dict[str, Any]


class Cluster:
    def __init__(self, client: redis.Redis, prefix: str, node_id: str, url: str, ttl: float) -> None:
        self.redis = client
        self.prefix = prefix
        self.node_id = node_id
        self.url = url
        self.ttl = ttl

    def key(self, name: str) -> str:
        return self.prefix + name

    async def heartbeat(self, users: Callable[[], dict[str, Message]], draining: bool = False,
                        rewrite: bool = True) -> None:
        """Announce this node alive for ``ttl`` seconds more, and its list of users with it. A draining node
        (stopping) still counts its users online for the ttl but is no longer offered to clients.

        The list is kept up to date as people come and go (:meth:`add_user`, :meth:`remove_user`); ``rewrite``
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
        raw = await self.redis.hgetall(self.key("nodes"))
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

    async def add_user(self, user: Message, lang: str) -> None:
        key = self.key(f"users:{self.node_id}")
        await self.redis.hset(key, user["id"], pack({"user": user, "lang": lang}))
        await self.redis.pexpire(key, int(self.ttl * 1000))

    async def remove_user(self, uid: str) -> None:
        await self.redis.hdel(self.key(f"users:{self.node_id}"), uid)

    async def online_elsewhere(self, uid: str) -> bool:
        for node in await self.live_nodes():
            if node != self.node_id and await self.redis.hexists(self.key(f"users:{node}"), uid):
                return True
        return False

    async def set_listing(self, table_id: str, listing: Message) -> None:
        await self.redis.hset(self.key("listings"), table_id, pack(listing))

    async def drop_listing(self, table_id: str) -> None:
        await self.redis.hdel(self.key("listings"), table_id)

    async def listings(self) -> dict[str, Message]:
        raw = await self.redis.hgetall(self.key("listings"))
        return {_text(k): unpack(v) for k, v in raw.items()}


def addresses_of(nodes: dict[str, Message], exclude: str | None = None) -> list[str]:
    """The websocket addresses of ``nodes`` (as :meth:`Cluster.live_nodes` gives them) that are not stopping."""
    return sorted(str(e["url"]) for node, e in nodes.items() if not e.get("draining") and node != exclude)


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
