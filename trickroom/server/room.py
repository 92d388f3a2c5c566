"""The node: its connections, the tables it owns, and its copy of the lobby (kept from the bus).

A connection's message is handled here when it concerns the user or the lobby, and published as an intent on
``table:<id>`` when it concerns a table; the table's owner (this node or another) answers through
``user:<id>``. The lobby is rebuilt on every node from ``lobby`` bus messages, so another node's presence,
tables and chat appear here the same way as this node's own.

With several nodes (``Settings.redis``; docs/deployment.md) each table has one owner at a time, by a lease in
the database renewed by the heartbeat and by a thread that a busy loop does not hold up (``LeaseKeeper``). A
node takes over the unfinished tables whose lease ran out (their owner died) or that were handed over (their
owner stopped), rebuilding each from its action log; an intent for a table nobody owns at that moment waits for
a new owner, or makes this node the owner.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import itertools
import logging
import time
from collections.abc import Coroutine
from dataclasses import dataclass, field
from typing import Any

from trickroom.bots import LEVELS, make_bot
from trickroom.games import GAMES, OptionError, game_class, load_game
from trickroom.narration import refusal, said_in, translate
from trickroom.server import metrics
from trickroom.server.accounts import (
    DEFAULT_PREFERENCES,
    AttemptLimiter,
    check_password,
    hash_password,
    new_guest_id,
    new_token,
    valid_name,
    valid_password,
)
from trickroom.server.bots import BotRunner
from trickroom.server.bus import Bus, Handler
from trickroom.server.cluster import Cluster
from trickroom.server.lease_keeper import LeaseKeeper
from trickroom.server.protocol import (
    PROTOCOL_VERSION,
    TABLE_TYPES,
    ClientMessage,
    Message,
    ProtocolError,
    user_summary,
)
from trickroom.server.settings import Settings
from trickroom.server.store import SessionRow, StaleOwner, Store, TableRow, utcnow
from trickroom.server.table import (
    CLOSED,
    FINISHED,
    PAUSED,
    PLAYING,
    WAITING,
    Entry,
    Member,
    Seat,
    Table,
    TableSettings,
)

log = logging.getLogger("trickroom.room")
SERVER_NAME = "trickroom 0.1.0"
OUTBOX_LIMIT = 5000  # unread messages after which a connection is closed
SEQ_GAP = 1000  # a rebuilt table numbers on from its last kept entry + this: past any table event


def number_in(ref: str, prefix: str) -> int | None:
    """The number of an id such as ``u12`` or ``t5`` (``prefix`` "u" or "t"); None if ``ref`` is not one, or is
    too long to be a database key."""
    digits = ref[len(prefix):] if ref.startswith(prefix) else ""
    return int(digits) if digits.isascii() and digits.isdigit() and len(digits) <= 18 else None


@dataclass(eq=False)
class Connection:
    """One websocket, as the room sees it: an outbound queue and who is logged in on it."""

    id: str
    queue: asyncio.Queue[Message | None] = field(default_factory=asyncio.Queue)
    user: Message | None = None
    token: str | None = None
    preferences: dict[str, Any] = field(default_factory=lambda: dict(DEFAULT_PREFERENCES))

    @property
    def lang(self) -> str:
        return str(self.preferences.get("lang", "en"))

    overflowed: bool = False
    reconnect_elsewhere: bool = False  # the node is stopping: the writer closes the socket after the queue

    def send(self, message: Message) -> None:
        if self.overflowed:
            return
        if self.queue.qsize() >= OUTBOX_LIMIT:
            # A client that reads nothing must not make the server hold its messages forever: close it.
            self.overflowed = True
            self.queue.put_nowait(None)
            return
        self.queue.put_nowait(message)


class Room:
    def __init__(self, settings: Settings, store: Store, bus: Bus, cluster: Cluster | None = None) -> None:
        self.settings = settings
        self.store = store
        self.bus = bus
        self.cluster = cluster
        self.draining = False
        self.node_urls: list[str] = [settings.websocket_url]
        self.heartbeat_task: asyncio.Task[None] | None = None
        self.lease_keeper: LeaseKeeper | None = None
        self.takeover_lock = asyncio.Lock()
        self.background: set[asyncio.Task[None]] = set()
        self.loop: asyncio.AbstractEventLoop | None = None
        self.bots = BotRunner(settings.bot_workers, settings.bot_budget)
        self.tables: dict[str, Table] = {}
        self.connections: dict[str, Connection] = {}
        self.by_user: dict[str, set[Connection]] = {}
        self.online: dict[str, Message] = {}
        self.listings: dict[str, Message] = {}
        self.lobby_seq = 0
        self.login_limiter = AttemptLimiter(settings.login_attempts)
        self._conn_ids = itertools.count(1)
        self._user_handlers: dict[str, Handler] = {}

    # Start and stop

    async def start(self) -> None:
        await self.bus.subscribe("lobby", self.on_lobby)
        if self.cluster is None:
            await self.restore()
            return
        await self.bus.subscribe("cluster", self.on_cluster)
        self.listings = {k: v for k, v in (await self.cluster.listings()).items()}
        self.online = {uid: value["user"] for uid, value in (await self.cluster.online()).items()}
        await self.heartbeat()
        self.lease_keeper = LeaseKeeper(self.settings.db, self.settings.db_schema, self.settings.node_id,
                                        self.settings.lease_seconds)
        self.lease_keeper.alive({t.number for t in self.tables.values()})
        self.lease_keeper.start()
        self.heartbeat_task = asyncio.get_running_loop().create_task(self.heartbeat_loop())

    async def stop(self) -> None:
        if self.heartbeat_task is not None:
            self.heartbeat_task.cancel()
        await self.stop_lease_keeper()
        for table in self.tables.values():
            table.cancel_all()
        self.bots.close()

    async def restore(self) -> None:
        """One node alone: rebuild every unfinished table from its row and action log."""
        for row in await self.store.unfinished_tables():
            if row.status == CLOSED:
                continue
            await self.store.claim_table(row.id, self.settings.node_id, self.settings.lease_seconds, force=True)
            await self.take_over(row)
        self.count_tables()

    # Several nodes: leases, heartbeat, take-over and hand-over

    async def heartbeat_loop(self) -> None:
        interval = self.settings.lease_seconds / 3
        while True:
            await asyncio.sleep(interval)
            if self.lease_keeper is not None:
                self.lease_keeper.alive({t.number for t in self.tables.values()})
            try:
                await self.heartbeat()
            except asyncio.CancelledError:
                raise
            except Exception:  # the database or Redis hiccuped: try again at the next beat
                log.exception("heartbeat failed")

    async def heartbeat(self) -> None:
        """Renew this node's presence and leases, drop tables another node took, adopt orphaned tables and
        bring the lobby's list of people up to date."""
        assert self.cluster is not None
        users = {uid: {"user": next(iter(conns)).user, "lang": next(iter(conns)).lang}
                 for uid, conns in self.by_user.items() if conns}
        await self.cluster.heartbeat(users, draining=self.draining)
        if self.draining:
            return
        owned = {t.number: t for t in self.tables.values()}
        kept = await self.store.renew_leases(self.settings.node_id, sorted(owned), self.settings.lease_seconds)
        for number, table in owned.items():
            if number not in kept:
                log.warning("table %s was taken over by another node", table.id, extra={"table": table.id})
                await self.drop_table(table, release=False)
        await self.adopt_orphans()
        self.node_urls = await self.cluster.addresses() or [self.settings.websocket_url]
        await self.reconcile_presence()

    async def adopt_orphans(self) -> None:
        for number in await self.store.orphan_tables():
            if self.draining:
                return
            await self.claim_and_take_over(number)

    async def claim_and_take_over(self, number: int) -> bool:
        async with self.takeover_lock:
            if f"t{number}" in self.tables:
                return True
            before = await self.store.table(number)
            if not await self.store.claim_table(number, self.settings.node_id, self.settings.lease_seconds):
                return False
            row = await self.store.table(number)
            if row is None:
                return False
            # A table handed over (released: no owner) was fully announced by its owner; a lease that ran out
            # means the owner died, perhaps between writing an action and announcing it.
            await self.take_over(row, owner_died=before is not None and before.owner_node is not None)
            log.info("took over table t%s", number, extra={"table": f"t{number}"})
            return True

    async def on_cluster(self, message: Message) -> None:
        """Another node handed its tables over: take them now rather than at the next heartbeat."""
        if message.get("kind") == "released" and not self.draining:
            await self.adopt_orphans()

    async def reconcile_presence(self) -> None:
        """Who is online is the union of the live nodes' users: apply the difference with this node's copy
        (a dead node's users leave once its heartbeat entry runs out, unless they came back elsewhere)."""
        assert self.cluster is not None
        online = {uid: value["user"] for uid, value in (await self.cluster.online()).items()}
        for uid, user in online.items():
            if uid not in self.online:
                await self.on_lobby({"kind": "presence", "user": user, "online": True})
        for uid, user in list(self.online.items()):
            if uid not in online and uid not in self.by_user:
                await self.on_lobby({"kind": "presence", "user": user, "online": False})

    async def stop_lease_keeper(self) -> None:
        if self.lease_keeper is not None:
            keeper, self.lease_keeper = self.lease_keeper, None
            await asyncio.to_thread(keeper.stop)

    async def drop_table(self, table: Table, release: bool) -> None:
        """Stop owning ``table``: its intents go to the next owner (``release``: hand it over at once)."""
        async with table.lock:
            table.dropped = True
            table.cancel_all()
            await self.bus.unsubscribe(f"table:{table.id}", table.handle)
            self.tables.pop(table.id, None)
            if release:
                await self.store.release_table(table.number, self.settings.node_id)
        self.count_tables()

    async def drain(self) -> None:
        """A clean stop (SIGTERM) of one node among several: hand every table over, tell the clients to
        reconnect to another node, and close their connections. Nobody sees an error; users stay online."""
        if self.cluster is None or self.draining:
            return
        self.draining = True
        if self.heartbeat_task is not None:
            self.heartbeat_task.cancel()
        await self.stop_lease_keeper()
        await self.cluster.heartbeat({uid: {"user": next(iter(c)).user, "lang": next(iter(c)).lang}
                                      for uid, c in self.by_user.items() if c}, draining=True)
        for table in list(self.tables.values()):
            await self.drop_table(table, release=True)
        await self.bus.publish("cluster", {"kind": "released", "node": self.settings.node_id})
        others = await self.cluster.addresses(exclude=self.settings.node_id)
        for conn in list(self.connections.values()):
            conn.send({"type": "reconnect", "nodes": others, "text": translate("reconnect", conn.lang)})
            conn.reconnect_elsewhere = True
            conn.queue.put_nowait(None)
        log.info("node stopping: %d tables handed over", len(self.tables))

    async def take_over(self, row: TableRow, owner_died: bool = False) -> None:
        """Rebuild a table from its row, action log and chat and own it here. ``owner_died``: its last owner may
        have written its last action without announcing it, so the online members hear that action's events
        again."""
        if f"t{row.id}" in self.tables:
            return
        table = self.table_from_row(row)
        journal = [Entry(said.seq, "chat", {"from": said.sender, "message": said.message})
                   for said in await self.store.chat(row.id)]
        last_action_entries: list[Entry] = []
        if row.status in (PLAYING, PAUSED) and row.seed is not None:
            logged = await self.store.actions(row.id)
            match = table.game.new_match(seed=row.seed, decks=row.decks)
            seq = row.first_event_seq or 1
            journal.extend(Entry(seq + i, "event", event) for i, event in enumerate(match.events))
            for action in logged:
                new = match.apply(action.seat, action.action)
                last_action_entries = [Entry(action.event_seq + i, "event", e) for i, e in enumerate(new)]
                journal.extend(last_action_entries)
            table.match = match
            if not owner_died:
                last_action_entries = []
        # Chat and game events each come in seq order; together they interleave as they were said and played.
        table.journal = sorted(journal, key=lambda entry: entry.seq)
        next_seq = max((entry.seq + 1 for entry in table.journal), default=0)  # one past the last kept entry
        table.forget_old_hands()  # the replay rebuilt every hand; memory keeps the last two, as in play
        # Table events after the last kept entry were not kept: number past any of them.
        table.next_seq = next_seq + SEQ_GAP
        # People still online (connected to any node) keep following the table; the others have the grace
        # period to come back.
        listing = self.listings.get(table.id, {})
        langs = await self.user_langs()
        for uid in listing.get("people", []):
            user = self.online.get(uid)
            if user is not None:
                table.members[uid] = Member(user, langs.get(uid, "en"))
        for seat in table.seats:
            if seat.user is not None:
                seat.connected = seat.user["id"] in self.online and seat.user["id"] in table.members
        await self.adopt(table)
        for index, seat in enumerate(table.seats):
            if seat.user is not None and not seat.connected and table.status in (PLAYING, PAUSED):
                table.start_task(f"grace:{index}", table.grace(index))
        async with table.lock:
            if table.match is not None and table.match.is_over and table.status in (PLAYING, PAUSED):
                # The last logged action ended the match, and its owner died before writing the end: end it now.
                await table.announce_again(last_action_entries)
                await table.finish()
                last_action_entries = []
            table.schedule()
            if table.match is not None and table.status in (PLAYING, PAUSED) and table.members:
                # A dead owner may have written its last action and died before announcing it: its events go
                # out again (clients drop journal messages whose seq they already have), then the state.
                await table.announce_again(last_action_entries)
                await table.send_updates(set(table.match.to_act))  # the game goes on from here
        await self.publish_listing(table)
        log.info("restored table %s (%s, %s, %d actions)", table.id, table.game_name, table.status,
                 len(table.match.actions) if table.match else 0)
        self.count_tables()

    async def user_langs(self) -> dict[str, str]:
        langs = {uid: next(iter(conns)).lang for uid, conns in self.by_user.items() if conns}
        if self.cluster is not None:
            for uid, value in (await self.cluster.online()).items():
                langs.setdefault(uid, str(value.get("lang", "en")))
        return langs

    def table_from_row(self, row: TableRow) -> Table:
        s = row.settings
        settings = TableSettings(name=s["name"], private=bool(s.get("private")), password_hash=s.get("password_hash"),
                                 timer=int(s.get("timer", 0)), bot_delay=float(s.get("bot_delay", 0.0)))
        return Table(services=self, number=row.id, game_name=row.game, options=dict(row.options), settings=settings,
                     seats=[Seat.from_json(x) for x in row.seats], host=dict(row.host), banned=set(row.banned),
                     invited=set(row.invited), status=row.status, seed=row.seed, decks=row.decks,
                     standings=row.standings, pause_requested=bool(row.pause_requested))

    async def adopt(self, table: Table) -> None:
        self.tables[table.id] = table
        await self.bus.subscribe(f"table:{table.id}", table.handle)

    def count_tables(self) -> None:
        for status in (WAITING, PLAYING, PAUSED, FINISHED):
            metrics.TABLES.labels(status).set(sum(1 for t in self.tables.values() if t.status == status))

    # Services for tables

    def replacement_level(self) -> str:
        level = self.settings.replacement_bot
        return level if self.bot_level_available(level) else "random"

    def bot_level_available(self, level: str) -> bool:
        if level not in LEVELS:
            return False
        try:
            make_bot(level, seed=0)
        except (ImportError, AttributeError):
            return False
        return True

    def bot_levels(self) -> list[str]:
        return [level for level in LEVELS if self.bot_level_available(level)]

    async def publish_listing(self, table: Table) -> None:
        self.count_tables()
        if table.status == CLOSED or (table.status == FINISHED and not table.members):
            if self.cluster is not None:
                await self.cluster.drop_listing(table.id)
            await self.bus.publish("lobby", {"kind": "unlisted", "id": table.id})
        else:
            listing = table.listing()
            if self.cluster is not None:
                await self.cluster.set_listing(table.id, listing)
            await self.bus.publish("lobby", {"kind": "listed", **listing})

    async def close_table(self, table: Table) -> None:
        await self.bus.unsubscribe(f"table:{table.id}", table.handle)
        self.tables.pop(table.id, None)
        if self.cluster is not None:
            await self.cluster.drop_listing(table.id)
        await self.bus.publish("lobby", {"kind": "unlisted", "id": table.id})
        self.count_tables()

    def spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self.background.add(task)
        task.add_done_callback(self.background.discard)

    async def forward(self, intent: Message) -> None:
        """An intent that reached a table this node gave up: pass it on to the table's owner now."""
        msg = intent.get("msg")
        if intent.get("kind") != "intent" or not isinstance(msg, dict):
            return
        try:
            await self.deliver(str(msg["table"]), intent)
        except ProtocolError as err:
            user = intent["user"]
            error = protocol_error_message(err, str(intent.get("lang", "en")), msg.get("id"))
            await self.bus.publish(f"user:{user['id']}", {"message": {**error, "table": msg["table"]},
                                                           "conn": intent.get("conn")})

    async def deliver(self, table_id: str, intent: Message) -> None:
        """Publish ``intent`` to the table's owner. With several nodes, a table nobody owns at this moment
        (its owner died or is handing it over) is claimed by this node, or waited for up to
        ``failover_wait`` seconds while another node's lease runs out."""
        deadline = time.monotonic() + self.settings.failover_wait
        while True:
            if await self.bus.publish(f"table:{table_id}", intent):
                return
            number = number_in(table_id, "t")
            if self.cluster is None or number is None:
                raise ProtocolError("no_table")
            row = await self.store.table(number)
            if row is None or row.status in (CLOSED, FINISHED):
                raise ProtocolError("no_table")
            if not self.draining and await self.claim_and_take_over(number):
                continue
            if time.monotonic() > deadline:
                raise ProtocolError("no_table")
            await asyncio.sleep(0.1)

    async def record_results(self, table: Table) -> None:
        from trickroom.server.ratings import record_results

        await record_results(self.store, table)

    # Connections

    def open(self) -> Connection:
        conn = Connection(id=f"c{next(self._conn_ids)}")
        self.connections[conn.id] = conn
        metrics.CONNECTIONS.inc()
        conn.send({"type": "hello", "protocol": PROTOCOL_VERSION, "server": SERVER_NAME, "games": self.games(),
                   "bot_levels": self.bot_levels(), "node": self.settings.node_id, "nodes": list(self.node_urls),
                   "timer": {"min": self.settings.timer_minimum, "max": self.settings.timer_maximum},
                   "limits": {"max_message_bytes": self.settings.max_message_bytes,
                              "messages_per_second": self.settings.messages_per_second,
                              "chat_length": self.settings.chat_length}})
        return conn

    async def close(self, conn: Connection) -> None:
        self.connections.pop(conn.id, None)
        metrics.CONNECTIONS.dec()
        await self.detach_user(conn)

    def games(self) -> list[Message]:
        found = []
        for name in GAMES:
            try:
                cls = game_class(name)
            except ImportError:
                continue
            found.append({"name": name, "title": dict(cls.title), "min_players": cls.min_players,
                          "max_players": cls.max_players, "options": [o.to_json() for o in cls.OPTIONS]})
        return found

    async def attach_user(self, conn: Connection, user: Message, token: str, preferences: dict[str, Any],
                          re: Any = None) -> None:
        await self.detach_user(conn)
        conn.user, conn.token = user, token
        conn.preferences = {**DEFAULT_PREFERENCES, **preferences}
        uid = user["id"]
        first = uid not in self.by_user
        self.by_user.setdefault(uid, set()).add(conn)
        elsewhere = False
        if first:
            await self.bus.subscribe(f"user:{uid}", self.user_handler(uid))
            if self.cluster is not None:
                elsewhere = await self.cluster.online_elsewhere(uid)
                await self.cluster.add_user(user, conn.lang)
        welcome: Message = {"type": "welcome", "user": user, "token": token, "preferences": conn.preferences,
                            "tables": self.tables_of(uid), "text": translate("welcome", conn.lang, name=user["name"])}
        if re is not None:
            welcome["re"] = re
        conn.send(welcome)
        if first and not elsewhere:
            await self.bus.publish("lobby", {"kind": "presence", "user": user, "online": True})
        conn.send(self.lobby_message(conn))
        metrics.PLAYERS_ONLINE.set(len(self.by_user))

    async def detach_user(self, conn: Connection) -> None:
        user = conn.user
        if user is None:
            return
        conn.user = None
        uid = user["id"]
        conns = self.by_user.get(uid, set())
        conns.discard(conn)
        if not conns:
            self.by_user.pop(uid, None)
            handler = self._user_handlers.pop(uid, None)
            if handler is not None:
                await self.bus.unsubscribe(f"user:{uid}", handler)
            if self.cluster is not None:
                if self.draining:  # they are reconnecting to another node: they have not left the room
                    return
                await self.cluster.remove_user(uid)
                if await self.cluster.online_elsewhere(uid):
                    return
            await self.bus.publish("lobby", {"kind": "presence", "user": user, "online": False})
        metrics.PLAYERS_ONLINE.set(len(self.by_user))

    def user_handler(self, uid: str) -> Handler:
        async def deliver(payload: Message) -> None:
            target = payload.get("conn")
            say = payload.get("say")  # {"key", "params"}: the message's text, in each connection's language
            for conn in list(self.by_user.get(uid, ())):
                if target is None or conn.id == target:
                    message = payload["message"]
                    if say is not None:
                        message = {**message, "text": translate(say["key"], conn.lang, **said_in(say["params"],
                                                                                                 conn.lang))}
                    conn.send(message)

        self._user_handlers[uid] = deliver
        return deliver

    def tables_of(self, uid: str) -> list[str]:
        """The tables where ``uid`` holds a seat or watches: this node's own, and any node's (from the lobby
        listings, which name the people at each table)."""
        found = {t.id for t in self.tables.values()
                 if t.status != CLOSED and (uid in t.members or t.seat_of(uid) is not None)}
        found.update(table_id for table_id, listing in self.listings.items() if uid in listing.get("people", ()))
        return sorted(found, key=lambda t: int(t[1:]) if t[1:].isdigit() else 0)

    # The lobby, from the bus

    def lobby_message(self, conn: Connection) -> Message:
        self.lobby_seq += 1
        uid = conn.user["id"] if conn.user else ""
        entries = [self.render_listing(listing, conn.lang) for listing in self.listings.values()
                   if listing["visible_to"] is None or uid in listing["visible_to"]]
        return {"type": "lobby", "seq": self.lobby_seq, "users": sorted(self.online.values(), key=lambda u: u["name"]),
                "tables": entries}

    @staticmethod
    def render_listing(listing: Message, lang: str) -> Message:
        entry = dict(listing["entry"])
        entry["title"] = listing["titles"].get(lang, listing["titles"]["en"])
        entry["options_text"] = listing["texts"].get(lang, listing["texts"]["en"])
        return entry

    async def on_lobby(self, message: Message) -> None:
        kind = message["kind"]
        self.lobby_seq += 1
        seq = self.lobby_seq
        conns = [c for c in self.connections.values() if c.user is not None]
        if kind == "presence":
            user = message["user"]
            if message["online"]:
                self.online[user["id"]] = user
            else:
                self.online.pop(user["id"], None)
            for table in list(self.tables.values()):
                if user["id"] in table.members or table.seat_of(user["id"]) is not None:
                    await table.handle({"kind": "presence", "user": user, "online": message["online"]})
            key = "lobby.arrives" if message["online"] else "lobby.leaves"
            for conn in conns:
                if conn.user is not None and conn.user["id"] != user["id"]:
                    conn.send({"type": "presence", "seq": seq, "user": user, "online": message["online"],
                               "text": translate(key, conn.lang, name=user["name"])})
        elif kind == "listed":
            listing: Message = {k: message.get(k) for k in ("entry", "titles", "texts", "visible_to", "people")}
            table_id = message["entry"]["id"]
            was_visible = self.listings.get(table_id, {}).get("visible_to")
            self.listings[table_id] = listing
            for conn in conns:
                assert conn.user is not None
                visible = listing["visible_to"] is None or conn.user["id"] in listing["visible_to"]
                if visible:
                    conn.send({"type": "table_listed", "seq": seq, "entry": self.render_listing(listing, conn.lang)})
                elif was_visible is None or conn.user["id"] in (was_visible or ()):
                    conn.send({"type": "table_unlisted", "seq": seq, "id": table_id})
        elif kind == "unlisted":
            if self.listings.pop(message["id"], None) is not None:
                for conn in conns:
                    conn.send({"type": "table_unlisted", "seq": seq, "id": message["id"]})
        elif kind == "chat":
            sender = message["from"]
            for conn in conns:
                conn.send({"type": "chat", "seq": seq, "from": sender, "message": message["message"],
                           "text": translate("chat.lobby", conn.lang, name=sender["name"],
                                             message=message["message"])})

    # Client messages

    async def handle(self, conn: Connection, msg: ClientMessage) -> None:
        metrics.MESSAGES.inc()
        kind: str = getattr(msg, "type")  # noqa: B009 - every concrete message has a type literal
        if kind in ("login", "register"):
            await self.login(conn, msg)
            return
        if kind == "ping":
            conn.send({"type": "pong"})
            return
        if conn.user is None:
            raise ProtocolError("not_logged_in")
        user = conn.user
        data = msg.model_dump(exclude_unset=True)
        data["type"] = kind
        if kind == "logout":
            if conn.token:
                await self.store.drop_session(conn.token)
            await self.detach_user(conn)
            self.ack(conn, msg)
        elif kind == "preferences":
            await self.set_preferences(conn, data)
        elif kind == "lobby":
            conn.send(self.lobby_message(conn))
        elif kind == "chat":
            await self.chat(conn, user, data)
        elif kind == "private":
            await self.private(conn, user, data)
        elif kind == "create":
            await self.create(conn, user, data)
        elif kind == "stats":
            await self.send_stats(conn, data)
        elif kind == "history":
            await self.send_history(conn, user, data)
        elif kind in TABLE_TYPES:
            if kind == "invite":
                data["target"] = self.find_online(data["user"])
            elif kind == "ban":
                # The table knows the people at it; someone elsewhere is found here, online or as an account.
                target = await self.find_user(data["user"])
                if target is not None:
                    data["target"] = target
            await self.to_table(conn, user, data)

    def ack(self, conn: Connection, msg: ClientMessage) -> None:
        if msg.id is not None:
            conn.send({"type": "ok", "re": msg.id})

    async def to_table(self, conn: Connection, user: Message, data: Message) -> None:
        intent = {"kind": "intent", "user": user, "lang": conn.lang, "conn": conn.id, "msg": data}
        await self.deliver(str(data["table"]), intent)

    def find_online(self, ref: str) -> Message:
        user = self.online.get(ref)
        if user is None:
            user = next((u for u in self.online.values() if u["name"].lower() == ref.lower()), None)
        if user is None:
            raise ProtocolError("unknown_user", name=ref[:40])
        found = dict(user)
        conns = self.by_user.get(found["id"])
        if conns:
            found["lang"] = next(iter(conns)).lang
        return found

    async def find_user(self, ref: str) -> Message | None:
        """A user summary for an id or a name: someone online, else a registered account; None if nobody."""
        with contextlib.suppress(ProtocolError):
            found = self.find_online(ref)
            found.pop("lang", None)
            return found
        account_id = number_in(ref, "u")
        row = await self.store.user_by_id(account_id) if account_id is not None else None
        row = row or await self.store.user_by_name(ref)
        return user_summary(f"u{row.id}", row.name, False) if row is not None else None

    async def chat(self, conn: Connection, user: Message, data: Message) -> None:
        text = self.check_chat(data["message"])
        data["message"] = text
        if data.get("table"):
            await self.to_table(conn, user, data)
            return
        await self.bus.publish("lobby", {"kind": "chat", "from": user, "message": text})
        if data.get("id") is not None:
            conn.send({"type": "ok", "re": data["id"]})

    def check_chat(self, text: str) -> str:
        text = text.strip()
        if not text:
            raise ProtocolError("bad_message", field="message")
        if len(text) > self.settings.chat_length:
            raise ProtocolError("chat_too_long", limit=self.settings.chat_length)
        return text

    async def private(self, conn: Connection, user: Message, data: Message) -> None:
        text = self.check_chat(data["message"])
        target = self.find_online(data["to"])
        target.pop("lang", None)
        message = {"type": "private", "from": user, "to": target, "message": text}
        # The sentence is made where each copy is delivered, in the language of the connection that reads it
        # (the recipient may be connected to another node, whose preferences this one does not know).
        say = {"key": "lobby.private", "params": {"name": user["name"], "message": text}}
        for recipient in {user["id"], target["id"]}:
            await self.bus.publish(f"user:{recipient}", {"message": message, "conn": None, "say": say})
        if data.get("id") is not None:
            conn.send({"type": "ok", "re": data["id"]})

    async def set_preferences(self, conn: Connection, data: Message) -> None:
        assert conn.user is not None
        changes: dict[str, Any] = {k: data[k] for k in ("lang", "verbosity", "sounds") if k in data}
        prefs = {**conn.preferences, **changes}
        for other in self.by_user.get(conn.user["id"], {conn}):
            other.preferences = dict(prefs)
        if conn.user["guest"]:
            if conn.token:
                await self.store.set_session_preferences(conn.token, prefs)
        else:
            await self.store.set_user_preferences(int(conn.user["id"][1:]), prefs)
        for table_id in self.tables_of(conn.user["id"]):
            with contextlib.suppress(ProtocolError):
                await self.deliver(table_id, {"kind": "lang", "user": conn.user, "lang": prefs["lang"]})
        reply: Message = {"type": "preferences", "preferences": prefs}
        if data.get("id") is not None:
            reply["re"] = data["id"]
        conn.send(reply)

    # Logging in

    async def login(self, conn: Connection, msg: ClientMessage) -> None:
        data = msg.model_dump(exclude_unset=True)
        if data.get("lang") in ("en", "ru"):
            conn.preferences["lang"] = data["lang"]
        if data.get("protocol") not in (None, PROTOCOL_VERSION):
            raise ProtocolError("bad_protocol", version=PROTOCOL_VERSION)
        re = data.get("id")
        if data["type"] == "register":
            await self.register(conn, data, re)
        elif data.get("token"):
            await self.login_token(conn, data["token"], re)
        elif data.get("username") is not None:
            await self.login_account(conn, data["username"], data.get("password") or "", re)
        elif data.get("nickname") is not None:
            await self.login_guest(conn, data["nickname"].strip(), re)
        else:
            raise ProtocolError("bad_message", field="nickname")

    def name_online(self, name: str) -> bool:
        return any(u["name"].lower() == name.lower() for u in self.online.values())

    async def new_session(self, user: Message, preferences: dict[str, Any]) -> str:
        token = new_token()
        expires = utcnow() + dt.timedelta(days=self.settings.session_days)
        await self.store.add_session(SessionRow(token=token, user_id=user["id"], name=user["name"],
                                                guest=user["guest"], preferences=preferences, expires_at=expires))
        return token

    async def login_guest(self, conn: Connection, nickname: str, re: Any) -> None:
        if not valid_name(nickname):
            raise ProtocolError("bad_name")
        if self.name_online(nickname) or await self.store.user_by_name(nickname) is not None:
            raise ProtocolError("name_taken", name=nickname)
        user = user_summary(new_guest_id(), nickname, True)
        prefs = {**DEFAULT_PREFERENCES, "lang": conn.lang}
        await self.attach_user(conn, user, await self.new_session(user, prefs), prefs, re)

    async def login_account(self, conn: Connection, username: str, password: str, re: Any) -> None:
        if not self.login_limiter.allow(f"conn:{conn.id}", f"name:{username.lower()}"):
            raise ProtocolError("too_many_attempts")
        row = await self.store.user_by_name(username)
        if row is None or not await asyncio.to_thread(check_password, row.password_hash, password):
            raise ProtocolError("login_failed")
        user = user_summary(f"u{row.id}", row.name, False)
        prefs = {**DEFAULT_PREFERENCES, **(row.preferences or {})}
        await self.attach_user(conn, user, await self.new_session(user, prefs), prefs, re)

    async def login_token(self, conn: Connection, token: str, re: Any) -> None:
        if not self.login_limiter.allow(f"conn:{conn.id}"):
            raise ProtocolError("too_many_attempts")
        session = await self.store.session(token)
        if session is None:
            raise ProtocolError("bad_token")
        user = user_summary(session.user_id, session.name, session.guest)
        prefs = dict(session.preferences or {})
        if not session.guest:
            row = await self.store.user_by_id(int(session.user_id[1:]))
            if row is None:
                raise ProtocolError("bad_token")
            prefs = dict(row.preferences or {})
        await self.attach_user(conn, user, token, prefs, re)

    async def register(self, conn: Connection, data: Message, re: Any) -> None:
        username, password = data["username"].strip(), data["password"]
        if not self.login_limiter.allow(f"conn:{conn.id}"):
            raise ProtocolError("too_many_attempts")
        if not valid_name(username):
            raise ProtocolError("bad_name")
        if not valid_password(password):
            raise ProtocolError("bad_password")
        if await self.store.user_by_name(username) is not None or self.name_online(username):
            raise ProtocolError("name_taken", name=username)
        prefs = {**DEFAULT_PREFERENCES, "lang": conn.lang}
        password_hash = await asyncio.to_thread(hash_password, password)
        try:
            row = await self.store.create_user(username, password_hash, prefs)
        except Exception:
            raise ProtocolError("name_taken", name=username) from None
        user = user_summary(f"u{row.id}", row.name, False)
        await self.attach_user(conn, user, await self.new_session(user, prefs), prefs, re)

    # Statistics and finished games

    async def send_stats(self, conn: Connection, data: Message) -> None:
        """A player's games played and won and rating per game (accounts only: guests keep no statistics)."""
        assert conn.user is not None
        ref = str(data.get("user") or conn.user["id"])
        user = await self.find_user(ref)
        if user is None:
            raise ProtocolError("unknown_user", name=ref[:40])
        games: dict[str, Message] = {}
        if not user["guest"]:
            for stat in await self.store.user_stats(int(user["id"][1:])):
                games[stat.game] = {"played": stat.played, "won": stat.won,
                                    "rating": round(stat.mu - 3 * stat.sigma, 2),
                                    "mu": round(stat.mu, 3), "sigma": round(stat.sigma, 3)}
        reply: Message = {"type": "stats", "user": user, "games": games}
        if data.get("id") is not None:
            reply["re"] = data["id"]
        conn.send(reply)

    async def send_history(self, conn: Connection, user: Message, data: Message) -> None:
        """A finished table's options, seed, decks and action log (enough to replay it with ``Game.replay``) and its
        chat; ``event_seq`` and the chat's ``seq`` are table journal numbers, which put the two in order."""
        table_id = str(data["table"])
        number = number_in(table_id, "t")
        row = await self.store.table(number) if number is not None else None
        if row is None:
            raise ProtocolError("no_table")
        if row.status != FINISHED:
            raise ProtocolError("not_finished")
        seated = {seat["user"]["id"] for seat in row.seats if seat and seat.get("user")}
        allowed = seated | set(row.invited) | {row.host["id"]}
        if (row.settings.get("private") or row.settings.get("password_hash")) and user["id"] not in allowed:
            raise ProtocolError("private")
        logged = await self.store.actions(row.id)
        said = await self.store.chat(row.id)
        reply: Message = {
            "type": "history", "table": table_id, "game": row.game, "options": dict(row.options),
            "name": row.settings.get("name"), "seed": row.seed, "decks": row.decks,
            "seats": [{"seat": i, "user": (s or {}).get("user"), "bot": (s or {}).get("bot")}
                      for i, s in enumerate(row.seats)],
            "actions": [{"seq": a.seq, "seat": a.seat, "action": a.action, "actor": a.actor, "event_seq": a.event_seq}
                        for a in logged],
            "chat": [{"seq": c.seq, "from": c.sender, "message": c.message} for c in said],
            "standings": row.standings,
            "finished_at": row.finished_at.isoformat() + "Z" if row.finished_at else None,
        }
        if data.get("id") is not None:
            reply["re"] = data["id"]
        conn.send(reply)

    # Creating a table

    async def create(self, conn: Connection, user: Message, data: Message) -> None:
        try:
            game = load_game(str(data["game"]), **data.get("options", {}))
        except OptionError as exc:
            raise ProtocolError("bad_options", _text=refusal(exc, conn.lang)) from None
        timer = int(data.get("timer", 0))
        if timer and not self.settings.timer_minimum <= timer <= self.settings.timer_maximum:
            raise ProtocolError("bad_message", "error.timer", low=self.settings.timer_minimum,
                                high=self.settings.timer_maximum)
        delay = float(data.get("bot_delay", 0.0))
        if not 0 <= delay <= self.settings.bot_delay_maximum:
            raise ProtocolError("bad_message", "error.bot_delay", high=self.settings.bot_delay_maximum)
        seed, decks = data.get("seed"), data.get("decks")
        if seed is not None or decks is not None:
            if not self.settings.allow_test_decks:
                raise ProtocolError("test_decks_off")
            try:  # a deal the game cannot make is refused now, not at the start
                game.new_match(seed=seed or 0, decks=decks)
            except Exception:
                raise ProtocolError("bad_options", "error.bad_decks") from None
        password = data.get("password")
        settings = TableSettings(
            name=data.get("name") or translate("table.default_name", conn.lang, name=user["name"]),
            private=bool(data.get("private")), timer=timer, bot_delay=delay,
            password_hash=await asyncio.to_thread(hash_password, password) if password else None)
        row = TableRow(game=game.name, options=dict(game.options), settings=settings.to_json(),
                       seats=[None] * game.players, host=user, banned=[], invited=[], status=WAITING,
                       seed=seed, decks=decks, owner_node=self.settings.node_id,
                       lease_until=utcnow() + dt.timedelta(seconds=self.settings.lease_seconds))
        number = await self.store.create_table(row)
        table = Table(services=self, number=number, game_name=game.name, options=dict(game.options),
                      settings=settings, seats=[Seat() for _ in range(game.players)], host=user, seed=seed,
                      decks=decks)
        await self.adopt(table)
        await table.handle({"kind": "intent", "user": user, "lang": conn.lang, "conn": conn.id,
                            "msg": {"type": "watch", "table": table.id, "id": data.get("id")}})
        await table.publish_listing()
        log.info("table %s created", table.id, extra={"table": table.id, "user": user["id"]})


def protocol_error_message(err: ProtocolError, lang: str, re: Any = None) -> Message:
    text = err.params.pop("_text", None) or translate(err.key, lang, **err.params)
    message: Message = {"type": "error", "code": err.code, "text": text}
    if re is not None:
        message["re"] = re
    metrics.ERRORS.labels(err.code).inc()
    return message


__all__ = ["Connection", "Room", "StaleOwner", "protocol_error_message"]
