"""The fast lane in a crowd study (#30 point 2): only at the annotation stage, and a
worker below the gold threshold is stopped before the next item, as on the study page."""

from __future__ import annotations

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

from annotation_store import Store
from crowd import workers as crowd
from studies import assignments as asg
from studies import gold
from studies.flow_settings import set_study
from ui.annotation import fast_lane
from ui.annotation.fast_lane import LANES
from ui.annotation.fast_routes import LABEL_ROUTE, LANE_HEADER, NEXT_ROUTE, ROUTES
from ui.session_cookie import GUARD_HEADER

STUDY = {
    "crowd": True,
    "token": "s3cret",
    "consent": "You agree to take part.",
    "gold_rate": 0.0,
    "gold_threshold": 0.6,
    "gold_stop": True,
    "survey": [],
}


@pytest.fixture
def client() -> TestClient:
    return TestClient(Starlette(routes=ROUTES), base_url="http://127.0.0.1:8501")


def _study(store: Store, **study: object) -> None:
    store.create_project("p", "binary", {"k": 2})
    store.upsert_items("p", [{"item_id": f"i{i}", "fields": {"text": f"t{i}"}} for i in range(6)])
    set_study(store, "p", {**STUDY, **study})


def _worker(store: Store, pid: str, client: TestClient):
    link = crowd.parse_link({"study": "p", "token": "s3cret", "PROLIFIC_PID": pid})
    assert link is not None
    user = crowd.enter(store, link)
    token = LANES.open(store, "p", user)
    return user, {GUARD_HEADER: "1", LANE_HEADER: token}


def test_a_study_is_covered_but_only_at_the_annotation_stage(
    store: Store, client: TestClient
) -> None:
    _study(store)
    assert fast_lane.covers(store.project("p"))
    user, headers = _worker(store, "W1", client)
    # at consent: nothing is saved and no item is handed out
    refused = client.post(LABEL_ROUTE, json={"item": "1", "chosen": {"label": 0}}, headers=headers)
    assert refused.status_code == 409 and "moved on" in refused.json()["error"]
    assert client.get(NEXT_ROUTE, params={"after": "1"}, headers=headers).json() == {"item": None}
    assert store.annotations_frame("p", ("draft", "submitted")).empty
    crowd.record_consent(store, "p", user.name, True)
    crowd.record_guideline_opened(store, "p", user.name)
    first = asg.claim_next(store, "p", user.name)
    saved = client.post(LABEL_ROUTE, json={"item": "1", "chosen": {"label": 0}}, headers=headers)
    assert saved.status_code == 200
    assert store.item_state("p", first, user.name)["status"] == "submitted"


def test_a_worker_below_the_gold_threshold_is_stopped_before_the_next_item(
    store: Store, client: TestClient
) -> None:
    _study(store, gold_rate=1.0)  # every item handed out is a gold item
    for item in ("i0", "i1", "i2", "i3", "i4", "i5"):
        gold.set_gold(store, "p", item, 1)
    user, headers = _worker(store, "BAD", client)
    crowd.record_consent(store, "p", user.name, True)
    crowd.record_guideline_opened(store, "p", user.name)
    asg.claim_next(store, "p", user.name)
    ahead = client.get(NEXT_ROUTE, params={"after": "1"}, headers=headers).json()["item"]
    assert ahead is not None  # fetched while item 1 is labelled, as always
    # "yes" is choice 0: item 1 answered "no" is wrong, 0 of 1 gold right (gold_min 1)
    wrong = client.post(LABEL_ROUTE, json={"item": "1", "chosen": {"label": 1}}, headers=headers)
    assert wrong.status_code == 200
    # the item fetched ahead is not saved: the worker is stopped first, as the page would
    late = client.post(
        LABEL_ROUTE, json={"item": ahead["ref"], "chosen": {"label": 0}}, headers=headers
    )
    assert late.status_code == 409 and "moved on" in late.json()["error"]
    assert crowd.participant(store, "p", user.name).stage != "annotate"
    after = client.get(NEXT_ROUTE, params={"after": ahead["ref"]}, headers=headers)
    assert after.json() == {"item": None}
    assert len(store.annotations_frame("p")) == 1
