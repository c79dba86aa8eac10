"""study_inputs: what a study's figures are computed from, loaded in one place (issue 43,
point 1): the study is asked once per load, the labels are read once per document, and
the audit path does not pass through reports/."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import pytest

from annotation_store import Store
from crowd import workers as crowd
from studies import assignments as asg
from studies import gold
from tests.test_crowd_study import _link, _project

ROOT = Path(__file__).resolve().parent.parent


def _crowd_project(store: Store) -> None:
    """Four items, one gold; three workers, one failing training; B excluded."""
    _project(store, n=4, k=5, gold_rate=0.0)
    gold.set_gold(store, "p", "i3", 1)
    names = [crowd.enter(store, _link(w)).name for w in ("A", "B", "C", "FAIL")]
    for n, who in enumerate(names):
        for item in ("i0", "i1", "i2", "i3"):
            store.save_label("p", item, who, "label", (n + int(item[1])) % 2)
            asg.submit(store, "p", item, who, seconds=3.0, bypass=True)
    crowd.record_training_answer(store, "p", "prolific:FAIL", "t1", {"label": 0})
    crowd.finish_training(store, "p", "prolific:FAIL")
    store.exclude_annotator("p", "prolific:B", "tested")


def test_one_document_asks_the_study_once_and_reads_the_labels_once(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    from reports.data import agreement_document

    _crowd_project(store)
    calls = {"study": 0, "labels": 0}
    real_checks, real_frame = store.study_checks, store.annotations_frame

    def checks(*args, **kwargs):
        calls["study"] += 1
        return real_checks(*args, **kwargs)

    def frame(*args, **kwargs):
        calls["labels"] += 1
        return real_frame(*args, **kwargs)

    monkeypatch.setattr(store, "study_checks", checks)
    monkeypatch.setattr(store, "annotations_frame", frame)
    doc = agreement_document(store, "p", n_resamples=0, timeline=False)
    assert calls == {"study": 1, "labels": 1}
    # the exclusions section was computed from the same load: B back in, gold and FAIL out
    assert [a["annotator"] for a in doc.exclusions["annotators"]] == ["prolific:B"]
    assert doc.exclusions["with_excluded"]["fields"]["label"]["n_annotators"] == 3
    assert doc.meta["n_items_total"] == 3 and doc.meta["n_gold_items"] == 1


def test_load_labels_applies_the_study_then_the_exclusions(store: Store) -> None:
    from study_inputs.labels import load_labels

    _crowd_project(store)
    got = load_labels(store, "p")
    assert sorted(got.everyone["annotator"].unique()) == ["prolific:A", "prolific:B", "prolific:C"]
    assert sorted(got.labels["annotator"].unique()) == ["prolific:A", "prolific:C"]
    assert sorted(got.labels["item_id"].unique()) == ["i0", "i1", "i2"]
    assert got.checks.gold_items == {"i3"} and got.checks.not_qualified == {"prolific:FAIL"}
    assert got.summary["n_labels"] == 3 and got.summary["n_annotators"] == 1
    everyone = load_labels(store, "p", exclusions=False)
    assert everyone.summary is None and len(everyone.labels) == len(got.everyone) == 9


def test_without_times_the_same_labels_and_no_time_queries(store: Store) -> None:
    from crowd import study_quality
    from study_inputs.labels import load_labels
    from study_inputs.load import load_inputs

    _crowd_project(store)
    for item in ("i0", "i1"):
        study_quality.record_active_seconds(store, "p", item, "prolific:A", 12.0)
    timed, untimed = load_labels(store, "p"), load_labels(store, "p", times=False)
    assert len(timed.checks.times) == 2  # the measured active times
    assert untimed.checks.times.empty and untimed.checks.time_source is None
    assert list(untimed.checks.times.columns) == list(timed.checks.times.columns)
    assert untimed.labels.equals(timed.labels) and untimed.checks.gold_items == {"i3"}
    assert untimed.checks.not_qualified == timed.checks.not_qualified
    inputs = load_inputs(store, "p", times=False)
    assert inputs.times.empty and inputs.annotations.equals(load_inputs(store, "p").annotations)


def test_the_study_checks_are_one_read_agreeing_with_the_study_modules(store: Store) -> None:
    from crowd import study_quality as cq

    _crowd_project(store)
    cq.record_active_seconds(store, "p", "i0", "prolific:A", 4.5)
    checks = store.study_checks("p")
    assert checks.gold_items == set(gold.gold_items(store, "p")) == {"i3"}
    failed = {p.annotator for p in crowd.participants(store, "p") if p.qualified is False}
    assert checks.not_qualified == failed == {"prolific:FAIL"}
    assert checks.times.to_dict("records") == [
        {"annotator": "prolific:A", "item_id": "i0", "active_seconds": 4.5}
    ]
    assert checks.time_source is None
    with pytest.raises(Exception, match="no project called 'nope'"):
        store.study_checks("nope")


def _imports(path: Path) -> set[str]:
    out = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return out


def test_the_audit_path_does_not_pass_through_reports() -> None:
    files = [ROOT / "pages" / "audit.py", ROOT / "workbench_api" / "audit.py"]
    files += sorted((ROOT / "audit").glob("*.py"))
    found = {
        f"{p.relative_to(ROOT)}: {m}"
        for p in files
        for m in _imports(p)
        if m == "reports" or m.startswith("reports.")
    }
    assert found == set()


def _tracer():
    spec = importlib.util.spec_from_file_location(
        "trace_label_path", ROOT / "scripts" / "trace_label_path.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_path_tracer_counts_modules_entries_and_round_trips() -> None:
    tracer = _tracer()
    assert tracer.end_of("annotation_store.store_labels") == "store"
    assert tracer.end_of("agreement.document") == "agreement"
    assert tracer.end_of("crowd.study_quality") is None
    steps = [
        ("->", "reports.data"),
        ("->", "study_inputs.load"),
        ("->", "study_inputs.labels"),
        ("->", "store"),
        ("<-", "study_inputs.load"),  # a round trip: load hands on again
        ("->", "study_inputs.labels"),
        ("<-", "study_inputs.load"),  # the final unwinding is no round trip
        ("<-", "reports.data"),
    ]
    got = tracer.summary(steps)
    assert got == {"modules": 4, "entries": 5, "returns": 1, "again": {"study_inputs.labels": 2}}
