"""An open lobby (issue 15): a connection that asked for ``lobby_tables`` "open" hears only the tables waiting for
players and its own, and how many public tables are in play. Driven by a fake clock, as test_lobby_batches.py."""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any, cast

from test_lobby_batches import BATCH, Clock, FakeRoom, connect, heard, settle

from trickroom.server.connection import Connection
from trickroom.server.lobby import Lobby, shown
from trickroom.server.protocol import user_summary
from trickroom.server.room import Room
from trickroom.server.settings import Settings


def listing(table_id: str, status: str = "waiting", people: list[str] | None = None,
            visible_to: list[str] | None = None) -> dict[str, Any]:
    entry = {"id": table_id, "name": "Den", "game": "bura", "options": {}, "seats": 2, "taken": len(people or ()),
             "bots": 0, "status": status, "spectators": 0, "private": visible_to is not None, "password": False,
             "host": user_summary("u1", "Anna", False)}
    return {"kind": "listed", "entry": entry, "titles": {"en": "Bura"}, "texts": {"en": "Bura for 2."},
            "visible_to": visible_to, "people": people or []}


def opened(room: FakeRoom, uid: str, name: str, protocol: int = 2) -> Connection:
    conn = connect(room, uid, name, protocol)
    conn.lobby_tables = "open"
    return conn


def test_an_open_lobby_lists_the_waiting_tables_and_its_own_and_counts_the_rest() -> None:
    async def scenario() -> None:
        room = FakeRoom(settings=Settings(lobby_batch_seconds=0))
        lobby = Lobby(cast(Room, room), clock=lambda: 0.0)
        boris, vera, gleb = opened(room, "g1", "Boris"), opened(room, "g2", "Vera"), connect(room, "g3", "Gleb", 2)
        await lobby.on_lobby(listing("t1"))
        await lobby.on_lobby(listing("t2", "playing", people=["g1"]))
        await lobby.on_lobby(listing("t3", "playing"))
        await lobby.on_lobby(listing("t4", "finished"))
        await lobby.on_lobby(listing("t5", "paused", people=["g2"], visible_to=["g1", "g2"]))  # private
        await lobby.on_lobby(listing("t6", visible_to=["g1"]))  # private, waiting
        told = {}
        for conn in (boris, vera, gleb):
            frame = json.loads(lobby.snapshot_frame(conn))
            expected = json.loads(json.dumps(lobby.snapshot(conn)))
            assert {k: v for k, v in frame.items() if k != "seq"} == {k: v for k, v in expected.items() if k != "seq"}
            told[conn.user["id"] if conn.user else ""] = ([e["id"] for e in frame["tables"]], frame.get("in_play"))
        # The private paused table is Vera's own; Boris may see it, but it is in play and not his. Only the public
        # tables in play are counted (the private ones are few, and not everyone's to count).
        assert told == {"g1": (["t1", "t2", "t6"], 3), "g2": (["t1", "t5"], 3),
                        "g3": (["t1", "t2", "t3", "t4"], None)}
        gleb.lobby_tables = "open"
        await lobby.on_lobby({"kind": "unlisted", "id": "t3"})
        assert json.loads(lobby.snapshot_frame(gleb))["in_play"] == 2

    asyncio.run(scenario())


def test_an_open_lobby_hears_a_table_start_as_gone_and_the_count_with_each_batch() -> None:
    async def scenario() -> None:
        room, clock = FakeRoom(), Clock()
        lobby = Lobby(cast(Room, room), clock=lambda: clock.now, sleep=clock.sleep)
        vera, gleb, old = opened(room, "g2", "Vera"), connect(room, "g3", "Gleb", 2), opened(room, "g4", "Dora", 1)

        async def batch() -> None:
            clock.now += 10
            await settle()

        await lobby.on_lobby(listing("t1"))
        await batch()
        [told] = heard(vera)
        assert ([e["id"] for e in told["listed"]], told["unlisted"], told["in_play"]) == (["t1"], [], 0)
        assert "in_play" not in heard(gleb)[0]
        assert [m["type"] for m in heard(old)] == ["table_listed"]  # protocol 1: no count, the same tables
        await lobby.on_lobby(listing("t1", "playing", people=["g3"]))
        await batch()
        [told] = heard(vera)
        assert (told["listed"], told["unlisted"], told["in_play"]) == ([], ["t1"], 1)
        assert [e["status"] for e in heard(gleb)[0]["listed"]] == ["playing"]
        assert [m["type"] for m in heard(old)] == ["table_unlisted"]
        # A quick game with bots is listed already playing: Vera hears only that one more table is in play.
        await lobby.on_lobby(listing("t2", "playing"))
        await batch()
        assert [(m["listed"], m["unlisted"], m["presence"], m["in_play"]) for m in heard(vera)] == [([], [], [], 2)]
        assert heard(old) == [] and len(heard(gleb)) == 1
        # Nothing that changes her lobby or the count: no batch at all.
        await lobby.on_lobby(listing("t2", "playing", people=["g3"]))
        await batch()
        assert heard(vera) == [] and len(heard(gleb)) == 1
        await lobby.on_lobby(listing("t1", "waiting"))  # the match ended and the table waits again
        await batch()
        [told] = heard(vera)
        assert ([e["id"] for e in told["listed"]], told["in_play"]) == (["t1"], 1)

    asyncio.run(scenario())


