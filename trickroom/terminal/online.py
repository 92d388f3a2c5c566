"""``trickroom play --server URL``: the same client at a table on a running room (docs/protocol.md).

It logs in as a guest, then either creates a table (``--create bura --players 3 ...``), joins one (``--table
t5``) or lists the open tables and waits for ``join ID`` / ``create GAME``. Seated, it prints the ``text`` of
every message the room sends (the same sentences as offline: the room narrates with trickroom.narration), keeps
the last ``view`` and ``legal`` for the information commands, and sends what the player types as ``act``.

The websocket is read on the main thread; stdin is read on a helper thread that hands lines over through a
queue, so the room's messages are printed while the player is typing.

When the connection closes, the client goes on elsewhere (docs/protocol.md, "Several nodes"): after the room's
``reconnect`` message (or close code 1012, a restart) it says it is moving and tries the addresses that message
listed, then ``hello.nodes``, then the address it started with; after a plain drop, the same address first. It
logs in again with its session token and sends ``resume`` with the last table ``seq`` it saw: the missed
messages are printed, journal messages seen already are not, and numbers jumping ahead after a move are fine.
Told its table's node (``table_node``), it moves there without a word: it connects and logs in there while the
old connection stays open (nobody at the table hears it leave), then reads what the old one still holds, closes
it and resumes.
``stats [NAME]`` prints a player's games played and won and rating, one line per game. ``report NAME REASON``
reports a player to the moderators (from a table, that table too), ``ignore NAME`` and ``unignore NAME`` stop and
start hearing someone; a moderator has ``reports`` (the reports that wait) and ``mods TEXT`` (the moderators'
channel). docs/moderation.md.
"""

from __future__ import annotations

import json
import queue
import threading
from collections.abc import Sequence
from typing import Any

from babel.numbers import format_decimal
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from trickroom.narration import catalog, translate
from trickroom.narration.names import grouped
from trickroom.terminal.catch_up import CatchUp, fresh, said_now
from trickroom.terminal.commands import Act, Empty, Info, Other, Problem, Quit, parse, unknown
from trickroom.terminal.console import Console, printable
from trickroom.terminal.nodes import NodeMoves
from trickroom.terminal.online_games import FinishedGames
from trickroom.terminal.render import Style, standings_line
from trickroom.terminal.replay import ReplayMode
from trickroom.terminal.session import Session
from trickroom.terminal.summary import HandTracker
from trickroom.terminal.text import command_words, commands_by_word, folded, say

Message = dict[str, Any]
POLL_SECONDS = 0.05
ONLINE_WORDS = ("tables", "join", "create", "start", "bot", "leave", "say", "stats", "games", "replay", "report",
                "ignore", "unignore", "reports", "mods")
JOURNAL_TYPES = ("event", "table_event", "chat")  # table messages numbered by the table's journal
SERVICE_RESTART = 1012  # websocket close code: the server is restarting or handing its tables over


