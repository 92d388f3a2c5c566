"""The protocol's schema, versions 1 and 2: every client message as a pydantic model, and the refusal they may get
(:class:`ProtocolError`); the server's messages are in :mod:`trickroom.server.messages`. ``docs/protocol.md``
describes the same thing for client writers (and every error code); its message tables are checked against
:func:`protocol_schema` (``trickroom protocol-schema``) by ``tests/test_protocol_schema.py``.

A message is checked whole when it is parsed (:func:`parse_client_message`), ranges included: those that depend on
the room's settings (the turn timer, the bot delay, the length of chat) read them from the validation context
(:class:`MessageLimits`: the room's ``Settings`` or a table's ``TableConfig``). A handler gets the typed message
and trusts it.
"""

from __future__ import annotations

import typing
from dataclasses import dataclass
from typing import Annotated, Any, Literal, Protocol, TypeVar, cast

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    TypeAdapter,
    ValidationError,
    ValidationInfo,
    field_validator,
)

from trickroom.server.accounts import valid_password
from trickroom.server.hygiene import REASON_LENGTH, clean_chat, clean_reason, clean_table_name

# The newest; a client may ask for any of PROTOCOLS at login (1: no lobby batches; 2: no step batches).
PROTOCOL_VERSION = 3
PROTOCOLS = (1, 2, 3)

ClientId = Annotated[Annotated[str, Field(max_length=64)] | int, Field(union_mode="left_to_right")]
TableId = Annotated[str, Field(min_length=1, max_length=32)]
UserRef = Annotated[str, Field(min_length=1, max_length=64)]
Message = dict[str, Any]
M = TypeVar("M")


class MessageLimits(Protocol):
    """The settings a message's ranges depend on (``Settings`` and ``TableConfig`` have them)."""

    @property
    def timer_minimum(self) -> int: ...

    @property
    def timer_maximum(self) -> int: ...

    @property
    def bot_delay_maximum(self) -> float: ...

    @property
    def chat_length(self) -> int: ...


@dataclass(frozen=True)
class DefaultLimits:
    timer_minimum: int = 20
    timer_maximum: int = 600
    bot_delay_maximum: float = 5.0
    chat_length: int = 500


DEFAULT_LIMITS = DefaultLimits()


def limits_of(info: ValidationInfo) -> MessageLimits:
    context = info.context
    return cast(MessageLimits, context) if context is not None else DEFAULT_LIMITS


def check_timer(value: int | None, info: ValidationInfo) -> int | None:
    """A turn timer: 0 (none) or within the room's limits."""
    limits = limits_of(info)
    if value and not limits.timer_minimum <= value <= limits.timer_maximum:
        raise ProtocolError("bad_message", "error.timer", low=limits.timer_minimum, high=limits.timer_maximum)
    return value


def check_bot_delay(value: float | None, info: ValidationInfo) -> float | None:
    limits = limits_of(info)
    if value is not None and not 0 <= value <= limits.bot_delay_maximum:
        raise ProtocolError("bad_message", "error.bot_delay", high=limits.bot_delay_maximum)
    return value


def chat_text(text: str, limits: MessageLimits) -> str:
    """Chat as people read it (hygiene.clean_chat): not empty, not longer than ``chat_length``."""
    text = clean_chat(text)
    if not text:
        raise ProtocolError("bad_message", field="message")
    if len(text) > limits.chat_length:
        raise ProtocolError("chat_too_long", limit=limits.chat_length)
    return text


def check_chat(text: str, info: ValidationInfo) -> str:
    return chat_text(text, limits_of(info))


def cleaned_name(name: str | None) -> str | None:
    return clean_table_name(name) if name else name  # "" if nothing is left: a new table gets the default name


TableName = Annotated[Annotated[str, Field(max_length=60)] | None, AfterValidator(cleaned_name)]
ChatText = Annotated[str, AfterValidator(check_chat)]


