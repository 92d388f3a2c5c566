"""The room's CPU for a one-statement write on PostgreSQL, the way the store does it and the way it did.

    .venv/bin/python bench/pg_writes.py [--postgres URL] [--rounds R] [--transactions N]

An action log's batch, a table's save, a lease's renewal: each is one statement. The store ran each through an
ORM session in a transaction of its own (begin, the statement, commit: three trips to the database); it now sends
it in autocommit (a statement is a transaction by itself), through the pool (``Store.write_statement``) or, for
the action log, on a connection held between batches, through SQLAlchemy's statement until 2026-12-06 and since
through asyncpg's own (``Store._insert_actions``, ``pg_insert.py``). This appends one action row per transaction
in each of the four ways, alternating over ``--rounds`` rounds so that a change in the machine's
load touches all alike, and prints the median CPU microseconds of this process per transaction (the database
server's own time is not in it) and the wall time. Then it reads one table's row in a transaction and in
autocommit (``Store.read`` since 2026-12-06), alternating as well; and renews the leases of 300 tables (what a
node of the evening holds) with their numbers as a list of parameters (``IN``, until 2026-12-06) and as one array
(``= ANY``, ``Store.renew_leases``). A fresh schema is made in the database and dropped.
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
import statistics
import time
from collections.abc import Awaitable, Callable
from typing import Any, cast

from sqlalchemy import Table, insert, select, text, update

from trickroom.server.rows import ActionRow, TableRow, utcnow
from trickroom.server.store import Store

Way = Callable[[list[dict[str, Any]]], Awaitable[Any]]


async def measure(postgres: str, rounds: int, transactions: int) -> None:
    schema = f"trickroom_bench_{secrets.token_hex(4)}"
    store = Store(postgres, schema)
    await store.migrate()
    try:
        table = await store.create_table(TableRow(game="bura", options={}, settings={}, seats=[], host={},
                                                  status="playing"))
        seq = 0

        def row() -> list[dict[str, Any]]:
            nonlocal seq
            seq += 1
            return [{"table_id": table, "seq": seq, "seat": 0, "action": "play 7H", "event_seq": seq, "actor": "u1",
                     "created_at": utcnow()}]

        async def orm_session(rows: list[dict[str, Any]]) -> None:  # as before 2026-12-05
            await store.write(lambda s: s.execute(insert(ActionRow), rows))

        async def autocommit_pool(rows: list[dict[str, Any]]) -> None:
            await store.write_statement(insert(ActionRow), rows)

        assert store.autocommit is not None
        held = await store.autocommit.connect()

        async def held_statement(rows: list[dict[str, Any]]) -> None:  # as before 2026-12-06
            await held.execute(insert(ActionRow), rows)

        ways: dict[str, Way] = {"ORM session, begin and commit": orm_session,
                                "autocommit, a pooled connection": autocommit_pool,
                                "autocommit, a held connection, SQLAlchemy's statement": held_statement,
                                "autocommit, the action log's own connection, asyncpg's statement":
                                    store._insert_actions}
        cpu: dict[str, list[float]] = {name: [] for name in ways}
        wall: dict[str, list[float]] = {name: [] for name in ways}
        for _ in range(rounds):
            for name, way in ways.items():
                for _ in range(20):  # warm: statement caches, the held connection
                    await way(row())
                cpu0, wall0 = time.process_time(), time.perf_counter()
                for _ in range(transactions):
                    await way(row())
                cpu[name].append(1e6 * (time.process_time() - cpu0) / transactions)
                wall[name].append(1e6 * (time.perf_counter() - wall0) / transactions)
        for name in ways:
            print(f"  {name}: median {statistics.median(cpu[name]):.0f} us of CPU, "
                  f"{statistics.median(wall[name]):.0f} us of wall time per transaction "
                  f"(rounds: {', '.join(f'{x:.0f}' for x in cpu[name])})")
        await held.close()
        await measure_reads(store, table, rounds, transactions)
        await measure_renewals(store, rounds)
    finally:
        await store.close()
        dropper = Store(postgres)
        async with dropper.engine.begin() as conn:
            await conn.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
        await dropper.close()


async def measure_reads(store: Store, table: int, rounds: int, reads: int) -> None:
    """A read of one table's row: in a transaction (begin, the query, rollback), as ``Store.read`` did until
    2026-12-06, and in autocommit, as it does now."""
    query = select(TableRow).where(TableRow.id == table)

    async def in_transaction() -> Any:
        async with store.sessions() as session:
            return await session.run_sync(lambda s: s.execute(query).scalars().first())

    async def in_autocommit() -> Any:
        return await store.read(lambda s: s.execute(query).scalars().first())

    await alternate(f"one table's row read, {rounds} rounds of {reads} per way:",
                    {"a read in a transaction": in_transaction, "a read in autocommit (the store's)": in_autocommit},
                    rounds, reads, warm=20)


async def alternate(title: str, ways: dict[str, Callable[[], Awaitable[Any]]], rounds: int, calls: int,
                    warm: int) -> None:
    """Each of ``ways`` called ``calls`` times (after ``warm`` calls) in turn, ``rounds`` times; print the median
    CPU microseconds of this process per call."""
    cpu: dict[str, list[float]] = {name: [] for name in ways}
    for _ in range(rounds):
        for name, way in ways.items():
            for _ in range(warm):
                await way()
            cpu0 = time.process_time()
            for _ in range(calls):
                await way()
            cpu[name].append(1e6 * (time.process_time() - cpu0) / calls)
    print(title)
    for name in ways:
        print(f"  {name}: median {statistics.median(cpu[name]):.0f} us of CPU "
              f"(rounds: {', '.join(f'{x:.0f}' for x in cpu[name])})")


async def measure_renewals(store: Store, rounds: int, tables: int = 300, renewals: int = 100) -> None:
    """One node's renewal of its leases: the numbers as a list of parameters (``IN (...)``, as until 2026-12-06)
    and as one array (the store's)."""
    numbers = []
    for _ in range(tables):
        number = await store.create_table(TableRow(game="bura", options={}, settings={}, seats=[], host={},
                                                   status="playing"))
        await store.claim_table(number, "n1", 3.0)
        numbers.append(number)
    rows = cast(Table, TableRow.__table__)

    async def as_a_list() -> Any:
        return await store.write_returning(update(rows).where(rows.c.id.in_(numbers), rows.c.owner_node == "n1")
                                           .values(lease_until=utcnow()).returning(rows.c.id))

    async def as_an_array() -> Any:
        return await store.renew_leases("n1", numbers, 3.0)

    assert len(await as_a_list()) == len(await as_an_array()) == tables  # (every lease is this node's)
    await alternate(f"the leases of {tables} tables renewed, {rounds} rounds of {renewals} per way:",
                    {"the numbers as a list of parameters": as_a_list,
                     "the numbers as one array (the store's)": as_an_array}, rounds, renewals, warm=1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--postgres", default="postgresql://postgres@127.0.0.1:5432/test")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--transactions", type=int, default=500, help="transactions per way per round")
    args = parser.parse_args()
    print(f"one action row per transaction, {args.rounds} rounds of {args.transactions} per way:")
    asyncio.run(measure(args.postgres, args.rounds, args.transactions))


if __name__ == "__main__":
    main()
