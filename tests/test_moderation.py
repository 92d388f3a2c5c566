"""The moderation model in the store (trickroom.server.moderation): roles, room bans, mutes, reports, the audit
log, and the operator's account actions, on a real SQLite database, with time moved by hand (``now``)."""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest

from trickroom.server.accounts import check_password, hash_password
from trickroom.server.moderation import Actor, Moderation, StillPlaying, UnknownRole
from trickroom.server.rows import ChatRow, SessionRow, StatRow, TableRow, UserRow, utcnow
from trickroom.server.store import Store

T = TypeVar("T")
OPERATOR = Actor.operator("root")
MODERATOR = Actor("u1", "Mod")


def run_on(tmp_path: Path, scenario: Callable[[Store, Moderation], Awaitable[T]]) -> T:
    async def main() -> T:
        store = Store(f"sqlite:///{tmp_path / 'room.sqlite3'}")
        await store.migrate()
        try:
            return await scenario(store, Moderation(store))
        finally:
            await store.close()

    return asyncio.run(main())


async def actions_of(moderation: Moderation) -> list[tuple[str, str, str | None, str | None]]:
    return [(row.actor, row.action, row.target, row.reason) for row in reversed(await moderation.audit_log(100))]


def test_roles_are_granted_once_revoked_and_audited(tmp_path: Path) -> None:
    async def scenario(store: Store, moderation: Moderation) -> None:
        anna = await store.create_user("Anna", "hash", {})
        assert await moderation.grant_role(anna.id, "moderator", OPERATOR, reason="helps at night")
        assert not await moderation.grant_role(anna.id, "moderator", OPERATOR)  # already: nothing written
        assert await moderation.grant_role(anna.id, "admin", OPERATOR)
        assert await moderation.roles_of(anna.id) == {"admin", "moderator"}
        assert [(u.name, r.role) for u, r in await moderation.role_holders()] == [("Anna", "admin"),
                                                                                  ("Anna", "moderator")]
        assert await moderation.revoke_role(anna.id, "admin", OPERATOR)
        assert not await moderation.revoke_role(anna.id, "admin", OPERATOR)
        with pytest.raises(UnknownRole):
            await moderation.grant_role(anna.id, "owner", OPERATOR)
        assert await actions_of(moderation) == [
            ("operator:root", "role.grant", f"u{anna.id}", "helps at night"),
            ("operator:root", "role.grant", f"u{anna.id}", None),
            ("operator:root", "role.revoke", f"u{anna.id}", None)]

    run_on(tmp_path, scenario)


def test_bans_match_account_look_alike_names_and_networks_until_they_end(tmp_path: Path) -> None:
    async def scenario(store: Store, moderation: Moderation) -> None:
        now = utcnow()
        account = await moderation.ban("account", "u7", MODERATOR, now + dt.timedelta(hours=2), "cheating",
                                       label="Boris")
        name = await moderation.ban("name", "Spammer", MODERATOR, reason="flood\nflood")
        network = await moderation.ban("address", "203.0.113.0/24", MODERATOR)
        assert name.reason == "flood flood"  # a reason is cleaned like chat: one line
        assert (await moderation.ban_for(user_id="u7", now=now)).id == account.id  # type: ignore[union-attr]
        assert await moderation.ban_for(user_id="u7", now=now + dt.timedelta(hours=3)) is None  # it ended
        # A look-alike of the banned nickname (Cyrillic а, another case) is the same name.
        assert (await moderation.ban_for(name="SPАMMER")).id == name.id  # type: ignore[union-attr]
        assert await moderation.ban_for(name="Spanner") is None
        # Any address in the banned network, whatever name they come under.
        assert (await moderation.ban_for(name="Newcomer", address="203.0.113.77")).id == network.id  # type: ignore[union-attr]
        assert await moderation.ban_for(name="Newcomer", address="198.51.100.1") is None
        assert await moderation.ban_for(address="unknown") is None  # a client whose address is not an IP
        # The longest ban wins when several apply.
        assert (await moderation.ban_for(user_id="u7", name="Spammer", now=now)).id == name.id  # type: ignore[union-attr]
        assert {b.id for b in await moderation.bans(now=now)} == {account.id, name.id, network.id}
        assert await moderation.lift_ban(network.id, OPERATOR, "mistake") is not None
        assert await moderation.lift_ban(network.id, OPERATOR) is None  # lifted already: no second audit row
        assert await moderation.ban_for(address="203.0.113.77") is None
        assert {b.id for b in await moderation.bans(now=now + dt.timedelta(hours=3))} == {name.id}
        assert len(await moderation.bans(include_past=True)) == 3
        with pytest.raises(ValueError):
            await moderation.ban("address", "not-an-address", MODERATOR)
        assert [a for _, a, _, _ in await actions_of(moderation)] == ["ban", "ban", "ban", "ban.lift"]

    run_on(tmp_path, scenario)


