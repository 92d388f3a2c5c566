"""The online client's connection across the room's nodes (docs/protocol.md, "Several nodes"): reconnecting after a
drop or a node's ``reconnect`` (the addresses tried in turn, pausing longer after each round), and a quiet move to
the node that holds the table we sit at (``table_node``). A part of :class:`~trickroom.terminal.online.OnlineClient`,
kept apart because it is about connections, not about the table."""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, Any

from websockets.exceptions import ConnectionClosed, WebSocketException
from websockets.sync.client import ClientConnection, connect

from trickroom.terminal.text import say

Message = dict[str, Any]
RECONNECT_SECONDS = 60.0  # how long to keep trying before giving up
TABLE_NODE_EVERY_SECONDS = 60.0  # a table's node is followed at most this often (a wrong address cannot bounce us)


class NodeMoves:
    """Mixed into the online client, which has the connection, the voice and the state named below."""

    lang: str
    url: str  # the address the client started with
    address: str  # the address of the current connection
    nodes: list[str]  # hello.nodes: every live node's address
    move_to: list[str] | None  # the room's "reconnect" addresses, until the connection closes
    token: str | None
    resuming: bool
    prompted: list[str] | None
    table: str | None
    ws: ClientConnection | None
    leaving: ClientConnection | None  # moving to our table's node: the connection to close after the login
    table_node_followed: tuple[str, float] | None  # (table, monotonic time) of the last move

    if TYPE_CHECKING:
        def say(self, line: str, remember: bool = True) -> None: ...

        def received(self, frame: Any) -> None: ...

    def candidates(self, moving: bool) -> list[str]:
        """The addresses to try in turn, without repeats."""
        first = [*(self.move_to or [])] if moving else [self.address]
        return list(dict.fromkeys([*first, *self.nodes, self.url]))

    def reconnect(self, moving: bool) -> ClientConnection | None:
        """Connect again (to another node when moving), pausing longer after each round of addresses."""
        self.say(say("moving" if moving else "lost", self.lang), remember=False)
        addresses = self.candidates(moving)
        self.move_to = None
        self.prompted = None  # the room asks again after the resume: show the prompt again
        deadline = time.monotonic() + RECONNECT_SECONDS
        pause = 0.0 if moving else 1.0
        while time.monotonic() < deadline:
            time.sleep(pause)
            for index, address in enumerate(addresses):
                if index:
                    time.sleep(0.25)
                try:
                    ws = connect(address, open_timeout=5)
                except (OSError, TimeoutError, WebSocketException, ValueError):
                    continue
                self.address = address
                self.resuming = self.token is not None  # logged in before: log in again and resume
                return ws
            pause = min(5.0, max(0.5, pause * 2))
        return None

    def on_reconnect(self, msg: Message) -> None:
        """This node is stopping: the connection closes next, and the client moves to one of these."""
        self.move_to = [n for n in msg.get("nodes") or [] if isinstance(n, str)]

    def on_table_node(self, msg: Message) -> None:
        """The table we sit at is held by another node: connect there now, the old connection still open; the
        login follows that node's hello, and the welcome closes the old one (:meth:`leave_old`)."""
        url, table, now = msg.get("url"), msg.get("table"), time.monotonic()
        last = self.table_node_followed
        if (not isinstance(table, str) or table != self.table or not isinstance(url, str) or url == self.address
                or self.leaving is not None
                or (last is not None and last[0] == table and now - last[1] < TABLE_NODE_EVERY_SECONDS)):
            return
        self.table_node_followed = (table, now)
        try:
            ws = connect(url, open_timeout=5)
        except (OSError, TimeoutError, WebSocketException, ValueError):
            return  # stay where we are: the table's messages still reach us through this node
        self.leaving, self.ws, self.address = self.ws, ws, url

    def leave_old(self) -> None:
        """After a move: what the old connection still holds is read (a seq seen already is skipped), then it
        closes."""
        old, self.leaving = self.leaving, None
        if old is None:
            return
        try:
            while (raw := old.recv(timeout=0)) is not None:
                self.received(json.loads(raw))
        except (TimeoutError, ConnectionClosed):
            pass
        old.close()

