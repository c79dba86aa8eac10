"""The Annotate page's fast lane: claim-ahead, blind item payloads, the HTTP routes (#30)."""

from __future__ import annotations

import html
import json

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

from accounts import users as accounts
from annotation_store import Store
from crowd import study_quality as cq
from studies import assignments as asg
from tests.annotate_fixtures import make_project
from ui.annotation import fast_lane
from ui.annotation.fast_lane import LANES
from ui.annotation.fast_routes import LABEL_ROUTE, LANE_HEADER, NEXT_ROUTE, ROUTES
from ui.session_cookie import GUARD_HEADER


def _binary(store: Store, n: int = 4, **settings) -> str:
    store.create_project("p", "binary", {"k": 1, **settings})
    store.upsert_items(
        "p",
        [
            {"item_id": f"p:{i}:tampered", "fields": {"text": f"t{i}"}, "generator": "gpt-x"}
            for i in range(n)
        ],
    )
    return "p"


def test_claim_ahead_counts_the_current_item_as_submitted(store: Store) -> None:
    _binary(store, n=3)
    a = store.ensure_annotator("ann").name
    first = asg.claim_next(store, "p", a)
    assert asg.claim_next(store, "p", a, ahead_of=first) == "p:1:tampered"
    # the first claim stays open: the page still resumes it
    assert asg.claim_next(store, "p", a) == first
    assert asg.queue(store, "p", a) == [first, "p:1:tampered"]
    # with the second one submitted in the browser too (its post on the way): the third
    assert asg.claim_next(store, "p", a, ahead_of=[first, "p:1:tampered"]) == "p:2:tampered"


def test_claim_ahead_respects_the_quota(store: Store) -> None:
    _binary(store, n=4, quota=1)
    a = store.ensure_annotator("ann").name
    first = asg.claim_next(store, "p", a)
    assert asg.claim_next(store, "p", a, ahead_of=first) is None


def test_the_payload_is_blind_for_annotators(store: Store) -> None:
    _binary(store)
    user = store.ensure_annotator("ann")
    project = store.project("p")
    item = asg.claim_next(store, "p", user.name)
    payload = fast_lane.item_payload(store, project, user, item)
    text = repr(payload)
    assert "tampered" not in text and "gpt-x" not in text
    assert payload["ref"] == "1" and payload["name"] == "item 1"
    assert payload["panels"] == [{"title": "Text", "text": "t0"}]
    # keys as labelled: Y / N (and 1 / 0) for yes / no
    choices = payload["targets"][0]["choices"]
    assert choices == [{"label": "yes", "keys": ["y", "1"]}, {"label": "no", "keys": ["n", "0"]}]
    assert payload["targets"][0]["chosen"] is None
    assert payload["targets"][0]["control"] == "binary" and payload["targets"][0]["required"]


def test_intent_match_payload_lists_every_fact_then_the_question(store: Store) -> None:
    make_project(store, "intent_match", k=1)
    user = store.ensure_annotator("admin", role="admin")
    project = store.project("intent_match")
    payload = fast_lane.item_payload(store, project, user, "im2")
    keys = [t["key"] for t in payload["targets"]]
    assert keys[:3] == ["gold_fact_labels.0", "gold_fact_labels.1", "predicted_fact_labels.0"]
    assert keys[-1] == "match"
    assert payload["targets"][1]["title"] == "2. The time is 7am tomorrow."
    # facts take C / M, as their buttons read, and 1 / 0
    assert payload["targets"][0]["choices"] == [
        {"label": "C", "keys": ["c", "1"]},
        {"label": "M", "keys": ["m", "0"]},
    ]
    assert payload["name"] == "im2"  # admins see ids, as on the page


def test_covers_choice_kinds_in_and_outside_studies(store: Store) -> None:
    make_project(store, "intent_match", k=1)
    make_project(store, "actionability", k=1)
    assert fast_lane.covers(store.project("intent_match"))
    _binary(store, study={"consent": "You agree."})
    assert fast_lane.covers(store.project("p"))  # at its annotation stage only: study_gate


@pytest.fixture
def client() -> TestClient:
    return TestClient(Starlette(routes=ROUTES), base_url="http://127.0.0.1:8501")


def _headers(token: str) -> dict[str, str]:
    return {GUARD_HEADER: "1", LANE_HEADER: token}


