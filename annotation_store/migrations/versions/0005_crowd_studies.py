"""crowd studies: study participants, gold items, active time per item

Revision ID: 0005
Revises: 0002
Create Date: 2026-11-25 13:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "study_participants",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("project_id", sa.Integer(), nullable=False),
        sa.Column("annotator_id", sa.Integer(), nullable=False),
        sa.Column("platform", sa.String(length=16), nullable=False),
        sa.Column("platform_ids", sa.JSON(), nullable=False),
        sa.Column("stage", sa.String(length=16), nullable=False),
        sa.Column("consent", sa.Boolean(), nullable=True),
        sa.Column("guideline_opened_at", sa.DateTime(), nullable=True),
        sa.Column("training", sa.JSON(), nullable=False),
        sa.Column("qualified", sa.Boolean(), nullable=True),
        sa.Column("survey", sa.JSON(), nullable=True),
        sa.Column("completion_code", sa.String(length=64), nullable=True),
        sa.Column("started_at", sa.DateTime(), nullable=False),
        sa.Column("finished_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["annotator_id"],
            ["annotators.id"],
            name=op.f("fk_study_participants_annotator_id_annotators"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["project_id"],
            ["projects.id"],
            name=op.f("fk_study_participants_project_id_projects"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_study_participants")),
        sa.UniqueConstraint(
            "project_id", "annotator_id", name=op.f("uq_study_participants_project_id")
        ),
    )
    with op.batch_alter_table("study_participants", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_study_participants_project_id"), ["project_id"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_study_participants_annotator_id"), ["annotator_id"], unique=False
        )
    op.create_table(
        "gold_items",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("project_id", sa.Integer(), nullable=False),
        sa.Column("item_pk", sa.Integer(), nullable=False),
        sa.Column("answers", sa.JSON(), nullable=False),
        sa.Column("explanation", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ["item_pk"], ["items.id"], name=op.f("fk_gold_items_item_pk_items"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["project_id"],
            ["projects.id"],
            name=op.f("fk_gold_items_project_id_projects"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_gold_items")),
        sa.UniqueConstraint("item_pk", name=op.f("uq_gold_items_item_pk")),
    )
    with op.batch_alter_table("gold_items", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_gold_items_project_id"), ["project_id"], unique=False)
    with op.batch_alter_table("item_progress", schema=None) as batch_op:
        batch_op.add_column(sa.Column("active_seconds", sa.Float(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("item_progress", schema=None) as batch_op:
        batch_op.drop_column("active_seconds")
    with op.batch_alter_table("gold_items", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_gold_items_project_id"))
    op.drop_table("gold_items")
    with op.batch_alter_table("study_participants", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_study_participants_annotator_id"))
        batch_op.drop_index(batch_op.f("ix_study_participants_project_id"))
    op.drop_table("study_participants")
