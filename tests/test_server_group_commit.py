"""Group commit of the action log: concurrent appends share a transaction, each append returns only once its
row is committed, and the (table, seq) fence still refuses a stale owner's append without failing the others (on
SQLite, and on PostgreSQL, where a batch is one statement in autocommit); a new table's row goes in whole, and
a number already taken is drawn again."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import need_service
from test_server_postgres import POSTGRES, _execute, postgres_available

from trickroom.server.rows import TableRow
from trickroom.server.store import StaleOwner, Store


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.services)])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, str | None]]:
    """(url, schema): a scratch SQLite file, or a fresh PostgreSQL schema dropped afterwards."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'log.sqlite3'}", None
        return
    need_service(postgres_available(), f"PostgreSQL is not reachable at {POSTGRES}")
    schema = f"trickroom_test_{secrets.token_hex(4)}"
    yield POSTGRES, schema
    asyncio.run(_execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))


async def new_store(path: Path | tuple[str, str | None]) -> tuple[Store, list[int]]:
    store = Store(f"sqlite:///{path}") if isinstance(path, Path) else Store(*path)
    await store.migrate()
    tables = [await store.create_table(TableRow(game="bura", options={}, settings={}, seats=[], host={},
                                                status="playing")) for _ in range(3)]
    return store, tables


def test_concurrent_appends_share_commits_and_all_land(database: tuple[str, str | None]) -> None:
    async def scenario() -> None:
        store, tables = await new_store(database)
        try:
            appends = [store.append_action(table, seq, 0, f"a{seq}", seq, "u1")
                       for seq in range(1, 21) for table in tables]
            await asyncio.gather(*appends)
            assert store.action_log.largest_batch > 1
            for table in tables:
                assert [(a.seq, a.action) for a in await store.actions(table)] == [
                    (seq, f"a{seq}") for seq in range(1, 21)]
        finally:
            await store.close()

    asyncio.run(scenario())


