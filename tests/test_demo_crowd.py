"""The judge-study demo carries a crowd study: settings, gold items and three synthetic
workers whose paths (completed; stopped by gold and speed checks; not qualified) show on
the study and quality screens from the first start."""

from __future__ import annotations

import json

import pytest

from annotation_store import Store
from annotation_store.crowd import study_quality as cq
from annotation_store.crowd import workers as crowd
from annotation_store.demo_crowd import N_GOLD, RUNS
from annotation_store.studies import gold
from annotation_store.studies.flow_settings import study_of
from tests.support.apptest import assert_ok, open_app
from workbench_api.demo import JUDGE_STUDY, load_all


@pytest.fixture
def demo_store(sqlite_url: str):
    store = Store(sqlite_url)
    load_all(store)
    yield store
    store.close()


def test_the_demo_study_has_gold_checks_and_three_worker_paths(demo_store: Store) -> None:
    study = study_of(demo_store.project(JUDGE_STUDY).settings)
    assert study.crowd and len(study.training) == 2 and study.gold_threshold == 0.6
    golds = gold.gold_items(demo_store, JUDGE_STUDY)
    assert len(golds) == N_GOLD
    # gold items are items the demo's people did not label (so the judge study's
    # findings do not move), answered with judge version 2's recorded grades
    frame = demo_store.annotations_frame(JUDGE_STUDY)
    people = frame[frame["annotator"].str.startswith("demo-annotator")]
    assert not set(people["item_id"]) & set(golds)
    grades = {
        r["item_id"]: r["resolution"]
        for r in map(json.loads, RUNS.read_text().splitlines())
        if r["version"] == 2
    }
    assert {i: g["answers"]["resolution"] for i, g in golds.items()} == {
        i: grades[i] for i in golds
    }
    paths = {
        p.annotator: (p.stage, p.qualified) for p in crowd.participants(demo_store, JUDGE_STUDY)
    }
    assert paths == {
        "prolific:DEMO-W1": ("done", True),
        "prolific:DEMO-W2": ("stopped", True),
        "prolific:DEMO-W3": ("not_qualified", False),
    }
    flags = {(f.annotator, f.source) for f in cq.crowd_flags(demo_store, JUDGE_STUDY)}
    assert flags == {
        ("prolific:DEMO-W2", "gold"),
        ("prolific:DEMO-W2", "speed"),
        ("prolific:DEMO-W3", "qualification"),
    }
    accuracy = gold.gold_accuracy(demo_store, JUDGE_STUDY)
    assert accuracy["prolific:DEMO-W1"] == (3, 3) and accuracy["prolific:DEMO-W2"] == (0, 3)


def test_progress_shows_the_demo_study_on_first_start(
    monkeypatch: pytest.MonkeyPatch, demo_store: Store
) -> None:
    at = open_app(monkeypatch, demo_store.url, page="pages/progress.py", project=JUDGE_STUDY)
    assert_ok(at)
    metrics = {m.label: m.value for m in at.metric}
    assert (metrics["Workers started"], metrics["Qualified"], metrics["Completed"]) == (
        "3",
        "2",
        "1",
    )
    assert metrics["Flagged"] == "2"


def test_the_study_tab_shows_the_demo_study_in_its_form(
    monkeypatch: pytest.MonkeyPatch, demo_store: Store
) -> None:
    at = open_app(monkeypatch, demo_store.url, page="pages/admin.py", project=JUDGE_STUDY)
    assert_ok(at)
    assert next(c for c in at.checkbox if c.label.startswith("Open to study links")).value
    codes = {t.label: t.value for t in at.text_input}
    assert codes["Completion code"] == "DEMO-DONE"
    # the users table names the study's workers as crowd, apart from the demo's people
    users = at.dataframe[0].value.set_index("name")
    assert users.loc["prolific:DEMO-W1", "kind"] == "crowd"
    assert users.loc["demo-annotator-1", "kind"] == "external rater"
