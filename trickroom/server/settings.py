"""Server settings: command-line flags > environment variables ``TRICKROOM_*`` > an optional settings file.

The file is a ``.env``-style file (``KEY=value`` lines, keys with or without the ``TRICKROOM_`` prefix) named by
``--config`` or ``TRICKROOM_CONFIG``.
"""

from __future__ import annotations

import os
from typing import Annotated, Any

from pydantic import Field, field_validator
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

    max_message_bytes: int = 8192
    messages_per_second: float = 20.0
    message_burst: int = 40
    chat_length: int = 500
    login_attempts: int = 5  # per minute, per connection and per user name
    session_days: int = 30

    timer_minimum: int = 20  # seconds; tests lower it
    timer_maximum: int = 600
    timer_warning: int = 10
    bot_delay_maximum: float = 5.0
    grace_seconds: float = 60.0  # a dropped player's seat waits this long before a bot plays for them
    replacement_bot: str = "normal"  # level used for dropped players and timeouts (falls back to random)
    bot_budget: float | None = None  # thinking seconds for search bots; None: each level's own default
    bot_workers: int = Field(default_factory=lambda: os.cpu_count() or 1)  # processes for searching bots; 0: threads
    # Several nodes (docs/deployment.md): Redis carries messages and presence between them.
    redis: str | None = None  # redis://host:6379/0; None: one node alone
    redis_prefix: str = "trickroom:"  # key and channel prefix: nodes with the same prefix form one room
    public_url: str | None = None  # this node's websocket address for clients; None: ws://host:port/ws
    lease_seconds: float = 3.0  # a table's owner renews its lease every third of this; a dead node's expire
    failover_wait: float = 8.0  # how long an intent waits for a table's new owner before `no_table`
    allow_test_decks: bool = False  # test-only: `create` may carry "seed" and "decks" (a known deal)

    @property
    def websocket_url(self) -> str:
        return self.public_url or f"ws://{self.host}:{self.port}/ws"

    @field_validator("allowed_origins", mode="before")
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
