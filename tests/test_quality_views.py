"""AppTest: the quality table and exclusion controls on Progress, the reference selector
and the exclusion note on the Agreement page and in the side panel."""

from __future__ import annotations

import pytest

from annotation_store import Store
from tests.support.apptest import open_app


def _captions(at) -> str:
    return " ".join(str(c.value) for c in at.caption)


def test_progress_page_excludes_and_includes_an_annotator(demo, monkeypatch) -> None:
    at = open_app(monkeypatch, demo, page="pages/progress.py", project="demo-dialogue")
    (quality,) = [d.value for d in at.dataframe if "mace" in d.value.columns]
    rows = quality.set_index("annotator")
    assert list(rows.index) == ["demo-annotator-1", "demo-annotator-2", "demo-annotator-3"]
    assert rows.loc["demo-annotator-3", "loo_agreement"] == pytest.approx(16 / 17)
    assert set(rows["gold_accuracy"]) == {"—"}  # no gold items: a dash
    at.selectbox(key="exclude_who").set_value("demo-annotator-3")
    at.text_input(key="exclude_reason").set_value("answers without reading")
    at.button[0].click().run()
    assert not at.exception
    s = Store(demo)
    (rec,) = s.exclusions("demo-dialogue")
    assert (rec.annotator, rec.source, rec.reason) == (
        "demo-annotator-3",
        "admin",
        "answers without reading",
    )
    assert "demo-annotator-3** · admin: answers without reading" in " ".join(
        str(c.value) for c in at.caption
    )
    at.button(key="include_0_demo-annotator-3_admin").click().run()
    assert s.exclusions("demo-dialogue") == []
    s.close()


def test_agreement_page_states_exclusions_and_offers_the_reference(demo, monkeypatch) -> None:
    s = Store(demo)
    s.exclude_annotator("demo-intent-match", "demo-annotator-2", "left early", source="speed")
    s.close()
    at = open_app(monkeypatch, demo, page="pages/agreement.py", project="demo-intent-match")
    infos = " ".join(str(i.value) for i in at.info)
    assert "Excluded: 1 annotator and 18 labels - demo-annotator-2 (speed: left early)" in infos
    box = at.sidebar.selectbox(key="agreement_reference")
    assert box.value == "majority"
    at.session_state["agreement_tab"] = "Evaluators vs humans"
    at.run()
    (versus,) = [d.value for d in at.dataframe if {"statistic", "r"} <= set(d.value.columns)]
    box.set_value("dawid_skene").run()
    assert not at.exception
    (again,) = [d.value for d in at.dataframe if {"statistic", "r"} <= set(d.value.columns)]
    assert not versus.equals(again)  # evaluators now compared with the aggregated labels


def test_side_panel_summary_states_exclusions_with_and_without(demo) -> None:
    import krippendorff

    from reports.panel import panel_summary

    s = Store(demo)
    s.exclude_annotator("demo-dialogue", "demo-annotator-3", "left early")
    summary = panel_summary(s, "demo-dialogue", "faithful")
    labels = s.annotations_frame("demo-dialogue").pivot(
        index="annotator", columns="item_id", values="value"
    )
    s.close()
    assert summary["exclusions"].startswith("Excluded: 1 annotator and 17 labels")
    without = {x["label"]: x["text"] for x in summary["statistics"]}
    with_them = {x["label"]: x["text"] for x in summary["with_excluded"]}
    both = labels.loc[["demo-annotator-1", "demo-annotator-2"]].to_numpy(float)
    everyone = labels.to_numpy(float)
    assert (both[0] == both[1]).all() and without["α nominal"] == "1.000"
    alpha = krippendorff.alpha(reliability_data=everyone, level_of_measurement="nominal")
    assert with_them["α nominal"] == f"{alpha:.3f}" != "1.000"


def test_audit_page_compares_with_the_chosen_human_reference(demo, monkeypatch) -> None:
    at = open_app(monkeypatch, demo, page="pages/audit.py", project="demo-intent-match")
    assert not at.exception
    at.selectbox(key="audit_field").set_value("match").run()
    box = at.sidebar.selectbox(key="agreement_reference")
    assert box.value == "majority"
    table = at.dataframe[0].value
    assert "human_source" not in table.columns  # the people's own mean / majority
    box.set_value("dawid_skene").run()
    assert not at.exception
    table = at.dataframe[0].value
    assert set(table["human_source"]) == {"dawid_skene"}
