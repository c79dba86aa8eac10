"""FinGrAct on screen: the rubric grid, the per-error table, fetched links, the drill-down."""

from __future__ import annotations

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from annotation_store import Store
from audit.analysis import rubric_grid
from evaluators.base import EvalResult, Signature
from evaluators.builtin.fingract import PUBLIC_RECORD_KEYS
from kinds import get_kind
from tests.support.apptest import open_app, open_evaluator_panel

ACTION = get_kind("actionability")

EARTH = {
    "claim": "Earth is flat and green.",
    "evidence": "Nasa images show that Earth is a huge blue round planet.",
    "label": "FALSE",
    "explanation": "The NASA images show that the Earth is huge and not green. "
    "https://science.nasa.gov/gallery/jupiter https://example.org/earth",
}
JUPITER = "https://science.nasa.gov/gallery/jupiter"
EARTH_PAGE = "https://example.org/earth"
MISSING = "https://example.org/missing"

# FinGrAct's details as evaluators/builtin/fingract.py stores them after stage 2.
ERRORS = [
    {
        "false_subclaim": "Earth is flat",
        "reason": "The evidence says Earth is round.",
        "correction": "Earth is round",
        "mentioned": False,
        "corrected": False,
        "supported_by_link": False,
    },
    {
        "false_subclaim": "Earth is green",
        "reason": "The evidence says Earth is blue.",
        "correction": "Earth is blue",
        "mentioned": True,
        "corrected": True,
        "supported_by_link": False,
    },
]
SCORING = {
    "detection": 1,
    "correction": 1,
    "exists": True,
    "relevant": False,
    "supports": False,
    "links": 1.0,
    "total": 3.0,
    "actionability": 2.5,
    "sources": 1,
}


def _link(url: str, **fetched: object) -> dict:
    """A link record as FinGrAct keeps it in its result: every public key, unset ones None."""
    return {**dict.fromkeys(PUBLIC_RECORD_KEYS), "url": url, **fetched}


UCR_LINKS = [
    # condensed text in the result: shown as what the judge saw
    _link(
        JUPITER,
        final_url=JUPITER,
        status=200,
        content_type="text/html",
        condensed="Jupiter is the largest planet in the Solar System.",
        condense_method="leading",
        fetched_at="2025-01-02T03:04:05+00:00",
    ),
    # nothing condensed in the result: the text comes from the page store
    _link(EARTH_PAGE, final_url=EARTH_PAGE, status=200, content_type="text/html"),
    # a failed fetch
    _link(MISSING, final_url=MISSING, status=404, content_type="text/plain", error="HTTP 404"),
]
EARTH_PAGE_RECORD = {
    "url": EARTH_PAGE,
    "final_url": EARTH_PAGE,
    "status": 200,
    "content_type": "text/html",
    "text": "Our planet from space. Photographs taken from orbit show that Earth is round.",
    "error": None,
    "refused": False,
}


# -- 1. rubric_grid ----------------------------------------------------------------------------
def test_rubric_grid_puts_people_and_evaluators_side_by_side_per_dimension() -> None:
    people = {
        "bob": {"errors_detected": 2, "errors_corrected": 1, "sources": 0},
        "ann": {"errors_detected": 1, "errors_corrected": 1, "sources": 1},
        # sources unanswered: no actionability for cat, and no value on that row
        "cat": {"errors_detected": 1, "errors_corrected": 0},
    }
    scores = {
        "fingract_ucr": {
            "actionability": 2.5,
            "errors_detected": 1.0,
            "errors_corrected": 1.0,
            "sources": 1.0,
        },
        # no error found: FinGrAct stores None for every score
        "fingract": dict.fromkeys(("actionability", "errors_detected", "errors_corrected")),
    }
    grid = rubric_grid(ACTION, {}, people, EARTH, scores)

    assert list(grid.columns) == [
        "dimension",
        "scale",
        "ann",
        "bob",
        "cat",
        "human mean",
        "fingract",
        "fingract_ucr",
    ]
    expected = pd.DataFrame(
        {
            "dimension": ["errors_detected", "errors_corrected", "sources", "actionability"],
            "scale": ["0-2", "0-2", "0-3", "0-5"],
            "ann": [1.0, 1.0, 1.0, 15 / 7],
            "bob": [2.0, 1.0, 0.0, 15 / 7],
            "cat": [1.0, 0.0, None, None],
            "human mean": [4 / 3, 2 / 3, 0.5, 15 / 7],
            "fingract": [None, None, None, None],
            "fingract_ucr": [1.0, 1.0, 1.0, 2.5],
        }
    )
    pd.testing.assert_frame_equal(grid, expected, check_dtype=False)

    # Where the people part ways: ann and bob total 3/7 each, so their actionability agrees
    # although detection and sources do not; cat disagrees on correction.
    annotators = ["ann", "bob", "cat"]
    split = [
        row["dimension"]
        for _, row in grid.iterrows()
        if len({v for v in row[annotators] if pd.notna(v)}) > 1
    ]
    assert split == ["errors_detected", "errors_corrected", "sources"]
    # ... and where FinGrAct + UCR is off the people's mean by more than a third of a point
    off = grid.loc[(grid["fingract_ucr"] - grid["human mean"]).abs() > 0.34, "dimension"]
    assert off.tolist() == ["sources", "actionability"]
    assert (grid["fingract_ucr"] - grid["human mean"]).round(4).tolist() == [
        -0.3333,
        0.3333,
        0.5,
        round(2.5 - 15 / 7, 4),
    ]


