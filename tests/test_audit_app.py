"""AppTest: the evaluator panel against the scripted server, the Audit page, adjudication."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from adjudication.final_labels import adjudications
from annotation_store import Store
from tests.support.apptest import assert_ok, open_app, open_evaluator_panel
from tests.support.replies import INTENT_RESOLUTION_REPLY
from tests.support.scripted_llm import Reply, ScriptedLLM


def _panel(monkeypatch: pytest.MonkeyPatch, url: str) -> AppTest:
    return open_evaluator_panel(monkeypatch, url, "ir", "q1")


def _markdown(at: AppTest) -> str:
    return "\n".join(m.value for m in at.markdown)


def _ir_project(store: Store) -> None:
    store.create_project("ir", "intent_resolution")
    store.upsert_items(
        "ir",
        [
            {
                "item_id": "q1",
                "fields": {"query": "How do I bake a cake?", "response": "Mix and bake."},
            }
        ],
    )


JUDGE_REPLY = json.dumps(
    {
        **INTENT_RESOLUTION_REPLY,
        "explanation": "Gives the steps but no quantities.",
        "resolution_score": 0.6,
    }
)


def test_panel_runs_an_llm_evaluator_and_shows_the_stored_result_without_rerunning(
    monkeypatch: pytest.MonkeyPatch, sqlite_url: str, store: Store, llm_env: ScriptedLLM
) -> None:
    _ir_project(store)
    llm_env.queue(Reply(content=JUDGE_REPLY, prompt_tokens=120, completion_tokens=40))
    at = _panel(monkeypatch, sqlite_url)
    run = at.button(key="evpanel-ir-q1-intent_resolution-btn")
    assert run.label == "Run" and not run.disabled
    assert "No result yet for this item." in [c.value for c in at.caption]

    assert_ok(run.click().run())
    assert llm_env.calls == 1
    text = _markdown(at)
    assert "resolution **0.6**" in text
    assert "Gives the steps but no quantities." in text
    stored = store.results_frame("ir")
    assert stored[["item_id", "evaluator"]].values.tolist() == [["q1", "intent_resolution"]]
    assert stored.loc[0, "scores"] == {"resolution": 0.6}

    # A new session (reload) shows the stored result at once, with no model call.
    at = _panel(monkeypatch, sqlite_url)
    assert "resolution **0.6**" in _markdown(at)
    assert at.button(key="evpanel-ir-q1-intent_resolution-btn").label == "Run again"
    assert llm_env.calls == 1
    # Running again answers from the LLM cache: still one HTTP call, marked cached.
    at.button(key="evpanel-ir-q1-intent_resolution-btn").click().run()
    assert llm_env.calls == 1
    assert any("from cache" in c.value for c in at.caption)


def test_panel_says_why_an_evaluator_is_unavailable(
    monkeypatch: pytest.MonkeyPatch, sqlite_url: str, store: Store
) -> None:
    _ir_project(store)
    at = _panel(monkeypatch, sqlite_url)
    assert at.button(key="evpanel-ir-q1-intent_resolution-btn").disabled
    assert any(
        c.value.startswith(":material/block: Unavailable here: ")
        and "**intent_resolution**" in c.value
        and "LLM endpoint not configured" in c.value
        for c in at.caption
    )


# -- the Audit page ---------------------------------------------------------------------------
FACTS = {
    "gold": "Book a flight to Paris on Monday",
    "predicted": "Book a flight to Rome",
    "gold_facts": ["wants a flight", "to Paris", "on Monday"],
    "predicted_facts": ["wants a flight", "to Rome"],
}


def _audit_project(store: Store) -> None:
    """Three items; ``far`` has the largest |Δ| on F1, with Bi-Fact details on ``far``."""
    from evaluators.base import EvalResult, Signature

    store.create_project("im", "intent_match")
    store.upsert_items(
        "im", [{"item_id": i, "fields": FACTS, "generator": "gpt"} for i in ("near", "far", "mid")]
    )
    people = {
        "ann": (["C", "M", "M"], ["C", "M"]),
        "bob": (["C", "M", "M"], ["C", "M"]),
        "cat": (["C", "C", "M"], ["C", "M"]),
    }
    rows = [
        {"item_id": i, "annotator": who, "field": f, "value": v, "status": "submitted"}
        for i in ("near", "far", "mid")
        for who, (gold, pred) in people.items()
        for f, v in (("gold_fact_labels", gold), ("predicted_fact_labels", pred), ("match", 0))
    ]
    store.import_labels("im", rows)
    store.ensure_annotator("admin", role="admin")
    # people's F1 on every item: ann/bob recall 1/3 precision 1/2 -> 0.4; cat 2/3, 1/2 -> 0.571
    sig = Signature("bifact", "1", "judge", None, {})
    run = store.create_run("im", sig, 0)
    gold = [
        {"fact": f, "label": lab, "reasoning": f"why {f}"}
        for f, lab in zip(FACTS["gold_facts"], ["C", "C", "C"], strict=True)
    ]
    pred = [
        {"fact": f, "label": lab, "reasoning": "r"}
        for f, lab in zip(FACTS["predicted_facts"], ["C", "M"], strict=True)
    ]
    results = [
        EvalResult(
            "far",
            sig,
            scores={"f1": 0.667, "recall": 1.0, "precision": 0.5},
            details={"gold_facts": gold, "predicted_facts": pred},
        ),
        EvalResult("mid", sig, scores={"f1": 0.6}),
        EvalResult("near", sig, scores={"f1": 0.45}),
    ]
    store.save_results("im", run, results)
    store.finish_run(run)


def _audit_page(monkeypatch: pytest.MonkeyPatch, url: str) -> AppTest:
    return open_app(monkeypatch, url, page="pages/audit.py", project="im", timeout=90)


def test_audit_table_sorts_by_disagreement_and_the_fact_grid_flags_the_right_facts(
    monkeypatch: pytest.MonkeyPatch, sqlite_url: str, store: Store
) -> None:
    _audit_project(store)
    at = _audit_page(monkeypatch, sqlite_url)
    assert at.selectbox(key="audit_field").value == "f1"
    table = at.dataframe[0].value
    assert list(table["item_id"]) == ["far", "mid", "near"]
    assert table["disagreement"].tolist() == pytest.approx(
        [0.667 - 0.4571, 0.6 - 0.4571, abs(0.45 - 0.4571)], abs=1e-3
    )
    # Nothing selected: the drill-down shows the most disagreeing item, with its fact grid.
    assert any("Item `far`" in s.value for s in at.subheader)
    grids = [df.value for df in at.dataframe if "differs" in df.value.columns]
    gold, pred = grids[:2]  # the drill-down's grid (the panel repeats it per evaluator below)
    # gold: majority C, M, M; bifact C, C, C -> facts 2 and 3 differ; predicted: agrees
    assert gold["majority"].tolist() == ["C", "M", "M"]
    assert gold["bifact"].tolist() == ["C", "C", "C"]
    assert gold["differs"].tolist() == ["", "bifact", "bifact"]
    assert pred["differs"].tolist() == ["", ""]
    assert any("2 fact(s)" in m.value for m in at.markdown)


def test_adjudication_from_the_drill_down_is_stored_with_its_source(
    monkeypatch: pytest.MonkeyPatch, sqlite_url: str, store: Store
) -> None:
    _audit_project(store)
    at = _audit_page(monkeypatch, sqlite_url)
    key = "adj-im-far"
    assert f"{key}-target" not in [s.key for s in at.selectbox]  # built only when opened
    at.session_state["audit-tabs-im-far"] = "Adjudicate"
    at = assert_ok(at.run())
    target = at.selectbox(key=f"{key}-target")
    labels = list(target.options)  # shown labels; the values are their indices
    assert "gold facts #2: to Paris" in labels
    # it opens on the first fact an evaluator disputes (Bi-Fact says C, people M)
    assert labels[target.value] == "gold facts #2: to Paris"
    # Accept the majority on "match" (everyone said 0): unanimous.
    at.selectbox(key=f"{key}-target").set_value(labels.index("match")).run()
    assert at.session_state["audit-tabs-im-far"] == "Adjudicate"  # the tab stays open
    assert_ok(at.button(key=f"{key}-accept").click().run())
    assert [s.value for s in at.success] == ["Saved **match** = different task (unanimous)"]
    # Gold fact 2 ("to Paris"): majority M; the reviewer decides C, metric was right.
    at.selectbox(key=f"{key}-target").set_value(labels.index("gold facts #2: to Paris")).run()
    idx = labels.index("gold facts #2: to Paris")
    at.radio(key=f"{key}-value-{idx}").set_value("C")
    at.selectbox(key=f"{key}-cause").set_value("annotator_error")
    at.text_area(key=f"{key}-note").input("Paris is implied by the flight's destination")
    assert_ok(at.button(key=f"{key}-set").click().run())
    final = adjudications(store, "im", "far")
    final["cause"] = final["cause"].fillna("-")
    assert final[
        ["field", "fact_index", "value", "source", "cause", "reviewer"]
    ].values.tolist() == [
        ["gold_fact_labels", 1, "C", "adjudicated", "annotator_error", "admin"],
        ["match", -1, 0, "unanimous", "-", "admin"],
    ]
    assert final.loc[0, "note"] == "Paris is implied by the flight's destination"
    assert any("Saved" in s.value for s in at.success)


def test_audit_report_carries_the_picked_drill_down_and_the_cli_numbers(
    monkeypatch: pytest.MonkeyPatch, sqlite_url: str, store: Store
) -> None:
    from reports import build_report, render_report
    from ui.audit.report_view import REPORT_KEY

    _audit_project(store)
    at = _audit_page(monkeypatch, sqlite_url)
    at.multiselect(key="audit_report_items").set_value(["mid"]).run()
    assert_ok(at.button(key="audit_report_build").click().run())
    project, picked, html = at.session_state[REPORT_KEY]
    assert (project, picked) == ("im", ("mid",))
    assert "<h3>mid</h3>" in html and "<h3>far</h3>" not in html
    # Same numbers as the command line's report (same resamples and seed).
    expected = render_report(build_report(store, "im", item_ids=["mid"]), "html")
    assert _numbers(html) == _numbers(expected)


def _numbers(html: str) -> list[str]:
    """The decimal figures of a rendered report, in order (timestamps left out)."""
    import re

    body = re.sub(r"\d{4}-\d\d-\d\d[T ][\d:.+Z-]*", "", html)
    return re.findall(r"-?\d+\.\d+", body)


def test_a_long_audit_table_is_drawn_a_page_at_a_time(
    monkeypatch: pytest.MonkeyPatch, sqlite_url: str, store: Store
) -> None:
    import ui.audit.paging

    _audit_project(store)
    monkeypatch.setattr(ui.audit.paging, "PAGE_ROWS", 2)
    at = _audit_page(monkeypatch, sqlite_url)
    assert list(at.dataframe[0].value["item_id"]) == ["far", "mid"]  # page 1 of 2
    at.number_input(key="audit_page").set_value(2).run()
    assert list(at.dataframe[0].value["item_id"]) == ["near"]
    assert any("Item `far`" in s.value for s in at.subheader)  # the open item stays open


def test_the_audit_table_is_built_once_per_data_version_and_choice(
    monkeypatch: pytest.MonkeyPatch, sqlite_url: str, store: Store
) -> None:
    """A rerun with the same data and choices (a row click, a page of the table) reuses
    the built table; other thresholds or a new label build it again, with the new figures."""
    import audit.analysis

    calls: list[str] = []
    real = audit.analysis.build_audit_table

    def counting(*args, **kwargs):
        calls.append(args[6])  # the field
        return real(*args, **kwargs)

    monkeypatch.setattr(audit.analysis, "build_audit_table", counting)
    _audit_project(store)
    at = _audit_page(monkeypatch, sqlite_url)
    assert calls == ["f1"]
    first = at.dataframe[0].value
    at.run()
    assert_ok(at)
    assert calls == ["f1"], "same data version and choices: the cached table"
    assert at.dataframe[0].value.equals(first)
    at.slider(key="audit_differ_t").set_value(0.1).run()
    assert_ok(at)
    assert calls == ["f1", "f1"]
    store.save_label("im", "near", "dan", "gold_fact_labels", ["C", "C", "C"], status="submitted")
    store.save_label("im", "near", "dan", "predicted_fact_labels", ["C", "C"], status="submitted")
    at.run()
    assert_ok(at)
    assert len(calls) == 3, "a new data version: built again"
    near = at.dataframe[0].value.set_index("item_id").loc["near"]
    assert near["annotators"] == 4


def test_the_counts_say_which_items_they_leave_out(
    monkeypatch: pytest.MonkeyPatch, sqlite_url: str, store: Store
) -> None:
    """The four counts summed to 140 of the demo's 300 rows: the rest had no labels."""
    from tests.support.estimates_project import build

    build(store, "p", n_items=30, n_labelled=10)
    store.ensure_annotator("admin", role="admin")
    at = open_app(monkeypatch, sqlite_url, page="pages/audit.py", project="p", timeout=90)
    counted = sum(int(m.value) for m in at.metric[:4])
    assert counted == 10
    assert "Not compared yet, so in none of these counts: 20 without human labels." in [
        c.value for c in at.caption
    ]
