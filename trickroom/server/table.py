"""One table: its seats and members, its match, the journal of what was said at it, its bots and timers.

A table is owned by exactly one node. Everything reaches it as an *intent* (``handle``), processed one at a
time under the table's lock; everything leaves it as per-user messages published on the bus (``user:<id>``),
already filtered for that user's seat and narrated in that user's language.

An action's way: ``match.apply`` (an illegal one changes nothing) -> append to the action log in the store ->
journal entries -> per-recipient messages. If the store refuses the append (another owner wrote it, issue 9's
fence, or the database failed) the match is rebuilt from the log and the action is refused.

A table chat message is kept the same way: written to the store with its journal seq (``record``'s
``persist``) before it is broadcast, and put back in the journal by a restart; if the write fails, the sender
gets ``error internal`` and nobody hears it. Table events ("Anna sits") are not kept.

Memory holds the current and the previous hand only: when a hand ends, the journal and the match's events
forget what came before the hand that just ended (:meth:`Table.forget_old_hands`). A long match then costs the
same memory in its hundredth hand as in its second; the action log in the store keeps the whole history.

The table's row follows the same rule: a change is made in memory, then :meth:`Table.save` writes it before
anyone hears of it; if the write fails, ``save`` puts the row's fields back as they were last written and the
requester gets ``error internal``. So bad input or a failed write never changes anything.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import random
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from trickroom.cards import CardError, parse_card
from trickroom.games import (
    HAND_OVER,
    Event,
    Game,
    IllegalAction,
    Match,
    OptionError,
    ends_a_hand,
    events_for,
    game_class,
    load_game,
)
from trickroom.narration import LANGUAGES, catalog, narrate, refusal, said_in, translate
from trickroom.server import metrics
from trickroom.server.accounts import check_password, hash_password
from trickroom.server.bots import acts_off_turn
from trickroom.server.protocol import Message, ProtocolError
from trickroom.server.services import Services

log = logging.getLogger("trickroom.table")

WAITING, PLAYING, PAUSED, FINISHED, CLOSED = "waiting", "playing", "paused", "finished", "closed"
NAME_BAN = "name:"  # a ``banned`` entry for a guest's nickname (lower-cased); the others are user ids


def ban_entries(user: Message) -> set[str]:
    """What a ban of ``user`` holds: their id, and for a guest (who gets a new id at each login) the nickname."""
    return {user["id"], NAME_BAN + user["name"].lower()} if user.get("guest") else {user["id"]}


def already_applied(actions: Sequence[tuple[int, str]], seat: int, move: int, action: str) -> bool:
    """Whether ``action``, sent by ``seat`` on the state after ``move`` actions, is one the log already holds:
    the seat's first action after that state is this one. A client that did not hear its act answered (its node
    went away) sends the same act with the same ``move`` again; this makes the second one harmless, in whichever
    order the two arrive."""
    for acting, logged in actions[move:]:
        if acting == seat:
            return action_key(logged) == action_key(action)
    return False


def action_key(action: str) -> tuple[str, ...]:
    # Cards in a play may be written in any order and form (10S, ts); the log holds the engine's canonical form.
    head, *rest = action.split()
    return (head.lower(), *sorted(_card_or_word(word) for word in rest))


def _card_or_word(word: str) -> str:
    try:
        return parse_card(word)
    except CardError:
        return word.lower()


def hand_events_for(match: Match, seat: int) -> list[Event]:
    """The events ``seat`` has seen since its last deal: everything a bot reads (bots rebuild their memory from
    the current hand only: ``trickroom.bots.history.current_hand_events``), so a
    bot's decision costs the same late in a long match as early, instead of filtering the whole history."""
    events = match.events
    for index in range(len(events) - 1, -1, -1):
        if events[index].get("type") == "deal" and events_for([events[index]], seat):
            return events_for(events[index:], seat)
    return events_for(events, seat)


@dataclass
class Seat:
    user: Message | None = None  # user summary of the person who holds the seat
    bot: str | None = None  # bot level, for a bot's seat
    connected: bool = False
    replaced: bool = False  # a bot plays for the person (dropped past the grace period)

    def to_json(self) -> Any:
        if self.user is not None:
            return {"user": self.user}
        if self.bot is not None:
            return {"bot": self.bot}
        return None

    @classmethod
    def from_json(cls, data: Any) -> Seat:
        if not data:
            return cls()
        return cls(user=data.get("user"), bot=data.get("bot"))


@dataclass
class Member:
    user: Message
    lang: str = "en"


@dataclass
class Entry:
    """One journal entry. ``kind``: event (a raw game event with visibility markers), table_event, chat."""

    seq: int
    kind: str
    data: dict[str, Any]


@dataclass
class TableSettings:
    name: str
    private: bool = False
    password_hash: str | None = None
    timer: int = 0
    bot_delay: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "private": self.private, "password_hash": self.password_hash,
                "timer": self.timer, "bot_delay": self.bot_delay}


