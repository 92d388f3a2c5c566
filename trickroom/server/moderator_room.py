"""The room's side of moderation (issue 16): moderators' and admins' powers, and the desk players' tools use.

Every moderator's and admin's message (:data:`REQUESTS`, each its own model in
:mod:`~trickroom.server.protocol`, checked there: a handler reads typed fields) is answered here, by the node
that receives it; players' tools and one's own account are in :mod:`~trickroom.server.player_tools` (both
together: :data:`~trickroom.server.protocol.MODERATION_MODELS`). The database side is
:class:`~trickroom.server.moderation.Moderation` (every change writes its audit row). What concerns other nodes
travels on the bus's ``moderation`` channel, which every node hears (:data:`News`, JSON between nodes):

- ``report``: a new report or flag; the moderators signed in on each node hear it at once (the others find it
  waiting when they sign in: :meth:`ModeratorDesk.signed_in`);
- ``moderators``: a line in the moderators' channel;
- ``announce``: an admin's announcement, to everyone; ``motd``: the new message of the day;
- ``close``: close the connections of a user (by id), a nickname (and look-alikes) or an address (or network),
  with an error saying why; with ``ban``, each node first bans the addresses those connections come from (so a
  banned guest cannot come back under a new name from the same address). ``trickroom admin ban`` sends it too.

A close of a table and a moderator's watch go on to the table's owner as intents marked ``moderator`` (set here,
never taken from the client). Roles are read from the database at each moderator action, so a revoked role
stops at once. docs/moderation.md says who may do what.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import ipaddress
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Literal, Required, TypedDict, TypeVar, cast

from sqlalchemy import select

from trickroom.narration import translate
from trickroom.server.dispatch import USER, Requests, RoomHandler
from trickroom.server.errors import error_message
from trickroom.server.flags import flag_collusion
from trickroom.server.messages import (
    AllTables,
    Announcement,
    Audit,
    ModeratorsLine,
    ModeratorWelcome,
    Motd,
    Ok,
    ReportArrived,
    Reports,
    TableChat,
    ok,
)
from trickroom.server.moderation import (
    Actor,
    AuditRow,
    Moderation,
    ReportRow,
    address_network,
)
from trickroom.server.names import name_key
from trickroom.server.protocol import (
    AllTablesRequest,
    AnnounceRequest,
    AuditRequest,
    ClientMessage,
    CloseTableRequest,
    HandleReport,
    Message,
    ModeratorsChat,
    ModeratorWatch,
    Mute,
    ProtocolError,
    Remove,
    ReportsRequest,
    RoomBan,
    SetMotd,
    TableChatRequest,
    TableMessage,
    Unmute,
    number_in,
    replying,
)

if TYPE_CHECKING:
    from trickroom.server.connection import Connection
    from trickroom.server.room import Room

log = logging.getLogger("trickroom.moderation")
CHANNEL = "moderation"
CLOSE_REMOVED = 4403  # websocket close code: a moderator removed or banned the user
CLOSE_DELETED = 4410  # ... the user deleted their own account
MODERATOR_ROLES = frozenset({"moderator", "admin"})
Request = TypeVar("Request", bound=ClientMessage)


# What travels on the ``moderation`` channel (JSON, between nodes: dicts, typed here for this module's readers).


class ReportData(TypedDict):
    """A report or a flag as the bus carries it (:meth:`ModeratorDesk.report_data`)."""

    id: int
    kind: str
    reporter: str | None
    reporter_name: str | None
    target: str
    target_name: str
    table_id: int | None
    reason: str | None
    reason_key: str | None
    reason_params: dict[str, Any]
    at: str | None


class ReportNews(TypedDict):
    kind: Literal["report"]
    report: ReportData


ModeratorsNews = TypedDict("ModeratorsNews", {"kind": Literal["moderators"], "from": Message, "message": str})


class RoomNews(TypedDict):
    kind: Literal["announce", "motd"]
    message: str


class BanNews(TypedDict):
    """The ban a ``close`` carries: each node bans the addresses of the connections it closes with it."""

    by: str
    by_name: str
    until: str | None
    reason: str | None
    label: str
    ban: int


class CloseNews(TypedDict, total=False):
    """Close the connections of a user id, a nickname (and look-alikes) or an address (or network); also
    published by ``trickroom admin ban``."""

    kind: Required[Literal["close"]]
    user: str
    name: str
    address: str
    code: str
    key: str
    params: dict[str, Any]
    until: str | None
    ban: BanNews


News = ReportNews | ModeratorsNews | RoomNews | CloseNews


def moment(value: dt.datetime) -> str:
    return value.strftime("%Y-%m-%d %H:%M UTC")


def iso(value: dt.datetime | None) -> str | None:
    return None if value is None else value.isoformat() + "Z"


def mute_key(user: Message) -> str:
    """Whom a mute holds: an account's id; a guest's nickname (and look-alikes), since a guest's id is new at
    each login."""
    return "name:" + name_key(str(user["name"])) if user.get("guest") else str(user["id"])


class ModeratorDesk:
    def __init__(self, room: Room) -> None:
        self.room = room
        self.moderation = Moderation(room.store)
        self.moderators: dict[str, frozenset[str]] = {}  # user id -> roles, of those signed in on this node
        self.motd: str | None = None

    async def start(self) -> None:
        await self.room.bus.subscribe(CHANNEL, self.on_bus)
        self.motd = await self.load_motd()

    async def tell(self, news: News) -> None:
        """Publish on the ``moderation`` channel, which every node hears (this one too)."""
        await self.room.bus.publish(CHANNEL, cast(Message, news))

    # Hooks the room calls

    async def signed_in(self, conn: Connection, roles_read: set[str] | None = None) -> None:
        """After the welcome: the message of the day; for a moderator, the reports that wait. ``roles_read``: the
        account's roles, if the sign-in read them already."""
        user = conn.user
        assert user is not None
        if self.motd:
            conn.send(Motd(type="motd", message=self.motd, text=translate("motd", conn.lang, message=self.motd)))
        if user["guest"]:
            return
        if roles_read is None:
            roles_read = await self.moderation.roles_of(int(user["id"][1:]))
        roles = frozenset(roles_read)
        if not roles & MODERATOR_ROLES:
            self.moderators.pop(user["id"], None)
            return
        self.moderators[user["id"]] = roles
        waiting = await self.moderation.open_reports()
        conn.send(ModeratorWelcome(type="moderator", roles=sorted(roles),
                                   reports=[self.report_entry(row, conn.lang) for row in waiting],
                                   text=translate("moderator.welcome", conn.lang, plural=len(waiting),
                                                  count=len(waiting))))

    def hides(self, conn: Connection, message: Message) -> bool:
        """Chat or a private message from someone ``conn``'s user ignores: not delivered."""
        ignored = conn.preferences.get("ignored")
        sender = message.get("from")
        if not ignored or message.get("type") not in ("chat", "private") or not isinstance(sender, dict):
            return False
        if conn.user is not None and sender.get("id") == conn.user["id"]:
            return False
        key = name_key(str(sender.get("name", ""))) if sender.get("guest") else None
        return any(entry.get("id") == sender.get("id") or (key is not None and entry.get("key") == key)
                   for entry in ignored if isinstance(entry, dict))

    async def check_mute(self, user: Message) -> None:
        """Refuse lobby chat from a muted user, until the mute ends (read from the database: every node agrees)."""
        row = await self.moderation.mute_for(mute_key(user))
        if row is None:
            return
        if row.expires_at is None:
            raise ProtocolError("muted")
        err = ProtocolError("muted", "error.muted_until", until=moment(row.expires_at))
        err.extra["until"] = iso(row.expires_at)
        raise err

    def table_finished(self, number: int) -> None:
        """A table finished: read it for collusion in the background (flags.py says which tables it reads)."""
        self.room.spawn(self.flag_table(number))

    async def flag_table(self, number: int) -> None:
        try:
            row = await self.room.store.table(number)
            if row is None:
                return
            flags = await flag_collusion(self.moderation, row, await self.room.store.actions(number))
        except Exception:  # a flag is help for moderators: its failure must not touch the table
            log.exception("could not read table t%s for collusion", number)
            return
        for flag in flags:
            await self.tell(ReportNews(kind="report", report=self.report_data(flag)))

    # Who may

    async def require(self, user: Message, role: str = "moderator") -> Actor:
        roles = set() if user["guest"] else await self.moderation.roles_of(int(user["id"][1:]))
        if role == "admin" and "admin" not in roles:
            raise ProtocolError("not_admin")
        if not roles & MODERATOR_ROLES:
            raise ProtocolError("not_moderator")
        return Actor.of(user)

    async def target(self, conn: Connection, ref: str) -> Message:
        found = await self.room.find_user(ref)
        if found is None:
            raise ProtocolError("unknown_user", name=ref[:40])
        if conn.user is not None and found["id"] == conn.user["id"]:
            raise ProtocolError("not_yourself")
        return found

    # Moderators' powers

    @staticmethod
    def until(minutes: int | None) -> dt.datetime | None:
        return None if minutes is None else dt.datetime.now(dt.UTC).replace(tzinfo=None) + dt.timedelta(
            minutes=minutes)

    async def mute(self, conn: Connection, user: Message, msg: Mute) -> None:
        by = await self.require(user)
        target = await self.target(conn, msg.user)
        until = self.until(msg.minutes)
        await self.moderation.mute({"id": mute_key(target), "name": target["name"]}, by, until, msg.reason)
        when: dict[str, Any] = {"until": moment(until)} if until else {}
        key = "error.muted_until" if until else "error.muted"
        await self.room.bus.publish(f"user:{target['id']}", {
            "message": {"type": "muted", "until": iso(until)}, "conn": None, "say": {"key": key, "params": when}})
        done = "mute.done_until" if until else "mute.done"
        conn.send(replying(Ok(type="ok", text=translate(done, conn.lang, name=target["name"], **when)), msg.id))

    async def unmute(self, conn: Connection, user: Message, msg: Unmute) -> None:
        by = await self.require(user)
        target = await self.target(conn, msg.user)
        if not await self.moderation.unmute(mute_key(target), by):
            raise ProtocolError("not_muted", name=target["name"])
        await self.room.bus.publish(f"user:{target['id']}", {
            "message": {"type": "muted", "until": None, "lifted": True}, "conn": None,
            "say": {"key": "mute.lifted", "params": {}}})
        conn.send(replying(Ok(type="ok", text=translate("unmute.done", conn.lang, name=target["name"])), msg.id))

    async def remove(self, conn: Connection, user: Message, msg: Remove) -> None:
        by = await self.require(user)
        target, reason = await self.target(conn, msg.user), msg.reason  # cleaned; None: no reason given
        await self.moderation.record(by, "remove", target["id"], target["name"], reason)
        await self.tell(CloseNews(kind="close", user=target["id"], code="removed",
                                  key="error.removed_reason" if reason else "error.removed",
                                  params={"reason": reason} if reason else {}))
        conn.send(replying(Ok(type="ok", text=translate("remove.done", conn.lang, name=target["name"])), msg.id))

    async def room_ban(self, conn: Connection, user: Message, msg: RoomBan) -> None:
        by = await self.require(user)
        target = await self.target(conn, msg.user)
        until, reason = self.until(msg.minutes), msg.reason
        if target["guest"]:
            ban = await self.moderation.ban("name", target["name"], by, until, reason, label=target["name"])
        else:
            ban = await self.moderation.ban("account", target["id"], by, until, reason, label=target["name"])
        when: dict[str, Any] = {"until": moment(until)} if until else {}
        await self.tell(CloseNews(
            kind="close", user=target["id"], code="room_banned", params=when,
            key="error.room_banned_until" if until else "error.room_banned", until=iso(until),
            ban=BanNews(by=by.id, by_name=by.name, until=iso(until), reason=reason, label=target["name"], ban=ban.id)))
        done = "ban.done_until" if until else "ban.done"
        conn.send(replying(Ok(type="ok", ban=ban.id, text=translate(done, conn.lang, name=target["name"], **when)),
                           msg.id))

    async def close_table(self, conn: Connection, user: Message, msg: CloseTableRequest) -> None:
        by = await self.require(user)
        await self.to_table(conn, user, msg, "close_table", reason=msg.reason)
        await self.moderation.record(by, "table.close", msg.table, None, msg.reason)

    async def watch(self, conn: Connection, user: Message, msg: ModeratorWatch) -> None:
        by = await self.require(user)
        await self.to_table(conn, user, msg, "watch")
        await self.moderation.record(by, "table.watch", msg.table)

    async def to_table(self, conn: Connection, user: Message, msg: TableMessage, kind: str, **fields: Any) -> None:
        """``msg`` to the table's owner as the table request ``kind`` (JSON), in an intent marked ``moderator``."""
        request: Message = {"type": kind, "table": msg.table, **fields}
        if msg.id is not None:
            request["id"] = msg.id
        await self.room.ownership.deliver(msg.table, {
            "kind": "intent", "user": user, "lang": conn.lang, "conn": conn.id, "msg": request,
            "address": conn.address, "moderator": True})

    async def table_chat(self, conn: Connection, user: Message, msg: TableChatRequest) -> None:
        by = await self.require(user)
        number = number_in(msg.table, "t")
        if number is None or await self.room.store.table(number) is None:
            raise ProtocolError("no_table")
        reported = await self.room.store.read_one(select(ReportRow.id).where(ReportRow.table_id == number))
        if reported is None:
            raise ProtocolError("not_reported")
        said = await self.room.store.chat(number)
        await self.moderation.record(by, "table.chat", msg.table)
        conn.send(replying(TableChat(type="table_chat", table=msg.table,
                                     chat=[{"seq": c.seq, "from": c.sender, "message": c.message} for c in said]),
                           msg.id))

    async def all_tables(self, conn: Connection, user: Message, msg: AllTablesRequest) -> None:
        await self.require(user)
        entries = [self.room.lobby.render_listing(listing, conn.lang) for listing in self.room.lobby.listings.values()]
        conn.send(replying(AllTables(type="all_tables", tables=entries), msg.id))

    async def reports(self, conn: Connection, user: Message, msg: ReportsRequest) -> None:
        await self.require(user)
        rows = await self.moderation.open_reports()
        conn.send(replying(Reports(type="reports", reports=[self.report_entry(r, conn.lang) for r in rows]), msg.id))

    async def handle_report(self, conn: Connection, user: Message, msg: HandleReport) -> None:
        by = await self.require(user)
        if await self.moderation.handle_report(msg.report, by, msg.outcome) is None:
            raise ProtocolError("no_report", report=msg.report)
        conn.send(replying(Ok(type="ok", text=translate("report.handled", conn.lang, report=msg.report)), msg.id))

    async def channel(self, conn: Connection, user: Message, msg: ModeratorsChat) -> None:
        await self.require(user)
        await self.tell(ModeratorsNews({"kind": "moderators", "from": user, "message": msg.message}))
        if msg.id is not None:
            conn.send(ok(msg.id))

    # Admins' powers

    async def audit(self, conn: Connection, user: Message, msg: AuditRequest) -> None:
        from trickroom.server.admin import audit_sentence

        await self.require(user, "admin")
        rows = await self.moderation.audit_log(limit=msg.limit)
        entries = [{"id": row.id, "at": iso(row.at), "actor": row.actor, "action": row.action, "target": row.target,
                    "reason": row.reason, "text": audit_sentence(row, conn.lang)} for row in rows]
        conn.send(replying(Audit(type="audit", entries=entries), msg.id))

    async def announce(self, conn: Connection, user: Message, msg: AnnounceRequest) -> None:
        by = await self.require(user, "admin")
        await self.moderation.record(by, "announce", None, None, None, message=msg.message)
        await self.tell(RoomNews(kind="announce", message=msg.message))
        if msg.id is not None:
            conn.send(ok(msg.id))

    async def set_motd(self, conn: Connection, user: Message, msg: SetMotd) -> None:
        by = await self.require(user, "admin")
        text = msg.message  # cleaned; "" clears the message of the day
        await self.moderation.record(by, "motd", None, None, None, message=text)
        await self.tell(RoomNews(kind="motd", message=text))
        key = "motd.set" if text else "motd.cleared"
        conn.send(replying(Ok(type="ok", text=translate(key, conn.lang)), msg.id))

    async def load_motd(self) -> str | None:
        row = await self.room.store.read_one(select(AuditRow).where(AuditRow.action == "motd")
                                             .order_by(AuditRow.id.desc()))
        return str((row.details or {}).get("message") or "") or None if row is not None else None

    # Reports as clients see them

    @staticmethod
    def report_data(row: ReportRow) -> ReportData:
        return ReportData(id=row.id, kind=row.kind, reporter=row.reporter, reporter_name=row.reporter_name,
                          target=row.target, target_name=row.target_name, table_id=row.table_id, reason=row.reason,
                          reason_key=row.reason_key, reason_params=row.reason_params or {}, at=iso(row.created_at))

    def report_entry(self, row: ReportRow | ReportData, lang: str) -> Message:
        data = self.report_data(row) if isinstance(row, ReportRow) else row
        table = f"t{data['table_id']}" if data["table_id"] else None
        if data["kind"] == "player":
            key = "report.player_table" if table else "report.player"
            text = translate(key, lang, reporter=data["reporter_name"], target=data["target_name"], table=table,
                             reason=data["reason"] or "")
        else:
            text = translate(str(data["reason_key"]), lang, **data["reason_params"])
        return {"id": data["id"], "kind": data["kind"], "target": {"id": data["target"], "name": data["target_name"]},
                "reporter": ({"id": data["reporter"], "name": data["reporter_name"]} if data["reporter"] else None),
                "table": table, "reason": data["reason"], "at": data["at"], "text": text}

    # The bus

    async def local_moderators(self) -> list[Connection]:
        """This node's moderators' connections, their roles read again: a role revoked with ``trickroom admin
        revoke`` (which cannot reach a node that has no Redis) ends here, at the next report or moderators' line,
        not at their next sign-in. Moderators are few and reports rare: a read each is cheap."""
        for uid in list(self.moderators):
            roles = frozenset(await self.moderation.roles_of(int(uid[1:])))
            if roles & MODERATOR_ROLES:
                self.moderators[uid] = roles
            else:
                del self.moderators[uid]
        return [conn for uid in self.moderators for conn in self.room.by_user.get(uid, ())]

    async def on_bus(self, payload: Message) -> None:
        news = cast(News, payload)  # published by this module (a close by `trickroom admin ban` too)
        if news["kind"] == "report":
            for conn in await self.local_moderators():
                entry = self.report_entry(news["report"], conn.lang)
                conn.send(ReportArrived(type="report", report=entry,
                                        text=translate("report.new", conn.lang, sentence=entry["text"])))
        elif news["kind"] == "moderators":
            sender, said = news["from"], news["message"]
            for conn in await self.local_moderators():
                line: ModeratorsLine = {"type": "moderators", "from": sender, "message": said,
                                        "text": translate("moderators.line", conn.lang, name=sender["name"],
                                                          message=said)}
                conn.send(line)
        elif news["kind"] == "announce":
            for conn in [c for c in self.room.connections.values() if c.user is not None]:
                conn.send(Announcement(type="announcement", message=news["message"],
                                       text=translate("announcement", conn.lang, message=news["message"])))
        elif news["kind"] == "motd":
            self.motd = news["message"] or None
        elif news["kind"] == "close":
            await self.close_matching(news)

    async def close_matching(self, payload: CloseNews) -> None:
        """Close this node's connections of whom ``payload`` names (a user id, a nickname, an address or network),
        after banning their addresses if it carries a ban."""
        uid, name, network = payload.get("user"), payload.get("name"), payload.get("address")
        key = name_key(str(name)) if name else None

        def matches(conn: Connection) -> bool:
            if conn.user is None:
                return False
            if conn.user["id"] == uid or (key is not None and name_key(conn.user["name"]) == key):
                return True
            return network is not None and address_in(conn.address, str(network))

        conns = [conn for conn in list(self.room.connections.values()) if matches(conn)]
        ban = payload.get("ban")
        if ban is not None:
            by, until_text = Actor(ban["by"], ban["by_name"]), ban["until"]
            until = dt.datetime.fromisoformat(until_text[:-1]) if until_text else None
            for address in sorted({conn.address for conn in conns}):
                with contextlib.suppress(ValueError):  # not an IP address: nothing to ban
                    if ipaddress.ip_address(address).is_loopback:  # this machine (an untrusted local proxy?)
                        continue
                    await self.moderation.ban("address", address, by, until, ban["reason"], label=address)
        err = ProtocolError(payload.get("code", "removed"), payload.get("key", "error.removed"),
                            **payload.get("params", {}))
        if payload.get("until"):
            err.extra["until"] = payload["until"]
        for conn in conns:  # their sessions end too: a client that reconnects with its token is not let back
            if conn.session is not None:
                await self.room.store.drop_session(conn.session)
            await self.room.door.detach_user(conn)
            conn.session = None
            conn.send(error_message(err, conn.lang))
            conn.close(CLOSE_REMOVED, "removed by a moderator")


