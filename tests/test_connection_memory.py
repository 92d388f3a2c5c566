"""What an idle connection holds (issue 15, "under 50 KB per connected idle client"): its outbox is a list, not an
asyncio.Queue; its login deadline is a timer, not a sleeping task; and websocket compression (a zlib compressor
and decompressor per connection) is off unless the settings ask for it."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import gc
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from server_helpers import ThreadServer
from starlette.websockets import WebSocketState
from websockets.sync.client import connect

from trickroom.server.app import LoginDeadline
from trickroom.server.connection import Connection, Outbox
from trickroom.server.main import uvicorn_config
from trickroom.server.sessions import CLOSE_LOGIN_TIMEOUT
from trickroom.server.settings import Settings

# The outbox


def test_the_outbox_gives_frames_in_order_and_the_end_marker_too() -> None:
    box = Outbox()
    assert box.empty() and box.qsize() == 0
    for item in ("a", "b", None):
        box.put_nowait(item)
    assert box.qsize() == 3 and not box.empty()
    assert [box.get_nowait() for _ in range(3)] == ["a", "b", None]
    assert box.empty()
    with pytest.raises(asyncio.QueueEmpty):
        box.get_nowait()


class ListeningSocket:
    """A websocket that takes each frame after a turn of the loop, as a socket with room does."""

    def __init__(self) -> None:
        self.sent: list[str] = []
        self.client_state = WebSocketState.CONNECTED

    async def send_text(self, data: str) -> None:
        await asyncio.sleep(0)
        self.sent.append(data)

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        self.sent.append(f"close {code}")


def test_a_writer_runs_only_while_frames_wait() -> None:
    async def run() -> list[str]:
        socket = ListeningSocket()
        conn = Connection(id="n/c1", socket=socket)
        assert conn.writer is None  # an idle connection holds no task
        conn.send_frame("a")
        conn.send_frame("b")
        first = conn.writer
        assert first is not None
        await first
        assert socket.sent == ["a", "b"] and conn.writer is None and conn.queue.empty()
        conn.send_frame("c")  # waits again: a new writer
        assert conn.writer is not None and conn.writer is not first
        conn.close(1000, "bye")
        conn.send_frame("d")  # a closing connection takes nothing more
        await conn.writer
        assert conn.writer is None
        return socket.sent

    assert asyncio.run(run()) == ["a", "b", "c", "close 1000"]


def test_an_ended_connection_sends_nothing_more() -> None:
    async def run() -> list[str]:
        socket = ListeningSocket()
        conn = Connection(id="n/c1", socket=socket)
        conn.send_frame("a")
        conn.end()  # the client went: what was queued goes, then nothing (no close frame: not closing)
        conn.send_frame("b")
        assert conn.writer is not None
        await conn.writer
        conn.send_frame("c")
        assert conn.writer is None and conn.queue.empty()
        return socket.sent

    assert asyncio.run(run()) == ["a"]


def test_a_reader_behind_a_steady_stream_does_not_keep_what_it_has_sent() -> None:
    box = Outbox()
    taken: list[str | None] = []
    for number in range(5 * Outbox.COMPACT):  # always one frame behind: the list never empties by itself
        box.put_nowait(str(number))
        if number:
            taken.append(box.get_nowait())
    assert taken == [str(n) for n in range(5 * Outbox.COMPACT - 1)]
    assert box.qsize() == 1 and len(box.items) <= 2 * Outbox.COMPACT
    assert all(item is None for item in box.items[:box.head])  # sent frames are dropped at once


def test_a_connection_closes_after_its_frames() -> None:
    conn = Connection(id="n/c1")
    conn.send_frame("one")
    conn.close(1008, "bye")
    conn.send_frame("too late")
    assert [conn.queue.get_nowait(), conn.queue.get_nowait()] == ["one", None] and conn.queue.empty()


# The login deadline


class Handle:
    def __init__(self) -> None:
        self.off = False

    def cancel(self) -> None:
        self.off = True


class Timers:
    """A fake clock and call_later: the test moves time and fires what is due."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.due: list[tuple[float, Callable[[], None], Handle]] = []

    def call_later(self, delay: float, callback: Callable[[], None]) -> Any:
        handle = Handle()
        self.due.append((self.now + delay, callback, handle))
        return handle

    def advance(self, seconds: float) -> None:
        self.now += seconds
        while True:
            ready = [entry for entry in self.due if entry[0] <= self.now and not entry[2].off]
            if not ready:
                return
            entry = min(ready, key=lambda e: e[0])
            self.due.remove(entry)
            entry[1]()

    @property
    def armed(self) -> int:
        return sum(1 for entry in self.due if not entry[2].off)


