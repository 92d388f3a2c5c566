"""Statements the store runs whose shape matters for speed, built here without touching a database.

- A guest's sign-in asks whether a name is held (:func:`name_held_query`) and frees the names of expired guests
  (:func:`freed_names`). The guest name indexes are partial (``uq_sessions_guest_*``, unique among guests:
  ``WHERE guest``), and SQLite uses a partial index only for a query that says ``guest`` word for word
  (:data:`HELD_BY_GUEST`): ``guest IS 1`` read every session at each guest's sign-in, a fifth of the server's
  samples while 10,000 people signed in (docs/performance.md). Each part of these statements is an index lookup;
  a test reads SQLite's plans.
- A batch of table saves (:func:`table_updates`): one statement per set of columns, for all its tables at once.
- A new table's row (:data:`INSERT_TABLE`), its values given as parameters.
"""

from __future__ import annotations

from typing import Any, cast

from sqlalchemy import (
    Delete,
    Insert,
    Table,
    bindparam,
    delete,
    insert,
    literal,
    literal_column,
    or_,
    select,
    union_all,
    update,
)
from sqlalchemy.sql import Select
from sqlalchemy.sql.base import Executable
from sqlalchemy.sql.elements import ColumnClause

from trickroom.server.names import name_keys
from trickroom.server.rows import SessionRow, TableRow, UserRow, utcnow

HELD_BY_GUEST: ColumnClause[bool] = literal_column("sessions.guest")  # the guest name indexes' condition, verbatim

# A new table's row. Built for each table with its values in it, the insert cost 0.69 ms of the event loop's time
# on SQLite; with them as parameters, 0.31 ms (bench/sign_in_reads.py).
INSERT_TABLE: Insert = insert(TableRow)


def _name_held_statement(by_guest: bool) -> Select[Any]:
    account = or_(UserRow.name_key == bindparam("key"), UserRow.name_shape == bindparam("shape"))
    parts = [select(literal(1)).select_from(UserRow).where(account)]
    for column, key in ((SessionRow.name_key, "key"), (SessionRow.name_shape, "shape")):
        guest = select(literal(1)).select_from(SessionRow).where(
            HELD_BY_GUEST, column == bindparam(key), SessionRow.expires_at >= bindparam("now"))
        parts.append(guest.where(SessionRow.user_id != bindparam("by_guest")) if by_guest else guest)
    return cast("Select[Any]", union_all(*parts).limit(1))


# Built once: building the statement for each sign-in, and running it through the ORM session, cost 0.97 ms of
# CPU; this one, run on the session's connection, 0.18 ms (bench/sign_in_reads.py; docs/performance.md, "A
# cheaper sign-in").
NAME_HELD = _name_held_statement(by_guest=False)
NAME_HELD_BY_OTHER = _name_held_statement(by_guest=True)


def name_held_query(name: str, by_guest: str | None = None) -> tuple[Select[Any], dict[str, Any]]:
    """A statement and its parameters that give a row if ``name`` clashes with an account's, or with that of a
    guest whose session still holds it (other than the guest ``by_guest``): three index lookups in one
    statement."""
    key, shape = name_keys(name)
    params: dict[str, Any] = {"key": key, "shape": shape, "now": utcnow()}
    if by_guest is None:
        return NAME_HELD, params
    return NAME_HELD_BY_OTHER, {**params, "by_guest": by_guest}


def freed_names(guests: list[dict[str, Any]]) -> list[Delete]:
    """The deletion of expired guest sessions holding the names of ``guests`` (session rows about to be written),
    one statement per key, so that each is an index lookup."""
    return [delete(SessionRow).where(HELD_BY_GUEST, SessionRow.expires_at < utcnow(),
                                     getattr(SessionRow, column).in_([row[column] for row in guests]))
            for column in ("name_key", "name_shape")]


def table_updates(saves: dict[int, dict[str, Any]]) -> list[tuple[Executable, list[dict[str, Any]]]]:
    """Each table's row (by id) updated with its values: one statement per set of columns, run for all its rows at
    once (the driver's executemany), with its parameters. Updated one by one through the ORM, a row cost about
    1 ms of SQLite's writes (bench/db_writes.py), the largest part of its time in an evening of 3000
    people."""
    by_columns: dict[tuple[str, ...], list[dict[str, Any]]] = {}
    for table_id, values in saves.items():
        by_columns.setdefault(tuple(sorted(values)), []).append({"row_id": table_id, **values})
    tables = cast(Table, TableRow.__table__)
    return [(update(tables).where(tables.c.id == bindparam("row_id"))
             .values({column: bindparam(column) for column in columns}), params)
            for columns, params in by_columns.items()]
