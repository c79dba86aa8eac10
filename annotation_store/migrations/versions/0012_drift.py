"""drift: each judge's anchor items (drift_anchors) and the history of its drift checks
(drift_checks)

Revision ID: 0012_drift
Revises: 0011_crowd
Create Date: 2026-11-28 15:40:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012_drift"
down_revision = "0011_crowd"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "drift_anchors",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("project_id", sa.Integer(), nullable=False),
        sa.Column("evaluator", sa.String(length=200), nullable=False),
        sa.Column("item_pk", sa.Integer(), nullable=False),
        sa.Column("stratum", sa.String(length=200), nullable=True),
        sa.Column("seed", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["project_id"],
            ["projects.id"],
            name=op.f("fk_drift_anchors_project_id_projects"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["item_pk"],
            ["items.id"],
            name=op.f("fk_drift_anchors_item_pk_items"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_drift_anchors")),
        sa.UniqueConstraint(
            "project_id", "evaluator", "item_pk", name=op.f("uq_drift_anchors_project_id")
        ),
    )
    op.create_table(
        "drift_checks",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("project_id", sa.Integer(), nullable=False),
        sa.Column("evaluator", sa.String(length=200), nullable=False),
        sa.Column("version", sa.String(length=64), nullable=False),
        sa.Column("model", sa.String(length=200), nullable=True),
        sa.Column("signature_text", sa.Text(), nullable=False),
        sa.Column("field", sa.String(length=200), nullable=False),
        sa.Column("n_anchors", sa.Integer(), nullable=False),
        sa.Column("figures", sa.JSON(), nullable=False),
        sa.Column("bar", sa.String(length=200), nullable=False),
        sa.Column("passed", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["project_id"],
            ["projects.id"],
            name=op.f("fk_drift_checks_project_id_projects"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_drift_checks")),
    )
    with op.batch_alter_table("drift_checks", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_drift_checks_project_id"), ["project_id"])


def downgrade() -> None:
    with op.batch_alter_table("drift_checks", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_drift_checks_project_id"))
    op.drop_table("drift_checks")
    op.drop_table("drift_anchors")
