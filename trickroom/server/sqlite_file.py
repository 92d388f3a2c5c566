"""SQLite's own settings for the room's database file, and the thread that checkpoints its write-ahead log.

On SQLite the store writes on the event loop itself (:class:`~trickroom.server.store.Store`): a transaction costs
a fraction of a millisecond of CPU, and handing it to a thread cost far more in waiting than it saved. A thread
holding the GIL-free parts of a write still needs the GIL back after every call into SQLite, and it waits for it
while the loop runs (up to the interpreter's switch interval, 5 ms, each time): at 10,000 people a write of 1.4 ms of
CPU (on average) took 15 ms on the writer thread, and 150 ms at the 99th percentile, plus the trips to the
thread and back (docs/performance.md, "Writes on the event loop").

What may still take long is the checkpoint, which copies the log back into the database file and waits for the
disk (``fsync``). SQLite runs it inside the commit that crosses 1000 pages of log, which would stop the whole
room for it; so the write connection never checkpoints (``wal_autocheckpoint=0``), and :class:`Checkpointer`
does it in a thread of its own, at most once a second after a write. A ``PASSIVE`` checkpoint neither waits for
nor blocks the writer or the readers.
"""

from __future__ import annotations

import logging
import math
import sqlite3
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from sqlalchemy import Table, create_engine, event
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError

log = logging.getLogger("trickroom.store")

CHECKPOINT_EVERY = 1.0  # seconds: the write-ahead log is checkpointed at most this often, after a write
WRITER_BUSY_TIMEOUT_MS = 1000  # how long a write on the event loop waits for another process's write lock


def sqlite_pragmas(dbapi_connection: Any, record: Any) -> None:
    """Every connection: WAL lets readers go on while a table appends an action; a committed action survives a
    killed process (``synchronous=NORMAL``: only a power cut or an operating-system crash may lose the last
    transactions)."""
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=10000")
    cursor.close()


def writer_pragmas(dbapi_connection: Any, record: Any) -> None:
    """The write connection, used on the event loop: it leaves checkpoints to :class:`Checkpointer`, and waits
    for another process's write (an admin command's) for a second at most, then the write fails as busy."""
    sqlite_pragmas(dbapi_connection, record)
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA wal_autocheckpoint=0")
    cursor.execute(f"PRAGMA busy_timeout={WRITER_BUSY_TIMEOUT_MS}")
    cursor.close()


class Checkpointer:
    """Checkpoints the write-ahead log of ``url`` (a plain SQLite URL) in a thread of its own, on its own
    connection: :meth:`wrote` after each committed write starts one if none has started for ``every`` seconds
    and none is under way."""

    def __init__(self, url: str, every: float = CHECKPOINT_EVERY, clock: Callable[[], float] = time.monotonic) -> None:
        self.engine: Engine = create_engine(url, pool_size=1, max_overflow=0, hide_parameters=True)
        event.listen(self.engine, "connect", sqlite_pragmas)
        self.every, self.clock = every, clock
        self.thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sqlite-checkpoint")
        self.last = -math.inf
        self.under_way: Future[tuple[int, int, int] | None] | None = None

    def wrote(self) -> None:
        now = self.clock()
        if now - self.last < self.every or (self.under_way is not None and not self.under_way.done()):
            return
        self.last = now
        self.under_way = self.thread.submit(self.checkpoint)

    def checkpoint(self) -> tuple[int, int, int] | None:
        """One passive checkpoint: SQLite's (busy, pages in the log, pages copied back), None if it failed (logged:
        the next write starts another)."""
        try:
            with self.engine.connect() as conn:
                busy, pages, copied = conn.exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)").one()
                return int(busy), int(pages), int(copied)
        except Exception:
            log.exception("could not checkpoint the database's write-ahead log")
            return None

    def close(self) -> None:
        """Wait for the checkpoint under way, then close the thread and the connection."""
        self.thread.shutdown(wait=True)
        self.engine.dispose()


