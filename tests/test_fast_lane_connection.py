"""The fast lane on one database connection per request (issue #39 point 2).

On PostgreSQL each of a request's 4-7 connection checkouts pinged the server first
(``pool_pre_ping``). A request now checks out one connection for all its statements and
sessions; the pool pings only a connection idle for a while, and a connection found dead
by a request's first statement is replaced and the request run once more, so a dropped
database connection loses no label.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import create_engine, event, text
from starlette.applications import Starlette
from starlette.testclient import TestClient

from annotation_store import Store
from studies import assignments as asg
from tests.conftest import PG_ADMIN_URL
from ui.annotation import fast_lane
from ui.annotation.fast_routes import LABEL_ROUTE, LANE_HEADER, NEXT_ROUTE, ROUTES
from ui.session_cookie import GUARD_HEADER

pytestmark = pytest.mark.postgres


@pytest.fixture
def pg_store(pg_url: str) -> Iterator[Store]:
    store = Store(pg_url)
    store.create_project("p", "binary", {"k": 3})
    store.upsert_items("p", [{"item_id": f"i{i}", "fields": {"text": f"t{i}"}} for i in range(9)])
    yield store
    store.close()


def _client(store: Store) -> tuple[TestClient, dict[str, str]]:
    user = store.ensure_annotator("ann")
    asg.claim_next(store, "p", user.name)
    token = fast_lane.LANES.open(store, "p", user)
    client = TestClient(Starlette(routes=ROUTES), base_url="http://127.0.0.1:8501")
    return client, {GUARD_HEADER: "1", LANE_HEADER: token}


def _drop_connections(store: Store) -> int:
    """Terminate every server connection to the store's database (a restart, a proxy's
    idle cut); returns how many."""
    admin = create_engine(PG_ADMIN_URL, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            return int(
                conn.execute(
                    text(
                        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                        " WHERE datname = :db AND pid <> pg_backend_pid()"
                    ),
                    {"db": store.engine.url.database},
                ).scalar_one()
            )
    finally:
        admin.dispose()


def test_each_request_checks_out_one_connection(pg_store: Store) -> None:
    client, headers = _client(pg_store)
    checkouts: list[int] = []
    event.listen(pg_store.engine, "checkout", lambda *_: checkouts.append(1))
    save = {"item": "1", "chosen": {"label": 1}, "submit": False}
    submit = {"item": "1", "chosen": {"label": 1}, "seconds": 2.0}
    used = {}
    checkouts.clear()
    assert client.get(NEXT_ROUTE, params={"after": "1"}, headers=headers).status_code == 200
    used["next"] = len(checkouts)
    checkouts.clear()
    assert client.post(LABEL_ROUTE, json=save, headers=headers).status_code == 200
    used["save"] = len(checkouts)
    checkouts.clear()
    assert client.post(LABEL_ROUTE, json=submit, headers=headers).status_code == 200
    used["submit"] = len(checkouts)
    # a post checks the sign-in on a short checkout of its own before its body is read
    # (issue 37's doors), then does all its work on one connection
    assert used == {"next": 1, "save": 2, "submit": 2}
    # the writes on the shared connection were committed
    assert pg_store.item_state("p", "i0", "ann") == {
        "labels": {"label": 0},
        "status": "submitted",
        "note": "",
        "flagged": False,
    }
    assert asg.queue(pg_store, "p", "ann") == ["i0", "i1"]


def test_a_dropped_connection_loses_no_label(pg_store: Store) -> None:
    client, headers = _client(pg_store)
    body = {"item": "1", "chosen": {"label": 1}, "submit": False}
    assert client.post(LABEL_ROUTE, json=body, headers=headers).status_code == 200
    # several pooled connections, all of them cut while idle
    with pg_store.engine.connect(), pg_store.engine.connect():
        pass
    assert _drop_connections(pg_store) >= 1
    body = {"item": "1", "chosen": {"label": 0}, "seconds": 3.0}
    done = client.post(LABEL_ROUTE, json=body, headers=headers)
    assert done.status_code == 200, done.text
    state = pg_store.item_state("p", "i0", "ann")
    assert (state["labels"], state["status"]) == ({"label": 1}, "submitted")
    # and again for a next, cut between two requests
    assert _drop_connections(pg_store) >= 1
    nxt = client.get(NEXT_ROUTE, params={"after": "1"}, headers=headers)
    assert nxt.status_code == 200 and nxt.json()["item"]["ref"] == "2"


def test_a_failure_after_the_first_statement_is_not_run_twice(
    pg_store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only a request whose first statement met a dead connection is run again: once a
    statement went through, the request may have written, and its error is the answer."""
    runs: list[int] = []

    def work() -> None:
        runs.append(1)
        with pg_store.read_statement() as conn:
            conn.execute(text("SELECT 1"))
        _drop_connections(pg_store)
        with pg_store.read_statement() as conn:
            conn.execute(text("SELECT 1"))

    with pytest.raises(Exception, match="terminat|closed|connection"):
        pg_store.one_connection(work)
    assert runs == [1]
    # the pool recovers: the next request gets a live connection
    assert pg_store.one_connection(lambda: pg_store.project("p").name) == "p"


def test_a_connection_idle_a_while_is_pinged_before_use(
    pg_store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Outside a request (a page, the CLI) no retry runs: the pool pings a connection idle
    for ``PING_AFTER_IDLE_S`` and opens a new one when the old one is dead."""
    from annotation_store import db

    monkeypatch.setattr(db, "PING_AFTER_IDLE_S", 0.0)
    assert pg_store.project("p").name == "p"
    assert _drop_connections(pg_store) >= 1
    assert pg_store.project("p").name == "p"
    assert asg.claim_next(pg_store, "p", pg_store.ensure_annotator("bob").name) == "i0"
