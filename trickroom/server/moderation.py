"""The moderation model in the database: roles, room bans, mutes, reports and flags, the audit log, and the
operator's account actions (reset a password, disable, delete). docs/moderation.md says who may do what.

Every method that changes something takes the ``Actor`` who did it and writes its audit row in the same
transaction, so nothing a moderator or the operator does can happen without landing in the audit log. Reasons
are people's text: each is cleaned like chat and cut to :data:`~trickroom.server.hygiene.REASON_LENGTH`
(:func:`~trickroom.server.hygiene.clean_reason`). Times are naive UTC (as everywhere in the store);
``until=None`` means for good. The methods that read what is in force take ``now`` (default: the clock), so that
tests move time by hand.

    moderation = Moderation(store)
    await moderation.grant_role(12, "moderator", by=Actor.operator("root"))
    ban = await moderation.ban_for(user_id="u12", name=None, address="203.0.113.7")  # None: let them in
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    JSON,
    DateTime,
    ForeignKey,
    Integer,
    String,
    Text,
    bindparam,
    cast,
    delete,
    or_,
    select,
    update,
)
from sqlalchemy.orm import Mapped, Session, mapped_column

from trickroom.server.hygiene import REASON_LENGTH, clean_reason
from trickroom.server.names import name_key
from trickroom.server.rows import Base, ChatRow, SessionRow, StatRow, TableRow, UserRow, utcnow
from trickroom.server.store import Store

ROLES = ("admin", "moderator")
BAN_KINDS = ("account", "name", "address")  # an account (u12), a guest nickname (its look-alike key), an address
DELETED_NAME_KEY = "account.deleted_player"  # room.po: the name finished games show for a deleted account


class UnknownRole(ValueError):
    pass


class StillPlaying(Exception):
    """The account sits at (or hosts) a table that has not finished: that row belongs to the server running it."""

    def __init__(self, tables: Sequence[int]) -> None:
        super().__init__(f"seated at unfinished tables {list(tables)}")
        self.tables = list(tables)


@dataclass(frozen=True)
class Actor:
    """Who did something: an account (``u12``), the operator at the command line, or the room itself."""

    id: str
    name: str

    @classmethod
    def operator(cls, name: str | None = None) -> Actor:
        """The operator running ``trickroom admin``: named by ``--by``, else by their login on the machine."""
        login = name or os.environ.get("USER") or os.environ.get("LOGNAME") or "operator"
        return cls(f"operator:{login}"[:80], login[:80])

    @classmethod
    def of(cls, user: dict[str, Any]) -> Actor:
        """A user summary (``{"id", "name", "guest"}``) as the actor."""
        return cls(str(user["id"]), str(user["name"]))


ROOM = Actor("room", "trickroom")  # the room's own doings: collusion flags


class RoleRow(Base):
    __tablename__ = "roles"
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    role: Mapped[str] = mapped_column(String(20), primary_key=True)
    granted_by: Mapped[str] = mapped_column(String(80))
    granted_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


class RoomBanRow(Base):
    """A room-wide ban. ``value``: ``u12`` (account), a name key (guest nickname), an address or a network."""

    __tablename__ = "room_bans"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    kind: Mapped[str] = mapped_column(String(10))
    value: Mapped[str] = mapped_column(String(200))
    label: Mapped[str] = mapped_column(String(200))  # what to show: the name as it was, the address as typed
    reason: Mapped[str | None] = mapped_column(String(REASON_LENGTH), nullable=True)
    created_by: Mapped[str] = mapped_column(String(80))
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    expires_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)  # None: for good
    lifted_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)
    lifted_by: Mapped[str | None] = mapped_column(String(80), nullable=True)

    def in_force(self, now: dt.datetime) -> bool:
        return self.lifted_at is None and (self.expires_at is None or self.expires_at > now)


# The bans in force that a sign-in asks about: every address ban (matched against the address here), the account's
# and the name's (a parameter left None matches nothing). Built once: building it at each sign-in was a tenth of the
# CPU of a player's move to their table's node (docs/performance.md, "A cheaper move").
BANS_IN_FORCE = select(RoomBanRow).where(
    or_(RoomBanRow.kind == "address",
        (RoomBanRow.kind == "account") & (RoomBanRow.value == bindparam("account")),
        (RoomBanRow.kind == "name") & (RoomBanRow.value == bindparam("name"))),
    RoomBanRow.lifted_at.is_(None),
    or_(RoomBanRow.expires_at.is_(None), RoomBanRow.expires_at > bindparam("now")))


class MuteRow(Base):
    """Silence in lobby chat for one user (an account's ``u12`` or a guest's id)."""

    __tablename__ = "mutes"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    user_id: Mapped[str] = mapped_column(String(40), index=True)
    name: Mapped[str] = mapped_column(String(80))
    reason: Mapped[str | None] = mapped_column(String(REASON_LENGTH), nullable=True)
    created_by: Mapped[str] = mapped_column(String(80))
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    expires_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)
    lifted_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)
    lifted_by: Mapped[str | None] = mapped_column(String(80), nullable=True)

    def in_force(self, now: dt.datetime) -> bool:
        return self.lifted_at is None and (self.expires_at is None or self.expires_at > now)


MUTES_OF = select(MuteRow).where(MuteRow.user_id == bindparam("user"))


class ReportRow(Base):
    """A player's report of a player (``kind`` "player": their own words in ``reason``), or the room's own flag
    (``kind`` "collusion": a catalog sentence, ``reason_key`` with ``reason_params``, said in each moderator's
    language). Open until a moderator handles it."""

    __tablename__ = "reports"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    kind: Mapped[str] = mapped_column(String(20))
    reporter: Mapped[str | None] = mapped_column(String(80), nullable=True)
    reporter_name: Mapped[str | None] = mapped_column(String(80), nullable=True)
    target: Mapped[str] = mapped_column(String(40), index=True)
    target_name: Mapped[str] = mapped_column(String(80))
    table_id: Mapped[int | None] = mapped_column(Integer, nullable=True, index=True)
    reason: Mapped[str | None] = mapped_column(String(REASON_LENGTH), nullable=True)
    reason_key: Mapped[str | None] = mapped_column(String(80), nullable=True)
    reason_params: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    handled_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True, index=True)
    handled_by: Mapped[str | None] = mapped_column(String(80), nullable=True)
    outcome: Mapped[str | None] = mapped_column(String(REASON_LENGTH), nullable=True)


class AuditRow(Base):
    __tablename__ = "audit"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow, index=True)
    actor: Mapped[str] = mapped_column(String(80), index=True)
    actor_name: Mapped[str] = mapped_column(String(80))
    action: Mapped[str] = mapped_column(String(40))  # role.grant, ban, account.delete ... (docs/moderation.md)
    target: Mapped[str | None] = mapped_column(String(200), nullable=True, index=True)
    target_name: Mapped[str | None] = mapped_column(String(200), nullable=True)
    reason: Mapped[str | None] = mapped_column(String(REASON_LENGTH), nullable=True)
    details: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)


def account_ref(user_id: int) -> str:
    return f"u{user_id}"


def address_network(text: str) -> ipaddress.IPv4Network | ipaddress.IPv6Network:
    """An address or a network (``203.0.113.7``, ``203.0.113.0/24``, ``2001:db8::/48``); ValueError otherwise."""
    return ipaddress.ip_network(text.strip(), strict=False)


def deleted_summary(user_id: int, name: str) -> dict[str, Any]:
    """What finished games keep of a deleted account in place of its summary: its number (never given again:
    the tombstone keeps it) and the words "deleted player"; ``deleted`` lets a client say it in its language."""
    return {"id": account_ref(user_id), "name": name, "guest": False, "deleted": True}


class Moderation:
    def __init__(self, store: Store) -> None:
        self.store = store

    def _audit(self, session: Session, by: Actor, action: str, target: str | None = None,
               target_name: str | None = None, reason: str | None = None, **details: Any) -> None:
        session.add(AuditRow(at=utcnow(), actor=by.id, actor_name=by.name, action=action, target=target,
                             target_name=target_name, reason=clean_reason(reason), details=details))

    async def record(self, by: Actor, action: str, target: str | None = None, target_name: str | None = None,
                     reason: str | None = None, **details: Any) -> None:
        """An audit row for an action that changes nothing in the database (a backup, a table closed...)."""

        def change(s: Session) -> None:
            self._audit(s, by, action, target, target_name, reason, **details)

        await self.store.write(change)

    # Roles

    async def grant_role(self, user_id: int, role: str, by: Actor, reason: str | None = None) -> bool:
        """Give the account ``role``; False (and no audit row) if it had it already."""
        if role not in ROLES:
            raise UnknownRole(role)

        def change(s: Session) -> bool:
            user = s.get(UserRow, user_id)
            if user is None or user.deleted_at is not None or s.get(RoleRow, (user_id, role)) is not None:
                return False
            s.add(RoleRow(user_id=user_id, role=role, granted_by=by.id, granted_at=utcnow()))
            self._audit(s, by, "role.grant", account_ref(user_id), user.name, reason, role=role)
            return True

        return await self.store.write(change)

    async def revoke_role(self, user_id: int, role: str, by: Actor, reason: str | None = None) -> bool:
        """Take ``role`` away; False if the account did not have it."""
        if role not in ROLES:
            raise UnknownRole(role)

        def change(s: Session) -> bool:
            row = s.get(RoleRow, (user_id, role))
            if row is None:
                return False
            user = s.get(UserRow, user_id)
            s.delete(row)
            self._audit(s, by, "role.revoke", account_ref(user_id), user.name if user else None, reason,
                        role=role)
            return True

        return await self.store.write(change)

    async def roles_of(self, user_id: int) -> set[str]:
        return await self.store.read(lambda s: self.roles_in(s, user_id))

    @staticmethod
    def roles_in(s: Session, user_id: int) -> set[str]:
        """:meth:`roles_of`, read in ``s`` (a sign-in's reads share one trip)."""
        return set(s.execute(select(RoleRow.role).where(RoleRow.user_id == user_id)).scalars())

    async def role_holders(self) -> list[tuple[UserRow, RoleRow]]:
        """Every account with a role, and the role, by name."""
        query = select(UserRow, RoleRow).join(RoleRow, RoleRow.user_id == UserRow.id).order_by(UserRow.username,
                                                                                              RoleRow.role)
        return await self.store.read(lambda s: [(user, role) for user, role in s.execute(query)])

    # Accounts

    def end_sessions(self, session: Session, user_id: int) -> list[str]:
        """Delete every session of the account (within ``session``'s transaction); their token hashes."""
        ref = account_ref(user_id)
        hashes = list(session.execute(select(SessionRow.token_hash).where(SessionRow.user_id == ref)).scalars())
        session.execute(delete(SessionRow).where(SessionRow.user_id == ref))
        return hashes

    async def reset_password(self, user_id: int, password_hash: str, by: Actor,
                             reason: str | None = None) -> list[str]:
        """A new password (its argon2 hash); every session of the account ends. The ended sessions' hashes."""

        def change(s: Session) -> list[str]:
            user = self._live_user(s, user_id)
            user.password_hash = password_hash
            ended = self.end_sessions(s, user_id)
            self._audit(s, by, "account.password", account_ref(user_id), user.name, reason,
                        sessions_ended=len(ended))
            return ended

        return await self.store.write(change)

    async def disable_account(self, user_id: int, by: Actor, reason: str | None = None) -> list[str]:
        """The account can no longer log in; its sessions end. The ended sessions' hashes."""

        def change(s: Session) -> list[str]:
            user = self._live_user(s, user_id)
            user.disabled_at = user.disabled_at or utcnow()
            ended = self.end_sessions(s, user_id)
            self._audit(s, by, "account.disable", account_ref(user_id), user.name, reason,
                        sessions_ended=len(ended))
            return ended

        return await self.store.write(change)

    async def enable_account(self, user_id: int, by: Actor, reason: str | None = None) -> bool:
        """Undo :meth:`disable_account`; False if the account was not disabled."""

        def change(s: Session) -> bool:
            user = self._live_user(s, user_id)
            if user.disabled_at is None:
                return False
            user.disabled_at = None
            self._audit(s, by, "account.enable", account_ref(user_id), user.name, reason)
            return True

        return await self.store.write(change)

    async def delete_account(self, user_id: int, deleted_name: str, by: Actor,
                             reason: str | None = None) -> list[str]:
        """Delete the account's personal data; finished games keep it as ``deleted_name`` (docs/moderation.md).

        Gone: the name (everywhere: finished tables' seats and host, reports, mutes, bans, the audit log), the
        password, preferences, sessions, statistics, roles and the account's table chat. Kept: the tombstone row
        (no name, no password: its number is never given again), the finished games' actions, which refer to
        the seat. :class:`StillPlaying` if the account sits at or hosts a table that has not finished (disable it,
        and delete it once that table is over). The ended sessions' hashes.
        """
        ref = account_ref(user_id)
        quoted = f'"{ref}"'

        def change(s: Session) -> list[str]:
            user = self._live_user(s, user_id)
            mentioned = or_(cast(TableRow.seats, Text).contains(quoted), cast(TableRow.host, Text).contains(quoted))
            tables = list(s.execute(select(TableRow).where(mentioned)).scalars())
            unfinished = [t.id for t in tables if t.status not in ("finished", "closed")]
            if unfinished:  # its row is the running table's: only the server that holds it may write it
                raise StillPlaying(unfinished)
            gone = deleted_summary(user_id, deleted_name)
            for table in tables:
                table.seats = [{**seat, "user": gone} if (seat or {}).get("user", {}).get("id") == ref else seat
                               for seat in table.seats]
                if table.host.get("id") == ref:
                    table.host = gone
            said = s.execute(select(ChatRow).where(cast(ChatRow.sender, Text).contains(quoted)))
            for chat in said.scalars():
                if chat.sender.get("id") == ref:
                    s.delete(chat)
            ended = self.end_sessions(s, user_id)
            s.execute(delete(StatRow).where(StatRow.user_id == user_id))
            s.execute(delete(RoleRow).where(RoleRow.user_id == user_id))
            s.execute(update(ReportRow).where(ReportRow.target == ref).values(target_name=deleted_name))
            s.execute(update(ReportRow).where(ReportRow.reporter == ref).values(reporter_name=deleted_name))
            s.execute(update(MuteRow).where(MuteRow.user_id == ref).values(name=deleted_name))
            s.execute(update(RoomBanRow).where(RoomBanRow.kind == "account", RoomBanRow.value == ref)
                      .values(label=deleted_name))
            s.execute(update(AuditRow).where(AuditRow.target == ref).values(target_name=deleted_name))
            s.execute(update(AuditRow).where(AuditRow.actor == ref).values(actor_name=deleted_name))
            tombstone = f"#deleted{user_id}"  # '#' starts no valid name: nobody can register or log in as it
            user.username, user.name, user.name_key, user.name_shape = tombstone, "", tombstone, tombstone
            user.password_hash, user.preferences = "!", {}  # "!" is no argon2 hash: no password matches it
            now = utcnow()
            user.disabled_at, user.deleted_at = user.disabled_at or now, now
            self._audit(s, by, "account.delete", ref, deleted_name, reason, tables=len(tables),
                        sessions_ended=len(ended))
            return ended

        return await self.store.write(change)

    def _live_user(self, session: Session, user_id: int) -> UserRow:
        user = session.get(UserRow, user_id)
        if user is None or user.deleted_at is not None:
            raise LookupError(f"no account u{user_id}")
        return user

    # Room bans

    async def ban(self, kind: str, target: str, by: Actor, until: dt.datetime | None = None,
                  reason: str | None = None, label: str | None = None) -> RoomBanRow:
        """Ban from the whole room: ``kind`` "account" (``target`` ``u12``), "name" (a guest nickname: every name
        that looks like it), "address" (an IP address or a network). ``until`` None: for good."""
        if kind not in BAN_KINDS:
            raise ValueError(f"unknown ban kind {kind!r}")
        if kind == "name":
            value = name_key(target)
        elif kind == "address":
            value = str(address_network(target))
        else:
            value = target
        row = RoomBanRow(kind=kind, value=value, label=(label or target)[:200], reason=clean_reason(reason),
                         created_by=by.id, created_at=utcnow(), expires_at=until)

        def change(s: Session) -> RoomBanRow:
            s.add(row)
            s.flush()
            self._audit(s, by, "ban", target if kind == "account" else f"{kind}:{value}", row.label, reason,
                        ban=row.id, kind=kind, until=_iso(until))
            return row

        return await self.store.write(change)

    async def lift_ban(self, ban_id: int, by: Actor, reason: str | None = None,
                       now: dt.datetime | None = None) -> RoomBanRow | None:
        """End a ban before its time; None if there is no such ban in force."""
        now = now or utcnow()

        def change(s: Session) -> RoomBanRow | None:
            row = s.get(RoomBanRow, ban_id)
            if row is None or not row.in_force(now):
                return None
            row.lifted_at, row.lifted_by = now, by.id
            target = row.value if row.kind == "account" else f"{row.kind}:{row.value}"
            self._audit(s, by, "ban.lift", target, row.label, reason, ban=row.id, kind=row.kind)
            return row

        return await self.store.write(change)

    async def bans(self, include_past: bool = False, now: dt.datetime | None = None) -> list[RoomBanRow]:
        """The bans in force (``include_past``: every ban ever made), the newest first."""
        now = now or utcnow()
        rows: list[RoomBanRow] = await self.store.read_rows(select(RoomBanRow).order_by(RoomBanRow.id.desc()))
        return rows if include_past else [row for row in rows if row.in_force(now)]

    async def ban_for(self, user_id: str | None = None, name: str | None = None, address: str | None = None,
                      now: dt.datetime | None = None) -> RoomBanRow | None:
        """The ban in force that keeps this person out (an account id, a guest nickname, a connection's
        address: whichever are known), the longest first; None: no ban applies."""
        return await self.store.read(lambda s: self.ban_in(s, user_id, name, address, now))

    @staticmethod
    def ban_in(s: Session, user_id: str | None = None, name: str | None = None, address: str | None = None,
               now: dt.datetime | None = None) -> RoomBanRow | None:
        """:meth:`ban_for`, read in ``s`` (a sign-in's reads share one trip)."""
        if not (user_id or name or address):
            return None
        # On the session's connection, not through the ORM: a sign-in's ban check costs a third less, and it
        # nearly always finds nothing (the rare ban found is made a row below).
        rows = s.connection().execute(BANS_IN_FORCE, {"account": user_id or None,
                                                      "name": name_key(name) if name else None,
                                                      "now": now or utcnow()})
        found = [row for row in rows if row.kind != "address" or _address_in(address, row.value)]
        ban = max(found, key=lambda row: row.expires_at or dt.datetime.max, default=None)
        return None if ban is None else RoomBanRow(**ban._asdict())

    # Mutes

    async def mute(self, user: dict[str, Any], by: Actor, until: dt.datetime | None = None,
                   reason: str | None = None) -> MuteRow:
        """Silence ``user`` (a user summary) in lobby chat until ``until`` (None: until lifted)."""
        row = MuteRow(user_id=str(user["id"]), name=str(user["name"])[:80], reason=clean_reason(reason),
                      created_by=by.id, created_at=utcnow(), expires_at=until)

        def change(s: Session) -> MuteRow:
            s.add(row)
            s.flush()
            self._audit(s, by, "mute", row.user_id, row.name, reason, mute=row.id, until=_iso(until))
            return row

        return await self.store.write(change)

    async def unmute(self, user_id: str, by: Actor, reason: str | None = None,
                     now: dt.datetime | None = None) -> int:
        """Lift every mute in force on ``user_id``; how many there were (0: no audit row)."""
        now = now or utcnow()

        def change(s: Session) -> int:
            rows = [row for row in s.execute(select(MuteRow).where(MuteRow.user_id == user_id)).scalars()
                    if row.in_force(now)]
            for row in rows:
                row.lifted_at, row.lifted_by = now, by.id
            if rows:
                self._audit(s, by, "mute.lift", user_id, rows[0].name, reason, mutes=[r.id for r in rows])
            return len(rows)

        return await self.store.write(change)

    async def mute_for(self, user_id: str, now: dt.datetime | None = None) -> MuteRow | None:
        """The mute in force on ``user_id`` that lasts longest; None: they may speak."""
        now = now or utcnow()

        def longest(s: Session) -> MuteRow | None:
            # Asked at every lobby chat message: on the session's connection, as the sign-in's ban check.
            mutes = [MuteRow(**row._asdict()) for row in s.connection().execute(MUTES_OF, {"user": user_id})]
            return max((mute for mute in mutes if mute.in_force(now)),
                       key=lambda mute: mute.expires_at or dt.datetime.max, default=None)

        return await self.store.read(longest)

    async def mutes(self, now: dt.datetime | None = None) -> list[MuteRow]:
        now = now or utcnow()
        rows: list[MuteRow] = await self.store.read_rows(select(MuteRow).order_by(MuteRow.id.desc()))
        return [row for row in rows if row.in_force(now)]

    # Reports and flags

    async def report(self, reporter: dict[str, Any], target: dict[str, Any], reason: str,
                     table_id: int | None = None) -> ReportRow:
        """A player reports a player (user summaries), with their reason, from a table or the lobby."""
        row = ReportRow(kind="player", reporter=str(reporter["id"]), reporter_name=str(reporter["name"])[:80],
                        target=str(target["id"]), target_name=str(target["name"])[:80], table_id=table_id,
                        reason=clean_reason(reason), created_at=utcnow())

        return await self.store.add(row)

    async def flag(self, kind: str, target: dict[str, Any], table_id: int, reason_key: str,
                   reason_params: dict[str, Any]) -> ReportRow:
        """The room's own flag for moderators (``kind`` "collusion"): a catalog sentence and its parameters."""
        row = ReportRow(kind=kind, target=str(target["id"]), target_name=str(target["name"])[:80],
                        table_id=table_id, reason_key=reason_key, reason_params=reason_params, created_at=utcnow())

        return await self.store.add(row)

    async def open_reports(self) -> list[ReportRow]:
        """Reports and flags no moderator has handled yet, the oldest first (they wait for a moderator)."""
        return await self.store.read_rows(select(ReportRow).where(ReportRow.handled_at.is_(None))
                                          .order_by(ReportRow.id))

    async def handle_report(self, report_id: int, by: Actor, outcome: str | None = None) -> ReportRow | None:
        """Mark a report handled, with what was done; None if there is no open report of that number."""

        def change(s: Session) -> ReportRow | None:
            row = s.get(ReportRow, report_id)
            if row is None or row.handled_at is not None:
                return None
            row.handled_at, row.handled_by, row.outcome = utcnow(), by.id, clean_reason(outcome)
            self._audit(s, by, "report.handle", row.target, row.target_name, outcome, report=row.id,
                        kind=row.kind)
            return row

        return await self.store.write(change)

    # The audit log

    async def audit_log(self, limit: int = 50, target: str | None = None,
                        actor: str | None = None) -> list[AuditRow]:
        """The latest audit rows, the newest first (``target``/``actor``: only those about / by them)."""
        query = select(AuditRow).order_by(AuditRow.id.desc()).limit(limit)
        if target is not None:
            query = query.where(AuditRow.target == target)
        if actor is not None:
            query = query.where(AuditRow.actor == actor)
        return await self.store.read_rows(query)


def _address_in(address: str | None, network: str) -> bool:
    if not address:
        return False
    try:
        return ipaddress.ip_address(address) in ipaddress.ip_network(network)
    except ValueError:  # not an IP address (a test client's name): no address ban can match it
        return False


def _iso(moment: dt.datetime | None) -> str | None:
    return None if moment is None else moment.isoformat() + "Z"
