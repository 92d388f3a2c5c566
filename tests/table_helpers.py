"""A table without a server: a TableState driven by hand, with a clock that moves only when a test says so.

``Desk`` plays the shell's part in memory: it hands each intent to the state with the desk's time, keeps the new
state, files every message for the user it is for (rendered as the shell renders it), keeps the writes in order,
and holds the timers and bot questions until ``advance`` reaches them. Bots answer with ``bot`` (the first legal
move that is not a claim, unless a test says otherwise) and never act off turn unless ``off_turn`` says so.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from trickroom.games import load_game
from trickroom.narration import said_in, translate
from trickroom.server.errors import error_message
from trickroom.server.protocol import ProtocolError, parse_client_message
from trickroom.server.table_parts import (
    WRITES,
    Announce,
    AppendAction,
    AskBot,
    AskHint,
    BotAnswered,
    BotQuestion,
    Cancel,
    Effect,
    Intent,
    Job,
    Member,
    Presence,
    Request,
    Restored,
    Seat,
    StartTimer,
    TableConfig,
    TableSettings,
    Tell,
    TimerFired,
    Wait,
)
from trickroom.server.table_render import MergedTexts, deliveries, merged_texts
from trickroom.server.table_state import TableState

Message = dict[str, Any]
CONFIG = TableConfig(grace_seconds=60.0, timer_minimum=1, timer_maximum=600, timer_warning=10,
                     bot_delay_maximum=5.0, replacement_level="random",
                     bot_levels=frozenset({"random", "easy", "normal", "hard"}),
                     off_turn_levels=frozenset({"easy", "normal", "hard"}))
_ids = itertools.count(1)


def person(name: str, guest: bool = True) -> Message:
    """A user summary, as the room makes them."""
    return {"id": f"{'g' if guest else 'u'}{next(_ids)}", "name": name, "guest": guest}


def first_legal(question: BotQuestion) -> str | None:
    return next((a for a in question.legal if a != "claim"), question.legal[0])


class Desk:
    def __init__(self, game: str = "bura", host: Message | None = None, seed: int = 1,
                 decks: list[list[str]] | None = None, config: TableConfig = CONFIG, **settings: Any) -> None:
        rules = load_game(game, **settings.pop("options", {}))
        self.host = host or person("Host")
        self.now = 0.0
        self.state = TableState(number=1, game_name=rules.name, options=dict(rules.options),
                                settings=TableSettings(name=settings.pop("name", "Test"), **settings),
                                seats=[Seat() for _ in range(rules.players)], host=self.host, config=config,
                                seed=seed, decks=decks)
        self.inbox: defaultdict[str, list[Message]] = defaultdict(list)
        self.langs: dict[str, str] = {}  # each user's language, for sentences made on delivery (Tell.say)
        self.auto_pass: dict[str, bool] = {}  # each user's auto_pass preference (off unless a test turns it on)
        self.writes: list[Effect] = []  # every write, in order
        self.acted_at: list[float] = []  # when each action was logged
        self.effects: tuple[Effect, ...] = ()  # the last step's
        self.timers: dict[Job, float] = {}
        self.asks: dict[Job, AskBot] = {}
        self.hints: list[AskHint] = []  # hint questions asked, in order (a test answers them with HintAnswered)
        self.bot: Callable[[BotQuestion], str | None] = first_legal
        self.off_turn: Callable[[BotQuestion], str | None] = lambda question: None
        self.merged: MergedTexts = {}

    # Steps

    def step(self, intent: Intent) -> tuple[Effect, ...]:
        """The state after ``intent`` now; a refusal is filed for the requester as the shell sends it."""
        try:
            self.state, self.effects = self.state.handle(intent, self.now)
        except ProtocolError as err:
            if not isinstance(intent, Request):
                raise
            self.inbox[intent.user["id"]].append(error_message(err, intent.lang, intent.msg.id, self.state.id))
            self.effects = ()
            return ()
        self.merged = merged_texts(self.effects)  # as the shell says them (a trick's end: one sentence)
        for index, effect in enumerate(self.effects):
            self.perform(effect, index)
        return self.effects

    def send(self, user: Message, type: str, /, lang: str | None = None, target: Message | None = None,
             password_ok: bool = False, password_hash: str | None = None, moderator: bool = False,
             conn: str | None = None, **fields: Any) -> list[Message]:
        """``user`` sends a table message (in the language they last used); returns what they received from it
        (the others' inboxes keep theirs). ``moderator``: the room found the sender to be a moderator; ``conn``:
        the connection it came from (its id names the node: "n2/c7")."""
        lang = self.langs[user["id"]] = lang or self.langs.get(user["id"], "en")
        inbox = self.inbox[user["id"]]
        raw = {"type": type, "table": self.state.id, **fields}
        try:  # as the shell does: a message out of the table's ranges is refused before it reaches the state
            msg = parse_client_message(raw, self.state.config)
        except ProtocolError as err:
            return [error_message(err, lang, raw.get("id"), self.state.id)]
        before = len(inbox)
        self.step(Request(user, lang, msg, conn, target, password_ok, password_hash, moderator,
                          self.auto_pass.get(user["id"], False)))
        got = inbox[before:]
        del inbox[before:]
        return got

    def ask(self, user: Message, type: str, /, **fields: Any) -> Message:
        """The reply to a request with an id (its ``re``); the rest of what the sender received stays in their
        inbox."""
        got = self.send(user, type, id=7, **fields)
        replies = [m for m in got if m.get("re") == 7]
        assert len(replies) == 1, replies
        self.inbox[user["id"]].extend(m for m in got if m.get("re") != 7)
        return replies[0]

    def presence(self, user: Message, online: bool) -> None:
        self.step(Presence(user, online))

    def restored(self, members: tuple[Member, ...], unannounced: tuple[Any, ...] = ()) -> None:
        self.step(Restored(members, unannounced))

    def perform(self, effect: Effect, index: int = -1) -> None:
        if isinstance(effect, WRITES):
            self.writes.append(effect)
            if isinstance(effect, AppendAction):
                self.acted_at.append(self.now)
        elif isinstance(effect, Announce):
            for user_id, message in deliveries(effect, self.merged.get(index)):
                self.inbox[user_id].append(message)
        elif isinstance(effect, Tell):
            message = effect.message
            if effect.say is not None:
                lang = self.langs.get(effect.user, "en")
                message = {**message, "text": translate(effect.say["key"], lang, **said_in(effect.say["params"], lang))}
            self.inbox[effect.user].append(message)
        elif isinstance(effect, StartTimer):
            self.asks.pop(effect.job, None)
            self.timers[effect.job] = effect.at
        elif isinstance(effect, AskBot):
            self.timers.pop(effect.job, None)
            self.asks[effect.job] = effect
        elif isinstance(effect, Cancel):
            self.timers.pop(effect.job, None)
            self.asks.pop(effect.job, None)
        elif isinstance(effect, AskHint):
            self.hints.append(effect)

    # Time

    def advance(self, seconds: float = 0.0) -> None:
        """Move the clock on by ``seconds``, firing the timers and answering the bots that fall due on the way,
        in the order they fall due (a bot answers at once when it is asked)."""
        end = self.now + seconds
        while self.next(end):
            pass
        self.now = end

    def next(self, until: float = float("inf")) -> bool:
        """Fire the one timer or answer the one bot that falls due first (not after ``until``); False if none."""
        due = [(at, job) for job, at in self.timers.items()] + [(ask.at, job) for job, ask in self.asks.items()]
        if not due or min(at for at, _ in due) > until:
            return False
        at, job = min(due, key=lambda pair: pair[0])
        self.now = max(self.now, at)
        if job in self.timers:
            del self.timers[job]
            self.step(TimerFired(job, at))
        else:
            self.answer(self.asks.pop(job))
        return True

    def answer(self, ask: AskBot) -> None:
        if ask.job.wait == Wait.OFF_TURN:
            for question in ask.questions:
                choice = self.off_turn(question)
                if choice is not None:
                    self.step(BotAnswered(ask.job, question, choice))
                    return
            return
        question = ask.questions[0]
        self.step(BotAnswered(ask.job, question, self.bot(question)))

    def play(self, *people: Message, until: Callable[[TableState], bool], limit: int = 5000) -> None:
        """``people`` play the first legal move (not a claim) when the game waits for them and no bot is due,
        and the bots and timers do their part, one thing at a time, until ``until(state)``."""
        for _ in range(limit):
            if until(self.state):
                return
            match = self.state.match
            assert match is not None
            seats = [self.state.seat_of(p["id"]) for p in people]
            acting = [(p, s) for p, s in zip(people, seats, strict=True) if s is not None and s in match.to_act]
            if acting and self.state.status == "playing" and not any(a.at <= self.now for a in self.asks.values()):
                user, seat = acting[0]
                legal = match.legal_actions(seat)
                self.send(user, "act", action=next((a for a in legal if a != "claim"), legal[0]))
            else:
                assert self.next(), "nothing left to happen"
        raise AssertionError("the game did not get there")

    # Reading what was said

    def take(self, user: Message) -> list[Message]:
        """Everything ``user`` received since the last take."""
        got, self.inbox[user["id"]] = self.inbox[user["id"]], []
        return got

    def texts(self, user: Message, **fields: Any) -> list[str]:
        return [m["text"] for m in self.take(user) if "text" in m and all(m.get(k) == v for k, v in fields.items())]

    def kinds(self, user: Message) -> list[str]:
        """The table events ``user`` heard since the last take, by kind."""
        return [m["kind"] for m in self.take(user) if m["type"] == "table_event"]

    def seated(self, *people: Message, bots: int = 0, level: str = "random") -> None:
        """The host seats ``people`` in order (the host first if named), then ``bots`` bots, and nobody has heard
        anything yet."""
        for index, someone in enumerate(people):
            assert self.send(someone, "sit", seat=index)[-1]["type"] == "snapshot"
        for _ in range(bots):
            if self.host["id"] not in self.state.members:
                self.send(self.host, "watch")
            self.send(self.host, "bot_add", level=level)
        for someone in {*(p["id"] for p in people), self.host["id"]}:
            self.inbox[someone] = []
        self.writes.clear()
