"""A study's practice items in the annotation client (issue #46 point 1): drawn as items
are (chat fields as turns, the kind's questions, options and keys), checked by the
server alone through ``POST /api/annotate/practice``, stored as the practice form
stored them, and judged by the study flow as before."""

from __future__ import annotations

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

from annotation_store import Store
from crowd import workers as crowd
from studies.flow_settings import set_study, study_of
from ui.annotation import practice
from ui.annotation.fast_lane import LANES
from ui.annotation.fast_routes import LANE_HEADER, PRACTICE_ROUTE, ROUTES
from ui.session_cookie import GUARD_HEADER

TRAINING = [
    {
        "id": "t1",
        "fields": {"text": "Snow is white."},
        "answers": {"label": 1},
        "explanation": "Fresh snow reflects all colours.",
    },
    {"id": "t2", "fields": {"text": "Fish fly to the moon."}, "answers": {"label": 0}},
]
STUDY = {"crowd": True, "token": "s3cret", "training": TRAINING, "qualification": 1.0}


@pytest.fixture
def client() -> TestClient:
    return TestClient(Starlette(routes=ROUTES), base_url="http://127.0.0.1:8501")


def _worker(store: Store, pid: str, *, at_practice: bool = True):
    link = crowd.parse_link({"study": "p", "token": "s3cret", "PROLIFIC_PID": pid})
    assert link is not None
    user = crowd.enter(store, link)
    if at_practice:
        crowd.record_guideline_opened(store, "p", user.name)
    token = LANES.open(store, "p", user)
    return user, {GUARD_HEADER: "1", LANE_HEADER: token}


def _binary_study(store: Store) -> None:
    store.create_project("p", "binary", {"k": 1})
    store.upsert_items("p", [{"item_id": "i0", "fields": {"text": "Water is wet."}}])
    set_study(store, "p", STUDY)


def test_a_practice_item_is_drawn_as_an_item_with_its_keys(store: Store) -> None:
    _binary_study(store)
    user, _ = _worker(store, "W1")
    project = store.project("p")
    shown = practice.payload(store, project, user, study_of(project.settings), "t1")
    assert shown["ref"] == "practice:t1"
    assert shown["name"] == "practice item 1 of 2"
    assert shown["practice"] == {"id": "t1", "number": 1, "total": 2}
    assert shown["panels"] == [{"title": "Text", "text": "Snow is white."}]
    [target] = shown["targets"]
    assert (target["key"], target["control"], target["required"]) == ("label", "binary", True)
    assert [(c["label"], c["keys"]) for c in target["choices"]] == [
        ("yes", ["y", "1"]),
        ("no", ["n", "0"]),
    ]
    assert target["chosen"] is None  # nothing is marked before the answer


def test_the_server_checks_stores_and_moves_on(store: Store, client: TestClient) -> None:
    _binary_study(store)
    user, headers = _worker(store, "W1")
    wrong = client.post(
        PRACTICE_ROUTE, json={"item": "t1", "chosen": {"label": 1}}, headers=headers
    )
    assert wrong.status_code == 200
    body = wrong.json()
    # option 1 is "no": wrong; the gold answer is option 0 ("yes"), with the reason
    assert body["correct"] is False
    assert body["gold"] == {"label": 0}
    assert body["expected"] == [{"title": "Yes (1) or no (0)", "answer": "yes"}]
    assert body["verdict"] == "Not quite. The expected answer is Yes (1) or no (0): yes."
    assert body["explanation"] == "Fresh snow reflects all colours."
    assert body["next"]["practice"]["id"] == "t2"
    # a second answer to the same item is not counted: the first one stays
    again = client.post(
        PRACTICE_ROUTE, json={"item": "t1", "chosen": {"label": 0}}, headers=headers
    )
    assert again.json()["correct"] is False
    last = client.post(PRACTICE_ROUTE, json={"item": "t2", "chosen": {"label": 1}}, headers=headers)
    assert last.json()["correct"] is True and last.json()["next"] is None
    assert last.json()["verdict"] == "Right."
    part = crowd.participant(store, "p", user.name)
    assert part is not None
    assert [(a["id"], a["answers"], a["correct"]) for a in part.training] == [
        ("t1", {"label": 0}, False),
        ("t2", {"label": 0}, True),
    ]
    # the study flow judges the qualification, as it did after the practice form
    assert part.stage == "training"
    assert crowd.finish_training(store, "p", user.name).stage == "not_qualified"


