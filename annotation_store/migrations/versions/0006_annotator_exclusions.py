"""annotator exclusions: who is left out of a project's agreement figures, and why

Revision ID: 0006
Revises: 0002
Create Date: 2026-11-25 13:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "annotator_exclusions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("project_id", sa.Integer(), nullable=False),
        sa.Column("annotator_id", sa.Integer(), nullable=False),
        sa.Column("source", sa.String(length=32), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("created_by", sa.String(length=200), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["project_id"],
            ["projects.id"],
            name=op.f("fk_annotator_exclusions_project_id_projects"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["annotator_id"],
            ["annotators.id"],
            name=op.f("fk_annotator_exclusions_annotator_id_annotators"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_annotator_exclusions")),
        sa.UniqueConstraint(
            "project_id",
            "annotator_id",
            "source",
            name=op.f("uq_annotator_exclusions_project_id"),
        ),
    )
    with op.batch_alter_table("annotator_exclusions", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_annotator_exclusions_project_id"), ["project_id"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_annotator_exclusions_annotator_id"), ["annotator_id"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("annotator_exclusions", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_annotator_exclusions_annotator_id"))
        batch_op.drop_index(batch_op.f("ix_annotator_exclusions_project_id"))
    op.drop_table("annotator_exclusions")
