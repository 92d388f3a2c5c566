"""Moderation in the room through real websockets (issue 16 items 2, 3 and 5): one node on SQLite, and two nodes
sharing PostgreSQL and Redis (skipped without them; TRICKROOM_REQUIRE_SERVICES=1 makes them fail instead).

Mutes refused on every node until they end, a banned guest refused under a new nickname from the same address,
a table closed with every member hearing why, reports waiting for a moderator who signs in later, ignored
players never heard, every moderator action in the audit log, a moderator's watch of a private table, a
reported table's chat, announcements and the message of the day, and a player's own password and account.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import need_service
from server_helpers import Client, ProcessServer, ThreadServer
from sqlalchemy import update
from test_cluster import POSTGRES, REDIS, _postgres, _redis_forget, _redis_ping, available

from trickroom.server.moderation import Actor, Moderation, MuteRow
from trickroom.server.store import Store

Message = dict[str, Any]
ROOT = Actor.operator("root")


class Room:
    """The database the nodes share, and the nodes: one in a thread on SQLite, or ``trickroom serve`` processes
    sharing PostgreSQL (``schema``) and Redis (``prefix``), their output in ``logs``."""

    def __init__(self, db: str, schema: str | None = None, prefix: str | None = None, logs: Path | None = None) -> None:
        self.db, self.schema, self.prefix, self.logs = db, schema, prefix, logs
        self.nodes: list[ThreadServer | ProcessServer] = []

    def node(self, name: str = "n1") -> ThreadServer | ProcessServer:
        node: ThreadServer | ProcessServer
        if self.prefix is None:
            node = ThreadServer(db=self.db, bot_workers=0).start()
        else:
            node = ProcessServer(self.db, args=("--redis", REDIS, "--node-id", name), TRICKROOM_DB_SCHEMA=str(
                self.schema), TRICKROOM_REDIS_PREFIX=self.prefix, TRICKROOM_LEASE_SECONDS="3")
            node.log_path = (self.logs or Path(".")) / f"{name}.log"
            node.start()
        self.nodes.append(node)
        return node

    def run(self, work: Any) -> Any:
        async def go() -> Any:
            store = Store(self.db, self.schema)
            try:
                await store.migrate()
                return await work(Moderation(store), store)
            finally:
                await store.close()

        return asyncio.run(go())

    def grant(self, client: Client, role: str) -> None:
        assert client.user is not None
        user_id = int(client.user["id"][1:])
        assert self.run(lambda m, s: m.grant_role(user_id, role, ROOT))

    def end_mutes(self) -> None:
        """Time passes: every mute's end is in the past."""
        async def work(moderation: Moderation, store: Store) -> None:
            await store.write_statement(update(MuteRow).values(expires_at=dt.datetime(2000, 1, 1)))

        self.run(work)

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()


def register(url: str, name: str, password: str = "secret-words") -> Client:
    client = Client(url)
    welcome = client.request(type="register", username=name, password=password)
    assert welcome["type"] == "welcome", welcome
    client.user, client.token = welcome["user"], welcome["token"]
    return client


def sign_in(url: str, name: str, password: str = "secret-words") -> Client:
    client = Client(url)
    welcome = client.request(type="login", username=name, password=password)
    assert welcome["type"] == "welcome", welcome
    client.user, client.token = welcome["user"], welcome["token"]
    return client


def guest(url: str, name: str, address: str | None = None) -> Client:
    client = Client(url, headers={"X-Forwarded-For": address} if address else None)
    client.login_guest(name)
    return client


def moderator(room: Room, url: str, name: str, role: str = "moderator") -> Client:
    """An account given ``role`` by the operator, signed in again (a moderator hears reports from sign-in)."""
    made = register(url, name)
    room.grant(made, role)
    made.leave()
    return sign_in(url, name)


def said(client: Client, **fields: Any) -> str:
    text: str = client.wait(**fields)["text"]
    return text


def arrived(client: Client, name: str) -> None:
    """Wait until ``client`` hears that ``name`` came in (from another node, through the bus)."""
    client.wait(lambda m: m["user"]["name"] == name, type="presence", online=True)


