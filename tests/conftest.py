"""Shared fixtures: isolated stores (SQLite and PostgreSQL), the scripted LLM server."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from annotation_store import Store
from tests.support.pg import scratch_database
from tests.support.scripted_llm import ScriptedLLM

PG_ADMIN_URL = os.environ.get(
    "WORKBENCH_TEST_PG_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)


@pytest.fixture(autouse=True)
def _isolated_settings(
    monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """No test sees the developer's endpoint, secrets file or database."""
    for key in list(os.environ):
        if key.startswith("WORKBENCH_LLM_") or key == "WORKBENCH_DB_URL":
            monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("WORKBENCH_SECRETS", str(tmp_path_factory.getbasetemp() / "no-secrets.toml"))


@pytest.fixture(autouse=True)
def _no_installed_plugins(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """A plugin installed beside the workbench (the README's example) changes no test:
    only tests marked ``plugins`` read entry points (child processes inherit this)."""
    if request.node.get_closest_marker("plugins") is None:
        monkeypatch.setenv("WORKBENCH_PLUGINS", "0")


@pytest.fixture
def sqlite_url(tmp_path) -> str:
    """URL of a fresh SQLite file."""
    return f"sqlite:///{tmp_path / 'workbench.db'}"


@pytest.fixture
def demo(sqlite_url: str) -> str:
    """URL of a fresh SQLite file holding the four demo projects."""
    from demo.loading import load_demo

    s = Store(sqlite_url)
    load_demo(s)
    s.close()
    return sqlite_url


@pytest.fixture
def store(sqlite_url: str) -> Iterator[Store]:
    """A migrated store on a fresh SQLite file."""
    s = Store(sqlite_url)
    yield s
    s.close()


def _pg_available() -> str | None:
    try:
        import sqlalchemy as sa

        engine = sa.create_engine(PG_ADMIN_URL, connect_args={"connect_timeout": 3})
        with engine.connect() as conn:
            conn.execute(sa.text("select 1"))
        engine.dispose()
        return None
    except Exception as exc:
        return f"PostgreSQL at {PG_ADMIN_URL} does not answer ({type(exc).__name__}); skipping"


@contextmanager
def _pg_database() -> Iterator[str]:
    """Create a uniquely named PostgreSQL database, yield its URL, drop it afterwards."""
    reason = _pg_available()
    if reason:
        pytest.skip(reason)
    with scratch_database(PG_ADMIN_URL) as url:
        yield url


@pytest.fixture
def pg_url() -> Iterator[str]:
    """URL of a new, empty PostgreSQL database (skips, saying why, without a server)."""
    with _pg_database() as url:
        yield url


@pytest.fixture(params=["sqlite", "postgresql"])
def any_store(request: pytest.FixtureRequest, tmp_path) -> Iterator[Store]:
    """The same test on SQLite and on PostgreSQL."""
    if request.param == "sqlite":
        s = Store(f"sqlite:///{tmp_path / 'wb.db'}")
        yield s
        s.close()
        return
    with _pg_database() as url:
        s = Store(url)
        try:
            yield s
        finally:
            s.close()


@pytest.fixture
def scripted_llm() -> Iterator[ScriptedLLM]:
    """A running scripted OpenAI-compatible server."""
    with ScriptedLLM() as server:
        yield server


@pytest.fixture
def llm_env(monkeypatch: pytest.MonkeyPatch, scripted_llm: ScriptedLLM) -> ScriptedLLM:
    """Point the workbench's LLM settings at the scripted server."""
    monkeypatch.setenv("WORKBENCH_LLM_BASE_URL", scripted_llm.base_url)
    monkeypatch.setenv("WORKBENCH_LLM_API_KEY", "test-key")
    monkeypatch.setenv("WORKBENCH_LLM_MODEL", scripted_llm.model)
    monkeypatch.setenv("WORKBENCH_LLM_MAX_RETRIES", "3")
    return scripted_llm


# The peer contract tests run in .venv-peers with the peer tools' own code (make peers).
collect_ignore = ["peers"]
