"""Moderation: roles, room bans, mutes, reports (and collusion flags), the audit log; disabled and deleted accounts.

- ``users.disabled_at``: a disabled account cannot log in. ``users.deleted_at``: the account was deleted; its
  row stays as a nameless tombstone so that its number (``u12``) is never given to another account.
- ``roles``: ``admin`` and ``moderator`` per account.
- ``room_bans``: room-wide bans of an account (``u12``), a guest nickname (its look-alike key) or an address
  (an IP address or a network), until a time or for good, until lifted.
- ``mutes``: lobby chat mutes of a user (an account or a guest's id), until a time or for good.
- ``reports``: players' reports of players, and the room's own flags (collusion), until a moderator handles them.
- ``audit``: every moderator's and operator's action: who, what, whom, when, why.

See docs/moderation.md.

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

WHO = 80  # an actor: "u12", a guest id, "operator:root", "room"
NAME = 80
REASON = 500


def measure_columns() -> list[sa.Column[object]]:
    """What a ban and a mute both keep: why, who, when, until when (null: for good), and who lifted it when."""
    return [sa.Column("reason", sa.String(REASON), nullable=True),
            sa.Column("created_by", sa.String(WHO), nullable=False),
            sa.Column("created_at", sa.DateTime(), nullable=False),
            sa.Column("expires_at", sa.DateTime(), nullable=True),
            sa.Column("lifted_at", sa.DateTime(), nullable=True),
            sa.Column("lifted_by", sa.String(WHO), nullable=True)]


def upgrade() -> None:
    op.add_column("users", sa.Column("disabled_at", sa.DateTime(), nullable=True))
    op.add_column("users", sa.Column("deleted_at", sa.DateTime(), nullable=True))
    op.create_table(
        "roles",
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("role", sa.String(20), primary_key=True),
        sa.Column("granted_by", sa.String(WHO), nullable=False),
        sa.Column("granted_at", sa.DateTime(), nullable=False),
    )
    op.create_table(
        "room_bans",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("kind", sa.String(10), nullable=False),
        sa.Column("value", sa.String(200), nullable=False),
        sa.Column("label", sa.String(200), nullable=False),
        *measure_columns(),
    )
    op.create_index("ix_room_bans_kind_value", "room_bans", ["kind", "value"])
    op.create_table(
        "mutes",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("user_id", sa.String(40), nullable=False, index=True),
        sa.Column("name", sa.String(NAME), nullable=False),
        *measure_columns(),
    )
    op.create_table(
        "reports",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("kind", sa.String(20), nullable=False),
        sa.Column("reporter", sa.String(WHO), nullable=True),
        sa.Column("reporter_name", sa.String(NAME), nullable=True),
        sa.Column("target", sa.String(40), nullable=False, index=True),
        sa.Column("target_name", sa.String(NAME), nullable=False),
        sa.Column("table_id", sa.Integer(), nullable=True, index=True),
        sa.Column("reason", sa.String(REASON), nullable=True),
        sa.Column("reason_key", sa.String(80), nullable=True),
        sa.Column("reason_params", sa.JSON(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("handled_at", sa.DateTime(), nullable=True, index=True),
        sa.Column("handled_by", sa.String(WHO), nullable=True),
        sa.Column("outcome", sa.String(REASON), nullable=True),
    )
    op.create_table(
        "audit",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("at", sa.DateTime(), nullable=False, index=True),
        sa.Column("actor", sa.String(WHO), nullable=False, index=True),
        sa.Column("actor_name", sa.String(NAME), nullable=False),
        sa.Column("action", sa.String(40), nullable=False),
        sa.Column("target", sa.String(200), nullable=True, index=True),
        sa.Column("target_name", sa.String(200), nullable=True),
        sa.Column("reason", sa.String(REASON), nullable=True),
        sa.Column("details", sa.JSON(), nullable=False),
    )


def downgrade() -> None:
    for name in ("audit", "reports", "mutes", "room_bans", "roles"):
        op.drop_table(name)
    with op.batch_alter_table("users") as batch:
        batch.drop_column("deleted_at")
        batch.drop_column("disabled_at")
