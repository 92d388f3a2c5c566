"""The table's vocabulary: its parts (seats, members, journal entries), what goes into its state machine
(intents) and what comes out (effects).

:class:`~trickroom.server.table_state.TableState` takes one intent and the time and answers with its new state
and a tuple of effects; :class:`~trickroom.server.table.Table` (the shell) runs the effects. Every type here is
plain data: no I/O, no clock, nothing from asyncio, the store or the bus, so that tests can build, compare and
answer them directly.

Adding an intent is a dataclass here and a branch in ``TableState.handle``; adding an effect is a dataclass here
and a case in ``Table.run``.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from trickroom.games import Event, Game
from trickroom.server.messages import AnyServerMessage
from trickroom.server.protocol import ClientMessage, Message

WAITING, PLAYING, PAUSED, FINISHED, CLOSED = "waiting", "playing", "paused", "finished", "closed"


# Parts of the state


@dataclass(frozen=True)
class Seat:
    user: Message | None = None  # user summary of the person who holds the seat
    bot: str | None = None  # bot level, for a bot's seat
    connected: bool = False
    replaced: bool = False  # a bot plays for the person (dropped past the grace period)

    @property
    def free(self) -> bool:
        return self.user is None and self.bot is None

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


@dataclass(frozen=True)
class Member:
    """Someone who follows the table (seated or watching), the language they hear it in, and whether the room
    answers ``pass`` for them when it is their only answer (the ``auto_pass`` preference, rulings B9a)."""

    user: Message
    lang: str = "en"
    auto_pass: bool = True
    conn: str | None = None  # the connection of their last watch, sit or resume (its id names its node)


@dataclass(frozen=True)
class Entry:
    """One journal entry. ``kind``: event (a raw game event with visibility markers), table_event, chat."""

    seq: int
    kind: str
    data: dict[str, Any]


@dataclass(frozen=True)
class TableSettings:
    name: str
    private: bool = False
    password_hash: str | None = None
    timer: int = 0
    bot_delay: float = 0.0
    hints: bool = False  # members may ask the hard bot for a hint (and review their hands during play)
    rated: bool = True  # False once hints were on during play: the match then changes no rating

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "private": self.private, "password_hash": self.password_hash,
                "timer": self.timer, "bot_delay": self.bot_delay, "hints": self.hints, "rated": self.rated}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TableSettings:
        return cls(name=data["name"], private=bool(data.get("private")), password_hash=data.get("password_hash"),
                   timer=int(data.get("timer", 0)), bot_delay=float(data.get("bot_delay", 0.0)),
                   hints=bool(data.get("hints", False)), rated=bool(data.get("rated", True)))


@dataclass(frozen=True)
class TableConfig:
    """What the room's settings and its bots tell every table (the same for all tables of a node)."""

    grace_seconds: float = 60.0
    timer_minimum: int = 20
    timer_maximum: int = 600
    timer_warning: int = 10
    bot_delay_maximum: float = 5.0
    chat_length: int = 500  # with the timer's and bot delay's limits, what a table's messages are checked against
    replacement_level: str = "random"  # plays for dropped players and on timeouts
    bot_levels: frozenset[str] = frozenset({"random"})  # the levels a host may seat
    off_turn_levels: frozenset[str] = frozenset()  # levels whose bots may act when the game does not wait for them
    node: str = ""  # this node's id, the start of its connections' ids
    node_url: str = ""  # its websocket address, told to players connected elsewhere ("": one node, nothing to tell)


# Who hears an entry, and what saying it needs


@dataclass(frozen=True)
class Listener:
    user: str  # user id
    seat: int | None  # the seat they hold (None: a spectator)
    lang: str


@dataclass(frozen=True)
class Scene:
    """The table as it was when an entry was made, as far as saying the entry needs it."""

    table: str  # the table's id
    name: str  # the table's name
    game: Game
    names: tuple[str | None, ...]  # each seat's person (None: a bot or nobody, named in the listener's language)
    info: Message | None = None  # the table's info without its per-language texts (table events only)


# Jobs: what the state waits for (timers and bot decisions), one at a time per kind and seat


class Wait(enum.Enum):
    GRACE = "grace"  # a dropped person's seat, until a bot plays for them
    WARNING = "warning"  # the turn timer's warning
    TIMEOUT = "timeout"  # the turn timer's end: a bot plays that turn
    BOT = "bot"  # a bot's move at its turn (or the timeout's move)
    OFF_TURN = "off_turn"  # bots that may act while the game does not wait for them (a Bura claim)
    HINT = "hint"  # the hard bot's hint for a person at their turn


@dataclass(frozen=True)
class Job:
    wait: Wait
    seat: int = 0


