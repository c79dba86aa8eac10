"""MTurk batches over items the project already has, several answers to several
questions in one import, and the platform's work time feeding the speeder alarm."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from annotation_store import Store
from interop.base import parse_mapping
from interop.importing import ImportFailure
from reports.data import project_alarms
from workbench_api import import_file

FIELDS = {"claim": "c", "evidence": "e", "label": "false", "explanation": "x"}
MAP = parse_mapping(
    [
        "Answer.Detected=errors_detected",
        "Answer.Corrected=errors_corrected",
        "Answer.Sources=sources",
    ]
)


def _write(path: Path, header: list[str], rows: list[list[object]]) -> Path:
    with path.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def _batch(tmp_path: Path, ids: list[str], id_column: str = "Input.item_id") -> Path:
    header = ["HITId", "AssignmentId", "WorkerId", "AssignmentStatus", "WorkTimeInSeconds"]
    header += [id_column, "Answer.Detected", "Answer.Corrected", "Answer.Sources"]
    rows = []
    for n, item in enumerate(ids):
        for w, worker in enumerate(("WA", "WB")):
            rows.append([f"H{n}", f"A{n}{w}", worker, "Approved", 30 + n, item, w, 1, n % 4])
    return _write(tmp_path / "Batch_1_batch_results.csv", header, rows)


@pytest.fixture
def rubric(store: Store) -> Store:
    store.create_project("act", "actionability")
    store.upsert_items("act", [{"item_id": f"c{i}", "fields": dict(FIELDS)} for i in range(3)])
    return store


def test_a_batch_over_existing_items_needs_only_their_id(rubric: Store, tmp_path: Path) -> None:
    before = {i.item_id: i.fields for i in rubric.items("act")}
    reports = import_file(
        rubric, "act", "annotations", _batch(tmp_path, ["c0", "c1", "c2"]), "mturk", mapping=MAP
    )
    assert "items" not in reports
    assert reports["annotations"].created == 3 * 2 * 3
    assert "3 items already in the project matched by item id" in " ".join(
        reports["annotations"].notes
    )
    assert {i.item_id: i.fields for i in rubric.items("act")} == before
    labels = rubric.annotations_frame("act")
    got = {(r.item_id, r.annotator, r.field): r.value for r in labels.itertuples()}
    assert got[("c2", "WB", "errors_detected")] == 1
    assert got[("c2", "WA", "errors_corrected")] == 1
    assert got[("c2", "WA", "sources")] == 2


def test_items_the_batch_only_names_are_listed_and_nothing_is_stored(
    rubric: Store, tmp_path: Path
) -> None:
    path = _batch(tmp_path, ["c0", "zz9", "zz8"])
    with pytest.raises(ImportFailure) as caught:
        import_file(rubric, "act", "annotations", path, "mturk", mapping=MAP)
    assert "2 item(s) the batch names are not in project 'act': zz9, zz8" in str(caught.value)
    assert "\n" not in str(caught.value)
    assert rubric.annotations_frame("act").empty


def test_a_mapped_column_names_the_items(rubric: Store, tmp_path: Path) -> None:
    path = _batch(tmp_path, ["c1", "c0"], id_column="Input.claim_ref")
    mapping = {**MAP, "Input.claim_ref": "item_id"}
    import_file(rubric, "act", "annotations", path, "mturk", mapping=mapping)
    labels = rubric.annotations_frame("act")
    assert sorted(set(labels["item_id"])) == ["c0", "c1"]
    assert len(rubric.items("act")) == 3


def _timed_batch(tmp_path: Path, with_work_time: bool) -> Path:
    """40 items x 3 of 6 workers (20 each); FAST answers in 6 s, the others 60-110 s."""
    workers = ["FAST", "W1", "W2", "W3", "W4", "W5"]
    header = ["HITId", "AssignmentId", "WorkerId", "AssignmentStatus"]
    header += ["WorkTimeInSeconds"] if with_work_time else ["AcceptTime", "SubmitTime"]
    header += ["Input.text", "Answer.label"]
    rows = []
    for i in range(40):
        for k in range(3):
            who = workers[(i + k * 2) % 6]
            seconds = 6 if who == "FAST" else 60 + (i * 7 + k * 13) % 50
            times = (
                [seconds]
                if with_work_time
                else [
                    "Sat Nov 28 10:00:00 PST 2026",
                    f"Sat Nov 28 10:{seconds // 60:02d}:{seconds % 60:02d} PST 2026",
                ]
            )
            rows.append(
                [f"H{i}", f"A{i}{k}", who, "Approved", *times, f"text {i}", 1 + (i + k) % 5]
            )
    return _write(tmp_path / "Batch_2_batch_results.csv", header, rows)


@pytest.mark.parametrize(
    ("with_work_time", "source"),
    [(True, "MTurk WorkTimeInSeconds"), (False, "MTurk SubmitTime - AcceptTime")],
)
def test_platform_work_time_feeds_the_speeder_alarm(
    store: Store, tmp_path: Path, with_work_time: bool, source: str
) -> None:
    store.create_project("lik", "likert")
    import_file(store, "lik", "annotations", _timed_batch(tmp_path, with_work_time), "mturk")
    progress = store.progress_frame("lik")
    fast = progress[progress["annotator"] == "FAST"]["seconds_spent"]
    assert len(fast) == 20 and set(fast) == {6.0}
    (alarm,) = [a for a in project_alarms(store, "lik") if a["kind"] == "speeder"]
    assert alarm["annotators"] == ["FAST"] and alarm["figure"] == 6.0
    assert f"(time on task reported by the platform: {source})" in alarm["sentence"]
    assert alarm["figure_name"] == "median platform seconds per item"


PROLIFIC = (
    "Submission id,Participant id,Status,Started at,Completed at,Time taken,Completion code\n"
    "s1,5f9c,APPROVED,2026-05-04T12:00:00Z,2026-05-04T12:09:00Z,540,C1\n"
    "s2,77ab,RETURNED,2026-05-04T12:00:00Z,2026-05-04T12:01:00Z,60,\n"
    "s3,88cd,AWAITING REVIEW,2026-05-04T12:00:00Z,2026-05-04T12:05:00Z,90,C1\n"
)


def test_prolific_time_taken_is_spread_over_the_submitted_items(
    store: Store, tmp_path: Path
) -> None:
    store.create_project("p", "binary")
    store.upsert_items("p", [{"item_id": f"i{i}", "fields": {"text": "t"}} for i in range(3)])
    labels = [("prolific:5f9c", "i0"), ("prolific:5f9c", "i1"), ("88cd", "i0"), ("88cd", "i2")]
    labels += [("88cd", "i1")]
    store.import_labels(
        "p",
        [
            {"item_id": i, "annotator": who, "field": "label", "value": 1, "status": "submitted"}
            for who, i in labels
        ],
    )
    path = tmp_path / "prolific_export.csv"
    path.write_text(PROLIFIC)
    (report,) = import_file(store, "p", "annotations", path, "prolific").values()
    assert report.notes == [
        "time taken of 2 participants spread over their 5 submitted items "
        "(platform time: Prolific time taken)"
    ]
    progress = store.progress_frame("p").set_index(["annotator", "item_id"])["seconds_spent"]
    assert progress[("prolific:5f9c", "i1")] == 270.0 and progress[("88cd", "i2")] == 30.0
    from crowd.study_quality import platform_times

    _, source = platform_times(store, "p")
    assert source == (
        "time on task reported by the platform: Prolific time taken (per submission, "
        "spread over its items)"
    )
