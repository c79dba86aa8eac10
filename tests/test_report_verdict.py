"""The report opens with a verdict per evaluator, from the figures it shows further down."""

from __future__ import annotations

from annotation_store import Store
from reports.render import build_report, render_report
from reports.verdict import FAIL, verdicts


def test_report_opens_with_each_evaluators_verdict(demo: str) -> None:
    store = Store(demo)
    try:
        from alignment.report_section import alignment_for_report

        project = "demo-judge-study"
        report = build_report(store, project, alignment=alignment_for_report(store, project))
    finally:
        store.close()
    found = verdicts(report.alignment, report.data)
    versions = report.alignment["versions"]
    assert [v.evaluator for v in found] == [v["label"] for v in versions]
    head = versions[0]["headline"]
    lo, hi = head["ci"]
    assert found[0].agreement == (
        f"With people on resolution: Spearman {head['value']:.2f} [{lo:.2f}, {hi:.2f}], "
        f"n {head['n']}"
    )
    alpha = report.data["fields"]["resolution"]["krippendorff_alpha"]["ordinal"]
    assert found[0].people.startswith(f"People among themselves: alpha (ordinal) {alpha:.2f} [")
    alt = versions[0]["probes"]["alt_test"]
    assert alt["passed"] is False and found[0].stands_in is False
    assert found[0].stand_in.startswith("Stand-in for an annotator: no (alt-test winning rate")

    md = render_report(report, "md")
    assert md.splitlines()[2:5] == ["## Verdict", "", f"**{found[0].evaluator}**"]
    page = render_report(report, "html")
    assert page.index("<h2>Verdict</h2>") < page.index("<dl>")
    assert f"border-left-color:{FAIL}" in page