# Which tables a lobby lists: every one, or ("open") those waiting for players and the connection's own.
LobbyTables = Literal["all", "open"]
# Who a lobby lists: everyone online with their comings and goings, or ("auto") so while the room is small and, in
# a busy room (Settings.lobby_people_limit), their count instead (the list on request: People).
LobbyPeople = Literal["all", "auto"]


class ClientMessage(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)
    id: ClientId | None = None


# Connecting and accounts


class Login(ClientMessage):
    type: Literal["login"]
    protocol: int | None = None
    nickname: str | None = None
    username: str | None = None
    password: str | None = None
    token: str | None = None
    lang: str | None = None
    lobby_tables: LobbyTables | None = None
    lobby_people: LobbyPeople | None = None
    # False: no lobby snapshot and no lobby changes until the client asks (``lobby``): a client coming back to the
    # table it shows (a move to the table's node) does not need the lobby it would drop at once.
    follow_lobby: bool = True


class Register(ClientMessage):
    type: Literal["register"]
    protocol: int | None = None
    username: str
    password: str
    lang: str | None = None
    lobby_tables: LobbyTables | None = None
    lobby_people: LobbyPeople | None = None


class Logout(ClientMessage):
    type: Literal["logout"]


class Preferences(ClientMessage):
    type: Literal["preferences"]
    lang: Literal["en", "ru", "el"] | None = None
    verbosity: Literal["full", "brief", "off"] | None = None
    sounds: bool | None = None
    auto_pass: bool | None = None  # the room answers pass for you when you hold nothing to announce (B9a)
    lobby_chat_at_table: bool | None = None  # the lobby's chat heard while a table is shown (not following)


class Ping(ClientMessage):
    type: Literal["ping"]


# Lobby


class LobbyRequest(ClientMessage):
    """A fresh lobby, and its changes from then on (``follow``, the default); ``follow`` false: no more of them
    (a client at a table), until the next ``lobby``."""

    type: Literal["lobby"]
    follow: bool = True
    tables: LobbyTables | None = None  # None: as the connection had it
    people: LobbyPeople | None = None  # likewise


class People(ClientMessage):
    """Everyone online, once (a busy room's lobby counts them instead of listing them)."""

    type: Literal["people"]


class Chat(ClientMessage):
    """Lobby chat without ``table``, table chat with it."""

    type: Literal["chat"]
    message: ChatText
    table: TableId | None = None


class Private(ClientMessage):
    type: Literal["private"]
    to: UserRef
    message: ChatText


# Tables


class Create(ClientMessage):
    type: Literal["create"]
    game: str
    options: dict[str, Any] = Field(default_factory=dict)
    name: TableName = None
    private: bool = False
    password: Annotated[str, Field(max_length=200)] | None = None
    timer: int = 0
    bot_delay: float = 0.0
    hints: bool = False  # the hard bot's hints at this table (a match with hints on changes no rating)
    # Test-only (Settings.allow_test_decks): a fixed deal for browser and terminal tests.
    seed: Annotated[int, Field(ge=0, lt=2**63)] | None = None
    decks: Annotated[list[list[Annotated[str, Field(max_length=3)]]], Field(max_length=8)] | None = None

    _timer = field_validator("timer")(check_timer)
    _bot_delay = field_validator("bot_delay")(check_bot_delay)


class StatsRequest(ClientMessage):
    type: Literal["stats"]
    user: UserRef | None = None  # id or name; None: yourself


class HistoryRequest(ClientMessage):
    type: Literal["history"]
    table: TableId


# Replays, the review of a hand, finished games (server/replays.py)


class GamesRequest(ClientMessage):
    """A user's finished games, the latest first."""

    type: Literal["games"]
    user: UserRef | None = None  # id or name; None: yourself
    limit: Annotated[int, Field(ge=1, le=100)] = 20