@dataclass(frozen=True, eq=False)
class BotQuestion:
    """Everything a bot reads to decide (exactly what a person at the seat sees), and which state asked."""

    level: str
    seed: int
    game: str
    options: dict[str, Any]
    seat: int
    view: dict[str, Any]
    events: tuple[Event, ...]
    legal: tuple[str, ...]
    move: int  # the match's number of actions when asked: the answer is for that state only
    timeout: bool = False  # the turn timer ran out: the bot plays this one turn for the person


# Intents: what reaches the state


@dataclass(frozen=True)
class Request:
    """A client's message for the table, with what the shell found out for it off the event loop."""

    user: Message
    lang: str
    msg: ClientMessage
    conn: str | None = None
    target: Message | None = None  # invite, ban: the person the room found for the message's ``user``
    password_ok: bool = False  # the message's password matched the table's (the shell checked it)
    password_hash: str | None = None  # settings: the new password, hashed by the shell
    moderator: bool = False  # the room found the sender to be a moderator (moderator_watch, close_table)
    auto_pass: bool = True  # the sender's preference (Member.auto_pass)


@dataclass(frozen=True)
class Presence:
    user: Message
    online: bool


@dataclass(frozen=True)
class LanguageChanged:
    """A member's preferences changed: their language, and ``auto_pass`` (None: as it was)."""

    user: Message
    lang: str
    auto_pass: bool | None = None


@dataclass(frozen=True)
class TimerFired:
    job: Job
    at: float  # when it was due: a timer started again since then is another one


@dataclass(frozen=True)
class BotAnswered:
    job: Job
    question: BotQuestion
    choice: str | None  # None: the bot failed (at its turn: a legal move is played for it)


@dataclass(frozen=True)
class HintAnswered:
    """The hard bot's advice for a hint (``advice``: ``Advice.to_json()``; None: it failed)."""

    ask: AskHint
    advice: dict[str, Any] | None


@dataclass(frozen=True)
class Restored:
    """The table was rebuilt from its row and log on this node (a restart or a take-over)."""

    members: tuple[Member, ...]  # the people at it who are online
    # Journal entries its last owner may have logged without announcing them (it died): said again.
    unannounced: tuple[Entry, ...] = ()


Intent = Request | Presence | LanguageChanged | TimerFired | BotAnswered | HintAnswered | Restored


# Effects: what the shell does for a step, writes first


@dataclass(frozen=True)
class AppendAction:
    move: int  # the action's number in the match (1, 2, ...): the store's fence against a second owner
    seat: int
    action: str
    event_seq: int  # the journal seq of its first event
    actor: str  # user id, or "bot:<level>"


@dataclass(frozen=True)
class SaveRow:
    """Write the table's row as the new state has it. Steps that change it several times write it once."""

    seed: int | None = None
    first_event_seq: int | None = None
    finished: bool = False  # the match ended (a row that follows from the log: a failed write is tried again)


@dataclass(frozen=True)
class KeepChat:
    seq: int
    sender: Message
    message: str


@dataclass(frozen=True)
class RecordResults:
    """Statistics and ratings of a finished match (a failure is logged, never undoes the end)."""


WRITES = (AppendAction, SaveRow, KeepChat, RecordResults)


@dataclass(frozen=True)
class Announce:
    """A journal entry for each listener, as their seat sees it, in their language (said once per seat and
    language by the shell)."""

    entry: Entry
    to: tuple[Listener, ...]
    scene: Scene
    missed: bool = False  # sent again (resume): the client may have it already
    conn: str | None = None  # to this connection of each listener only


@dataclass(frozen=True)
class Tell:
    """A finished message for one user's connections (``conn``: one of them; ``say``: a sentence key and
    parameters that each receiving node says in the connection's own language)."""

    user: str
    message: AnyServerMessage
    conn: str | None = None
    say: Message | None = None


@dataclass(frozen=True)
class StartTimer:
    job: Job
    at: float


@dataclass(frozen=True)
class AskBot:
    """Ask bots, from ``at`` on: at a turn, ``questions`` holds one; off turn, one per seat, asked in order until
    one acts (a bot that does not act off turn is not answered back)."""

    job: Job
    questions: tuple[BotQuestion, ...]
    at: float


@dataclass(frozen=True)
class AskHint:
    """Ask the hard bot what ``user`` (at ``question.seat``) should play now, and answer them (``re``: their
    request's id). The shell refuses it with ``busy`` when the room's bot workers have too much to do."""

    job: Job
    question: BotQuestion
    user: str
    conn: str | None = None
    re: Any = None


@dataclass(frozen=True)
class Cancel:
    job: Job


@dataclass(frozen=True)
class PublishListing:
    """The table's lobby entry changed."""


@dataclass(frozen=True)
class CloseTable:
    """Nobody is left: the node stops owning the table."""


Effect = (AppendAction | SaveRow | KeepChat | RecordResults | Announce | Tell | StartTimer | AskBot | AskHint | Cancel
          | PublishListing | CloseTable)