class DriverInsert:
    """Rows of one table inserted through SQLite's own driver, in one transaction on ``engine``'s connection; a row
    gives every column but the primary key.

    The action log is the room's most frequent write (a group commit at almost every turn of the loop at full
    speed), and SQLAlchemy's statement machinery around SQLite's ``executemany`` cost more CPU than SQLite itself
    (docs/performance.md, "What an action costs the room's own code"). The rows are the dictionaries the ORM statement
    would take; each column's value goes through the dialect's own conversion (a ``DateTime`` becomes the text
    SQLAlchemy stores), so the file holds what it held before; the driver's errors are raised as SQLAlchemy's
    (``IntegrityError`` for the fence, ``OperationalError`` for a locked file), as callers expect."""

    def __init__(self, engine: Engine, table: Table) -> None:
        self.engine = engine
        self.columns = tuple(column.name for column in table.columns if not column.primary_key)  # (SQLite's to give)
        self.sql = (f"INSERT INTO {table.name} ({', '.join(self.columns)}) "
                    f"VALUES ({', '.join('?' for _ in self.columns)})")
        dialect = engine.dialect
        self.converted = tuple((name, table.c[name].type.dialect_impl(dialect).bind_processor(dialect))
                               for name in self.columns)

    def params(self, row: dict[str, Any]) -> tuple[Any, ...]:
        return tuple(row[name] if convert is None else convert(row[name]) for name, convert in self.converted)

    def __call__(self, rows: Sequence[dict[str, Any]]) -> None:
        params = [self.params(row) for row in rows]
        in_one_transaction(self.engine, [(self.sql, params)])


class DriverUpdate:
    """Rows of one table updated by their primary key through SQLite's own driver, in one transaction on
    ``engine``'s connection: for each set of columns, one statement run for all its rows (``executemany``), each
    value converted as :class:`DriverInsert` converts it, so the file holds what SQLAlchemy's ``UPDATE`` would
    write.

    A table's row is saved at every sit, leave, start and end; on SQLite the saves that arrive together share one
    transaction (``Store.table_log``), and through SQLAlchemy's statements (compiled, their parameters processed
    and their JSON encoded by its machinery) a save cost 91 us of CPU against 34 us this way (``bench/db_writes.py``),
    on the event loop, where the whole room waits for it."""

    def __init__(self, engine: Engine, table: Table) -> None:
        self.engine = engine
        self.name = table.name
        (key,) = table.primary_key.columns
        self.key = key.name
        dialect = engine.dialect
        self.converters = {column.name: column.type.dialect_impl(dialect).bind_processor(dialect)
                           for column in table.columns if not column.primary_key}
        self.statements: dict[tuple[str, ...], str] = {}  # by its columns, in order

    def statement(self, columns: tuple[str, ...]) -> str:
        found = self.statements.get(columns)
        if found is None:
            unknown = [name for name in columns if name not in self.converters]
            if unknown:
                raise KeyError(f"{self.name} has no column {unknown[0]!r} to update")
            assignments = ", ".join(f"{name} = ?" for name in columns)
            found = self.statements[columns] = f"UPDATE {self.name} SET {assignments} WHERE {self.key} = ?"
        return found

    def __call__(self, rows: dict[Any, dict[str, Any]]) -> None:
        """``rows``: each row's new values, by its key."""
        by_columns: dict[tuple[str, ...], list[tuple[Any, ...]]] = {}
        converted = self.converters
        for key, values in rows.items():
            columns = tuple(sorted(values))
            by_columns.setdefault(columns, []).append(
                (*(values[name] if (convert := converted.get(name)) is None else convert(values[name])
                   for name in columns), key))
        in_one_transaction(self.engine, [(self.statement(columns), params) for columns, params in by_columns.items()])


def in_one_transaction(engine: Engine, statements: Sequence[tuple[str, Sequence[tuple[Any, ...]]]]) -> None:
    """Each SQL statement run once per parameter tuple, on ``engine``'s driver connection, all in one transaction
    (committed, or rolled back if one raised); the driver's errors raised as SQLAlchemy's."""
    pooled = engine.raw_connection()
    try:
        driver = pooled.driver_connection
        assert isinstance(driver, sqlite3.Connection)
        sql = ""
        try:
            with driver:  # commits, or rolls back if a statement raised
                for sql, params in statements:
                    driver.executemany(sql, params)
        except sqlite3.Error as exc:
            raise DBAPIError.instance(sql, None, exc, sqlite3.Error, hide_parameters=True) from exc
    finally:
        pooled.close()  # (back to the engine's pool)
