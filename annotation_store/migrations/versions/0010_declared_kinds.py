"""declared task kinds: named kinds and their immutable versions (TOML definitions)

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-26 00:45:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "declared_kinds",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=48), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_declared_kinds")),
        sa.UniqueConstraint("name", name=op.f("uq_declared_kinds_name")),
    )
    op.create_table(
        "declared_kind_versions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("kind_id", sa.Integer(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("definition", sa.JSON(), nullable=False),
        sa.Column("source", sa.Text(), nullable=False),
        sa.Column("created_by", sa.String(length=200), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["kind_id"],
            ["declared_kinds.id"],
            name=op.f("fk_declared_kind_versions_kind_id_declared_kinds"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_declared_kind_versions")),
        sa.UniqueConstraint(
            "kind_id", "version", name=op.f("uq_declared_kind_versions_kind_id")
        ),
    )
    with op.batch_alter_table("declared_kind_versions", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_declared_kind_versions_kind_id"), ["kind_id"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("declared_kind_versions", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_declared_kind_versions_kind_id"))
    op.drop_table("declared_kind_versions")
    op.drop_table("declared_kinds")
