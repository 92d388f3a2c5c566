"""The action log's batches on PostgreSQL: a connection held between them, each batch one statement through asyncpg.

The action log is the room's most frequent write: on three nodes, a group commit of one or two rows for almost every
action. A connection checked out of the pool and returned for each batch cost as much as the statement, so one is
held between batches (in autocommit: the statement is its own transaction). Through SQLAlchemy's statement machinery
a batch then cost this process about 310 us of CPU; through asyncpg's own prepared statement, about 140 us
(``bench/pg_writes.py``; docs/performance.md, "The lobby's list written with its news"). The rows go in as one array
per column (``unnest``), so a batch is one statement of fixed text whatever its size: prepared once per connection,
and all of its rows or none (the fence of ``group_commit``). A row gives every column but the primary key, as the ORM
statement would take it. A violated constraint is raised as SQLAlchemy's ``IntegrityError``, as callers expect;
anything else as asyncpg raised it, and the next batch takes a fresh connection.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Table
from sqlalchemy.dialects import postgresql
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine


def unnest_insert(table: Table) -> tuple[tuple[str, ...], str]:
    """The columns a row of ``table`` gives (all but the primary key), and the statement inserting rows given as one
    array per column."""
    dialect = postgresql.dialect()  # type: ignore[no-untyped-call]
    columns = tuple(column.name for column in table.columns if not column.primary_key)
    arrays = ", ".join(f"${n}::{table.c[name].type.compile(dialect=dialect)}[]"
                       for n, name in enumerate(columns, start=1))
    return columns, f"INSERT INTO {table.name} ({', '.join(columns)}) SELECT * FROM unnest({arrays})"


class HeldInserts:
    """Rows of ``table`` inserted on one connection of ``engine`` (an autocommit engine), held between batches."""

    def __init__(self, engine: AsyncEngine, table: Table) -> None:
        self.engine = engine
        self.columns, self.sql = unnest_insert(table)
        # the connection, asyncpg's under it, and the loop it belongs to (a test may run several loops in turn)
        self._held: tuple[AsyncConnection, Any, asyncio.AbstractEventLoop] | None = None

    async def insert(self, rows: Sequence[dict[str, Any]]) -> None:
        import asyncpg

        loop = asyncio.get_running_loop()
        if self._held is None or self._held[2] is not loop:
            conn = await self.engine.connect()
            self._held = (conn, (await conn.get_raw_connection()).driver_connection, loop)
        driver = self._held[1]
        assert isinstance(driver, asyncpg.Connection)
        try:  # one statement, all its rows or none
            await driver.execute(self.sql, *([row[name] for row in rows] for name in self.columns))
        except Exception as exc:  # the fence held, or the connection broke: the next batch takes a fresh connection
            await self.close()
            if isinstance(exc, asyncpg.IntegrityConstraintViolationError):
                raise IntegrityError(self.sql, None, exc) from exc
            raise

    async def close(self) -> None:
        held, self._held = self._held, None
        if held is not None and held[2] is asyncio.get_running_loop():
            with contextlib.suppress(Exception):
                await held[0].close()
