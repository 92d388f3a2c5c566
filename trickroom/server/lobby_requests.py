"""The lobby's client messages: following it (``lobby``), the list of people in a busy room (``people``), lobby
chat (or a table's, handed to its owner) and private messages. The lobby itself is :mod:`trickroom.server.lobby`."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from trickroom.server.connection import Connection
from trickroom.server.dispatch import USER, Requests
from trickroom.server.frames import encode
from trickroom.server.messages import PeopleList, PrivateMessage, UserSummary, ok
from trickroom.server.protocol import Chat, LobbyRequest, People, Private

if TYPE_CHECKING:
    from trickroom.server.room import Room


async def on_lobby_request(room: Room, conn: Connection, msg: LobbyRequest) -> None:
    conn.follows_lobby = msg.follow
    room.lobby.reads_chat(conn)
    if msg.tables is not None:
        conn.lobby_tables = msg.tables
    if msg.people is not None:
        conn.lobby_people = msg.people
    if msg.follow:
        room.lobby.send_snapshot(conn, msg.id)
    elif msg.id is not None:
        conn.send(ok(msg.id))


async def on_people(room: Room, conn: Connection, msg: People) -> None:
    """Everyone online, for a lobby that counts them (a busy room's): the list as it is now, in name order."""
    users, _ = room.lobby.users_part()
    answer = PeopleList(type="people", users=[], online=len(room.lobby.online))
    if msg.id is not None:
        answer["re"] = msg.id
    # The list is joined from each person's summary encoded once (users_part), as a snapshot's is.
    conn.send_frame(encode(answer).replace('"users":[]', f'"users":[{users}]', 1))


async def on_chat(room: Room, conn: Connection, msg: Chat) -> None:
    """Lobby chat, or (with ``table``) the table's, which its owner answers."""
    if msg.table:
        await room.ownership.to_table(conn, msg)
        return
    await room.moderator.check_mute(conn.me)  # a muted player's lobby chat is refused, on every node
    await room.bus.publish("lobby", {"kind": "chat", "from": conn.me, "message": msg.message})
    if msg.id is not None:
        conn.send(ok(msg.id))


async def on_private(room: Room, conn: Connection, msg: Private) -> None:
    user = conn.me
    target = room.lobby.find_online(msg.to)
    target.pop("lang", None)
    message: PrivateMessage = {"type": "private", "from": cast(UserSummary, user), "to": cast(UserSummary, target),
                               "message": msg.message}
    # The sentence is made where each copy is delivered, in the language of the connection that reads it
    # (the recipient may be connected to another node, whose preferences this one does not know).
    say = {"key": "lobby.private", "params": {"name": user["name"], "message": msg.message}}
    for recipient in {user["id"], target["id"]}:
        await room.bus.publish(f"user:{recipient}", {"message": message, "conn": None, "say": say})
    if msg.id is not None:
        conn.send(ok(msg.id))


REQUESTS: Requests = {LobbyRequest: (USER, on_lobby_request), People: (USER, on_people), Chat: (USER, on_chat),
                      Private: (USER, on_private)}
