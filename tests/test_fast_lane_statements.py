"""The fast lane's SQL per labelled item stays small (issue #39 point 2: a crowd at once).

Each item an annotator labels costs three requests (the next item fetched ahead, the
save, the submit). They ran ~62 SQL statements per item (the user twice, the project,
the item and its state twice, the queue and the display order on every request, the
item's context built twice on a save); a crowd of 50 saturated the server's process.
Then 30 (next 13-14, save 7, submit 10): the claim ran 9 statements of next's (the
project and annotator, their claims, their progress, the pending items, the stale
claims, the next open item, its progress, its claims, the insert), and a save and a
submit each looked up the project, item and annotator the request had read already.
Now the claim reads the annotator's claims, progress and the stale claims in one
statement and an item's claims and progress in one, with the ids the request read; the
save and the submit take the label target from the request's view.
"""

from __future__ import annotations

import re

import pytest
from sqlalchemy import event
from starlette.applications import Starlette
from starlette.testclient import TestClient

from annotation_store import Store
from studies import assignments as asg
from ui.annotation import fast_lane
from ui.annotation.fast_routes import LABEL_ROUTE, LANE_HEADER, NEXT_ROUTE, ROUTES
from ui.session_cookie import GUARD_HEADER

#: Statements per request and per item at most (transaction control not counted). A post
#: reads the sign-in once before its body (issue 37's doors) and once more with its work.
BOUNDS = {"next": 8, "save": 7, "submit": 10}
PER_ITEM = 25
_CONTROL = re.compile(r"\s*(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE|PRAGMA)\b", re.I)


def test_next_save_and_submit_stay_within_their_statements(any_store: Store) -> None:
    store = any_store
    store.create_project("p", "binary", {"k": 3})
    store.upsert_items(
        "p", [{"item_id": f"i{i:03d}", "fields": {"text": f"t{i}"}} for i in range(40)]
    )
    user = store.ensure_annotator("ann")
    asg.claim_next(store, "p", user.name)
    token = fast_lane.LANES.open(store, "p", user)
    client = TestClient(Starlette(routes=ROUTES), base_url="http://127.0.0.1:8501")
    headers = {GUARD_HEADER: "1", LANE_HEADER: token}
    statements: list[str] = []

    def count(_conn, _cursor, statement, *_args) -> None:
        if not _CONTROL.match(statement):
            statements.append(statement)

    event.listen(store.engine, "before_cursor_execute", count)
    per_item, ref = [], "1"
    try:
        for _ in range(4):
            used = {}
            statements.clear()
            nxt = client.get(NEXT_ROUTE, params={"after": ref}, headers=headers)
            used["next"] = len(statements)
            statements.clear()
            body = {"item": ref, "chosen": {"label": 1}, "submit": False}
            saved = client.post(LABEL_ROUTE, json=body, headers=headers)
            used["save"] = len(statements)
            statements.clear()
            body = {"item": ref, "chosen": {"label": 1}, "seconds": 2.0}
            done = client.post(LABEL_ROUTE, json=body, headers=headers)
            used["submit"] = len(statements)
            assert (nxt.status_code, saved.status_code, done.status_code) == (200, 200, 200)
            per_item.append(used)
            ref = nxt.json()["item"]["ref"]
    finally:
        event.remove(store.engine, "before_cursor_execute", count)
    # the items went where they should: four submitted, in queue order, the fifth claimed
    frame = store.annotations_frame("p")
    assert sorted(frame["item_id"]) == ["i000", "i001", "i002", "i003"]
    assert set(frame["value"]) == {0}  # choice 1 of a binary question: "no" (0)
    assert asg.queue(store, "p", "ann") == ["i000", "i001", "i002", "i003", "i004"]
    for used in per_item[1:]:  # the first request also reads the lane's display order
        for kind, bound in BOUNDS.items():
            assert used[kind] <= bound, (kind, used)
        assert sum(used.values()) <= PER_ITEM, used


@pytest.mark.parametrize("ref", ["0", "9", "x"])
def test_a_number_beyond_the_lanes_order_is_looked_up_then_refused(store: Store, ref) -> None:
    store.create_project("p", "binary", {"k": 1})
    store.upsert_items("p", [{"item_id": f"i{i}", "fields": {"text": f"t{i}"}} for i in range(3)])
    user = store.ensure_annotator("ann")
    asg.claim_next(store, "p", user.name)
    token = fast_lane.LANES.open(store, "p", user)
    client = TestClient(Starlette(routes=ROUTES), base_url="http://127.0.0.1:8501")
    headers = {GUARD_HEADER: "1", LANE_HEADER: token}
    body = {"item": ref, "chosen": {"label": 1}, "submit": False}
    assert client.post(LABEL_ROUTE, json=body, headers=headers).status_code == 404
    # an item claimed after the lane read its order (another tab) is found by its number
    asg.claim_next(store, "p", user.name, ahead_of=["i0"])
    body = {"item": "2", "chosen": {"label": 1}, "submit": False}
    assert client.post(LABEL_ROUTE, json=body, headers=headers).status_code == 200
    assert store.item_state("p", "i1", "ann")["labels"] == {"label": 0}