def test_an_open_lobby_keeps_the_tables_of_its_own_people_as_they_sit_and_leave() -> None:
    async def scenario() -> None:
        room, clock = FakeRoom(), Clock()
        lobby = Lobby(cast(Room, room), clock=lambda: clock.now, sleep=clock.sleep)
        boris, vera = opened(room, "g1", "Boris"), opened(room, "g2", "Vera")
        await lobby.on_lobby(listing("t1", "playing"))
        await settle()
        heard(boris), heard(vera)
        clock.now += 10
        await lobby.on_lobby(listing("t1", "playing", people=["g1"]))  # Boris watches it
        await settle()
        [told] = heard(boris)
        assert ([e["id"] for e in told["listed"]], told["in_play"]) == (["t1"], 1)
        assert heard(vera) == []
        clock.now += 10
        await lobby.on_lobby(listing("t1", "finished"))  # he left it
        await settle()
        assert heard(boris)[0]["unlisted"] == ["t1"] and heard(vera) == []

    asyncio.run(scenario())


def test_an_open_lobby_kept_from_its_batches_is_always_its_snapshot() -> None:
    """However tables are listed, start, finish, gain and lose people and go, between batches or not, a reader who
    applies each batch to its snapshot has what a fresh snapshot says, and the count it was last told is right."""
    async def scenario() -> None:
        rng = random.Random(5)
        room, clock = FakeRoom(settings=Settings(lobby_batch_seconds=BATCH)), Clock()
        lobby = Lobby(cast(Room, room), clock=lambda: clock.now, sleep=clock.sleep)
        readers = [opened(room, f"g{n}", f"Reader{n}") for n in range(3)] + [connect(room, "g3", "All", 2)]
        kept: dict[str, tuple[set[str], int | None]] = {}  # each reader's tables and count, as told

        def take_snapshot(reader: Connection) -> None:
            frame = json.loads(lobby.snapshot_frame(reader))
            kept[reader.id] = ({e["id"] for e in frame["tables"]}, frame.get("in_play"))

        def apply_batches(reader: Connection) -> None:
            for batch in heard(reader):
                tables, count = kept[reader.id]
                tables = (tables - set(batch["unlisted"])) | {e["id"] for e in batch["listed"]}
                kept[reader.id] = (tables, batch.get("in_play", count))

        for reader in readers:
            take_snapshot(reader)
        for step in range(600):
            table_id = f"t{rng.randrange(10)}"
            if rng.random() < 0.15:
                await lobby.on_lobby({"kind": "unlisted", "id": table_id})
            else:
                people = rng.sample(["g0", "g1", "g2", "g3", "u9"], rng.randrange(3))
                status = rng.choice(["waiting", "waiting", "playing", "paused", "finished"])
                invited = rng.choice([None, None, None, ["g0"], ["g1", "g3"]])
                await lobby.on_lobby(listing(table_id, status, people, invited))
            if rng.random() < 0.3:
                clock.now += rng.choice([0.1, 1.0])
                await settle()
            for reader in readers:
                apply_batches(reader)
            if step % 50 == 49:
                clock.now += 10
                await settle()
                for reader in readers:
                    apply_batches(reader)
                    uid = cast(dict[str, Any], reader.user)["id"]
                    open_only = reader.lobby_tables == "open"
                    expected = {t for t, entry in lobby.listings.items() if shown(entry, uid, open_only)}
                    in_play = sum(1 for entry in lobby.listings.values() if entry["visible_to"] is None
                                  and entry["entry"]["status"] != "waiting")
                    assert kept[reader.id] == (expected, in_play if open_only else None), (step, reader.id)
                    if rng.random() < 0.5:  # back from a table: a fresh snapshot, then batches again
                        take_snapshot(reader)
                        assert kept[reader.id] == (expected, in_play if open_only else None)

    asyncio.run(scenario())
