"""sign-in security: attempts, server-side sessions, external raters

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-23 14:30:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "sign_in_attempts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("at", sa.DateTime(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("client", sa.String(length=100), nullable=False),
        sa.Column("outcome", sa.String(length=16), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sign_in_attempts")),
    )
    with op.batch_alter_table("sign_in_attempts", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_sign_in_attempts_at"), ["at"], unique=False)
        batch_op.create_index(batch_op.f("ix_sign_in_attempts_name"), ["name"], unique=False)
        batch_op.create_index(batch_op.f("ix_sign_in_attempts_client"), ["client"], unique=False)
    op.create_table(
        "auth_sessions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("family", sa.String(length=64), nullable=False),
        sa.Column("annotator_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("last_seen_at", sa.DateTime(), nullable=False),
        sa.Column("expires_at", sa.DateTime(), nullable=False),
        sa.Column("revoked_at", sa.DateTime(), nullable=True),
        sa.Column("rotated_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["annotator_id"],
            ["annotators.id"],
            name=op.f("fk_auth_sessions_annotator_id_annotators"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_auth_sessions")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_auth_sessions_token_hash")),
    )
    with op.batch_alter_table("auth_sessions", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_auth_sessions_annotator_id"), ["annotator_id"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_auth_sessions_family"), ["family"], unique=False)
    with op.batch_alter_table("annotators", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("external", sa.Boolean(), server_default=sa.false(), nullable=False)
        )


def downgrade() -> None:
    with op.batch_alter_table("annotators", schema=None) as batch_op:
        batch_op.drop_column("external")
    with op.batch_alter_table("auth_sessions", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_auth_sessions_family"))
        batch_op.drop_index(batch_op.f("ix_auth_sessions_annotator_id"))
    op.drop_table("auth_sessions")
    with op.batch_alter_table("sign_in_attempts", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_sign_in_attempts_client"))
        batch_op.drop_index(batch_op.f("ix_sign_in_attempts_name"))
        batch_op.drop_index(batch_op.f("ix_sign_in_attempts_at"))
    op.drop_table("sign_in_attempts")
