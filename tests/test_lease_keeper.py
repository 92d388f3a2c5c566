"""The lease keeper (several nodes): a node whose event loop is busy keeps its tables, because a thread renews
their leases; a node whose loop has stopped saying it is alive lets them go; and it never renews a lease another
node holds. Its rounds are driven by hand with a clock the test moves; the thread and the owner check run on
PostgreSQL (``TRICKROOM_TEST_POSTGRES``), in a fresh schema dropped afterwards."""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest
from conftest import need_service
from test_server_postgres import POSTGRES, _execute, postgres_available

from trickroom.server.lease_keeper import LeaseKeeper
from trickroom.server.ownership import taken_by_others
from trickroom.server.rows import TableRow
from trickroom.server.store import Store

LEASE = 1.5  # seconds


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Renewals:
    """The store's part the keeper uses, keeping each renewal."""

    def __init__(self) -> None:
        self.renewed: list[tuple[str, list[int]]] = []

    async def renew_leases(self, node_id: str, table_ids: list[int], lease_seconds: float) -> set[int]:
        self.renewed.append((node_id, table_ids))
        return set(table_ids)


def test_a_busy_loop_keeps_its_tables_and_a_hung_one_lets_them_go() -> None:
    clock, store = Clock(), Renewals()
    keeper = LeaseKeeper("sqlite://", None, "n1", LEASE, stall_limit=15.0, clock=clock)
    store_any: Any = store

    def round_() -> bool:
        return asyncio.run(keeper.renew(store_any))

    assert round_() is False  # the loop has named no table yet
    keeper.alive({7, 3})
    # The loop is busy: it says it is alive now and then, and the thread renews for it.
    for _ in range(3):
        clock.now += 14.0
        assert round_() is True
        keeper.alive({7, 3})
    assert store.renewed == [("n1", [3, 7])] * 3
    # Now the loop falls silent: past the stall limit the keeper stops renewing, and the leases run out.
    clock.now += 15.1
    assert round_() is False and len(store.renewed) == 3
    keeper.alive({3})  # alive again, with one table left
    assert round_() is True and store.renewed[-1] == ("n1", [3])


def test_a_table_claimed_between_heartbeats_is_renewed_from_the_next_round() -> None:
    """A table made (or taken over) while the loop is too busy for its heartbeat: its first lease would run out
    before the heartbeat names it, and another node would take it in the middle of play."""
    clock, store = Clock(), Renewals()
    keeper = LeaseKeeper("sqlite://", None, "n1", LEASE, clock=clock)
    store_any: Any = store
    keeper.alive({3})
    keeper.owns(8)  # made now; no heartbeat since
    assert asyncio.run(keeper.renew(store_any)) is True
    keeper.lets_go(3)  # closed
    assert asyncio.run(keeper.renew(store_any)) is True
    assert store.renewed == [("n1", [3, 8]), ("n1", [8])]
    keeper.alive({8, 9})  # the heartbeat's list stands as it is
    assert asyncio.run(keeper.renew(store_any)) is True and store.renewed[-1] == ("n1", [8, 9])


def test_a_late_renewal_is_logged_with_its_gap(caplog: pytest.LogCaptureFixture) -> None:
    """A round that comes late (a starved thread, a slow database) is what lets a live node's tables move: the
    keeper logs it past four fifths of a lease, and keeps the longest gap."""
    clock, store = Clock(), Renewals()
    keeper = LeaseKeeper("sqlite://", None, "n1", LEASE, clock=clock)
    store_any: Any = store
    keeper.alive({3})
    with caplog.at_level("WARNING", logger="trickroom.server.lease_keeper"):
        for step in (0.0, LEASE / 3, LEASE * 0.75, LEASE * 0.9):
            clock.now += step
            keeper.alive({3})
            assert asyncio.run(keeper.renew(store_any)) is True
    assert [record.getMessage() for record in caplog.records] == [
        "leases renewed 1.4 s after the last renewal (lease 1.5 s)"]
    assert keeper.longest_gap == pytest.approx(LEASE * 0.9)


def test_only_a_table_still_held_here_counts_as_taken_by_another_node() -> None:
    """The heartbeat renews the leases of the tables it held as it began; one that closed (released) while the
    renewal waited for the database is not renewed either, and was not taken by anyone."""
    first, second, closed = (SimpleNamespace(id=f"t{n}") for n in (1, 2, 3))
    owned: dict[int, Any] = {1: first, 2: second, 3: closed}
    here: dict[str, Any] = {"t1": first, "t2": second}
    assert taken_by_others(owned, {1}, here) == [second]
    assert taken_by_others(owned, {1, 2}, here) == []
    here["t2"] = SimpleNamespace(id="t2")  # given up and taken back meanwhile: another object, not that one
    assert taken_by_others(owned, {1}, here) == []


@pytest.fixture
def store_schema() -> Iterator[str]:
    need_service(postgres_available(), f"PostgreSQL is not reachable at {POSTGRES}")
    name = f"trickroom_lease_{secrets.token_hex(4)}"
    yield name
    asyncio.run(_execute(f'DROP SCHEMA IF EXISTS "{name}" CASCADE'))


async def _new_table(store: Store, owner: str) -> int:
    number = await store.create_table(TableRow(game="bura", options={}, settings={}, seats=[], host={},
                                               status="playing"))
    assert await store.claim_table(number, owner, LEASE)
    return number


@pytest.mark.services
def test_the_keeper_never_takes_back_a_table_another_node_owns(store_schema: str) -> None:
    async def scenario() -> None:
        store = Store(POSTGRES, store_schema)
        try:
            await store.migrate()
            number = await _new_table(store, "n2")
            before = await store.table(number)
            keeper = LeaseKeeper(POSTGRES, store_schema, "n1", LEASE)
            keeper.alive({number})  # n1 wrongly believes it owns the table
            assert await keeper.renew(store) is True
            after = await store.table(number)
            assert before is not None and after is not None
            assert (after.owner_node, after.lease_until) == ("n2", before.lease_until)  # n2's lease, untouched
        finally:
            await store.close()

    asyncio.run(scenario())


@pytest.mark.services
def test_the_keepers_thread_renews_the_leases(store_schema: str) -> None:
    async def lease_of(number: int) -> Any:
        store = Store(POSTGRES, store_schema)
        try:
            row = await store.table(number)
            assert row is not None
            return row.lease_until
        finally:
            await store.close()

    async def setup() -> int:
        store = Store(POSTGRES, store_schema)
        try:
            await store.migrate()
            return await _new_table(store, "n1")
        finally:
            await store.close()

    number = asyncio.run(setup())
    first = asyncio.run(lease_of(number))
    keeper = LeaseKeeper(POSTGRES, store_schema, "n1", LEASE)
    keeper.alive({number})
    keeper.start()
    try:
        deadline = time.monotonic() + 20
        while asyncio.run(lease_of(number)) == first:  # a round every LEASE / 3 seconds
            assert time.monotonic() < deadline, "the keeper never renewed the lease"
            time.sleep(0.1)
    finally:
        keeper.stop()
