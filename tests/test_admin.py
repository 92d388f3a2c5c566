"""``trickroom admin`` against a real database while the room runs on it: SQLite, and PostgreSQL where it runs
(``TRICKROOM_TEST_POSTGRES``, a fresh schema per test). Every command, what the room then does (logins
refused for a disabled account and for what a room ban covers), the audit log, and backups that restore into a
new database serving the same finished games; with several nodes (Redis), the ended sessions' connections close."""

from __future__ import annotations

import asyncio
import io
import secrets
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import need_service
from server_helpers import AutoPlayer, Client, ProcessServer, ThreadServer, clients, match_finished
from test_server_postgres import POSTGRES, _execute, postgres_available

from trickroom.cli import main
from trickroom.server.moderation import Moderation
from trickroom.server.store import Store

Message = dict[str, Any]


class Database:
    """A database for the room and the CLI: ``url``, ``schema`` (PostgreSQL), and what the CLI is given."""

    def __init__(self, url: str, schema: str | None = None) -> None:
        self.url, self.schema = url, schema

    def room(self, **settings: Any) -> ThreadServer:
        return ThreadServer(db=self.url, db_schema=self.schema, bot_workers=0, **settings).start()

    def report_and_flag(self, reporter: Message, target: Message, table: int) -> None:
        async def write() -> None:
            store = Store(self.url, self.schema)
            try:
                moderation = Moderation(store)
                await moderation.report(reporter, target, "rude", table)
                await moderation.flag("collusion", target, table, "report.collusion",
                                      {"feeder": "Anna", "partner": "Boris", "points": 140})
            finally:
                await store.close()

        asyncio.run(write())

    def audit_actions(self) -> list[str]:
        async def read() -> list[str]:
            store = Store(self.url, self.schema)
            try:
                return [row.action for row in reversed(await Moderation(store).audit_log(1000))]
            finally:
                await store.close()

        return asyncio.run(read())


def admin(database: Database, *words: str, capsys: pytest.CaptureFixture[str],
          monkeypatch: pytest.MonkeyPatch, stdin: str | None = None) -> tuple[int, str]:
    """Run ``trickroom admin --db URL words...`` as the operator "root"; its exit status and what it printed."""
    if database.schema:
        monkeypatch.setenv("TRICKROOM_DB_SCHEMA", database.schema)
    if stdin is not None:
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    code = main(["admin", "--db", database.url, "--by", "root", "--lang", "en", *words])
    out, err = capsys.readouterr()
    return code, (out + err).strip()


@pytest.fixture
def sqlite(tmp_path: Path) -> Database:
    return Database(f"sqlite:///{tmp_path / 'room.sqlite3'}")


@pytest.fixture
def postgres() -> Iterator[Database]:
    need_service(postgres_available(), f"PostgreSQL is not reachable at {POSTGRES}")
    schema = f"trickroom_test_{secrets.token_hex(4)}"
    yield Database(POSTGRES, schema)
    asyncio.run(_execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))


def register(url: str, name: str, password: str) -> Client:
    client = Client(url)
    welcome = client.request(type="register", username=name, password=password)
    assert welcome["type"] == "welcome", welcome
    client.user, client.token = welcome["user"], welcome["token"]
    return client


def login(url: str, **fields: Any) -> Message:
    """One login attempt on a fresh connection; the answer (the connection is closed afterwards)."""
    client = Client(url)
    try:
        return client.request(type="login", **fields)
    finally:
        client.close()


def finished_match(host: Client, guest: Client) -> str:
    """A two-player Bura match of one hand, played to its end, with a line of table chat from the host."""
    table: str = host.request(type="create", game="bura",
                              options={"players": 2, "scoring": "points", "hand_limit": 1})["table"]
    host.request(type="sit", table=table, seat=0)
    guest.request(type="sit", table=table, seat=1)
    assert host.request(type="chat", table=table, message="good luck")["type"] == "ok"
    host.request(type="start", table=table)
    players = [AutoPlayer(host, table, 0, 41, match_finished).start(),
               AutoPlayer(guest, table, 1, 42, match_finished).start()]
    for player in players:
        player.join()
    return table


