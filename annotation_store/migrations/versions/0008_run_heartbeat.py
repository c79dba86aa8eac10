"""run heartbeat: a running evaluator run stamps the time, so a dead process shows

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-26 01:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("evaluator_runs", schema=None) as batch_op:
        batch_op.add_column(sa.Column("heartbeat_at", sa.DateTime(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("evaluator_runs", schema=None) as batch_op:
        batch_op.drop_column("heartbeat_at")
