"""The lobby: who is online, the tables' listings, lobby chat and private messages.

Every node keeps its own copy of the lobby, rebuilt from ``lobby`` bus messages (:meth:`Lobby.on_lobby`), so
another node's presence, tables and chat appear here the same way as this node's own. With several nodes the
listings and the people online are also kept in Redis (:class:`~trickroom.server.cluster.Cluster`), read when the
node starts, and the people online are brought up to date when a node comes or goes, and every 15 s
(:meth:`Lobby.reconcile_presence`, from the heartbeat).
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import logging
import math
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from trickroom.narration import translate
from trickroom.server.connection import Connection, Frames
from trickroom.server.frames import FrameError, encode, encode_part
from trickroom.server.messages import (
    ChatMessage,
    LobbyBatch,
    LobbySnapshot,
    Presence,
    PresenceChange,
    TableEntry,
    TableListed,
    TableUnlisted,
    UserSummary,
)
from trickroom.server.names import NameIndex
from trickroom.server.people_index import PeopleIndex
from trickroom.server.protocol import (
    Message,
    ProtocolError,
    replying,
)
from trickroom.server.table_parts import CLOSED, FINISHED

if TYPE_CHECKING:
    from trickroom.server.room import Room
    from trickroom.server.table import Table

log = logging.getLogger("trickroom.room")


def presence_change(user: Message, online: bool) -> Message:
    """The ``lobby`` bus message of someone coming into the room or leaving it."""
    return {"kind": "presence", "user": user, "online": online}


def visible(listing: Message, uid: str) -> bool:
    return listing["visible_to"] is None or uid in listing["visible_to"]


def waiting(listing: Message) -> bool:
    return bool(listing["entry"]["status"] == "waiting")


def shown(listing: Message, uid: str, open_only: bool) -> bool:
    """Whether the table is in ``uid``'s lobby: one they may see and, in an open lobby (``open_only``), waiting for
    players or one where they sit or watch."""
    return visible(listing, uid) and (not open_only or waiting(listing) or uid in (listing.get("people") or ()))


def hears_lobby_chat(conn: Connection) -> bool:
    """Whether lobby chat reaches ``conn``: while it follows the lobby, or at a table if it asked for it (at 3000
    people each lobby line went to some 2,500 connections, most at a table, and was most of the frames sent)."""
    return conn.follows_lobby or bool(conn.preferences.get("lobby_chat_at_table"))


NOBODY: frozenset[str] = frozenset()

# What one connection hears of a batch (Lobby.view_of): tables listed, tables unlisted, presence, the frame's key.
View = tuple[list[TableEntry], list[str], list[PresenceChange], tuple[object, ...]]


@dataclass
class Pending:
    """The lobby's changes since the last batch: each table's listing now (None: unlisted) and before them, each
    person's presence now and before them."""

    listings: dict[str, Message | None] = field(default_factory=dict)
    before: dict[str, Message | None] = field(default_factory=dict)
    presence: dict[str, tuple[Message, bool]] = field(default_factory=dict)
    was_online: dict[str, bool] = field(default_factory=dict)

    def empty(self) -> bool:
        return not (self.listings or self.presence)


