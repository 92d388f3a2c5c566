"""The node: its connections, the tables it owns, and its copy of the lobby (kept from the bus).

A connection's message is handled here when it concerns the user or the lobby, and published as an intent on
``table:<id>`` when it concerns a table; the table's owner (this node, until issue 9 adds others) answers
through ``user:<id>``. The lobby is rebuilt on every node from ``lobby`` bus messages, so another node's
presence, tables and chat appear here the same way as this node's own.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import itertools
import logging
from dataclasses import dataclass, field
from typing import Any

from trickroom.bots import LEVELS, make_bot
from trickroom.games import GAMES, OptionError, game_class, load_game
from trickroom.narration import translate
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
from trickroom.server.table import CLOSED, FINISHED, PAUSED, PLAYING, WAITING, Entry, Seat, Table, TableSettings

log = logging.getLogger("trickroom.room")
SERVER_NAME = "trickroom 0.1.0"
OUTBOX_LIMIT = 5000  # unread messages after which a connection is closed
LEASE_SECONDS = 3600.0  # a single node holds its tables; issue 9 shortens this and renews it


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
    def __init__(self, settings: Settings, store: Store, bus: Bus) -> None:
        self.settings = settings
        self.store = store
        self.bus = bus
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
        self.bus.subscribe("lobby", self.on_lobby)
        await self.restore()

    async def stop(self) -> None:
        for table in self.tables.values():
            table.cancel_all()
        self.bots.close()

    async def restore(self) -> None:
        """Rebuild every unfinished table from its row and action log."""
        for row in await self.store.unfinished_tables():
            if row.status == CLOSED:
                continue
            await self.store.claim_table(row.id, self.settings.node_id, LEASE_SECONDS)
            table = self.table_from_row(row)
            if row.status in (PLAYING, PAUSED) and row.seed is not None:
                logged = await self.store.actions(row.id)
                match = table.game.new_match(seed=row.seed, decks=row.decks)
                seq = row.first_event_seq or 1
                journal = [Entry(seq + i, "event", event) for i, event in enumerate(match.events)]
                next_seq = seq + len(journal)
                for action in logged:
                    before = len(match.events)
                    match.apply(action.seat, action.action)
                    new = match.events[before:]
                    journal.extend(Entry(action.event_seq + i, "event", e) for i, e in enumerate(new))
                    next_seq = max(next_seq, action.event_seq + len(new))
                table.match, table.journal, table.next_seq = match, journal, next_seq
            self.adopt(table)
            for index, seat in enumerate(table.seats):
                if seat.user is not None and table.status in (PLAYING, PAUSED):
                    table.start_task(f"grace:{index}", table.grace(index))
            table.schedule()
            await self.publish_listing(table)
            log.info("restored table %s (%s, %s, %d actions)", table.id, table.game_name, table.status,
                     len(table.match.actions) if table.match else 0)
        self.count_tables()

    def table_from_row(self, row: TableRow) -> Table:
        s = row.settings
        settings = TableSettings(name=s["name"], private=bool(s.get("private")), password_hash=s.get("password_hash"),
                                 timer=int(s.get("timer", 0)), bot_delay=float(s.get("bot_delay", 0.0)))
        return Table(services=self, number=row.id, game_name=row.game, options=dict(row.options), settings=settings,
                     seats=[Seat.from_json(x) for x in row.seats], host=dict(row.host), banned=set(row.banned),
                     invited=set(row.invited), status=row.status, seed=row.seed, decks=row.decks,
                     standings=row.standings)

    def adopt(self, table: Table) -> None:
        self.tables[table.id] = table
        self.bus.subscribe(f"table:{table.id}", table.handle)

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
            await self.bus.publish("lobby", {"kind": "unlisted", "id": table.id})
        else:
            await self.bus.publish("lobby", {"kind": "listed", **table.listing()})

    async def close_table(self, table: Table) -> None:
        self.bus.unsubscribe(f"table:{table.id}", table.handle)
        self.tables.pop(table.id, None)
        await self.bus.publish("lobby", {"kind": "unlisted", "id": table.id})
        self.count_tables()

    async def record_results(self, table: Table) -> None:
        from trickroom.server.ratings import record_results

        await record_results(self.store, table)

    # Connections

    def open(self) -> Connection:
        conn = Connection(id=f"c{next(self._conn_ids)}")
        self.connections[conn.id] = conn
        metrics.CONNECTIONS.inc()
        conn.send({"type": "hello", "protocol": PROTOCOL_VERSION, "server": SERVER_NAME, "games": self.games(),
                   "bot_levels": self.bot_levels(),
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
        if first:
            self.bus.subscribe(f"user:{uid}", self.user_handler(uid))
        welcome: Message = {"type": "welcome", "user": user, "token": token, "preferences": conn.preferences,
                            "tables": self.tables_of(uid), "text": translate("welcome", conn.lang, name=user["name"])}
        if re is not None:
            welcome["re"] = re
        conn.send(welcome)
        if first:
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
                self.bus.unsubscribe(f"user:{uid}", handler)
            await self.bus.publish("lobby", {"kind": "presence", "user": user, "online": False})
        metrics.PLAYERS_ONLINE.set(len(self.by_user))

    def user_handler(self, uid: str) -> Handler:
        async def deliver(payload: Message) -> None:
            target = payload.get("conn")
            for conn in list(self.by_user.get(uid, ())):
                if target is None or conn.id == target:
                    conn.send(payload["message"])

        self._user_handlers[uid] = deliver
        return deliver

    def tables_of(self, uid: str) -> list[str]:
        return [t.id for t in self.tables.values()
                if t.status != CLOSED and (uid in t.members or t.seat_of(uid) is not None)]

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
            listing = {k: message[k] for k in ("entry", "titles", "texts", "visible_to")}
            table_id = listing["entry"]["id"]
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
            await self.to_table(conn, user, data)

    def ack(self, conn: Connection, msg: ClientMessage) -> None:
        if msg.id is not None:
            conn.send({"type": "ok", "re": msg.id})

    async def to_table(self, conn: Connection, user: Message, data: Message) -> None:
        intent = {"kind": "intent", "user": user, "lang": conn.lang, "conn": conn.id, "msg": data}
        if await self.bus.publish(f"table:{data['table']}", intent) == 0:
            raise ProtocolError("no_table")

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
        for recipient in {user["id"], target["id"]}:
            lang = target.get("lang", conn.lang)
            message = {"type": "private", "from": user, "to": target, "message": text,
                       "text": translate("lobby.private", lang, name=user["name"], message=text)}
            await self.bus.publish(f"user:{recipient}", {"message": message, "conn": None})
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
            await self.bus.publish(f"table:{table_id}", {"kind": "lang", "user": conn.user, "lang": prefs["lang"]})
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
        ref = data.get("user") or conn.user["id"]
        user = self.online.get(ref) or next((u for u in self.online.values() if u["name"].lower() == ref.lower()),
                                            None)
        if user is None:
            row = await self.store.user_by_id(int(ref[1:])) if ref[:1] == "u" and ref[1:].isdigit() else None
            row = row or await self.store.user_by_name(ref)
            if row is None:
                raise ProtocolError("unknown_user", name=ref[:40])
            user = user_summary(f"u{row.id}", row.name, False)
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
        """A finished table's options, seed, decks and action log: enough to replay it with ``Game.replay``."""
        table_id = str(data["table"])
        row = await self.store.table(int(table_id[1:])) if table_id[1:].isdigit() else None
        if row is None:
            raise ProtocolError("no_table")
        if row.status != FINISHED:
            raise ProtocolError("not_finished")
        seated = {seat["user"]["id"] for seat in row.seats if seat and seat.get("user")}
        allowed = seated | set(row.invited) | {row.host["id"]}
        if (row.settings.get("private") or row.settings.get("password_hash")) and user["id"] not in allowed:
            raise ProtocolError("private")
        logged = await self.store.actions(row.id)
        reply: Message = {
            "type": "history", "table": table_id, "game": row.game, "options": dict(row.options),
            "name": row.settings.get("name"), "seed": row.seed, "decks": row.decks,
            "seats": [{"seat": i, "user": (s or {}).get("user"), "bot": (s or {}).get("bot")}
                      for i, s in enumerate(row.seats)],
            "actions": [{"seq": a.seq, "seat": a.seat, "action": a.action, "actor": a.actor} for a in logged],
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
            raise ProtocolError("bad_options", _text=str(exc)) from None
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
            except Exception as exc:
                raise ProtocolError("bad_options", _text=str(exc) or None) from None
        password = data.get("password")
        settings = TableSettings(
            name=data.get("name") or translate("table.default_name", conn.lang, name=user["name"]),
            private=bool(data.get("private")), timer=timer, bot_delay=delay,
            password_hash=await asyncio.to_thread(hash_password, password) if password else None)
        row = TableRow(game=game.name, options=dict(game.options), settings=settings.to_json(),
                       seats=[None] * game.players, host=user, banned=[], invited=[], status=WAITING,
                       seed=seed, decks=decks, owner_node=self.settings.node_id)
        number = await self.store.create_table(row)
        table = Table(services=self, number=number, game_name=game.name, options=dict(game.options),
                      settings=settings, seats=[Seat() for _ in range(game.players)], host=user, seed=seed,
                      decks=decks)
        self.adopt(table)
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
