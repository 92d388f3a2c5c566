"""The node: its connections, the services its tables use, and the dispatch of client messages.

Each concern has its own module, reached from here: accounts and sessions (:class:`~trickroom.server.sessions.
FrontDoor`, ``room.door``), the lobby (:class:`~trickroom.server.lobby.Lobby`, ``room.lobby``: presence, listings,
chat, private messages), table ownership across nodes (:class:`~trickroom.server.ownership.Ownership`,
``room.ownership``: leases, take-over, drain, intents to a table's owner, creating tables) and finished games
(:class:`~trickroom.server.replays.Replays`, ``room.replays``). A client message is answered by the function its
type has in :data:`REQUESTS`, which joins those modules' own tables (:mod:`trickroom.server.dispatch`).
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Coroutine
from functools import cached_property
from typing import Any

from trickroom.bots import LEVELS, acts_off_turn, make_bot
from trickroom.games import GAMES
from trickroom.narration.games import game_entry
from trickroom.server import lobby_requests, metrics, moderator_room, ownership, player_tools, replays, sessions
from trickroom.server.bots import BotRunner
from trickroom.server.bus import Bus
from trickroom.server.cluster import Cluster
from trickroom.server.collector import CollectionClock
from trickroom.server.connection import (
    CLOSE_ERROR,
    CLOSE_POLICY,
    CLOSE_RESTART,
    CLOSE_TOO_BIG,
    Connection,
    Socket,
    Wire,
)
from trickroom.server.dispatch import ANYONE, Requests, joined
from trickroom.server.errors import FailureLog, busy, error_message
from trickroom.server.frames import encode
from trickroom.server.limits import Counters, GuessLimiter, MemoryCounters, Policy, RedisCounters
from trickroom.server.lobby import Lobby
from trickroom.server.messages import Hello, Limits, TimerLimits
from trickroom.server.moderator_room import ModeratorDesk
from trickroom.server.ownership import Ownership
from trickroom.server.protocol import (
    PROTOCOL_VERSION,
    PROTOCOLS,
    ClientMessage,
    Message,
    ProtocolError,
    number_in,
    user_summary,
)
from trickroom.server.replays import Replays
from trickroom.server.rows import utcnow
from trickroom.server.sessions import FrontDoor
from trickroom.server.settings import Settings
from trickroom.server.store import StaleOwner, Store, store_busy
from trickroom.server.table import Table
from trickroom.server.table_parts import CLOSED, FINISHED, TableConfig
from trickroom.server.table_state import TableState
from trickroom.server.waiting_line import LineKeeper

log = logging.getLogger("trickroom.room")
SERVER_NAME = "trickroom 0.1.0"
FAILURES = FailureLog(log)  # a failure that repeats is logged once per interval, with a count

# Every client message a node answers, by type: who may send it and its function. A module with messages of its
# own adds its dict here.
REQUESTS: Requests = joined(sessions.REQUESTS, lobby_requests.REQUESTS, ownership.REQUESTS, replays.REQUESTS,
                            player_tools.REQUESTS, moderator_room.REQUESTS)


class Room:
    def __init__(self, settings: Settings, store: Store, bus: Bus, cluster: Cluster | None = None) -> None:
        self.settings = settings
        self.store = store
        self.bus = bus
        self.cluster = cluster
        self.background: set[asyncio.Task[None]] = set()
        self.loop: asyncio.AbstractEventLoop | None = None
        self.bots = BotRunner(settings.bot_workers, settings.bot_budget, settings.search_queue)
        self.connections: dict[str, Connection] = {}
        self.by_user: dict[str, set[Connection]] = {}
        window = settings.login_window_minutes * 60
        counters: Counters = (RedisCounters(cluster.redis, settings.redis_prefix, window, cluster.publisher)
                              if cluster is not None else MemoryCounters(window, settings.limiter_max_keys))
        self.door = FrontDoor(self, counters)  # logins, sessions, preferences
        self.line = LineKeeper(settings.line_lag_ms, settings.line_rate, self.answer, self.spawn,
                               in_flight=settings.line_in_flight)  # newcomers wait while the node is behind
        self.lobby = Lobby(self)  # presence, listings, chat
        self.ownership = Ownership(self)  # the tables this node owns, and their changing hands
        self.tables: dict[str, Table] = self.ownership.tables
        self.replays = Replays(self)  # finished games: statistics, history, lists, replays, transcripts, reviews
        self.moderator = ModeratorDesk(self)  # moderation (moderator_room.py), used by players' tools too
        self.password_guesses = GuessLimiter("table", counters, Policy(
            free=settings.table_password_free, base=settings.login_backoff_seconds, cap=settings.login_backoff_max,
            target_alarm=settings.table_password_alarm))
        self._conn_ids = itertools.count(1)
        self._hello: tuple[list[str], str] | None = None  # (the nodes it named, its frame): hello_frame
        self.collections: CollectionClock | None = None  # ``trickroom serve`` runs the cycle collector on a clock

    # Start and stop

    async def start(self) -> None:
        await self.lobby.start()
        await self.moderator.start()
        self.door.start()
        self.line.start()
        await self.ownership.start()
        if self.collections is not None:
            self.collections.start()

    async def stop(self) -> None:
        if self.collections is not None:
            self.collections.stop()
        await self.line.stop()
        await self.door.stop()
        await self.ownership.stop()
        self.lobby.stop()
        self.replays.stop()
        self.bots.close()

    async def drain(self) -> None:
        await self.ownership.drain()

    @property
    def draining(self) -> bool:
        return self.ownership.draining

    @property
    def node_urls(self) -> list[str]:
        return self.ownership.node_urls

    # Client messages

    async def handle(self, conn: Connection, msg: ClientMessage) -> None:
        metrics.MESSAGES.inc()
        who, handler = REQUESTS[type(msg)]
        if who != ANYONE and conn.user is None:
            raise ProtocolError("not_logged_in")
        await handler(self, conn, msg)

    async def answer(self, conn: Connection, msg: ClientMessage, re: Any = None) -> None:
        """:meth:`handle`, every failure answered on the connection: a refusal as its error, a busy database as
        ``busy`` (retryable), anything else logged and answered ``internal``. ``re``: the message's id, if it had
        a usable one."""
        try:
            await self.handle(conn, msg)
        except ProtocolError as err:
            conn.send(error_message(err, conn.lang, re))
        except Exception as exc:
            if store_busy(exc):  # a pool timeout or a locked file: retryable, and not a bug
                FAILURES.failed("a client message failed", exc, is_busy=True)
                conn.send(error_message(busy(), conn.lang, re))
                return
            FAILURES.failed("internal error on a client message", exc)
            conn.send(error_message(ProtocolError("internal"), conn.lang, re))

    # Connections

    def open(self, address: str = "unknown", wire: Wire | None = None, socket: Socket | None = None) -> Connection:
        """A new connection, greeted with the hello (written straight to ``wire`` when it can be, else sent by the
        writer to ``socket``)."""
        # Connection ids name the node too: a reply addressed to one connection must not reach another node's.
        conn = Connection(id=f"{self.settings.node_id}/c{next(self._conn_ids)}", address=address, wire=wire,
                          socket=socket)
        self.connections[conn.id] = conn
        self.lobby.reads_chat(conn)
        metrics.CONNECTIONS.inc()
        conn.send_frame(self.hello_frame())
        return conn

    def hello_frame(self) -> str:
        """The hello, the same for every connection while the room's nodes stay the same, encoded once: it lists
        every game's options in every language, and made again for each of 3000 people signing in it was a tenth
        of the server's time."""
        nodes = list(self.node_urls)
        if self._hello is None or self._hello[0] != nodes:
            s = self.settings
            hello = Hello(type="hello", protocol=PROTOCOL_VERSION, protocols=list(PROTOCOLS), server=SERVER_NAME,
                          games=self.games(), bot_levels=self.bot_levels(), node=s.node_id, nodes=nodes,
                          timer=TimerLimits(min=s.timer_minimum, max=s.timer_maximum),
                          limits=Limits(max_message_bytes=s.max_message_bytes, max_frame_bytes=s.max_frame_bytes,
                                        messages_per_second=s.messages_per_second, chat_length=s.chat_length))
            self._hello = (nodes, encode(hello))
        return self._hello[1]

    async def close(self, conn: Connection) -> None:
        self.connections.pop(conn.id, None)
        self.lobby.chat_readers.pop(conn.id, None)
        self.line.leave(conn)
        metrics.CONNECTIONS.dec()
        await self.door.detach_user(conn)

    def games(self) -> list[Message]:
        found = []
        for name in GAMES:
            try:
                found.append(game_entry(name))
            except ImportError:
                continue
        return found

    def users_here(self) -> dict[str, Message]:
        """The users connected to this node, with the language of one of their connections (for the cluster)."""
        return {uid: {"user": next(iter(conns)).user, "lang": next(iter(conns)).lang}
                for uid, conns in self.by_user.items() if conns}

    async def user_langs(self) -> dict[str, str]:
        langs = {uid: next(iter(conns)).lang for uid, conns in self.by_user.items() if conns}
        if self.cluster is not None:
            for uid, value in (await self.cluster.online()).items():
                langs.setdefault(uid, str(value.get("lang", "en")))
        return langs

    def tables_of(self, uid: str) -> list[str]:
        """The tables where ``uid`` holds a seat or watches: this node's own, and any node's (from the lobby
        listings, which name the people at each table)."""
        found = {t.id for t in self.tables_with(uid) if t.status != CLOSED and (
            uid in t.members or (t.seat_of(uid) is not None and t.status != FINISHED))}
        found.update(self.lobby.listed_people.tables_of(uid))
        return sorted(found)  # table ids are random: this order means nothing, it is only stable

    def tables_with(self, uid: str) -> list[Table]:
        """This node's tables where ``uid`` sits or watches."""
        return [self.tables[t] for t in self.ownership.people.tables_of(uid) if t in self.tables]

    def people_changed(self, table: Table) -> None:
        if table.id in self.tables:
            self.ownership.people.set(table.id, table.state.people_here())

    async def find_user(self, ref: str) -> Message | None:
        """A user summary for an id or a name: someone online, else a registered account; None if nobody."""
        found = self.lobby.find_online_summary(ref)
        if found is not None:
            return found
        account_id = number_in(ref, "u")
        row = await self.store.user_by_id(account_id) if account_id is not None else None
        row = row or await self.store.user_by_name(ref)
        return user_summary(f"u{row.id}", row.name, False) if row is not None else None

    # Services for tables (services.Services)

    @cached_property
    def table_config(self) -> TableConfig:
        """What every table of this node is told: the settings' limits, and the bot levels this node can run."""
        settings, levels = self.settings, frozenset(self.bot_levels())
        replacement = settings.replacement_bot if settings.replacement_bot in levels else "random"
        return TableConfig(grace_seconds=settings.grace_seconds, timer_minimum=settings.timer_minimum,
                           timer_maximum=settings.timer_maximum, timer_warning=settings.timer_warning,
                           bot_delay_maximum=settings.bot_delay_maximum, chat_length=settings.chat_length,
                           replacement_level=replacement,
                           bot_levels=levels, off_turn_levels=frozenset(filter(acts_off_turn, levels)),
                           node=settings.node_id, node_url=settings.websocket_url if self.cluster is not None else "")

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
        await self.lobby.publish_listing(table)

    async def close_table(self, table: Table) -> None:
        await self.ownership.close_table(table)

    async def forward(self, intent: Message) -> None:
        await self.ownership.forward(intent)

    async def give_up(self, table: Table) -> None:
        await self.ownership.drop_table(table, release=False)

    def spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self.background.add(task)
        task.add_done_callback(self.background.discard)

    async def record_results(self, table: TableState) -> None:
        """A finished table's players (their "my games" lists), statistics and ratings, in one write, once: a
        table whose results are already recorded (before a crash, or by another node) is left as it is."""
        from trickroom.server.ratings import results_of

        people = {s.user["id"]: seat for seat, s in enumerate(table.seats) if s.user is not None}
        results = await results_of(self.store, table)
        if await self.store.record_finished(table.number, people, utcnow(), table.game_name, results):
            self.moderator.table_finished(table.number)  # collusion flags (Bura, 3+ players, not private)


__all__ = ["CLOSE_ERROR", "CLOSE_POLICY", "CLOSE_RESTART", "CLOSE_TOO_BIG", "Connection", "Room", "StaleOwner"]
