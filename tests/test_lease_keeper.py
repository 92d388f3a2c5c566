"""The lease keeper (several nodes): a node whose event loop is busy keeps its tables, because a thread renews
their leases; a node whose loop has stopped saying it is alive lets them go. On PostgreSQL
(``TRICKROOM_TEST_POSTGRES``), in a fresh schema dropped afterwards."""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Iterator

import pytest
from conftest import need_service
from test_server_postgres import POSTGRES, _execute, postgres_available

from trickroom.server.lease_keeper import LeaseKeeper
from trickroom.server.store import Store, TableRow

pytestmark = pytest.mark.services
LEASE = 1.5  # seconds


@pytest.fixture
def store_schema() -> Iterator[str]:
    need_service(postgres_available(), f"PostgreSQL is not reachable at {POSTGRES}")
    name = f"trickroom_lease_{secrets.token_hex(4)}"
    yield name
    asyncio.run(_execute(f'DROP SCHEMA IF EXISTS "{name}" CASCADE'))


async def _new_table(schema: str, owner: str) -> int:
    store = Store(POSTGRES, schema)
    try:
        await store.migrate()
        number = await store.create_table(TableRow(game="bura", options={}, settings={}, seats=[], host={},
                                                   status="playing"))
        assert await store.claim_table(number, owner, LEASE)
        return number
    finally:
        await store.close()


async def _orphans(schema: str) -> list[int]:
    store = Store(POSTGRES, schema)
    try:
        return await store.orphan_tables()
    finally:
        await store.close()


def test_a_busy_loop_keeps_its_tables_and_a_hung_one_lets_them_go(store_schema: str) -> None:
    number = asyncio.run(_new_table(store_schema, "n1"))
    keeper = LeaseKeeper(POSTGRES, store_schema, "n1", LEASE, stall_limit=3 * LEASE)
    keeper.alive({number})
    keeper.start()
    try:
        # The "loop" says it is alive now and then, but never renews anything itself: the thread does.
        for _ in range(4):
            time.sleep(LEASE * 0.6)
            keeper.alive({number})
        assert asyncio.run(_orphans(store_schema)) == []
        # Now the loop falls silent: after the stall limit the keeper stops, and the lease runs out.
        time.sleep(3 * LEASE + LEASE + 1.0)
        assert asyncio.run(_orphans(store_schema)) == [number]
    finally:
        keeper.stop()


def test_the_keeper_never_takes_back_a_table_another_node_owns(store_schema: str) -> None:
    number = asyncio.run(_new_table(store_schema, "n2"))
    keeper = LeaseKeeper(POSTGRES, store_schema, "n1", LEASE)
    keeper.alive({number})  # n1 wrongly believes it owns the table
    keeper.start()
    try:
        time.sleep(LEASE + 1.0)
        assert asyncio.run(_orphans(store_schema)) == [number]  # n2's lease ran out; n1 did not renew it
    finally:
        keeper.stop()