class ReplayRequest(ClientMessage):
    """One hand of a finished table, step by step (default: the first)."""

    type: Literal["replay"]
    table: TableId
    hand: Annotated[int, Field(ge=1, le=100_000)] = 1


class TranscriptRequest(ClientMessage):
    type: Literal["transcript"]
    table: TableId


class ReviewRequest(ClientMessage):
    """The hard bot's review of one seat's decisions in a finished hand."""

    type: Literal["review"]
    table: TableId
    hand: Annotated[int, Field(ge=1, le=100_000)] | None = None  # default: the last finished hand
    seat: Annotated[int, Field(ge=0, lt=16)] | None = None  # default: your own seat


class TableMessage(ClientMessage):
    table: TableId


class SetOptions(TableMessage):
    type: Literal["options"]
    options: dict[str, Any]


class SetSettings(TableMessage):
    type: Literal["settings"]
    name: TableName = None
    private: bool | None = None
    password: Annotated[str, Field(max_length=200)] | None = None
    timer: int | None = None
    bot_delay: float | None = None
    hints: bool | None = None

    _timer = field_validator("timer")(check_timer)
    _bot_delay = field_validator("bot_delay")(check_bot_delay)


class Watch(TableMessage):
    type: Literal["watch"]
    password: str | None = None


class Sit(TableMessage):
    type: Literal["sit"]
    seat: int | None = None  # None: any free seat, so that two people joining at once never pick the same one
    password: str | None = None


class Stand(TableMessage):
    type: Literal["stand"]


class Leave(TableMessage):
    type: Literal["leave"]


class BotAdd(TableMessage):
    type: Literal["bot_add"]
    level: str
    seat: int | None = None


class BotRemove(TableMessage):
    type: Literal["bot_remove"]
    seat: int


class Start(TableMessage):
    type: Literal["start"]


class Pause(TableMessage):
    type: Literal["pause"]
    paused: bool = True


class Kick(TableMessage):
    type: Literal["kick"]
    user: UserRef


class Ban(TableMessage):
    type: Literal["ban"]
    user: UserRef


class Host(TableMessage):
    type: Literal["host"]
    user: UserRef


class Invite(TableMessage):
    type: Literal["invite"]
    user: UserRef


class Act(TableMessage):
    type: Literal["act"]
    action: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]
    # The `move` of the state the client acted on (update, your_turn, snapshot): makes a resent act harmless.
    move: Annotated[int, Field(ge=0)] | None = None


class Resume(TableMessage):
    type: Literal["resume"]
    after: int = 0


class Hint(TableMessage):
    """What the hard bot would play now, for the seat of the sender (tables with hints on)."""

    type: Literal["hint"]


# Moderation, players' tools and one's own account (server/moderator_room.py, player_tools.py; docs/moderation.md).
# A reason arrives as the store keeps it (hygiene.clean_reason: one line, None when cleaning leaves nothing).
Reason = Annotated[Annotated[str, Field(max_length=REASON_LENGTH)] | None, AfterValidator(clean_reason)]
Minutes = Annotated[int, Field(ge=1, le=60 * 24 * 366)]


def reported_reason(reason: str) -> str:
    if (cleaned := clean_reason(reason)) is None:  # only spaces or control characters: a report says why
        raise ValueError("empty reason")  # bad_message, field "reason"
    return cleaned


def new_password(password: str) -> str:
    if not valid_password(password):
        raise ProtocolError("bad_password")
    return password


class Report(ClientMessage):
    """Report a player to the moderators: the person and a reason (from a table: ``table``)."""

    type: Literal["report"]
    user: UserRef
    reason: Annotated[str, Field(min_length=1, max_length=REASON_LENGTH), AfterValidator(reported_reason)]
    table: TableId | None = None


class Ignore(ClientMessage):
    """Hear nothing from ``user`` (no private messages, no chat anywhere); ``ignore`` false: hear them again."""

    type: Literal["ignore"]
    user: UserRef
    ignore: bool = True


