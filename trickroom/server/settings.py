"""Server settings: command-line flags > environment variables ``TRICKROOM_*`` > an optional settings file.

The file is a ``.env``-style file (``KEY=value`` lines, keys with or without the ``TRICKROOM_`` prefix) named by
``--config`` or ``TRICKROOM_CONFIG``.
"""

from __future__ import annotations

import os
from typing import Annotated, Any

from pydantic import Field, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

DEFAULT_DB = "sqlite:///trickroom.sqlite3"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="TRICKROOM_", extra="ignore")

    host: str = "127.0.0.1"
    port: int = 8000
    db: str = DEFAULT_DB
    db_schema: str | None = None  # PostgreSQL schema to use (created if missing); None: the default
    node_id: str = Field(default_factory=lambda: f"node-{os.getpid()}")
    allowed_origins: Annotated[list[str], NoDecode] = Field(default_factory=list)  # beside the server's own host
    static_dir: str | None = None  # None: trickroom/web/static when it exists
    log_level: str = "info"

    max_message_bytes: int = 8192  # a bigger message is answered `error too_big`, unread
    max_frame_bytes: int = 1 << 20  # the hard cap: a bigger frame closes the connection (1009) before it is read
    messages_per_second: float = 20.0
    message_burst: int = 40
    chat_length: int = 500
    lobby_batch_seconds: float = 0.3  # lobby changes reach each client at most this often, as one batch (0: at once)
    # Above this many people online, a lobby that asked for it ("auto") counts them instead of listing them and
    # hearing each come and go; it lists them again below nine tenths of it (0: always listed).
    lobby_people_limit: int = 250
    session_days: int = 30
    # The front door (docs/security.md): limits on guessing, and how long a guest's name waits for them.
    login_free_failures: int = 5  # wrong passwords for one account from one address before it backs off
    login_backoff_seconds: float = 1.0  # the first wait after those; doubles with each further failure
    login_backoff_max: float = 60.0  # the longest wait
    login_account_alarm: int = 20  # failures on one account from anywhere: then every address backs off at once
    login_address_free: int = 30  # failures from one address over all accounts (and names, tokens) before it backs off
    login_room_alarm: int = 300  # failures in the whole room in a minute: then every failed address waits ...
    login_room_wait: float = 10.0  # ... this long after each failure
    login_window_minutes: float = 15.0  # failures are forgotten this long after the last one
    limiter_max_keys: int = 100_000  # counters kept in one process (without Redis); the oldest go first
    table_password_free: int = 5  # wrong table passwords per person (and per address) per table before back-off
    table_password_alarm: int = 20  # wrong passwords on one table that make every guesser back off at once
    guest_hold_minutes: float = 30.0  # a guest's name (and session) is kept this long after they leave
    # The HTTP side.
    allowed_hosts: Annotated[list[str], NoDecode] = Field(default_factory=list)  # names in Host besides IPs, localhost
    trusted_proxies: str = "127.0.0.1"  # addresses whose X-Forwarded-For is believed (comma-separated; * any)
    header_timeout: float = 10.0  # seconds for a request's headers to arrive in full
    login_timeout: float = 60.0  # seconds a websocket may stay open without logging in
    # The waiting line (trickroom.server.waiting_line): newcomers wait while the event loop is this late (0: no line)
    line_lag_ms: float = 40.0
    line_rate: float = 200.0  # the most newcomers let in per second
    line_in_flight: int = 8  # the most newcomers' sign-ins under way at once
    # The cycle collector (trickroom.server.collector): a young collection this often, a full one every so many
    # minutes (0: never); gc_young_seconds 0: Python's own schedule, with the room's thresholds (main.py).
    gc_young_seconds: float = 0.1
    gc_full_minutes: float = 1440.0
    listen_sockets: int = 8  # sockets sharing the port (SO_REUSEPORT, where there is one): each accepts in turn
    # permessage-deflate keeps a zlib compressor and decompressor per connection (about 48 KB, docs/performance.md)
    # and compresses every frame once per connection: off unless bandwidth matters more than memory and CPU.
    websocket_compression: bool = False
    metrics_allow: Annotated[list[str], NoDecode] = Field(default_factory=lambda: ["127.0.0.0/8", "::1/128"])
    metrics_token: str | None = None  # or this bearer token (Authorization: Bearer ...) from anywhere

    timer_minimum: int = 20  # seconds; tests lower it
    timer_maximum: int = 600
    timer_warning: int = 10
    bot_delay_maximum: float = 5.0
    grace_seconds: float = 60.0  # a dropped player's seat waits this long before a bot plays for them
    replacement_bot: str = "normal"  # level used for dropped players and timeouts (falls back to random)
    bot_budget: float | None = None  # thinking seconds for search bots; None: each level's own default
    bot_workers: int = Field(default_factory=lambda: os.cpu_count() or 1)  # processes for searching bots; 0: threads
    # Hints and reviews (docs/replays.md): the hard level's search, in the same workers.
    hint_budget: float | None = None  # seconds a hint searches; None: the hard level's (bot_budget or HARD_BUDGET)
    review_budget: float = 2.0  # seconds of search per decision of a reviewed hand
    advice_worlds: int | None = None  # test-only: a cap on the worlds of hints and reviews (reproducible answers)
    search_queue: int | None = None  # searches in flight beyond which hints are refused (None: 2 x bot_workers)
    review_queue: int = 8  # hands waiting to be reviewed on this node beyond which a review is refused
    # Several nodes (docs/deployment.md): Redis carries messages and presence between them.
    redis: str | None = None  # redis://host:6379/0; None: one node alone
    redis_prefix: str = "trickroom:"  # key and channel prefix: nodes with the same prefix form one room
    cluster_listing_seconds: float = 0.1  # a node gathers its tables' listing changes this long, then writes them
    public_url: str | None = None  # this node's websocket address for clients; None: ws://host:port/ws
    lease_seconds: float = 3.0  # a table's owner renews its lease every third of this; a dead node's expire
    failover_wait: float = 8.0  # how long an intent waits for a table's new owner before `no_table`
    allow_test_decks: bool = False  # test-only: `create` may carry "seed" and "decks" (a known deal)

    @property
    def websocket_url(self) -> str:
        return self.public_url or f"ws://{self.host}:{self.port}/ws"

    @model_validator(mode="after")
    def _frame_cap_holds_a_message(self) -> Settings:
        if self.max_frame_bytes < self.max_message_bytes:
            raise ValueError("max_frame_bytes must be at least max_message_bytes")
        return self

    @field_validator("allowed_origins", "allowed_hosts", "metrics_allow", mode="before")
    @classmethod
    def _comma_separated(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [part.strip() for part in value.split(",") if part.strip()]
        return value


def load_settings(config_file: str | None = None, **overrides: Any) -> Settings:
    """Settings from ``overrides`` (flags; None values ignored), the environment and ``config_file``."""
    file_values: dict[str, Any] = {}
    path = config_file or os.environ.get("TRICKROOM_CONFIG")
    if path:
        with open(path, encoding="utf-8") as handle:
            lines = handle.read().splitlines()
        for raw in lines:
            line = raw.strip()
            if not line or line.startswith("#") or "=" not in line:
                continue
            key, value = (part.strip() for part in line.split("=", 1))
            key = key.lower().removeprefix("trickroom_")
            file_values[key] = value.strip("'\"")
    env_keys = {k.lower().removeprefix("trickroom_") for k in os.environ if k.upper().startswith("TRICKROOM_")}
    merged = {k: v for k, v in file_values.items() if k not in env_keys}
    merged.update({k: v for k, v in overrides.items() if v is not None})
    return Settings(**merged)
