"""custom LLM judges: judges and their immutable versions

Revision ID: 0004
Revises: 0002
Create Date: 2026-11-25 12:50:00
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
        "judges",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("kind", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_judges")),
        sa.UniqueConstraint("name", name=op.f("uq_judges_name")),
    )
    op.create_table(
        "judge_versions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("judge_id", sa.Integer(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("definition", sa.JSON(), nullable=False),
        sa.Column("prompt_hash", sa.String(length=64), nullable=False),
        sa.Column("created_by", sa.String(length=200), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["judge_id"],
            ["judges.id"],
            name=op.f("fk_judge_versions_judge_id_judges"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_judge_versions")),
        sa.UniqueConstraint("judge_id", "version", name=op.f("uq_judge_versions_judge_id")),
    )
    with op.batch_alter_table("judge_versions", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_judge_versions_judge_id"), ["judge_id"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("judge_versions", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_judge_versions_judge_id"))
    op.drop_table("judge_versions")
    op.drop_table("judges")