def test_mutes_last_until_their_time_or_until_lifted(tmp_path: Path) -> None:
    async def scenario(store: Store, moderation: Moderation) -> None:
        now = utcnow()
        guest = {"id": "g1a2b3c", "name": "Loud", "guest": True}
        await moderation.mute(guest, MODERATOR, now + dt.timedelta(minutes=10), "shouting")
        assert (await moderation.mute_for("g1a2b3c", now=now)).reason == "shouting"  # type: ignore[union-attr]
        assert await moderation.mute_for("g1a2b3c", now=now + dt.timedelta(minutes=11)) is None
        assert await moderation.mute_for("u9", now=now) is None
        await moderation.mute(guest, MODERATOR)  # for good
        assert len(await moderation.mutes(now=now)) == 2
        assert await moderation.unmute("g1a2b3c", MODERATOR) == 2
        assert await moderation.unmute("g1a2b3c", MODERATOR) == 0
        assert await moderation.mute_for("g1a2b3c") is None
        assert [a for _, a, t, _ in await actions_of(moderation)] == ["mute", "mute", "mute.lift"]

    run_on(tmp_path, scenario)


def test_reports_and_flags_wait_until_handled(tmp_path: Path) -> None:
    async def scenario(store: Store, moderation: Moderation) -> None:
        anna = {"id": "u1", "name": "Anna", "guest": False}
        boris = {"id": "g77", "name": "Boris", "guest": True}
        report = await moderation.report(anna, boris, "  insults\tin chat ", table_id=123456789)
        flag = await moderation.flag("collusion", boris, 123456789, "report.collusion",
                                     {"feeder": "Boris", "partner": "Anna", "points": 140})
        assert report.reason == "insults in chat"
        assert [(r.id, r.kind) for r in await moderation.open_reports()] == [(report.id, "player"),
                                                                             (flag.id, "collusion")]
        handled = await moderation.handle_report(report.id, MODERATOR, "warned them")
        assert handled is not None and handled.handled_by == "u1" and handled.outcome == "warned them"
        assert await moderation.handle_report(report.id, MODERATOR) is None
        assert [r.id for r in await moderation.open_reports()] == [flag.id]
        assert await actions_of(moderation) == [("u1", "report.handle", "g77", "warned them")]

    run_on(tmp_path, scenario)


async def _seat(store: Store, user: dict[str, Any], status: str, chat: str | None = None) -> int:
    """A table with ``user`` in seat 0 and a bot in seat 1, at ``status``; ``chat``: a line ``user`` said there."""
    row = TableRow(game="bura", options={"players": 2}, settings={"name": "t"}, seats=[{"user": user}, {"bot": "easy"}],
                   host=user, banned=[], invited=[], status=status, seed=1)
    number = await store.create_table(row)
    if chat:
        await store.add_chat(number, 5, user, chat)
    return number


