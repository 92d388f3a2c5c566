"""One person of the evening scenario: a state machine driven by the room's messages and by timers.

A person signs in as a guest, looks at the lobby for a while, then joins a waiting table that has a free seat
(``watch``, then ``sit`` on a free seat) or creates one (Bura for 2 to 6, Mpourloto for 4; a quarter of the hosts
add bots). A host starts the table once every seat is filled, or fills the rest with bots and starts after
waiting 15 to 30 s. At the table the person thinks 1.5 to 8 s (``Plan.think``) before every decision, Bura's
announcement pause included (every seat answers it, as the room asks: ``pass``, or ``announce`` with a
combination), claims in Bura once their tricks hold 31 points, says something in the table chat now and then,
and leaves when the match ends, back to the lobby to sit elsewhere. A few drop their connection once during
play and come back (log in with the token, ``resume``). A few others only watch the lobby and chat. Told the node
of their table (``table_node``, with several nodes), a person moves there as our clients do (``go_to``).

Lobby messages are read loosely (``loadgen.lobby_messages``). Only the lobby watchers decode them; everyone else
counts them and moves on, which keeps the generator cheap (the server's cost of sending them is the same).
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from loadgen.lobby_messages import is_lobby_type, lobby_changes
from loadgen.wsconn import open_link
from trickroom.games import load_game

if TYPE_CHECKING:
    from loadgen.world import World
    from loadgen.wsconn import Link

Message = dict[str, Any]
Reply = Callable[[Message], None]

TYPE_AT_START = re.compile(rb'^\{\s*"type"\s*:\s*"([a-z_]+)"')
# The protocol people's clients speak (load.py's --protocol): 3 hears a table step's messages as one batch frame.
PROTOCOL = 3
# Which tables people's lobbies list (load.py's --lobby-tables): "open" (the waiting ones and their own, as the web
# and terminal clients ask since the seventh session) or "all".
LOBBY_TABLES = "open"
# Who they list (--lobby-people): "auto" (everyone while the room is small, their count in a busy room, as the web and
# terminal clients ask since the eighth session) or "all".
LOBBY_PEOPLE = "auto"
BURA = load_game("bura")  # its card points and the claim's target (the game's own rules, not a copy)
BURA_SIZES = (2, 2, 2, 2, 3, 3, 3, 4, 4, 5, 6)  # players at a Bura table a host creates
STALE = frozenset({"not_your_turn", "illegal", "finished", "moved_on"})  # refusals of an act the game overtook
NO_REPLY_SECONDS = 30.0
MOVED = "moved to their table's node"  # the count of people who followed a table_node

# States
OFFLINE, LOBBY, CHOOSING, SEATED, PLAYING, FINISHED = "offline", "lobby", "choosing", "seated", "playing", "finished"


class Person:
    def __init__(self, world: World, index: int, name: str, url: str, *, watcher: bool, drops: bool) -> None:
        self.world, self.index, self.name, self.url = world, index, name, url
        self.watcher = watcher  # only watches the lobby (and decodes it for everyone in this process)
        self.drops = drops  # will drop the connection once during play and come back
        self.rng = world.rng
        self.link: Link | None = None
        self.state = OFFLINE
        self.uid = ""
        self.token: str | None = None
        self.resuming = False
        self.moving = False  # moving to our table's node (not a drop: not counted as a reconnection)
        self.leaving: Link | None = None  # while moving: the connection to leave once logged in on the table's node
        self.left_url = url  # while moving: the address of that connection
        self.following = True  # hears the lobby's changes (protocol 2: not while a table is shown, as our clients)
        self.dropped_at = 0.0
        self.next_id = 0
        self.pending: dict[int, tuple[str, float, Reply]] = {}
        self.timer: asyncio.TimerHandle | None = None  # the next step away from the game (lobby, seating, leaving)
        self.turn: asyncio.TimerHandle | None = None  # the decision being thought about
        self.seen_tables: set[str] = set()
        self.ever_seated = self.ever_acted = False
        self.reset_table()

    def reset_table(self) -> None:
        if self.turn is not None:
            self.turn.cancel()
            self.turn = None
        self.table: str | None = None
        self.game = ""
        self.seat: int | None = None
        self.host = False
        self.seats: list[Message] = []
        self.status = ""
        self.to_act: list[int] = []
        self.legal: list[str] = []
        self.move = 0
        self.last_seq = 0
        self.points = 0  # Bura: card points in this hand's tricks
        self.acting_since: float | None = None  # our act sent, its event not yet heard
        self.act_late = False  # that act was counted as unanswered
        self.act_move = 0
        self.act_pending = False
        self.start_asked = False
        self.chose_at = 0.0
        self.in_line_since: float | None = None  # told a number in line, not yet let in

    # --- timers and sending ------------------------------------------------------------------------------------

    def later(self, delay: float, action: Callable[[], None]) -> None:
        """Do ``action`` after ``delay`` seconds, instead of whatever this person was waiting to do."""
        if self.timer is not None:
            self.timer.cancel()
        self.timer = self.world.loop.call_later(delay, self.fire, action)

    def fire(self, action: Callable[[], None]) -> None:
        self.timer = None
        if self.world.running:
            action()

    def think(self) -> float:
        low, high = self.world.plan.think
        return self.rng.uniform(low, high)

    def send(self, message: Message) -> bool:
        """While moving to the table's node, everything but the login goes on the old link, still logged in."""
        link = self.leaving if self.leaving is not None and message.get("type") != "login" else self.link
        return link is not None and link.send(json.dumps(message))

    def request(self, message: Message, on_reply: Reply) -> None:
        self.next_id += 1
        message["id"] = self.next_id
        self.pending[self.next_id] = (str(message["type"]), time.monotonic(), on_reply)
        if not self.send(message):
            self.pending.pop(self.next_id)
            on_reply({"type": "error", "code": "not_sent"})

    def sweep(self, now: float) -> None:
        """A request with no reply after NO_REPLY_SECONDS is counted once as an error; the person goes on
        waiting for it (a slow room is measured, not made slower by requests sent again)."""
        for ident, (kind, sent, on_reply) in list(self.pending.items()):
            if sent and now - sent > NO_REPLY_SECONDS:
                self.pending[ident] = (kind, 0.0, on_reply)  # counted
                self.world.stats.errors[f"{kind}: no reply in {NO_REPLY_SECONDS:.0f} s"] += 1
        if self.acting_since is not None and now - self.acting_since > NO_REPLY_SECONDS and not self.act_late:
            self.act_late = True
            self.world.stats.errors["act: no event in 30 s"] += 1

    # --- the connection -----------------------------------------------------------------------------------------

    def connect(self) -> None:
        self.world.loop.create_task(self.open())

    async def open(self) -> None:
        opened: list[Link] = []
        try:
            link = await open_link(self.url, lambda: None, self.on_text, lambda reason: self.on_close(reason, opened))
        except OSError as problem:
            self.world.stats.failures[f"connect: {type(problem).__name__}"] += 1
            if self.moving:  # the table's node cannot be reached: stay where we are
                self.stay()
                return
            self.later(2.0, self.connect)
            return
        opened.append(link)
        self.link = link

    def stay(self) -> None:
        """A move that failed: the connection we were leaving is ours again (the table's messages cross nodes)."""
        if self.leaving is not None:
            self.link = self.leaving
        self.url, self.leaving, self.moving = self.left_url, None, False

    def on_close(self, reason: str, opened: list[Link] | None = None) -> None:
        if not self.world.running or (opened and opened[0] is not self.link):  # a connection we have left
            return
        self.world.stats.failures[reason[:40]] += 1
        if self.token is None:  # the room may hold the name of a guest whose sign-in it was still answering
            self.name += "x"
        self.lost()
        self.later(2.0, self.connect)

    def lost(self) -> None:
        """The connection went away: what was asked gets no answer; a seat stays ours, to resume."""
        self.link = None
        self.pending.clear()
        self.in_line_since = None
        self.acting_since = None
        self.act_pending = False
        if self.turn is not None:
            self.turn.cancel()
            self.turn = None
        self.resuming = self.table is not None
        self.dropped_at = time.monotonic()

    def drop(self) -> None:
        """Lose the network for a few seconds, then come back."""
        self.drops = False
        self.world.stats.counts["drops"] += 1
        if self.link is not None:
            self.link.drop()
        self.lost()
        self.later(self.rng.uniform(2.0, 8.0), self.connect)

    def go_to(self, url: str) -> None:
        """Move to the node of the table we sit at, as the web and terminal clients do: connect and log in there
        while the old connection stays open (so that nobody at the table hears us leave), then close the old one
        and resume. Loopback addresses only, and never the address we are on."""
        if self.moving or url == self.url or not url.startswith(("ws://127.0.0.1:", "ws://localhost:")):
            return
        self.world.stats.counts[MOVED] += 1
        self.left_url, self.url, self.moving, self.leaving = self.url, url, True, self.link
        self.connect()

    def moved(self) -> None:
        """Logged in on the table's node: the old connection goes (what it was asked is answered by the resume)."""
        old, self.leaving = self.leaving, None
        if old is not None:
            old.drop()
        self.pending = {ident: entry for ident, entry in self.pending.items() if entry[0] == "login"}
        self.acting_since = None
        self.act_pending = False
        self.resuming = True

    def on_text(self, data: bytes) -> None:
        stats = self.world.stats
        stats.counts["frames"] += 1
        found = TYPE_AT_START.match(data)
        if found is not None and found.group(1) == b"batch":  # one table step's messages, in order
            for part in json.loads(data)["messages"]:
                self.on_message(str(part.get("type")), part)
            return
        if found is not None and is_lobby_type(found.group(1).decode()):
            self.count_lobby(found.group(1).decode(), data)
            if self.watcher:
                self.on_lobby(json.loads(data))
            return
        message = json.loads(data)
        kind = str(message.get("type"))
        if "table" not in message and (kind == "chat" or is_lobby_type(kind)):
            self.count_lobby(kind, data)
            if self.watcher:
                self.on_lobby(message)
            return
        self.on_message(kind, message)

    def count_lobby(self, kind: str, data: bytes) -> None:
        counts = self.world.stats.counts
        counts["lobby frames"] += 1
        counts["lobby bytes"] += len(data)
        counts["lobby bytes: " + kind] += len(data)

    def on_lobby(self, message: Message) -> None:
        listed, removed = lobby_changes(message)
        now = time.monotonic()
        whole = message.get("type") == "lobby"
        lobby = self.world.lobby
        for entry in listed:
            ident = entry["id"]
            lobby[ident] = entry
            if ident not in self.seen_tables:
                self.seen_tables.add(ident)
                stamp = str(entry.get("name", "")).rsplit("@", 1)[-1]
                if not whole and stamp.replace(".", "", 1).isdigit():
                    self.world.stats.lobby_latencies.append(now - float(stamp))
        for ident in removed:
            lobby.pop(ident, None)

    # --- messages -----------------------------------------------------------------------------------------------

    def on_message(self, kind: str, message: Message) -> None:
        if message.get("table") is not None and message.get("table") == self.table:
            seq = message.get("seq")
            if isinstance(seq, int):
                self.last_seq = max(self.last_seq, seq)
            if kind == "event":
                self.on_event(message["event"])
            elif kind in ("update", "snapshot"):
                self.on_state(message)
            elif kind == "table_event":
                self.on_table_event(message)
            elif kind == "left":
                self.back_to_lobby()
        if kind == "line":
            self.waiting_in_line()
        re_ = message.get("re")  # after the table's part: a reply's handler sees the state it brought
        if re_ is not None and re_ in self.pending:
            request, _, on_reply = self.pending.pop(re_)
            if kind == "error":
                self.world.stats.count_error(message, request)
            on_reply(message)
        elif kind == "error":
            self.world.stats.count_error(message)
        if kind == "hello":
            self.log_in()
        elif kind == "reconnect":  # a node is stopping: go to the same address again (the room's others)
            self.drop()
        elif kind == "table_node" and message.get("table") == self.table:
            self.go_to(str(message.get("url")))

    def log_in(self) -> None:
        login: Message = {"type": "login", "protocol": PROTOCOL, "lobby_tables": LOBBY_TABLES,
                          "lobby_people": LOBBY_PEOPLE}
        self.following = not self.moving  # a new connection follows the lobby, but one that moves to its table
        if self.moving:
            login["follow_lobby"] = False
        if self.token is not None:
            login["token"] = self.token
        else:
            login["nickname"] = self.name
        self.request(login, self.on_welcome)

    def waiting_in_line(self) -> None:
        """The room is full for now and says our number in line: the login is answered when our turn comes, so
        it is not late (NO_REPLY_SECONDS counts again from now)."""
        now = time.monotonic()
        if self.in_line_since is None:
            self.in_line_since = now
            self.world.stats.counts["waited in line"] += 1
        for ident, (kind, sent, on_reply) in self.pending.items():
            if kind == "login" and sent:
                self.pending[ident] = (kind, now, on_reply)

    def on_welcome(self, message: Message) -> None:
        if self.in_line_since is not None:
            if message.get("type") == "welcome":
                self.world.stats.line_waits.append(time.monotonic() - self.in_line_since)
            self.in_line_since = None
        if message.get("code") == "busy" and self.link is not None:  # the room asks for a moment: ask again then
            self.later(float(message.get("retry_after", 2)) * self.rng.uniform(1, 1.5), self.log_in)
            return
        if message.get("type") != "welcome":
            self.world.stats.failures[f"login: {message.get('code')}"] += 1
            if self.moving:  # not logged in on the table's node: stay where we are
                if self.link is not None:
                    self.link.drop()
                self.stay()
                return
            if message.get("code") in ("name_taken", "bad_token"):  # start again as a new guest
                self.token, self.name = None, self.name + "x"
            if self.link is not None:
                self.link.drop()
            self.lost()
            self.later(5.0, self.connect)
            return
        self.uid, self.token = message["user"]["id"], message["token"]
        if self.moving:
            self.moved()
        else:
            self.world.stats.counts["signed in" if not self.resuming else "logged in again"] += 1
        table = self.table
        if self.resuming and table is not None and table in message.get("tables", []):
            self.request({"type": "resume", "table": table, "after": self.last_seq}, self.on_resumed)
        else:
            self.resuming = False
            self.back_to_lobby()

    def on_resumed(self, message: Message) -> None:
        self.resuming = False
        moved, self.moving = self.moving, False
        if message.get("type") != "snapshot":
            self.back_to_lobby()
            return
        if not moved:
            self.world.stats.reconnect_times.append(time.monotonic() - self.dropped_at)
        self.follow_lobby(False)
        if self.status == "finished":
            self.later(self.rng.uniform(*self.world.plan.look), self.leave)

    def on_state(self, message: Message) -> None:
        you = message.get("you")
        if isinstance(you, dict):  # a snapshot says where we sit
            self.seat = you.get("seat")
        info = message.get("info")
        if isinstance(info, dict):
            self.on_info(info)
        self.to_act = list(message.get("to_act") or [])
        self.legal = list(message.get("legal") or [])
        if isinstance(message.get("move"), int):
            self.move = message["move"]
        self.consider()

    def on_info(self, info: Message) -> None:
        self.seats = list(info.get("seats") or [])
        self.status = str(info.get("status", self.status))
        host = info.get("host") or {}
        self.host = host.get("id") == self.uid
        if self.status in ("playing", "paused") and self.state == SEATED:
            self.state = PLAYING
            if self.timer is not None:  # a host's wait for people is over
                self.timer.cancel()
                self.timer = None
        if self.host and self.status == "waiting" and self.state == SEATED:
            self.maybe_start()

    def on_table_event(self, message: Message) -> None:
        info = message.get("info")
        if isinstance(info, dict):
            self.on_info(info)
        if message.get("kind") == "finished" and self.state in (SEATED, PLAYING):
            self.state = FINISHED
            self.world.stats.counts["matches finished (per player)"] += 1
            self.later(self.rng.uniform(*self.world.plan.look), self.leave)
        elif message.get("kind") == "started":
            self.points = 0

    def on_event(self, event: Message) -> None:
        seat = event.get("seat")
        if self.acting_since is not None and seat == self.seat:
            self.world.stats.latencies.append(time.monotonic() - self.acting_since)
            if self.acting_since > self.world.ramp_end:
                self.world.stats.late_latencies.append(time.monotonic() - self.acting_since)
            self.acting_since = None
        kind = event.get("type")
        if kind == "trick" and self.game == "bura" and event.get("winner") == self.seat:  # (its cards: codes)
            self.points += sum(BURA.card_points(str(card)) for card in event.get("cards", []))
        elif kind in ("deal", "hand_end"):
            self.points = 0

    # --- the lobby ----------------------------------------------------------------------------------------------

    def follow_lobby(self, follow: bool) -> None:
        """As the web and terminal clients do: the lobby's changes stop while a table is shown, and a fresh lobby
        comes back with the lobby screen."""
        if follow != self.following:
            self.following = follow
            self.send({"type": "lobby"} if follow else {"type": "lobby", "follow": False})

    def back_to_lobby(self) -> None:
        self.reset_table()
        self.state = LOBBY
        self.follow_lobby(True)
        self.later(self.rng.uniform(*self.world.plan.look), self.browse)

    def browse(self) -> None:
        plan = self.world.plan
        if self.rng.random() < plan.lobby_chat:
            self.request({"type": "chat", "message": "hello everyone"}, self.counted("lobby chats"))
        if self.watcher:
            self.later(self.rng.uniform(10.0, 30.0), self.browse)
            return
        self.state = CHOOSING
        self.chose_at = time.monotonic()
        open_tables = [entry for entry in self.world.lobby.values() if self.joinable(entry)]
        if open_tables and self.rng.random() < 0.8:
            entry = self.rng.choice(open_tables)
            self.world.lobby.pop(entry["id"], None)  # others in this process look elsewhere until it is listed again
            self.request({"type": "watch", "table": entry["id"]}, self.on_watching)
        else:
            self.create()

    @staticmethod
    def joinable(entry: Message) -> bool:
        return (entry.get("status") == "waiting" and not entry.get("private") and not entry.get("password")
                and int(entry.get("taken", 0)) + int(entry.get("bots", 0)) < int(entry.get("seats", 0)))

    def create(self) -> None:
        if self.rng.random() < 0.65:
            self.game = "bura"
            options: Message = {"players": self.rng.choice(BURA_SIZES), "scoring": "points",
                                "hand_limit": self.world.plan.hands}
        else:
            self.game = "mpourloto"
            options = {"target": 100 * self.world.plan.hands}
        # The creation time in the name lets any lobby watcher, in any process, time the listing's arrival.
        name = f"{self.name} @{time.monotonic():.3f}"
        self.request({"type": "create", "game": self.game, "options": options, "name": name}, self.on_created)

    def on_created(self, message: Message) -> None:
        if message.get("type") != "snapshot":
            self.back_to_lobby()
            return
        self.table = message["table"]
        self.on_state(message)
        self.request({"type": "sit", "table": self.table, "seat": 0}, self.on_sat)

    def on_watching(self, message: Message) -> None:
        if message.get("type") != "snapshot":
            self.back_to_lobby()
            return
        self.table = message["table"]
        self.game = str((message.get("info") or {}).get("game", ""))
        self.follow_lobby(False)
        self.on_state(message)
        free = [s["seat"] for s in self.seats if s.get("user") is None and s.get("bot") is None]
        if not free or self.status != "waiting":
            self.leave()
            return
        self.request({"type": "sit", "table": self.table}, self.on_sat)  # any free seat, as our clients join

    def on_sat(self, message: Message) -> None:
        if message.get("type") != "snapshot":
            self.leave()
            return
        self.world.stats.sit_times.append(time.monotonic() - self.chose_at)
        self.ever_seated = True
        self.state = SEATED
        self.follow_lobby(False)  # (a host who created the table comes here straight from the lobby)
        self.on_state(message)
        if self.host:
            plan = self.world.plan
            if self.rng.random() < plan.bot_tables:
                free = self.free_seats()
                count = self.rng.randint(1, max(1, len(free) - 1))
                self.later(self.think(), lambda: self.add_bots(count))
            else:
                self.later(self.rng.uniform(*plan.fill_wait), self.fill_with_bots)

    def free_seats(self) -> list[int]:
        return [int(s["seat"]) for s in self.seats if s.get("user") is None and s.get("bot") is None]

    def fill_with_bots(self) -> None:
        if self.state == SEATED and self.status == "waiting" and self.host:
            self.add_bots(len(self.free_seats()))

    def add_bots(self, count: int) -> None:
        """``count`` bots while seats are free, one request after the other, each in the seat the server picks
        (as the web client's hosts do: no race with someone sitting down); then start if the table is full, or
        wait for people a while longer."""
        if self.state != SEATED or self.status != "waiting" or not self.host:
            return
        if count > 0 and self.free_seats():
            self.request({"type": "bot_add", "table": self.table, "level": "normal"},
                         lambda _reply: self.add_bots(count - 1))
        elif self.free_seats():
            self.later(self.rng.uniform(*self.world.plan.fill_wait), self.fill_with_bots)
        else:
            self.maybe_start()

    def maybe_start(self) -> None:
        if self.host and self.state == SEATED and self.status == "waiting" and not self.free_seats() \
                and not self.start_asked:
            self.start_asked = True
            self.later(self.think(), self.start)

    def start(self) -> None:
        def started(reply: Message) -> None:
            self.start_asked = False
            if reply.get("type") == "error" and self.state == SEATED:
                self.later(self.rng.uniform(*self.world.plan.fill_wait), self.fill_with_bots)
        self.request({"type": "start", "table": self.table}, started)

    def leave(self) -> None:
        if self.table is None:
            self.back_to_lobby()
            return
        self.request({"type": "leave", "table": self.table}, lambda _reply: self.back_to_lobby())
        self.state = LOBBY

    def counted(self, what: str) -> Reply:
        def on_reply(reply: Message) -> None:
            if reply.get("type") == "ok":
                self.world.stats.counts[what] += 1
        return on_reply

    # --- play ---------------------------------------------------------------------------------------------------

    def choices(self) -> list[str]:
        return [action for action in self.legal if action != "claim"]

    def consider(self) -> None:
        """Our seat faces a decision: think, then act (one decision at a time)."""
        if self.state not in (SEATED, PLAYING) or self.seat not in self.to_act or not self.choices():
            return
        if self.act_pending or self.turn is not None:
            return
        self.state = PLAYING
        self.turn = self.world.loop.call_later(self.think(), self.decide)

    def decide(self) -> None:
        self.turn = None
        if not self.world.running:
            return
        if self.state != PLAYING or self.seat not in self.to_act or not self.choices() or self.act_pending:
            return
        if self.drops and self.rng.random() < 0.1:
            self.drop()
            return
        if self.game == "bura" and "claim" in self.legal and self.points >= (BURA.claim_target or 0):
            action = "claim"
        else:
            announce = [a for a in self.choices() if a.startswith("announce")]
            action = announce[0] if announce else self.rng.choice(self.choices())
        self.act_pending, self.act_move, self.act_late = True, self.move, False
        self.acting_since = time.monotonic()
        self.request({"type": "act", "table": self.table, "action": action, "move": self.move}, self.on_acted)
        if self.rng.random() < self.world.plan.chat:
            self.request({"type": "chat", "table": self.table, "message": "nice one"}, self.counted("table chats"))

    def on_acted(self, reply: Message) -> None:
        self.act_pending = False
        stats = self.world.stats
        if reply.get("type") == "ok":
            stats.counts["actions"] += 1
            self.ever_acted = True
        else:
            self.acting_since = None
            if reply.get("code") in STALE and self.move != self.act_move:
                stats.counts["acts overtaken by another seat's move"] += 1
        self.consider()
