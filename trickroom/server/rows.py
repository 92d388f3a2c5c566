"""The database's tables as SQLAlchemy rows: users, sessions, tables, the action log, table chat, statistics,
players and reviews (the moderation tables are in :mod:`trickroom.server.moderation`). The queries are in
:mod:`trickroom.server.store`; the migrations in ``migrations/`` make the same tables."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import JSON, BigInteger, Boolean, DateTime, Float, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


class Base(DeclarativeBase):
    pass


class UserRow(Base):
    __tablename__ = "users"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    username: Mapped[str] = mapped_column(String(40), unique=True)  # lower-cased for lookups
    name: Mapped[str] = mapped_column(String(40))  # as typed
    name_key: Mapped[str] = mapped_column(String(200), unique=True)  # trickroom.server.names: no look-alikes
    name_shape: Mapped[str] = mapped_column(String(200), unique=True)
    password_hash: Mapped[str] = mapped_column(String(200))
    preferences: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    # trickroom.server.moderation: a disabled account cannot log in; a deleted one is a nameless tombstone kept
    # so that its number is never given again (finished games and the audit log still refer to it).
    disabled_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)
    deleted_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)


class SessionRow(Base):
    """A session: the SHA-256 of its token (the token itself is never stored), who it is, until when.

    A guest's session also holds the guest's name (its keys, unique among guests) until it expires: the room
    keeps pushing ``expires_at`` on while the guest is online, so it ends ``guest_hold_minutes`` after they left.
    """

    __tablename__ = "sessions"
    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[str] = mapped_column(String(40), index=True)  # "u12" or a guest id "g..."
    name: Mapped[str] = mapped_column(String(40))
    guest: Mapped[bool] = mapped_column(Boolean)
    preferences: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)  # guests' preferences
    expires_at: Mapped[dt.datetime] = mapped_column(DateTime)
    name_key: Mapped[str | None] = mapped_column(String(200), nullable=True)  # guests only
    name_shape: Mapped[str | None] = mapped_column(String(200), nullable=True)


class TableRow(Base):
    __tablename__ = "tables"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)  # random: see new_table_id
    game: Mapped[str] = mapped_column(String(20))
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    settings: Mapped[dict[str, Any]] = mapped_column(JSON)  # name, private, password hash, timer, bot delay...
    seats: Mapped[list[Any]] = mapped_column(JSON)  # per seat: {"user": summary} | {"bot": level} | null
    host: Mapped[dict[str, Any]] = mapped_column(JSON)
    banned: Mapped[list[Any]] = mapped_column(JSON, default=list)
    invited: Mapped[list[Any]] = mapped_column(JSON, default=list)
    status: Mapped[str] = mapped_column(String(12), index=True)  # waiting playing paused finished
    seed: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    first_event_seq: Mapped[int | None] = mapped_column(Integer, nullable=True)
    standings: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    pause_requested: Mapped[bool] = mapped_column(Boolean, default=False)  # pause at the end of the hand
    results_recorded: Mapped[bool] = mapped_column(Boolean, default=False)  # players, statistics, ratings
    decks: Mapped[list[Any] | None] = mapped_column(JSON, nullable=True)  # prearranged decks (test-only)
    owner_node: Mapped[str | None] = mapped_column(String(80), nullable=True, index=True)  # the lease holder
    lease_until: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    finished_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)


class ActionRow(Base):
    __tablename__ = "actions"
    __table_args__ = (UniqueConstraint("table_id", "seq", name="uq_actions_table_seq"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"), index=True)
    seq: Mapped[int] = mapped_column(Integer)  # 1, 2, 3... the action's number in the match
    seat: Mapped[int] = mapped_column(Integer)
    action: Mapped[str] = mapped_column(String(200))
    event_seq: Mapped[int] = mapped_column(Integer)  # table journal seq of the action's first event
    actor: Mapped[str] = mapped_column(String(40))  # user id, or "bot:<level>"
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


class ChatRow(Base):
    """A table chat message, written before anyone hears it, so that a restart can put it back in the journal."""

    __tablename__ = "chat"
    __table_args__ = (UniqueConstraint("table_id", "seq", name="uq_chat_table_seq"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"), index=True)
    seq: Mapped[int] = mapped_column(Integer)  # the message's table journal seq
    sender: Mapped[dict[str, Any]] = mapped_column(JSON)  # the sender's user summary, as it was said
    message: Mapped[str] = mapped_column(Text)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


class StatRow(Base):
    __tablename__ = "stats"
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    game: Mapped[str] = mapped_column(String(20), primary_key=True)
    played: Mapped[int] = mapped_column(Integer, default=0)
    won: Mapped[int] = mapped_column(Integer, default=0)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)


class PlayerRow(Base):
    """A person who sat at a finished table (a user's list of finished games)."""

    __tablename__ = "players"
    table_id: Mapped[int] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True)
    user_id: Mapped[str] = mapped_column(String(40), primary_key=True)  # "u12", or a guest's id
    seat: Mapped[int] = mapped_column(Integer)
    finished_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)


class ReviewRow(Base):
    """The hard bot's review of one seat's decisions in one hand: numbers only (sentences are made per reader)."""

    __tablename__ = "reviews"
    table_id: Mapped[int] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True)
    hand: Mapped[int] = mapped_column(Integer, primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    items: Mapped[list[Any]] = mapped_column(JSON)
    budget: Mapped[float] = mapped_column(Float)  # seconds of search per decision
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
