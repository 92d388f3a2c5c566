"""``trickroom admin``: the operator's tools, on the same database as the server (``--db``, ``TRICKROOM_DB``, the
settings file), while it runs or not.

    trickroom admin grant anna moderator        trickroom admin ban --guest Spammer --for 7d --reason "flood"
    trickroom admin roles                       trickroom admin bans
    trickroom admin password anna               trickroom admin backup /backups/room-2026-12-01.sqlite3
    trickroom admin audit

Every change lands in the audit log (:mod:`trickroom.server.moderation`), under the operator's name (``--by``,
else the login on this machine). What it prints are short sentences from the ``admin`` catalog
(``trickroom/narration/locale/<lang>/admin.po``), in ``--lang`` (default: from ``LANG``). Exit status: 0 done,
1 refused (nothing changed), 2 a wrong command line. docs/moderation.md lists the commands.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import os
import re
import secrets
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from trickroom.narration import LANGUAGES, translate
from trickroom.server.accounts import hash_password, valid_password
from trickroom.server.backup import BackupError, backup_postgres, backup_sqlite, postgres_url, sqlite_file
from trickroom.server.moderation import (
    BAN_KINDS,
    ROLES,
    Actor,
    AuditRow,
    Moderation,
    ReportRow,
    RoomBanRow,
    StillPlaying,
    address_network,
)
from trickroom.server.rows import UserRow
from trickroom.server.settings import Settings, load_settings
from trickroom.server.store import Store

DURATION = re.compile(r"^(\d+)([mhd])$")
UNITS = {"m": "minutes", "h": "hours", "d": "days"}


class Refused(Exception):
    """A command that cannot be done: its sentence (catalog key and parameters); nothing was changed."""

    def __init__(self, key: str, **params: Any) -> None:
        super().__init__(key)
        self.key = key
        self.params = params


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", help="database URL (default: as the server: TRICKROOM_DB, the settings file)")
    parser.add_argument("--config", help="settings file (KEY=value lines), as for trickroom serve")
    parser.add_argument("--by", help="the operator's name in the audit log (default: your login)")
    parser.add_argument("--lang", help="language of the sentences: en, ru or el (default: from LANG)")
    commands = parser.add_subparsers(dest="admin_command", required=True)
    reason = argparse.ArgumentParser(add_help=False)
    reason.add_argument("--reason", help="why: kept in the audit log")
    commands.add_parser("roles", help="list the accounts that have a role")
    for name, text in (("grant", "give an account a role"), ("revoke", "take a role away")):
        sub = commands.add_parser(name, help=text, parents=[reason])
        sub.add_argument("user", help="account name or number (u12)")
        sub.add_argument("role", help=" or ".join(ROLES))
    sub = commands.add_parser("password", help="set a new password (printed unless --password-stdin); "
                                               "the account's sessions end", parents=[reason])
    sub.add_argument("user")
    sub.add_argument("--password-stdin", action="store_true", help="read the new password from standard input")
    for name, text in (("disable", "stop an account from logging in (its sessions end)"),
                       ("enable", "let a disabled account log in again")):
        commands.add_parser(name, help=text, parents=[reason]).add_argument("user")
    sub = commands.add_parser("delete", help="delete an account and its personal data", parents=[reason])
    sub.add_argument("user")
    sub.add_argument("--yes", action="store_true", help="yes, delete it: this cannot be undone")
    sub = commands.add_parser("ban", help="ban from the whole room", parents=[reason])
    whom = sub.add_mutually_exclusive_group(required=True)
    whom.add_argument("--account", help="an account (name or u12)")
    whom.add_argument("--guest", help="a guest nickname (and every name that looks like it)")
    whom.add_argument("--address", help="an IP address or a network (203.0.113.0/24)")
    sub.add_argument("--for", dest="duration", default="forever", help="30m, 12h, 7d or forever (default)")
    sub = commands.add_parser("unban", help="lift a ban before its time", parents=[reason])
    sub.add_argument("ban", type=int, help="the ban's number (see bans)")
    commands.add_parser("bans", help="list the bans in force").add_argument(
        "--all", action="store_true", help="also those lifted or ended")
    commands.add_parser("reports", help="list the reports and flags that wait for a moderator")
    sub = commands.add_parser("audit", help="read the audit log, the newest first")
    sub.add_argument("--limit", type=int, default=50)
    sub.add_argument("--user", help="only the actions about this account")
    commands.add_parser("backup", help="copy the database into a new file while the server runs").add_argument(
        "file")


def run(args: argparse.Namespace) -> int:
    settings = load_settings(args.config, db=args.db)
    lang = language_of(args.lang)
    try:
        lines = asyncio.run(Admin(settings, Actor.operator(args.by), lang).run(args))
    except Refused as refused:
        print(translate(refused.key, lang, "admin", **refused.params), file=sys.stderr)
        return 1
    for line in lines:
        print(line)
    return 0


def language_of(lang: str | None) -> str:
    chosen = (lang or os.environ.get("TRICKROOM_LANG") or os.environ.get("LANG") or "en").lower()
    return next((known for known in LANGUAGES if chosen.startswith(known)), "en")


def parse_until(text: str, now: dt.datetime) -> dt.datetime | None:
    """The end of a ban ``text`` long from ``now`` (None: for good); :class:`Refused` if it cannot be read."""
    if text.lower() in ("forever", "permanent"):
        return None
    found = DURATION.match(text.strip().lower())
    if found is None or int(found.group(1)) == 0:
        raise Refused("admin.bad_duration")
    return now + dt.timedelta(**{UNITS[found.group(2)]: int(found.group(1))})


def moment(value: dt.datetime | None) -> str:
    return value.strftime("%Y-%m-%d %H:%M UTC") if value else ""


class Admin:
    def __init__(self, settings: Settings, actor: Actor, lang: str) -> None:
        self.settings = settings
        self.actor = actor
        self.lang = lang
        self.store: Store
        self.moderation: Moderation

    def say(self, key: str, **params: Any) -> str:
        return translate(key, self.lang, "admin", **params)

    async def run(self, args: argparse.Namespace) -> list[str]:
        file = sqlite_file(self.settings.db)
        if file is not None and not file.exists():
            raise Refused("admin.no_database", path=str(file))
        self.store = Store(self.settings.db, self.settings.db_schema)
        self.moderation = Moderation(self.store)
        try:
            await self.store.migrate()
            command: Callable[[argparse.Namespace], Awaitable[list[str]]] = getattr(
                self, "do_" + args.admin_command)
            return await command(args)
        finally:
            await self.store.close()

    async def account(self, ref: str) -> UserRow:
        """The live account named ``ref`` (a name, or a number such as u12)."""
        row: UserRow | None = None
        if re.fullmatch(r"u\d+", ref):
            row = await self.store.user_by_id(int(ref[1:]))
        row = row or await self.store.user_by_name(ref)
        if row is None or row.deleted_at is not None:
            raise Refused("admin.no_account", user=ref)
        return row

    def role_word(self, role: str) -> str:
        if role not in ROLES:
            raise Refused("admin.unknown_role", role=role, roles=", ".join(ROLES))
        return self.say(f"admin.role.{role}")

    # Roles

    async def do_roles(self, args: argparse.Namespace) -> list[str]:
        holders = await self.moderation.role_holders()
        return [self.say("admin.roles.line", name=user.name, user=f"u{user.id}", role=self.role_word(role.role),
                         when=moment(role.granted_at)) for user, role in holders] or [self.say("admin.roles.none")]

    async def do_grant(self, args: argparse.Namespace) -> list[str]:
        return await self.change_role(args, grant=True)

    async def do_revoke(self, args: argparse.Namespace) -> list[str]:
        return await self.change_role(args, grant=False)

    async def change_role(self, args: argparse.Namespace, grant: bool) -> list[str]:
        word = self.role_word(args.role)
        user = await self.account(args.user)
        change = self.moderation.grant_role if grant else self.moderation.revoke_role
        if not await change(user.id, args.role, self.actor, args.reason):
            raise Refused("admin.role.already" if grant else "admin.role.not_held", name=user.name, role=word)
        return [self.say("admin.granted" if grant else "admin.revoked", name=user.name, role=word)]

    # Accounts

    async def do_password(self, args: argparse.Namespace) -> list[str]:
        user = await self.account(args.user)
        chosen = sys.stdin.readline().rstrip("\r\n") if args.password_stdin else secrets.token_urlsafe(12)
        if not valid_password(chosen):
            raise Refused("admin.password.bad")
        ended = await self.moderation.reset_password(user.id, await asyncio.to_thread(hash_password, chosen),
                                                     self.actor, args.reason)
        await self.close_sessions(user.id, ended)
        lines = [self.say("admin.password.set", name=user.name, sessions=len(ended))]
        if not args.password_stdin:
            lines.append(self.say("admin.password.new", name=user.name, password=chosen))
        return lines

    async def do_disable(self, args: argparse.Namespace) -> list[str]:
        user = await self.account(args.user)
        ended = await self.moderation.disable_account(user.id, self.actor, args.reason)
        await self.close_sessions(user.id, ended)
        return [self.say("admin.disabled", name=user.name, sessions=len(ended))]

    async def do_enable(self, args: argparse.Namespace) -> list[str]:
        user = await self.account(args.user)
        if not await self.moderation.enable_account(user.id, self.actor, args.reason):
            raise Refused("admin.not_disabled", name=user.name)
        return [self.say("admin.enabled", name=user.name)]

    async def do_delete(self, args: argparse.Namespace) -> list[str]:
        user = await self.account(args.user)
        if not args.yes:
            raise Refused("admin.delete.confirm", name=user.name)
        try:
            ended = await self.moderation.delete_account(user.id, translate("account.deleted_player", "en"),
                                                         self.actor, args.reason)
        except StillPlaying as busy:
            raise Refused("admin.still_playing", name=user.name,
                          tables=", ".join(f"t{number}" for number in busy.tables)) from None
        await self.close_sessions(user.id, ended)
        return [self.say("admin.deleted", name=user.name)]

    async def close_sessions(self, user_id: int, ended: list[str]) -> None:
        """With several nodes (Redis), the connections that used the ended sessions close at once, on every
        node, as after a logout. A single node has no channel from here: its open connections keep going
        until they close (a new login needs the new password, or is refused)."""
        for token_hash in ended:
            await self.tell_nodes(f"user:u{user_id}", {"end_session": token_hash})

    async def tell_nodes(self, channel: str, payload: dict[str, Any]) -> None:
        """Publish on the nodes' bus (Redis), if there is one; a single node has no channel from here."""
        if not self.settings.redis:
            return
        import redis.asyncio as redis

        from trickroom.server.redis_bus import RedisBus

        client = redis.from_url(self.settings.redis)
        bus = RedisBus(client, self.settings.redis_prefix)
        try:
            await bus.publish(channel, payload)
        finally:
            await bus.close()  # (its publishing connection)
            await client.aclose()

    # Bans

    async def do_ban(self, args: argparse.Namespace) -> list[str]:
        until = parse_until(args.duration, dt.datetime.now(dt.UTC).replace(tzinfo=None))
        if args.account:
            user = await self.account(args.account)
            kind, target, label = "account", f"u{user.id}", user.name
        elif args.guest:
            kind, target, label = "name", args.guest, args.guest
        else:
            try:
                address_network(args.address)
            except ValueError:
                raise Refused("admin.bad_address", address=args.address) from None
            kind, target, label = "address", args.address, args.address
        ban = await self.moderation.ban(kind, target, self.actor, until, args.reason, label=label)
        when = {"until": moment(until)} if until else {}
        await self.tell_nodes("moderation", {
            "kind": "close", "code": "room_banned", "key": "error.room_banned_until" if until else "error.room_banned",
            "params": when, "until": until.isoformat() + "Z" if until else None,
            **({"user": target} if kind == "account" else {"name": target} if kind == "name" else {"address": target})})
        if until is None:
            return [self.say("admin.banned_for_good", id=ban.id, label=ban.label)]
        return [self.say("admin.banned", id=ban.id, label=ban.label, until=moment(until))]

    async def do_unban(self, args: argparse.Namespace) -> list[str]:
        ban = await self.moderation.lift_ban(args.ban, self.actor, args.reason)
        if ban is None:
            raise Refused("admin.no_ban", id=args.ban)
        return [self.say("admin.unbanned", id=ban.id, label=ban.label)]

    async def do_bans(self, args: argparse.Namespace) -> list[str]:
        now = dt.datetime.now(dt.UTC).replace(tzinfo=None)
        bans = await self.moderation.bans(include_past=args.all, now=now)
        return [self.ban_line(ban, now) for ban in bans] or [self.say("admin.bans.none")]

    def ban_line(self, ban: RoomBanRow, now: dt.datetime) -> str:
        if ban.lifted_at is not None:
            state = self.say("admin.state.lifted", when=moment(ban.lifted_at))
        elif ban.expires_at is None:
            state = self.say("admin.state.for_good")
        elif ban.expires_at <= now:
            state = self.say("admin.state.ended", when=moment(ban.expires_at))
        else:
            state = self.say("admin.state.until", when=moment(ban.expires_at))
        assert ban.kind in BAN_KINDS
        return self.say("admin.bans.line", id=ban.id, kind=self.say(f"admin.kind.{ban.kind}"), label=ban.label,
                        state=state, by=ban.created_by, when=moment(ban.created_at)) + self.reason(ban.reason)

    def reason(self, text: str | None) -> str:
        return " " + self.say("admin.reason", reason=text) if text else ""

    # Reports and the audit log

    async def do_reports(self, args: argparse.Namespace) -> list[str]:
        return [self.report_line(r) for r in await self.moderation.open_reports()] or [
            self.say("admin.reports.none")]

    def report_line(self, report: ReportRow) -> str:
        where = self.say("admin.at_table", table=f"t{report.table_id}") if report.table_id else ""
        if report.kind == "player":
            return self.say("admin.reports.player", id=report.id, when=moment(report.created_at),
                            reporter=report.reporter_name, target=report.target_name, table=where,
                            reason=report.reason or "")
        sentence = translate(report.reason_key or "", self.lang, **(report.reason_params or {}))
        return self.say("admin.reports.flag", id=report.id, when=moment(report.created_at), table=where,
                        sentence=sentence)

    async def do_audit(self, args: argparse.Namespace) -> list[str]:
        target = f"u{(await self.account(args.user)).id}" if args.user else None
        rows = await self.moderation.audit_log(limit=args.limit, target=target)
        return [self.audit_line(row) for row in rows] or [self.say("admin.audit.none")]

    def audit_line(self, row: AuditRow) -> str:
        return self.say("admin.audit.line", when=moment(row.at), sentence=audit_sentence(row, self.lang)) + \
            self.reason(row.reason)

    # Backup

    async def do_backup(self, args: argparse.Namespace) -> list[str]:
        target = Path(args.file)
        if target.exists():
            raise Refused("admin.backup.exists", file=str(target))
        source = sqlite_file(self.settings.db)
        try:
            if source is not None:
                counts = await asyncio.to_thread(backup_sqlite, source, target)
            else:
                url = postgres_url(self.settings.db)
                if url is None:
                    raise Refused("admin.backup.unknown_database")
                await asyncio.to_thread(backup_postgres, url, self.settings.db_schema, target)
                counts = await self.store.counts()
        except BackupError as exc:
            raise Refused("admin.backup.failed", error=str(exc)) from None
        await self.moderation.record(self.actor, "backup", file=str(target.resolve()), users=counts["users"],
                                     tables=counts["tables"])
        return [self.say("admin.backup.done", file=str(target), **counts)]


def audit_sentence(row: AuditRow, lang: str) -> str:
    """One audit row as a sentence in ``lang`` (the admin catalog's ``audit.<action>``), for the command line and
    for an admin's client."""
    details = dict(row.details or {})
    if "role" in details:
        details["role"] = translate(f"admin.role.{details['role']}", lang, "admin")
    until = details.get("until")
    details["until"] = (translate("admin.state.until", lang, "admin",
                                  when=moment(dt.datetime.fromisoformat(until[:-1])))
                        if until else translate("admin.state.for_good", lang, "admin"))
    key = f"audit.{row.action}"
    params = {"message": "", **details, "actor": row.actor_name, "target": row.target_name or row.target or ""}
    if key in _catalog_keys(lang):
        return translate(key, lang, "admin", **params)
    return translate("audit.other", lang, "admin", **{**params, "action": row.action})


def _catalog_keys(lang: str) -> set[str]:
    from trickroom.narration import catalog

    return set(catalog(lang, "admin")) | set(catalog("en", "admin"))
