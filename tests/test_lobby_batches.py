"""The lobby in batches (issue 15): its changes reach each client at most every ``lobby_batch_seconds``, each table
and person once as they are now; protocol 2 as one ``lobby_batch``, protocol 1 as the messages it always had; a
client that said it does not follow the lobby (at a table) hears none of it. Driven by a fake clock."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any, cast

import pytest
from server_helpers import heard

from trickroom.server.bus import LocalBus
from trickroom.server.connection import Connection
from trickroom.server.lobby import Lobby, visible
from trickroom.server.protocol import user_summary
from trickroom.server.room import Room
from trickroom.server.settings import Settings

BATCH = 0.3


@dataclass
class FakeRoom:
    """What the lobby reads of its room."""

    settings: Settings = field(default_factory=lambda: Settings(lobby_batch_seconds=BATCH))
    bus: LocalBus = field(default_factory=LocalBus)
    connections: dict[str, Connection] = field(default_factory=dict)
    tables: dict[str, Any] = field(default_factory=dict)
    by_user: dict[str, Any] = field(default_factory=dict)
    cluster: None = None

    def tables_with(self, uid: str) -> list[Any]:
        return [t for t in self.tables.values() if uid in t.members or t.seat_of(uid) is not None]


class Clock:
    def __init__(self) -> None:
        self.now = 100.0
        self.slept: list[float] = []

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def listing(table_id: str, taken: int, visible_to: list[str] | None = None) -> dict[str, Any]:
    entry = {"id": table_id, "name": "Den", "game": "bura", "options": {}, "seats": 2, "taken": taken, "bots": 0,
             "status": "waiting", "spectators": 0, "private": visible_to is not None, "password": False,
             "host": user_summary("u1", "Anna", False)}
    return {"kind": "listed", "entry": entry, "titles": {"en": "Bura", "ru": "Бура"},
            "texts": {"en": "Bura for 2.", "ru": "Бура на двоих."}, "visible_to": visible_to, "people": []}


def connect(room: FakeRoom, uid: str, name: str, protocol: int, lang: str = "en") -> Connection:
    conn = Connection(id=f"n/{uid}", user=user_summary(uid, name, True), protocol=protocol)
    conn.preferences["lang"] = lang
    room.connections[conn.id] = conn
    return conn


async def settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


def test_changes_between_two_batches_are_heard_once_each_as_they_are_now() -> None:
    async def scenario() -> None:
        room, clock = FakeRoom(), Clock()
        lobby = Lobby(cast(Room, room), clock=lambda: clock.now, sleep=clock.sleep)
        new, old = connect(room, "g1", "Boris", 2, lang="ru"), connect(room, "g2", "Vera", 1)
        await lobby.on_lobby(listing("t5", 0))  # the first change after a quiet time goes out at once
        await settle()
        [first] = heard(new)
        assert (first["type"], [e["taken"] for e in first["listed"]], first["listed"][0]["title"]) == (
            "lobby_batch", [0], "Бура")
        assert [m["type"] for m in heard(old)] == ["table_listed"]
        # A burst: two people sit, Gleb comes in, Dora comes and goes, a private table appears and closes.
        await lobby.on_lobby(listing("t5", 1))
        await lobby.on_lobby(listing("t5", 2))
        await lobby.on_lobby({"kind": "presence", "user": user_summary("g3", "Gleb", True), "online": True})
        await lobby.on_lobby({"kind": "presence", "user": user_summary("g4", "Dora", True), "online": True})
        await lobby.on_lobby({"kind": "presence", "user": user_summary("g4", "Dora", True), "online": False})
        await lobby.on_lobby(listing("t6", 1))
        await lobby.on_lobby({"kind": "unlisted", "id": "t6"})
        assert heard(new) == [] and heard(old) == []  # nothing before the batch's time
        await settle()
        assert clock.slept == [0.0, pytest.approx(BATCH)]  # one wait for the whole burst
        [batch] = heard(new)
        assert [e["taken"] for e in batch["listed"]] == [2] and batch["unlisted"] == []
        assert [(p["user"]["name"], p["online"], p["text"]) for p in batch["presence"]] == [
            ("Gleb", True, "Gleb входит.")]
        assert batch["seq"] > first["seq"]
        told = heard(old)
        assert [(m["type"], m.get("entry", {}).get("taken")) for m in told] == [
            ("presence", None), ("table_listed", 2)]
        assert told[0]["text"] == "Gleb comes in." and {m["seq"] for m in told} == {batch["seq"]}
        assert "Gleb" in {u["name"] for u in lobby.snapshot(new)["users"]}  # the node's copy is up to date

    asyncio.run(scenario())


def test_a_client_at_a_table_hears_no_lobby_until_it_asks_and_private_tables_stay_private() -> None:
    async def scenario() -> None:
        room, clock = FakeRoom(), Clock()
        lobby = Lobby(cast(Room, room), clock=lambda: clock.now, sleep=clock.sleep)
        seated, member = connect(room, "g1", "Boris", 2), connect(room, "g2", "Vera", 2)
        seated.follows_lobby = False
        await lobby.on_lobby(listing("t5", 1, visible_to=["g2"]))
        await settle()
        assert heard(seated) == []
        assert [e["id"] for e in heard(member)[0]["listed"]] == ["t5"]
        clock.now += 10
        await lobby.on_lobby(listing("t5", 1))  # made public: now everyone may see it
        await settle()
        assert heard(seated) == [] and heard(member)[0]["listed"][0]["private"] is False
        clock.now += 10
        await lobby.on_lobby(listing("t5", 1, visible_to=["g1"]))  # private again, Vera no longer invited
        await settle()
        assert heard(member)[0]["unlisted"] == ["t5"]
        seated.follows_lobby = True  # the client asked for the lobby again (and got a snapshot)
        clock.now += 10
        await lobby.on_lobby({"kind": "unlisted", "id": "t5"})
        await settle()
        assert heard(seated)[0]["unlisted"] == ["t5"] and heard(member) == []  # gone from her lobby already

    asyncio.run(scenario())


def test_with_batching_off_each_change_goes_out_at_once() -> None:
    async def scenario() -> None:
        room, clock = FakeRoom(settings=Settings(lobby_batch_seconds=0)), Clock()
        lobby = Lobby(cast(Room, room), clock=lambda: clock.now, sleep=clock.sleep)
        conn = connect(room, "g1", "Boris", 1)
        await lobby.on_lobby(listing("t5", 0))
        await lobby.on_lobby(listing("t5", 1))
        assert [m["entry"]["taken"] for m in heard(conn)] == [0, 1] and clock.slept == []

    asyncio.run(scenario())


async def boris_after_a_batch(first: dict[str, Any]) -> tuple[FakeRoom, Lobby, Connection]:
    """A lobby (batches every BATCH s, on a fake clock) that heard ``first``, and Boris (protocol 2), who heard its
    batch."""
    room, clock = FakeRoom(), Clock()
    lobby = Lobby(cast(Room, room), clock=lambda: clock.now, sleep=clock.sleep)
    conn = connect(room, "g1", "Boris", 2)
    await lobby.on_lobby(first)
    await settle()
    heard(conn)
    return room, lobby, conn


def test_a_node_s_listing_changes_written_together_are_heard_as_the_same_changes_one_by_one() -> None:
    async def scenario(gathered: bool) -> list[dict[str, Any]]:
        _, lobby, conn = await boris_after_a_batch(listing("t4", 1))
        news = [listing("t5", 0), listing("t6", 1), {"kind": "unlisted", "id": "t4"}, listing("t5", 1),
                {"kind": "unlisted", "id": "t9"}]  # (t9 was never listed here)
        if gathered:
            await lobby.on_lobby({"kind": "several", "news": news})
        else:
            for one in news:
                await lobby.on_lobby(one)
        assert sorted(lobby.listings) == ["t5", "t6"] and lobby.listings["t5"]["entry"]["taken"] == 1
        await settle()
        return heard(conn)

    one_by_one = asyncio.run(scenario(False))
    together = asyncio.run(scenario(True))
    assert together == one_by_one
    [batch] = together
    assert [(e["id"], e["taken"]) for e in batch["listed"]] == [("t5", 1), ("t6", 1)] and batch["unlisted"] == ["t4"]


def test_a_snapshot_taken_between_two_batches_is_brought_up_to_date_by_the_next() -> None:
    async def scenario() -> None:
        room, lobby, early = await boris_after_a_batch(listing("t5", 0))
        lou = user_summary("g3", "Lou", True)
        await lobby.on_lobby({"kind": "presence", "user": lou, "online": True})
        await lobby.on_lobby(listing("t6", 1))
        late = connect(room, "g2", "Otto", 2)  # logs in now: his snapshot has Lou and t6
        assert {u["name"] for u in lobby.snapshot(late)["users"]} == {"Lou"}
        await lobby.on_lobby({"kind": "presence", "user": lou, "online": False})
        await lobby.on_lobby({"kind": "unlisted", "id": "t6"})
        await settle()
        assert heard(early) == []  # Lou came and went, t6 came and went: nothing to tell
        [batch] = heard(late)
        assert [(p["user"]["name"], p["online"]) for p in batch["presence"]] == [("Lou", False)]
        assert batch["unlisted"] == ["t6"]

    asyncio.run(scenario())


def test_a_snapshot_that_already_shows_someone_arriving_does_not_say_it_again() -> None:
    async def scenario() -> None:
        room, clock = FakeRoom(), Clock()
        lobby = Lobby(cast(Room, room), clock=lambda: clock.now, sleep=clock.sleep)
        early = connect(room, "g1", "Boris", 1)
        lou, eve = user_summary("g3", "Lou", True), user_summary("g4", "Eve", True)
        await lobby.on_lobby({"kind": "presence", "user": lou, "online": True})
        late = connect(room, "g2", "Otto", 1)  # signs in now: his snapshot has Lou already
        assert {u["name"] for u in lobby.snapshot(late)["users"]} == {"Lou"}
        await lobby.on_lobby({"kind": "presence", "user": eve, "online": True})  # after his snapshot
        await settle()
        assert [m["text"] for m in heard(early)] == ["Lou comes in.", "Eve comes in."]
        assert [m["text"] for m in heard(late)] == ["Eve comes in."]

    asyncio.run(scenario())


def test_a_batch_is_encoded_once_for_everyone_who_hears_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    from trickroom.server import connection

    encoded: list[str] = []

    def counting(message: Any) -> str:
        frame = real(message)
        encoded.append(frame)
        return frame

    real = connection.encode
    monkeypatch.setattr(connection, "encode", counting)

    async def scenario() -> None:
        room, clock = FakeRoom(settings=Settings(lobby_batch_seconds=0)), Clock()
        lobby = Lobby(cast(Room, room), clock=lambda: clock.now, sleep=clock.sleep)
        english = [connect(room, f"g{n}", f"Guest{n}", 2) for n in range(1, 6)]
        russian = [connect(room, f"r{n}", f"Gost{n}", 2, lang="ru") for n in range(1, 4)]
        old = [connect(room, f"o{n}", f"Old{n}", 1) for n in range(1, 3)]
        private = connect(room, "p1", "Pavel", 2)
        await lobby.on_lobby(listing("t5", 1))
        frames = {conn.id: conn.queue.get_nowait() for conn in english + russian + [private]}
        assert len({id(frames[c.id]) for c in [*english, private]}) == 1  # one encoding, the same bytes
        assert len({id(frames[c.id]) for c in russian}) == 1
        assert json.loads(frames[russian[0].id])["listed"][0]["title"] == "Бура"
        assert json.loads(frames[english[0].id])["listed"][0]["title"] == "Bura"
        assert [m["type"] for m in heard(old[0]) + heard(old[1])] == ["table_listed", "table_listed"]
        assert len(encoded) == 3  # English, Russian, protocol 1's message
        await lobby.on_lobby(listing("t7", 0, visible_to=["p1"]))  # only Pavel sees this one
        assert [e["id"] for e in json.loads(private.queue.get_nowait() or "")["listed"]] == ["t7"]
        assert all(conn.queue.empty() for conn in english + russian + old + [private])
        assert len(encoded) == 4

    asyncio.run(scenario())


def test_a_snapshot_shows_each_table_as_it_is_now_in_the_readers_language() -> None:
    """Entries are made once per language while a listing stands (every snapshot reads them): a change of the
    table is a new listing, and the next snapshot shows it."""
    async def scenario() -> None:
        room, clock = FakeRoom(), Clock()
        lobby = Lobby(cast(Room, room), clock=lambda: clock.now, sleep=clock.sleep)
        anna, olga = connect(room, "g1", "Anna", 2), connect(room, "g2", "Olga", 2, lang="ru")
        await lobby.on_lobby(listing("t5", 0))
        first = lobby.snapshot(anna)["tables"]
        assert [(e["taken"], e["title"], e["options_text"]) for e in first] == [(0, "Bura", "Bura for 2.")]
        assert [(e["title"], e["options_text"]) for e in lobby.snapshot(olga)["tables"]] == [("Бура", "Бура на двоих.")]
        assert lobby.snapshot(anna)["tables"][0] is first[0]  # made once
        await lobby.on_lobby(listing("t5", 1))
        assert [e["taken"] for e in lobby.snapshot(anna)["tables"]] == [1]
        assert [e["taken"] for e in lobby.snapshot(olga)["tables"]] == [1]

    asyncio.run(scenario())


def test_a_snapshot_frame_is_the_snapshot_joined_from_parts_encoded_once() -> None:
    """The frame each person coming back to the lobby gets (``snapshot_frame``) says what ``snapshot`` says, in
    the reader's language, with the private tables only for those who may see them, as the lobby is now; each
    entry is encoded once per language while its listing stands, the people once until someone comes or goes."""
    async def scenario() -> None:
        room, clock = FakeRoom(), Clock()
        lobby = Lobby(cast(Room, room), clock=lambda: clock.now, sleep=clock.sleep)
        anna, olga = connect(room, "g1", "Anna", 2), connect(room, "g2", "Olga", 2, lang="ru")
        lobby.set_online(cast(dict[str, Any], anna.user))
        await lobby.on_lobby(listing("t5", 0))
        await lobby.on_lobby(listing("t6", 1, visible_to=["g2"]))  # only Olga sees this one
        for conn in (anna, olga):
            frame = json.loads(lobby.snapshot_frame(conn, re=7))
            expected = json.loads(json.dumps(lobby.snapshot(conn)))
            assert frame["seq"] == expected["seq"] - 1 and frame["re"] == 7
            assert {k: v for k, v in frame.items() if k not in ("seq", "re")} == \
                {k: v for k, v in expected.items() if k != "seq"}
        assert [e["id"] for e in json.loads(lobby.snapshot_frame(anna))["tables"]] == ["t5"]
        assert [(e["id"], e["title"]) for e in json.loads(lobby.snapshot_frame(olga))["tables"]] == [
            ("t5", "Бура"), ("t6", "Бура")]
        users, entry = lobby.users_part(), lobby.listings["t5"]["encoded"]["en"]
        lobby.snapshot_frame(anna)
        assert lobby.users_part() is users and lobby.listings["t5"]["encoded"]["en"] is entry  # not made again
        await lobby.on_lobby(listing("t5", 2))  # before the batch: a snapshot is the lobby as it is now
        assert [e["taken"] for e in json.loads(lobby.snapshot_frame(anna))["tables"]] == [2]
        await lobby.on_lobby({"kind": "presence", "user": olga.user, "online": True})
        assert [u["name"] for u in json.loads(lobby.snapshot_frame(anna))["users"]] == ["Anna", "Olga"]
        assert lobby.fresh[anna.id] == frozenset({"g1", "g2"})

    asyncio.run(scenario())


def test_the_snapshot_lists_everyone_online_by_name_however_they_came_and_went() -> None:
    """The order is kept as people come and go (and change their name), not sorted again for each snapshot."""
    import random

    rng = random.Random(7)
    room = FakeRoom(settings=Settings(lobby_batch_seconds=0))
    lobby = Lobby(cast(Room, room), clock=lambda: 0.0)
    reader = connect(room, "r0", "Reader", 2)
    for _ in range(300):
        uid = f"g{rng.randrange(40)}"
        if uid in lobby.online and rng.random() < 0.5:
            lobby.set_offline(uid)
        else:
            lobby.set_online(user_summary(uid, rng.choice(["Anna", "Boris", "Vera", "Gleb"]) + uid, True))
        if rng.random() < 0.2:
            names = [u["name"] for u in json.loads(lobby.snapshot_frame(reader))["users"]]
            assert names == sorted(u["name"] for u in lobby.online.values())


def test_the_snapshot_follows_every_listing_change_public_tables_first() -> None:
    """However tables are listed, changed, made private or public and unlisted, the snapshot's frame lists what
    each reader may see as it is now (its entries as ``render_listing`` says them), the public tables first."""
    import random

    async def scenario() -> None:
        rng = random.Random(11)
        room = FakeRoom(settings=Settings(lobby_batch_seconds=0))
        lobby = Lobby(cast(Room, room), clock=lambda: 0.0)
        readers = [connect(room, "g1", "Anna", 2), connect(room, "g2", "Olga", 2, lang="ru")]
        for step in range(400):
            table_id = f"t{rng.randrange(12)}"
            if rng.random() < 0.25:
                await lobby.on_lobby({"kind": "unlisted", "id": table_id})
            else:
                invited = rng.choice([None, None, ["g1"], ["g2"], ["g1", "g2"]])
                await lobby.on_lobby(listing(table_id, rng.randrange(3), visible_to=invited))
            if step % 7:
                continue
            for reader in readers:
                uid = cast(dict[str, Any], reader.user)["id"]
                tables = json.loads(lobby.snapshot_frame(reader))["tables"]
                seen = {table_id: listing for table_id, listing in lobby.listings.items() if visible(listing, uid)}
                assert sorted(e["id"] for e in tables) == sorted(seen)
                assert all(entry == lobby.render_listing(seen[entry["id"]], reader.lang) for entry in tables)
                private = [seen[entry["id"]]["visible_to"] is not None for entry in tables]
                assert private == sorted(private)  # no public table after a private one

    asyncio.run(scenario())

