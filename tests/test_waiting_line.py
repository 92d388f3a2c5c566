"""The waiting line (trickroom.server.waiting_line): newcomers come in as fast as the node keeps up, in order,
hearing their number; someone coming back with a token never waits. The line's ticks are driven by the tests
(``tick(lag)``), never by the clock."""

from __future__ import annotations

import asyncio
import select
import socket
from collections.abc import Coroutine, Iterator
from pathlib import Path
from typing import Any

import pytest
from server_helpers import TIMEOUT, Client, ThreadServer, heard

from trickroom.server.connection import Connection
from trickroom.server.main import listening_sockets
from trickroom.server.protocol import Login
from trickroom.server.waiting_line import ANNOUNCE_SECONDS, LineKeeper, WaitingLine

LATE, ON_TIME = 1.0, 0.0


def test_a_node_that_keeps_up_lets_newcomers_straight_in_and_the_rest_wait_for_the_next_tick() -> None:
    line = WaitingLine(lag_limit=0.04, most_per_tick=3)
    assert [line.may_enter(key) for key in ("a", "b", "c", "d")] == [True, True, True, False]
    assert line.join("d") == 1
    assert not line.may_enter("e")  # someone waits: a newcomer queues behind them, even with places left later
    assert line.join("e") == 2
    assert line.tick(ON_TIME) == ["d", "e"]
    assert line.may_enter("d") and line.may_enter("e")  # their logins, answered now
    assert line.may_enter("f")  # one place of this tick's three is left
    assert not line.may_enter("g")


def test_a_loop_that_stays_behind_closes_the_line_and_one_that_catches_up_reopens_it_a_place_at_a_time() -> None:
    line = WaitingLine(lag_limit=0.04, most_per_tick=8)
    line.tick(0.15)  # one long pause (the collector): the smoothed lag, 30 ms, is within the limit
    assert line.per_tick == 8
    line = WaitingLine(lag_limit=0.04, most_per_tick=8)
    places = []
    for lag in [0.1] * 6 + [ON_TIME] * 4:  # behind by 100 ms a tick, then on time again
        line.tick(lag)
        places.append(line.per_tick)
    assert places == [8, 8, 4, 2, 1, 0, 0, 0, 1, 2]
    assert [line.may_enter(key) for key in "abc"] == [True, True, False]  # this tick's two places
    for _ in range(20):
        line.tick(ON_TIME)
    assert line.per_tick == 8  # never more than the most


def close(line: WaitingLine) -> None:
    while line.per_tick:
        line.tick(LATE)


def reopen(line: WaitingLine) -> list[str]:
    """Ticks on time until the line gives a place again (one): who came in."""
    while True:
        admitted = line.tick(ON_TIME)
        if line.per_tick:
            return admitted


def test_the_line_keeps_its_order_and_each_place() -> None:
    line = WaitingLine(lag_limit=0.04, most_per_tick=2)
    close(line)
    assert [line.join(key) for key in ("a", "b", "c")] == [1, 2, 3]
    assert not line.may_enter("b") and line.join("b") == 2  # a second login keeps its place
    line.leave("a")
    assert (line.position("b"), line.position("c"), line.position("a")) == (1, 2, 0)
    assert reopen(line) == ["b"]  # one place in the first tick that finds the loop caught up
    line.leave("b")  # closed before its login was answered: its pass goes too
    assert not line.passes
    assert line.tick(ON_TIME) == ["c"]


def test_only_so_many_sign_ins_are_under_way_at_once() -> None:
    line = WaitingLine(lag_limit=0.04, most_per_tick=10, most_in_flight=2)
    assert [line.may_enter(key) for key in "abc"] == [True, True, False]  # places left, but two under way
    line.join("c")
    line.join("d")
    assert line.tick(ON_TIME) == []
    line.done()  # a's welcome went out
    assert line.let_in() == ["c"] and line.let_in() == []
    line.leave("c")  # gone before its login was answered: its sign-in will not run
    assert line.let_in() == ["d"]


def test_no_line_when_it_is_turned_off() -> None:
    line = WaitingLine(lag_limit=0, most_per_tick=1)
    assert all(line.may_enter(str(n)) for n in range(100))
    assert line.tick(LATE) == [] and not line.waiting


class Keeper:
    """A LineKeeper with the answers it would give recorded, the coroutines it would spawn kept, and a fake clock."""

    def __init__(self, most_per_second: float = 20.0) -> None:
        self.now = 0.0
        self.answered: list[tuple[str, str | int | None]] = []
        self.spawned: list[Coroutine[Any, Any, None]] = []
        self.keeper = LineKeeper(40, most_per_second, self.answer, self.spawned.append, clock=lambda: self.now)

    async def answer(self, conn: Connection, msg: Any, re: Any) -> None:
        self.answered.append((conn.id, re))

    def run_spawned(self) -> None:
        for coroutine in self.spawned:
            asyncio.run(coroutine)
        self.spawned.clear()


