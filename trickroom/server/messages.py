"""The protocol's server side: every message the server sends, as a ``TypedDict`` (docs/protocol.md).

A message is built as a plain dict checked by mypy against its type here (``message: Welcome = {...}``, or
``Welcome(type="welcome", ...)``), so sending costs nothing more: :meth:`Connection.send` encodes it once
(``frames.encode``). :data:`AnyServerMessage` is their union; ``trickroom protocol-schema`` exports its JSON Schema
with the client messages' (:func:`trickroom.server.protocol.protocol_schema`). Nested parts that come from the games
(a view, an event, standings, options) are plain JSON objects here: their shapes are the games'.
"""

from __future__ import annotations

from typing import (
    Any,
    Literal,
    NotRequired,  # pydantic needs these on Python 3.11
)

from typing_extensions import TypedDict

from trickroom.server.protocol import ClientId

JSON = dict[str, Any]
# How a screen reader should say a message: "assertive" only for what asks the listener to act now (issue 21).
Urgency = Literal["assertive", "polite"]


class UserSummary(TypedDict):
    id: str
    name: str
    guest: bool


# Connecting and accounts


class TimerLimits(TypedDict):
    min: int
    max: int


class Limits(TypedDict):
    max_message_bytes: int
    max_frame_bytes: int
    messages_per_second: float
    chat_length: int


class Hello(TypedDict):
    type: Literal["hello"]
    protocol: int  # the newest version this server speaks
    protocols: list[int]  # every version it serves
    server: str
    games: list[JSON]  # narration.games.game_entry
    bot_levels: list[str]
    node: str
    nodes: list[str]
    timer: TimerLimits
    limits: Limits


class Welcome(TypedDict):
    type: Literal["welcome"]
    user: UserSummary
    token: str
    preferences: JSON
    tables: list[str]
    text: str
    re: NotRequired[ClientId]


class LineMessage(TypedDict):
    """A newcomer's login waits: the node is full for now (trickroom.server.waiting_line). Not an answer: the
    login's own answer (welcome or error) comes when their turn does."""
    type: Literal["line"]
    position: int  # 1: next in
    text: str


class PreferencesMessage(TypedDict):
    type: Literal["preferences"]
    preferences: JSON
    re: NotRequired[ClientId]


class Pong(TypedDict):
    type: Literal["pong"]
    re: NotRequired[ClientId]


class Ok(TypedDict):
    type: Literal["ok"]
    re: NotRequired[ClientId]  # always there but for a moderator's action sent without an id
    table: NotRequired[str]
    text: NotRequired[str]  # a moderator's action said done ("Anna is muted for 10 minutes.")
    ban: NotRequired[int]  # the room ban just made


class ErrorMessage(TypedDict):
    type: Literal["error"]
    code: str
    text: str
    re: NotRequired[ClientId]
    table: NotRequired[str]
    retry_after: NotRequired[int]  # too_many_attempts
    until: NotRequired[str]  # room_banned until then


class Reconnect(TypedDict):
    type: Literal["reconnect"]
    nodes: list[str]
    text: str


class TableNode(TypedDict):
    """A table's node, to a player seated there whose connection is on another node: their client may move there
    without a word, so that the table's messages stop crossing between nodes (docs/protocol.md, "Moving to the
    table's node"; trickroom.server.table_requests.tell_table_node says when)."""
    type: Literal["table_node"]
    table: str
    node: str
    url: str


# Lobby


class TableEntry(TypedDict):
    id: str
    name: str
    game: str
    title: str
    options: JSON
    options_text: str
    seats: int
    taken: int
    bots: int
    spectators: int
    status: str
    private: bool
    password: bool
    host: UserSummary


class LobbySnapshot(TypedDict):
    type: Literal["lobby"]
    seq: int
    users: list[UserSummary]
    tables: list[TableEntry]
    in_play: NotRequired[int]  # an "open" lobby: how many public tables are in play (yours among them)
    online: NotRequired[int]  # an "auto" lobby: how many people are online (you among them)
    people: NotRequired[Literal["listed", "counted"]]  # an "auto" lobby: users lists everyone, or nobody
    re: NotRequired[ClientId]


