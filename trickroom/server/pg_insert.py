"""Rows of one table inserted through asyncpg itself, in one statement: the action log's batches on PostgreSQL.

The action log is the room's most frequent write: on three nodes, a group commit of one or two rows for almost every
action. Through SQLAlchemy's statement machinery a batch cost this process about 310 us of CPU; through asyncpg's
own prepared statement, about 140 us (``bench/pg_writes.py``; docs/performance.md, "The lobby's list written with its
news"). The rows go in as one array per column (``unnest``), so a batch is one statement of fixed text whatever its
size: prepared once per connection, and all of its rows or none (the fence of ``group_commit``). A row gives every
column but the primary key, as the ORM statement would take it. A violated constraint is raised as SQLAlchemy's
``IntegrityError``, as callers expect; anything else as asyncpg raised it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Table
from sqlalchemy.dialects import postgresql
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection


class UnnestInsert:
    def __init__(self, table: Table) -> None:
        dialect = postgresql.dialect()  # type: ignore[no-untyped-call]
        self.columns = tuple(column.name for column in table.columns if not column.primary_key)
        arrays = ", ".join(f"${n}::{table.c[name].type.compile(dialect=dialect)}[]"
                           for n, name in enumerate(self.columns, start=1))
        self.sql = f"INSERT INTO {table.name} ({', '.join(self.columns)}) SELECT * FROM unnest({arrays})"
        self._driver: tuple[AsyncConnection, Any] | None = None  # the last connection used, and asyncpg's under it

    async def __call__(self, conn: AsyncConnection, rows: Sequence[dict[str, Any]]) -> None:
        """Insert ``rows`` on ``conn`` (an asyncpg connection, in autocommit: the statement is its own transaction)."""
        import asyncpg

        if self._driver is None or self._driver[0] is not conn:  # (asking SQLAlchemy each time cost a fifth)
            self._driver = (conn, (await conn.get_raw_connection()).driver_connection)
        driver = self._driver[1]
        assert isinstance(driver, asyncpg.Connection)
        try:
            await driver.execute(self.sql, *([row[name] for row in rows] for name in self.columns))
        except asyncpg.IntegrityConstraintViolationError as exc:
            raise IntegrityError(self.sql, None, exc) from exc