def test_a_waiting_login_hears_its_number_and_is_answered_when_its_turn_comes() -> None:
    held = Keeper()
    close(held.keeper.line)  # one place per tick at most (20 a second), none now
    anna = Connection(id="n/c1")
    anna.preferences["lang"] = "ru"
    login = Login(type="login", nickname="Анна", id=7)
    assert not held.keeper.may_enter(anna, login)
    assert heard(anna) == [{"type": "line", "position": 1, "text": "В зале много людей: ваш номер в очереди 1."}]
    assert anna.logged_out_at is None  # waiting: login_timeout does not close it
    held.now = 5.0
    while not held.spawned:  # the loop catches up
        held.keeper.tick(ON_TIME)
    held.run_spawned()
    assert held.answered == [("n/c1", 7)]  # the login itself, answering its own id
    assert anna.logged_out_at == 5.0
    assert held.keeper.line.passes == {"n/c1"}  # the login, answered again, passes once (the room's answer)
    assert held.keeper.may_enter(anna, login) and not held.keeper.line.passes
    assert heard(anna) == []


def test_numbers_are_said_again_after_a_while_only_to_those_whose_number_changed() -> None:
    held = Keeper()
    close(held.keeper.line)
    people = [Connection(id=f"n/c{n}") for n in range(3)]
    for person in people:
        held.keeper.may_enter(person, Login(type="login", nickname=person.id[-2:]))
    assert [heard(person)[0]["position"] for person in people] == [1, 2, 3]
    held.keeper.leave(people[1])
    held.now = ANNOUNCE_SECONDS - 1
    held.keeper.tick(LATE)
    assert not any(heard(person) for person in people)  # not yet
    held.now = ANNOUNCE_SECONDS
    held.keeper.tick(LATE)
    assert (heard(people[0]), [m["position"] for m in heard(people[2])]) == ([], [2])


@pytest.fixture
def full_room(tmp_path: Path) -> Iterator[ThreadServer]:
    """A room with a line of one place per tick, its ticks driven by the test: at first full (no place at all)."""
    server = ThreadServer(db=f"sqlite:///{tmp_path / 'line.sqlite3'}", bot_workers=0, line_lag_ms=40,
                          line_rate=20).start()
    room = server.app.state.room
    on_loop(server, room.line.stop())  # no ticks but the test's
    yield server
    server.stop()


def on_loop(server: ThreadServer, coroutine: Coroutine[Any, Any, Any]) -> Any:
    return asyncio.run_coroutine_threadsafe(coroutine, server.app.state.room.loop).result(timeout=TIMEOUT)


def tick(server: ThreadServer, lag: float) -> None:
    async def run() -> None:
        server.app.state.room.line.tick(lag)

    on_loop(server, run())


def test_newcomers_wait_in_line_while_the_node_is_full_and_someone_coming_back_does_not(
        full_room: ThreadServer) -> None:
    boris = Client(full_room.url)
    boris.login_guest("Boris")  # the node keeps up: straight in
    boris.close()
    for _ in range(3):
        tick(full_room, LATE)  # the node falls behind: no place
    anna, gleb, back = Client(full_room.url), Client(full_room.url), Client(full_room.url)
    try:
        anna.send(type="login", nickname="Anna", id=1)
        assert anna.wait(type="line")["position"] == 1
        gleb.send(type="login", nickname="Gleb", lang="el", id=2)
        number = gleb.wait(type="line")
        assert (number["position"], number["text"]) == (2, "Η αίθουσα έχει πολύ κόσμο: είστε αριθμός 2 στη σειρά.")
        assert back.request(type="login", token=boris.token)["type"] == "welcome"  # coming back: no line
        anna.close()  # leaves the line
        for _ in range(30):
            tick(full_room, ON_TIME)  # caught up: places again
        welcome = gleb.wait(re=2)
        assert (welcome["type"], welcome["user"]["name"]) == ("welcome", "Gleb")
        assert gleb.request(type="ping")["type"] == "pong"
    finally:
        for client in (anna, gleb, back):
            client.close()


def test_several_sockets_listen_on_one_port_and_the_kernel_shares_connections_among_them() -> None:
    sockets = listening_sockets("127.0.0.1", 0, 4)  # port 0: the others take the port the first was given
    clients: list[socket.socket] = []
    try:
        assert len(sockets) == 4 and len({sock.getsockname()[1] for sock in sockets}) == 1
        for sock in sockets:
            sock.listen(64)
        clients = [socket.create_connection(sockets[0].getsockname()[:2], timeout=TIMEOUT) for _ in range(40)]
        taken = []
        for sock in sockets:
            count = 0
            while select.select([sock], [], [], 0.2)[0]:
                sock.accept()[0].close()
                count += 1
            taken.append(count)
        assert sum(taken) == 40 and sum(1 for count in taken if count) > 1, taken
    finally:
        for opened in [*clients, *sockets]:
            opened.close()
