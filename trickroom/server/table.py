"""One table's shell: the lock, the effects of each step run in order, and the tasks that wait for timers and
bots. The rules live in :class:`~trickroom.server.table_state.TableState`; this module does the I/O.

A table is owned by exactly one node. Everything reaches it as an *intent* (``handle``: a client message or a
presence change from the bus; a timer or a bot's answer from its own tasks), processed one at a time under the
lock: ``TableState.handle`` returns the new state and its effects, and :meth:`Table.step` runs them.

Writes come first. An action, a chat message or a change of the row is in the store before anyone hears of it:
the step's writes (the row written once however often the step changed it) run before any of its messages. If
the first write fails, the new state is thrown away (the old one was never changed) and the requester gets
``error internal`` (``error busy`` with ``retry_after`` when the database had no connection for it in time:
nothing was written, asking again is safe); journal numbers the step took are not given again, since the write
may have reached the database. Once a write has landed (an action is in the log), the step stands: a row save
that fails after it, or the row of a finished match (which follows from the log), is written again until the
database takes it.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from functools import partial
from typing import Any

from trickroom.bots import HARD_BUDGET
from trickroom.cards import new_seed
from trickroom.games import Game
from trickroom.server import metrics
from trickroom.server.accounts import hash_password
from trickroom.server.bus import LocalBus
from trickroom.server.errors import busy, error_message
from trickroom.server.frames import FrameError, encode
from trickroom.server.messages import AnyServerMessage
from trickroom.server.protocol import (
    Message,
    ProtocolError,
    SetSettings,
    Sit,
    Watch,
    parse_client_message,
)
from trickroom.server.rows import ChatRow, TableRow, utcnow
from trickroom.server.services import Services
from trickroom.server.sessions import check_table_password
from trickroom.server.store import LoggedAction, StaleOwner, store_busy
from trickroom.server.table_parts import (
    WRITES,
    Announce,
    AppendAction,
    AskBot,
    AskHint,
    BotAnswered,
    Cancel,
    CloseTable,
    Effect,
    Entry,
    HintAnswered,
    Intent,
    Job,
    KeepChat,
    LanguageChanged,
    Member,
    Presence,
    PublishListing,
    RecordResults,
    Request,
    SaveRow,
    Seat,
    StartTimer,
    TableSettings,
    Tell,
    TimerFired,
    Wait,
)
from trickroom.server.table_render import deliveries, merged_texts
from trickroom.server.table_restore import replay_log
from trickroom.server.table_state import TableState

log = logging.getLogger("trickroom.table")
RETRY_PAUSES = (0.5, 30.0)  # a write that must land is tried again after 0.5 s, doubling up to 30 s


class Table:
    def __init__(self, services: Services, state: TableState, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep) -> None:
        self.services = services
        self.state = state
        self.clock, self.sleep = clock, sleep
        self.lock = asyncio.Lock()
        self.tasks: dict[Job, asyncio.Task[None]] = {}
        self.dropped = False  # this node gave the table up (lease lost or handed over): intents go elsewhere
        self.unsaved: dict[str, Any] | None = None  # row columns owed to the store by a save that failed
        self.write_busy = False  # the last failed write found the database busy (nothing written: answer busy)
        self.taken_over = False  # the last failed append was fenced off: another node owns the table now
        self.saver: asyncio.Task[None] | None = None
        self.recorder: asyncio.Task[None] | None = None  # results that could not be recorded, tried again

    @classmethod
    def new(cls, services: Services, number: int, game: Game, settings: TableSettings, host: Message,
            seed: int | None = None, decks: list[list[str]] | None = None) -> Table:
        state = TableState(number=number, game_name=game.name, options=dict(game.options), settings=settings,
                           seats=[Seat() for _ in range(game.players)], host=host, config=services.table_config,
                           seed=new_seed() if seed is None else seed, decks=decks)
        return cls(services, state)

    @classmethod
    def from_row(cls, services: Services, row: TableRow, actions: Sequence[LoggedAction],
                 chat: Sequence[ChatRow]) -> tuple[Table, tuple[Entry, ...]]:
        """The table rebuilt from its row, action log and chat, and the entries of its last logged action."""
        state = TableState(number=row.id, game_name=row.game, options=dict(row.options),
                           settings=TableSettings.from_json(row.settings), seats=[Seat.from_json(x) for x in row.seats],
                           host=dict(row.host), config=services.table_config, banned=set(row.banned),
                           invited=set(row.invited), status=row.status,
                           seed=new_seed() if row.seed is None else row.seed, decks=row.decks,
                           standings=row.standings, pause_requested=bool(row.pause_requested))
        last = replay_log(state, row.first_event_seq, [(a.seat, a.action, a.event_seq) for a in actions],
                                [(said.seq, said.sender, said.message) for said in chat])
        return cls(services, state), last

    # What the room reads

    @property
    def id(self) -> str:
        return self.state.id

    @property
    def number(self) -> int:
        return self.state.number

    @property
    def status(self) -> str:
        return self.state.status

    @property
    def members(self) -> dict[str, Member]:
        return self.state.members

    def seat_of(self, user_id: str) -> int | None:
        return self.state.seat_of(user_id)

    def listing(self) -> Message:
        return self.state.listing()

    # Intents

    async def handle(self, intent: Message) -> None:
        """One intent from the bus: a client message (``msg``) or a presence or language change."""
        async with self.lock:
            if self.dropped:  # this node gave the table up while the intent waited: the new owner answers
                self.services.spawn(self.services.forward(intent))
                return
            if intent.get("kind") == "presence":
                await self.step(Presence(intent["user"], bool(intent["online"])))
            elif intent.get("kind") == "lang":
                await self.step(LanguageChanged(intent["user"], intent["lang"], intent.get("auto_pass")))
            else:
                request = await self.request(intent)
                if request is not None:
                    await self.step(request, intent)

    async def request(self, intent: Message) -> Request | None:
        """The typed request, with the password work done off the event loop; None if it was refused."""
        user, lang, conn = intent["user"], intent.get("lang", "en"), intent.get("conn")
        raw: Message = intent["msg"]
        try:
            msg = parse_client_message(raw, self.state.config)
            password_ok, password_hash = False, None
            if isinstance(msg, Watch | Sit) and msg.password:
                stored = self.state.password_needed(user)
                if stored is not None:  # a wrong or too frequent guess is refused here
                    await check_table_password(self.services.password_guesses, self.id, stored, msg.password,
                                               [user["id"], str(intent.get("address") or "unknown")])
                    password_ok = True
            if isinstance(msg, SetSettings) and msg.password and self.state.host["id"] == user["id"]:
                password_hash = await asyncio.to_thread(hash_password, msg.password)
        except ProtocolError as err:
            await self.refuse(user["id"], lang, conn, raw.get("id"), err)
            return None
        except Exception:
            log.exception("table %s failed on %s", self.id, raw.get("type"), extra={"table": self.id})
            await self.refuse(user["id"], lang, conn, raw.get("id"), ProtocolError("internal"))
            return None
        return Request(user, lang, msg, conn, intent.get("target"), password_ok, password_hash,
                       moderator=intent.get("moderator") is True, auto_pass=bool(intent.get("auto_pass", True)))

    async def refuse(self, user_id: str, lang: str, conn: str | None, re: Any, err: ProtocolError) -> None:
        await self.send(user_id, error_message(err, lang, re, table=self.id), conn)

    async def step(self, intent: Intent, sent: Message | None = None) -> bool:
        """Run one intent through the state and its effects (under the lock). False if a write failed and the
        step was thrown away. ``sent``: the client's intent as it came, handed on if another node turns out to
        own the table."""
        started = time.perf_counter()
        try:
            state, effects = self.state.handle(intent, self.clock())
        except ProtocolError as err:
            await self.refused(intent, err)
            return True
        except Exception:  # a bug: the requester hears of it, never silence; the state is as it was
            log.exception("table %s failed on %s", self.id, type(intent).__name__, extra={"table": self.id})
            await self.refused(intent, ProtocolError("internal"))
            return True
        if not await self.write(state, effects):
            self.state = self.state.numbered_from(state.next_seq)
            if self.taken_over:  # nobody hears of the step: this node gives the table up, the new owner goes on
                self.dropped = True
                self.services.spawn(self.hand_on(sent))
                return True
            # A busy database (no connection free in time) wrote nothing: the requester may simply ask again.
            await self.refused(intent, busy() if self.write_busy else ProtocolError("internal"))
            return False
        self.state = state
        self.services.people_changed(self)
        try:
            await self.run(effects)
        except Exception:
            log.exception("table %s failed to send for %s", self.id, type(intent).__name__, extra={"table": self.id})
            await self.refused(intent, ProtocolError("internal"))
        if any(isinstance(effect, AppendAction) for effect in effects):
            metrics.ACTION_LATENCY.observe(time.perf_counter() - started)
        return True

    async def hand_on(self, sent: Message | None) -> None:
        """Stop owning the table here, then pass the request that found it taken over to its new owner (in that
        order: until this node has given the table up, the request would reach this node again too)."""
        await self.services.give_up(self)
        if sent is not None:
            await self.services.forward(sent)

    async def refused(self, intent: Intent, err: ProtocolError) -> None:
        if isinstance(intent, Request):
            await self.refuse(intent.user["id"], intent.lang, intent.conn, intent.msg.id, err)
        else:
            log.error("table %s refused its own %s: %s", self.id, type(intent).__name__, err.code)

    # Effects

    async def write(self, state: TableState, effects: Sequence[Effect]) -> bool:
        """The step's writes, in order. False if the first failed (nothing happened)."""
        landed, self.write_busy, self.taken_over = False, False, False
        for effect in coalesced([e for e in effects if isinstance(e, WRITES)]):
            extra = self.row_extra(effect) if isinstance(effect, SaveRow) else {}
            try:
                await self.perform(effect, state, extra)
            except Exception as exc:
                if isinstance(effect, RecordResults):  # the end stands: the results follow it
                    log.exception("could not record results of %s; trying again later", self.id)
                    self.record_later(state)
                    continue
                if isinstance(effect, SaveRow) and (landed or effect.finished):
                    log.exception("could not save table %s; trying again later", self.id, extra={"table": self.id})
                    self.unsaved = extra
                    self.save_later()
                    continue
                self.write_busy = store_busy(exc)
                self.taken_over = isinstance(exc, StaleOwner)
                if self.taken_over:  # (no traceback: another node took the table over)
                    log.warning("table %s: %s, written by the node that took it over; this node gives it up",
                                self.id, exc, extra={"table": self.id})
                elif self.write_busy:  # (no traceback: it is the load, not a bug)
                    log.warning("could not write %s for table %s, the database is busy; its step is undone: %s",
                                type(effect).__name__, self.id, exc, extra={"table": self.id})
                else:
                    log.exception("could not write %s for table %s; its step is undone", type(effect).__name__,
                                  self.id, extra={"table": self.id})
                return False
            landed = True
            if isinstance(effect, AppendAction):
                metrics.ACTIONS.inc()
        return True

    def row_extra(self, effect: SaveRow) -> dict[str, Any]:
        """The columns a save writes besides the row's state: those it sets once, and any a failed save owes."""
        extra = dict(self.unsaved or {})
        if effect.seed is not None:
            extra["seed"] = effect.seed
        if effect.first_event_seq is not None:
            extra["first_event_seq"] = effect.first_event_seq
        if effect.finished:
            extra["finished_at"] = utcnow()
        return extra

    async def perform(self, effect: Effect, state: TableState, extra: dict[str, Any]) -> None:
        store = self.services.store
        if isinstance(effect, AppendAction):
            await store.append_action(self.number, effect.move, effect.seat, effect.action, effect.event_seq,
                                      effect.actor)
        elif isinstance(effect, SaveRow):
            await store.save_table(self.number, **state.row_values(), **extra)
            self.unsaved = None
        elif isinstance(effect, KeepChat):
            await store.add_chat(self.number, effect.seq, effect.sender, effect.message)
        elif isinstance(effect, RecordResults):  # before the announcement, so that "game over" finds the figures
            await self.services.record_results(state)

    async def run(self, effects: Sequence[Effect]) -> None:
        """The step's messages, jobs and room effects, in order (its writes have been made). Each user's
        messages of the step go out together (one ``batch`` frame to a connection of protocol 3), before any
        room effect that follows them."""
        merged = merged_texts(effects)  # a trick's end said as one sentence, and the like
        frames: dict[int, tuple[Message, str | None]] = {}  # one rendering, encoded once for all who get it
        outbox: dict[str, list[Message]] = {}  # user id: the step's messages to them, in order
        for index, effect in enumerate(effects):
            if isinstance(effect, Announce):
                for user_id, message in deliveries(effect, merged.get(index)):
                    outbox.setdefault(user_id, []).append(
                        self.item(message, effect.conn, frame=self.frame(message, frames)))
                continue
            if isinstance(effect, Tell):
                outbox.setdefault(effect.user, []).append(self.item(effect.message, effect.conn, effect.say))
                continue
            if not isinstance(effect, (StartTimer, AskBot, Cancel)):  # (those send nothing now)
                await self.send_all(outbox)
            if isinstance(effect, StartTimer):
                self.start(effect.job, self.timer(effect))
            elif isinstance(effect, AskBot):
                self.start(effect.job, self.ask(effect))
            elif isinstance(effect, AskHint):
                if self.services.bots.busy():  # the hint is refused, politely: the table's bots go first
                    await self.send(effect.user, error_message(ProtocolError("busy"), self.state.lang_of(effect.user),
                                                               effect.re, table=self.id), effect.conn)
                else:
                    self.start(effect.job, self.hint(effect))
            elif isinstance(effect, Cancel):
                self.cancel(effect.job)
            elif isinstance(effect, PublishListing):
                await self.services.publish_listing(self)
            elif isinstance(effect, CloseTable):
                await self.services.close_table(self)
        await self.send_all(outbox)

    async def send_all(self, outbox: dict[str, list[Message]]) -> None:
        """Each user's messages in ``outbox`` as one delivery (then ``outbox`` is empty)."""
        deliveries = [(f"user:{user_id}", items[0] if len(items) == 1 else {"batch": items})
                      for user_id, items in outbox.items()]
        outbox.clear()
        if deliveries:
            await self.services.bus.publish_many(deliveries)

    @staticmethod
    def item(message: AnyServerMessage | Message, conn: str | None = None, say: Message | None = None,
             frame: str | None = None) -> Message:
        """One message as the bus carries it to a user: ``conn``, the one connection it is for (None: all of
        theirs); ``say`` ({"key", "params"}), its text, made on delivery in each connection's language;
        ``frame``, the message already encoded (sent as it is)."""
        payload: Message = {"message": message, "conn": conn, "say": say}
        if frame is not None:
            payload["frame"] = frame
        return payload

    async def send(self, user_id: str, message: AnyServerMessage, conn: str | None = None,
                   say: Message | None = None, frame: str | None = None) -> None:
        """To a user's connections, wherever they are (:meth:`item` says what the arguments are)."""
        await self.services.bus.publish(f"user:{user_id}", self.item(message, conn, say, frame))

    def frame(self, message: Any, frames: dict[int, tuple[Message, str | None]]) -> str | None:
        """``message`` encoded, once per step however many listeners get the same rendering; None on a bus between
        nodes (each node encodes what it delivers) or if it cannot be encoded (the connection says so)."""
        if not isinstance(self.services.bus, LocalBus):
            return None
        held = frames.get(id(message))
        if held is None:  # (the message is kept with its frame, so that its id is not reused in this step)
            try:
                held = (message, encode(message))
            except FrameError:
                held = (message, None)
            frames[id(message)] = held
        return held[1]

    async def publish_listing(self) -> None:
        await self.services.publish_listing(self)

    # Tasks: one per job; a task never cancels itself (it leaves the registry before it steps)

    def start(self, job: Job, coro: Coroutine[Any, Any, None]) -> None:
        self.cancel(job)
        task = asyncio.get_running_loop().create_task(coro, name=f"{self.id}:{job.wait.value}:{job.seat}")
        self.tasks[job] = task
        task.add_done_callback(partial(self._task_done, job))

    def _task_done(self, job: Job, task: asyncio.Task[None]) -> None:
        if self.tasks.get(job) is task:
            del self.tasks[job]
        if not task.cancelled() and task.exception() is not None:
            log.error("task %s of %s failed", job, self.id, exc_info=task.exception())

    def detach(self, job: Job) -> None:
        if self.tasks.get(job) is asyncio.current_task():
            del self.tasks[job]

    def cancel(self, job: Job) -> None:
        task = self.tasks.pop(job, None)
        if task is not None and task is not asyncio.current_task():
            task.cancel()

    def cancel_all(self) -> None:
        for job in list(self.tasks):
            self.cancel(job)
        for task in (self.saver, self.recorder):
            if task is not None:
                task.cancel()

    async def until(self, at: float) -> None:
        await self.sleep(max(0.0, at - self.clock()))

    async def timer(self, effect: StartTimer) -> None:
        await self.until(effect.at)
        self.detach(effect.job)
        async with self.lock:
            if not self.dropped:
                await self.step(TimerFired(effect.job, effect.at))

    async def ask(self, effect: AskBot) -> None:
        """Ask the bots (off the event loop: BotRunner), then bring the answer back under the lock."""
        await self.until(effect.at)
        answer = await (self.off_turn(effect) if effect.job.wait == Wait.OFF_TURN else self.turn(effect))
        if answer is None:
            return
        self.detach(effect.job)
        await self.answer(answer, RETRY_PAUSES[0])

    async def answer(self, answer: BotAnswered, retry_pause: float) -> None:
        async with self.lock:
            if self.dropped or await self.step(answer):
                return
        # Its write failed (the table never waits for a bot that cannot be written): the same answer again later.
        self.start(answer.job, self.answer_later(answer, min(retry_pause * 2, RETRY_PAUSES[1]), retry_pause))

    async def answer_later(self, answer: BotAnswered, next_pause: float, pause: float) -> None:
        await self.sleep(pause)
        self.detach(answer.job)
        await self.answer(answer, next_pause)

    async def turn(self, effect: AskBot) -> BotAnswered:
        q = effect.questions[0]
        started = time.perf_counter()
        try:
            choice: str | None = await self.services.bots.choose(q.level, q.seed, q.game, dict(q.options), q.seat,
                                                                 q.view, q.events, q.legal)
        except Exception:  # a broken bot must not stop the table: the state plays a legal move instead
            log.exception("bot %s failed at %s seat %s; playing a random legal move", q.level, self.id, q.seat)
            choice = None
        metrics.BOT_THINKING.observe(time.perf_counter() - started)
        return BotAnswered(effect.job, q, choice)

    async def hint(self, effect: AskHint) -> None:
        """The hard bot's advice off the event loop (the bot workers), then the answer under the lock."""
        q, settings = effect.question, self.services.settings
        budget = settings.hint_budget or settings.bot_budget or HARD_BUDGET
        try:
            advice: dict[str, Any] | None = await self.services.bots.advise(
                q.game, dict(q.options), q.seat, q.view, q.events, q.legal, q.seed, budget, settings.advice_worlds)
        except Exception:  # a broken search must not stop the table: the asker hears that it failed
            log.exception("hint failed at %s seat %s", self.id, q.seat)
            advice = None
        self.detach(effect.job)
        async with self.lock:
            if not self.dropped:
                await self.step(HintAnswered(effect, advice))

    async def off_turn(self, effect: AskBot) -> BotAnswered | None:
        for q in effect.questions:
            try:
                choice = await self.services.bots.off_turn(q.level, q.seed, q.game, dict(q.options), q.seat,
                                                           q.view, q.events, q.legal)
            except Exception:  # a broken bot must not stop the table: it simply does not act
                log.exception("bot %s failed off turn at %s seat %s", q.level, self.id, q.seat)
                continue
            if choice is not None:
                return BotAnswered(effect.job, q, choice)
        return None

    # A row save that must land

    def save_later(self) -> None:
        if self.saver is None or self.saver.done():
            self.saver = asyncio.get_running_loop().create_task(self.save_again(), name=f"{self.id}:save")

    async def save_again(self) -> None:
        pause = RETRY_PAUSES[0]
        while not self.dropped and self.unsaved is not None:
            await self.sleep(pause)
            async with self.lock:
                if self.dropped or self.unsaved is None:
                    return
                try:
                    await self.services.store.save_table(self.number, **self.state.row_values(), **self.unsaved)
                except Exception:
                    log.warning("could not save table %s again", self.id, extra={"table": self.id})
                else:
                    self.unsaved = None
                    return
            pause = min(pause * 2, RETRY_PAUSES[1])

    def record_later(self, state: TableState) -> None:
        """The results of the finished match, tried again until they land (a node that stops first leaves them
        to the next start: ``Ownership.record_unrecorded``)."""
        if self.recorder is None or self.recorder.done():
            self.recorder = asyncio.get_running_loop().create_task(self.record_again(state),
                                                                   name=f"{self.id}:results")

    async def record_again(self, state: TableState) -> None:
        pause = RETRY_PAUSES[0]
        while not self.dropped:
            await self.sleep(pause)
            try:
                await self.services.record_results(state)
            except Exception:
                log.warning("could not record results of %s again", self.id, extra={"table": self.id})
            else:
                return
            pause = min(pause * 2, RETRY_PAUSES[1])


def coalesced(writes: list[Effect]) -> list[Effect]:
    """The step's writes with its row saves made one (at the first's place): the row as the step left it."""
    saves = [w for w in writes if isinstance(w, SaveRow)]
    if len(saves) < 2:
        return writes
    merged = SaveRow(seed=next((s.seed for s in saves if s.seed is not None), None),
                     first_event_seq=next((s.first_event_seq for s in saves if s.first_event_seq is not None), None),
                     finished=any(s.finished for s in saves))
    first = writes.index(saves[0])
    return [*writes[:first], merged, *(w for w in writes[first + 1:] if not isinstance(w, SaveRow))]