def test_a_new_table_goes_in_whole_and_a_taken_number_is_drawn_again(database: tuple[str, str | None],
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    import trickroom.server.store as store_module

    draws = iter([123456789, 123456789, 987654321])
    monkeypatch.setattr(store_module, "new_table_id", lambda: next(draws))

    async def scenario() -> None:
        store = Store(*database)
        await store.migrate()
        try:
            host = {"id": "u1", "name": "Anna", "guest": True}
            first = TableRow(game="bura", options={"players": 2}, settings={"name": "Den"}, seats=[None, None],
                             host=host, status="waiting", seed=7)
            second = TableRow(game="mpourloto", options={}, settings={}, seats=[None] * 4, host=host,
                              status="waiting")
            assert await store.create_table(first) == 123456789
            assert await store.create_table(second) == 987654321  # its first number was the first table's
            row = await store.table(123456789)
            assert row is not None and (row.game, row.options, row.settings, row.seats, row.host, row.seed) == (
                "bura", {"players": 2}, {"name": "Den"}, [None, None], host, 7)
            assert row.banned == [] and row.pause_requested is False and row.created_at is not None  # defaults
            other = await store.table(987654321)
            assert other is not None and other.game == "mpourloto" and other.seed is None
        finally:
            await store.close()

    asyncio.run(scenario())


def test_an_appended_action_reads_back_as_written_every_column(database: tuple[str, str | None]) -> None:
    """On PostgreSQL the batches go through asyncpg's own statement (``pg_insert.py``), past SQLAlchemy's."""
    from sqlalchemy import select

    from trickroom.server.rows import ActionRow, utcnow

    async def scenario() -> None:
        store, (table, _, _) = await new_store(database)
        try:
            before = utcnow()
            await asyncio.gather(store.append_action(table, 1, 2, "play 10♥ · Ζ", 7, "bot:hard"),
                                 store.append_action(table, 2, 0, "x" * 200, 9, "u" * 40))
            after = utcnow()
            rows = sorted(await store.read_rows(select(ActionRow).where(ActionRow.table_id == table)),
                          key=lambda row: row.seq)
            assert [(r.table_id, r.seq, r.seat, r.action, r.event_seq, r.actor) for r in rows] == [
                (table, 1, 2, "play 10♥ · Ζ", 7, "bot:hard"), (table, 2, 0, "x" * 200, 9, "u" * 40)]
            assert all(before <= row.created_at <= after and row.created_at.tzinfo is None for row in rows)
        finally:
            await store.close()

    asyncio.run(scenario())


def test_a_stale_append_fails_alone_in_its_batch(database: tuple[str, str | None]) -> None:
    async def scenario() -> None:
        store, (first, second, _) = await new_store(database)
        try:
            await store.append_action(first, 1, 0, "new-owner", 1, "u1")
            results = await asyncio.gather(
                store.append_action(second, 1, 0, "fine", 1, "u2"),
                store.append_action(first, 1, 1, "stale-owner", 1, "u3"),
                store.append_action(second, 2, 1, "fine too", 2, "u2"),
                return_exceptions=True)
            assert results[0] is None and results[2] is None
            assert isinstance(results[1], StaleOwner)
            assert [a.action for a in await store.actions(first)] == ["new-owner"]
            assert [a.action for a in await store.actions(second)] == ["fine", "fine too"]
        finally:
            await store.close()

    asyncio.run(scenario())


def test_a_failed_commit_fails_every_append_of_the_batch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    async def scenario() -> None:
        store, (table, _, _) = await new_store(tmp_path / "broken.sqlite3")
        try:
            async def broken(rows: object) -> None:
                raise RuntimeError("disk I/O error")

            monkeypatch.setattr(store.action_log, "commit_rows", broken)
            results = await asyncio.gather(store.append_action(table, 1, 0, "x", 1, "u1"),
                                           store.append_action(table, 2, 0, "y", 2, "u1"), return_exceptions=True)
            assert [str(r) for r in results] == ["disk I/O error", "disk I/O error"]
            monkeypatch.undo()
            assert await store.actions(table) == []
        finally:
            await store.close()

    asyncio.run(scenario())


def test_sign_ins_share_commits_and_a_clashing_name_fails_alone(tmp_path: Path) -> None:
    """Guest sessions written at once share transactions; of two guests taking look-alike names in the same
    batch ("Vera" and "VERA"), one gets the name and the other NameTaken, and every other sign-in lands."""
    import datetime as dt

    from trickroom.server.store import NameTaken, SessionRow, utcnow

    async def scenario() -> None:
        store, _ = await new_store(tmp_path / "sessions.sqlite3")
        until = utcnow() + dt.timedelta(hours=1)
        names = [f"Guest{n}" for n in range(20)] + ["Vera", "VERA"]
        try:
            results = await asyncio.gather(*(
                store.add_session(SessionRow(token_hash=f"{n:064d}", user_id=f"g{n}", name=name, guest=True,
                                             preferences={}, expires_at=until))
                for n, name in enumerate(names)), return_exceptions=True)
            assert store.session_log.largest_batch > 1
            assert [type(r).__name__ for r in results[:20]] == ["NoneType"] * 20
            assert sorted(type(r).__name__ for r in results[20:]) == ["NameTaken", "NoneType"]
            assert isinstance(next(r for r in results if r is not None), NameTaken)
            for n, name in enumerate(names[:20]):
                row = await store.session(f"{n:064d}")
                assert row is not None and row.name == name
            assert await store.name_held("vera")
        finally:
            await store.close()

    asyncio.run(scenario())


def test_table_saves_share_commits_and_a_table_saved_twice_keeps_its_last_values(tmp_path: Path) -> None:
    """(The first and the third table are saved with the same columns: one statement for both.)"""

    async def scenario() -> None:
        store, (first, second, third) = await new_store(tmp_path / "saves.sqlite3")
        try:
            await asyncio.gather(store.save_table(first, status="waiting", seats=[{"user": "u1"}]),
                                 store.save_table(second, status="finished"),
                                 store.save_table(first, status="playing"),
                                 store.save_table(third, seats=[{"user": "u3"}], status="playing"))
            assert store.table_log is not None and store.table_log.largest_batch > 1
            rows = {table: await store.table(table) for table in (first, second, third)}
            assert [(rows[t].status, rows[t].seats) for t in (first, second, third)] == [  # type: ignore[union-attr]
                ("playing", [{"user": "u1"}]), ("finished", []), ("playing", [{"user": "u3"}])]
        finally:
            await store.close()

    asyncio.run(scenario())


def test_a_guest_name_is_found_and_given_up_by_index_not_by_reading_every_session(tmp_path: Path) -> None:
    """SQLite uses the guest name indexes (partial: ``WHERE guest``) only for a query that says ``guest`` word for
    word; with ``guest IS 1`` every guest's sign-in read the whole sessions table (10,000 rows at 10,000 people)."""
    import datetime as dt

    from sqlalchemy import event

    from trickroom.server.store import SessionRow, utcnow

    statements: list[tuple[str, Any]] = []

    def seen(conn: Any, cursor: Any, statement: str, parameters: Any, context: Any, executemany: bool) -> None:
        if "sessions" in statement and statement.lstrip().upper().startswith(("SELECT", "DELETE")):
            statements.append((statement, parameters))

    async def scenario() -> list[str]:
        store, _ = await new_store(tmp_path / "names.sqlite3")
        assert store.write_engine is not None and store.read_engine is not None
        for engine in (store.write_engine, store.read_engine):
            event.listen(engine, "before_cursor_execute", seen)
        try:
            gone = utcnow() - dt.timedelta(hours=1)  # an expired guest: a new guest's sign-in frees the name
            await store.add_session(SessionRow(token_hash="1" * 64, user_id="g1", name="Vera", guest=True,
                                               preferences={}, expires_at=gone))
            await store.add_session(SessionRow(token_hash="2" * 64, user_id="g2", name="Vera", guest=True,
                                               preferences={}, expires_at=gone + dt.timedelta(hours=2)))
            assert await store.name_held("VERA") and not await store.name_held("Vera", by_guest="g2")
            assert len(statements) >= 4  # two deletes per sign-in of a guest, and the two readings

            def plans(s: Any) -> list[str]:  # SQLite's plan for each statement, step by step
                return [str(row[-1]) for statement, parameters in statements
                        for row in s.connection().exec_driver_sql("EXPLAIN QUERY PLAN " + statement, parameters)]
            return await store.read(plans)
        finally:
            await store.close()

    steps = asyncio.run(scenario())
    assert steps and not [step for step in steps if step.startswith("SCAN sessions")], steps
    assert any("uq_sessions_guest_name_shape" in step for step in steps)
