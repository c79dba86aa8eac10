"""job lease (the worker holding a job, the number of claims); items paged by position

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-25 12:50:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("jobs", schema=None) as batch_op:
        batch_op.add_column(sa.Column("claimed_by", sa.String(length=120), nullable=True))
        batch_op.add_column(
            sa.Column("attempts", sa.Integer(), nullable=False, server_default="0")
        )
    op.create_index(
        "ix_items_project_position", "items", ["project_id", "position"], unique=False
    )


def downgrade() -> None:
    op.drop_index("ix_items_project_position", table_name="items")
    with op.batch_alter_table("jobs", schema=None) as batch_op:
        batch_op.drop_column("attempts")
        batch_op.drop_column("claimed_by")
