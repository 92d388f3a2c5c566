"""The front door: session tokens kept only as hashes, look-alike names found by key, guests' names held.

- ``sessions.token`` becomes ``sessions.token_hash``, the SHA-256 of the token (hex): a copy of the database holds
  no usable token. Every existing session is kept, under its hash.
- ``users.name_key`` and ``users.name_shape`` (unique), ``sessions.name_key`` and ``sessions.name_shape`` (unique
  among guests): the keys of :mod:`trickroom.server.names`. Two existing accounts whose names clash both stay;
  the later one's keys get a ``#<id>`` suffix (it keeps its name and logs in as before).
- A guest's session now holds the guest's name while they are away and ends with that hold
  (``Settings.guest_hold_minutes``): existing guest sessions end at the latest an hour after this migration.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import datetime as dt
import hashlib

import sqlalchemy as sa
from alembic import op

from trickroom.server.names import name_keys

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

KEY = 200


def upgrade() -> None:
    connection = op.get_bind()
    old = connection.execute(sa.text("SELECT token, user_id, name, guest, preferences, expires_at FROM sessions"))
    kept = [dict(row._mapping) for row in old]
    op.drop_table("sessions")
    sessions = op.create_table(
        "sessions",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("user_id", sa.String(40), nullable=False, index=True),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("guest", sa.Boolean(), nullable=False),
        sa.Column("preferences", sa.JSON(), nullable=False),
        sa.Column("expires_at", sa.DateTime(), nullable=False),
        sa.Column("name_key", sa.String(KEY), nullable=True),
        sa.Column("name_shape", sa.String(KEY), nullable=True),
    )
    for column in ("name_key", "name_shape"):
        op.create_index(f"uq_sessions_guest_{column}", "sessions", [column], unique=True,
                        sqlite_where=sa.text("guest"), postgresql_where=sa.text("guest"))
    latest_guest_end = dt.datetime.now(dt.UTC).replace(tzinfo=None) + dt.timedelta(hours=1)
    rows: list[dict[str, object]] = []
    guest_keys: set[str] = set()
    guest_shapes: set[str] = set()
    for row in kept:
        key, shape = name_keys(row["name"])
        if row["guest"]:
            if key in guest_keys or shape in guest_shapes:
                continue  # two guests under clashing names: the later session ends
            guest_keys.add(key)
            guest_shapes.add(shape)
        expires = row["expires_at"]
        if isinstance(expires, str):
            expires = dt.datetime.fromisoformat(expires)
        rows.append({"token_hash": hashlib.sha256(row["token"].encode()).hexdigest(), "user_id": row["user_id"],
                     "name": row["name"], "guest": bool(row["guest"]), "preferences": _json(row["preferences"]),
                     "expires_at": min(expires, latest_guest_end) if row["guest"] else expires,
                     "name_key": key if row["guest"] else None, "name_shape": shape if row["guest"] else None})
    if rows:
        op.bulk_insert(sessions, rows)

    op.add_column("users", sa.Column("name_key", sa.String(KEY), nullable=True))
    op.add_column("users", sa.Column("name_shape", sa.String(KEY), nullable=True))
    users = connection.execute(sa.text("SELECT id, name FROM users ORDER BY created_at, id")).all()
    keys: set[str] = set()
    shapes: set[str] = set()
    for user_id, name in users:
        key, shape = name_keys(name)
        if key in keys or shape in shapes:
            key, shape = f"{key}#{user_id}", f"{shape}#{user_id}"
        keys.add(key)
        shapes.add(shape)
        connection.execute(sa.text("UPDATE users SET name_key = :key, name_shape = :shape WHERE id = :id"),
                           {"key": key, "shape": shape, "id": user_id})
    op.create_index("uq_users_name_key", "users", ["name_key"], unique=True)
    op.create_index("uq_users_name_shape", "users", ["name_shape"], unique=True)


def _json(value: object) -> object:
    import json

    return json.loads(value) if isinstance(value, str) else value


def downgrade() -> None:
    raise NotImplementedError("session tokens cannot be recovered from their hashes")
