"""Frames written straight to a websocket's socket, without a task or a coroutine per frame.

The ASGI way to send a frame is to await ``send``: a connection's writer task wakes (a future, a handle), and the
frame goes down through Starlette's and uvicorn's coroutines to the websocket library, which builds a frame
object and a list of output before one ``write`` to the socket. At 10,000 people that was about 40% of a frame's
cost (the system call is the rest), and each connection's writer left a fresh coroutine, future and list behind
at every frame, alive until the next one: a quarter to a third of the objects the collector's young collections
walked, 30 ms each (docs/performance.md, "Frames written straight to the socket").

So uvicorn's websocket protocol is given one more ASGI scope extension, ``trickroom.wire``: a ``Wire`` that
writes an unfragmented text frame (RFC 6455, section 5.2: a server's frames are not masked) to the socket at once,
when nothing is in the way. Anything in the way sends the frame the ASGI way, in order, through the connection's
queue and writer (``Connection.send_frame``): a socket whose buffer is full (the client reads slowly), a frame
still being written by the writer, compression (a compressed frame is the websocket library's to make), the
handshake not done or a close frame sent. A server without the extension (Starlette's test client, another
server) sends every frame the ASGI way.
"""

from __future__ import annotations

import struct
from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.protocol import Protocol
from websockets.streams import StreamReader

from trickroom.server.connection import Wire

EXTENSION = "trickroom.wire"
TEXT_FIN = 0x81  # FIN, opcode 1 (text)


def text_frame(payload: bytes) -> bytes:
    """One unmasked, unfragmented websocket text frame holding ``payload`` (UTF-8)."""
    size = len(payload)
    if size < 126:
        header = bytes((TEXT_FIN, size))
    elif size < 1 << 16:
        header = struct.pack("!BBH", TEXT_FIN, 126, size)
    else:
        header = struct.pack("!BBQ", TEXT_FIN, 127, size)
    return header + payload


class WireProtocol(WebSocketsSansIOProtocol):
    """uvicorn's sans-I/O websocket protocol, itself a :class:`~trickroom.server.connection.Wire` in the ASGI
    scope's extensions."""

    def handle_connect(self, event: Any) -> None:
        super().handle_connect(event)
        scope = getattr(self, "scope", None)  # absent when the handshake was refused
        if scope is not None:
            scope["extensions"][EXTENSION] = self
            self.forget_request()

    def forget_request(self) -> None:
        """Let the handshake's request go once the scope holds what the room reads of it (its path and headers):
        about twenty objects per connection (the headers' dictionary and a list per header) that every full
        collection would walk for as long as the connection is open. uvicorn keeps the request, and so does the
        websocket library's parser (``parser_without_request``)."""
        self.__dict__.pop("request", None)
        parser_without_request(self.conn)

    async def send(self, message: Any) -> None:
        await super().send(message)
        if self.handshake_complete and "response" in self.__dict__:  # sent: what the scope holds is enough
            del self.__dict__["response"]

    def connection_lost(self, exc: Exception | None) -> None:
        """The connection is over: let go of what would keep it alive in a cycle, so that it is freed at once
        rather than by a full collection (which the room runs only now and then, ``collector.py``): the scope's
        ``trickroom.wire`` (this protocol), and the websocket library's parser, a generator that holds its protocol
        to the end (``Protocol.discard`` waits at a last ``yield``)."""
        super().connection_lost(exc)
        scope = getattr(self, "scope", None)
        if scope is not None:
            scope["extensions"].pop(EXTENSION, None)
        self.conn.parser.close()

    def ready(self) -> bool:
        return bool(self.handshake_complete and not self.close_sent and self.initial_response is None
                    and not self.conn.extensions and self.writable.is_set() and not self.transport.is_closing())

    def write(self, frame: str) -> None:
        self.transport.write(text_frame(frame.encode()))


def parser_without_request(conn: Protocol) -> bool:
    """Give ``conn`` a fresh parser of frames if it is between frames; whether it did.

    The websocket library's server parser is a generator that parses the handshake's request, then frames, and
    keeps the request in its frame for as long as the connection is open. Between frames (waiting for data, the
    stream not at its end) a fresh generator of frames only, run to its first wait, is in the same state, as the
    library itself replaces its parser at a close (``Protocol.discard``). Inside a frame (bytes of it came with
    the request) the parser is kept."""
    parser = conn.parser
    innermost: Any = parser
    while getattr(innermost, "gi_yieldfrom", None) is not None:
        innermost = innermost.gi_yieldfrom
    if innermost is parser or getattr(innermost, "gi_code", None) is not StreamReader.at_eof.__code__:
        return False
    fresh = Protocol.parse(conn)
    next(fresh)  # to its first wait for data, where the old one was
    conn.parser = fresh
    return True


def wire_of(scope: Any) -> Wire | None:
    """The connection's :class:`Wire`, if the server gave one."""
    wire = scope.get("extensions", {}).get(EXTENSION)
    return wire if isinstance(wire, WireProtocol) else None
