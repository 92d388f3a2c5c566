"""Whether a finished table's results (its players' "my games" rows, statistics and ratings) have been recorded.

The flag is set in the transaction that records them, so a node that died after writing a match's end and before
recording its results leaves a finished table without it, and the next node to start records them (once: the
flag is set only where it was not). The tables that finished before this migration had theirs recorded then.

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("tables", sa.Column("results_recorded", sa.Boolean(), nullable=False, server_default=sa.false()))
    op.execute("UPDATE tables SET results_recorded = true WHERE status = 'finished'")


def downgrade() -> None:
    op.drop_column("tables", "results_recorded")
