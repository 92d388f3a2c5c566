"""SQLite's writes on the event loop: the write connection never checkpoints (a checkpoint waits for the disk, and
the whole room would wait with it); the checkpointer's thread copies the log back, at most once a second after a
write (a fake clock), one at a time. The action log's batches go through SQLite's driver (``DriverInsert``) and
write what SQLAlchemy's insert writes, all the rows or none, with SQLAlchemy's errors; the tables' saves likewise
(``DriverUpdate``) write what SQLAlchemy's update writes."""

from __future__ import annotations

import asyncio
import datetime as dt
import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import insert, select
from sqlalchemy.exc import IntegrityError, OperationalError

from trickroom.server.rows import ActionRow, SessionRow, TableRow, utcnow
from trickroom.server.sqlite_file import Checkpointer
from trickroom.server.statements import table_updates
from trickroom.server.store import Store, store_busy


def guest(n: int) -> SessionRow:
    return SessionRow(token_hash=f"{n:064d}", user_id=f"g{n}", name=f"Guest{n}", guest=True, preferences={},
                      expires_at=utcnow())


def test_the_write_connection_leaves_the_checkpoint_to_its_thread(tmp_path: Path) -> None:
    async def scenario() -> None:
        store = Store(f"sqlite:///{tmp_path / 'room.sqlite3'}")
        await store.migrate()
        store.checkpointer.every = 3600.0  # type: ignore[union-attr]  # (only the checkpoints this test asks for)
        try:
            for n in range(200):
                await store.add_session(guest(n))
            assert store.write_engine is not None and store.checkpointer is not None
            with store.write_engine.connect() as conn:
                assert conn.exec_driver_sql("PRAGMA wal_autocheckpoint").scalar() == 0
                assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() == 1000
            busy, pages, copied = store.checkpointer.checkpoint() or (1, 0, 0)
            assert busy == 0 and pages > 0 and copied == pages  # every page of the log is in the file now
            rows = await store.read_rows(select(SessionRow.user_id))
            assert len(rows) == 200
        finally:
            await store.close()

    asyncio.run(scenario())


def test_a_checkpoint_at_most_once_a_second_after_a_write(tmp_path: Path) -> None:
    now = [0.0]
    checkpointer = Checkpointer(f"sqlite:///{tmp_path / 'empty.sqlite3'}", every=1.0, clock=lambda: now[0])
    started: list[float] = []
    checkpointer.checkpoint = lambda: started.append(now[0]) or (0, 0, 0)  # type: ignore[method-assign]
    try:
        for moment in (0.0, 0.0, 0.5, 0.99, 1.0, 1.2, 2.5):
            now[0] = moment
            checkpointer.wrote()
            if checkpointer.under_way is not None:
                checkpointer.under_way.result()
        assert started == [0.0, 1.0, 2.5]
    finally:
        checkpointer.close()


def test_no_second_checkpoint_while_one_is_under_way(tmp_path: Path) -> None:
    now = [0.0]
    checkpointer = Checkpointer(f"sqlite:///{tmp_path / 'empty.sqlite3'}", every=1.0, clock=lambda: now[0])
    release, started = threading.Event(), []

    def slow() -> tuple[int, int, int]:
        started.append(now[0])
        release.wait(10)
        return 0, 0, 0

    checkpointer.checkpoint = slow  # type: ignore[method-assign]
    try:
        checkpointer.wrote()
        now[0] = 5.0
        checkpointer.wrote()  # the first is still copying: this write starts none
        release.set()
        assert checkpointer.under_way is not None and checkpointer.under_way.result() == (0, 0, 0)
        assert started == [0.0]
    finally:
        checkpointer.close()


def action(table: int, seq: int, created_at: dt.datetime) -> dict[str, Any]:
    return {"table_id": table, "seq": seq, "seat": seq % 2, "action": f"play:{seq}h", "event_seq": 10 + seq,
            "actor": "bot:hard" if seq % 2 else "u7", "created_at": created_at}


async def store_with_tables(path: Path, count: int) -> tuple[Store, list[int]]:
    store = Store(f"sqlite:///{path}")
    await store.migrate()
    return store, [await store.create_table(TableRow(game="bura", options={}, settings={}, seats=[], host={},
                                                     status="playing")) for _ in range(count)]


def stored_actions(path: Path, table: int) -> list[tuple[Any, ...]]:
    """The rows as the file holds them (the text of each column, not what SQLAlchemy reads back from it)."""
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT seq, seat, action, event_seq, actor, created_at FROM actions "
                            "WHERE table_id = ? ORDER BY seq", (table,)).fetchall()


