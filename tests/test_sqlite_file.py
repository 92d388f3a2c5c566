"""SQLite's writes on the event loop: the write connection never checkpoints (a checkpoint waits for the disk, and
the whole room would wait with it); the checkpointer's thread copies the log back, at most once a second after a
write (a fake clock), one at a time."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

from sqlalchemy import select

from trickroom.server.rows import SessionRow, utcnow
from trickroom.server.sqlite_file import Checkpointer
from trickroom.server.store import Store


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
