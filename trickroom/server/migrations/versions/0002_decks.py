"""Prearranged decks of a table (the test-only fixed deal), kept so that restores and replays match.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("tables", sa.Column("decks", sa.JSON(), nullable=True))
    op.create_index("ix_tables_owner_node", "tables", ["owner_node"])


def downgrade() -> None:
    op.drop_index("ix_tables_owner_node", "tables")
    op.drop_column("tables", "decks")