def test_a_missing_answer_or_a_worker_past_practice_is_refused(
    store: Store, client: TestClient
) -> None:
    _binary_study(store)
    user, headers = _worker(store, "W1")
    missing = client.post(PRACTICE_ROUTE, json={"item": "t1", "chosen": {}}, headers=headers)
    assert missing.status_code == 409 and "Answer every question" in missing.json()["error"]
    bad = client.post(PRACTICE_ROUTE, json={"item": "t1", "chosen": {"label": 7}}, headers=headers)
    assert bad.status_code == 400
    unknown = client.post(PRACTICE_ROUTE, json={"item": "t9", "chosen": {}}, headers=headers)
    assert unknown.status_code == 404
    no_guard = client.post(
        PRACTICE_ROUTE, json={"item": "t1", "chosen": {"label": 0}}, headers={LANE_HEADER: "x"}
    )
    assert no_guard.status_code in (400, 403)
    part = crowd.participant(store, "p", user.name)
    assert part is not None and part.training == []
    other, early = _worker(store, "W2", at_practice=False)  # still at the guideline
    refused = client.post(
        PRACTICE_ROUTE, json={"item": "t1", "chosen": {"label": 0}}, headers=early
    )
    assert refused.status_code == 409 and "moved on" in refused.json()["error"]
    assert crowd.participant(store, "p", other.name).training == []


def test_fact_lists_in_practice_are_one_question_per_fact(store: Store, client: TestClient) -> None:
    store.create_project("p", "intent_match", {"k": 1})
    fields = {
        "gold": "Book a table for two",
        "predicted": "Book a table",
        "gold_facts": ["wants a table booked", "for two people"],
        "predicted_facts": ["wants a table booked"],
    }
    training = [{"id": "f1", "fields": fields, "answers": {"gold_fact_labels": ["C", "M"]}}]
    set_study(store, "p", {**STUDY, "training": training})
    user, headers = _worker(store, "W1")
    project = store.project("p")
    shown = practice.payload(store, project, user, study_of(project.settings), "f1")
    # only the questions the gold answer names: one per fact, keyed C / M (and 1 / 0)
    assert [(t["key"], t["title"]) for t in shown["targets"]] == [
        ("gold_fact_labels.0", "1. wants a table booked"),
        ("gold_fact_labels.1", "2. for two people"),
    ]
    assert shown["targets"][0]["choices"] == [
        {"label": "C", "keys": ["c", "1"]},
        {"label": "M", "keys": ["m", "0"]},
    ]
    chosen = {"gold_fact_labels.0": 0, "gold_fact_labels.1": 0}
    body = client.post(PRACTICE_ROUTE, json={"item": "f1", "chosen": chosen}, headers=headers)
    assert body.status_code == 200, body.text
    assert body.json()["correct"] is False
    assert body.json()["gold"] == {"gold_fact_labels.0": 0, "gold_fact_labels.1": 1}
    assert [e["answer"] for e in body.json()["expected"]] == ["C", "M"]
    part = crowd.participant(store, "p", user.name)
    assert part is not None
    assert part.training == [
        {"id": "f1", "answers": {"gold_fact_labels": ["C", "C"]}, "correct": False}
    ]


def test_chat_and_object_fields_show_as_text_never_as_reprs(store: Store) -> None:
    store.create_project("p", "dialogue_faithfulness", {"k": 1})
    fields = {
        "service": "Restaurants_1",
        "act": {"act": "INFORM", "slot": "city", "values": ["Paris", "Lyon"]},
        "utterance": "It is in Paris.",
        "previous_turn": [{"role": "user", "content": "Where is it?"}],
    }
    training = [{"id": "d1", "fields": fields, "answers": {"faithful": 1}}]
    set_study(store, "p", {**STUDY, "training": training})
    user, _ = _worker(store, "W1")
    project = store.project("p")
    shown = practice.payload(store, project, user, study_of(project.settings), "d1")
    assert shown["panels"] == [
        {"title": "Service", "text": "Restaurants_1"},
        {"title": "Act", "text": "act: INFORM\nslot: city\nvalues: Paris, Lyon"},
        {"title": "Utterance", "text": "It is in Paris."},
        {"title": "Previous turn", "text": "user: Where is it?"},
    ]
    [target] = shown["targets"]
    assert target["title"] == "Does the utterance faithfully realise the dialogue act?"
    assert [c["label"] for c in target["choices"]] == ["faithful", "not faithful"]
