"""Players' tools and one's own account (issue 16): report a player, ignore one, change one's password, delete
one's account. Anyone signed in may use them (the account ones: accounts only); the node that receives a message
answers it, with the moderation desk's help (:class:`~trickroom.server.moderator_room.ModeratorDesk`: whom a
message names, the database side, the bus). A report goes to every moderator signed in, on every node; an ignore
list lives in the preferences and the desk filters chat with it (:meth:`ModeratorDesk.hides`).
docs/moderation.md says who may do what.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from trickroom.narration import translate
from trickroom.server.accounts import check_password, hash_password, token_digest
from trickroom.server.dispatch import USER, Requests
from trickroom.server.messages import AccountDeleted, Ignored, PasswordChanged, Reported
from trickroom.server.moderation import Actor, StillPlaying
from trickroom.server.moderator_room import CLOSE_DELETED, ReportNews
from trickroom.server.names import name_key
from trickroom.server.protocol import (
    ChangePassword,
    DeleteAccount,
    Ignore,
    Message,
    ProtocolError,
    Report,
    number_in,
    replying,
)

if TYPE_CHECKING:
    from trickroom.server.connection import Connection
    from trickroom.server.room import Room

IGNORED_KEPT = 200  # the newest entries of an ignore list (the preferences stay small)


async def on_report(room: Room, conn: Connection, msg: Report) -> None:
    desk, user = room.moderator, conn.me
    target = await desk.target(conn, msg.user)
    row = await desk.moderation.report(user, target, msg.reason, number_in(msg.table or "", "t"))
    await desk.tell(ReportNews(kind="report", report=desk.report_data(row)))
    conn.send(replying(Reported(type="reported", user=target,
                                text=translate("report.sent", conn.lang, name=target["name"])), msg.id))


async def on_ignore(room: Room, conn: Connection, msg: Ignore) -> None:
    user = conn.me
    target = await room.moderator.target(conn, msg.user)
    kept = [e for e in conn.preferences.get("ignored") or [] if isinstance(e, dict) and e.get("id") != target["id"]]
    if msg.ignore:
        entry = {"id": target["id"], "name": target["name"]}
        if target["guest"]:
            entry["key"] = name_key(target["name"])
        kept.append(entry)
    prefs = {**conn.preferences, "ignored": kept[-IGNORED_KEPT:]}
    for other in room.by_user.get(user["id"], {conn}):
        other.preferences = dict(prefs)
    if user["guest"]:
        if conn.session:
            await room.store.set_session_preferences(conn.session, prefs)
    else:
        await room.store.set_user_preferences(int(user["id"][1:]), prefs)
    key = "ignore.on" if msg.ignore else "ignore.off"
    conn.send(replying(Ignored(type="ignored", user=target, ignore=msg.ignore,
                               text=translate(key, conn.lang, name=target["name"])), msg.id))


# One's own account


async def own_account(room: Room, user: Message, password: str) -> int:
    """The account number of ``user``, once ``password`` is theirs (not_account for a guest)."""
    if user["guest"]:
        raise ProtocolError("not_account")
    user_id = int(user["id"][1:])
    row = await room.store.user_by_id(user_id)
    if row is None or not await asyncio.to_thread(check_password, row.password_hash, password):
        raise ProtocolError("wrong_password", "error.wrong_own_password")
    return user_id


async def on_change_password(room: Room, conn: Connection, msg: ChangePassword) -> None:
    user = conn.me
    user_id = await own_account(room, user, msg.old)  # msg.new is a valid password (protocol.new_password)
    ended = await room.moderator.moderation.reset_password(
        user_id, await asyncio.to_thread(hash_password, msg.new), Actor.of(user), "own")
    token = await room.door.new_session(user, conn.preferences)
    conn.session = token_digest(token)  # this connection goes on; every other session ends
    for token_hash in ended:
        await room.bus.publish(f"user:{user['id']}", {"end_session": token_hash})
    conn.send(replying(PasswordChanged(type="password_changed", token=token,
                                       text=translate("password.changed", conn.lang)), msg.id))


async def on_delete_account(room: Room, conn: Connection, msg: DeleteAccount) -> None:
    user = conn.me
    user_id = await own_account(room, user, msg.password)
    try:
        ended = await room.moderator.moderation.delete_account(
            user_id, translate("account.deleted_player", "en"), Actor.of(user), "own")
    except StillPlaying as busy:
        raise ProtocolError("still_playing", tables=", ".join(f"t{n}" for n in busy.tables)) from None
    conn.send(replying(AccountDeleted(type="account_deleted", text=translate("account.deleted", conn.lang)), msg.id))
    await room.door.detach_user(conn)
    conn.session = None
    for token_hash in ended:  # the account's other connections, on every node
        await room.bus.publish(f"user:{user['id']}", {"end_session": token_hash})
    conn.close(CLOSE_DELETED, "account deleted")


# The room's dispatch table (room.REQUESTS); moderator_room.REQUESTS has the moderators' and admins' messages.

REQUESTS: Requests = {Report: (USER, on_report), Ignore: (USER, on_ignore),
                      ChangePassword: (USER, on_change_password), DeleteAccount: (USER, on_delete_account)}