def address_in(address: str, network: str) -> bool:
    try:
        return address_network(address).subnet_of(address_network(network))  # type: ignore[arg-type]
    except (ValueError, TypeError):
        return False


# The room's dispatch table (room.REQUESTS): each moderator's and admin's message, by its model, to the desk's method.


def desk(method: Callable[[ModeratorDesk, Connection, Message, Request], Awaitable[None]]) -> RoomHandler:
    """A method of the desk as the room's handler: it gets the user logged in and the typed message."""
    async def handler(room: Room, conn: Connection, msg: Request) -> None:
        await method(room.moderator, conn, conn.me, msg)

    return handler


REQUESTS: Requests = {
    Mute: (USER, desk(ModeratorDesk.mute)), Unmute: (USER, desk(ModeratorDesk.unmute)),
    Remove: (USER, desk(ModeratorDesk.remove)), RoomBan: (USER, desk(ModeratorDesk.room_ban)),
    CloseTableRequest: (USER, desk(ModeratorDesk.close_table)), ModeratorWatch: (USER, desk(ModeratorDesk.watch)),
    TableChatRequest: (USER, desk(ModeratorDesk.table_chat)), AllTablesRequest: (USER, desk(ModeratorDesk.all_tables)),
    ReportsRequest: (USER, desk(ModeratorDesk.reports)), HandleReport: (USER, desk(ModeratorDesk.handle_report)),
    ModeratorsChat: (USER, desk(ModeratorDesk.channel)), AuditRequest: (USER, desk(ModeratorDesk.audit)),
    AnnounceRequest: (USER, desk(ModeratorDesk.announce)), SetMotd: (USER, desk(ModeratorDesk.set_motd)),
}