def history(url: str, table: str) -> Message:
    with clients(url, f"Reader{secrets.token_hex(2)}") as (reader,):
        reply = reader.request(type="history", table=table)
    assert reply["type"] == "history", reply
    return {key: value for key, value in reply.items() if key != "re"}


def every_command(database: Database, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
                  backup: Path) -> tuple[str, Message]:
    """Every admin command on a running room; the finished table and its history from before the deletion."""
    run: Any = lambda *words, stdin=None: admin(database, *words, capsys=capsys, monkeypatch=monkeypatch,  # noqa: E731
                                                stdin=stdin)
    room = database.room()
    try:
        anna, boris = register(room.url, "anna", "anna-secret"), register(room.url, "boris", "boris-secret")
        table = finished_match(anna, boris)
        before = history(room.url, table)

        assert run("roles") == (0, "Nobody has a role.")
        assert run("grant", "anna", "moderator", "--reason", "helps") == (0, "anna now has the role moderator.")
        assert run("grant", "Anna", "moderator") == (1, "anna already has the role moderator.")
        assert run("grant", "anna", "owner") == (1, "There is no role owner; the roles are admin, moderator.")
        assert run("grant", "nobody", "admin") == (1, "There is no account nobody.")
        assert run("grant", anna.user["id"], "admin")[0] == 0  # type: ignore[index]
        code, listed = run("roles")
        assert code == 0 and listed.count("anna (u") == 2 and ": admin, since" in listed
        assert run("revoke", "anna", "admin") == (0, "anna no longer has the role admin.")
        assert run("revoke", "anna", "admin") == (1, "anna does not have the role admin.")

        # A new password: boris's session ends (its token no longer logs in); the new password works.
        assert run("password", "boris", "--password-stdin", stdin="short\n") == \
            (1, "A password has 6 to 200 characters.")
        assert run("password", "boris", "--password-stdin", stdin="fresh-secret\n") == \
            (0, "boris has a new password; sessions ended: 1.")
        assert login(room.url, token=boris.token)["code"] == "bad_token"
        assert login(room.url, username="boris", password="boris-secret")["code"] == "login_failed"
        assert login(room.url, username="boris", password="fresh-secret")["type"] == "welcome"
        code, said = run("password", "boris")
        printed = said.rsplit(": ", 1)[1]
        assert code == 0 and login(room.url, username="boris", password=printed)["type"] == "welcome"

        assert run("disable", "boris", "--reason", "spam")[0] == 0
        assert login(room.url, username="boris", password=printed)["code"] == "account_disabled"
        assert run("enable", "boris") == (0, "boris can log in again.")
        assert run("enable", "boris") == (1, "boris was not disabled.")
        assert login(room.url, username="boris", password=printed)["type"] == "welcome"

        code, said = run("ban", "--account", "boris", "--for", "2h", "--reason", "cheating")
        assert code == 0 and said.startswith("Ban 1: boris is banned from the room until ")
        refused = login(room.url, username="boris", password=printed)
        assert refused["code"] == "room_banned" and refused["until"].endswith("Z")
        assert refused["text"].startswith("You are banned from the room until ")
        assert run("ban", "--guest", "Spammer") == (0, "Ban 2: Spammer is banned from the room for good.")
        assert login(room.url, nickname="SPАMMER")["code"] == "room_banned"  # a look-alike, Cyrillic А
        assert login(room.url, nickname="Visitor")["type"] == "welcome"
        assert run("ban", "--address", "no-such-address") == (1, "no-such-address is not an IP address or a network.")
        assert run("ban", "--guest", "X", "--for", "soon")[0] == 1
        assert run("ban", "--address", "127.0.0.0/8", "--for", "30m")[0] == 0  # every test client's address
        assert login(room.url, nickname="Newcomer")["code"] == "room_banned"
        code, listed = run("bans")
        assert code == 0 and len(listed.splitlines()) == 3
        assert "guest name Spammer, for good, by operator:root" in listed
        assert "Reason: cheating" in listed
        for number in (3, 1, 2):
            assert run("unban", str(number))[0] == 0
        assert run("unban", "2") == (1, "There is no ban 2 in force.")
        assert run("bans") == (0, "No ban is in force.")
        assert len(run("bans", "--all")[1].splitlines()) == 3
        assert login(room.url, nickname="Newcomer")["type"] == "welcome"
        assert login(room.url, username="boris", password=printed)["type"] == "welcome"

        assert run("reports") == (0, "No report is waiting.")
        database.report_and_flag(boris.user, anna.user, int(table[1:]))  # as the room will: a report, a flag
        code, listed = run("reports")
        assert code == 0 and [line.split(": ", 1)[1] for line in listed.splitlines()] == [
            f"boris reports anna at table {table}: rude", "Anna kept feeding Boris: 140 points more than a sound "
            "player would have left."]
        assert listed.splitlines()[1].startswith("Flag 2, ")
        code, said = run("backup", str(backup))
        assert code == 0 and said == f"Backup written to {backup}: accounts: 2, tables: 1.", said
        assert run("backup", str(backup)) == (1, f"{backup} exists already: name a new file.")

        assert run("delete", "anna") == (1, "Deleting anna cannot be undone: add --yes to do it.")
        assert run("delete", "anna", "--yes", "--reason", "asked to") == \
            (0, "The account of anna is deleted; its finished games show a deleted player.")
        after = history(room.url, table)
        gone = {"id": anna.user["id"], "name": "deleted player", "guest": False, "deleted": True}  # type: ignore[index]
        assert after["seats"][0]["user"] == gone and after["chat"] == []
        assert after["actions"] == before["actions"] and after["seats"][1] == before["seats"][1]
        assert login(room.url, username="anna", password="anna-secret")["code"] == "login_failed"
        assert run("grant", "anna", "admin") == (1, "There is no account anna.")
        anna.close()  # (a single node hears nothing from the CLI: her open connection stays until it closes)
        newcomer = register(room.url, "anna", "another-secret")  # the name is free again, under a new number
        assert newcomer.user["id"] != anna.user["id"]  # type: ignore[index]
        newcomer.close()

        code, audit = run("audit")
        assert code == 0
        assert audit.splitlines()[0].endswith("root deleted an account (now deleted player). Reason: asked to")
        assert "anna" not in audit.lower().replace("(now deleted player)", "")  # her name is gone from the log
        assert "root banned Spammer from the room, for good (ban 2)." in audit
        assert database.audit_actions() == [
            "role.grant", "role.grant", "role.revoke", "account.password", "account.password", "account.disable",
            "account.enable", "ban", "ban", "ban", "ban.lift", "ban.lift", "ban.lift", "backup", "account.delete"]
        code, about = run("audit", "--user", "boris")
        assert code == 0 and len(about.splitlines()) == 6
        boris.close()
        return table, before
    finally:
        room.stop()


