"""One table's rules, as a pure state machine: seats and members, host powers, its match, its journal, bots,
timers and grace periods.

``TableState.handle(intent, now)`` takes one intent (a client's request, a presence change, a timer that fell
due, a bot's answer, a restore) and the time, and returns the new state and the effects that make it real:
writes (append an action, save the row, keep a chat message), messages (announce a journal entry, tell one
user something), jobs (start or cancel a timer, ask a bot) and the room's part (publish the listing, close).
The old state is never changed, so a step whose write fails is simply forgotten. A refused request raises
:class:`~trickroom.server.protocol.ProtocolError` and changes nothing. There is no clock here: every deadline is
computed from ``now``, so tests drive timers, grace periods and bot delays with numbers.

The requests it answers are in :mod:`trickroom.server.table_requests`, what it waits for (bots, turn timers, grace
periods) in :mod:`trickroom.server.table_jobs`, its rebuilding in :mod:`trickroom.server.table_restore`: functions of
the state during its step.

The shell (:mod:`trickroom.server.table`) holds the lock, runs the effects (writes before any message) and owns
the tasks that wait for timers and bots.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from trickroom.games import HAND_OVER, Game, IllegalAction, Match, ends_a_hand, load_game
from trickroom.narration import refusal, turn_sentence
from trickroom.server import table_jobs as jobs
from trickroom.server import table_requests as requests
from trickroom.server import table_restore as restore
from trickroom.server.messages import AnyServerMessage, Snapshot, TurnState, Update, YourTurn
from trickroom.server.protocol import Message, ProtocolError
from trickroom.server.table_parts import (
    CLOSED,
    FINISHED,
    PAUSED,
    PLAYING,
    WAITING,
    Announce,
    AppendAction,
    AskBot,
    BotAnswered,
    BotQuestion,
    Cancel,
    Effect,
    Entry,
    HintAnswered,
    Intent,
    Job,
    LanguageChanged,
    Listener,
    Member,
    Presence,
    PublishListing,
    RecordResults,
    Request,
    Restored,
    SaveRow,
    Scene,
    Seat,
    StartTimer,
    TableConfig,
    TableSettings,
    Tell,
    TimerFired,
)
from trickroom.server.table_render import info_in, listing_in
from trickroom.server.table_requests import ban_entries

log = logging.getLogger("trickroom.table")


@dataclass
class TableState:
    number: int
    game_name: str
    options: dict[str, Any]
    settings: TableSettings
    seats: list[Seat]
    host: Message
    config: TableConfig = field(default_factory=TableConfig)
    banned: set[str] = field(default_factory=set)
    invited: set[str] = field(default_factory=set)
    status: str = WAITING
    seed: int | None = None  # chosen at creation; secret until the table is finished
    decks: list[list[str]] | None = None  # prearranged decks (test-only setting), kept for replays
    match: Match | None = None
    journal: list[Entry] = field(default_factory=list)
    next_seq: int = 1
    members: dict[str, Member] = field(default_factory=dict)
    pause_requested: bool = False
    standings: dict[str, Any] | None = None
    deadlines: dict[int, float] = field(default_factory=dict)  # each timed person's turn deadline
    # The legal actions last announced with ``your_turn`` per seat: a decision is announced once.
    prompted: dict[int, tuple[str, ...]] = field(default_factory=dict)
    timers: dict[Job, float] = field(default_factory=dict)  # pending timers and when each is due
    asks: dict[Job, AskBot] = field(default_factory=dict)  # pending bot questions
    game: Game = field(init=False)
    # During a step only: its time, its effects, and whether the match is this step's own copy yet.
    now: float = field(default=0.0, init=False, repr=False)  # the step's time
    _out: list[Effect] = field(default_factory=list, init=False, repr=False)
    _match_copied: bool = field(default=False, init=False, repr=False)
    # Who heard the last entry, and its scene, with what they were made from (heard_by): a step records several
    # entries, and the table's people seldom change between them, or between steps.
    _heard: tuple[Any, tuple[Listener, ...], Scene] | None = field(default=None, init=False, repr=False,
                                                                  compare=False)

    def __post_init__(self) -> None:
        self.game = load_game(self.game_name, **self.options)

    # One step

    def handle(self, intent: Intent, now: float) -> tuple[TableState, tuple[Effect, ...]]:
        """The state after ``intent`` at time ``now``, and the effects that make it real. ``self`` is left as it
        was; a refused request raises ProtocolError."""
        work = self.copy()
        work.now = now
        if isinstance(intent, Request):
            requests.answer(work, intent)
        elif isinstance(intent, Presence):
            requests.presence(work, intent.user, intent.online)
        elif isinstance(intent, LanguageChanged):
            member = work.members.get(intent.user["id"])
            if member is not None:  # later sentences follow the new language
                auto_pass = member.auto_pass if intent.auto_pass is None else intent.auto_pass
                work.members[intent.user["id"]] = replace(member, lang=intent.lang, auto_pass=auto_pass)
                if work.match is not None and work.status == PLAYING:
                    work.after_change(set())  # turned on while the room waits for their pass
        elif isinstance(intent, TimerFired):
            jobs.timer_fired(work, intent)
        elif isinstance(intent, BotAnswered):
            jobs.bot_answered(work, intent)
        elif isinstance(intent, HintAnswered):
            requests.hint_answered(work, intent)
        elif isinstance(intent, Restored):
            restore.restored(work, intent)
        effects = tuple(work._out)
        work._out, work._match_copied = [], False
        return work, effects

    def copy(self) -> TableState:
        twin: TableState = object.__new__(TableState)
        twin.__dict__.update(self.__dict__)
        # Containers the step may change are its own; their items are immutable (the match is copied on its
        # first change: own_match).
        twin.options, twin.seats = dict(self.options), list(self.seats)
        twin.banned, twin.invited = set(self.banned), set(self.invited)
        twin.journal, twin.members = list(self.journal), dict(self.members)
        twin.deadlines, twin.prompted = dict(self.deadlines), dict(self.prompted)
        twin.timers, twin.asks = dict(self.timers), dict(self.asks)
        twin._out, twin._match_copied = [], False
        return twin

    def numbered_from(self, next_seq: int) -> TableState:
        """This state, giving journal numbers from ``next_seq`` on: a step whose write failed may still have
        reached the database, so the numbers it took are never given again."""
        twin = self.copy()
        twin.next_seq = max(self.next_seq, next_seq)
        return twin

    def emit(self, effect: Effect) -> None:
        self._out.append(effect)

    def begin_match(self) -> Match:
        assert self.seed is not None, "a table gets its seed when it is made"
        self.match = self.game.new_match(seed=self.seed, decks=self.decks)
        self._match_copied = True
        return self.match

    def own_match(self) -> Match:
        """The match, as this step's own copy (the state before the step keeps the old one)."""
        assert self.match is not None
        if not self._match_copied:
            self.match = self.match.clone()
            self._match_copied = True
        return self.match

    # Identity and descriptions

    @property
    def id(self) -> str:
        return f"t{self.number}"

    def seat_of(self, user_id: str) -> int | None:
        for index, seat in enumerate(self.seats):
            if seat.user is not None and seat.user["id"] == user_id:
                return index
        return None

    def lang_of(self, user_id: str) -> str:
        member = self.members.get(user_id)
        return member.lang if member else "en"

    def team_of(self, seat: int) -> int | None:
        return self.game.team_of(seat)

    def facts(self) -> Message:
        """The table's info without its per-language texts (table_render.info_in adds them)."""
        spectators = [m.user for uid, m in self.members.items() if self.seat_of(uid) is None]
        return {
            "id": self.id, "name": self.settings.name, "game": self.game_name, "options": dict(self.options),
            "status": self.status, "host": self.host,
            "private": self.settings.private, "password": self.settings.password_hash is not None,
            "timer": self.settings.timer, "bot_delay": self.settings.bot_delay,
            "hints": self.settings.hints, "rated": self.settings.rated,
            "pause_requested": self.pause_requested,
            "seats": [{"seat": i, "user": s.user, "bot": s.bot, "connected": s.connected if s.user else s.bot
                       is not None, "replaced_by_bot": s.replaced, "team": self.team_of(i)}
                      for i, s in enumerate(self.seats)],
            "spectators": spectators,
        }

    def info(self, lang: str) -> Message:
        return info_in(self.facts(), self.game, lang)

    def people_here(self) -> set[str]:  # the ids of the people who sit or watch here
        return set(self.members) | {s.user["id"] for s in self.seats if s.user}

    def listing(self) -> Message:
        """The table's lobby entry, language-neutral, with the per-language texts beside it."""
        entry = {
            "id": self.id, "name": self.settings.name, "game": self.game_name, "options": dict(self.options),
            "seats": len(self.seats), "taken": sum(1 for s in self.seats if s.user or s.bot),
            "bots": sum(1 for s in self.seats if s.bot), "status": self.status,
            "spectators": sum(1 for uid in self.members if self.seat_of(uid) is None),
            "private": self.settings.private, "password": self.settings.password_hash is not None,
            "host": self.host,
        }
        people = sorted(self.people_here())
        visible_to = sorted(set(people) | self.invited) if self.settings.private else None
        return listing_in(entry, self.game, visible_to, people)

    def row_values(self) -> dict[str, Any]:
        """The table's row as the store keeps it (besides the columns written once: seed, first event...)."""
        return {"options": dict(self.options), "settings": self.settings.to_json(),
                "seats": [s.to_json() for s in self.seats], "host": self.host, "banned": sorted(self.banned),
                "invited": sorted(self.invited), "status": self.status, "standings": self.standings,
                "pause_requested": self.pause_requested}

    # The journal and who hears it

    def scene(self, with_info: bool = False) -> Scene:
        return Scene(self.id, self.settings.name, self.game,
                     tuple(s.user["name"] if s.user else None for s in self.seats),
                     self.facts() if with_info else None)

    def listeners(self) -> tuple[Listener, ...]:
        return tuple(Listener(uid, self.seat_of(uid), m.lang) for uid, m in self.members.items())

    def heard_by(self) -> tuple[tuple[Listener, ...], Scene]:
        """The listeners of an entry made now, and its scene without the table's info: made again only when the
        members, the seats or the settings changed. (Members, seats and settings are frozen and replaced when
        they change, so comparing them is comparing identities, as cheap as it gets.)"""
        made_of = (tuple(self.members.items()), tuple(self.seats), self.settings)
        if self._heard is None or self._heard[0] != made_of:
            self._heard = (made_of, self.listeners(), self.scene())
        return self._heard[1], self._heard[2]

    def record(self, kind: str, data: dict[str, Any]) -> Entry:
        """Number the entry, keep it in the journal and announce it to the members."""
        entry = Entry(self.next_seq, kind, data)
        self.next_seq += 1
        self.journal.append(entry)
        to, scene = self.heard_by()
        if kind == "table_event":
            scene = self.scene(with_info=True)
        self.emit(Announce(entry, to, scene))
        return entry

    def table_event(self, kind: str, user: Message | None = None, seat: int | None = None, **params: Any) -> None:
        data: dict[str, Any] = {"kind": kind, "params": params}
        if user is not None:
            data["user"] = user
            params.setdefault("name", user["name"])
        if seat is not None:
            data["seat"] = seat
            params.setdefault("number", seat + 1)
        self.record("table_event", data)

    def tell(self, user_id: str, message: AnyServerMessage, conn: str | None = None) -> None:
        self.emit(Tell(user_id, message, conn))

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
        del self.own_match().events[:cut]
        if kept_from is not None:
            self.journal = [entry for entry in self.journal if entry.seq >= kept_from]

    def snapshot(self, member: Member) -> Snapshot:
        seat = self.seat_of(member.user["id"])
        match, turn = self.match, self.turn_state(seat)
        return Snapshot(
            type="snapshot", table=self.id, seq=self.next_seq - 1, info=self.info(member.lang),
            you={"seat": seat, "host": self.host["id"] == member.user["id"]},
            view=match.client_view(seat) if match else None, to_act=turn["to_act"], legal=turn["legal"],
            deadline=turn["deadline"], move=turn["move"], standings=match.standings if match else None,
            hand_results=list(match.hand_results) if match else [])

    def turn_state(self, seat: int | None) -> TurnState:
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
        return round(max(0.0, self.deadlines[seat] - self.now), 1)

    def your_turn(self, seat: int, lang: str) -> YourTurn:
        state = self.turn_state(seat)
        return {"type": "your_turn", "table": self.id, "seq": self.next_seq - 1, "legal": state["legal"],
                "deadline": state["deadline"], "move": state["move"],
                "text": turn_sentence(self.game_name, state["legal"], lang), "urgency": "assertive"}

    def send_updates(self, newly_to_act: set[int]) -> None:
        """An ``update`` to every member (one message per seat), and ``your_turn`` to each person facing a new
        decision: a seat that has just become one to act, or whose legal actions changed; never twice for the
        same decision."""
        match = self.match
        if match is None:
            return
        to_act = set(match.to_act) if self.status == PLAYING else set()
        for prompted in list(self.prompted):
            if prompted not in to_act or prompted in newly_to_act:
                del self.prompted[prompted]
        updates: dict[int | None, Update] = {}
        for uid, member in self.members.items():
            seat = self.seat_of(uid)
            if seat not in updates:
                updates[seat] = {"type": "update", "table": self.id, "seq": self.next_seq - 1,
                                 "view": match.client_view(seat), **self.turn_state(seat)}
            self.tell(uid, updates[seat])
            if seat is None or seat not in to_act or not self.person_plays(seat):
                continue
            legal = tuple(updates[seat]["legal"])
            if self.prompted.get(seat) == legal:
                continue
            self.prompted[seat] = legal
            self.tell(uid, self.your_turn(seat, member.lang))

    def person_plays(self, seat: int) -> bool:
        s = self.seats[seat]
        return s.user is not None and not s.replaced

    def save(self) -> None:
        self.emit(SaveRow())

    def publish_listing(self) -> None:
        self.emit(PublishListing())

    # Jobs

    def start_timer(self, job: Job, at: float) -> None:
        self.timers[job] = at
        self.emit(StartTimer(job, at))

    def ask(self, job: Job, questions: Sequence[BotQuestion], at: float) -> None:
        ask = AskBot(job, tuple(questions), at)
        self.asks[job] = ask
        self.emit(ask)

    def cancel(self, job: Job) -> None:
        if self.timers.pop(job, None) is not None or self.asks.pop(job, None) is not None:
            self.emit(Cancel(job))

    def cancel_all(self) -> None:
        for job in [*self.timers, *self.asks]:
            self.cancel(job)

    # Who may come in

    def is_banned(self, user: Message) -> bool:
        """Banned: the user's id, or for a guest (who gets a new id at each login) the nickname too."""
        return not self.banned.isdisjoint(ban_entries(user))

    def knows(self, user_id: str) -> bool:
        """Someone the table lets in without a password: a member, an invitee, the host, a seated person."""
        return (user_id in self.members or user_id in self.invited or user_id == self.host["id"]
                or self.seat_of(user_id) is not None)

    def password_needed(self, user: Message) -> str | None:
        """The table's password hash when ``user`` may come in only with the password (the shell checks a given
        password against it, with the guess limits, and says so in ``Request.password_ok``)."""
        if self.status == CLOSED or self.is_banned(user) or self.knows(user["id"]) or self.settings.private:
            return None
        return self.settings.password_hash

    # The game

    def apply(self, seat: int, action: str, actor: str) -> None:
        """Apply, log, announce: the one path of every action, a person's or a bot's."""
        self.after_change(self.applied(seat, action, actor))

    def applied(self, seat: int, action: str, actor: str) -> set[int]:
        """Apply, log and announce one action; the seats facing a new decision after it."""
        match = self.own_match()
        before_to_act = set(match.to_act)
        hands_before = match.hands_done
        try:
            new_events = match.apply(seat, action)
        except IllegalAction as exc:
            code = "illegal" if seat in match.to_act else "not_your_turn"
            raise ProtocolError(code, _text=refusal(exc, self.lang_of(actor)) or None) from None
        self.emit(AppendAction(len(match.actions), seat, match.actions[-1][1], self.next_seq, actor))
        for event in new_events:
            self.record("event", event)
        if ends_a_hand(new_events):
            self.forget_old_hands()
        new_hand = match.hands_done > hands_before and not match.is_over
        if new_hand:  # its players connected to other nodes may move to this one
            for held in self.seats:
                if held.user is not None:
                    requests.tell_table_node(self, held.user["id"])
        if new_hand and self.pause_requested:
            self.pause_requested = False
            self.status = PAUSED
            self.save()
            self.table_event("paused")
            self.publish_listing()
        newly = set(match.to_act) - before_to_act
        # A seat that acts and must act again (Mpourloto's trick leader) faces a new decision.
        if seat in match.to_act:
            newly.add(seat)
        return newly

    def forced_pass(self) -> tuple[int, str] | None:
        """A seated person the game waits for whose only answer is ``pass`` (besides off-turn actions such as
        Bura's claim: a Bura pause with no combination in hand), who lets the room answer for them
        (Member.auto_pass, rulings B9a): their seat and user id."""
        match = self.match
        if match is None or self.status != PLAYING or match.is_over:
            return None
        for seat in match.to_act:
            user = self.seats[seat].user
            if user is None or not self.person_plays(seat):
                continue
            member = self.members.get(user["id"])
            if member is not None and not member.auto_pass:
                continue
            answers = [a for a in match.legal_actions(seat) if a not in match.game.off_turn_actions]
            if answers == ["pass"]:
                return seat, user["id"]
        return None

    def after_change(self, newly_to_act: set[int] | None) -> None:
        """After the state changed: ``newly_to_act`` are the seats facing a new decision (None: every seat to
        act, as at the start or when a pause lifts). A person with nothing to answer but ``pass`` is answered
        for at once (forced_pass), before anyone hears that it was their turn."""
        match = self.match
        assert match is not None
        if newly_to_act is None:
            newly_to_act = set(match.to_act)
        while (forced := self.forced_pass()) is not None:
            seat, uid = forced
            newly_to_act = (newly_to_act | self.applied(seat, "pass", uid)) - {seat}
            match = self.match
            assert match is not None
        if match.is_over:
            self.finish()
            return
        self.deadlines = {s: d for s, d in self.deadlines.items() if s in match.to_act and s not in newly_to_act}
        jobs.schedule(self)
        self.send_updates(newly_to_act)

    def finish(self) -> None:
        match = self.match
        assert match is not None
        self.cancel_all()
        self.deadlines.clear()
        self.status = FINISHED
        self.standings = match.standings
        log.info("table %s finished after %d actions", self.id, len(match.actions), extra={"table": self.id})
        # The last action is in the log, so the end is durable already: the row follows it (written again until
        # the database takes it), and the results are recorded before anyone hears "game over".
        self.emit(SaveRow(finished=True))
        self.emit(RecordResults())
        self.send_updates(set())
        self.record("table_event", {"kind": "finished", "params": {}, "standings": self.standings})
        self.publish_listing()
