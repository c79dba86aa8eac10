"""An emptied answer is cleared on the server (issue #46): the client posts null for a
free-text answer typed away; the one set of actions clears it, or refuses (a fact's
answer, a required answer of a submitted item), and the route answers as it decides."""

from __future__ import annotations

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

from accounts import users as accounts
from annotating.actions import ActionRefused
from annotation_store import Store
from studies import assignments as asg
from tests.annotate_fixtures import make_project
from tests.support.value_kind import value_project
from ui.annotation import fast_lane
from ui.annotation.fast_lane import LANES
from ui.annotation.fast_routes import LABEL_ROUTE, LANE_HEADER, ROUTES
from ui.session_cookie import GUARD_HEADER

ANSWERS = {"has_errors": 1, "quality": 0.5, "stars": 3, "topics": [0], "summary": "One line."}


@pytest.fixture
def client() -> TestClient:
    return TestClient(Starlette(routes=ROUTES), base_url="http://127.0.0.1:8501")


def _lane(store: Store) -> tuple[str, str]:
    value_project(store)
    user = accounts.add_user(store, "ann", "annotator")
    first = asg.claim_next(store, "rc", user.name)
    return LANES.open(store, "rc", user), first


def _post(client: TestClient, token: str, chosen: dict, submit: bool = False):
    return client.post(
        LABEL_ROUTE,
        json={"item": "1", "chosen": chosen, "submit": submit},
        headers={GUARD_HEADER: "1", LANE_HEADER: token},
    )


def test_an_emptied_text_answer_is_cleared_by_the_route(store: Store, client: TestClient) -> None:
    token, item = _lane(store)
    assert _post(client, token, {**ANSWERS, "comment": "Fine."}).status_code == 200
    assert store.item_state("rc", item, "ann")["labels"]["comment"] == "Fine."
    cleared = _post(client, token, {"comment": None, "summary": None})
    assert cleared.status_code == 200 and cleared.json()["saved"] is True
    labels = store.item_state("rc", item, "ann")["labels"]
    assert "comment" not in labels and "summary" not in labels
    assert "summary" not in set(store.annotations_frame("rc")["field"])
    # the required summary is missing again: the server refuses the submit, saying so
    refused = _post(client, token, {}, submit=True)
    assert refused.status_code == 422 and "summary" in refused.json()["error"]
    # clearing what is not there changes nothing
    assert _post(client, token, {"comment": None}).status_code == 200


def test_a_submitted_item_keeps_its_required_answers(store: Store, client: TestClient) -> None:
    token, item = _lane(store)
    assert _post(client, token, {**ANSWERS, "comment": "Fine."}, submit=True).status_code == 200
    refused = _post(client, token, {"summary": None})
    assert refused.status_code == 409 and "summary is required" in refused.json()["error"]
    state = store.item_state("rc", item, "ann")
    assert state["labels"]["summary"] == "One line." and state["status"] == "submitted"
    # an optional answer may go; the item stays submitted
    assert _post(client, token, {"comment": None}).status_code == 200
    state = store.item_state("rc", item, "ann")
    assert "comment" not in state["labels"] and state["status"] == "submitted"


def test_a_fact_answer_is_changed_never_cleared(store: Store) -> None:
    make_project(store, "intent_match", k=1)
    user = store.ensure_annotator("admin", role="admin")
    project = store.project("intent_match")
    fast_lane.save_choices(store, project, user, "im2", {"gold_fact_labels.0": 0})
    with pytest.raises(ActionRefused, match="changed, not cleared"):
        fast_lane.save_choices(store, project, user, "im2", {"gold_fact_labels.0": None})
    assert store.item_state("intent_match", "im2", "admin")["labels"]["gold_fact_labels"][0] == "C"


def test_the_store_clears_one_label_and_says_whether_there_was_one(store: Store) -> None:
    value_project(store)
    store.save_label("rc", "r0", "ann", "summary", "A line.")
    store.save_label("rc", "r0", "ann", "comment", "More.")
    assert store.clear_label("rc", "r0", "ann", "summary") is True
    assert store.clear_label("rc", "r0", "ann", "summary") is False
    assert store.clear_label("rc", "r0", "nobody", "summary") is False
    assert store.item_state("rc", "r0", "ann")["labels"] == {"comment": "More."}