def test_the_action_log_through_the_driver_writes_what_sqlalchemy_writes(tmp_path: Path) -> None:
    async def scenario() -> None:
        store, (by_driver, by_sqlalchemy) = await store_with_tables(tmp_path / "room.sqlite3", 2)
        # (a whole second is where a datetime's own text would drop the microseconds)
        moments = [dt.datetime(2026, 12, 6, 1, 2, 3), dt.datetime(2026, 12, 6, 1, 2, 3, 450)]
        try:
            assert store.action_insert is not None and store.write_engine is not None
            store.action_insert([action(by_driver, seq, moment) for seq, moment in enumerate(moments, 1)])
            with store.write_engine.begin() as conn:
                conn.execute(insert(ActionRow), [action(by_sqlalchemy, seq, moment)
                                                 for seq, moment in enumerate(moments, 1)])
            written = stored_actions(tmp_path / "room.sqlite3", by_driver)
            assert written == stored_actions(tmp_path / "room.sqlite3", by_sqlalchemy)
            assert [row[0] for row in written] == [1, 2]
            assert [(a.seq, a.action, a.actor) for a in await store.actions(by_driver)] == [
                (1, "play:1h", "bot:hard"), (2, "play:2h", "u7")]
        finally:
            await store.close()

    asyncio.run(scenario())


def test_a_batch_through_the_driver_lands_whole_or_not_at_all(tmp_path: Path) -> None:
    async def scenario() -> None:
        store, (table,) = await store_with_tables(tmp_path / "room.sqlite3", 1)
        now = utcnow()
        try:
            assert store.action_insert is not None
            store.action_insert([action(table, 1, now)])
            with pytest.raises(IntegrityError):  # (table, seq) taken: the fence, as SQLAlchemy raises it
                store.action_insert([action(table, 2, now), action(table, 1, now), action(table, 3, now)])
            assert [row[0] for row in stored_actions(tmp_path / "room.sqlite3", table)] == [1]
            store.action_insert([action(table, 2, now)])  # no transaction was left open on the connection
            assert [row[0] for row in stored_actions(tmp_path / "room.sqlite3", table)] == [1, 2]
        finally:
            await store.close()

    asyncio.run(scenario())


def test_a_locked_file_fails_a_batch_through_the_driver_as_busy(tmp_path: Path) -> None:
    async def scenario() -> None:
        path = tmp_path / "room.sqlite3"
        store, (table,) = await store_with_tables(path, 1)
        assert store.action_insert is not None and store.write_engine is not None
        with store.write_engine.connect() as conn:  # (the test waits 20 ms for the lock, not the room's second)
            conn.exec_driver_sql("PRAGMA busy_timeout=20")
        admin = sqlite3.connect(path, isolation_level=None)
        try:
            admin.execute("BEGIN IMMEDIATE")  # another process writing: an admin command
            with pytest.raises(OperationalError) as failed:
                store.action_insert([action(table, 1, utcnow())])
            assert store_busy(failed.value)
            admin.execute("ROLLBACK")
            store.action_insert([action(table, 1, utcnow())])
            assert [row[0] for row in stored_actions(path, table)] == [1]
        finally:
            admin.close()
            await store.close()

    asyncio.run(scenario())


def stored_table(path: Path, table: int) -> tuple[Any, ...]:
    with sqlite3.connect(path) as conn:
        found: tuple[Any, ...] = conn.execute(
            "SELECT options, settings, seats, host, banned, invited, status, standings, pause_requested, seed, "
            "first_event_seq, finished_at FROM tables WHERE id = ?", (table,)).fetchone()
        return found


def test_table_saves_through_the_driver_write_what_sqlalchemy_writes(tmp_path: Path) -> None:
    """A save as a finished table makes it (JSON, text with other alphabets, a boolean, numbers, a datetime), two
    tables with the same columns in one statement, one with other columns in another, all in one transaction."""
    async def scenario() -> None:
        path = tmp_path / "room.sqlite3"
        store, (first, second, third, by_sqlalchemy) = await store_with_tables(path, 4)
        finished = {"options": {"players": 2, "target": 11}, "settings": {"name": "Δωμάτιο «ένα»", "timer": 30},
                    "seats": [{"user": {"id": "g1", "name": "Аня", "guest": True}}, {"bot": "hard"}],
                    "host": {"id": "g1", "name": "Аня", "guest": True}, "banned": ["g9"], "invited": [],
                    "status": "finished", "standings": {"scores": [11, 7], "winner": 0}, "pause_requested": False,
                    "seed": 123456789, "first_event_seq": 4, "finished_at": dt.datetime(2026, 12, 7, 5, 6, 7, 890)}
        try:
            assert store.table_update is not None and store.write_engine is not None
            paused = {"status": "paused", "pause_requested": True}
            store.table_update({first: finished, second: finished, third: paused})
            with store.write_engine.begin() as conn:
                for statement, params in table_updates({by_sqlalchemy: finished}):
                    conn.execute(statement, params)
            written = stored_table(path, first)
            assert written == stored_table(path, by_sqlalchemy) == stored_table(path, second)
            assert stored_table(path, third)[6:9] == ("paused", None, 1)
            row = await store.table(first)
            assert row is not None and (row.settings, row.seats, row.finished_at) == (
                finished["settings"], finished["seats"], finished["finished_at"])
            with pytest.raises(KeyError):  # a column the table does not have: nothing written
                store.table_update({first: {"status": "waiting", "colour": "red"}})
            assert stored_table(path, first) == written
        finally:
            await store.close()

    asyncio.run(scenario())
