"""selection draws: each item's probability in an active-selection sample, and the draw

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-26 01:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "selection_draws",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("project_id", sa.Integer(), nullable=False),
        sa.Column("item_pk", sa.Integer(), nullable=False),
        sa.Column("probability", sa.Float(), nullable=False),
        sa.Column("selected", sa.Boolean(), nullable=False),
        sa.Column("basis", sa.String(length=500), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["project_id"],
            ["projects.id"],
            name=op.f("fk_selection_draws_project_id_projects"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["item_pk"],
            ["items.id"],
            name=op.f("fk_selection_draws_item_pk_items"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_selection_draws")),
        sa.UniqueConstraint("item_pk", name=op.f("uq_selection_draws_item_pk")),
    )
    with op.batch_alter_table("selection_draws", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_selection_draws_project_id"), ["project_id"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("selection_draws", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_selection_draws_project_id"))
    op.drop_table("selection_draws")
