"""Table ownership across nodes: which node holds each table, and how a table changes hands.

A connection's message about a table is published as an intent on ``table:<id>`` (:meth:`Ownership.deliver`);
the table's owner (this node or another) answers through ``user:<id>``. With several nodes (``Settings.redis``;
docs/deployment.md) each table has one owner at a time, by a lease in the database renewed by the heartbeat and by
a thread that a busy loop does not hold up (``LeaseKeeper``). A node takes over the unfinished tables whose lease
ran out (their owner died) or that were handed over (their owner stopped: :meth:`Ownership.drain`), rebuilding
each from its action log; an intent for a table nobody owns at that moment waits for a new owner, or makes this
node the owner. Creating a table makes this node its first owner.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import math
import time
from collections import Counter
from typing import TYPE_CHECKING

from trickroom.games import OptionError, load_game
from trickroom.narration import refusal, translate
from trickroom.server import metrics
from trickroom.server.accounts import hash_password
from trickroom.server.cluster import addresses_of
from trickroom.server.connection import CLOSE_RESTART, Connection
from trickroom.server.dispatch import USER, Requests
from trickroom.server.errors import error_message
from trickroom.server.lease_keeper import LeaseKeeper
from trickroom.server.messages import Reconnect
from trickroom.server.people_index import PeopleIndex
from trickroom.server.protocol import (
    MODERATION_MODELS,
    Ban,
    Chat,
    Create,
    Invite,
    Message,
    ProtocolError,
    Resume,
    TableMessage,
    number_in,
)
from trickroom.server.rows import TableRow, utcnow
from trickroom.server.table import Table
from trickroom.server.table_parts import (
    CLOSED,
    FINISHED,
    PAUSED,
    PLAYING,
    WAITING,
    Entry,
    Member,
    Restored,
    TableSettings,
)
from trickroom.server.table_requests import REQUESTS as TABLE_REQUESTS

if TYPE_CHECKING:
    from trickroom.server.room import Room

log = logging.getLogger("trickroom.room")
PRESENCE_RECONCILE_SECONDS = 15.0  # several nodes: at most this long between two readings of everyone online,
# and between two writings anew of this node's list of its users


def taken_by_others(owned: dict[int, Table], kept: set[int], here: dict[str, Table]) -> list[Table]:
    """The tables of ``owned`` (number -> table, as the renewal began) that another node took: their leases were
    not renewed (``kept``: the numbers still ours in the database), and this node still holds them (``here``). A
    table that closed or was handed over while the renewal waited for the database gave itself up; counting it as
    taken would have logged owner changes that never happened."""
    return [table for number, table in owned.items() if number not in kept and here.get(table.id) is table]


class Ownership:
    def __init__(self, room: Room) -> None:
        self.room = room
        self.settings = room.settings
        self.tables: dict[str, Table] = {}
        self.people = PeopleIndex()  # who sits or watches at which of this node's tables
        self.draining = False
        self.node_urls: list[str] = [room.settings.websocket_url]
        self.heartbeat_task: asyncio.Task[None] | None = None
        self.lease_keeper: LeaseKeeper | None = None
        self.takeover_lock = asyncio.Lock()
        self.live_node_ids: set[str] = set()  # the live nodes at the last reconciling of who is online
        self.reconciled_at = -math.inf  # when (self.clock)
        self.users_written_at = -math.inf  # when this node's list of its users was last written anew (self.clock)
        self.clock = time.monotonic

    # Start and stop

    async def start(self) -> None:
        room = self.room
        if room.cluster is None:
            await self.restore()
            return
        await room.bus.subscribe("cluster", self.on_cluster)
        await self.heartbeat()
        await self.record_unrecorded()
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
        if self.room.cluster is not None:
            await self.room.cluster.close()

    async def restore(self) -> None:
        """One node alone: rebuild every unfinished table from its row and action log."""
        store = self.room.store
        for row in await store.unfinished_tables():
            if row.status == CLOSED:
                continue
            await store.claim_table(row.id, self.settings.node_id, self.settings.lease_seconds, force=True)
            await self.take_over(row)
        await self.record_unrecorded()
        self.count_tables()

    async def record_unrecorded(self) -> None:
        """Record the results of the finished tables that have none: their owner died after writing the match's
        end and before recording them (the store records them once, whichever node comes first)."""
        for row in await self.room.store.unrecorded_tables():
            try:
                table, _ = await self.rebuilt(row)
                await self.room.record_results(table.state)
            except Exception:  # the next start tries again
                log.exception("could not record the results of table t%s", row.id, extra={"table": f"t{row.id}"})

    # Several nodes: leases, heartbeat, take-over and hand-over

    async def heartbeat_loop(self) -> None:
        """Every third of a lease: show the lease keeper that this loop runs, and beat unless the last beat is
        still under way. A beat waits for the database and Redis, for seconds on a loaded machine (taking tables
        over, a pool with no free connection): had the keeper heard from the loop only after each beat, it would
        have taken such a wait for a hung loop and let every lease run out at once (hundreds of tables moved
        between three loaded nodes in a minute). A loop that does not run at all still falls silent."""
        interval = self.settings.lease_seconds / 3
        beat: asyncio.Task[None] | None = None
        try:
            while True:
                await asyncio.sleep(interval)
                if self.lease_keeper is not None:
                    self.lease_keeper.alive({t.number for t in self.tables.values()})
                if beat is None or beat.done():
                    beat = asyncio.get_running_loop().create_task(self.beat(), name="heartbeat")
        finally:
            if beat is not None:
                beat.cancel()

    async def beat(self) -> None:
        try:
            await self.heartbeat()
        except Exception:  # the database or Redis hiccuped: try again at the next beat
            log.exception("heartbeat failed")

    async def heartbeat(self) -> None:
        """Renew this node's presence and leases, drop tables another node took, adopt orphaned tables and
        bring the lobby's list of people up to date."""
        room = self.room
        assert room.cluster is not None
        now = self.clock()
        rewrite = now - self.users_written_at >= PRESENCE_RECONCILE_SECONDS
        if rewrite:
            self.users_written_at = now
        await room.cluster.heartbeat(room.users_here, draining=self.draining, rewrite=rewrite)
        if self.draining:
            return
        owned = {t.number: t for t in self.tables.values()}
        keeper = self.lease_keeper
        if keeper is not None and keeper.renewing():  # the keeper renews: only what it could not renew is checked
            owned = {number: owned[number] for number in keeper.unrenewed() if number in owned}
        kept = await room.store.renew_leases(self.settings.node_id, sorted(owned), self.settings.lease_seconds)
        for table in taken_by_others(owned, kept, self.tables):
            log.warning("table %s was taken over by another node", table.id, extra={"table": table.id})
            await self.drop_table(table, release=False)
        await self.adopt_orphans()
        nodes = await room.cluster.live_nodes()
        self.node_urls = addresses_of(nodes) or [self.settings.websocket_url]
        # Who is online comes as the lobby's presence messages; reading everyone online from Redis (every node's
        # list of its users) is the safety net: when a node came or went (a dead node's users leave with it), and
        # every PRESENCE_RECONCILE_SECONDS for a message lost. At every beat it read every person online, each
        # second on each node (docs/performance.md, "Three nodes' CPU per action").
        if set(nodes) != self.live_node_ids or now - self.reconciled_at >= PRESENCE_RECONCILE_SECONDS:
            self.live_node_ids, self.reconciled_at = set(nodes), now
            await room.lobby.reconcile_presence()

    async def adopt_orphans(self) -> None:
        for number in await self.room.store.orphan_tables():
            if self.draining:
                return
            await self.claim_and_take_over(number)

    async def claim_and_take_over(self, number: int) -> bool:
        store = self.room.store
        async with self.takeover_lock:
            if f"t{number}" in self.tables:
                return True
            before = await store.table(number)
            if not await store.claim_table(number, self.settings.node_id, self.settings.lease_seconds):
                return False
            row = await store.table(number)
            if row is None:
                return False
            # A table handed over (released: no owner) was fully announced by its owner; a lease that ran out
            # means the owner died, perhaps between writing an action and announcing it.
            owner_died = before is not None and before.owner_node is not None
            await self.take_over(row, owner_died=owner_died)
            if owner_died and before is not None and before.lease_until is not None:
                # A lease that ran out: was its owner dead (as it should be), or only late (docs/performance.md)?
                owner = before.owner_node
                live = self.room.cluster is not None and owner in await self.room.cluster.live_nodes()
                late = (utcnow() - before.lease_until).total_seconds()
                log.warning("took over table t%s from %s, whose lease ran out %.1f s before (%s)", number, owner,
                            late, "that node is alive" if live else "that node is gone", extra={"table": f"t{number}"})
            else:
                log.info("took over table t%s", number, extra={"table": f"t{number}"})
            return True

    async def on_cluster(self, message: Message) -> None:
        """Another node handed its tables over: take them now rather than at the next heartbeat."""
        if message.get("kind") == "released" and not self.draining:
            await self.adopt_orphans()

    async def stop_lease_keeper(self) -> None:
        if self.lease_keeper is not None:
            keeper, self.lease_keeper = self.lease_keeper, None
            await asyncio.to_thread(keeper.stop)

    async def drop_table(self, table: Table, release: bool) -> None:
        """Stop owning ``table``: its intents go to the next owner (``release``: hand it over at once)."""
        async with table.lock:
            table.dropped = True
            table.cancel_all()
            await self.room.bus.unsubscribe(f"table:{table.id}", table.handle)
            self.tables.pop(table.id, None)
            self.people.drop(table.id)
            if self.lease_keeper is not None:
                self.lease_keeper.lets_go(table.number)
            if self.room.cluster is not None:
                await self.room.cluster.flush()
            if release:
                await self.room.store.release_table(table.number, self.settings.node_id)

    async def drain(self) -> None:
        """A clean stop (SIGTERM) of one node among several: hand every table over, tell the clients to
        reconnect to another node, and close their connections. Nobody sees an error; users stay online."""
        room = self.room
        if room.cluster is None or self.draining:
            return
        self.draining = True
        if self.heartbeat_task is not None:
            self.heartbeat_task.cancel()
        await self.stop_lease_keeper()
        await room.cluster.heartbeat(room.users_here, draining=True)
        handed_over = list(self.tables.values())
        for table in handed_over:
            await self.drop_table(table, release=True)
        await room.bus.publish("cluster", {"kind": "released", "node": self.settings.node_id})
        others = await room.cluster.addresses(exclude=self.settings.node_id)
        for conn in list(room.connections.values()):
            conn.send(Reconnect(type="reconnect", nodes=others, text=translate("reconnect", conn.lang)))
            conn.close(CLOSE_RESTART, "server restarting")
        log.info("node stopping: %d tables handed over", len(handed_over))

    async def take_over(self, row: TableRow, owner_died: bool = False) -> None:
        """Rebuild a table from its row, action log and chat and own it here. ``owner_died``: its last owner may
        have written its last action without announcing it, so the online members hear that action's events
        again."""
        if f"t{row.id}" in self.tables:
            return
        table, last_action = await self.rebuilt(row)
        # People still online (connected to any node) keep following the table; the others have the grace
        # period to come back.
        online, langs = self.room.lobby.online, await self.room.user_langs()
        members = tuple(Member(online[uid], langs.get(uid, "en"))
                        for uid in self.room.lobby.people_at(table.id) if uid in online)
        # Under the table's lock from the moment it is ours: an intent that comes meanwhile (through the bus, or
        # at once from a connection here) is answered by the restored table, not by one without its members yet.
        async with table.lock:
            await self.adopt(table)
            await table.step(Restored(members, last_action if owner_died else ()))
        state = table.state
        if row.status == FINISHED and not row.results_recorded:  # its owner died before recording them
            try:
                await self.room.record_results(state)
            except Exception:  # the next start records them
                log.exception("could not record the results of table %s", table.id, extra={"table": table.id})
        log.info("restored table %s (%s, %s, %d actions; %d of its people online: %s)", table.id, state.game_name,
                 state.status, len(state.match.actions) if state.match else 0, len(members),
                 ", ".join(sorted(m.user["id"] for m in members)))

    async def rebuilt(self, row: TableRow) -> tuple[Table, tuple[Entry, ...]]:
        """The table of ``row`` with its match replayed from the action log and its journal (game events and
        chat, the last two hands) rebuilt, not owned by anyone; and the journal entries of its last action."""
        store = self.room.store
        replays = row.status in (PLAYING, PAUSED, FINISHED) and row.seed is not None
        logged = await store.actions(row.id) if replays else []
        return Table.from_row(self.room, row, logged, await store.chat(row.id))

    async def adopt(self, table: Table) -> None:
        self.tables[table.id] = table
        self.people.set(table.id, table.state.people_here())
        if self.lease_keeper is not None:
            self.lease_keeper.owns(table.number)
        await self.room.bus.subscribe(f"table:{table.id}", table.handle)

    async def close_table(self, table: Table) -> None:
        await self.room.bus.unsubscribe(f"table:{table.id}", table.handle)
        self.tables.pop(table.id, None)
        self.people.drop(table.id)
        if self.lease_keeper is not None:
            self.lease_keeper.lets_go(table.number)
        if self.room.cluster is not None:  # given up: no node takes a finished table over from a living owner
            await self.room.store.release_table(table.number, self.settings.node_id)
        await self.room.lobby.unlist(table.id)

    def count_tables(self) -> None:
        """The tables by status, for /metrics: counted when /metrics is read and at the start (at each listing
        change, it was 2% of the server's time with a thousand tables; at each table's coming and going, 1%)."""
        counts = Counter(table.status for table in self.tables.values())
        for status in (WAITING, PLAYING, PAUSED, FINISHED):
            metrics.TABLES.labels(status).set(counts[status])

    # Intents to a table's owner

    async def forward(self, intent: Message) -> None:
        """An intent that reached a table this node gave up: pass it on to the table's owner now."""
        msg = intent.get("msg")
        if intent.get("kind") != "intent" or not isinstance(msg, dict):
            return
        try:
            await self.deliver(str(msg["table"]), intent)
        except ProtocolError as err:
            user = intent["user"]
            error = error_message(err, str(intent.get("lang", "en")), msg.get("id"), table=str(msg["table"]))
            await self.room.bus.publish(f"user:{user['id']}", {"message": error, "conn": intent.get("conn")})

    async def deliver(self, table_id: str, intent: Message) -> None:
        """Publish ``intent`` to the table's owner. With several nodes, a table nobody owns at this moment
        (its owner died or is handing it over) is claimed by this node, or waited for up to
        ``failover_wait`` seconds while another node's lease runs out."""
        room = self.room
        deadline = time.monotonic() + self.settings.failover_wait
        while True:
            if await room.bus.publish(f"table:{table_id}", intent):
                return
            number = number_in(table_id, "t")
            if room.cluster is None or number is None:
                raise ProtocolError("no_table")
            row = await room.store.table(number)
            if row is None or row.status in (CLOSED, FINISHED):
                raise ProtocolError("no_table")
            if not self.draining and await self.claim_and_take_over(number):
                continue
            if time.monotonic() > deadline:
                raise ProtocolError("no_table")
            await asyncio.sleep(0.1)

    async def to_table(self, conn: Connection, msg: TableMessage | Chat, target: Message | None = None) -> None:
        """A client message for a table, to its owner as an intent. The client's address goes with it (set
        here, never taken from the client): a table limits password guesses per person and per address.
        ``target``: whom the room found for an invite or a ban."""
        data = msg.model_dump(mode="json", exclude_unset=True)  # as it came (the bus carries JSON)
        await self.deliver(str(data["table"]), intent(conn, data, target))

    # Creating a table

    async def create(self, conn: Connection, msg: Create) -> None:
        room, user = self.room, conn.me
        try:
            game = load_game(msg.game, **msg.options)
        except OptionError as exc:
            raise ProtocolError("bad_options", _text=refusal(exc, conn.lang)) from None
        if msg.seed is not None or msg.decks is not None:
            if not self.settings.allow_test_decks:
                raise ProtocolError("test_decks_off")
            try:  # a deal the game cannot make is refused now, not at the start
                game.new_match(seed=msg.seed or 0, decks=msg.decks)
            except Exception:
                raise ProtocolError("bad_options", "error.bad_decks") from None
        settings = TableSettings(
            name=msg.name or translate("table.default_name", conn.lang, name=user["name"]),
            private=msg.private, timer=msg.timer, bot_delay=msg.bot_delay, hints=msg.hints,
            password_hash=await asyncio.to_thread(hash_password, msg.password) if msg.password else None)
        row = TableRow(game=game.name, options=dict(game.options), settings=settings.to_json(),
                       seats=[None] * game.players, host=user, banned=[], invited=[], status=WAITING,
                       seed=msg.seed, decks=msg.decks, owner_node=self.settings.node_id,
                       lease_until=utcnow() + dt.timedelta(seconds=self.settings.lease_seconds))
        number = await room.store.create_table(row)
        table = Table.new(room, number, game, settings, user, msg.seed, msg.decks)
        await self.adopt(table)
        await table.handle(intent(conn, {"type": "watch", "table": table.id, "id": msg.id}))
        await table.publish_listing()
        log.info("table %s created", table.id, extra={"table": table.id, "user": user["id"]})