class OnlineClient(Session, FinishedGames, NodeMoves):
    def __init__(self, url: str, name: str | None, console: Console, lang: str, style: Style,
                 table: str | None = None, create: str | None = None, options: dict[str, Any] | None = None,
                 bots: str | None = None, hands: int = 0, hints: bool = False) -> None:
        super().__init__("", {}, [], None, console, lang, style)
        self.url = url
        self.nickname = name or "Guest"
        self.want_table = table
        self.want_create = create
        self.create_options = dict(options or {})
        self.bot_level = bots
        self.hands = hands
        self.hints = hints  # a table this client creates allows hints
        self.user_id: str | None = None
        self.table: str | None = None
        self.info: Message | None = None
        self.host = False
        self.view: Message | None = None
        self.legal: list[str] = []
        self.to_act: list[int] = []
        self.move: int | None = None  # the room's count of actions in the match, quoted by each act
        # The act sent and not yet answered: sent again after a reconnect, where its ``move`` lets the room apply
        # it at most once (docs/protocol.md, "Several nodes").
        self.pending_act: Message | None = None
        self.started = False
        self.prompted: list[str] | None = None  # the legal list of the turn prompt not yet answered
        self.done = False
        self.next_id = 0
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.people: str | None = None  # the lobby's people "listed" or "counted" (a busy room), from its snapshots
        self.ws: ClientConnection | None = None
        self.address = url  # the address of the current connection
        self.token: str | None = None  # the session token, to log in again after a drop
        self.nodes: list[str] = []  # hello.nodes: every live node's address
        self.move_to: list[str] | None = None  # the room's "reconnect" addresses, until the connection closes
        self.resuming = False  # logged in again after a drop: resume tables instead of creating or joining
        self.leaving: ClientConnection | None = None  # moving to our table's node: the connection to close after
        self.table_node_followed: tuple[str, float] | None = None  # (table, monotonic time) of the last move
        # Tables resumed after a drop, until their snapshot ("Back at the table.", then say_missed); ``holding``:
        # the list a missed message being handled adds its sentences to.
        self.catching_up: dict[str, CatchUp] = {}
        self.holding: list[str] | None = None
        self.last_seq: dict[str, int] = {}  # table id -> last journal seq received
        self.game_titles: dict[str, dict[str, str]] = {}
        self.replay: ReplayMode | None = None  # a finished game being watched again (docs/replays.md)
        self.listed_games: list[str] = []  # the table ids of the last "games" list, for "replay N"
        self.exports: dict[str, str] = {}  # "history" or "transcript" -> the file it is to be saved in

    # Session state

    def current_view(self) -> Message | None:
        return self.replay.view() if self.replay is not None else self.view

    def current_legal(self) -> list[str]:
        return list(self.legal)

    def extra_words(self) -> list[str]:
        return [word for command in ONLINE_WORDS for word in command_words(command, self.lang)]

    # The loop

    def run(self) -> int:
        self.say(say("connecting", self.lang, url=self.url), remember=False)
        try:
            self.ws = connect(self.url, open_timeout=10)
        except (OSError, TimeoutError, ValueError) as exc:
            self.say(say("connect_failed", self.lang, url=self.url, reason=exc), remember=False)
            return 1
        threading.Thread(target=self.read_lines, daemon=True, name="stdin").start()
        while True:
            try:
                try:
                    return self.loop()
                finally:
                    self.ws.close()
            except ConnectionClosed as closed:
                self.leave_old()
                code = closed.rcvd.code if closed.rcvd is not None else None
                ws = self.reconnect(moving=self.move_to is not None or code == SERVICE_RESTART)
                if ws is None:
                    self.say(say("closed", self.lang), remember=False)
                    return 1
                self.ws = ws

    def read_lines(self) -> None:
        while True:
            line = self.console.read()
            self.lines.put(line)
            if line is None:
                return

    def loop(self) -> int:
        while not self.done:
            assert self.ws is not None
            try:
                raw = self.ws.recv(timeout=POLL_SECONDS)
            except TimeoutError:
                raw = None
            if raw is not None:
                self.received(json.loads(raw))
            while not self.done:
                try:
                    line = self.lines.get_nowait()
                except queue.Empty:
                    break
                if line is None:
                    self.say(say("eof", self.lang), remember=False)
                    return 0
                self.typed(line)
        return 0

    def send(self, message: Message) -> int:
        """Sent on the connection; while moving to the table's node, everything but the login goes on the old
        connection, still logged in, until the welcome there."""
        ws = self.leaving if self.leaving is not None and message.get("type") != "login" else self.ws
        assert ws is not None
        self.next_id += 1
        ws.send(json.dumps({**message, "id": self.next_id}))
        return self.next_id

    # What the room says

    def received(self, frame: Any) -> None:
        """One frame: a message, or (protocol 3) a table step's messages in one ``batch``, in order."""
        batch = frame.get("messages") if isinstance(frame, dict) and frame.get("type") == "batch" else [frame]
        for part in batch if isinstance(batch, list) else ():
            if isinstance(part, dict):
                self.receive(part)

    def receive(self, raw: Message) -> None:
        msg: Message = printable(raw)  # nothing from the network reaches the terminal unescaped
        kind = msg.get("type")
        text = msg.get("text") or ""
        table, seq = msg.get("table"), msg.get("seq")
        catching = self.catching_up.get(table) if isinstance(table, str) else None
        missed = catching is not None and bool(msg.get("missed"))
        if (isinstance(table, str) and isinstance(seq, int) and kind in JOURNAL_TYPES
                and not fresh(self.last_seq, table, seq, catching, missed)):
            return  # seen already (a resume overlapping what came live): not printed twice
        handler = getattr(self, f"on_{kind}", None)
        self.holding = catching.missed if catching is not None and missed else None
        try:
            if handler is not None:
                handler(msg)
            elif text:
                self.say(text)
        finally:
            self.holding = None

    def say(self, line: str, remember: bool = True) -> None:
        if self.holding is not None and remember:
            if line:
                self.holding.append(line)
            return
        super().say(line, remember)

    def say_missed(self, missed: list[str]) -> None:
        """What was missed during a drop: a few sentences said as they would have been; more kept for
        ``history``, and one line says how many (coming back, the player needs the table as it is now)."""
        if said_now(missed):
            for line in missed:
                self.say(line)
            return
        self.console.history.extend(missed)
        self.say(say("missed_in_history", self.lang, len(missed), count=len(missed)), remember=False)

    def on_hello(self, msg: Message) -> None:
        self.nodes = [n for n in msg.get("nodes") or [] if isinstance(n, str)]
        self.game_titles = {g["name"]: g.get("title") or {} for g in msg.get("games") or []}
        again = self.resuming or self.leaving is not None
        who: Message = {"token": self.token} if self.token and again else {"nickname": self.nickname}
        if self.leaving is not None:  # moving to our table's node: the table stays, the lobby is not needed
            who["follow_lobby"] = False
        self.send({"type": "login", **who, "lang": self.lang, "protocol": 3, "lobby_tables": "open",
                   "lobby_people": "auto"})

    def on_welcome(self, msg: Message) -> None:
        self.people = None  # a new session: its first snapshot says whether the room is busy
        self.user_id = msg["user"]["id"]
        self.token = msg.get("token") or self.token
        moved = self.leaving is not None
        if moved:
            self.leave_old()
        if self.resuming or moved:
            self.resuming = False
            tables = dict.fromkeys([*(msg.get("tables") or []), *([self.table] if self.table else [])])
            self.catching_up = {table: CatchUp(self.last_seq.get(table, 0), quiet=moved) for table in tables}
            for table in tables:
                self.send({"type": "resume", "table": table, "after": self.last_seq.get(table, 0)})
            if not tables and not moved:
                self.say(say("reconnected", self.lang), remember=False)
            return
        self.say(msg.get("text", ""))
        if self.want_create:
            self.send({"type": "create", "game": self.want_create, "options": self.create_options,
                       **({"hints": True} if self.hints else {})})
        elif self.want_table:
            self.send({"type": "watch", "table": self.want_table})

    def on_lobby(self, msg: Message) -> None:
        # A lobby that counts its people in a busy room ("auto") hears when the room became busy or quiet again; the
        # snapshot that comes unasked for that reason (no "re") does not read the tables out again.
        people, self.people = self.people, msg.get("people")
        if people is not None and msg.get("people") not in (None, people):
            self.say(say("room_busy" if msg["people"] == "counted" else "room_quiet", self.lang), remember=False)
            if "re" not in msg:
                return
        if self.table is not None or self.want_create or self.want_table:
            return
        entries = [say("table_entry", self.lang, id=t["id"], text=t.get("options_text", t.get("title", "")),
                       taken=t.get("taken", 0), seats=t.get("seats", 0),
                       status=translate(f"status.{t.get('status', '')}", self.lang))
                   for t in msg.get("tables", []) if t.get("status") != "finished"]
        in_play = msg.get("in_play")
        if isinstance(in_play, int):
            # The room counts every public table in play, the player's own among them (an open lobby lists
            # those): the line says how many the list leaves out.
            in_play -= sum(1 for t in msg.get("tables", []) if not t.get("private") and t.get("status") != "waiting")
        listed = say("tables" if in_play is not None else "all_tables", self.lang, list=grouped(entries, self.lang))
        self.say(listed if entries else say("no_tables", self.lang),
                 remember=False)
        if isinstance(in_play, int) and in_play > 0:  # an open lobby (the default) leaves the tables in play out
            self.say(say("in_play", self.lang, in_play, count=in_play), remember=False)
        self.say(say("online_hint", self.lang), remember=False)

    def on_lobby_batch(self, msg: Message) -> None:
        """The lobby's changes (protocol 2): the tables are listed on request (``tables``); people coming and going
        are said, as the lobby's ``presence`` messages were."""
        for change in msg.get("presence") or []:
            if isinstance(change, dict) and change.get("text"):
                self.say(str(change["text"]))

    def on_snapshot(self, msg: Message) -> None:
        first = self.table != msg["table"]
        self.table = msg["table"]
        if first:  # at a table the lobby's changes are not needed: the ``tables`` command asks for them again
            self.send({"type": "lobby", "follow": False})
        if isinstance(msg.get("seq"), int):
            self.last_seq[self.table] = max(self.last_seq.get(self.table, 0), msg["seq"])
        catching = self.catching_up.pop(self.table, None)
        if catching is not None:
            if not catching.quiet:
                self.say(say("back_at_table", self.lang), remember=False)
            self.say_missed(catching.missed)
        self.set_info(msg["info"])
        you = msg.get("you") or {}
        self.host = bool(you.get("host"))
        self.seat = you.get("seat")
        self.view = msg.get("view")
        self.legal = list(msg.get("legal") or [])
        self.to_act = list(msg.get("to_act") or [])
        self.move = msg.get("move")
        if self.pending_act is not None and self.pending_act["table"] == self.table:
            # After a reconnect: the act that went unanswered goes again (ignored if it was applied).
            self.pending_act["id"] = self.send({k: v for k, v in self.pending_act.items() if k != "id"})
        if first:
            self.tracker = HandTracker(self.game_name, self.options, self.names, self.lang, self.seat)
        if self.seat is None and first:
            self.sit_down()

    def sit_down(self) -> None:
        assert self.info is not None
        free = [s["seat"] for s in self.info["seats"] if s.get("user") is None and s.get("bot") is None]
        if not free or self.info.get("status") != "waiting":
            self.say(say("table_full", self.lang, table=self.table), remember=False)
            return
        self.send({"type": "sit", "table": self.table})  # any free seat: the server picks it

    def set_info(self, info: Message) -> None:
        self.info = info
        self.game_name = info["game"]
        self.options = dict(info.get("options") or {})
        self.names = [s["user"]["name"] if s.get("user") else self.bot_name(s["seat"]) for s in info["seats"]]
        self.tracker.names = list(self.names)
        self.tracker.game = self.game_name
        self.tracker.options = dict(self.options)

    def bot_name(self, seat: int) -> str:
        return translate("bot.name", self.lang, number=seat + 1)

    def on_table_event(self, msg: Message) -> None:
        if msg.get("table") != self.table:
            # Before the table's snapshot: one's own coming to watch a table just made or joined ("You are
            # watching.", then at once "You sit in seat 1."). The web client does not say it either.
            return
        if "info" in msg:
            self.set_info(msg["info"])
        self.say(msg.get("text", ""))
        kind = msg.get("kind")
        user = msg.get("user") or {}
        if kind == "sat" and user.get("id") == self.user_id:
            self.seat = msg.get("seat")
            self.tracker.seat = self.seat
            self.seated()
        elif kind == "started":
            self.started = True
        elif kind == "finished":
            standings = msg.get("standings")
            if isinstance(standings, dict):
                self.say(standings_line(standings, self.names, self.lang, final=True, my_seat=self.seat))
            self.done = True

    def seated(self) -> None:
        """Just sat down: a host who asked for bots fills the other seats and starts; otherwise wait."""
        if not self.host or self.info is None:
            self.say(say("waiting", self.lang), remember=False)
            return
        free = [s["seat"] for s in self.info["seats"]
                if s.get("user") is None and s.get("bot") is None and s["seat"] != self.seat]
        if self.bot_level:
            for seat in free:
                self.send({"type": "bot_add", "table": self.table, "level": self.bot_level, "seat": seat})
            self.send({"type": "start", "table": self.table})
        else:
            self.say(say("host_hint", self.lang), remember=False)

    def on_event(self, msg: Message) -> None:
        self.show_event(msg["event"], text=msg.get("text") or "")
        if self.hands and msg["event"].get("type") == "hand_end" and self.tracker.hands_played >= self.hands:
            self.say(say("stopped", self.lang, count=self.tracker.hands_played))
            self.send({"type": "leave", "table": self.table})
            self.done = True

    def on_update(self, msg: Message) -> None:
        self.view = msg.get("view")
        self.legal = list(msg.get("legal") or [])
        self.to_act = list(msg.get("to_act") or [])
        self.move = msg.get("move")
        if self.seat not in self.to_act:
            self.prompted = None

    def on_your_turn(self, msg: Message) -> None:
        self.legal = list(msg.get("legal") or [])
        if self.seat is not None and self.seat not in self.to_act:
            self.to_act.append(self.seat)
        # The room may repeat "your turn" while it still waits for the same answer (another seat answered in
        # Bura's announcement pause): say it once, or the player answers twice.
        if self.prompted == self.legal:
            return
        self.prompted = list(self.legal)
        self.show_turn(self.legal, msg.get("text"))

    def on_error(self, msg: Message) -> None:
        self.answered(msg)
        self.say(msg.get("text") or msg.get("code", ""), remember=False)

    def answered(self, msg: Message) -> None:
        if self.pending_act is not None and msg.get("re") == self.pending_act["id"]:
            self.pending_act = None

    def on_left(self, msg: Message) -> None:
        self.say(msg.get("text", ""))
        self.done = True

    def on_ok(self, msg: Message) -> None:
        self.answered(msg)
        if msg.get("text"):  # a moderator's action, said by the room
            self.say(msg["text"], remember=False)

    def on_reports(self, msg: Message) -> None:
        reports = msg.get("reports") or []
        if not reports:
            self.say(say("reports_none", self.lang), remember=False)
        for report in reports:
            self.say(say("report_line", self.lang, id=report.get("id", ""), text=report.get("text", "")),
                     remember=False)

    def answer(self, info: Info) -> None:
        super().answer(info)
        if info.topic == "help":  # the room's own commands
            for line in say("help_room", self.lang).splitlines():
                self.say(line, remember=False)

    def on_stats(self, msg: Message) -> None:
        user = msg.get("user") or {}
        games: dict[str, Message] = msg.get("games") or {}
        mine = user.get("id") == self.user_id
        if user.get("guest"):
            self.say(say("stats_guest_you" if mine else "stats_guest", self.lang, name=user.get("name", "")),
                     remember=False)
            return
        self.say(say("stats_you" if mine else "stats_of", self.lang, name=user.get("name", "")), remember=False)
        if not games:
            self.say(say("stats_none", self.lang), remember=False)
        order = list(self.game_titles)
        for name in sorted(games, key=lambda g: (order.index(g) if g in order else len(order), g)):
            title = self.game_titles.get(name, {})
            figures = games[name]
            rating = format_decimal(float(figures.get("rating", 0.0)), format="0.0", locale=self.lang)
            self.say(say("stats_line", self.lang, game=title.get(self.lang) or title.get("en") or name,
                         played=figures.get("played", 0), won=figures.get("won", 0), rating=rating), remember=False)

    def on_pong(self, msg: Message) -> None:
        return

    # Hints and reviews (finished games and replays: FinishedGames)

    def hint(self) -> None:
        if not self.table:
            self.say(say("not_at_table", self.lang), remember=False)
            return
        self.send({"type": "hint", "table": self.table})

    def on_hint(self, msg: Message) -> None:
        self.say(msg.get("text", ""), remember=False)

    def review(self, hand: int | None) -> None:
        table = self.replay.info["table"] if self.replay is not None else self.table
        if not table:
            self.say(say("not_at_table", self.lang), remember=False)
            return
        if hand is None and self.replay is not None:
            hand = int(self.replay.current().get("hand", 1))
        self.send({"type": "review", "table": table, **({"hand": hand} if hand else {})})

    def on_review(self, msg: Message) -> None:
        self.say(msg.get("text", ""), remember=False)
        for item in msg.get("items") or []:
            self.say(str(item.get("text", "")), remember=False)

    # What the player types

    def typed(self, line: str) -> None:
        words = line.split()
        if self.replay is not None and words:
            if self.replay.command(words):
                if self.replay.closed:
                    self.replay = None
                return
            topic = parse(line, [], None, self.lang)
            if isinstance(topic, Info) and topic.topic == "hand":
                self.say(self.replay.cards_line(), remember=False)
                return
        if not self.table and len(words) == 1 and folded(words[0]) in commands_by_word(("play",), self.lang):
            self.quick_game()
            return
        command = parse(line, self.legal if self.table else [], self.current_hand(), self.lang)
        if isinstance(command, Quit):
            if self.table:
                if self.view:  # the score so far, as the score command says it, then goodbye
                    self.answer(Info("score", None))
                self.send({"type": "leave", "table": self.table})
            self.say(say("bye", self.lang), remember=False)
            self.done = True
        elif isinstance(command, Act):
            act: Message = {"type": "act", "table": self.table, "action": command.action, "move": self.move}
            self.pending_act = {**act, "id": self.send(act)}
        elif isinstance(command, Info):
            self.answer(command)
        elif isinstance(command, Problem):
            self.say(command.message if self.table else say("not_at_table", self.lang), remember=False)
        elif isinstance(command, Other):
            self.room_command(command.words)
        elif isinstance(command, Empty):
            return

    def quick_game(self) -> None:
        """``play`` with no table: a new table of the last game and options of this session (``--create`` or
        ``create``; Bura for two at first), the player seated, bots of the last level (``--bots``, else easy) in
        the other seats, and the game started (``seated``)."""
        self.want_create = self.want_create or "bura"
        if not self.create_options and self.want_create == "bura":
            self.create_options = {"players": 2}
        self.bot_level = self.bot_level or "easy"
        self.send({"type": "create", "game": self.want_create, "options": self.create_options,
                   **({"hints": True} if self.hints else {})})

    def game_named(self, typed: str) -> str:
        """A game's name from what was typed: its name or its title in any language (``бура``, ``μπουρλότο``)."""
        for name, titles in self.game_titles.items():
            if folded(typed) in {folded(name), *(folded(t) for t in titles.values())}:
                return name
        return typed.lower()

    def level_named(self, typed: str) -> str:
        """A bot level from what was typed: its code or its name in the player's language (``лёгкий``)."""
        for key in catalog("en", "room"):
            level = key.removeprefix("bot.level.")
            if key.startswith("bot.level.") and folded(typed) in {folded(level), folded(translate(key, self.lang))}:
                return level
        return typed.lower()

    def room_command(self, words: Sequence[str]) -> None:
        word = commands_by_word(ONLINE_WORDS, self.lang).get(folded(words[0]), "")
        rest = list(words[1:])
        if word == "tables":  # ``tables all``: the tables in play too
            self.want_table = self.want_create = None
            every = bool(rest) and folded(rest[0]) in {folded(w) for w in command_words("all", self.lang)}
            self.send({"type": "lobby", "tables": "all" if every else "open"})
        elif word == "join" and rest:
            self.send({"type": "watch", "table": rest[0]})
        elif word == "create" and rest:
            self.want_create, self.create_options = self.game_named(rest[0]), {}  # what play plays again
            self.send({"type": "create", "game": self.want_create, "options": {}})
        elif word == "stats":
            self.send({"type": "stats", **({"user": " ".join(rest)} if rest else {})})
        elif word == "games":
            self.send({"type": "games", **({"user": " ".join(rest)} if rest else {})})
        elif word == "replay" and rest:
            self.open_replay(rest[0])
        elif word == "report" and len(rest) >= 2:
            self.send({"type": "report", "user": rest[0], "reason": " ".join(rest[1:]),
                       **({"table": self.table} if self.table else {})})
        elif word in ("ignore", "unignore") and rest:
            self.send({"type": "ignore", "user": " ".join(rest), "ignore": word == "ignore"})
        elif word == "reports":
            self.send({"type": "reports"})
        elif word == "mods" and rest:
            self.send({"type": "moderators", "message": " ".join(rest)})
        elif word == "say" and rest and self.table:
            self.send({"type": "chat", "table": self.table, "message": " ".join(rest)})
        elif word in ("start", "bot", "leave") and not self.table:
            self.say(say("not_at_table", self.lang), remember=False)
        elif word == "start":
            self.send({"type": "start", "table": self.table})
        elif word == "bot":
            level = self.level_named(rest[0]) if rest else "normal"
            self.send({"type": "bot_add", "table": self.table, "level": level})
        elif word == "leave":
            self.send({"type": "leave", "table": self.table})
        else:
            self.say(unknown(words, self.lang).message, remember=False)
