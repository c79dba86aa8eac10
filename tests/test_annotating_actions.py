"""The actions on an item (annotating/actions.py), one set for the
Annotate page and the annotation client: what each saves, and what each refuses."""

from __future__ import annotations

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

from accounts import users as accounts
from annotating import actions
from annotating.actions import ActionRefused
from annotating.item_view import read_view
from annotation_store import Store
from studies import assignments as asg
from tests.annotate_fixtures import make_project
from tests.support.kind_examples import example_project
from ui.annotation.fast_lane import LANES
from ui.annotation.fast_routes import ACT_ROUTE, LANE_HEADER, ROUTES
from ui.session_cookie import GUARD_HEADER


def test_a_facts_answer_goes_into_its_place_in_the_list(store: Store) -> None:
    make_project(store, "intent_match", k=1)
    user = store.ensure_annotator("ann")
    view = read_view(store, store.project("intent_match"), user, "im1")
    second = next(t for t in view.targets if t.key == "gold_fact_labels.1")
    view = actions.save_values(view, [(second, "M")])
    assert view.labels["gold_fact_labels"] == ["?", "M", "?", "?", "?"]
    assert view.state["status"] == "draft"


def test_submit_names_what_is_missing_and_changes_nothing(store: Store) -> None:
    make_project(store, "intent_match", k=1)
    user = store.ensure_annotator("ann")
    asg.claim_next(store, "intent_match", user.name)
    view = read_view(store, store.project("intent_match"), user, "im2")
    facts = [t for t in view.targets if t.index is not None]
    actions.save_values(view, [(facts[0], "C")])
    with pytest.raises(ActionRefused) as refused:
        actions.submit(view, seconds=3.0)
    assert refused.value.status == 422
    assert str(refused.value) == (
        "still to answer: match, gold fact labels (1 left), predicted fact labels (1 left)"
    )
    assert [t.key for t in refused.value.missing] == [
        "gold_fact_labels.1",
        "predicted_fact_labels.0",
        "match",
    ]
    assert store.item_state("intent_match", "im2", user.name)["status"] == "draft"


def test_optional_questions_are_not_demanded(store: Store) -> None:
    project = example_project(store, "pairwise_preference", "pref", {"k": 1})
    user = store.ensure_annotator("ann")
    item = asg.claim_next(store, project, user.name)
    view = read_view(store, store.project(project), user, item)
    (pair,) = [t for t in view.targets if t.key == "preference"]
    view = actions.save_values(view, [(pair, {"choice": "tie", "shown": ["answer_a", "answer_b"]})])
    actions.submit(view, seconds=1.0)  # the optional note and the hidden reasons: not asked
    assert store.item_state(project, item, user.name)["status"] == "submitted"


def test_a_study_workers_submitted_item_is_final(store: Store) -> None:
    make_project(store, "binary", k=1, study={"consent": "You agree."})
    user = store.ensure_annotator("ann")
    item = asg.claim_next(store, "binary", user.name)
    view = read_view(store, store.project("binary"), user, item)
    view = actions.save_values(view, [(view.targets[0], 1)])
    actions.submit(view, seconds=1.0)
    view.refresh()
    with pytest.raises(ActionRefused, match="final"):
        actions.save_values(view, [(view.targets[0], 0)])
    assert not actions.may_skip(view)
    with pytest.raises(ActionRefused, match="cannot be skipped"):
        actions.skip(view)
    assert store.item_state("binary", item, user.name)["labels"] == {"label": 1}


def test_flag_note_and_skip(store: Store) -> None:
    make_project(store, "binary", k=1)
    user = store.ensure_annotator("ann")
    first = asg.claim_next(store, "binary", user.name)
    view = read_view(store, store.project("binary"), user, first)
    assert actions.toggle_flag(view) is True
    actions.save_note(view, "the text is cut off")
    state = store.item_state("binary", first, user.name)
    assert state["flagged"] and state["note"] == "the text is cut off"
    nxt = actions.skip(view.refresh())
    assert store.item_state("binary", first, user.name)["status"] == "skipped"
    assert nxt is None  # its only item, given back: nothing left to claim


def test_the_study_gate_before_each_item(store: Store) -> None:
    make_project(store, "binary", k=1, study={"consent": "You agree."})
    project = store.project("binary")
    staff = store.ensure_annotator("boss", role="admin")
    worker = store.ensure_annotator("ann")
    assert actions.study_gate(store, project, staff) is None  # no study for staff
    assert actions.study_gate(store, project, worker) == ""  # not joined yet


@pytest.fixture
def client() -> TestClient:
    return TestClient(Starlette(routes=ROUTES), base_url="http://127.0.0.1:8501")


def test_the_act_route_flags_notes_and_skips(store: Store, client: TestClient) -> None:
    make_project(store, "binary", k=1)
    user = accounts.add_user(store, "ann", "annotator")
    first = asg.claim_next(store, "binary", user.name)
    token = LANES.open(store, "binary", user)
    headers = {GUARD_HEADER: "1", LANE_HEADER: token}

    def act(**body) -> tuple[int, dict]:
        reply = client.post(ACT_ROUTE, json={"item": "1", **body}, headers=headers)
        return reply.status_code, reply.json()

    assert act(action="flag", flagged=True) == (200, {"saved": True})
    assert act(action="note", note="odd wording") == (200, {"saved": True})
    state = store.item_state("binary", first, user.name)
    assert state["flagged"] and state["note"] == "odd wording"
    assert act(action="note", note="x" * 5001)[0] == 400
    assert act(action="flag", flagged="yes") == (400, {"error": "malformed request"})
    assert act(action="delete") == (400, {"error": "malformed request"})
    assert store.item_state("binary", first, user.name)["note"] == "odd wording"
    assert act(action="skip") == (200, {"saved": True})
    assert store.item_state("binary", first, user.name)["status"] == "skipped"