class Lobby:
    def __init__(self, room: Room, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep) -> None:
        self.room = room
        self.online: dict[str, Message] = {}  # user id -> summary, of everyone online on any node
        self.names = NameIndex()  # the keys of their names (set_online and set_offline keep the two together)
        self.listings: dict[str, Message] = {}  # table id -> its listing (Table.listing), from any node
        self.listed_people = PeopleIndex()  # who the listings name at each table (seated or watching)
        self.seq = 0
        self.clock, self.sleep = clock, sleep
        # The connections that may hear lobby chat: all but those that stopped following the lobby (a client at a
        # table) without asking for its chat there. A line goes through these, not through every connection: at
        # 10,000 people, most of them at tables, walking them all for each line was 5% of the server's time.
        self.chat_readers: dict[str, Connection] = {}
        self.pending = Pending()
        self.last_batch = -math.inf
        self.batcher: asyncio.Task[None] | None = None
        # Connections that got a snapshot since the last batch, and who was online in it.
        self.fresh: dict[str, frozenset[str]] = {}
        # The snapshot's parts, kept as the lobby changes so that a snapshot is joined from them in C, not walked
        # entry by entry (cProfile put that walk at an eighth of the server's time at 3000 people; sampling says
        # much less, docs/performance.md, sixth session): everyone online as
        # (name, user id) in order and, beside it, each one's summary encoded; the tables everyone may see, by
        # language, each one's entry encoded (in the listings' order); the ids of the private tables.
        self.by_name: list[tuple[str, str]] = []
        self.by_name_json: list[str] = []
        self.users_json: tuple[str, frozenset[str]] | None = None  # everyone online, joined: users_part
        self.public_json: dict[str, dict[str, str]] = {}
        self.open_json: dict[str, dict[str, str]] = {}  # the same, of the public tables waiting for players
        self.private_ids: dict[str, None] = {}
        # The public tables in play (not waiting), which an open lobby leaves out (but for its user's own) and
        # counts (in_play), and the count the last batch gave.
        self.in_play: set[str] = set()
        self.last_in_play = 0
        # Whether the room is small enough for an "auto" lobby to list its people (counts_people), and the count of
        # people online the last batch gave.
        self.people_listed = True
        self.last_online = 0

    def stop(self) -> None:
        if self.batcher is not None:
            self.batcher.cancel()

    async def start(self) -> None:
        room = self.room
        await room.bus.subscribe("lobby", self.on_lobby)
        if room.cluster is not None:
            self.listings = dict(await room.cluster.listings())
            for table_id, listing in self.listings.items():
                self.listed_people.set(table_id, listing.get("people") or ())
                self.keep_entry(table_id, listing)
            for value in (await room.cluster.online()).values():
                self.set_online(value["user"])

    def set_online(self, user: Message) -> None:
        self.set_offline(user["id"])
        self.online[user["id"]] = user
        self.names.add(user["name"])
        place = bisect.bisect(self.by_name, (user["name"], user["id"]))
        self.by_name.insert(place, (user["name"], user["id"]))
        self.by_name_json.insert(place, encode_part(user, "lobby"))
        self.users_json = None

    def set_offline(self, uid: str) -> None:
        old = self.online.pop(uid, None)
        if old is not None:
            self.names.remove(old["name"])
            place = bisect.bisect_left(self.by_name, (old["name"], uid))
            del self.by_name[place], self.by_name_json[place]
            self.users_json = None

    def keep_entry(self, table_id: str, listing: Message | None) -> None:
        """The snapshot's parts follow a table listed, changed (``listing``) or unlisted (None)."""
        if listing is None or listing["visible_to"] is not None or waiting(listing):
            self.in_play.discard(table_id)
        else:
            self.in_play.add(table_id)
        if listing is None or listing["visible_to"] is not None:
            for entries in (*self.public_json.values(), *self.open_json.values()):
                entries.pop(table_id, None)
            if listing is None:
                self.private_ids.pop(table_id, None)
            else:
                self.private_ids[table_id] = None
            return
        self.private_ids.pop(table_id, None)
        for lang, entries in self.public_json.items():
            entries[table_id] = self.entry_json(listing, lang)
        for lang, entries in self.open_json.items():
            if waiting(listing):
                entries[table_id] = self.entry_json(listing, lang)
            else:
                entries.pop(table_id, None)

    def counts_people(self, conn: Connection) -> bool:
        """Whether ``conn``'s lobby counts the people online instead of listing them: it asked for that in a busy
        room ("auto"). At 10,000 people the list made most of a snapshot's bytes (everyone who came back from a
        table got it), and nobody can listen to a hundred arrivals a second."""
        return conn.lobby_people == "auto" and not self.people_listed

    def people_listed_now(self) -> bool:
        """Whether an "auto" lobby lists its people, from how many are online: not above the limit, and again only
        below nine tenths of it, so that a room at the limit does not go back and forth."""
        limit = self.room.settings.lobby_people_limit
        if limit <= 0:
            return True
        return len(self.online) <= (limit if self.people_listed else limit * 9 // 10)

    def name_online(self, name: str) -> bool:
        """Whether ``name`` looks like (:mod:`trickroom.server.names`) the name of someone online, any node."""
        return self.names.clashes(name)

    def people_at(self, table_id: str) -> list[str]:
        """The ids of the people the listing names at a table (seated or watching), on any node."""
        return list(self.listings.get(table_id, {}).get("people", ()))

    # What this node tells the lobby

    async def publish_listing(self, table: Table) -> None:
        if table.status == CLOSED or (table.status == FINISHED and not table.members):
            await self.unlist(table.id)
            return
        listing = table.listing()
        news = {"kind": "listed", **listing}
        if self.room.cluster is not None:
            await self.room.cluster.list_table(table.id, listing, news)
        else:
            await self.room.bus.publish("lobby", news)

    async def unlist(self, table_id: str) -> None:
        news = {"kind": "unlisted", "id": table_id}
        if self.room.cluster is not None:
            await self.room.cluster.unlist_table(table_id, news)
        else:
            await self.room.bus.publish("lobby", news)

    async def presence(self, user: Message, online: bool) -> None:
        await self.room.bus.publish("lobby", presence_change(user, online))

    async def reconcile_presence(self) -> None:
        """Who is online is the union of the live nodes' users: apply the difference with this node's copy
        (a dead node's users leave once its heartbeat entry runs out, unless they came back elsewhere)."""
        assert self.room.cluster is not None
        online = {uid: value["user"] for uid, value in (await self.room.cluster.online()).items()}
        for uid, user in online.items():
            if uid not in self.online:
                await self.on_lobby(presence_change(user, True))
        for uid, user in list(self.online.items()):
            if uid not in online and uid not in self.room.by_user:
                await self.on_lobby(presence_change(user, False))

    def reads_chat(self, conn: Connection) -> None:
        """Count ``conn`` among the chat's readers, or not, as it follows the lobby or asked for its chat at a
        table: after either changes, and when it opens (it follows until it says otherwise)."""
        if hears_lobby_chat(conn):
            self.chat_readers[conn.id] = conn
        else:
            self.chat_readers.pop(conn.id, None)

    # The lobby, from the bus

    def snapshot(self, conn: Connection) -> LobbySnapshot:
        self.seq += 1
        uid, open_only = (conn.user["id"] if conn.user else ""), conn.lobby_tables == "open"
        # The tables everyone may see (in an open lobby the waiting ones, then the user's own in play, by id), then
        # the private ones this user may see: as snapshot_frame lists them.
        def place(listing: Message) -> tuple[bool, bool, str]:
            in_play = open_only and listing["entry"]["id"] in self.in_play
            return listing["visible_to"] is not None, in_play, listing["entry"]["id"] if in_play else ""

        listings = sorted((listing for listing in self.listings.values() if shown(listing, uid, open_only)), key=place)
        entries = [self.render_listing(listing, conn.lang) for listing in listings]
        users = sorted(cast(list[UserSummary], list(self.online.values())), key=lambda u: u["name"])
        # Its snapshot holds some of the pending changes, but not their "before".
        self.fresh[conn.id] = frozenset(user["id"] for user in users)
        counted = self.counts_people(conn)
        snapshot = LobbySnapshot(type="lobby", seq=self.seq, users=[] if counted else users, tables=entries)
        return cast(LobbySnapshot, snapshot | self.counts(conn))

    def counts(self, conn: Connection) -> dict[str, Any]:
        """What a snapshot of ``conn``'s lobby says beside its lists: the tables in play that an open lobby leaves
        out, and the people an "auto" lobby counts (and whether it lists them)."""
        counts: dict[str, Any] = {}
        if conn.lobby_tables == "open":
            counts["in_play"] = len(self.in_play)
        if conn.lobby_people == "auto":
            counts["online"] = len(self.online)
            counts["people"] = "counted" if self.counts_people(conn) else "listed"
        return counts

    def snapshot_frame(self, conn: Connection, re: Any = None) -> str:
        """:meth:`snapshot` as its frame, joined from parts encoded once: each listing's entry in each language
        while the listing stands, each person's summary while they stay. At 3000 people a snapshot lists a
        thousand tables and everyone coming back from a table asks for one: encoded whole each time, that was a
        sixth of the server's time."""
        self.seq += 1
        uid, lang, open_only = (conn.user["id"] if conn.user else ""), conn.lang, conn.lobby_tables == "open"
        public = self.public_json.get(lang)
        if public is None:  # the first snapshot in this language
            public = self.public_json[lang] = {table_id: self.entry_json(listing, lang) for table_id, listing
                                               in self.listings.items() if listing["visible_to"] is None}
        # The private tables this user may see come after the public ones.
        private = [self.entry_json(self.listings[table_id], lang) for table_id in self.private_ids
                   if shown(self.listings[table_id], uid, open_only)]
        if open_only:
            # The waiting tables, then the user's own in play (walking every table for them was 5% of the server's
            # time at 10,000 people).
            waiting_now = self.open_json.get(lang)
            if waiting_now is None:
                waiting_now = self.open_json[lang] = {table_id: entry for table_id, entry in public.items()
                                                      if table_id not in self.in_play}
            own = [public[table_id] for table_id in self.listed_people.tables_of(uid) if table_id in self.in_play]
            public_part = ",".join((*waiting_now.values(), *own))
        else:
            public_part = ",".join(public.values())
        tables = ",".join(part for part in (public_part, *private) if part)
        # A lobby that counts people hears none of their comings and goings, so what its snapshot held of them
        # does not matter: everyone online is joined (and their ids gathered) only for a lobby that lists them,
        # which at 10,000 people was 3% of the server's time, at every sign-in.
        users, online = ("", NOBODY) if self.counts_people(conn) else self.users_part()
        self.fresh[conn.id] = online
        head = encode({"type": "lobby", "seq": self.seq} | ({} if re is None else {"re": re}) | self.counts(conn))
        return f'{head[:-1]},"users":[{users}],"tables":[{tables}]}}'

    def entry_json(self, listing: Message, lang: str) -> str:
        encoded: dict[str, str] = listing.setdefault("encoded", {})
        found = encoded.get(lang)
        if found is None:
            found = encoded[lang] = encode_part(self.render_listing(listing, lang), "lobby")
        return found

    def users_part(self) -> tuple[str, frozenset[str]]:
        """Everyone online as the snapshot lists them (by name), encoded, and their ids: joined again after
        someone comes or goes, from each person's summary encoded once, in the order kept as they do."""
        if self.users_json is None:
            self.users_json = (",".join(self.by_name_json), frozenset(self.online))
        return self.users_json

    def send_snapshot(self, conn: Connection, re: Any = None) -> None:
        """The snapshot to ``conn`` (the answer to ``re``)."""
        try:
            frame = self.snapshot_frame(conn, re)
        except FrameError:  # a listing JSON cannot hold (a bug): the message's own path says so and answers
            conn.send(replying(self.snapshot(conn), re))
            return
        conn.send_frame(frame)

    @staticmethod
    def render_listing(listing: Message, lang: str) -> TableEntry:
        """The listing's entry in ``lang``, made once per language while the listing stands (every snapshot
        reads it; a change of the table brings a new listing)."""
        rendered: dict[str, TableEntry] = listing.setdefault("rendered", {})
        entry = rendered.get(lang)
        if entry is None:
            # A listing comes over the bus (JSON): its entry is the language-neutral part of a TableEntry.
            entry = rendered[lang] = cast(TableEntry, {
                **listing["entry"], "title": listing["titles"].get(lang, listing["titles"]["en"]),
                "options_text": listing["texts"].get(lang, listing["texts"]["en"])})
        return entry

    async def on_lobby(self, message: Message) -> None:
        """A change from the bus (any node's): this node's copy follows at once (and the tables here hear of
        their people coming and going); the connections hear it with the next batch (:meth:`flush`). Lobby chat
        is a conversation: it goes out at once."""
        kind = message["kind"]
        pending = self.pending
        if kind == "presence":
            user, online = message["user"], bool(message["online"])
            pending.was_online.setdefault(user["id"], user["id"] in self.online)
            if online:
                self.set_online(user)
            else:
                self.set_offline(user["id"])
            pending.presence[user["id"]] = (user, online)
            for table in self.room.tables_with(user["id"]):
                await table.handle(presence_change(user, online))
        elif kind in ("listed", "unlisted"):
            if not self.take_listing(message):
                return
        elif kind == "several":  # a node's listing changes, written together (Cluster.list_table)
            changed = [self.take_listing(news) for news in message["news"]]  # each one, as if it came alone
            if not any(changed):
                return
        elif kind == "chat":
            self.seq += 1
            sender = message["from"]
            said: dict[str, ChatMessage] = {}  # language: the line, said and encoded once for all who read it
            frames = Frames()
            for conn in self.chat_readers.values():
                # Not before a login, nor to a reader who ignores the sender.
                if conn.user is not None and hears_lobby_chat(conn) \
                        and not self.room.moderator.hides(conn, {"type": "chat", "from": sender}):
                    line = said.get(conn.lang)
                    if line is None:
                        line = said[conn.lang] = {"type": "chat", "seq": self.seq, "from": sender,
                                                  "message": message["message"],
                                                  "text": translate("chat.lobby", conn.lang, name=sender["name"],
                                                                    message=message["message"])}
                    frames.send(conn, line)
            return
        await self.batch_soon()

    def take_listing(self, news: Message) -> bool:
        """A table listed, changed or unlisted (``news``): this node's copy follows; whether anything changed."""
        pending = self.pending
        if news["kind"] == "listed":
            table_id = news["entry"]["id"]
            pending.before.setdefault(table_id, self.listings.get(table_id))
            listing: Message = {k: news.get(k) for k in ("entry", "titles", "texts", "visible_to", "people")}
            self.listings[table_id] = pending.listings[table_id] = listing
            self.listed_people.set(table_id, listing.get("people") or ())
            self.keep_entry(table_id, listing)
            return True
        table_id = news["id"]
        if table_id not in self.listings:
            return False
        pending.before.setdefault(table_id, self.listings.pop(table_id))
        pending.listings[table_id] = None
        self.listed_people.drop(table_id)
        self.keep_entry(table_id, None)
        return True

    # Batches: the lobby's changes, gathered

    async def batch_soon(self) -> None:
        """Send the pending changes at once if the last batch went out ``lobby_batch_seconds`` ago (or batching
        is off), else when that time has passed: one task waits for it, however many changes come meanwhile."""
        wait = self.last_batch + self.room.settings.lobby_batch_seconds - self.clock()
        if self.room.settings.lobby_batch_seconds <= 0:
            self.flush()
        elif self.batcher is None or self.batcher.done():
            self.batcher = asyncio.get_running_loop().create_task(self.flush_after(max(0.0, wait)))

    async def flush_after(self, delay: float) -> None:
        await self.sleep(delay)
        try:
            self.flush()
        except Exception:  # a bug must not stop the lobby: the next change makes the next batch
            log.exception("could not send the lobby's changes")

    def flush(self) -> None:
        """Every following connection hears what changed since the last batch, once per table and person, as
        it is now: protocol 2 as one ``lobby_batch``, protocol 1 as ``table_listed``, ``table_unlisted`` and
        ``presence`` messages. A table listed and unlisted, or a person who came and went, between two batches
        is not heard of at all, except by a connection that got its snapshot in between (its snapshot may hold
        them): it hears every change as it is now."""
        pending, self.pending = self.pending, Pending()
        fresh, self.fresh = self.fresh, {}
        self.last_batch = self.clock()
        if pending.empty():
            return
        self.seq += 1
        seq = self.seq
        in_play, count_changed = len(self.in_play), len(self.in_play) != self.last_in_play
        self.last_in_play = in_play
        online, online_changed = len(self.online), len(self.online) != self.last_online
        self.last_online = online
        # The room became busy, or quiet again: an "auto" lobby's people are listed, or counted, from a new snapshot.
        listed_now = self.people_listed_now()
        turned, self.people_listed = listed_now != self.people_listed, listed_now
        changed = {uid for uid, (_, online) in pending.presence.items() if online != pending.was_online[uid]}
        rendered: dict[tuple[str, str], TableEntry] = {}  # (table, language): said once for everyone
        said: dict[str, list[PresenceChange]] = {}  # language: the people's comings and goings
        # What a follower hears depends on their language only, unless a private table changed, their snapshot
        # came since the last batch, or their own presence changed: such "plain" followers share one view per
        # language (at 3000 people, working it out for each of them was most of a batch's time).
        public = all(listing is None or listing["visible_to"] is None for listing in pending.listings.values()) and \
            all(before is None or before["visible_to"] is None for before in pending.before.values())
        # An open lobby's view depends on whether its user is at one of the changed tables.
        involved = {uid for listing in (*pending.listings.values(), *pending.before.values()) if listing is not None
                    for uid in listing.get("people") or ()}
        plain: dict[tuple[str, bool, bool], View] = {}
        frames = Frames()
        for conn in self.room.connections.values():
            if conn.user is None or not conn.follows_lobby:
                continue
            uid, lang, open_only, auto = conn.user["id"], conn.lang, conn.lobby_tables == "open", \
                conn.lobby_people == "auto"
            if auto and turned:
                self.send_snapshot(conn)
                continue
            people = not self.counts_people(conn)
            if lang not in said:
                said[lang] = [PresenceChange(user=cast(UserSummary, user), online=online,
                                             text=translate("lobby.arrives" if online else "lobby.leaves", lang,
                                                            name=user["name"]))
                              for user, online in pending.presence.values()]
            heard = said[lang] if people else []
            if public and conn.id not in fresh and uid not in pending.presence and not (open_only and uid in involved):
                view = plain.get((lang, open_only, people))
                if view is None:
                    view = plain[lang, open_only, people] = self.view_of(conn, pending, None, changed, rendered, heard)
            else:
                view = self.view_of(conn, pending, fresh.get(conn.id), changed, rendered, heard)
            listed, unlisted, presence, key = view
            # An open lobby hears the count of tables in play with every batch, and alone when it changed; an
            # "auto" lobby likewise the count of people online.
            counted = conn.protocol >= 2 and ((open_only and (count_changed or conn.id in fresh))
                                              or (auto and (online_changed or conn.id in fresh)))
            if not (listed or unlisted or presence or counted):
                continue
            # Connections that hear the same (the same language, tables and people) get the same frame, encoded
            # once (the entries are known by table, said once per language; the changes by person).
            if conn.protocol >= 2:
                batch = LobbyBatch(type="lobby_batch", seq=seq, listed=listed, unlisted=unlisted, presence=presence)
                if open_only:
                    batch["in_play"] = in_play
                if auto:
                    batch["online"] = online
                frames.send(conn, batch, (*key, open_only, auto))
                continue
            for change in presence:
                frames.send(conn, Presence(type="presence", seq=seq, **change),
                            ("presence", lang, change["user"]["id"]))
            for entry in listed:
                frames.send(conn, TableListed(type="table_listed", seq=seq, entry=entry), ("listed", lang, entry["id"]))
            for table_id in unlisted:
                frames.send(conn, TableUnlisted(type="table_unlisted", seq=seq, id=table_id), ("unlisted", table_id))

    def view_of(self, conn: Connection, pending: Pending, in_snapshot: frozenset[str] | None, changed: set[str],
                rendered: dict[tuple[str, str], TableEntry], said: list[PresenceChange]) -> View:
        """What ``conn`` hears of a batch: the tables listed (entries in its language) and unlisted, the people's
        comings and goings, and the key of the frame it shares with everyone who hears the same."""
        assert conn.user is not None
        uid, lang, snapshot_since = conn.user["id"], conn.lang, in_snapshot is not None
        open_only = conn.lobby_tables == "open"
        listed: list[TableEntry] = []
        unlisted: list[str] = []
        for table_id, listing in pending.listings.items():
            before = pending.before.get(table_id)
            if listing is not None and shown(listing, uid, open_only):
                if (table_id, lang) not in rendered:
                    rendered[table_id, lang] = self.render_listing(listing, lang)
                listed.append(rendered[table_id, lang])
            elif snapshot_since or (before is not None and shown(before, uid, open_only)):
                unlisted.append(table_id)
        # Nobody hears of someone arriving whom their snapshot already showed (or leaving whom it did not).
        presence = [change for change in said if change["user"]["id"] != uid and (
            (change["user"]["id"] in in_snapshot) != change["online"] if in_snapshot is not None
            else change["user"]["id"] in changed)]
        key = (lang, tuple(e["id"] for e in listed), tuple(unlisted), tuple(c["user"]["id"] for c in presence))
        return listed, unlisted, presence, key

    # Finding people

    def find_online(self, ref: str) -> Message:
        """Someone online (any node) by id or name, with their language when they are connected here."""
        user = self.online.get(ref)
        if user is None:
            user = next((u for u in self.online.values() if u["name"].lower() == ref.lower()), None)
        if user is None:
            raise ProtocolError("unknown_user", name=ref[:40])
        found = dict(user)
        conns = self.room.by_user.get(found["id"])
        if conns:
            found["lang"] = next(iter(conns)).lang
        return found

    def find_online_summary(self, ref: str) -> Message | None:
        with contextlib.suppress(ProtocolError):
            found = self.find_online(ref)
            found.pop("lang", None)
            return found
        return None
