"""Which tables a node takes over: unfinished ones whose owner's lease ran out, and tables that finished a moment
ago whose owner died holding them (the people at them may not have heard the end); never a finished table its
owner gave up, nor one that finished long ago. And what a failed write of a table's row says."""

from __future__ import annotations

import asyncio
import datetime as dt
from pathlib import Path

import pytest
from sqlalchemy.exc import IntegrityError

from trickroom.server.rows import TableRow, utcnow
from trickroom.server.store import FINISHED_ORPHANS_WITHIN, Store


def row(status: str, owner: str | None, lease_ago: float, finished_ago: float | None = None) -> TableRow:
    now = utcnow()
    return TableRow(game="bura", options={"players": 2}, settings={}, seats=[None, None],
                    host={"id": "g1", "name": "Anna", "guest": True}, banned=[], invited=[], status=status,
                    owner_node=owner, lease_until=now - dt.timedelta(seconds=lease_ago) if owner else None,
                    finished_at=None if finished_ago is None else now - dt.timedelta(seconds=finished_ago))


def test_a_finished_table_is_taken_over_only_from_an_owner_that_died_holding_it(tmp_path: Path) -> None:
    async def scenario() -> None:
        store = Store(f"sqlite:///{tmp_path / 'room.sqlite3'}")
        await store.migrate()
        try:
            playing_dead = await store.create_table(row("playing", "n1", lease_ago=5))
            playing_alive = await store.create_table(row("playing", "n1", lease_ago=-30))  # a live lease
            ended_dead = await store.create_table(row("finished", "n1", lease_ago=5, finished_ago=8))
            ended_alive = await store.create_table(row("finished", "n1", lease_ago=-30, finished_ago=8))
            ended_long_ago = await store.create_table(row("finished", "n1", lease_ago=5,
                                                          finished_ago=FINISHED_ORPHANS_WITHIN + 60))
            ended_given_up = await store.create_table(row("finished", "n1", lease_ago=5, finished_ago=8))
            await store.release_table(ended_given_up, "n1")  # its owner closed it (or handed it over)
            closed = await store.create_table(row("closed", "n1", lease_ago=5))

            assert set(await store.orphan_tables()) == {playing_dead, ended_dead}
            assert ended_long_ago in await store.orphan_tables(finished_within=FINISHED_ORPHANS_WITHIN + 120)
            for number in (playing_alive, ended_alive, ended_given_up, closed):
                assert not await store.claim_table(number, "n2", 30), number
            assert await store.claim_table(ended_dead, "n2", 30)
            taken = await store.table(ended_dead)
            assert taken is not None and (taken.owner_node, taken.status) == ("n2", "finished")
            assert set(await store.orphan_tables()) == {playing_dead}
        finally:
            await store.close()

    asyncio.run(scenario())


def test_a_failed_write_names_no_value_of_the_row(tmp_path: Path) -> None:
    """The error of a failed statement is logged (table.py): it must not carry the row's values, such as the
    seed of a table in play (from it, every hidden card)."""
    async def scenario() -> None:
        store = Store(f"sqlite:///{tmp_path / 'room.sqlite3'}")
        await store.migrate()
        try:
            number = await store.create_table(row("playing", "n1", lease_ago=-30))
            again = row("playing", "n1", lease_ago=-30)
            again.id, again.seed = number, 918273645546372
            with pytest.raises(IntegrityError) as failed:  # the same table number twice
                await store.add(again)
            assert "918273645546372" not in str(failed.value) and "INSERT INTO tables" in str(failed.value)
        finally:
            await store.close()

    asyncio.run(scenario())