def test_deleting_an_account_keeps_its_games_but_not_its_data(tmp_path: Path) -> None:
    async def scenario(store: Store, moderation: Moderation) -> None:
        anna = await store.create_user("Anna", hash_password("old-secret"), {"lang": "ru"})
        ref = {"id": f"u{anna.id}", "name": "Anna", "guest": False}
        boris = {"id": "g1", "name": "Boris", "guest": True}
        finished = await _seat(store, ref, "finished", chat="gg all")
        await store.add_chat(finished, 6, boris, "thanks Anna")
        assert await store.record_finished(finished, {}, utcnow(), "bura", [(anna.id, True, 26.0, 8.0)])
        await store.add_session(SessionRow(token_hash="h" * 64, user_id=f"u{anna.id}", name="Anna", guest=False,
                                           preferences={}, expires_at=utcnow() + dt.timedelta(days=1)))
        await moderation.grant_role(anna.id, "moderator", OPERATOR)
        await moderation.mute(ref, MODERATOR)
        await moderation.report(boris, ref, "rude")

        playing = await _seat(store, ref, "playing")
        with pytest.raises(StillPlaying) as busy:
            await moderation.delete_account(anna.id, "deleted player", OPERATOR)
        assert busy.value.tables == [playing]
        assert (await store.user_by_id(anna.id)).name == "Anna"  # type: ignore[union-attr]  # nothing changed
        await store.save_table(playing, status="finished")

        ended = await moderation.delete_account(anna.id, "deleted player", OPERATOR, reason="asked to")
        assert ended == ["h" * 64]
        assert await store.user_by_id(anna.id) is None  # no account to the room (invitations, stats, tokens)
        async with store.sessions() as s:
            tomb = await s.get(UserRow, anna.id)
        assert tomb is not None and tomb.name == "" and tomb.deleted_at is not None and tomb.preferences == {}
        assert not check_password(tomb.password_hash, "old-secret")
        assert await store.user_by_name("Anna") is None and not await store.name_held("Anna")
        table = await store.table(finished)
        gone = {"id": f"u{anna.id}", "name": "deleted player", "guest": False, "deleted": True}
        assert table is not None and table.seats[0] == {"user": gone} and table.host == gone
        assert [c.message for c in await store.chat(finished)] == ["thanks Anna"]  # her words are gone
        assert await store.user_stats(anna.id) == [] and await moderation.roles_of(anna.id) == set()
        assert await store.session("h" * 64) is None
        assert (await moderation.open_reports())[0].target_name == "deleted player"
        names = {row.target_name for row in await moderation.audit_log()}
        assert names == {"deleted player"}  # the audit log keeps what was done, not her name
        with pytest.raises(LookupError):
            await moderation.disable_account(anna.id, OPERATOR)
        # Her number is never given again: the next account gets a new one.
        assert (await store.create_user("Anna", "hash", {})).id != anna.id
        async with store.sessions() as s:
            assert await s.get(StatRow, (anna.id, "bura")) is None
            assert await s.get(ChatRow, 1) is None

    run_on(tmp_path, scenario)


def test_password_reset_and_disabling_end_every_session(tmp_path: Path) -> None:
    async def scenario(store: Store, moderation: Moderation) -> None:
        anna = await store.create_user("Anna", hash_password("old-secret"), {})
        for token in ("a", "b"):
            await store.add_session(SessionRow(token_hash=token * 64, user_id=f"u{anna.id}", name="Anna",
                                               guest=False, preferences={},
                                               expires_at=utcnow() + dt.timedelta(days=1)))
        assert sorted(await moderation.reset_password(anna.id, hash_password("new-secret"), OPERATOR)) == \
            ["a" * 64, "b" * 64]
        row = await store.user_by_id(anna.id)
        assert row is not None and check_password(row.password_hash, "new-secret")
        assert await moderation.disable_account(anna.id, OPERATOR) == []
        assert (await store.user_by_id(anna.id)).disabled_at is not None  # type: ignore[union-attr]
        assert await moderation.enable_account(anna.id, OPERATOR)
        assert not await moderation.enable_account(anna.id, OPERATOR)
        assert [a for _, a, _, _ in await actions_of(moderation)] == ["account.password", "account.disable",
                                                                      "account.enable"]

    run_on(tmp_path, scenario)