def deadline_for(timers: Timers, timeout: float = 60) -> tuple[Connection, LoginDeadline]:
    conn = Connection(id="n/c1", logged_out_at=timers.now)
    return conn, LoginDeadline(conn, timeout, clock=lambda: timers.now, call_later=timers.call_later)


def test_a_connection_that_never_logs_in_is_closed_after_the_timeout() -> None:
    timers = Timers()
    conn, _ = deadline_for(timers)
    timers.advance(59.9)
    assert conn.closing is None
    timers.advance(0.2)
    assert conn.closing == (CLOSE_LOGIN_TIMEOUT, "not logged in")
    assert timers.armed == 0  # nothing is left waiting


def test_a_logged_in_connection_stays_and_has_the_timeout_again_after_logging_out() -> None:
    timers = Timers()
    conn, _ = deadline_for(timers)
    timers.advance(10)
    conn.user, conn.logged_out_at = {"id": "g1", "name": "Ann", "guest": True}, None
    timers.advance(600)  # logged in: looked at every minute, never closed, one timer at a time
    assert conn.closing is None and timers.armed == 1
    conn.user, conn.logged_out_at = None, timers.now  # logged out
    timers.advance(59)
    assert conn.closing is None
    timers.advance(61)
    assert conn.closing is not None and conn.closing[0] == CLOSE_LOGIN_TIMEOUT


def test_a_closed_connection_cancels_its_deadline() -> None:
    timers = Timers()
    conn, deadline = deadline_for(timers)
    deadline.cancel()
    timers.advance(120)
    assert conn.closing is None and timers.armed == 0


# Compression


def test_compression_is_off_unless_asked_for() -> None:
    assert Settings().websocket_compression is False
    assert uvicorn_config(None, Settings()).ws_per_message_deflate is False
    assert uvicorn_config(None, Settings(websocket_compression=True)).ws_per_message_deflate is True


@pytest.mark.parametrize("compression", [False, True])
def test_a_client_offering_deflate_gets_it_only_when_the_room_offers_it(tmp_path: Path, compression: bool) -> None:
    room = ThreadServer(db=f"sqlite:///{tmp_path / 'room.sqlite3'}", bot_workers=0,
                        websocket_compression=compression).start()
    try:
        with connect(room.url, compression="deflate", open_timeout=20) as ws:
            assert "hello" in str(ws.recv(timeout=20))
            names = [extension.name for extension in ws.protocol.extensions]
    finally:
        room.stop()
    assert names == (["permessage-deflate"] if compression else [])


# The websocket's short path


def coroutines_alive() -> collections.Counter[str]:
    return collections.Counter(obj.cr_code.co_qualname for obj in gc.get_objects() if type(obj) is types.CoroutineType)


LAYERS = ("Starlette.__call__", "ServerErrorMiddleware.__call__", "FrontGuard.__call__", "ExceptionMiddleware.__call__",
          "Router.__call__", "Router.app", "WebSocketRoute.handle", "wrap_app_handling_exceptions.<locals>.wrapped_app",
          "websocket_session.<locals>.app", "websocket_session.<locals>.app.<locals>.app")


def test_an_open_websocket_holds_no_middleware_or_router_coroutine(tmp_path: Path) -> None:
    """Each Starlette layer is a coroutine suspended for as long as the socket is open; /ws skips them. (The
    lifespan holds one chain of them for as long as the room runs: counted before the sockets open.)"""
    room = ThreadServer(db=f"sqlite:///{tmp_path / 'room.sqlite3'}", bot_workers=0).start()
    try:
        before = coroutines_alive()
        with contextlib.ExitStack() as stack:
            sockets = [stack.enter_context(connect(room.url, open_timeout=20)) for _ in range(3)]
            for ws in sockets:
                assert "hello" in str(ws.recv(timeout=20))
            opened = coroutines_alive() - before
    finally:
        room.stop()
    assert opened["serve_connection"] == 3, opened
    assert {layer: opened[layer] for layer in LAYERS if opened[layer]} == {}, opened
    assert not opened["write_queued"], opened  # their frames went straight to the socket: no writer


def test_the_short_path_is_taken_under_a_root_path(tmp_path: Path) -> None:
    """Behind a proxy that serves the room under a prefix (uvicorn's ``root_path``, part of the scope's path), /ws
    is still the room's door and still skips Starlette's layers."""
    room = ThreadServer({"root_path": "/room"}, db=f"sqlite:///{tmp_path / 'room.sqlite3'}", bot_workers=0).start()
    try:
        before = coroutines_alive()
        with connect(room.url, open_timeout=20) as ws:
            assert "hello" in str(ws.recv(timeout=20))
            opened = coroutines_alive() - before
    finally:
        room.stop()
    assert opened["serve_connection"] == 1 and not any(opened[layer] for layer in LAYERS), opened