def chat_from(messages: list[Message], name: str) -> list[Message]:
    return [m for m in messages if m.get("type") in ("chat", "private") and m.get("from", {}).get("name") == name]


@pytest.fixture
def room(tmp_path: Path) -> Iterator[Room]:
    made = Room(f"sqlite:///{tmp_path / 'room.sqlite3'}")
    yield made
    made.stop()


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Room]:
    need_service(available(_postgres("SELECT 1")), f"PostgreSQL is not reachable at {POSTGRES}")
    need_service(available(_redis_ping()), f"Redis is not reachable at {REDIS}")
    schema, prefix = f"trickroom_mod_{secrets.token_hex(4)}", f"trickroom_test_{secrets.token_hex(4)}:"
    made = Room(POSTGRES, schema, prefix, tmp_path)
    yield made
    made.stop()
    asyncio.run(_postgres(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
    asyncio.run(_redis_forget(prefix))


# Two nodes


@pytest.mark.services
def test_on_two_nodes_mutes_bans_reports_closing_and_ignoring_reach_every_node(cluster: Room) -> None:
    one, two = cluster.node("n1"), cluster.node("n2")
    mod = moderator(cluster, one.url, "Moira")
    spammer = guest(two.url, "Spammer", "203.0.113.9")
    spammer_here = Client(one.url, headers={"X-Forwarded-For": "203.0.113.9"})
    assert spammer_here.request(type="login", token=spammer.token)["type"] == "welcome"
    arrived(mod, "Spammer")

    # A mute from node 1 holds on both nodes, with its sentence, until it ends.
    reply = mod.request(type="mute", user="Spammer", minutes=30)
    assert reply["type"] == "ok" and reply["text"].startswith("Spammer is muted in the lobby until "), reply
    assert said(spammer, type="muted").startswith("A moderator muted you in the lobby chat until ")
    for client in (spammer, spammer_here):
        refused = client.request(type="chat", message="buy cheap chips")
        assert refused["code"] == "muted" and refused["text"].startswith(
            "A moderator muted you in the lobby chat until "), refused
    cluster.end_mutes()
    for client in (spammer, spammer_here):
        assert client.request(type="chat", message="sorry")["type"] == "ok"

    # A report from node 2 reaches the moderator on node 1 at once, and one who signs in later on node 2.
    anna = guest(two.url, "Anna", "198.51.100.4")
    assert anna.request(type="report", user="Spammer", reason="selling chips")["type"] == "reported"
    heard = mod.wait(type="report")
    assert heard["text"] == "New report. Anna reported Spammer: selling chips", heard
    later = moderator(cluster, two.url, "Lev")
    waiting = later.wait(type="moderator")
    assert waiting["text"] == "Moderator tools: F4. 1 report waits."
    assert [r["text"] for r in waiting["reports"]] == ["Anna reported Spammer: selling chips"]

    # The moderators' channel reaches both nodes.
    mod.request(type="moderators", message="I take this one")
    assert said(later, type="moderators") == "Moderators, Moira: I take this one"

    # Anna, on node 2, ignores Boris on node 1: his lobby chat and private messages never reach her.
    boris = guest(one.url, "Boris", "198.51.100.5")
    arrived(anna, "Boris")
    assert anna.request(type="ignore", user="Boris")["text"] == "You will hear nothing more from Boris."
    assert boris.request(type="private", to="Anna", message="psst")["type"] == "ok"
    assert boris.request(type="chat", message="hello all")["type"] == "ok"
    assert spammer.request(type="chat", message="after Boris")["type"] == "ok"
    anna.wait(type="chat", message="after Boris")
    assert chat_from(anna.history + anna.pending, "Boris") == []
    assert [m["message"] for m in chat_from(spammer.drain(), "Boris")] == ["hello all"]

    # A table owned by node 2 with a watcher on node 1: the moderator closes it and both hear why.
    table = anna.request(type="create", game="bura", options={"players": 2})["table"]
    boris_watch = boris.request(type="watch", table=table)
    assert boris_watch["type"] == "snapshot", boris_watch
    assert mod.request(type="close_table", table=table, reason="spam in the chat")["type"] == "ok"
    for member in (anna, boris):
        left = member.wait(type="left", table=table)
        assert (left["reason"], left["text"]) == (
            "closed", "A moderator closed the table Anna's table: spam in the chat")

    # A ban of the guest on node 2 closes both their connections and bans their address: a new nickname from
    # the same address is refused on either node; another address is let in.
    reply = mod.request(type="room_ban", user="Spammer", reason="spam")
    assert reply["text"] == "Spammer is banned from the room for good.", reply
    for client in (spammer, spammer_here):
        assert client.wait(type="error")["code"] == "room_banned"
        client.reader.join(timeout=10)
        assert client.closed and client.ws.close_code == 4403
    for node in (one, two):
        again = Client(node.url, headers={"X-Forwarded-For": "203.0.113.9"})
        refused = again.request(type="login", nickname=f"Nice{secrets.token_hex(2)}")
        assert (refused["code"], refused["text"]) == ("room_banned", "You are banned from the room."), refused
    other = Client(two.url, headers={"X-Forwarded-For": "203.0.113.10"})
    assert other.request(type="login", nickname="SPAMMER")["code"] == "room_banned"  # the name in another case
    assert other.request(type="login", nickname="Carol")["type"] == "welcome"


@pytest.mark.services
def test_on_two_nodes_a_ban_from_the_command_line_closes_the_connections_on_both(
        cluster: Room, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from trickroom.cli import main

    one, two = cluster.node("n1"), cluster.node("n2")
    here = guest(one.url, "Spammer", "203.0.113.20")
    there = Client(two.url, headers={"X-Forwarded-For": "203.0.113.20"})
    assert there.request(type="login", token=here.token)["type"] == "welcome"
    bystander = guest(two.url, "Anna", "203.0.113.21")
    monkeypatch.setenv("TRICKROOM_DB_SCHEMA", str(cluster.schema))
    monkeypatch.setenv("TRICKROOM_REDIS", REDIS)  # as the nodes are configured
    monkeypatch.setenv("TRICKROOM_REDIS_PREFIX", str(cluster.prefix))
    code = main(["admin", "--db", cluster.db, "--by", "root", "--lang", "en", "ban", "--guest", "spammer",
                 "--for", "1h"])
    assert code == 0, capsys.readouterr()
    for client in (here, there):
        refused = client.wait(type="error")
        assert refused["code"] == "room_banned" and refused["text"].startswith("You are banned from the room until ")
        client.reader.join(timeout=10)
        assert client.closed and client.ws.close_code == 4403
    assert bystander.request(type="lobby")["type"] == "lobby"  # nobody else


# One node


def test_every_moderator_action_lands_in_the_audit_log_and_admins_read_it(room: Room) -> None:
    node = room.node()
    admin = moderator(room, node.url, "Ada", "admin")
    assert admin.wait(type="moderator")["roles"] == ["admin"]
    host = guest(node.url, "Hana", "192.0.2.1")  # her own address: the ban below covers it
    cara = guest(node.url, "Cara", "192.0.2.2")
    table = host.request(type="create", game="bura", options={"players": 2}, private=True)["table"]
    host.request(type="chat", table=table, message="you lose")
    blank = cara.request(type="report", user="Hana", reason=" \n\t")  # a report says why
    assert blank["text"] == "That message has a wrong or missing field: reason.", blank
    assert cara.request(type="report", user="Hana", reason="rude at her table", table=table)["type"] == "reported"
    report = admin.wait(type="report")["report"]
    assert report["text"] == f"Cara reported Hana at {table}: rude at her table"

    # Watching a private table is said to the table; a reported table's chat can be read.
    watch = admin.request(type="moderator_watch", table=table)
    assert watch["type"] == "snapshot" and watch["table"] == table
    assert said(host, type="table_event", kind="moderator_watching") == "A moderator is watching."
    lines = admin.request(type="table_chat", table=table)
    assert [(c["from"]["name"], c["message"]) for c in lines["chat"]] == [("Hana", "you lose")]
    dora = guest(node.url, "Dora", "192.0.2.5")
    unreported = dora.request(type="create", game="bura", options={"players": 2})["table"]
    assert admin.request(type="table_chat", table=unreported)["code"] == "not_reported"

    for request in ({"type": "mute", "user": "Cara", "minutes": 5, "reason": "caps"},
                    {"type": "unmute", "user": "Cara"},
                    {"type": "handle_report", "report": report["id"], "outcome": "warned"},
                    {"type": "announce", "message": "The room restarts in five minutes."},
                    {"type": "motd", "message": "Be kind."},
                    {"type": "close_table", "table": table, "reason": "done"},
                    {"type": "remove", "user": "Cara", "reason": "calm down"}):
        reply = admin.request(**request)
        assert reply["type"] == "ok", (request, reply)
    assert said(host, type="announcement") == "Announcement: The room restarts in five minutes."
    assert admin.request(type="moderators", message="\n")["code"] == "bad_message"  # checked as chat is
    assert cara.wait(type="error")["text"] == "A moderator removed you from the room: calm down"
    ban = admin.request(type="room_ban", user="Hana", minutes=60)
    assert ban["text"].startswith("Hana is banned from the room until ")

    audit = admin.request(type="audit")
    actions = [entry["action"] for entry in reversed(audit["entries"])]
    assert actions == ["role.grant", "table.watch", "table.chat", "mute", "mute.lift", "report.handle", "announce",
                       "motd", "table.close", "remove", "ban", "ban"], actions
    texts = [entry["text"] for entry in audit["entries"]]
    assert f"Ada closed table {table}." in texts and "Ada removed Cara from the room." in texts
    assert "Ada set the message of the day: Be kind." in texts
    assert [entry["target"] for entry in audit["entries"][:2]] == ["address:192.0.2.1/32", "name:hana"]
    assert Client(node.url, headers={"X-Forwarded-For": "192.0.2.1"}).request(
        type="login", nickname="Hanna")["code"] == "room_banned"

    # Players may do none of it; a moderator may not read the audit log.
    eve = guest(node.url, "Eve", "192.0.2.3")
    for request in ({"type": "mute", "user": "Ada"}, {"type": "close_table", "table": unreported, "reason": "x"},
                    {"type": "moderator_watch", "table": unreported}, {"type": "reports"}):
        assert eve.request(**request)["code"] == "not_moderator"
    mod = moderator(room, node.url, "Moe")
    assert mod.request(type="audit")["code"] == "not_admin"
    assert mod.request(type="announce", message="hi")["code"] == "not_admin"

    # The message of the day is said at sign-in.
    assert said(guest(node.url, "Finn", "192.0.2.4"), type="motd") == "Message of the day: Be kind."


def test_a_moderator_back_with_a_token_hears_the_reports_that_wait(room: Room) -> None:
    """A login with a token reads the account's roles in its one trip to the database (a client moving to its
    table's node logs in so): a moderator is welcomed as one, a player is not."""
    node = room.node()
    mod, player = moderator(room, node.url, "Ines"), register(node.url, "Ivo")
    assert mod.wait(type="moderator")["roles"] == ["moderator"]
    reporter = guest(node.url, "Ida", "192.0.2.3")
    assert reporter.request(type="report", user="Ivo", reason="rude")["type"] == "reported"
    back, other = Client(node.url), Client(node.url)
    assert back.request(type="login", token=mod.token)["type"] == "welcome"
    waiting = back.wait(type="moderator")
    assert (waiting["roles"], waiting["text"]) == (["moderator"], "Moderator tools: F4. 1 report waits.")
    assert other.request(type="login", token=player.token)["type"] == "welcome"
    assert not [m for m in other.drain() if m["type"] == "moderator"]


def test_a_moderator_whose_role_is_revoked_hears_no_more_reports(room: Room) -> None:
    """``trickroom admin revoke`` writes the database only (a single node has no channel from the command line):
    the room reads the roles again before it hands a report on, not at the moderator's next sign-in."""
    node = room.node()
    moe, mia = moderator(room, node.url, "Moe"), moderator(room, node.url, "Mia")
    for mod in (moe, mia):
        assert mod.wait(type="moderator")["roles"] == ["moderator"]
    assert mia.user is not None
    assert room.run(lambda m, s: m.revoke_role(int(mia.user["id"][1:]), "moderator", ROOT))
    reporter = guest(node.url, "Cara", "192.0.2.2")
    guest(node.url, "Hana", "192.0.2.1")
    assert reporter.request(type="report", user="Hana", reason="rude")["type"] == "reported"
    assert moe.wait(type="report")["report"]["text"] == "Cara reported Hana: rude"
    assert mia.request(type="lobby")["type"] == "lobby"  # answered after any report the room sent her
    assert [m for m in mia.history if m.get("type") == "report"] == []
    assert mia.request(type="reports")["code"] == "not_moderator"


def test_an_ignored_player_is_never_heard_at_a_table_nor_in_private(room: Room) -> None:
    node = room.node()
    anna, boris, cara = guest(node.url, "Anna"), guest(node.url, "Boris"), guest(node.url, "Cara")
    table = cara.request(type="create", game="bura", options={"players": 2})["table"]
    for client in (anna, boris):
        client.request(type="watch", table=table)
    assert anna.request(type="ignore", user="Boris")["type"] == "ignored"
    assert anna.request(type="ignore", user="Anna")["code"] == "not_yourself"
    boris.request(type="chat", table=table, message="at the table")
    boris.request(type="private", to="Anna", message="in private")
    boris.request(type="chat", message="in the lobby")
    cara.request(type="chat", table=table, message="marker")
    anna.wait(type="chat", message="marker")
    assert chat_from(anna.history + anna.pending, "Boris") == []
    assert {m["message"] for m in chat_from(cara.drain(), "Boris")} == {"at the table", "in the lobby"}
    # Heard again once the ignore is lifted; the ignore list outlives the connection (the session keeps it).
    assert anna.request(type="ignore", user="Boris", ignore=False)["text"] == "You hear Boris again."
    boris.request(type="private", to="Anna", message="hello again")
    assert anna.wait(type="private")["message"] == "hello again"


def test_a_player_changes_their_password_and_deletes_their_account(room: Room) -> None:
    node = room.node()
    laptop = register(node.url, "Anna", "first-secret")
    phone = sign_in(node.url, "Anna", "first-secret")
    assert laptop.request(type="change_password", old="wrong-one", new="second-secret")["code"] == "wrong_password"
    assert laptop.request(type="change_password", old="first-secret", new="short")["code"] == "bad_password"
    changed = laptop.request(type="change_password", old="first-secret", new="second-secret")
    assert changed["text"] == "Your password is changed; your other sessions ended."
    assert phone.wait(type="error")["code"] == "bad_token"  # the other session ended
    assert laptop.request(type="lobby")["type"] == "lobby"  # this one goes on, with its new token
    again = Client(node.url)
    assert again.request(type="login", token=changed["token"])["type"] == "welcome"
    assert Client(node.url).request(type="login", username="Anna", password="first-secret")["code"] == "login_failed"

    table = laptop.request(type="create", game="bura", options={"players": 2})["table"]
    laptop.request(type="sit", table=table, seat=0)
    busy = laptop.request(type="delete_account", password="second-secret")
    assert busy["code"] == "still_playing" and table in busy["text"], busy
    laptop.request(type="leave", table=table)
    assert guest(node.url, "Gus").request(type="delete_account", password="x")["code"] == "not_account"
    gone = laptop.request(type="delete_account", password="second-secret")
    assert gone["text"] == "Your account and its personal data are deleted. Goodbye."
    laptop.reader.join(timeout=10)
    assert laptop.closed and laptop.ws.close_code == 4410
    assert again.wait(type="error")["code"] == "bad_token"
    assert Client(node.url).request(type="login", username="Anna", password="second-secret")["code"] == "login_failed"
    assert register(node.url, "Anna", "a-new-person").user is not None  # the name is free again
