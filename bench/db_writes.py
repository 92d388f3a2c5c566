"""The cost of a table's save on SQLite, the way the store does it and the ways it did.

    .venv/bin/python bench/db_writes.py [--rounds R] [--batch B]

A table's row is saved at every sit, leave, start and end (``Store.save_table``); on SQLite the saves that arrive
together share one transaction (``Store.table_log``). This times such transactions on a scratch database with
the room's schema and a thousand tables, ``--batch`` saves each, in three ways: one ORM ``UPDATE`` per table (as the
store did until 2026-12-03), one SQLAlchemy statement per set of columns for all its tables at once (the driver's
executemany: ``statements.table_updates``, until 2026-12-07), and the same statements straight to SQLite's driver
(``sqlite_file.DriverUpdate``, what the store does now). The ways alternate over ``--rounds`` rounds, so that a
change in the machine's load touches them alike; the figures are CPU microseconds of this process per saved table
(the commit's wait for the disk is not in it). WAL and ``synchronous=NORMAL``, as the room.
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

from sqlalchemy import Table, create_engine, event, update
from sqlalchemy.orm import Session, sessionmaker

from trickroom.server.rows import Base, TableRow
from trickroom.server.sqlite_file import DriverUpdate
from trickroom.server.statements import table_updates

TABLES = 1000
Saves = list[tuple[int, dict[str, Any]]]


def row_values(rng: random.Random) -> dict[str, Any]:
    """What ``TableState.row_values`` gives for a two-player Bura table in play."""
    return {"options": {"players": 2, "target": 11}, "settings": {"name": "Den", "private": False, "timer": 30},
            "seats": [{"user": {"id": f"g{rng.randrange(9999)}", "name": "Anna", "guest": True}}, {"bot": "hard"}],
            "host": {"id": "g1", "name": "Anna", "guest": True}, "banned": [], "invited": [], "status": "playing",
            "standings": {"scores": [rng.randrange(11), rng.randrange(11)]}, "pause_requested": False}


def one_by_one(s: Session, saves: Saves) -> None:
    for table_id, values in saves:
        s.execute(update(TableRow).where(TableRow.id == table_id).values(**values))


def by_columns(s: Session, saves: Saves) -> None:
    for statement, params in table_updates(dict(saves)):
        s.execute(statement, params)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--batch", type=int, default=5, help="saves per transaction (default 5)")
    parser.add_argument("--transactions", type=int, default=200, help="transactions per way per round")
    args = parser.parse_args()
    rng = random.Random(3)
    with tempfile.TemporaryDirectory() as scratch:
        engine = create_engine(f"sqlite:///{Path(scratch) / 'writes.sqlite3'}")

        @event.listens_for(engine, "connect")
        def pragmas(connection: Any, _record: Any) -> None:
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=NORMAL")

        Base.metadata.create_all(engine)
        sessions = sessionmaker(engine)
        with sessions() as s, s.begin():
            s.add_all(TableRow(id=n, game="bura", options={}, settings={}, seats=[], host={}, status="waiting")
                      for n in range(TABLES))
        driver = DriverUpdate(engine, cast(Table, TableRow.__table__))

        def in_session(way: Callable[[Session, Saves], None]) -> Callable[[Saves], None]:
            def save(saves: Saves) -> None:
                with sessions() as s, s.begin():
                    way(s, saves)
            return save

        ways: dict[str, Callable[[Saves], None]] = {
            "one ORM update per table": in_session(one_by_one),
            "one statement per set of columns": in_session(by_columns),
            "the same through the driver": lambda saves: driver(dict(saves))}
        figures: dict[str, list[float]] = {name: [] for name in ways}
        for _ in range(args.rounds):
            for name, way in ways.items():
                batches = [[(rng.randrange(TABLES), row_values(rng)) for _ in range(args.batch)]
                           for _ in range(args.transactions)]
                started = time.process_time()
                for saves in batches:
                    way(saves)
                figures[name].append((time.process_time() - started) / (args.transactions * args.batch) * 1e6)
        engine.dispose()
    print(f"Python {platform.python_version()}; {args.rounds} rounds of {args.transactions} transactions, "
          f"{args.batch} table saves each")
    medians = {name: statistics.median(values) for name, values in figures.items()}
    for name, values in figures.items():
        print(f"  {name}: median {medians[name]:.0f} us of CPU per saved table "
              f"(rounds: {', '.join(f'{v:.0f}' for v in values)})")
    orm, statements, driver_way = medians.values()
    print(f"  ratios: {orm / driver_way:.2f}x and {statements / driver_way:.2f}x the driver's")


if __name__ == "__main__":
    main()