def intent(conn: Connection, data: Message, target: Message | None = None) -> Message:
    """A client message (``data``, as JSON) for a table's owner, from the user logged in on ``conn``."""
    found: Message = {"kind": "intent", "user": conn.me, "lang": conn.lang, "conn": conn.id, "msg": data,
                      "address": conn.address, "auto_pass": conn.preferences.get("auto_pass", True)}
    if target is not None:
        found["target"] = target
    return found


# The room's requests about tables: creating one, and every message a table answers (table_requests.REQUESTS)
# but chat, which the lobby takes (a chat with a table goes to it from there).


async def on_create(room: Room, conn: Connection, msg: Create) -> None:
    await room.ownership.create(conn, msg)


async def on_table_message(room: Room, conn: Connection, msg: TableMessage) -> None:
    await room.ownership.to_table(conn, msg)


async def on_resume(room: Room, conn: Connection, msg: Resume) -> None:
    try:
        await room.ownership.to_table(conn, msg)
    except ProtocolError as err:
        if err.code != "no_table":
            raise
        await room.replays.resume_finished(conn, msg)  # no node holds it: it may have finished meanwhile


async def on_invite(room: Room, conn: Connection, msg: Invite) -> None:
    await room.ownership.to_table(conn, msg, room.lobby.find_online(msg.user))  # the invitee may be anywhere


async def on_ban(room: Room, conn: Connection, msg: Ban) -> None:
    # The table knows the people at it; someone elsewhere is found here, online or as an account.
    await room.ownership.to_table(conn, msg, await room.find_user(msg.user))


REQUESTS: Requests = {Create: (USER, on_create), Resume: (USER, on_resume), Invite: (USER, on_invite),
                      Ban: (USER, on_ban)}
REQUESTS.update({kind: (USER, on_table_message) for kind in TABLE_REQUESTS
                 if kind not in REQUESTS and issubclass(kind, TableMessage) and kind not in MODERATION_MODELS})
