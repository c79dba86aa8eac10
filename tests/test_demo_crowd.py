"""The judge-study demo carries a crowd study: settings, gold items and three synthetic
workers whose paths (completed; stopped by gold and speed checks; not qualified) and
labels on real items show on the study and quality screens from the first start."""

from __future__ import annotations

import json
import re

import pytest

from annotation_store import Store
from crowd import study_quality as cq
from crowd import workers as crowd
from demo.crowd_study import N_GOLD, RUNS
from studies import gold
from studies.flow_settings import study_of
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


def test_the_demo_workers_label_real_items_as_the_fourth_annotator(demo_store: Store) -> None:
    golds = set(gold.gold_items(demo_store, JUDGE_STUDY))
    frame = demo_store.annotations_frame(JUDGE_STUDY)
    people = frame[frame["annotator"].str.startswith("demo-annotator")]
    work = frame[frame["annotator"].str.startswith("prolific:") & ~frame["item_id"].isin(golds)]
    by_worker = {
        w: dict(zip(g["item_id"], g["value"], strict=True)) for w, g in work.groupby("annotator")
    }
    assert {w: len(v) for w, v in by_worker.items()} == {
        "prolific:DEMO-W1": 12,
        "prolific:DEMO-W2": 6,
    }
    mine = set(work["item_id"])
    assert len(mine) == 18  # no item twice
    # each is an item three of the demo's people labelled: the worker's label is the 4th
    assert people[people["item_id"].isin(mine)].groupby("item_id").size().eq(3).all()
    # the careful worker is within a level of judge version 2's grade; the rusher is not
    grades = {
        r["item_id"]: r["resolution"]
        for r in map(json.loads, RUNS.read_text().splitlines())
        if r["version"] == 2
    }
    off = {
        w: [abs(float(v) - grades[i]) for i, v in labels.items()] for w, labels in by_worker.items()
    }
    assert max(off["prolific:DEMO-W1"]) <= 0.2 + 1e-9
    assert max(off["prolific:DEMO-W2"]) >= 0.4
    figures = cq.dashboard(demo_store, JUDGE_STUDY)
    assert (figures["items_complete"], figures["items"]) == (18, 294)
    assert cq.median_active(demo_store, JUDGE_STUDY) == {
        "prolific:DEMO-W1": 24.0,
        "prolific:DEMO-W2": 2.0,
    }
    # 15 items at 24 s and 9 at 2 s, at the study's hourly rate of 12
    assert figures["active_hours"] == pytest.approx((15 * 24 + 9 * 2) / 3600, abs=1e-3)


def test_the_demo_crowd_is_the_same_on_every_load(sqlite_url: str, tmp_path) -> None:
    other = Store(f"sqlite:///{tmp_path / 'again.db'}")
    first = Store(sqlite_url)
    try:
        load_all(first)
        load_all(other)
        cols = ["item_id", "annotator", "value"]

        def crowd_labels(store: Store) -> list[tuple]:
            f = store.annotations_frame(JUDGE_STUDY)
            f = f[f["annotator"].str.startswith("prolific:")][cols]
            return sorted(map(tuple, f.astype(str).to_numpy()))

        assert crowd_labels(first) == crowd_labels(other) and len(crowd_labels(first)) == 24
    finally:
        first.close()
        other.close()


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
    # the workers' labels on real items complete 18 items (three people + one worker)
    assert metrics["Items complete (k reached)"] == "18 / 294"
    assert metrics["Items complete"] == "18 / 294"
    home = open_app(monkeypatch, demo_store.url, page="pages/home.py")
    table = home.table[0].value.set_index("project")
    # Home counts the same 294 items to label, with the 6 gold checks apart
    assert table.loc[JUDGE_STUDY, "items"] == 300
    assert table.loc[JUDGE_STUDY, "complete items"] == "18 / 294 (+6 gold)"
    times = next(d.value for d in at.dataframe if "median active s / item" in d.value.columns)
    times = times.set_index("annotator")
    assert times.loc["prolific:DEMO-W1", "median active s / item"] == "24.0"
    assert "median active time 15%" in times.loc["prolific:DEMO-W2", "flags"]


def test_the_study_tab_shows_the_demo_study_in_its_form(
    monkeypatch: pytest.MonkeyPatch, demo_store: Store
) -> None:
    at = open_app(monkeypatch, demo_store.url, page="pages/admin.py", project=JUDGE_STUDY)
    assert_ok(at)
    assert next(c for c in at.checkbox if c.label.startswith("Open to study links")).value
    codes = {t.label: t.value for t in at.text_input}
    assert codes["Completion code"] == "DEMO-DONE"
    # the gold items read as answers, not JSON
    golds = next(d.value for d in at.dataframe if "gold answers" in d.value.columns)
    assert len(golds) == N_GOLD
    assert all(re.fullmatch(r"resolution: (0|0\.[2468]|1)", a) for a in golds["gold answers"])
    # the users table names the study's workers as crowd, apart from the demo's people
    users = at.dataframe[0].value.set_index("name")
    assert users.loc["prolific:DEMO-W1", "kind"] == "crowd"
    assert users.loc["demo-annotator-1", "kind"] == "external rater"
