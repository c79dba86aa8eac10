"""AppTest: the Alignment page on the toy project (judge:toy v1 and v2)."""

from __future__ import annotations

import pytest

from annotation_store import Store
from tests.alignment_fixtures import build_toy
from tests.support.apptest import assert_ok, open_app


def _page(monkeypatch: pytest.MonkeyPatch, store: Store, url: str):
    build_toy(store, swap=False)
    store.ensure_annotator("admin", role="admin")
    return open_app(monkeypatch, url, page="pages/alignment.py", project="toy", timeout=120)


def test_rows_for_both_versions_and_a_diff_with_a_moved_item(
    monkeypatch: pytest.MonkeyPatch, sqlite_url: str, store: Store
) -> None:
    at = _page(monkeypatch, store, sqlite_url)
    versions = at.dataframe[0].value
    assert list(versions["version"]) == ["judge:toy v1", "judge:toy v2"]
    assert list(versions["n"]) == [39, 38]
    assert list(versions["excluded (few-shot)"]) == [0, 2]
    assert "why undefined" not in versions.columns  # the headline is defined for both
    assert any("so not shown: why undefined" in str(c.value) for c in at.caption)
    captions = " ".join(str(c.value) for c in at.caption)
    assert "judge:toy v2**: 2 item(s) excluded" in captions
    probes = at.dataframe[1].value
    assert probes.loc[1, "samples unanimous"] == f"{37 / 38:.3f}"  # three decimals, as above
    # columns no version has a figure for are left out, named once under the table
    empty = [c for c in probes.columns if (probes[c].astype(str) == "—").all()]
    assert empty == []
    assert "own model over-estimated" not in probes.columns  # no model of its own here
    [said] = [str(c.value) for c in at.caption if "Not measured for any version yet" in c.value]
    assert "own model over-estimated" in said
    # definitions are the headers' help, not a paragraph
    assert '"help": "alternative annotator test: the share of annotators' in (
        at.dataframe[1].proto.columns
    )
    assert not any("Benjamini" in str(c.value) for c in at.caption)
    # the diff: v1 -> v2, moved items by default; item 3 moved toward the humans
    assert at.selectbox(key="alignment_diff_a").value == "judge:toy v1"
    assert at.selectbox(key="alignment_diff_b").value == "judge:toy v2"
    # judge vs judge: v1 - v2 on the items both scored, with a paired CI
    pair = at.dataframe[2].value
    assert list(pair[["A", "B"]].iloc[0]) == ["judge:toy v1", "judge:toy v2"]
    assert pair.loc[0, "n"] == 37  # v1 scored 39 items, v2 38 (2 excluded): 37 in both
    diff = next(d.value for d in at.dataframe if "item" in d.value.columns).set_index("item")
    # the columns say whose score and reasoning they hold, not score_a / reasoning_b
    assert list(diff.columns[:5]) == [
        "score · judge:toy v1",
        "score · judge:toy v2",
        "people (mean or majority)",
        "moved",
        "decision flipped",
    ]
    assert diff.loc["i03", "moved"] == "toward"
    assert diff.loc["i03", "reasoning · judge:toy v1"] == "v1 thinks 0 for i03"
    assert diff.loc["i03", "reasoning · judge:toy v2"] == "v2 thinks 1 for i03"
    assert "i09" not in diff.index  # unchanged items are not "moved"
    assert {m.label: m.value for m in at.metric}["Away from them"] == "0"
    # swapping the two versions turns "toward" into "away"
    at.selectbox(key="alignment_diff_a").set_value("judge:toy v2").run()
    at.selectbox(key="alignment_diff_b").set_value("judge:toy v1").run()
    assert_ok(at)
    diff = next(d.value for d in at.dataframe if "item" in d.value.columns).set_index("item")
    assert diff.loc["i03", "moved"] == "away"


def test_page_without_scores_says_what_to_do(
    monkeypatch: pytest.MonkeyPatch, sqlite_url: str, store: Store
) -> None:
    store.create_project("empty", "binary")
    store.ensure_annotator("admin", role="admin")
    at = open_app(monkeypatch, sqlite_url, page="pages/alignment.py", project="empty")
    assert any("no evaluator has scored" in str(i.value) for i in at.info)


def test_the_agreement_page_says_which_items_a_judge_version_saw_as_examples(
    monkeypatch: pytest.MonkeyPatch, sqlite_url: str, store: Store
) -> None:
    build_toy(store, swap=False)
    store.ensure_annotator("admin", role="admin")
    at = open_app(monkeypatch, sqlite_url, page="pages/agreement.py", project="toy", timeout=120)
    assert_ok(at)
    [line] = [str(c.value) for c in at.caption if "Left out of their judge version" in c.value]
    assert "judge:toy" in line and "2 excluded: few-shot examples" in line


def test_the_diff_gives_scores_and_the_people_with_three_decimals(
    monkeypatch: pytest.MonkeyPatch, sqlite_url: str, store: Store
) -> None:
    """Not 1 and 0.6 beside 0.7333 (the demo's diff)."""
    import json

    at = _page(monkeypatch, store, sqlite_url)
    table = next(d for d in at.dataframe if "moved" in d.value.columns)
    columns = json.loads(table.proto.columns)
    formats = {c: v.get("type_config", {}).get("format") for c, v in columns.items()}
    for header in ("score · judge:toy v1", "score · judge:toy v2", "people (mean or majority)"):
        assert formats[header] == "%.3f", (header, formats)


def test_the_table_and_the_version_diff_read_the_field_once(
    monkeypatch: pytest.MonkeyPatch, sqlite_url: str, store: Store
) -> None:
    """The field's inputs (every label and score of it: the first visit's largest read
    at 10,000 items) are loaded once for the versions table and the diff, not once each
    (the escalation section reads its own, not counted here)."""
    import sys

    import alignment.inputs
    import alignment.table

    calls: list[str | None] = []
    real = alignment.inputs.load_field

    def counting(st_store, project, field=None, inputs=None):
        if sys._getframe(1).f_globals.get("__name__") != "alignment.escalate":
            calls.append(field)
        return real(st_store, project, field, inputs)

    monkeypatch.setattr(alignment.inputs, "load_field", counting)
    monkeypatch.setattr(alignment.table, "load_field", counting)
    at = _page(monkeypatch, store, sqlite_url)
    assert at.selectbox(key="alignment_diff_b").value == "judge:toy v2"
    assert any("item" in d.value.columns for d in at.dataframe)  # the diff was drawn
    assert len(calls) == 1, calls