class ChangePassword(ClientMessage):
    type: Literal["change_password"]
    old: Annotated[str, Field(max_length=200)]
    new: Annotated[str, Field(max_length=200), AfterValidator(new_password)]  # bad_password: too short or long


class DeleteAccount(ClientMessage):
    """Delete one's own account and its personal data (the password again, to be sure)."""

    type: Literal["delete_account"]
    password: Annotated[str, Field(max_length=200)]


class Mute(ClientMessage):
    """A moderator silences ``user`` in the lobby chat for ``minutes`` (None: until lifted)."""

    type: Literal["mute"]
    user: UserRef
    minutes: Minutes | None = None
    reason: Reason = None


class Unmute(ClientMessage):
    type: Literal["unmute"]
    user: UserRef


class Remove(ClientMessage):
    """A moderator removes ``user`` from the room (every connection, on every node)."""

    type: Literal["remove"]
    user: UserRef
    reason: Reason = None


class RoomBan(ClientMessage):
    """A moderator bans ``user`` from the room: their account or nickname and their connections' addresses,
    for ``minutes`` (None: for good)."""

    type: Literal["room_ban"]
    user: UserRef
    minutes: Minutes | None = None
    reason: Reason = None


class CloseTableRequest(TableMessage):
    """A moderator closes any table; every member hears why."""

    type: Literal["close_table"]
    reason: Annotated[str, Field(min_length=1, max_length=500)]


class ModeratorWatch(TableMessage):
    """A moderator watches any table, private and password ones too (the table hears "A moderator is watching.")."""

    type: Literal["moderator_watch"]


class TableChatRequest(TableMessage):
    """A moderator reads the chat of a table someone reported (or the room flagged)."""

    type: Literal["table_chat"]


class AllTablesRequest(ClientMessage):
    """A moderator's list of every table in the room, private ones included."""

    type: Literal["all_tables"]


class ReportsRequest(ClientMessage):
    type: Literal["reports"]


class HandleReport(ClientMessage):
    type: Literal["handle_report"]
    report: Annotated[int, Field(ge=1)]
    outcome: Reason = None


class ModeratorsChat(ClientMessage):
    """A line in the moderators' channel (moderators and admins only)."""

    type: Literal["moderators"]
    message: ChatText


class AuditRequest(ClientMessage):
    """The audit log, the newest first (admins)."""

    type: Literal["audit"]
    limit: Annotated[int, Field(ge=1, le=200)] = 50


class AnnounceRequest(ClientMessage):
    """An admin's announcement to everyone in the room ("The room restarts in five minutes.")."""

    type: Literal["announce"]
    message: ChatText


class SetMotd(ClientMessage):
    """An admin sets the message of the day, said at every sign-in ("" clears it)."""

    type: Literal["motd"]
    message: Annotated[str, Field(max_length=REASON_LENGTH), AfterValidator(lambda text: clean_reason(text) or "")]


AnyClientMessage = Annotated[
    Login | Register | Logout | Preferences | Ping | LobbyRequest | People | Chat | Private | Create | SetOptions
    | SetSettings | Watch | Sit | Stand | Leave | BotAdd | BotRemove | Start | Pause | Kick | Ban | Host | Invite
    | Act | Resume | Hint | StatsRequest | HistoryRequest | GamesRequest | ReplayRequest | TranscriptRequest
    | ReviewRequest | Report | Ignore | ChangePassword | DeleteAccount | Mute | Unmute | Remove | RoomBan
    | CloseTableRequest | ModeratorWatch | TableChatRequest | AllTablesRequest | ReportsRequest | HandleReport
    | ModeratorsChat | AuditRequest | AnnounceRequest | SetMotd,
    Field(discriminator="type"),
]
# The types, from the union: every client message type, and the ones answered from a finished game's records.
CLIENT_MODELS: dict[str, type[ClientMessage]] = {
    typing.get_args(model.model_fields["type"].annotation)[0]: model
    for model in typing.get_args(typing.get_args(AnyClientMessage)[0])
}
CLIENT_TYPES = frozenset(CLIENT_MODELS)
# Moderation, players' tools and one's own account, answered by the node that receives them (server/player_tools.py,
# server/moderator_room.py; close_table and moderator_watch then go on to the table's owner).
MODERATION_MODELS: tuple[type[ClientMessage], ...] = (
    Report, Ignore, ChangePassword, DeleteAccount, Mute, Unmute, Remove, RoomBan, CloseTableRequest, ModeratorWatch,
    TableChatRequest, AllTablesRequest, ReportsRequest, HandleReport, ModeratorsChat, AuditRequest, AnnounceRequest,
    SetMotd)

