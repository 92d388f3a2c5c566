"""The room on PostgreSQL (``TRICKROOM_TEST_POSTGRES``, default postgresql://postgres@127.0.0.1:5432/test):
migrations, accounts, a table played partly, the server stopped, a new one restoring the table and finishing
the game. Each run uses a fresh schema and drops it afterwards."""

from __future__ import annotations

import asyncio
import os
import secrets
from collections.abc import Iterator

import pytest
from conftest import need_service
from server_helpers import AutoPlayer, Client, ThreadServer

POSTGRES = os.environ.get("TRICKROOM_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test")

pytestmark = pytest.mark.services


async def _execute(sql: str) -> None:
    import asyncpg

    connection = await asyncpg.connect(POSTGRES, timeout=3)
    try:
        await connection.execute(sql)
    finally:
        await connection.close()


def postgres_available() -> bool:
    try:
        asyncio.run(_execute("SELECT 1"))
    except Exception:
        return False
    return True


@pytest.fixture
def schema() -> Iterator[str]:
    need_service(postgres_available(), f"PostgreSQL is not reachable at {POSTGRES}")
    name = f"trickroom_test_{secrets.token_hex(4)}"
    yield name
    asyncio.run(_execute(f'DROP SCHEMA IF EXISTS "{name}" CASCADE'))


def finished(message: dict[str, object]) -> bool:
    return message["type"] == "table_event" and message["kind"] == "finished"


def test_postgres_accounts_tables_and_restore(schema: str) -> None:
    server = ThreadServer(db=POSTGRES, db_schema=schema).start()
    try:
        anna, boris = Client(server.url), Client(server.url)
        registered = anna.request(type="register", username="anna_pg", password="secret-pg")
        assert registered["type"] == "welcome"
        boris.login_guest("Boris")
        # Stop mid-hand, when Boris is to act. A hand that ended first (the bot held a Bura, or a last move was
        # already on its way when the players stopped) cannot test a restore mid-hand: deal a new table.
        stop = lambda m: finished(m) or (m["type"] == "update" and m["to_act"] == [1] and m["seq"] > 20)  # noqa: E731
        for _ in range(5):
            table = anna.request(type="create", game="bura",
                                 options={"players": 3, "scoring": "points", "hand_limit": 1})["table"]
            anna.request(type="sit", table=table, seat=0)
            boris.request(type="sit", table=table, seat=1)
            anna.request(type="bot_add", table=table, level="random")
            anna.request(type="start", table=table)
            players = [AutoPlayer(anna, table, 0, 1, stop).start(), AutoPlayer(boris, table, 1, 2, stop).start()]
            for player in players:
                player.join()
            boris.send(type="resume", table=table, after=10**9)
            before = boris.wait(type="snapshot", table=table)
            if 2 in before["to_act"]:  # the bot still had a move in flight: let it land, so the stop loses nothing
                seq = before["seq"]
                boris.wait(lambda m, seq=seq: m["seq"] > seq and 2 not in m["to_act"], type="update", table=table)
                boris.send(type="resume", table=table, after=10**9)
                before = boris.wait(lambda m, seq=seq: m["seq"] > seq, type="snapshot", table=table)
            if not before["view"]["is_over"]:
                break
            anna.request(type="leave", table=table)
            boris.request(type="leave", table=table)
        tokens = anna.token, boris.token
        anna.close()
        boris.close()
    finally:
        server.stop()

    server = ThreadServer(db=POSTGRES, db_schema=schema).start()
    try:
        anna, boris = Client(server.url), Client(server.url)
        assert anna.request(type="login", username="anna_pg", password="secret-pg")["type"] == "welcome"
        assert table in boris.request(type="login", token=tokens[1])["tables"]
        boris.send(type="resume", table=table, after=10**9)
        after = boris.wait(type="snapshot", table=table)
        assert after["view"] == before["view"] and after["legal"] == before["legal"]
        anna.send(type="resume", table=table, after=10**9)
        anna.wait(type="snapshot", table=table)
        players = [AutoPlayer(anna, table, 0, 3, finished).start(), AutoPlayer(boris, table, 1, 4, finished).start()]
        boris.send(type="act", table=table, action=([a for a in before["legal"] if a != "claim"] or before["legal"])[0])
        for player in players:
            player.join()
        anna.close()
        boris.close()
    finally:
        server.stop()


def test_table_saves_beside_lease_renewals_never_deadlock(schema: str) -> None:
    """On PostgreSQL each table's save is its own transaction: a batch of saves locked several tables' rows in
    one order while a lease renewal locked them in another, and PostgreSQL broke the tie with "deadlock
    detected" (seen at 3000 people on three nodes)."""
    from trickroom.server.rows import TableRow
    from trickroom.server.store import Store

    async def scenario() -> None:
        store = Store(POSTGRES, schema=schema)
        await store.migrate()
        try:
            tables = [await store.create_table(TableRow(game="bura", options={}, settings={}, seats=[], host={},
                                                        status="playing")) for _ in range(12)]
            for table in tables:
                assert await store.claim_table(table, "n1", 3.0)
            for round_number in range(15):
                saves = [store.save_table(table, status="playing", standings={"round": round_number})
                         for table in tables]
                renewals = [store.renew_leases("n1", tables[::-1], 3.0), store.renew_leases("n1", tables, 3.0)]
                await asyncio.gather(*saves, *renewals)
            rows = [await store.table(table) for table in tables]
            assert all(row is not None and row.standings == {"round": 14} for row in rows)
        finally:
            await store.close()

    asyncio.run(scenario())
