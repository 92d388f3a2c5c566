"""The index of who is at which tables (seated or watching): kept as tables change, it gives the same answer as
looking at every table, which is what the room did before."""

from __future__ import annotations

import random

from trickroom.server.people_index import PeopleIndex


def test_the_index_answers_what_a_look_at_every_table_would() -> None:
    rng = random.Random(7)
    index = PeopleIndex()
    tables: dict[str, set[str]] = {}
    people = [f"g{n}" for n in range(12)]
    for _ in range(3000):  # tables made, changed and closed at random
        table_id = f"t{rng.randrange(20)}"
        if rng.random() < 0.15:
            tables.pop(table_id, None)
            index.drop(table_id)
        else:
            tables[table_id] = set(rng.sample(people, rng.randrange(0, 5)))
            index.set(table_id, tables[table_id])
        for uid in people:
            assert index.tables_of(uid) == sorted(t for t, there in tables.items() if uid in there)
    assert set(index.by_table) == {t for t, there in tables.items() if there}  # nothing kept of empty tables
    assert all(index.by_person.values())


def test_the_tables_of_a_person_are_a_copy() -> None:
    index = PeopleIndex()
    index.set("t1", ["g1"])
    index.set("t2", ["g1"])
    for table_id in index.tables_of("g1"):  # a table that changes while the caller goes through them
        index.drop(table_id)
    assert index.tables_of("g1") == [] and index.by_person == {}
