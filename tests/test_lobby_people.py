"""People in a busy room (issue 15): a connection that asked for ``lobby_people`` "auto" hears everyone online and
each coming and going while the room is small, and above ``lobby_people_limit`` only how many are online (the list
on request, ``people``). Driven by a fake clock, as test_lobby_batches.py."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any, cast

from server_helpers import Client, room_on
from test_lobby_batches import Clock, FakeRoom, connect, heard, settle

from trickroom.server.connection import Connection
from trickroom.server.lobby import Lobby, presence_change
from trickroom.server.lobby_requests import on_people
from trickroom.server.protocol import People, user_summary
from trickroom.server.room import Room
from trickroom.server.settings import Settings


def auto(room: FakeRoom, uid: str, name: str, protocol: int = 3) -> Connection:
    conn = connect(room, uid, name, protocol)
    conn.lobby_people = "auto"
    return conn


def person(uid: str, name: str) -> dict[str, Any]:
    return dict(user_summary(uid, name, True))


async def arrive(lobby: Lobby, *people: tuple[str, str]) -> None:
    for uid, name in people:
        await lobby.on_lobby(presence_change(person(uid, name), True))


def test_a_snapshot_lists_the_people_while_the_room_is_small_and_counts_them_when_it_is_busy() -> None:
    async def scenario() -> None:
        room = FakeRoom(settings=Settings(lobby_batch_seconds=0, lobby_people_limit=3))
        lobby = Lobby(cast(Room, room), clock=lambda: 0.0)
        vera, gleb = auto(room, "g2", "Vera"), connect(room, "g3", "Gleb", 3)
        await arrive(lobby, ("g2", "Vera"), ("g3", "Gleb"))

        def told(conn: Connection) -> dict[str, Any]:
            frame = json.loads(lobby.snapshot_frame(conn))
            expected = json.loads(json.dumps(lobby.snapshot(conn)))
            assert {k: v for k, v in frame.items() if k != "seq"} == {k: v for k, v in expected.items() if k != "seq"}
            return {k: frame.get(k) for k in ("online", "people")} | {"users": [u["name"] for u in frame["users"]]}

        assert told(vera) == {"online": 2, "people": "listed", "users": ["Gleb", "Vera"]}
        assert told(gleb) == {"online": None, "people": None, "users": ["Gleb", "Vera"]}  # as before: no count
        await arrive(lobby, ("g4", "Dora"), ("g5", "Anna"))
        lobby.flush()  # the room is busy from the batch that says so
        assert told(vera) == {"online": 4, "people": "counted", "users": []}
        assert told(gleb)["users"] == ["Anna", "Dora", "Gleb", "Vera"]
        # The list on request: everyone, in name order, with the count.
        heard(vera)
        room.lobby = lobby  # type: ignore[attr-defined]
        await on_people(cast(Room, room), vera, People(type="people", id=7))
        [answer] = heard(vera)
        assert (answer["type"], answer["re"], answer["online"]) == ("people", 7, 4)
        assert [u["name"] for u in answer["users"]] == ["Anna", "Dora", "Gleb", "Vera"]

    asyncio.run(scenario())


def test_a_busy_room_stops_announcing_arrivals_to_an_auto_lobby_and_starts_again_when_it_empties() -> None:
    async def scenario() -> None:
        room, clock = FakeRoom(settings=Settings(lobby_batch_seconds=0.3, lobby_people_limit=3)), Clock()
        lobby = Lobby(cast(Room, room), clock=lambda: clock.now, sleep=clock.sleep)
        vera, gleb, old = auto(room, "g2", "Vera"), connect(room, "g3", "Gleb", 3), auto(room, "g6", "Old", 1)

        async def batch(*changes: tuple[str, str, bool]) -> None:
            for uid, name, online in changes:
                await lobby.on_lobby(presence_change(person(uid, name), online))
            clock.now += 10
            await settle()

        await batch(("g2", "Vera", True), ("g3", "Gleb", True))
        [told] = heard(vera)
        assert ([c["user"]["name"] for c in told["presence"]], told["online"]) == (["Gleb"], 2)
        assert "online" not in heard(gleb)[0]
        assert [m["type"] for m in heard(old)] == ["presence", "presence"]
        # The fourth person makes the room busy: the auto lobbies get a snapshot that counts, the other a batch.
        await batch(("g4", "Dora", True), ("g5", "Anna", True))
        [told] = heard(vera)
        assert (told["type"], told["people"], told["online"], told["users"]) == ("lobby", "counted", 4, [])
        assert [m["type"] for m in heard(old)] == ["lobby"]
        assert [c["user"]["name"] for c in heard(gleb)[0]["presence"]] == ["Dora", "Anna"]
        # From now on an auto lobby hears the count, and nobody by name.
        await batch(("g7", "Boris", True))
        [told] = heard(vera)
        assert (told["type"], told["presence"], told["online"]) == ("lobby_batch", [], 5)
        assert heard(old) == []  # protocol 1 has no batches to carry a count
        assert [c["user"]["name"] for c in heard(gleb)[0]["presence"]] == ["Boris"]
        # Down to the limit is still busy (nine tenths of it, 2, makes it quiet again): no turning back and forth.
        await batch(("g7", "Boris", False), ("g5", "Anna", False))
        assert [(m["type"], m["online"]) for m in heard(vera)] == [("lobby_batch", 3)]
        await batch(("g4", "Dora", False))
        [told] = heard(vera)
        assert (told["type"], told["people"]) == ("lobby", "listed")
        assert [u["name"] for u in told["users"]] == ["Gleb", "Vera"]
        await batch(("g8", "Eva", True))
        [told] = heard(vera)
        assert ([c["user"]["name"] for c in told["presence"]], told["online"]) == (["Eva"], 3)

    asyncio.run(scenario())


def test_a_room_past_its_limit_counts_its_people_for_who_asked_and_lists_them_on_request(tmp_path: Path) -> None:
    with room_on(f"sqlite:///{tmp_path / 'room.sqlite3'}", lobby_people_limit=2) as (room, made):
        looker, anna, boris = Client(room.url), Client(room.url), Client(room.url)
        made += [looker, anna, boris]
        refused = looker.request(type="login", nickname="Looker", lobby_people="some")
        assert refused["code"] == "bad_message" and looker.user is None
        assert looker.request(type="login", nickname="Looker", lobby_people="auto", protocol=3)["type"] == "welcome"
        first = looker.wait(type="lobby")
        assert (first["people"], first["online"], [u["name"] for u in first["users"]]) == ("listed", 1, ["Looker"])
        anna.login_guest("Anna")
        came = looker.wait(lambda m: bool(m["presence"]), type="lobby_batch")
        assert ([c["text"] for c in came["presence"]], came["online"]) == (["Anna comes in."], 2)
        boris.login_guest("Boris")  # three people: past the limit of two
        busy = looker.wait(lambda m: m.get("people") == "counted", type="lobby")
        assert (busy["online"], busy["users"]) == (3, [])
        listed = looker.request(type="people")
        assert (listed["type"], listed["online"]) == ("people", 3)
        assert [u["name"] for u in listed["users"]] == ["Anna", "Boris", "Looker"]
        # Asking for everyone again: the list, and every coming and going.
        every = looker.request(type="lobby", people="all")
        assert [u["name"] for u in every["users"]] == ["Anna", "Boris", "Looker"] and "online" not in every
        # A refused login changes nothing, not even the lobby it asked for.
        refused = looker.request(type="login", username="nobody", password="wrong", lobby_people="auto")
        assert refused["code"] == "login_failed"
        anna.leave()
        gone = looker.wait(lambda m: bool(m["presence"]), type="lobby_batch")
        assert [c["text"] for c in gone["presence"]] == ["Anna leaves the room."] and "online" not in gone
