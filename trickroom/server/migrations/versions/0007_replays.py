"""Replays and reviews: who played at each finished table (a user's "my games"), and the hard bot's review of a
hand, kept with the game.

- ``players``: one row per person seated at a finished table (``table_id``, ``user_id``), written when the match
  ends; the tables that finished before this migration get theirs from their seats.
- ``reviews``: the numbers of the review of one seat's decisions in one hand (language-neutral: the sentences are
  made for each reader), so that a hand is searched once.

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

import json

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    players = op.create_table(
        "players",
        sa.Column("table_id", sa.Integer(), sa.ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("user_id", sa.String(40), primary_key=True),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("finished_at", sa.DateTime(), nullable=True),
    )
    op.create_index("ix_players_user", "players", ["user_id", "finished_at"])
    op.create_table(
        "reviews",
        sa.Column("table_id", sa.Integer(), sa.ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("hand", sa.Integer(), primary_key=True),
        sa.Column("seat", sa.Integer(), primary_key=True),
        sa.Column("items", sa.JSON(), nullable=False),
        sa.Column("budget", sa.Float(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
    )
    finished = op.get_bind().execute(sa.text("SELECT id, seats, finished_at FROM tables WHERE status = 'finished'"))
    rows = []
    for table_id, seats, finished_at in finished:
        seats = json.loads(seats) if isinstance(seats, str) else seats
        seen: set[str] = set()
        for seat, held in enumerate(seats or []):
            user = (held or {}).get("user") if isinstance(held, dict) else None
            if user and user.get("id") and user["id"] not in seen:
                seen.add(user["id"])
                rows.append({"table_id": table_id, "user_id": user["id"], "seat": seat,
                             "finished_at": finished_at})
    if rows:
        op.bulk_insert(players, rows)


def downgrade() -> None:
    op.drop_table("reviews")
    op.drop_index("ix_players_user", "players")
    op.drop_table("players")
