"""Data-quality alarms where people read them: ``agreement --json`` (key ``alarms``),
the report (Markdown, HTML, text), and the Progress and Agreement pages with a one-click
exclusion that records the alarm as the reason."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from annotation_store import Store
from crowd import study_quality as crowd_quality
from tests.support.cli import ROOT
from tests.test_alarms import N, _seeded

PAIR = (
    "ann and copy gave the same 'label' label on 60 of 60 shared items (100%): "
    "check that they are two people working independently."
)
SUMMARY = "1 possible speeder, 2 at chance level, 1 identical pair, 1 straight-liner"


def _project(store: Store) -> None:
    labels, times = _seeded()
    store.create_project("crowd", "binary", {"k": 6})
    store.upsert_items("crowd", [{"item_id": f"i{i}", "fields": {"text": "t"}} for i in range(N)])
    rows = [
        {"item_id": r.item_id, "annotator": r.annotator, "field": "label", "value": r.value}
        for r in labels.itertuples()
    ]
    store.import_labels("crowd", [dict(r, status="submitted") for r in rows])
    for r in times.itertuples():
        crowd_quality.record_active_seconds(
            store, "crowd", r.item_id, r.annotator, r.active_seconds
        )


def test_agreement_json_and_the_report_carry_the_alarms(store: Store, tmp_path) -> None:
    _project(store)
    out = subprocess.run(
        [sys.executable, "cli.py", "--db", store.url, "agreement", "crowd", "--json"]
        + ["--resamples", "0", "--no-timeline"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    alarms = json.loads(out.stdout)["alarms"]
    kinds = sorted((a["kind"], tuple(a["annotators"])) for a in alarms)
    assert kinds == [
        ("identical_pair", ("ann", "copy")),
        ("independent", ("flat",)),
        ("independent", ("rand",)),
        ("speeder", ("rand",)),
        ("straight_lining", ("flat",)),
    ]
    pair = next(a for a in alarms if a["kind"] == "identical_pair")
    assert pair["n"] == N and pair["field"] == "label" and pair["sentence"] == PAIR
    assert json.loads(out.stdout)["alarm_counts"] == {
        "speeder": 1,
        "independent": 2,
        "identical_pair": 1,
        "straight_lining": 1,
    }
    assert json.loads(out.stdout)["alarm_summary"] == SUMMARY
    from reports.render import build_report, render_report
    from reports.text import document_text

    report = build_report(store, "crowd", n_resamples=0)
    md, page = render_report(report, "md"), render_report(report, "html")
    assert f"## Data-quality alarms\n\n{SUMMARY}.\n\n- ⚠ {PAIR}" in md
    assert (
        f"<h2>Data-quality alarms</h2><p>{SUMMARY}.</p><details><summary>All 5 alarms"
        "</summary><ul><li>ann and copy gave the same"
    ) in page
    text = document_text(report.data)
    assert f"data-quality alarms: {SUMMARY}\n" in text and f"  ! {PAIR}" in text


def test_one_click_on_the_progress_page_excludes_with_the_alarm_as_reason(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.support.apptest import open_app

    _project(store)
    at = open_app(monkeypatch, store.url, page="pages/progress.py", project="crowd")
    warnings = [w.value for w in at.warning]
    assert PAIR in warnings and SUMMARY in warnings and len(warnings) == 6
    next(b for b in at.button if b.label == "Exclude copy").click().run()
    (rec,) = store.exclusions("crowd")
    assert (rec.annotator, rec.source, rec.reason) == ("copy", "alarm", PAIR)
    at.switch_page("pages/agreement.py").run()
    assert not at.exception
    shown = [w.value for w in at.warning]
    assert PAIR not in shown  # excluded: the pair is no longer a pair
    assert any(s.startswith("flat gave 'label' the value 1") for s in shown)
