"""One websocket as the room sees it (:class:`Connection`): its outbound queue of encoded frames, who is logged in
on it, and the close codes a connection may end with."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import dataclass, field
from typing import Any, Protocol

from starlette.websockets import WebSocketState

from trickroom.server.accounts import DEFAULT_PREFERENCES
from trickroom.server.errors import error_message
from trickroom.server.frames import FrameError, encode
from trickroom.server.messages import AnyServerMessage
from trickroom.server.protocol import Message, ProtocolError

log = logging.getLogger("trickroom.room")
OUTBOX_LIMIT = 5000  # unread messages after which a connection is closed
CLOSE_POLICY, CLOSE_TOO_BIG, CLOSE_ERROR, CLOSE_RESTART = 1008, 1009, 1011, 1012  # websocket close codes


class Outbox:
    """A connection's frames waiting for its writer, first in first out (``None``: the connection ends there).

    What ``asyncio.Queue`` does for one reader and no bound, at a tenth of its memory: a queue holds four deques
    (about 3 KB even when empty, and a room keeps one per idle connection), this a list. Nobody waits on it: the
    connection starts its writer when a frame is queued (``Connection.wake_writer``)."""

    __slots__ = ("head", "items")
    COMPACT = 1024  # frames taken from the front after which the list drops them, if they are half of it

    def __init__(self) -> None:
        self.items: list[str | None] = []
        self.head = 0  # the next frame to take

    def qsize(self) -> int:
        return len(self.items) - self.head

    def empty(self) -> bool:
        return self.head >= len(self.items)

    def put_nowait(self, item: str | None) -> None:
        self.items.append(item)

    def get_nowait(self) -> str | None:
        if self.empty():
            raise asyncio.QueueEmpty
        items, head = self.items, self.head
        item, items[head] = items[head], None  # a sent frame is not kept
        self.head = head + 1
        if self.head == len(items):  # all taken: start again with an empty list
            items.clear()
            self.head = 0
        elif self.head >= self.COMPACT and self.head * 2 >= len(items):  # a reader behind a steady stream
            del items[:self.head]
            self.head = 0
        return item


class Socket(Protocol):
    """What the writer needs of a websocket (Starlette's ``WebSocket``)."""

    client_state: Any

    async def send_text(self, data: str) -> None:
        """Send one text frame; returns once the socket took it."""

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        """Send a close frame."""


class Wire(Protocol):
    """Where a connection writes a frame at once, when it may (``Connection.send_frame``; the server's side is
    ``wire.py``)."""

    def ready(self) -> bool:
        """Whether a frame written now goes to the socket at once (nothing in the way: a full buffer, a close)."""

    def write(self, frame: str) -> None:
        """Write one text frame; only when :meth:`ready`."""


@dataclass(eq=False)
class Connection:
    """One websocket, as the room sees it: an outbound queue of encoded frames and who is logged in on it.

    Every message is encoded once, here, as it is sent (``frames.encode``, which cannot fail on text); a frame is
    written at once to the connection's ``wire`` when nothing is ahead of it, else queued for the connection's
    writer (``write_queued``), which runs only while frames wait. ``end`` stops the sending after the frames
    already queued; ``close`` does too, with a close code and reason. An ended connection takes no more
    messages."""

    id: str
    address: str = "unknown"  # the client's IP address (X-Forwarded-For from a trusted proxy)
    queue: Outbox = field(default_factory=Outbox)
    user: Message | None = None
    session: str | None = None  # the SHA-256 of the session's token (the store's key)
    preferences: dict[str, Any] = field(default_factory=lambda: dict(DEFAULT_PREFERENCES))
    logged_out_at: float | None = field(default_factory=time.monotonic)  # None while logged in
    closing: tuple[int, str] | None = None  # (websocket close code, reason) once the connection is ending
    protocol: int = 1  # the version the client logged in with: 2 hears the lobby's changes as lobby_batch
    follows_lobby: bool = True  # hears the lobby's changes (a client at a table may say it does not need them)
    lobby_tables: str = "all"  # "open": its lobby lists the waiting tables and its own (Lobby, "open" lobbies)
    lobby_people: str = "all"  # "auto": a busy room's people are counted, not listed (Lobby.counts_people)
    wire: Wire | None = None  # where a frame is written at once when nothing is queued (None: always queued)
    socket: Socket | None = None  # where the writer sends the queued frames (None: they stay queued, as in tests)
    writer: asyncio.Task[None] | None = None  # the writer, while frames wait (write_queued)
    writing: bool = False  # the writer holds a frame it took from the queue and has not finished sending
    ended: bool = False  # the end (None) is queued: nothing more is sent

    @property
    def lang(self) -> str:
        return str(self.preferences.get("lang", "en"))

    @property
    def me(self) -> Message:
        """The user logged in here; refused with ``not_logged_in`` if nobody is."""
        if self.user is None:
            raise ProtocolError("not_logged_in")
        return self.user

    def send(self, message: AnyServerMessage) -> None:
        if self.ended:
            return
        self.send_frame(self.encoded(message))

    def encoded(self, message: AnyServerMessage | Message) -> str:
        """``message`` as a frame; a message JSON cannot hold (a bug) becomes ``error internal`` in its place."""
        try:
            return encode(message)
        except FrameError:
            log.exception("could not encode a message for connection %s; sent error internal instead", self.id)
            table = message.get("table")
            return encode(error_message(ProtocolError("internal"), self.lang, message.get("re"),
                                        table=table if isinstance(table, str) else None))

    def send_frame(self, frame: str) -> None:
        """Send a frame already encoded (one message to many connections is encoded once: :class:`Frames`):
        written at once when the wire is ready and no frame is ahead of it, else queued for the writer."""
        if self.ended:  # (a closing connection has ended too)
            return
        wire = self.wire
        if wire is not None and not self.writing and self.queue.empty() and wire.ready():
            wire.write(frame)
            return
        if self.queue.qsize() >= OUTBOX_LIMIT:
            # A client that reads nothing must not make the server hold its messages forever: close it.
            log.warning("connection %s left %d messages unread; closing it", self.id, OUTBOX_LIMIT)
            self.close(CLOSE_POLICY, "too many unread messages")
            return
        self.queue.put_nowait(frame)
        self.wake_writer()

    def close(self, code: int, reason: str) -> None:
        """End the connection once the frames already queued are sent: a close frame with ``code`` and
        ``reason`` (1008 policy, 1009 too big, 1011 server error, 1012 restart)."""
        if self.closing is None:
            self.closing = (code, reason)
            self.end()

    def end(self) -> None:
        """Nothing more is sent: the writer sends what is queued, then (if closing) the close frame."""
        if not self.ended:
            self.ended = True
            self.queue.put_nowait(None)
            self.wake_writer()

    def wake_writer(self) -> None:
        """Start the writer if frames wait and none runs. A connection whose socket keeps up has no writer at
        all: a task, its coroutines and a future for every idle client were a tenth of what the collector
        walked per connection (docs/performance.md, "The websocket's short path")."""
        if self.writer is None and self.socket is not None and not self.queue.empty():
            self.writer = asyncio.get_running_loop().create_task(write_queued(self, self.socket))


async def write_queued(conn: Connection, socket: Socket) -> None:
    """Send the connection's queued frames in order until none is left, or until its end (None): then, if the
    connection is closing (``Connection.close``), a close frame with its code and reason. A frame that cannot be
    sent closes this connection, with the reason in the log; every other connection has its own writer and never
    notices."""
    try:
        while not conn.queue.empty():
            frame = conn.queue.get_nowait()
            if frame is None:
                if conn.closing is not None:
                    code, reason = conn.closing
                    with contextlib.suppress(Exception):
                        await socket.close(code=code, reason=reason)
                return
            conn.writing = True  # a frame sent now must wait for this one (Connection.send_frame)
            try:
                await socket.send_text(frame)
            except Exception as exc:
                gone = socket.client_state == WebSocketState.DISCONNECTED
                log.log(logging.INFO if gone else logging.WARNING, "could not send to connection %s (%s); closing it",
                        conn.id, "the client had gone" if gone else f"{type(exc).__name__}: {exc}"[:200])
                conn.close(CLOSE_ERROR, "send failed")
                with contextlib.suppress(Exception):
                    await socket.close(code=CLOSE_ERROR, reason="send failed")
                return
            finally:
                conn.writing = False
    finally:  # (the queue is empty, or the connection ended: a frame queued later starts a new writer)
        conn.writer = None


class Frames:
    """One fan-out's frames, each distinct message encoded once however many connections get it: a message is
    known by its identity (the same rendering shared by every listener with the same text) or by a key the
    sender gives (the same batch for every connection in the same language and view). Live for one fan-out only:
    a message must not change while its frame is kept."""

    def __init__(self) -> None:
        self.by_id: dict[int, tuple[object, str]] = {}  # id(message) -> (the message, kept alive; its frame)
        self.by_key: dict[object, str] = {}

    def send(self, conn: Connection, message: AnyServerMessage | Message, key: object = None) -> None:
        if conn.ended:
            return
        if key is not None:
            frame = self.by_key.get(key)
            if frame is None:
                frame = self.by_key[key] = conn.encoded(message)
        else:
            held = self.by_id.get(id(message))
            if held is None:
                held = self.by_id[id(message)] = (message, conn.encoded(message))
            frame = held[1]
        conn.send_frame(frame)
