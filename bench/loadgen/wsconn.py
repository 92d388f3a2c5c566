"""A cheap websocket client connection: websockets' sans-I/O ``ClientProtocol`` on an ``asyncio.Protocol``.

No task, no future and no queue per connection: bytes from the socket go through the protocol object and every
text frame is handed, undecoded, to a callback. That is what lets one generator process hold thousands of
connections. No compression is offered (the server then sends plain frames), and no keepalive pings are sent.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from websockets.client import ClientProtocol
from websockets.frames import Frame, Opcode
from websockets.http11 import Response
from websockets.protocol import State
from websockets.uri import parse_uri


class Link(asyncio.Protocol):
    """One websocket. ``on_open()`` after the handshake, ``on_text(bytes)`` for every text frame,
    ``on_close(reason)`` once when the connection ends (also when it never opened)."""

    def __init__(self, url: str, on_open: Callable[[], None], on_text: Callable[[bytes], None],
                 on_close: Callable[[str], None]) -> None:
        self.protocol = ClientProtocol(parse_uri(url), max_size=2**26)
        self.on_open, self.on_text, self.on_close = on_open, on_text, on_close
        self.transport: asyncio.Transport | None = None
        self.opened = False
        self.closed = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        self.protocol.send_request(self.protocol.connect())
        self.flush()

    def data_received(self, data: bytes) -> None:
        self.protocol.receive_data(data)
        for event in self.protocol.events_received():
            if isinstance(event, Response):
                if self.protocol.handshake_exc is not None:
                    self.finish(f"handshake failed: {self.protocol.handshake_exc}")
                    return
                self.opened = True
                self.on_open()
            elif isinstance(event, Frame) and event.opcode is Opcode.TEXT and not self.closed:
                self.on_text(bytes(event.data))
        self.flush()

    def eof_received(self) -> bool | None:
        self.protocol.receive_eof()
        self.flush()
        return None

    def connection_lost(self, exc: Exception | None) -> None:
        code = self.protocol.close_code
        self.finish(f"closed {code}" if code is not None else f"connection lost {exc!r}" if exc else "closed")

    def flush(self) -> None:
        if self.transport is None or self.transport.is_closing():
            return
        for chunk in self.protocol.data_to_send():
            if chunk:
                self.transport.write(chunk)
            else:  # the protocol asks for the end of the stream
                self.transport.close()
                return

    def send(self, text: str) -> bool:
        """Send one text frame; False when the connection is not open (nothing sent)."""
        if not self.opened or self.closed or self.transport is None or self.transport.is_closing() \
                or self.protocol.state is not State.OPEN:
            return False
        self.protocol.send_text(text.encode())
        self.flush()
        return True

    def drop(self) -> None:
        """End the connection at once, without a closing handshake (a dropped network)."""
        self.closed = True
        if self.transport is not None:
            self.transport.abort()

    def finish(self, reason: str) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.abort()
        if not self.closed:
            self.closed = True
            self.on_close(reason)
        else:
            self.closed = True


async def open_link(url: str, on_open: Callable[[], None], on_text: Callable[[bytes], None],
                    on_close: Callable[[str], None]) -> Link:
    """Connect a ``Link`` to ``url`` (ws://host:port/path); raises OSError when the TCP connection fails."""
    uri = parse_uri(url)
    loop = asyncio.get_running_loop()
    _, link = await loop.create_connection(lambda: Link(url, on_open, on_text, on_close), uri.host, uri.port)
    return link