def test_rubric_grid_without_people_or_evaluators_keeps_every_dimension() -> None:
    grid = rubric_grid(ACTION, {}, {}, EARTH, {})
    assert list(grid.columns) == ["dimension", "scale", "human mean"]
    assert grid["dimension"].tolist() == [
        "errors_detected",
        "errors_corrected",
        "sources",
        "actionability",
    ]
    assert grid["human mean"].isna().all()


# -- store fixtures ----------------------------------------------------------------------------
def _labels(item_id: str, people: dict[str, tuple[int, int, int]]) -> list[dict]:
    return [
        {"item_id": item_id, "annotator": who, "field": f, "value": v, "status": "submitted"}
        for who, values in people.items()
        for f, v in zip(("errors_detected", "errors_corrected", "sources"), values, strict=True)
    ]


def _save(
    store: Store,
    project: str,
    evaluator: str,
    results: list[tuple[str, dict, dict]],
    run_index: int = 0,
) -> None:
    sig = Signature(evaluator, "1", "judge", None, {})
    run = store.create_run(project, sig, run_index)
    store.save_results(
        project,
        run,
        [
            EvalResult(
                item_id,
                sig,
                scores=scores,
                details=details,
                reasoning="Points out green only; the link is about Jupiter.",
            )
            for item_id, scores, details in results
        ],
    )
    store.finish_run(run)


EARTH_SCORES = {
    "actionability": 2.5,
    "errors_detected": 1.0,
    "errors_corrected": 1.0,
    "sources": 1.0,
}


def _actionability_project(store: Store) -> None:
    store.create_project("act", "actionability")
    store.upsert_items("act", [{"item_id": "earth", "fields": EARTH, "generator": "gpt"}])
    store.ensure_annotator("rev", role="reviewer")
    store.page_put(EARTH_PAGE, EARTH_PAGE_RECORD)
    _save(
        store,
        "act",
        "fingract_ucr",
        [("earth", EARTH_SCORES, {"errors": ERRORS, "links": UCR_LINKS, "scoring": SCORING})],
    )


# -- 2. the evaluator panel ----------------------------------------------------------------------
def _panel(monkeypatch: pytest.MonkeyPatch, url: str) -> AppTest:
    return open_evaluator_panel(monkeypatch, url, "act", "earth")


def test_panel_shows_fingract_per_error_table_and_fetched_link_content(
    monkeypatch: pytest.MonkeyPatch, sqlite_url: str, store: Store
) -> None:
    _actionability_project(store)
    at = _panel(monkeypatch, sqlite_url)

    text = "\n".join(m.value for m in at.markdown)
    assert (
        "actionability **2.5** · errors_detected **1** · errors_corrected **1** · sources **1**"
        in text
    )
    assert "Points out green only; the link is about Jupiter." in text
    assert "**Errors**" in text
    # the per-error table: one row per false sub-claim, with the judge's verdicts
    [errors] = [df.value for df in at.dataframe if "false_subclaim" in df.value.columns]
    assert list(errors.columns) == [
        "false_subclaim",
        "reason",
        "correction",
        "mentioned",
        "corrected",
        "supported_by_link",
    ]
    assert errors.values.tolist() == [
        [
            "Earth is flat",
            "The evidence says Earth is round.",
            "Earth is round",
            False,
            False,
            False,
        ],
        ["Earth is green", "The evidence says Earth is blue.", "Earth is blue", True, True, False],
    ]
    # "links" and "scoring" are not drawn as per-error tables
    assert len(at.dataframe) == 1

    # one expander per fetched link, titled with its URL and HTTP status
    links = [e for e in at.expander if e.label.startswith("Link: ")]
    assert [e.label for e in links] == [
        f"Link: {JUPITER} (HTTP 200)",
        f"Link: {EARTH_PAGE} (HTTP 200)",
        f"Link: {MISSING} (HTTP 404)",
    ]
    jupiter, earth, missing = links
    assert [t.value for t in jupiter.text] == ["Jupiter is the largest planet in the Solar System."]
    assert [c.value for c in jupiter.caption] == ["Content the judge saw"]
    # the result keeps no text for this link: it is read back from the page store
    assert [t.value for t in earth.text] == [EARTH_PAGE_RECORD["text"]]
    assert [c.value for c in earth.caption] == ["Fetched content"]
    assert [w.value for w in missing.warning] == ["HTTP 404"]
    assert len(missing.text) == 0
    # the stored result sits in the fingract_ucr block, not in plain fingract's
    assert at.button(key="evpanel-act-earth-fingract_ucr-btn").label == "Run again"
    assert at.button(key="evpanel-act-earth-fingract-btn").label == "Run"