def test_routes_label_items_in_queue_order(store: Store, client: TestClient) -> None:
    _binary(store, n=3)
    user = accounts.add_user(store, "ann", "annotator")
    first = asg.claim_next(store, "p", user.name)
    token = LANES.open(store, "p", user)
    got = client.get(NEXT_ROUTE, params={"after": "1"}, headers=_headers(token))
    assert got.status_code == 200 and got.json()["item"]["ref"] == "2"
    # item 2 submitted in the browser, item 1's post not through yet: item 3 comes next
    ahead = client.get(NEXT_ROUTE, params={"after": "2", "pending": ["1"]}, headers=_headers(token))
    assert ahead.json()["item"]["ref"] == "3"
    saved = client.post(
        LABEL_ROUTE,
        json={"item": "1", "chosen": {"label": 0}, "seconds": 2.5, "active_seconds": 1.5},
        headers=_headers(token),
    )
    assert saved.status_code == 200
    state = store.item_state("p", first, "ann")
    assert state["status"] == "submitted" and state["labels"] == {"label": 1}
    progress = store.progress_frame("p").set_index("item_id").loc[first]
    assert progress["seconds_spent"] == 2.5
    assert cq.active_times(store, "p")["active_seconds"].tolist() == [1.5]
    client.post(LABEL_ROUTE, json={"item": "2", "chosen": {"label": 1}}, headers=_headers(token))
    assert store.item_state("p", "p:1:tampered", "ann")["labels"] == {"label": 0}
    frame = store.annotations_frame("p")
    assert list(frame.sort_values("item_id")["value"]) == [1, 0]
    # the end of the queue
    end = client.get(NEXT_ROUTE, params={"after": "3"}, headers=_headers(token))
    assert end.json() == {"item": None}


def test_routes_refuse_missing_answers_bad_choices_and_strangers(
    store: Store, client: TestClient
) -> None:
    _binary(store, n=3)
    user = accounts.add_user(store, "ann", "annotator")
    asg.claim_next(store, "p", user.name)
    token = LANES.open(store, "p", user)
    missing = client.post(LABEL_ROUTE, json={"item": "1", "chosen": {}}, headers=_headers(token))
    assert missing.status_code == 422 and "still to answer" in missing.json()["error"]
    bad = client.post(
        LABEL_ROUTE, json={"item": "1", "chosen": {"label": 7}}, headers=_headers(token)
    )
    assert bad.status_code == 400
    other = client.post(
        LABEL_ROUTE, json={"item": "3", "chosen": {"label": 0}}, headers=_headers(token)
    )
    assert other.status_code == 404  # never handed out: no display number 3
    assert (
        client.get(NEXT_ROUTE, params={"after": "1"}, headers=_headers("nope")).status_code == 403
    )
    no_guard = client.get(NEXT_ROUTE, params={"after": "1"}, headers={LANE_HEADER: token})
    assert no_guard.status_code == 403
    closed = LANES.open(store, "p", user)
    LANES.close([closed])  # signed out
    assert (
        client.get(NEXT_ROUTE, params={"after": "1"}, headers=_headers(closed)).status_code == 403
    )
    accounts.set_active(store, "ann", False)
    gone = client.get(NEXT_ROUTE, params={"after": "1"}, headers=_headers(token))
    assert gone.status_code == 403
    assert store.item_state("p", "p:0:tampered", "ann")["status"] is None


def test_a_choice_is_saved_the_moment_it_is_given_without_submitting(
    store: Store, client: TestClient
) -> None:
    """Each key in the panel posts its choice at once (a reload loses nothing); the item
    stays a draft until its submit is posted."""
    _binary(store, n=2)
    user = accounts.add_user(store, "ann", "annotator")
    first = asg.claim_next(store, "p", user.name)
    token = LANES.open(store, "p", user)
    key = client.post(
        LABEL_ROUTE,
        json={"item": "1", "chosen": {"label": 1}, "submit": False},
        headers=_headers(token),
    )
    assert key.status_code == 200
    assert key.json() == {"saved": True, "submitted": False, "scores": [], "asked": ["label"]}
    state = store.item_state("p", first, "ann")
    assert state["labels"] == {"label": 0} and state["status"] == "draft"
    changed = client.post(
        LABEL_ROUTE,
        json={"item": "1", "chosen": {"label": 0}, "submit": False},
        headers=_headers(token),
    )
    assert changed.status_code == 200
    assert store.item_state("p", first, "ann")["labels"] == {"label": 1}
    bad = client.post(
        LABEL_ROUTE,
        json={"item": "1", "chosen": {"label": 9}, "submit": False},
        headers=_headers(token),
    )
    assert bad.status_code == 400
    done = client.post(LABEL_ROUTE, json={"item": "1", "chosen": {}}, headers=_headers(token))
    assert done.status_code == 200
    state = store.item_state("p", first, "ann")
    assert state["status"] == "submitted" and state["labels"] == {"label": 1}