_adapter: TypeAdapter[AnyClientMessage] = TypeAdapter(AnyClientMessage)


class ProtocolError(Exception):
    """A message the server refuses: becomes ``{"type": "error", "code": code, "text": ...}``.

    ``key`` is the room catalog's message id for the sentence, ``params`` its parameters; ``extra`` holds more
    fields for the error message itself (``retry_after`` of ``too_many_attempts``).
    """

    def __init__(self, code: str, key: str | None = None, **params: Any) -> None:
        super().__init__(code)
        self.code = code
        self.key = key or f"error.{code}"
        self.params = params
        self.extra: dict[str, Any] = {}


def parse_client_message(raw: Any, limits: MessageLimits | None = None) -> ClientMessage:
    """The typed message for a decoded JSON value, or :class:`ProtocolError` (bad_message, unknown_type, or the
    refusal of a range: ``limits``, the room's, default :data:`DEFAULT_LIMITS`)."""
    if not isinstance(raw, dict):
        raise ProtocolError("bad_message", "error.not_object")
    kind = raw.get("type")
    if not isinstance(kind, str) or kind not in CLIENT_TYPES:
        raise ProtocolError("unknown_type", kind=str(kind)[:40])
    try:
        message: ClientMessage = _adapter.validate_python(raw, context=limits)
    except ValidationError as exc:
        first = exc.errors()[0]
        location = first.get("loc", ())
        field = str(location[1]) if len(location) > 1 else "message"  # [0] is the message type
        raise ProtocolError("bad_message", field=field[:60]) from None
    return message


TABLE_EVENT_KINDS = frozenset({
    "joined", "sat", "stood", "left", "kicked", "banned", "bot_added", "bot_removed", "options",
    "settings", "host", "started", "paused", "resumed", "pause_requested", "pause_cancelled", "disconnected",
    "reconnected", "bot_took_over", "took_back", "timeout", "finished", "invited", "moderator_watching",
})


def user_summary(user_id: str, name: str, guest: bool) -> Message:
    return {"id": user_id, "name": name, "guest": guest}


def number_in(ref: str, prefix: str) -> int | None:
    """The number of an id such as ``u12`` or ``t5`` (``prefix`` "u" or "t"); None if ``ref`` is not one, or is
    too long to be a database key."""
    digits = ref[len(prefix):] if ref.startswith(prefix) else ""
    return int(digits) if digits.isascii() and digits.isdigit() and len(digits) <= 18 else None


def replying(message: M, re: Any) -> M:
    """``message`` as the direct answer to a client message whose id was ``re`` (None: it had none)."""
    if re is not None:
        cast(Message, message)["re"] = re
    return message


def protocol_schema() -> dict[str, Any]:
    """The JSON Schema of both directions: ``client`` (what the server accepts) and ``server`` (what it sends)."""
    from trickroom.server.messages import AnyServerMessage

    return {"protocol": PROTOCOL_VERSION,
            "client": _adapter.json_schema(),
            "server": TypeAdapter(AnyServerMessage).json_schema()}
