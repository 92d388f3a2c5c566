"""The room's dispatch table: each client message type, who may send it and the function that answers it.

Like the table's (:data:`trickroom.server.table_requests.REQUESTS`), but for the messages a node answers itself.
Every module that answers client messages contributes its own dict (``sessions.REQUESTS``, ``lobby_requests.REQUESTS``,
``ownership.REQUESTS``, ``replays.REQUESTS``, ...); :mod:`trickroom.server.room` joins them with
:func:`joined`, which refuses a type two modules both claim. A handler gets the room, the connection and the
typed message (a :class:`~trickroom.server.protocol.ClientMessage` subclass, validated), and answers on the
connection or raises :class:`~trickroom.server.protocol.ProtocolError`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from trickroom.server.protocol import ClientMessage

if TYPE_CHECKING:
    from trickroom.server.connection import Connection
    from trickroom.server.room import Room

ANYONE, USER = "anyone", "user"  # who may send a message: any connection, or one that is logged in
RoomHandler = Callable[["Room", "Connection", Any], Awaitable[None]]
Requests = dict[type[ClientMessage], tuple[str, RoomHandler]]


def joined(*parts: Requests) -> Requests:
    """The modules' dispatch tables as one; a message type in two of them is a bug, refused at import."""
    table: Requests = {}
    for part in parts:
        for kind, entry in part.items():
            if kind in table:
                raise ValueError(f"{kind.__name__} is answered by two modules")
            table[kind] = entry
    return table
