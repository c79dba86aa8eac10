"""crowd integrity: a per-deployment secret for completion codes, every platform session

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-26 00:30:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "deployment_secrets",
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("value", sa.String(length=128), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_deployment_secrets")),
    )
    with op.batch_alter_table("study_participants", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("platform_sessions", sa.JSON(), nullable=False, server_default="[]")
        )


def downgrade() -> None:
    with op.batch_alter_table("study_participants", schema=None) as batch_op:
        batch_op.drop_column("platform_sessions")
    op.drop_table("deployment_secrets")