def test_every_admin_command_on_a_running_room_on_sqlite(sqlite: Database, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    backup = tmp_path / "backup.sqlite3"
    table, before = every_command(sqlite, capsys, monkeypatch, backup)
    # The copy, taken while the room ran, is a database of its own: a room started on it serves the same game.
    restored = Database(f"sqlite:///{backup}")
    room = restored.room()
    try:
        assert history(room.url, table) == before
        assert login(room.url, username="anna", password="anna-secret")["type"] == "welcome"  # as it was then
    finally:
        room.stop()
    assert restored.audit_actions()[-1] == "ban.lift"  # the copy's log ends before the backup itself


def test_every_admin_command_on_a_running_room_on_postgres(postgres: Database, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    need_service(shutil.which("pg_restore") is not None, "pg_restore is not installed")
    backup = tmp_path / "backup.pgdump"
    table, before = every_command(postgres, capsys, monkeypatch, backup)
    # pg_dump's file restores with pg_restore into a new database; a room started on it serves the same game.
    database = f"trickroom_restore_{secrets.token_hex(4)}"
    asyncio.run(_execute(f'CREATE DATABASE "{database}"'))
    try:
        url = POSTGRES.rsplit("/", 1)[0] + "/" + database
        subprocess.run(["pg_restore", "--no-owner", f"--dbname={url}", str(backup)], check=True,
                       capture_output=True)
        room = Database(url, postgres.schema).room()
        try:
            assert history(room.url, table) == before
        finally:
            room.stop()
    finally:
        asyncio.run(_execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)'))


def test_an_account_at_an_unfinished_table_is_not_deleted(sqlite: Database, capsys: pytest.CaptureFixture[str],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    room = sqlite.room()
    try:
        anna = register(room.url, "anna", "anna-secret")
        table = anna.request(type="create", game="bura", options={"players": 2})["table"]
        anna.request(type="sit", table=table, seat=0)
        code, said = admin(sqlite, "delete", "anna", "--yes", capsys=capsys, monkeypatch=monkeypatch)
        assert code == 1 and said == (f"anna is at tables that have not finished ({table}): disable the account "
                                      "now, and delete it when they are over.")
        assert login(room.url, username="anna", password="anna-secret")["type"] == "welcome"
        assert sqlite.audit_actions() == []
        anna.close()
    finally:
        room.stop()


def test_the_cli_speaks_russian_and_refuses_a_missing_database(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    missing = tmp_path / "none.sqlite3"
    assert main(["admin", "--db", f"sqlite:///{missing}", "roles"]) == 1
    assert capsys.readouterr().err.strip() == f"There is no database at {missing}."
    assert not missing.exists()
    database = Database(f"sqlite:///{tmp_path / 'room.sqlite3'}")
    database.room().stop()  # the room creates it
    monkeypatch.setenv("LANG", "ru_RU.UTF-8")
    assert main(["admin", "--db", database.url, "roles"]) == 0
    assert capsys.readouterr().out.strip() == "Ни у кого нет роли."
    monkeypatch.setenv("TRICKROOM_DB", database.url)  # the same setting as the server's
    assert main(["admin", "--lang", "en", "bans"]) == 0
    assert capsys.readouterr().out.strip() == "No ban is in force."


def test_on_nodes_sharing_redis_the_ended_sessions_close_at_once(postgres: Database,
                                                                 capsys: pytest.CaptureFixture[str],
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from test_cluster import REDIS, _redis_forget, _redis_ping, available

    need_service(available(_redis_ping()), f"Redis is not reachable at {REDIS}")
    prefix = f"trickroom-test-{secrets.token_hex(4)}:"
    nodes = [ProcessServer(POSTGRES, args=("--redis", REDIS, "--node-id", f"n{i}"), TRICKROOM_DB_SCHEMA=str(
        postgres.schema), TRICKROOM_REDIS_PREFIX=prefix).start() for i in range(2)]
    try:
        laptop, phone = register(nodes[0].url, "anna", "anna-secret"), Client(nodes[1].url)
        assert phone.request(type="login", username="anna", password="anna-secret")["type"] == "welcome"
        monkeypatch.setenv("TRICKROOM_REDIS", REDIS)  # as the nodes are configured
        monkeypatch.setenv("TRICKROOM_REDIS_PREFIX", prefix)
        code, said = admin(postgres, "disable", "anna", capsys=capsys, monkeypatch=monkeypatch)
        assert (code, said) == (0, "anna can no longer log in; sessions ended: 2.")
        for client in (laptop, phone):  # on both nodes, as after a logout
            assert client.wait(type="error")["code"] == "bad_token"
            client.reader.join(timeout=10)
            assert client.closed and client.ws.close_code == 4401
    finally:
        for node in nodes:
            node.stop()
        asyncio.run(_redis_forget(prefix))
