"""Frames written straight to the socket (server/wire.py): the frame's bytes, the order of frames written at once
and frames queued behind a full socket, and a real uvicorn server with a client that reads slowly."""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
from typing import Any

import pytest
from server_helpers import TIMEOUT, ThreadServer
from starlette.websockets import WebSocketState
from websockets.frames import Frame, Opcode
from websockets.http11 import Request
from websockets.protocol import Protocol
from websockets.server import ServerProtocol
from websockets.sync.client import connect

from trickroom.server.connection import OUTBOX_LIMIT, Connection
from trickroom.server.frames import encode
from trickroom.server.main import uvicorn_config
from trickroom.server.settings import Settings
from trickroom.server.wire import WireProtocol, parser_without_request, text_frame


@pytest.mark.parametrize("size", [0, 1, 125, 126, 65535, 65536, 200_000])
def test_a_text_frame_is_the_websocket_librarys_own(size: int) -> None:
    payload = ("é" * size).encode()[:size]
    assert text_frame(payload) == Frame(Opcode.TEXT, payload).serialize(mask=False)


class FakeWire:
    """A socket that is ready or not as the test says; what it got is kept in ``log`` beside the writer's sends."""

    def __init__(self, log: list[str]) -> None:
        self.log, self.open = log, True

    def ready(self) -> bool:
        return self.open

    def write(self, frame: str) -> None:
        assert self.open
        self.log.append("wire " + json.loads(frame)["message"])


class SlowSocket:
    """A websocket whose sends wait until the test lets them through, as a full socket makes them wait."""

    def __init__(self, log: list[str]) -> None:
        self.log, self.gate = log, asyncio.Event()
        self.client_state = WebSocketState.CONNECTED

    async def send_text(self, frame: str) -> None:
        await self.gate.wait()
        self.log.append("writer " + json.loads(frame)["message"])

    async def close(self, code: int, reason: str = "") -> None:
        self.log.append(f"close {code}")


def chat(conn: Connection, line: str) -> None:
    conn.send({"type": "chat", "message": line})


def test_a_frame_goes_out_at_once_only_when_nothing_is_ahead_of_it() -> None:
    async def scenario() -> tuple[list[str], list[tuple[str, int, bool]]]:
        log: list[str] = []
        wire, socket = FakeWire(log), SlowSocket(log)
        conn = Connection(id="c1", wire=wire, socket=socket)
        seen: list[tuple[str, int, bool]] = []  # (after which line, frames queued, the writer holding one)

        def note(line: str) -> None:
            seen.append((line, conn.queue.qsize(), conn.writing))

        chat(conn, "1")  # nothing ahead: straight to the socket
        note("1")
        wire.open = False  # the socket's buffer is full
        chat(conn, "2")
        note("2")
        wire.open = True  # room again, but 2 is still queued: 3 waits behind it
        chat(conn, "3")
        note("3")
        socket.gate.set()
        while conn.writing or not conn.queue.empty():
            await asyncio.sleep(0)
        socket.gate.clear()
        wire.open = False
        chat(conn, "4")
        wire.open = True
        await asyncio.sleep(0)  # the writer takes 4 and waits on the socket: the queue is empty
        chat(conn, "5")  # but the writer still holds 4
        note("5")
        socket.gate.set()
        while conn.writing or not conn.queue.empty():
            await asyncio.sleep(0)
        chat(conn, "6")  # everything sent: at once again
        note("6")
        assert conn.writer is None  # nothing waits: no writer
        conn.close(1000, "bye")
        chat(conn, "7")  # a closing connection takes nothing more
        assert conn.writer is not None
        await asyncio.wait_for(conn.writer, TIMEOUT)
        return log, seen

    log, seen = asyncio.run(scenario())
    assert log == ["wire 1", "writer 2", "writer 3", "writer 4", "writer 5", "wire 6", "close 1000"]
    assert seen == [("1", 0, False), ("2", 1, False), ("3", 2, False), ("5", 1, True), ("6", 0, False)]


def test_a_connection_whose_socket_stays_full_is_closed_at_the_queue_limit() -> None:
    log: list[str] = []
    wire = FakeWire(log)
    wire.open = False
    conn = Connection(id="c1", wire=wire)
    for number in range(OUTBOX_LIMIT + 1):
        chat(conn, str(number))
    assert log == [] and conn.closing == (1008, "too many unread messages")


def test_the_wire_is_used_without_compression_only() -> None:
    assert uvicorn_config(None, Settings()).ws is WireProtocol
    assert uvicorn_config(None, Settings(websocket_compression=True)).ws == "auto"


def run_in(loop: asyncio.AbstractEventLoop, function: Any) -> Any:
    """``function()`` on the server's event loop, from the test's thread."""
    done: concurrent.futures.Future[Any] = concurrent.futures.Future()

    def call() -> None:
        try:
            done.set_result(function())
        except BaseException as exc:  # handed to the test's thread
            done.set_exception(exc)

    loop.call_soon_threadsafe(call)
    return done.result(timeout=TIMEOUT)


