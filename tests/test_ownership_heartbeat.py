"""One node's heartbeat among several, with stand-ins for the room's store, Redis and lobby: who is online is read
from Redis when a node came or went, and otherwise only every PRESENCE_RECONCILE_SECONDS (a fake clock); while the
lease keeper renews, the heartbeat checks only the leases it could not renew. And a table taken over answers no
intent before it is restored."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any, cast

from test_lease_keeper import Clock

from trickroom.server.lease_keeper import LeaseKeeper
from trickroom.server.ownership import PRESENCE_RECONCILE_SECONDS, Ownership


class Stand:
    """The room's parts the heartbeat touches, counting how often everyone online is read."""

    def __init__(self) -> None:
        self.nodes: dict[str, Any] = {"n1": {"url": "ws://a/ws"}, "n2": {"url": "ws://b/ws"}}
        self.reconciled = 0
        self.rewritten = 0
        self.renewed: list[list[int]] = []

    async def heartbeat(self, users: Any, draining: bool = False, rewrite: bool = True) -> None:
        self.rewritten += rewrite

    async def live_nodes(self) -> dict[str, Any]:
        return dict(self.nodes)

    async def renew_leases(self, node: str, tables: list[int], lease: float) -> set[int]:
        self.renewed.append(tables)
        return set(tables)

    async def orphan_tables(self) -> list[int]:
        return []

    async def reconcile_presence(self) -> None:
        self.reconciled += 1


def one_node() -> tuple[Stand, Callable[[float], None], Ownership]:
    """A node among several with the stand-ins, and ``beat(seconds)``: the fake clock moves on, then a heartbeat."""
    stand, clock = Stand(), Clock()
    settings = SimpleNamespace(websocket_url="ws://here/ws", node_id="n1", lease_seconds=3.0)
    room: Any = SimpleNamespace(settings=settings, cluster=stand, store=stand, lobby=stand, users_here=dict)
    ownership = Ownership(room)
    ownership.clock = clock

    def beat(seconds: float) -> None:
        clock.now += seconds
        asyncio.run(ownership.heartbeat())

    return stand, beat, ownership


def test_everyone_online_is_read_when_a_node_comes_or_goes_and_now_and_then() -> None:
    stand, heartbeat, ownership = one_node()

    def beat(seconds: float) -> int:
        heartbeat(seconds)
        return stand.reconciled

    assert beat(0) == 1  # the first beat reads it
    assert ownership.node_urls == ["ws://a/ws", "ws://b/ws"]
    assert [beat(1) for _ in range(5)] == [1] * 5  # nothing changed: the lobby's messages keep it
    stand.nodes["n3"] = {"url": "ws://c/ws"}
    assert beat(1) == 2  # a node came
    del stand.nodes["n2"]
    assert beat(1) == 3  # a node went: its people leave with it
    assert beat(PRESENCE_RECONCILE_SECONDS - 1) == 3
    assert beat(1) == 4  # and now and then, for a message lost


def test_a_node_writes_its_list_of_users_anew_now_and_then_not_at_every_beat() -> None:
    stand, beat, _ = one_node()
    written = []
    for second in range(int(PRESENCE_RECONCILE_SECONDS) * 2 + 1):
        beat(0 if second == 0 else 1)
        written.append(stand.rewritten)
    assert written[0] == 1 and written[int(PRESENCE_RECONCILE_SECONDS) - 1] == 1  # the first beat, then not
    assert written[-1] == 3  # once every PRESENCE_RECONCILE_SECONDS


class Refusing:
    """The keeper's store: it does not get back the lease of table 2 (another node took it, or it closed)."""

    async def renew_leases(self, node_id: str, table_ids: list[int], lease_seconds: float) -> set[int]:
        return set(table_ids) - {2}


def test_while_the_keeper_renews_the_heartbeat_checks_only_the_leases_it_could_not_renew() -> None:
    stand, beat, ownership = one_node()
    ownership.tables.update({f"t{n}": cast(Any, SimpleNamespace(id=f"t{n}", number=n)) for n in (1, 2, 3)})
    keeper_clock, refusing = Clock(), cast(Any, Refusing())
    keeper = ownership.lease_keeper = LeaseKeeper("sqlite://", None, "n1", 3.0, clock=keeper_clock)
    beat(0)  # the keeper has not renewed yet: the heartbeat renews them all
    keeper.alive({1, 2, 3})
    assert asyncio.run(keeper.renew(refusing)) is True
    beat(1)  # table 2 was not renewed by the keeper: the heartbeat asks for it again (here it is still ours)
    beat(1)  # nothing new: nothing to write
    keeper_clock.now += 2.1  # the keeper has fallen silent for two of its rounds: the heartbeat renews them all
    beat(1)
    assert stand.renewed == [[1, 2, 3], [2], [], [1, 2, 3]]


def test_an_intent_that_comes_while_a_table_is_taken_over_waits_for_the_restored_table() -> None:
    """A node that takes a table over owns it (its intents come here) before the table is restored with its
    members: an act that came in between was answered by a table without them (``not_member``, once in CI). The
    take-over now holds the table's lock from the moment the table is its own."""
    order: list[str] = []

    class Table:
        id, number = "t7", 7
        lock = asyncio.Lock()
        state = SimpleNamespace(people_here=tuple, game_name="bura", status="playing", match=None)

        async def handle(self, intent: Any) -> None:  # as the real table: one intent at a time, under its lock
            async with self.lock:
                order.append(intent["kind"])

        async def step(self, intent: Any) -> None:
            order.append(type(intent).__name__)

    table = Table()

    class Bus:
        async def subscribe(self, channel: str, handler: Callable[[Any], Any]) -> None:
            # Redis confirms the subscription after a round trip; an act published meanwhile is handed on.
            asyncio.get_running_loop().create_task(handler({"kind": "intent"}))
            await asyncio.sleep(0)
            await asyncio.sleep(0)

    async def user_langs() -> dict[str, str]:
        return {}

    lobby = SimpleNamespace(online={"g1": {"id": "g1"}}, people_at=lambda table_id: ["g1"])
    settings = SimpleNamespace(websocket_url="ws://here/ws", node_id="n2", lease_seconds=3.0)
    room: Any = SimpleNamespace(settings=settings, bus=Bus(), lobby=lobby,
                                user_langs=user_langs, cluster=None)
    ownership = Ownership(room)

    async def rebuilt(row: Any) -> tuple[Any, tuple[()]]:
        return table, ()

    ownership.rebuilt = rebuilt  # type: ignore[method-assign]

    async def scenario() -> None:
        await ownership.take_over(cast(Any, SimpleNamespace(id=7, status="playing")))
        await asyncio.sleep(0.01)

    asyncio.run(scenario())
    assert order == ["Restored", "intent"]