class PeopleList(TypedDict):
    """The answer to ``people``: everyone online now, once (not kept up to date)."""

    type: Literal["people"]
    users: list[UserSummary]
    online: int
    re: NotRequired[ClientId]


class Presence(TypedDict):
    type: Literal["presence"]
    seq: int
    user: UserSummary
    online: bool
    text: str


class TableListed(TypedDict):
    type: Literal["table_listed"]
    seq: int
    entry: TableEntry


class TableUnlisted(TypedDict):
    type: Literal["table_unlisted"]
    seq: int
    id: str


class PresenceChange(TypedDict):
    user: UserSummary
    online: bool
    text: str


class LobbyBatch(TypedDict):
    """Protocol 2: the lobby's changes since the last batch, at most one batch every lobby_batch_seconds."""

    type: Literal["lobby_batch"]
    seq: int
    listed: list[TableEntry]  # new or changed tables, each once, as it is now
    unlisted: list[str]  # the ids of tables gone from your lobby
    presence: list[PresenceChange]  # people who came in or left, each once
    in_play: NotRequired[int]  # an "open" lobby: how many public tables are in play now (yours among them)
    online: NotRequired[int]  # an "auto" lobby: how many people are online now (you among them)


class Batch(TypedDict):
    """Protocol 3: the messages one step of a table sends to this connection (its events, the update, your turn,
    an answer), in order, in one frame. Each is a server message of its own type, as it would come alone."""

    type: Literal["batch"]
    messages: list[dict[str, Any]]


# Lobby chat (no ``table``) and table chat (with it) are one type.
ChatMessage = TypedDict("ChatMessage", {
    "type": Literal["chat"], "seq": int, "from": UserSummary, "message": str, "text": str,
    "table": NotRequired[str], "missed": NotRequired[bool], "urgency": NotRequired[Urgency]})
# ``text`` is made where each copy is delivered, in its reader's language.
PrivateMessage = TypedDict("PrivateMessage", {
    "type": Literal["private"], "from": UserSummary, "to": UserSummary, "message": str, "text": NotRequired[str]})
Invited = TypedDict("Invited", {
    "type": Literal["invited"], "table": str, "from": UserSummary, "entry": JSON, "text": NotRequired[str]})


# Tables (table_state.py, table_render.py, table_requests.py)


class You(TypedDict):
    seat: int | None
    host: bool


class TurnState(TypedDict):
    to_act: list[int]
    legal: list[str]
    deadline: float | None
    move: int


class Snapshot(TypedDict):
    type: Literal["snapshot"]
    table: str
    seq: int
    info: JSON  # the table info (TableState.facts with its texts)
    you: You
    view: JSON | None
    to_act: list[int]
    legal: list[str]
    deadline: float | None
    move: int
    standings: JSON | None
    hand_results: list[JSON]
    re: NotRequired[ClientId]


class Update(TypedDict):
    type: Literal["update"]
    table: str
    seq: int
    view: JSON
    to_act: list[int]
    legal: list[str]
    deadline: float | None
    move: int


class YourTurn(TypedDict):
    type: Literal["your_turn"]
    table: str
    seq: int
    legal: list[str]
    deadline: float | None
    move: int
    text: str
    urgency: Urgency


class Timer(TypedDict):
    type: Literal["timer"]
    table: str
    seq: int
    seconds_left: int
    text: str
    urgency: Urgency


class Event(TypedDict):
    type: Literal["event"]
    table: str
    seq: int
    event: JSON
    text: str
    urgency: Urgency
    missed: NotRequired[bool]


class TableEvent(TypedDict):
    type: Literal["table_event"]
    table: str
    seq: int
    kind: str
    info: JSON
    text: str
    urgency: Urgency
    user: NotRequired[UserSummary]
    seat: NotRequired[int]
    standings: NotRequired[JSON]
    missed: NotRequired[bool]


class Left(TypedDict):
    type: Literal["left"]
    table: str
    reason: Literal["left", "kicked", "banned", "closed"]
    text: NotRequired[str]  # "closed" (a moderator closed the table): made on delivery, in the reader's language


class HintMessage(TypedDict):
    type: Literal["hint"]
    table: str
    seq: int
    move: int
    action: str
    text: str
    re: NotRequired[ClientId]