class CountingWire:
    """The real wire, counting the frames it wrote."""

    def __init__(self, wire: WireProtocol) -> None:
        self.wire, self.written = wire, 0

    def ready(self) -> bool:
        return self.wire.ready()

    def write(self, frame: str) -> None:
        self.written += 1
        self.wire.write(frame)


def test_a_slow_reader_gets_every_frame_whole_and_in_order_through_uvicorn() -> None:
    server = ThreadServer().start()
    try:
        # max_queue: the client stops reading its socket after a few unread messages, so the server's fills up.
        with connect(server.url, open_timeout=TIMEOUT, max_size=2**22, max_queue=2) as ws:
            assert json.loads(ws.recv(timeout=TIMEOUT))["type"] == "hello"
            room = server.app.state.room
            conn = next(iter(room.connections.values()))
            assert isinstance(conn.wire, WireProtocol)
            wire = conn.wire
            counting = conn.wire = CountingWire(wire)
            pad = "ü" * 4000
            count = 4000

            def burst() -> tuple[int, int]:
                for number in range(count):
                    conn.send_frame(encode({"type": "probe", "n": number, "pad": pad}))
                return counting.written, conn.queue.qsize()

            written, queued = run_in(wire.loop, burst)
            assert written > 0 and queued > 0 and written + queued == count  # at once until the socket filled
            got = [json.loads(ws.recv(timeout=TIMEOUT)) for _ in range(count)]
            assert [m["n"] for m in got] == list(range(count))
            assert all(m["pad"] == pad for m in got)

            def one_more() -> tuple[int, int, bool]:
                conn.send_frame(encode({"type": "probe", "n": count, "pad": ""}))
                return counting.written, conn.queue.qsize(), conn.writing

            assert run_in(wire.loop, one_more) == (written + 1, 0, False)  # drained: at once again
            assert json.loads(ws.recv(timeout=TIMEOUT))["n"] == count
    finally:
        server.stop()


# The handshake's request let go


def masked_text_frame(text: str, mask: bytes = b"\x01\x02\x03\x04") -> bytes:
    """A client's text frame (RFC 6455: masked), under 126 bytes."""
    payload = text.encode()
    assert len(payload) < 126
    return bytes((0x81, 0x80 | len(payload))) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def test_an_open_websocket_keeps_no_handshake_request_and_still_reads_frames() -> None:
    server = ThreadServer().start()
    try:
        with connect(server.url, open_timeout=TIMEOUT) as ws:
            assert json.loads(ws.recv(timeout=TIMEOUT))["type"] == "hello"
            wire = next(iter(server.app.state.room.connections.values())).wire
            assert isinstance(wire, WireProtocol)
            assert "request" not in wire.__dict__ and "response" not in wire.__dict__
            assert wire.conn.parser.gi_code is Protocol.parse.__code__  # frames only: no request in its frame
            for number in range(3):  # fragmented and whole frames, after the parser was replaced
                ws.send(json.dumps({"type": "ping", "id": number}))
                answer = json.loads(ws.recv(timeout=TIMEOUT))
                assert (answer["type"], answer["re"]) == ("pong", number)
            ws.send([json.dumps({"type": "ping", "id": "parts"})[:5], json.dumps({"type": "ping", "id": "parts"})[5:]])
            answer = json.loads(ws.recv(timeout=TIMEOUT))
            assert (answer["type"], answer["re"]) == ("pong", "parts")
    finally:
        server.stop()


HANDSHAKE = (b"GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
             b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")


def texts(conn: ServerProtocol) -> list[str]:
    return [bytes(event.data).decode() for event in conn.events_received() if isinstance(event, Frame)]


def test_a_parser_between_frames_is_replaced_and_reads_the_next_frames() -> None:
    conn = ServerProtocol()
    conn.receive_data(HANDSHAKE)
    (request,) = conn.events_received()
    assert isinstance(request, Request)
    conn.send_response(conn.accept(request))
    assert parser_without_request(conn)
    assert "request" not in conn.parser.gi_frame.f_locals
    first, second = masked_text_frame("one"), masked_text_frame("two")
    conn.receive_data(first + second[:3])  # a whole frame and the start of the next
    conn.receive_data(second[3:])
    assert texts(conn) == ["one", "two"]


def test_a_parser_inside_a_frame_is_kept() -> None:
    conn = ServerProtocol()
    frame = masked_text_frame("begun")
    conn.receive_data(HANDSHAKE + frame[:3])  # a client that did not wait for the handshake's answer
    parser = conn.parser
    assert not parser_without_request(conn) and conn.parser is parser
    conn.receive_data(frame[3:])
    assert texts(conn) == ["begun"]