@dataclass
class Table:
    services: Services
    number: int
    game_name: str
    options: dict[str, Any]
    settings: TableSettings
    seats: list[Seat]
    host: Message
    banned: set[str] = field(default_factory=set)
    invited: set[str] = field(default_factory=set)
    status: str = WAITING
    seed: int | None = None
    match: Match | None = None
    journal: list[Entry] = field(default_factory=list)
    next_seq: int = 1
    members: dict[str, Member] = field(default_factory=dict)
    pause_requested: bool = False
    standings: dict[str, Any] | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    tasks: dict[str, asyncio.Task[None]] = field(default_factory=dict)
    task_versions: dict[str, int] = field(default_factory=dict)
    deadlines: dict[int, float] = field(default_factory=dict)
    # The legal actions last announced with ``your_turn`` per seat: a decision is announced once.
    prompted: dict[int, tuple[str, ...]] = field(default_factory=dict)
    decks: list[list[str]] | None = None  # prearranged decks (test-only setting), kept for replays
    dropped: bool = False  # this node gave the table up (lease lost or handed over): intents go elsewhere
    # The row's fields as last written (or loaded): what a failed save puts back.
    written: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.written = self.row_state()

    # Identity and descriptions

    @property
    def id(self) -> str:
        return f"t{self.number}"

    @property
    def game(self) -> Game:
        return load_game(self.game_name, **self.options)

    def seat_of(self, user_id: str) -> int | None:
        for index, seat in enumerate(self.seats):
            if seat.user is not None and seat.user["id"] == user_id:
                return index
        return None

    def names(self, lang: str) -> list[str]:
        return [seat.user["name"] if seat.user else translate("bot.name", lang, number=i + 1)
                for i, seat in enumerate(self.seats)]

    def team_of(self, seat: int) -> int | None:
        return seat % 2 if self.game_name == "mpourloto" else None

    def info(self, lang: str) -> Message:
        game = self.game
        spectators = [m.user for uid, m in self.members.items() if self.seat_of(uid) is None]
        return {
            "id": self.id, "name": self.settings.name, "game": self.game_name,
            "title": game.title.get(lang, game.title["en"]), "options": dict(self.options),
            "options_text": game.describe(lang), "status": self.status, "host": self.host,
            "private": self.settings.private, "password": self.settings.password_hash is not None,
            "timer": self.settings.timer, "bot_delay": self.settings.bot_delay,
            "pause_requested": self.pause_requested,
            "seats": [{"seat": i, "user": s.user, "bot": s.bot, "connected": s.connected if s.user else s.bot
                       is not None, "replaced_by_bot": s.replaced, "team": self.team_of(i)}
                      for i, s in enumerate(self.seats)],
            "spectators": spectators,
        }

    def listing(self) -> Message:
        """The table's lobby entry, language-neutral, with the per-language texts beside it."""
        game = self.game
        entry = {
            "id": self.id, "name": self.settings.name, "game": self.game_name, "options": dict(self.options),
            "seats": len(self.seats), "taken": sum(1 for s in self.seats if s.user or s.bot),
            "bots": sum(1 for s in self.seats if s.bot), "status": self.status,
            "spectators": sum(1 for uid in self.members if self.seat_of(uid) is None),
            "private": self.settings.private, "password": self.settings.password_hash is not None,
            "host": self.host,
        }
        people = sorted(set(self.members) | {s.user["id"] for s in self.seats if s.user})
        visible_to = None
        if self.settings.private:
            visible_to = sorted(set(people) | self.invited)
        # "people" (not shown to clients): who sits or watches here, for welcome.tables on any node.
        return {"entry": entry, "titles": dict(game.title),
                "texts": {lang: game.describe(lang) for lang in ("en", "ru")}, "visible_to": visible_to,
                "people": people}

    # Persistence

    def row_values(self) -> dict[str, Any]:
        return {"options": dict(self.options), "settings": self.settings.to_json(),
                "seats": [s.to_json() for s in self.seats], "host": self.host, "banned": sorted(self.banned),
                "invited": sorted(self.invited), "status": self.status, "standings": self.standings,
                "pause_requested": self.pause_requested}

    def row_state(self) -> dict[str, Any]:
        """A copy of the fields the row holds, to put back if a write fails."""
        return {"options": dict(self.options), "settings": replace(self.settings),
                "seats": [replace(s) for s in self.seats], "host": self.host, "banned": set(self.banned),
                "invited": set(self.invited), "status": self.status, "standings": self.standings,
                "pause_requested": self.pause_requested}

    def restore_row_state(self, state: dict[str, Any]) -> None:
        # A seat whose occupant did not change keeps its live object (its connected/replaced flags are not in
        # the row and may have changed since the last write).
        saved_seats: list[Seat] = state["seats"]
        self.seats = [now if i < len(self.seats) and (now := self.seats[i]).to_json() == seat.to_json()
                      else replace(seat) for i, seat in enumerate(saved_seats)]
        self.options, self.settings = dict(state["options"]), replace(state["settings"])
        self.host, self.banned, self.invited = state["host"], set(state["banned"]), set(state["invited"])
        self.status, self.standings = state["status"], state["standings"]
        self.pause_requested = state["pause_requested"]
        if self.status == WAITING:
            self.match = None  # a start whose write failed did not happen

    async def save(self, **extra: Any) -> None:
        """Write the row (and ``extra`` columns). On failure the in-memory row goes back to what was last written
        and the caller gets ``ProtocolError("internal")``: a change nobody could make durable did not happen."""
        try:
            await self.services.store.save_table(self.number, **self.row_values(), **extra)
        except Exception:
            log.exception("could not save table %s; its change is undone", self.id, extra={"table": self.id})
            self.restore_row_state(self.written)
            raise ProtocolError("internal") from None
        self.written = self.row_state()

    # Sending

    async def send(self, user_id: str, message: Message, conn: str | None = None,
                   say: Message | None = None) -> None:
        """To a user's connections, wherever they are; ``say`` ({"key", "params"}) is the text, made on delivery in
        each connection's language."""
        await self.services.bus.publish(f"user:{user_id}", {"message": message, "conn": conn, "say": say})

    def render(self, entry: Entry, member: Member) -> Message | None:
        """The journal entry as ``member`` may see it, or None if it is not for them."""
        lang = member.lang
        base: Message = {"table": self.id, "seq": entry.seq}
        if entry.kind == "event":
            seat = self.seat_of(member.user["id"])
            visible = events_for([entry.data], seat)
            if not visible:
                return None
            try:
                text = narrate(self.game_name, visible[0], seat, lang, self.names(lang)) or ""
            except Exception:  # a missing or broken sentence must never stop the game
                log.exception("narration failed for %s", visible[0].get("type"))
                text = ""
            return {"type": "event", **base, "event": visible[0], "text": text}
        if entry.kind == "chat":
            sender = entry.data["from"]
            return {"type": "chat", **base, "from": sender, "message": entry.data["message"],
                    "text": translate("chat.table", lang, name=sender["name"], message=entry.data["message"])}
        data = entry.data
        params = said_in(data.get("params", {}), lang)
        params.setdefault("table", self.settings.name)
        key = f"table.{data['kind']}"
        if "level" in params:  # a sentence per level where there is one ("An easy bot..."), else the level named
            level = str(params["level"])
            if f"bot.level.{level}" in catalog("en", "room"):
                params["level"] = translate(f"bot.level.{level}", lang)
            if f"{key}.{level}" in catalog(lang, "room"):
                key = f"{key}.{level}"
        message: Message = {"type": "table_event", **base, "kind": data["kind"], "info": self.info(lang),
                            "text": translate(key, lang, **params)}
        for key in ("user", "seat", "standings"):
            if key in data:
                message[key] = data[key]
        return message

    async def record(self, kind: str, data: dict[str, Any],
                     persist: Callable[[Entry], Awaitable[None]] | None = None) -> Entry:
        """Number the entry, keep it (``persist``: write it first; if that raises, nobody hears of it) and send it.

        The seq is taken before the write: a write that failed may still have reached the database, and a seq
        is never given to two entries."""
        entry = Entry(self.next_seq, kind, data)
        self.next_seq += 1
        if persist is not None:
            await persist(entry)
        self.journal.append(entry)
        await self.broadcast(entry)
        return entry

    def forget_old_hands(self) -> None:
        """Drop the journal entries and match events from before the previous hand (the one that ended last).

        A reconnecting player still hears how the last hand ended; one who was away longer gets the state in the
        snapshot. The engines never read their past events, so the match may lose them (games.base.Match)."""
        if self.match is None:
            return
        events = self.match.events
        ends = [index for index, event in enumerate(events) if event["type"] in HAND_OVER]
        if len(ends) < 2:
            return
        cut = ends[-2] + 1  # the first event of the previous hand
        first = events[cut]
        kept_from = next((entry.seq for entry in self.journal if entry.data is first), None)
        del events[:cut]
        if kept_from is not None:
            self.journal = [entry for entry in self.journal if entry.seq >= kept_from]

    async def broadcast(self, entry: Entry) -> None:
        # An entry reads the same to every member with the same seat (game events only) and language: render it
        # once for each, not once per member (a table with many spectators would narrate it again and again).
        rendered: dict[tuple[int | None, str], Message | None] = {}
        for member in list(self.members.values()):
            seat = self.seat_of(member.user["id"]) if entry.kind == "event" else None
            key = (seat, member.lang)
            if key not in rendered:
                rendered[key] = self.render(entry, member)
            message = rendered[key]
            if message is not None:
                await self.send(member.user["id"], message)

    async def announce_again(self, entries: list[Entry]) -> None:
        """Send ``entries`` to every member again, marked ``missed`` (as ``resume`` does): a member who has them
        already drops them by their ``seq``."""
        for entry in entries:
            for member in list(self.members.values()):
                message = self.render(entry, member)
                if message is not None:
                    await self.send(member.user["id"], {**message, "missed": True})

    async def table_event(self, kind: str, user: Message | None = None, seat: int | None = None,
                          **params: Any) -> None:
        data: dict[str, Any] = {"kind": kind, "params": params}
        if user is not None:
            data["user"] = user
            params.setdefault("name", user["name"])
        if seat is not None:
            data["seat"] = seat
            params.setdefault("number", seat + 1)
        await self.record("table_event", data)

    def snapshot(self, member: Member) -> Message:
        seat = self.seat_of(member.user["id"])
        match = self.match
        return {
            "type": "snapshot", "table": self.id, "seq": self.next_seq - 1, "info": self.info(member.lang),
            "you": {"seat": seat, "host": self.host["id"] == member.user["id"]},
            "view": match.view(seat) if match else None,
            **self.turn_state(seat),
            "standings": match.standings if match else None,
            "hand_results": list(match.hand_results) if match else [],
        }

    def turn_state(self, seat: int | None) -> Message:
        match = self.match
        if match is None or self.status == FINISHED:
            return {"to_act": [], "legal": [], "deadline": None, "move": len(match.actions) if match else 0}
        legal = match.legal_actions(seat) if seat is not None and self.status == PLAYING else []
        # ``move``: how many actions the match has had; an ``act`` may quote it (Act.move, already_applied).
        return {"to_act": list(match.to_act), "legal": legal, "deadline": self.deadline(seat),
                "move": len(match.actions)}

    def deadline(self, seat: int | None) -> float | None:
        if seat is None or seat not in self.deadlines:
            return None
        return round(max(0.0, self.deadlines[seat] - time.monotonic()), 1)

    async def send_updates(self, newly_to_act: set[int]) -> None:
        """An ``update`` to every member, and ``your_turn`` to each person facing a new decision: a seat that
        has just become one to act, or whose legal actions changed; never twice for the same decision."""
        match = self.match
        if match is None:
            return
        to_act = set(match.to_act) if self.status == PLAYING else set()
        for prompted in list(self.prompted):
            if prompted not in to_act or prompted in newly_to_act:
                del self.prompted[prompted]
        for member in list(self.members.values()):
            seat = self.seat_of(member.user["id"])
            state = self.turn_state(seat)
            await self.send(member.user["id"], {"type": "update", "table": self.id, "seq": self.next_seq - 1,
                                                "view": match.view(seat), **state})
            if seat is None or seat not in to_act or not self.person_plays(seat):
                continue
            legal = tuple(state["legal"])
            if self.prompted.get(seat) == legal:
                continue
            self.prompted[seat] = legal
            await self.send(member.user["id"], {
                "type": "your_turn", "table": self.id, "seq": self.next_seq - 1, "legal": state["legal"],
                "deadline": state["deadline"], "move": state["move"], "text": translate("turn.yours", member.lang)})

    def person_plays(self, seat: int) -> bool:
        s = self.seats[seat]
        return s.user is not None and not s.replaced

    # Intents

    async def handle(self, intent: Message) -> None:
        """One intent from the bus: a client message (``msg``) or a presence change."""
        async with self.lock:
            if self.dropped:  # this node gave the table up while the intent waited: the new owner answers
                self.services.spawn(self.services.forward(intent))
                return
            if intent.get("kind") == "presence":
                await self.presence(intent["user"], bool(intent["online"]))
                return
            if intent.get("kind") == "lang":  # the user changed language: later sentences follow it
                member = self.members.get(intent["user"]["id"])
                if member is not None:
                    member.lang = intent["lang"]
                return
            user: Message = intent["user"]
            msg: Message = intent["msg"]
            conn = intent.get("conn")
            member = self.members.get(user["id"])
            if member is not None:
                member.lang = intent.get("lang", member.lang)
            try:
                try:
                    await self.dispatch(user, intent.get("lang", "en"), msg, conn)
                except ProtocolError:
                    raise
                except Exception:  # a bug or a failed write: the requester hears of it, never silence
                    log.exception("table %s failed on %s", self.id, msg.get("type"), extra={"table": self.id})
                    raise ProtocolError("internal") from None
            except ProtocolError as err:
                lang = intent.get("lang", "en")
                text = err.params.pop("_text", None) or translate(err.key, lang, **err.params)
                error: Message = {"type": "error", "code": err.code, "text": text, "table": self.id}
                if msg.get("id") is not None:
                    error["re"] = msg["id"]
                await self.send(user["id"], error, conn)
                return
            if msg.get("id") is not None and msg["type"] not in ("watch", "sit", "resume"):
                await self.send(user["id"], {"type": "ok", "re": msg["id"], "table": self.id}, conn)

    async def dispatch(self, user: Message, lang: str, msg: Message, conn: str | None) -> None:
        kind = msg["type"]
        uid = user["id"]
        if kind in ("watch", "sit"):
            await self.admit(user, lang, msg, conn)
            return
        if kind == "resume":
            # A spectator stops watching when they leave the room (presence), so one whose connection dropped, or
            # whose node restarted, comes back as a stranger: let them watch again if they still may.
            watching_again = uid not in self.members and self.seat_of(uid) is None
            if watching_again:
                await self.check_admission(user, None)
                await self.table_event("joined", user)
            await self.resume(user, lang, int(msg.get("after", 0)), conn)
            if watching_again:
                await self.publish_listing()
            return
        if uid not in self.members:
            raise ProtocolError("not_member")
        handler: Callable[[Message, Message], Any] | None = {
            "chat": self.on_chat, "act": self.on_act, "stand": self.on_stand, "leave": self.on_leave,
        }.get(kind)
        if handler is not None:
            await handler(user, msg)
            return
        if self.host["id"] != uid:
            raise ProtocolError("not_host")
        host_handler: Callable[[Message, Message], Any] = {
            "options": self.on_options, "settings": self.on_settings, "bot_add": self.on_bot_add,
            "bot_remove": self.on_bot_remove, "start": self.on_start, "pause": self.on_pause, "kick": self.on_kick,
            "ban": self.on_ban, "host": self.on_host, "invite": self.on_invite,
        }[kind]
        await host_handler(user, msg)

    def is_banned(self, user: Message) -> bool:
        """Banned: the user's id, or for a guest (who gets a new id at each login) the nickname too."""
        return not self.banned.isdisjoint(ban_entries(user))

    async def check_admission(self, user: Message, password: str | None) -> None:
        uid = user["id"]
        if self.status == CLOSED:
            raise ProtocolError("no_table")
        if self.is_banned(user):
            raise ProtocolError("banned")
        if uid in self.members or uid in self.invited or uid == self.host["id"] or self.seat_of(uid) is not None:
            return
        stored = self.settings.password_hash
        if stored is not None:
            if password:
                matches: bool = await asyncio.to_thread(check_password, stored, password)
                if matches:
                    return
            raise ProtocolError("wrong_password", "error.wrong_password" if password else "error.need_password")
        if self.settings.private:
            raise ProtocolError("private")

    async def admit(self, user: Message, lang: str, msg: Message, conn: str | None) -> None:
        uid = user["id"]
        await self.check_admission(user, msg.get("password"))
        new_member = uid not in self.members
        if msg["type"] == "sit":
            seat = int(msg["seat"])
            if not 0 <= seat < len(self.seats):
                raise ProtocolError("bad_seat", seats=len(self.seats))
            current = self.seat_of(uid)
            if current != seat:
                if self.status != WAITING:
                    raise ProtocolError("already_started")
                if self.seats[seat].user is not None or self.seats[seat].bot is not None:
                    raise ProtocolError("seat_taken", number=seat + 1)
                if current is not None:
                    self.seats[current] = Seat()
                self.seats[seat] = Seat(user=user, connected=True)
                self.invited.discard(uid)
                await self.save()
                self.members[uid] = Member(user, lang)
                await self.table_event("sat", user, seat)
            else:
                self.members[uid] = Member(user, lang)
        else:
            self.members[uid] = Member(user, lang)
            if new_member:
                await self.table_event("joined", user)
        reply = self.snapshot(self.members[uid])
        if msg.get("id") is not None:
            reply["re"] = msg["id"]
        await self.send(uid, reply, conn)
        await self.publish_listing()

    async def resume(self, user: Message, lang: str, after: int, conn: str | None) -> None:
        uid = user["id"]
        member = self.members.get(uid) or Member(user, lang)
        member.lang = lang
        self.members[uid] = member
        for entry in self.journal:
            if entry.seq > after:
                message = self.render(entry, member)
                if message is not None:
                    await self.send(uid, {**message, "missed": True}, conn)
        seat = self.seat_of(uid)
        if seat is not None:
            await self.reconnected(seat)
        await self.send(uid, self.snapshot(member), conn)
        if (seat is not None and self.match is not None and self.status == PLAYING
                and seat in self.match.to_act and self.person_plays(seat)):
            state = self.turn_state(seat)
            await self.send(uid, {"type": "your_turn", "table": self.id, "seq": self.next_seq - 1,
                                  "legal": state["legal"], "deadline": state["deadline"], "move": state["move"],
                                  "text": translate("turn.yours", lang)}, conn)

    async def presence(self, user: Message, online: bool) -> None:
        seat = self.seat_of(user["id"])
        if seat is None:
            if not online and user["id"] in self.members:
                del self.members[user["id"]]  # a spectator who left the room stops watching
                await self.table_event("left", user)
                await self.publish_listing()
            return
        if online:
            await self.reconnected(seat)
            return
        s = self.seats[seat]
        if not s.connected:
            return
        s.connected = False
        await self.table_event("disconnected", s.user, seat)
        if self.status in (PLAYING, PAUSED):
            self.start_task(f"grace:{seat}", self.grace(seat))

    async def reconnected(self, seat: int) -> None:
        s = self.seats[seat]
        self.cancel_task(f"grace:{seat}")
        if s.connected and not s.replaced:
            return
        was_replaced = s.replaced
        s.connected, s.replaced = True, False
        await self.table_event("took_back" if was_replaced else "reconnected", s.user, seat)
        self.cancel_task(f"bot:{seat}")
        self.schedule()

    async def grace(self, seat: int) -> None:
        await asyncio.sleep(self.services.settings.grace_seconds)
        async with self.lock:
            s = self.seats[seat]
            if s.user is None or s.connected or s.replaced:
                return
            s.replaced = True
            await self.table_event("bot_took_over", s.user, seat)
            self.schedule()

    # Members' actions

    async def on_chat(self, user: Message, msg: Message) -> None:
        await self.record("chat", {"from": user, "message": msg["message"]}, persist=self.write_chat)

    async def write_chat(self, entry: Entry) -> None:
        # Chat is kept as an action is: in the database before anyone hears it, so that a restart restores it.
        try:
            await self.services.store.add_chat(self.number, entry.seq, entry.data["from"], entry.data["message"])
        except Exception:
            log.exception("could not keep chat %s of %s; nobody hears it", entry.seq, self.id,
                          extra={"table": self.id})
            raise ProtocolError("internal") from None

    async def on_act(self, user: Message, msg: Message) -> None:
        seat = self.seat_of(user["id"])
        if self.status == WAITING:
            raise ProtocolError("not_started")
        if self.status == FINISHED:
            raise ProtocolError("finished")
        if self.status == PAUSED:
            raise ProtocolError("paused")
        assert self.match is not None
        if seat is None:
            raise ProtocolError("not_your_turn")
        if self.seats[seat].replaced:
            await self.reconnected(seat)  # acting is the surest sign the person is back
        move = msg.get("move")
        if isinstance(move, int) and already_applied(self.match.actions, seat, move, msg["action"]):
            return  # the same act sent again (a reconnect, a node's hand-over): acknowledged, not applied twice
        await self.apply(seat, msg["action"], user["id"])

    async def on_stand(self, user: Message, msg: Message) -> None:
        seat = self.seat_of(user["id"])
        if seat is None:
            return
        await self.vacate(seat, user, "stood")

    async def on_leave(self, user: Message, msg: Message) -> None:
        await self.remove_member(user, "left")

    async def vacate(self, seat: int, user: Message, kind: str) -> None:
        """The person leaves ``seat``: before the start it is free again; during play a bot takes it."""
        if self.status in (PLAYING, PAUSED):
            self.seats[seat] = Seat(bot=self.services.replacement_level())
        else:
            self.seats[seat] = Seat()
        self.cancel_task(f"grace:{seat}")
        await self.save()
        await self.table_event(kind, user, seat)
        self.schedule()

    async def remove_member(self, user: Message, reason: str) -> None:
        uid = user["id"]
        seat = self.seat_of(uid)
        was_member = self.members.pop(uid, None) is not None
        if seat is not None:
            await self.vacate(seat, user, reason)
        elif was_member or reason in ("kicked", "banned"):
            await self.table_event(reason, user)
        await self.send(uid, {"type": "left", "table": self.id, "reason": reason,
                              "text": translate(f"you.{reason}", self.lang_of(uid), table=self.settings.name)})
        if uid == self.host["id"]:
            await self.pass_host()
        await self.close_if_empty()
        await self.publish_listing()

    def lang_of(self, uid: str) -> str:
        member = self.members.get(uid)
        return member.lang if member else "en"

    async def pass_host(self) -> None:
        """The host left: the role goes to a seated person, else a spectator; an empty table closes."""
        candidates = [s.user for s in self.seats if s.user is not None] + [m.user for m in self.members.values()]
        if candidates:
            self.host = candidates[0]
            await self.save()
            await self.table_event("host", self.host)

    async def close_if_empty(self) -> None:
        people = [s for s in self.seats if s.user is not None]
        if self.members or people:
            return
        # Nobody is left: a table that never started, or a game only bots were still playing, closes (its log
        # stays in the database); a finished one keeps its status.
        if self.status != FINISHED:
            self.status = CLOSED
        await self.save()
        self.cancel_all()
        await self.services.close_table(self)

    # Host's actions

    def require_waiting(self) -> None:
        if self.status != WAITING:
            raise ProtocolError("already_started")

    async def on_options(self, user: Message, msg: Message) -> None:
        self.require_waiting()
        merged = {**self.options, **msg["options"]}
        try:
            options = game_class(self.game_name).validate_options(merged)
            game = load_game(self.game_name, **options)
        except OptionError as exc:
            raise ProtocolError("bad_options", _text=refusal(exc, self.lang_of(user["id"]))) from None
        self.options = options
        self.resize(game.players)
        await self.save()
        await self.table_event("options", user, text={lang: game.describe(lang) for lang in LANGUAGES})
        await self.publish_listing()

    def resize(self, players: int) -> None:
        if players < len(self.seats):
            self.seats = self.seats[:players]  # people in removed seats stay as spectators
        while len(self.seats) < players:
            self.seats.append(Seat())

    async def on_settings(self, user: Message, msg: Message) -> None:
        limits = self.services.settings
        if msg.get("timer") is not None:
            timer = int(msg["timer"])
            if timer != 0 and not limits.timer_minimum <= timer <= limits.timer_maximum:
                raise ProtocolError("bad_message", "error.timer", low=limits.timer_minimum, high=limits.timer_maximum)
            self.settings.timer = timer
        if msg.get("bot_delay") is not None:
            delay = float(msg["bot_delay"])
            if not 0 <= delay <= limits.bot_delay_maximum:
                raise ProtocolError("bad_message", "error.bot_delay", high=limits.bot_delay_maximum)
            self.settings.bot_delay = delay
        if msg.get("name"):
            self.settings.name = msg["name"]
        if msg.get("private") is not None:
            self.settings.private = bool(msg["private"])
        if "password" in msg:
            password = msg["password"]
            self.settings.password_hash = await asyncio.to_thread(hash_password, password) if password else None
        await self.save()
        await self.table_event("settings", user)
        await self.publish_listing()

    async def on_bot_add(self, user: Message, msg: Message) -> None:
        self.require_waiting()
        level = msg["level"]
        if not self.services.bot_level_available(level):
            raise ProtocolError("bad_level", level=level[:20])
        seat = msg.get("seat")
        if seat is None:
            free = [i for i, s in enumerate(self.seats) if s.user is None and s.bot is None]
            if not free:
                raise ProtocolError("seat_taken", "error.no_free_seat")
            seat = free[0]
        seat = int(seat)
        if not 0 <= seat < len(self.seats):
            raise ProtocolError("bad_seat", seats=len(self.seats))
        if self.seats[seat].user is not None or self.seats[seat].bot is not None:
            raise ProtocolError("seat_taken", number=seat + 1)
        self.seats[seat] = Seat(bot=level)
        await self.save()
        await self.table_event("bot_added", seat=seat, level=level)
        await self.publish_listing()

    async def on_bot_remove(self, user: Message, msg: Message) -> None:
        self.require_waiting()
        seat = int(msg["seat"])
        if not 0 <= seat < len(self.seats) or self.seats[seat].bot is None:
            raise ProtocolError("bad_seat", seats=len(self.seats))
        self.seats[seat] = Seat()
        await self.save()
        await self.table_event("bot_removed", seat=seat)
        await self.publish_listing()

    async def on_start(self, user: Message, msg: Message) -> None:
        self.require_waiting()
        if any(s.user is None and s.bot is None for s in self.seats):
            raise ProtocolError("not_ready")
        game = self.game
        from trickroom.cards import new_seed

        if self.seed is None:  # a test deal (Settings.allow_test_decks) may have fixed it at creation
            self.seed = new_seed()
        self.match = game.new_match(seed=self.seed, decks=self.decks)
        self.status = PLAYING  # before the announcement, so that its info says "playing"
        first = self.next_seq + 1  # the match's events follow the "started" announcement
        await self.save(seed=self.seed, first_event_seq=first)
        await self.table_event("started")
        for event in self.match.events:
            await self.record("event", event)
        log.info("table %s started", self.id, extra={"table": self.id})
        await self.after_change(None)
        await self.publish_listing()

    async def on_pause(self, user: Message, msg: Message) -> None:
        if self.status in (WAITING, FINISHED):
            raise ProtocolError("not_started")
        if msg.get("paused", True):
            if self.status == PLAYING and not self.pause_requested:
                self.pause_requested = True
                await self.save()  # a restart keeps the request
                await self.table_event("pause_requested")
            return
        if self.pause_requested:
            self.pause_requested = False
            if self.status != PAUSED:
                await self.save()
                await self.table_event("pause_cancelled")
        if self.status == PAUSED:
            self.status = PLAYING
            await self.save()
            await self.table_event("resumed")
            await self.after_change(None)
            await self.publish_listing()

    def find_user(self, ref: str) -> Message | None:
        people = [s.user for s in self.seats if s.user] + [m.user for m in self.members.values()]
        for person in people:
            if person["id"] == ref:
                return person
        for person in people:
            if person["name"].lower() == ref.lower():
                return person
        return None

    async def on_kick(self, user: Message, msg: Message) -> None:
        target = self.find_user(msg["user"])
        if target is None or target["id"] == user["id"]:
            raise ProtocolError("unknown_user")
        await self.remove_member(target, "kicked")

    async def on_ban(self, user: Message, msg: Message) -> None:
        # Someone at the table, else whom the room found by that id or name (online, or a registered account).
        target = self.find_user(msg["user"]) or msg.get("target")
        if target is None:
            raise ProtocolError("unknown_user", "error.unknown_name", name=msg["user"][:40])
        if target["id"] == user["id"]:
            raise ProtocolError("unknown_user")
        self.banned |= ban_entries(target)
        self.invited.discard(target["id"])
        await self.save()
        await self.remove_member(target, "banned")

    async def on_host(self, user: Message, msg: Message) -> None:
        target = self.find_user(msg["user"])
        if target is None:
            raise ProtocolError("unknown_user")
        self.host = target
        await self.save()
        await self.table_event("host", target)

    async def on_invite(self, user: Message, msg: Message) -> None:
        target: Message = msg["target"]  # resolved by the room (the invitee may be anywhere in the lobby)
        self.invited.add(target["id"])
        self.banned -= ban_entries(target)
        await self.save()
        # The invitee may be on another node, whose language preference this one does not know.
        await self.send(target["id"], {"type": "invited", "table": self.id, "from": user,
                                       "entry": self.listing()["entry"]},
                        say={"key": "lobby.invited", "params": {"name": user["name"], "game": self.game.title}})
        await self.table_event("invited", target)
        await self.publish_listing()

    # The game

    async def apply(self, seat: int, action: str, actor: str) -> None:
        """Apply, log, broadcast: the one path of every action, a person's or a bot's."""
        match = self.match
        assert match is not None
        started = time.perf_counter()
        before_to_act = set(match.to_act)
        hands_before = len(match.hand_results)
        try:
            new_events = match.apply(seat, action)
        except IllegalAction as exc:
            code = "illegal" if seat in match.to_act else "not_your_turn"
            raise ProtocolError(code, _text=refusal(exc, self.lang_of(actor)) or None) from None
        number = len(match.actions)
        canonical = match.actions[-1][1]
        try:
            await self.services.store.append_action(self.number, number, seat, canonical, self.next_seq, actor)
        except Exception:
            log.exception("could not log action %s of %s; rebuilding the match from the log", number, self.id)
            await self.rebuild_match()
            raise ProtocolError("internal") from None
        metrics.ACTIONS.inc()
        for event in new_events:
            await self.record("event", event)
        metrics.ACTION_LATENCY.observe(time.perf_counter() - started)
        if ends_a_hand(new_events):
            self.forget_old_hands()
        if len(match.hand_results) > hands_before and self.pause_requested and not match.is_over:
            self.pause_requested = False
            self.status = PAUSED
            await self.save()
            await self.table_event("paused")
            await self.publish_listing()
        newly = set(match.to_act) - before_to_act
        # A seat that acts and must act again (Mpourloto's trick leader) faces a new decision.
        if seat in match.to_act:
            newly.add(seat)
        await self.after_change(newly)

    async def rebuild_match(self) -> None:
        logged = await self.services.store.actions(self.number)
        assert self.seed is not None
        self.match = self.game.replay(self.seed, [(a.seat, a.action) for a in logged], decks=self.decks)

    async def after_change(self, newly_to_act: set[int] | None) -> None:
        """After the state changed: ``newly_to_act`` are the seats facing a new decision (None: every seat to
        act, as at the start or when a pause lifts)."""
        match = self.match
        assert match is not None
        if match.is_over:
            await self.finish()
            return
        if newly_to_act is None:
            newly_to_act = set(match.to_act)
        self.deadlines = {s: d for s, d in self.deadlines.items() if s in match.to_act and s not in newly_to_act}
        self.schedule()
        await self.send_updates(newly_to_act)

    async def finish(self) -> None:
        match = self.match
        assert match is not None
        self.cancel_all()
        self.deadlines.clear()
        self.status = FINISHED
        self.standings = match.standings
        log.info("table %s finished after %d actions", self.id, len(match.actions), extra={"table": self.id})
        from trickroom.server.store import utcnow

        finished_at = utcnow()
        if not await self.write_finished(finished_at):
            # The last action is in the log, so the end is durable already (a restart ends the match again from
            # the log); the players hear it now, and the row is written as soon as the database lets us.
            self.services.spawn(self.write_finished_later(finished_at))
        try:  # before the announcement, so that a player who hears "game over" finds the new figures
            await self.services.record_results(self)
        except Exception:
            log.exception("could not record results of %s", self.id)
        await self.send_updates(set())
        await self.record("table_event", {"kind": "finished", "params": {}, "standings": self.standings})
        await self.publish_listing()

    async def write_finished(self, finished_at: dt.datetime) -> bool:
        assert self.match is not None
        try:
            await self.save(finished_at=finished_at)
            return True
        except ProtocolError:  # save() put the row state back to the last one written: the match is over still
            self.status = FINISHED
            self.standings = self.match.standings
            return False

    async def write_finished_later(self, finished_at: dt.datetime) -> None:
        pause = 0.5
        while not self.dropped:
            await asyncio.sleep(pause)
            async with self.lock:
                if self.dropped or await self.write_finished(finished_at):
                    return
            pause = min(pause * 2, 30.0)

    def schedule(self) -> None:
        """Start bot moves and turn timers for the seats the game now waits for."""
        match = self.match
        if match is None or self.status != PLAYING:
            return
        version = len(match.actions)
        for seat in match.to_act:
            s = self.seats[seat]
            if s.bot is not None or s.replaced:
                name = f"bot:{seat}"
                if self.running(name) and self.task_versions.get(name) == version:
                    continue
                level = s.bot or self.services.replacement_level()
                self.start_task(name, self.bot_turn(seat, version, level, self.settings.bot_delay), version)
            elif self.settings.timer:
                name = f"timer:{seat}"
                if seat in self.deadlines and self.running(name):
                    continue
                deadline = time.monotonic() + self.settings.timer
                self.deadlines[seat] = deadline
                self.start_task(name, self.turn_timer(seat, deadline), version)
        for name in list(self.tasks):
            if name.startswith("timer:") and int(name.split(":")[1]) not in match.to_act:
                self.cancel_task(name)
        self.offer_off_turn()

    def bot_level_at(self, seat: int) -> str | None:
        """The level of the bot playing ``seat`` now (its own, or the replacement for a person), or None."""
        s = self.seats[seat]
        if s.bot is not None:
            return s.bot
        return self.services.replacement_level() if s.replaced else None

    def offer_off_turn(self) -> None:
        """In Bura a claim is legal at any moment: ask the bot seats the game is not waiting for whether they
        claim now (exact counting, cheap), once per state."""
        match = self.match
        if match is None or self.status != PLAYING or self.game_name != "bura":
            return
        version = len(match.actions)
        if self.running("offturn") and self.task_versions.get("offturn") == version:
            return
        seats = [seat for seat in range(len(self.seats)) if seat not in match.to_act
                 and acts_off_turn(self.bot_level_at(seat) or "") and match.legal_actions(seat)]
        if seats:
            self.start_task("offturn", self.off_turn(seats, version), version)

    async def off_turn(self, seats: list[int], version: int) -> None:
        match = self.match
        assert match is not None
        for seat in seats:
            level = self.bot_level_at(seat)
            if level is None or len(match.actions) != version or self.match is not match:
                return
            seed = (self.seed or 0) + version * 7 + seat
            try:
                choice = await self.services.bots.off_turn(level, seed, match.game.name, dict(match.game.options),
                                                           seat, match.view(seat), hand_events_for(match, seat),
                                                           match.legal_actions(seat))
            except Exception:  # a broken bot must not stop the table: it simply does not claim
                log.exception("bot %s failed off turn at %s seat %s", level, self.id, seat)
                continue
            if choice is None:
                continue
            async with self.lock:
                if (self.match is not match or len(match.actions) != version or self.status != PLAYING
                        or choice not in match.legal_actions(seat) or self.bot_level_at(seat) != level):
                    return
                try:
                    await self.apply(seat, choice, f"bot:{level}")
                except ProtocolError:
                    log.error("bot %s at %s seat %s chose %r off turn, refused", level, self.id, seat, choice)
            return

    def running(self, name: str) -> bool:
        task = self.tasks.get(name)
        return task is not None and not task.done()

    async def bot_turn(self, seat: int, version: int, level: str, delay: float, timeout: bool = False) -> None:
        if delay:
            await asyncio.sleep(delay)
        match = self.match
        if match is None or len(match.actions) != version or seat not in match.to_act:
            return
        legal = match.legal_actions(seat)
        view = match.view(seat)
        seen = hand_events_for(match, seat)
        game = match.game
        seed = (self.seed or 0) + version * 7 + seat
        started = time.perf_counter()
        try:
            choice = await self.services.bots.choose(level, seed, game.name, dict(game.options), seat, view, seen,
                                                     legal)
        except Exception:  # a broken bot must not stop the table: play a random legal move instead
            log.exception("bot %s failed at %s seat %s; playing a random legal move", level, self.id, seat)
            choice = random.Random(seed).choice([a for a in legal if a != "claim"] or legal)  # never a wild claim
        metrics.BOT_THINKING.observe(time.perf_counter() - started)
        async with self.lock:
            match = self.match
            if (match is None or len(match.actions) != version or seat not in match.to_act
                    or self.status != PLAYING):
                return
            s = self.seats[seat]
            if not timeout and s.bot is None and not s.replaced:
                return  # the person took the seat back while the bot was thinking
            if timeout:
                await self.table_event("timeout", s.user, seat)
            try:
                await self.apply(seat, choice, f"bot:{level}")
            except ProtocolError as err:
                # Refused (illegal, or its write failed and the match was rebuilt as it was): one more try with
                # the first legal move, so that the table never waits for a bot that gave up.
                log.error("bot %s at %s seat %s chose %r, refused (%s); playing a legal move", level, self.id, seat,
                          choice, err.code)
                await self.apply(seat, legal[0], f"bot:{level}")

    async def turn_timer(self, seat: int, deadline: float) -> None:
        timer = self.settings.timer
        warning = min(float(self.services.settings.timer_warning), timer / 3)
        await asyncio.sleep(max(0.0, deadline - warning - time.monotonic()))
        if self.deadlines.get(seat) != deadline or self.status != PLAYING:
            return
        s = self.seats[seat]
        if s.user is not None:
            lang = self.lang_of(s.user["id"])
            await self.send(s.user["id"], {"type": "timer", "table": self.id, "seq": self.next_seq - 1,
                                           "seconds_left": round(warning),
                                           "text": translate("turn.warning", lang, seconds=round(warning))})
        await asyncio.sleep(max(0.0, deadline - time.monotonic()))
        match = self.match
        if self.deadlines.get(seat) != deadline or self.status != PLAYING or match is None:
            return
        await self.bot_turn(seat, len(match.actions), self.services.replacement_level(), 0.0, timeout=True)

    def start_task(self, name: str, coro: Any, version: int = 0) -> None:
        old = self.tasks.get(name)
        if old is not None and not old.done() and old is not asyncio.current_task():
            old.cancel()
        task = asyncio.get_running_loop().create_task(coro, name=f"{self.id}:{name}")
        self.tasks[name] = task
        self.task_versions[name] = version
        task.add_done_callback(lambda t: self._task_done(name, t))

    def _task_done(self, name: str, task: asyncio.Task[None]) -> None:
        if self.tasks.get(name) is task:
            del self.tasks[name]
        if not task.cancelled() and task.exception() is not None:
            log.error("task %s of %s failed", name, self.id, exc_info=task.exception())

    def cancel_task(self, name: str) -> None:
        # A task never cancels itself: a bot's move runs inside its own task up to the broadcast.
        task = self.tasks.pop(name, None)
        if task is not None and task is not asyncio.current_task():
            task.cancel()

    def cancel_all(self) -> None:
        for name in list(self.tasks):
            self.cancel_task(name)

    async def publish_listing(self) -> None:
        await self.services.publish_listing(self)