def test_panel_says_links_were_not_fetched_without_ucr(
    monkeypatch: pytest.MonkeyPatch, sqlite_url: str, store: Store
) -> None:
    store.create_project("act", "actionability")
    store.upsert_items("act", [{"item_id": "earth", "fields": EARTH}])
    _save(
        store,
        "act",
        "fingract",
        [("earth", EARTH_SCORES, {"errors": ERRORS, "links": [{"url": JUPITER}]})],
    )
    at = _panel(monkeypatch, sqlite_url)
    [link] = [e for e in at.expander if e.label.startswith("Link: ")]
    assert link.label == f"Link: {JUPITER}"
    assert len(link.text) == 0
    assert any("Not fetched" in c.value for c in link.caption)
    [errors] = [df.value for df in at.dataframe]
    assert errors["false_subclaim"].tolist() == ["Earth is flat", "Earth is green"]


# -- 3. the Audit page drill-down ----------------------------------------------------------------
def _audit_project(store: Store) -> None:
    """``earth``: three people split on the rubric, FinGrAct + UCR over two runs (sources
    1 then 2: mean 1.5); ``junun``: everyone and the metric agree (so earth is drilled)."""
    store.create_project("act", "actionability")
    junun = {**EARTH, "claim": "Junun is a book."}
    store.upsert_items(
        "act",
        [
            {"item_id": "earth", "fields": EARTH, "generator": "gpt"},
            {"item_id": "junun", "fields": junun, "generator": "gpt"},
        ],
    )
    store.ensure_annotator("admin", role="admin")
    people = {"ann": (1, 1, 1), "bob": (2, 1, 0), "cat": (1, 0, 1)}
    store.import_labels(
        "act",
        _labels("earth", people) + _labels("junun", dict.fromkeys(("ann", "bob"), (2, 2, 3))),
    )
    store.page_put(EARTH_PAGE, EARTH_PAGE_RECORD)
    full = {"actionability": 5.0, "errors_detected": 2.0, "errors_corrected": 2.0, "sources": 3.0}
    details = {"errors": ERRORS, "links": UCR_LINKS, "scoring": SCORING}
    second = {**EARTH_SCORES, "sources": 2.0, "actionability": 3.0}
    for run_index, earth in enumerate((EARTH_SCORES, second)):
        results = [("earth", earth, details), ("junun", full, {})]
        _save(store, "act", "fingract_ucr", results, run_index=run_index)


def test_audit_drill_down_shows_the_rubric_grid_beside_fingract_findings(
    monkeypatch: pytest.MonkeyPatch, sqlite_url: str, store: Store
) -> None:
    _audit_project(store)
    at = open_app(monkeypatch, sqlite_url, page="pages/audit.py", project="act", timeout=90)
    assert at.selectbox(key="audit_field").value == "actionability"
    table = at.dataframe[0].value
    assert list(table["item_id"]) == ["earth", "junun"]
    assert any("Item `earth`" in s.value for s in at.subheader)

    [rubric_tab] = [t for t in at.tabs if t.label == "Rubric"]
    left, right = rubric_tab.columns
    [grid] = [df.value for df in left.dataframe]
    assert grid["dimension"].tolist() == [
        "errors_detected",
        "errors_corrected",
        "sources",
        "actionability",
    ]
    assert grid["scale"].tolist() == ["0-2", "0-2", "0-3", "0-5"]
    assert grid["ann"].tolist() == pytest.approx([1.0, 1.0, 1.0, 15 / 7])
    assert grid["bob"].tolist() == pytest.approx([2.0, 1.0, 0.0, 15 / 7])
    assert grid["cat"].tolist() == pytest.approx([1.0, 0.0, 1.0, 10 / 7])
    assert grid["human mean"].tolist() == pytest.approx([4 / 3, 2 / 3, 2 / 3, 40 / 21])
    # the evaluator column is the mean over its two runs
    assert grid["fingract_ucr"].tolist() == pytest.approx([1.0, 1.0, 1.5, 2.75])

    assert "**fingract_ucr: per-error findings**" in [m.value for m in right.markdown]
    [findings] = [df.value for df in right.dataframe]
    assert findings["false_subclaim"].tolist() == ["Earth is flat", "Earth is green"]
    assert findings["mentioned"].tolist() == [False, True]
    assert findings["corrected"].tolist() == [False, True]
    assert findings["supported_by_link"].tolist() == [False, False]


def test_sampled_grades_are_counted_not_listed() -> None:
    from ui.audit.result_view import sample_spread

    assert sample_spread([4, 3, 4, None, 4, 3]) == (
        "6 samples: 3 ×2 · 4 ×3 · unreadable ×1 (mean 3.60)"
    )
    assert sample_spread([4]) is None and sample_spread("4") is None
