"""Table chat, kept so that a restart puts it back in the table's journal at its seq.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "chat",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("table_id", sa.Integer(), sa.ForeignKey("tables.id", ondelete="CASCADE"), nullable=False,
                  index=True),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("sender", sa.JSON(), nullable=False),
        sa.Column("message", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.UniqueConstraint("table_id", "seq", name="uq_chat_table_seq"),
    )


def downgrade() -> None:
    op.drop_table("chat")
