"""The study settings form: tables for training and survey, errors under their input,
and a form save storing the same settings as the JSON of the same choices."""

from __future__ import annotations

import json

import pytest

from annotation_store import Store
from studies.flow_settings import get_study, set_study
from studies.settings_form import (
    survey_from_rows,
    survey_rows,
    training_from_rows,
    training_rows,
    without_defaults,
)
from tests.support.apptest import assert_ok, open_app
from ui.study.settings_form import error_key

TRAINING = [
    {"id": "t1", "fields": {"text": "The sky is green."}, "answers": {"label": 0},
     "explanation": "The sky is not green."},
    {"id": "t2", "fields": {"text": "Water is wet."}, "answers": {"label": 1}},
]  # fmt: skip
SURVEY = [
    {"id": "clear", "text": "How clear was the task?", "type": "likert", "low": 1, "high": 7},
    {"id": "notes", "text": "Anything else?"},
]


def test_training_and_survey_survive_the_tables() -> None:
    rows = training_rows(TRAINING, ["text"], ["label"])
    assert rows[0] == {
        "id": "t1",
        "shown: text": "The sky is green.",
        "answer: label": "0",
        "explanation": "The sky is not green.",
    }
    assert rows[1]["explanation"] == "" and rows[1]["answer: label"] == "1"
    blank = {"id": None, "shown: text": None, "answer: label": None, "explanation": None}
    assert training_from_rows([*rows, blank], {"text"}) == TRAINING
    # a text field stays text even when it reads like a number; answers are read as JSON
    assert training_from_rows([{"shown: text": "12", "answer: label": "[1, 2]"}], {"text"}) == [
        {"fields": {"text": "12"}, "answers": {"label": [1, 2]}}
    ]
    assert survey_from_rows(survey_rows(SURVEY)) == SURVEY


def test_only_changed_settings_are_stored_with_the_token() -> None:
    values = {"crowd": True, "gold_rate": 0.2, "gold_min": 1, "consent": "  ", "max_skips": None}
    assert without_defaults(values, "tok") == {"crowd": True, "gold_rate": 0.2, "token": "tok"}
    assert without_defaults({"max_skips": 0}) == {"max_skips": 0}  # 0 is not "no cap"


def test_refusals_are_placed_under_the_input_they_name() -> None:
    assert error_key("study 'completion_url' must start with https://") == "completion_url"
    assert error_key("study 'full_code' must differ from the completion ...") == "full_code"
    assert error_key("training item 't1': no field 'lbl' in this kind") == "training"
    assert error_key("survey question 2: 'low' < 'high' must be whole numbers") == "survey"
    assert error_key("something else") == "general"


@pytest.fixture
def two_projects(store: Store) -> Store:
    for name in ("p", "q"):
        store.create_project(name, "binary", {"k": 1})
        store.upsert_items(name, [{"item_id": f"i{n}", "fields": {"text": "x"}} for n in range(4)])
    return store


def _number(at, label_start: str):
    return next(n for n in at.number_input if n.label.startswith(label_start))


def _text(at, label_start: str):
    return next(t for t in at.text_input if t.label.startswith(label_start))


def test_form_and_json_store_the_same_settings(monkeypatch, two_projects: Store) -> None:
    store = two_projects
    set_study(store, "p", {"training": TRAINING, "survey": SURVEY})
    at = open_app(monkeypatch, store.url, page="pages/admin.py", project="p")
    next(c for c in at.checkbox if c.label.startswith("Open to study links")).check()
    at.text_area(key="studyf_consent").input("You agree that we keep your answers.")
    _number(at, "Share of training answers").set_value(0.5)
    _number(at, "Share of gold items").set_value(0.2)
    _number(at, "Gold accuracy needed").set_value(0.75)
    _number(at, "Skips allowed").set_value(3)
    _text(at, "Completion code").input("C0DE-DONE")
    _text(at, "Completion URL").input("https://app.prolific.com/submissions/complete")
    at = assert_ok(at.button(key="FormSubmitter:study_form-Save study").click().run())
    by_form = get_study(store, "p")
    token = by_form.pop("token")
    assert len(token) >= 20

    # the same choices typed as JSON, in another project
    typed = {
        "crowd": True,
        "consent": "You agree that we keep your answers.",
        "training": TRAINING,
        "qualification": 0.5,
        "gold_rate": 0.2,
        "gold_threshold": 0.75,
        "survey": SURVEY,
        "completion_code": "C0DE-DONE",
        "completion_url": "https://app.prolific.com/submissions/complete",
        "max_skips": 3,
    }
    at = open_app(monkeypatch, store.url, page="pages/admin.py", project="q")
    at.text_area(key="study_json").input(json.dumps(typed))
    assert_ok(at.button(key="FormSubmitter:study_settings-Save study").click().run())
    by_json = get_study(store, "q")
    by_json.pop("token")
    assert by_form == by_json
    assert by_form == typed  # key for key, value for value (only what differs from defaults)


def test_a_refused_value_is_explained_and_nothing_changes(monkeypatch, two_projects) -> None:
    store = two_projects
    set_study(store, "p", {"gold_rate": 0.1})
    at = open_app(monkeypatch, store.url, page="pages/admin.py", project="p")
    _text(at, "Completion URL").input("ftp://example.org/done")
    _text(at, "Completion code").input("SAME")
    at = at.button(key="FormSubmitter:study_form-Save study").click().run()
    assert [e.value for e in at.error] == ["study 'completion_url' must start with https://"]
    assert get_study(store, "p") == {"gold_rate": 0.1}
    # the inputs keep what was typed, to be corrected
    assert _text(at, "Completion URL").value == "ftp://example.org/done"


def test_platforms_are_named_as_people_know_them_and_each_link_says_whose(
    monkeypatch, two_projects
) -> None:
    store = two_projects
    set_study(store, "p", {"crowd": True})
    at = open_app(monkeypatch, store.url, page="pages/admin.py", project="p")
    labels = [c.label for c in at.checkbox if c.label.startswith("Open to study links")]
    assert labels == ["Open to study links (crowd workers from Prolific or MTurk)"]
    captions = [str(c.value) for c in at.caption]
    assert captions.index("For Prolific:") < captions.index("For MTurk:")
    links = [c.value for c in at.code if "token=" in c.value]
    assert "PROLIFIC_PID" in links[0] and "workerId" in links[1]
