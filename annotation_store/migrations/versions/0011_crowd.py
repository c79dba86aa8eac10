"""crowd: the claim queue's index (items.queue_full), stale claims by age, and where an
imported time on task came from (item_progress.time_source)

Revision ID: 0011_crowd
Revises: 0010
Create Date: 2026-11-28 11:40:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011_crowd"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("items", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("queue_full", sa.Boolean(), server_default=sa.false(), nullable=False)
        )
        batch_op.create_index(
            "ix_items_project_queue", ["project_id", "queue_full", "position"], unique=False
        )
    with op.batch_alter_table("assignments", schema=None) as batch_op:
        batch_op.create_index(
            "ix_assignments_project_status", ["project_id", "status", "created_at"], unique=False
        )
    with op.batch_alter_table("item_progress", schema=None) as batch_op:
        batch_op.add_column(sa.Column("time_source", sa.String(length=64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("item_progress", schema=None) as batch_op:
        batch_op.drop_column("time_source")
    with op.batch_alter_table("assignments", schema=None) as batch_op:
        batch_op.drop_index("ix_assignments_project_status")
    with op.batch_alter_table("items", schema=None) as batch_op:
        batch_op.drop_index("ix_items_project_queue")
        batch_op.drop_column("queue_full")