def test_previous_ref_names_the_item_the_pages_previous_opens(store: Store) -> None:
    _binary(store, n=3)
    user = accounts.add_user(store, "ann", "annotator")
    project = store.project("p")
    first = asg.claim_next(store, "p", user.name)
    second = asg.claim_next(store, "p", user.name, ahead_of=first)
    assert fast_lane.previous_ref(store, project, user, first) == ""  # the first item
    assert fast_lane.previous_ref(store, project, user, second) == "1"
    # an item outside the queue (a reviewer's jump): the queue's last one
    assert fast_lane.previous_ref(store, project, user, "p:2:tampered") == "2"


def test_the_pages_own_item_gets_the_routes_payload(store: Store) -> None:
    """The panel's first item comes with the page, from the page's item context: the
    same blind payload the route hands out, saved choices included."""
    _binary(store, n=2)
    user = accounts.add_user(store, "ann", "annotator")
    project = store.project("p")
    item = asg.claim_next(store, "p", user.name)
    store.save_label("p", item, user.name, "label", 0, status="draft")
    ctx = fast_lane._context(store, project, user, item)
    payload = fast_lane.payload_of(ctx, "1")
    assert payload == fast_lane.item_payload(store, project, user, item)
    assert payload["targets"][0]["chosen"] == 1  # the "no" button, as saved
    assert "tampered" not in repr(payload)


def test_only_a_server_that_takes_the_routes_opens_the_panel_at_once() -> None:
    from ui.annotation import fast_routes

    assert not fast_routes.served()  # streamlit run app.py: the page stays as it is
    try:
        assert fast_routes.routes() is ROUTES
        assert fast_routes.served()
    finally:
        fast_routes._SERVED.clear()


def test_an_items_text_cannot_close_the_pages_script_or_its_attribute() -> None:
    from ui.annotation import client_assets

    text = '</script><img src=x onerror=alert(1)> " --> RUN_ID'
    body = client_assets.script("boot.js", {"item": {"panels": [{"text": text}]}}, "run-7")
    assert body.count("</script>") == 1 and body.count('"') == 6  # three attributes
    assert "<img" not in body and "-->" not in body
    start = body.index('data-config="') + len('data-config="')
    raw = html.unescape(body[start : body.index('"', start)])
    assert json.loads(raw)["item"]["panels"][0]["text"] == text


def test_intent_match_live_scores_follow_each_saved_choice(
    store: Store, client: TestClient
) -> None:
    make_project(store, "intent_match", k=1)
    user = accounts.add_user(store, "admin", "admin")
    project = store.project("intent_match")
    before = fast_lane.item_payload(store, project, user, "im2")["scores"]
    assert [(s["name"], s["value"]) for s in before] == [
        ("Recall", None),
        ("Precision", None),
        ("F1", None),
    ]
    token = LANES.open(store, "intent_match", user)

    def choose(key: str, index: int) -> list[tuple[str, float | None]]:
        reply = client.post(
            LABEL_ROUTE,
            json={"item": "im2", "chosen": {key: index}, "submit": False},
            headers=_headers(token),
        )
        assert reply.status_code == 200
        return [(s["name"], s["value"]) for s in reply.json()["scores"]]

    # choice 0 is C (implied), 1 is M: one gold fact of two implied, the predicted one too
    assert choose("gold_fact_labels.0", 0)[0] == ("Recall", 1.0)
    assert choose("gold_fact_labels.1", 1)[0] == ("Recall", 0.5)
    scores = dict(choose("predicted_fact_labels.0", 0))
    assert scores["Precision"] == 1.0 and scores["F1"] == pytest.approx(2 / 3)
    # a reload draws the same figures from what was saved
    again = fast_lane.item_payload(store, project, user, "im2")["scores"]
    assert [s["value"] for s in again] == [0.5, 1.0, pytest.approx(2 / 3)]


def test_kinds_without_derived_scores_send_none(store: Store) -> None:
    _binary(store)
    user = store.ensure_annotator("ann")
    item = asg.claim_next(store, "p", user.name)
    assert fast_lane.item_payload(store, store.project("p"), user, item)["scores"] == []
