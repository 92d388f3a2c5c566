"""Group commit for the action log (and the sessions of sign-ins): one writer task per log commits every pending
row in one transaction.

Every table waits for its own action to be durable before broadcasting it (write-before-broadcast), but the
tables no longer wait for each other's commits one by one: while one transaction commits, the next actions of
every table gather, and the writer commits them all together. A database commit costs about the same for one
row as for a hundred, so the room's action rate is no longer the disk's commit rate.

The (table, seq) uniqueness fence still holds row by row: when a batch breaks it (an owner that lost its lease
appends a seq that the new owner already wrote) the batch is rolled back and its rows are written one per
transaction, so only the stale append fails (with ``IntegrityError``) and the others succeed.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy.exc import IntegrityError

log = logging.getLogger("trickroom.store")

# Writes the given rows in one transaction (and commits), or raises.
CommitRows = Callable[[Sequence[dict[str, Any]]], Awaitable[None]]


@dataclass
class PendingRow:
    values: dict[str, Any]
    written: asyncio.Future[None]


class GroupCommitter:
    def __init__(self, commit_rows: CommitRows) -> None:
        self.commit_rows = commit_rows
        self.pending: list[PendingRow] = []
        self.wakeup: asyncio.Event | None = None
        self.task: asyncio.Task[None] | None = None
        self.closing = False
        self.largest_batch = 0  # the most rows committed at once (for tests and benchmarks)

    async def write(self, values: dict[str, Any]) -> None:
        """Return once ``values`` is committed; raise what the database raised for this row."""
        loop = asyncio.get_running_loop()
        if self.closing:
            raise RuntimeError("the store is closed")
        if self.task is None or self.task.done() or self.task.get_loop() is not loop:
            self.wakeup = asyncio.Event()
            self.task = loop.create_task(self.run(), name="group-commit")
        assert self.wakeup is not None
        row = PendingRow(values, loop.create_future())
        self.pending.append(row)
        self.wakeup.set()
        await row.written

    async def run(self) -> None:
        assert self.wakeup is not None
        batch: list[PendingRow] = []
        try:
            while not (self.closing and not self.pending):
                await self.wakeup.wait()
                self.wakeup.clear()
                batch, self.pending = self.pending, []
                if batch:
                    self.largest_batch = max(self.largest_batch, len(batch))
                    await self.commit(batch)
        finally:  # stopped (cancelled at shutdown): nobody may wait forever for a write that will not come
            for row in batch + self.pending:
                settle(row, RuntimeError("the store is closed"))

    async def commit(self, batch: list[PendingRow]) -> None:
        try:
            await self.commit_rows([row.values for row in batch])
        except IntegrityError as exc:
            if len(batch) == 1:
                settle(batch[0], exc)
            else:  # find the row that broke the fence: each row alone
                await self.commit_one_by_one(batch)
            return
        except Exception as exc:  # the database failed: every row of the batch failed with it
            for row in batch:
                settle(row, exc)
            return
        for row in batch:
            settle(row, None)

    async def commit_one_by_one(self, batch: list[PendingRow]) -> None:
        for row in batch:
            try:
                await self.commit_rows([row.values])
            except Exception as exc:
                settle(row, exc)
            else:
                settle(row, None)

    async def close(self) -> None:
        """Commit what is pending, then stop the writer."""
        task = self.task
        if task is None or task.done() or task.get_loop() is not asyncio.get_running_loop():
            return
        assert self.wakeup is not None
        self.closing = True
        self.wakeup.set()
        await task


def settle(row: PendingRow, error: BaseException | None) -> None:
    if row.written.done():  # the waiting table gave up (cancelled): the row is written all the same
        return
    if error is None:
        row.written.set_result(None)
    else:
        row.written.set_exception(error)
