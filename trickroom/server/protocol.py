"""The protocol's schema, version 1: every client message as a pydantic model, the server's message types and
error codes. ``docs/protocol.md`` describes the same thing for client writers; keep the two in step.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

PROTOCOL_VERSION = 1

ClientId = Annotated[Annotated[str, Field(max_length=64)] | int, Field(union_mode="left_to_right")]
TableId = Annotated[str, Field(min_length=1, max_length=32)]
UserRef = Annotated[str, Field(min_length=1, max_length=64)]
Message = dict[str, Any]


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


class Register(ClientMessage):
    type: Literal["register"]
    protocol: int | None = None
    username: str
    password: str
    lang: str | None = None


class Logout(ClientMessage):
    type: Literal["logout"]


class Preferences(ClientMessage):
    type: Literal["preferences"]
    lang: Literal["en", "ru"] | None = None
    verbosity: Literal["full", "brief", "off"] | None = None
    sounds: bool | None = None


class Ping(ClientMessage):
    type: Literal["ping"]


# Lobby


class LobbyRequest(ClientMessage):
    type: Literal["lobby"]


class Chat(ClientMessage):
    """Lobby chat without ``table``, table chat with it."""

    type: Literal["chat"]
    message: str
    table: TableId | None = None


class Private(ClientMessage):
    type: Literal["private"]
    to: UserRef
    message: str


# Tables


class Create(ClientMessage):
    type: Literal["create"]
    game: str
    options: dict[str, Any] = Field(default_factory=dict)
    name: Annotated[str, Field(max_length=60)] | None = None
    private: bool = False
    password: Annotated[str, Field(max_length=200)] | None = None
    timer: int = 0
    bot_delay: float = 0.0
    # Test-only (Settings.allow_test_decks): a fixed deal for browser and terminal tests.
    seed: Annotated[int, Field(ge=0, lt=2**63)] | None = None
    decks: Annotated[list[list[Annotated[str, Field(max_length=3)]]], Field(max_length=8)] | None = None


class StatsRequest(ClientMessage):
    type: Literal["stats"]
    user: UserRef | None = None  # id or name; None: yourself


class HistoryRequest(ClientMessage):
    type: Literal["history"]
    table: TableId


class TableMessage(ClientMessage):
    table: TableId


class SetOptions(TableMessage):
    type: Literal["options"]
    options: dict[str, Any]


class SetSettings(TableMessage):
    type: Literal["settings"]
    name: Annotated[str, Field(max_length=60)] | None = None
    private: bool | None = None
    password: Annotated[str, Field(max_length=200)] | None = None
    timer: int | None = None
    bot_delay: float | None = None


class Watch(TableMessage):
    type: Literal["watch"]
    password: str | None = None


class Sit(TableMessage):
    type: Literal["sit"]
    seat: int
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
    action: Annotated[str, Field(min_length=1, max_length=200)]
    # The `move` of the state the client acted on (update, your_turn, snapshot): makes a resent act harmless.
    move: Annotated[int, Field(ge=0)] | None = None


class Resume(TableMessage):
    type: Literal["resume"]
    after: int = 0


AnyClientMessage = Annotated[
    Login | Register | Logout | Preferences | Ping | LobbyRequest | Chat | Private | Create | SetOptions
    | SetSettings | Watch | Sit | Stand | Leave | BotAdd | BotRemove | Start | Pause | Kick | Ban | Host | Invite
    | Act | Resume | StatsRequest | HistoryRequest,
    Field(discriminator="type"),
]
CLIENT_TYPES = frozenset({
    "login", "register", "logout", "preferences", "ping", "lobby", "chat", "private", "create", "options",
    "settings", "watch", "sit", "stand", "leave", "bot_add", "bot_remove", "start", "pause", "kick", "ban", "host",
    "invite", "act", "resume", "stats", "history",
})
# Messages handled by the table's owner (everything with a table except table chat, which is too).
TABLE_TYPES = frozenset({
    "options", "settings", "watch", "sit", "stand", "leave", "bot_add", "bot_remove", "start", "pause", "kick",
    "ban", "host", "invite", "act", "resume",
})

_adapter: TypeAdapter[AnyClientMessage] = TypeAdapter(AnyClientMessage)


class ProtocolError(Exception):
    """A message the server refuses: becomes ``{"type": "error", "code": code, "text": ...}``.

    ``key`` is the room catalog's message id for the sentence, ``params`` its parameters.
    """

    def __init__(self, code: str, key: str | None = None, **params: Any) -> None:
        super().__init__(code)
        self.code = code
        self.key = key or f"error.{code}"
        self.params = params


def parse_client_message(raw: Any) -> ClientMessage:
    """The typed message for a decoded JSON value, or :class:`ProtocolError` (bad_message, unknown_type)."""
    if not isinstance(raw, dict):
        raise ProtocolError("bad_message", "error.not_object")
    kind = raw.get("type")
    if not isinstance(kind, str) or kind not in CLIENT_TYPES:
        raise ProtocolError("unknown_type", kind=str(kind)[:40])
    try:
        message: ClientMessage = _adapter.validate_python(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        location = first.get("loc", ())
        field = str(location[1]) if len(location) > 1 else "message"  # [0] is the message type
        raise ProtocolError("bad_message", field=field[:60]) from None
    return message


# Server message types, for reference and for clients written in Python.
SERVER_TYPES = frozenset({
    "hello", "welcome", "lobby", "presence", "table_listed", "table_unlisted", "chat", "private", "invited",
    "preferences", "snapshot", "event", "update", "your_turn", "timer", "table_event", "left", "error", "ok",
    "pong", "stats", "history", "reconnect",
})

ERROR_CODES = frozenset({
    "bad_json", "bad_message", "unknown_type", "too_big", "rate_limited", "not_logged_in", "bad_protocol",
    "login_failed", "name_taken", "bad_name", "bad_password", "bad_token", "too_many_attempts", "chat_too_long",
    "unknown_user", "no_table", "not_member", "banned", "private", "wrong_password", "seat_taken", "bad_seat",
    "already_started", "not_started", "not_host", "not_ready", "bad_options", "bad_level", "not_your_turn",
    "illegal", "finished", "paused", "internal", "not_finished", "test_decks_off",
})

TABLE_EVENT_KINDS = frozenset({
    "joined", "sat", "stood", "left", "kicked", "banned", "bot_added", "bot_removed", "options",
    "settings", "host", "started", "paused", "resumed", "pause_requested", "pause_cancelled", "disconnected",
    "reconnected", "bot_took_over", "took_back", "timeout", "finished", "invited",
})


def user_summary(user_id: str, name: str, guest: bool) -> Message:
    return {"id": user_id, "name": name, "guest": guest}