# Statistics and finished games (replays.py)


class Stats(TypedDict):
    type: Literal["stats"]
    user: UserSummary
    games: dict[str, JSON]
    re: NotRequired[ClientId]


class History(TypedDict):
    type: Literal["history"]
    table: str
    game: str
    options: JSON
    name: str | None
    seed: int | None
    seed_text: str
    decks: list[list[str]] | None
    seats: list[JSON]
    actions: list[JSON]
    chat: list[JSON]
    standings: JSON | None
    finished_at: str | None
    re: NotRequired[ClientId]


class Games(TypedDict):
    type: Literal["games"]
    user: UserSummary
    games: list[JSON]
    re: NotRequired[ClientId]


class Replay(TypedDict):
    type: Literal["replay"]
    table: str
    game: str
    title: str
    name: str
    finished_at: str | None
    you: int | None
    seats: list[JSON]
    hands: list[JSON]
    total: int
    hand: int
    steps: list[JSON]
    standings: JSON | None
    re: NotRequired[ClientId]


class Transcript(TypedDict):
    type: Literal["transcript"]
    table: str
    text: str
    re: NotRequired[ClientId]


class Review(TypedDict):
    type: Literal["review"]
    table: str
    hand: int
    seat: int
    status: Literal["computing", "ready"]
    items: list[JSON]
    text: str
    re: NotRequired[ClientId]


# The moderation desk (server/moderator_room.py, docs/moderation.md). Reports, audit entries and table listings
# are JSON objects whose fields docs/protocol.md describes.


class Motd(TypedDict):
    type: Literal["motd"]
    message: str
    text: str


class ModeratorWelcome(TypedDict):
    type: Literal["moderator"]
    roles: list[str]
    reports: list[JSON]
    text: str


class Reported(TypedDict):
    type: Literal["reported"]
    user: JSON
    text: str
    re: NotRequired[ClientId]


class Ignored(TypedDict):
    type: Literal["ignored"]
    user: JSON
    ignore: bool
    text: str
    re: NotRequired[ClientId]


class PasswordChanged(TypedDict):
    type: Literal["password_changed"]
    token: str
    text: str
    re: NotRequired[ClientId]


class AccountDeleted(TypedDict):
    type: Literal["account_deleted"]
    text: str
    re: NotRequired[ClientId]


class TableChat(TypedDict):
    type: Literal["table_chat"]
    table: str
    chat: list[JSON]
    re: NotRequired[ClientId]


class AllTables(TypedDict):
    type: Literal["all_tables"]
    tables: list[TableEntry]
    re: NotRequired[ClientId]


class Reports(TypedDict):
    type: Literal["reports"]
    reports: list[JSON]
    re: NotRequired[ClientId]


class Audit(TypedDict):
    type: Literal["audit"]
    entries: list[JSON]
    re: NotRequired[ClientId]


class ReportArrived(TypedDict):
    type: Literal["report"]
    report: JSON
    text: str


ModeratorsLine = TypedDict("ModeratorsLine", {
    "type": Literal["moderators"], "from": JSON, "message": str, "text": str})


class Announcement(TypedDict):
    type: Literal["announcement"]
    message: str
    text: str


AnyServerMessage = (
    Hello | Welcome | LineMessage | PreferencesMessage | Pong | Ok | ErrorMessage | Reconnect | TableNode
    | LobbySnapshot | PeopleList | Presence | TableListed | TableUnlisted | LobbyBatch | Batch | ChatMessage
    | PrivateMessage | Invited | Snapshot | Update | YourTurn | Timer | Event | TableEvent | Left | HintMessage
    | Stats | History | Games | Replay | Transcript | Review | Motd | ModeratorWelcome | Reported | Ignored
    | PasswordChanged | AccountDeleted | TableChat | AllTables | Reports | Audit | ReportArrived | ModeratorsLine
    | Announcement
)




def ok(re: ClientId, table: str | None = None) -> Ok:
    """The acknowledgement of a client message with an id that has no other direct answer."""
    message = Ok(type="ok", re=re)
    if table is not None:
        message["table"] = table
    return message
