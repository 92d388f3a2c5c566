"""What a guest's sign-in reads, and a new table's insert, cost the store on SQLite: the way it does them and the
way it did.

    .venv/bin/python bench/sign_in_reads.py [--rounds R] [--calls N]

A guest's sign-in asks, in one read, whether a room ban stands against the name or the address
(``Moderation.ban_in``) and whether the name is held by an account or by a guest online (``Store.name_held_in``).
Until 2026-12-06 both went through the ORM session, and the name's statement was built anew for each sign-in; now
both are built once and run on the session's connection. A new table's row was an insert with its values built
into the statement; now one statement is built once and the values are its parameters
(``statements.INSERT_TABLE``). This times each, ``--calls`` calls a round, old and new alternating over
``--rounds`` rounds (a change in the machine's load touches both alike), on a scratch database with the room's
schema and 10,000 guests online, in this process, as the store runs them (a read in one of its reader sessions,
called directly here: the hop to the reader thread is the same either way; an insert in a transaction of its
own). The figures are CPU microseconds of this process per call, the median over the rounds.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import platform
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy import insert, literal, or_, select, union_all
from sqlalchemy.orm import Session

from trickroom.server.moderation import BANS_IN_FORCE, Moderation, RoomBanRow
from trickroom.server.names import name_key, name_keys
from trickroom.server.rows import SessionRow, TableRow, UserRow, utcnow
from trickroom.server.statements import HELD_BY_GUEST
from trickroom.server.store import Store

GUESTS = 10_000


def name_held_before(s: Session, name: str) -> bool:
    """The name check until 2026-12-06: its statement built for each call, run through the ORM session."""
    key, shape = name_keys(name)
    parts = [select(literal(1)).select_from(UserRow).where(or_(UserRow.name_key == key, UserRow.name_shape == shape))]
    for column, value in ((SessionRow.name_key, key), (SessionRow.name_shape, shape)):
        parts.append(select(literal(1)).select_from(SessionRow).where(
            HELD_BY_GUEST, column == value, SessionRow.expires_at >= utcnow()))
    return s.execute(union_all(*parts).limit(1)).first() is not None


def ban_before(s: Session, name: str) -> RoomBanRow | None:
    """The ban check until 2026-12-06: the same statement, its rows loaded as ORM objects."""
    rows = s.execute(BANS_IN_FORCE, {"account": None, "name": name_key(name), "now": utcnow()}).scalars()
    return next(iter(rows), None)


def new_table_row() -> TableRow:
    return TableRow(game="bura", options={"players": 2}, settings={}, seats=[{}, {}], banned=[], invited=[],
                    host={"id": "g1", "name": "Anna", "guest": True}, status="waiting", seed=1, decks=None)


def read_with(job: Callable[[Session, str], Any], name: str) -> Callable[[Session], Any]:
    return lambda s: job(s, name)


async def insert_before(store: Store, row: TableRow) -> None:
    """The insert until 2026-12-06: the row's values built into the statement."""
    values = {column.key: value for column in TableRow.__table__.columns
              if (value := getattr(row, column.key)) is not None}
    await store.write_statement(insert(TableRow).values({**values, "id": row.id}))


async def measure(rounds: int, calls: int) -> dict[str, tuple[list[float], list[float]]]:
    folder = Path(tempfile.mkdtemp(prefix="trickroom-sign-in-"))
    store = Store(f"sqlite:///{folder / 'room.sqlite3'}")
    await store.migrate()
    moderation = Moderation(store)
    until = utcnow() + dt.timedelta(days=1)
    await store.write_statement(insert(SessionRow), [
        {"token_hash": f"{n:064x}", "user_id": f"g{n}", "name": f"Guest{n}", "guest": True, "preferences": {},
         "expires_at": until, "name_key": name_keys(f"Guest{n}")[0], "name_shape": name_keys(f"Guest{n}")[1]}
        for n in range(GUESTS)])
    reads: dict[str, tuple[Callable[[Session, str], Any], Callable[[Session, str], Any]]] = {
        "the name held (Store.name_held_in)": (name_held_before, store.name_held_in),
        "a ban in force (Moderation.ban_in)": (ban_before, lambda s, name: moderation.ban_in(s, name=name,
                                                                                             address="127.0.0.1")),
    }
    figures: dict[str, tuple[list[float], list[float]]] = {label: ([], []) for label in
                                                           [*reads, "a new table's row (Store.create_table)"]}
    serial = 0
    try:
        for _ in range(rounds):
            for label, (before, now) in reads.items():
                for way, job in enumerate((before, now)):
                    started = time.process_time()
                    for n in range(calls):
                        store._read_here(read_with(job, f"Newcomer{n}"))
                    figures[label][way].append((time.process_time() - started) / calls * 1e6)
            for way in range(2):
                started = time.process_time()
                for _ in range(calls):
                    row = new_table_row()
                    if way == 0:
                        serial += 1
                        row.id = serial
                        await insert_before(store, row)
                    else:
                        await store.create_table(row)
                figures["a new table's row (Store.create_table)"][way].append(
                    (time.process_time() - started) / calls * 1e6)
    finally:
        await store.close()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=500)
    args = parser.parse_args()
    print(f"Python {platform.python_version()}; SQLite, {GUESTS} guests online; {args.rounds} rounds of "
          f"{args.calls} calls, old and new alternating; CPU us per call, median over the rounds (range)")
    for label, (before, now) in asyncio.run(measure(args.rounds, args.calls)).items():
        old, new = statistics.median(before), statistics.median(now)
        print(f"  {label}: before {old:.0f} us ({min(before):.0f}-{max(before):.0f}), "
              f"now {new:.0f} us ({min(now):.0f}-{max(now):.0f}), {old / new:.2f}x")


if __name__ == "__main__":
    main()
