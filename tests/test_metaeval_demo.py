"""The judge-study demo teaches the levels apart: one metric ranks the systems well and
scores answers poorly, the other the reverse (docs/metaeval.md, demo/README.md)."""

from __future__ import annotations

from annotation_store import Store
from workbench_api.demo import JUDGE_STUDY, METAEVAL, load_all
from workbench_api.metaeval import metaeval


def test_the_demo_shows_a_metric_good_at_systems_and_poor_at_items(sqlite_url: str) -> None:
    store = Store(sqlite_url)
    load_all(store)
    assert store.project(JUDGE_STUDY).settings["metaeval"] == METAEVAL
    doc = metaeval(store, JUDGE_STUDY, "resolution", group="input", system="model", n_resamples=0)
    r = {(f.evaluator, f.level): f for f in doc.figures if f.statistic == "pearson"}
    prior, style = "system-prior (demo)", "style-match (demo)"
    assert r[(prior, "system")].n == 12 and r[(prior, "group")].n == 25
    assert r[(prior, "system")].value > 0.8 > 0.4 > r[(prior, "segment")].value
    assert r[(style, "segment")].value > 0.6 > r[(prior, "segment")].value
    assert r[(style, "system")].value < r[(prior, "system")].value
    # asked for, the agreement document carries the same figures (the project names the
    # columns); by default it leaves them out and says where they are computed
    from agreement.metaeval.rows import NOT_COMPUTED
    from reports.data import agreement_document

    rows = agreement_document(store, JUDGE_STUDY, n_resamples=0, metaeval=True).rows()
    seg = next(
        x
        for x in rows
        if (x.section, x.subject, x.measure, x.level)
        == ("meta_evaluation", prior, "pearson", "segment")
    )
    assert seg.value == r[(prior, "segment")].value
    lazy = agreement_document(store, JUDGE_STUDY, n_resamples=0)
    assert lazy.metaeval is None and "metaeval" not in lazy.to_dict()
    meta = [x for x in lazy.rows() if x.section == "meta_evaluation"]
    assert meta and all(x.value is None and x.reason == NOT_COMPUTED for x in meta)
    store.close()
