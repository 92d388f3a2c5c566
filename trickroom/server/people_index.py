"""Who is at which tables, kept as the tables change, so that one person's tables are found without looking at
every table.

A sign-in (its welcome names the person's tables) and every presence change (the tables where the person sits or
watches hear of it) used to look at every table and every lobby listing: with a thousand tables and fifty
sign-ins a second that was about a tenth of the event loop's time. The node keeps one index of its own tables
(from each table's state after each step) and the lobby one of every node's listings (their ``people``).
"""

from __future__ import annotations

from collections.abc import Iterable


class PeopleIndex:
    def __init__(self) -> None:
        self.by_person: dict[str, set[str]] = {}  # user id -> ids of the tables they are at
        self.by_table: dict[str, frozenset[str]] = {}  # table id -> the user ids at it

    def set(self, table_id: str, people: Iterable[str]) -> None:
        """The people at ``table_id`` are now ``people`` (none: the table is gone)."""
        new, old = frozenset(people), self.by_table.get(table_id, frozenset())
        if new == old:
            return
        for uid in old - new:
            tables = self.by_person[uid]
            tables.discard(table_id)
            if not tables:
                del self.by_person[uid]
        for uid in new - old:
            self.by_person.setdefault(uid, set()).add(table_id)
        if new:
            self.by_table[table_id] = new
        else:
            del self.by_table[table_id]

    def drop(self, table_id: str) -> None:
        self.set(table_id, ())

    def tables_of(self, uid: str) -> list[str]:
        """The tables ``uid`` is at (a copy: the index may change while the caller goes through them)."""
        return sorted(self.by_person.get(uid, ()))
