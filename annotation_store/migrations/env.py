"""Alembic environment: runs against the connection the store hands in, or a URL."""

from __future__ import annotations

from alembic import context
from sqlalchemy import engine_from_config, pool

from annotation_store.tables import metadata

config = context.config
target_metadata = metadata


def run_migrations() -> None:
    """Run migrations on the given connection, or on a new one from the config's URL."""
    connection = config.attributes.get("connection")
    if connection is not None:
        context.configure(
            connection=connection, target_metadata=target_metadata, render_as_batch=True
        )
        with context.begin_transaction():
            context.run_migrations()
        return
    engine = engine_from_config(
        config.get_section(config.config_ini_section, {}),
        prefix="sqlalchemy.",
        poolclass=pool.NullPool,
    )
    with engine.connect() as conn:
        context.configure(connection=conn, target_metadata=target_metadata, render_as_batch=True)
        with context.begin_transaction():
            context.run_migrations()


run_migrations()
