"""Import validation (all-or-nothing, row-precise errors) and export round trips."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from annotation_store import Store
from annotation_store.demo import DEMO_DIR
from annotation_store.exporting import export
from annotation_store.importing import (
    ImportFailure,
    import_annotations,
    import_items,
    import_scores,
)

GOOD_ITEMS = {
    "intent_match": (
        "intent_match/items.jsonl",
        "intent_match/annotations.csv",
        "intent_match/scores.csv",
    ),
    "actionability": (
        "actionability/items.jsonl",
        "actionability/annotations.csv",
        "actionability/scores.csv",
    ),
    "dialogue_faithfulness": ("sgd_excerpt/items.jsonl", None, None),
    "intent_resolution": (
        "intent_resolution/items.jsonl",
        "intent_resolution/annotations.csv",
        "intent_resolution/scores.csv",
    ),
}


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("kind", sorted(GOOD_ITEMS))
def test_good_files_import_and_reimport_changes_nothing(store: Store, kind: str) -> None:
    items, labels, scores = GOOD_ITEMS[kind]
    store.create_project("p", kind)
    first = import_items(store, "p", DEMO_DIR / items)
    assert first.created > 0 and first.updated == 0
    again = import_items(store, "p", DEMO_DIR / items)
    assert (again.created, again.updated, again.unchanged) == (0, 0, first.created)
    if labels:
        report = import_annotations(store, "p", DEMO_DIR / labels)
        assert report.created > 0
        assert import_annotations(store, "p", DEMO_DIR / labels).created == 0
    if scores:
        report = import_scores(store, "p", DEMO_DIR / scores)
        assert report.created > 0
        assert import_scores(store, "p", DEMO_DIR / scores).unchanged == report.created
    version = store.data_version("p")
    import_items(store, "p", DEMO_DIR / items)
    assert store.data_version("p") == version


@pytest.mark.parametrize(
    "kind,settings,header,row",
    [
        ("binary", None, "item_id,text", "b1,hello"),
        ("categorical", {"labels": ["pos", "neg"]}, "item_id,text,source", "c1,hello,forum"),
        ("likert", {"min": 1, "max": 5}, "item_id,text", "l1,hello"),
        ("score", None, "item_id,text", "s1,hello"),
    ],
)
def test_generic_kinds_import_items_with_context_columns(
    store, tmp_path, kind, settings, header, row
) -> None:
    store.create_project("g", kind, settings)
    assert import_items(store, "g", write(tmp_path, "i.csv", f"{header}\n{row}\n")).created == 1
    item = store.items("g")[0]
    if kind == "categorical":
        assert item.fields["source"] == "forum"  # extra columns are kept as context


ITEMS_CSV = 'item_id,gold,predicted,gold_facts\na,g,p,"[""x"", ""y""]"\nb,g2,p2,\n'


@pytest.mark.parametrize(
    "text,row,column,reason",
    [
        ("item_id,gold,predicted\na,g,p\n,g,p\n", 2, "item_id", "missing value"),
        ("item_id,gold,predicted\na,g,p\na,g,p\n", 2, "item_id", "duplicate item_id"),
        ("item_id,gold,predicted\na,g,\n", 1, "predicted", "required field"),
        ("item_id,gold,predicted,gold_facts\na,g,p,not json\n", 1, "gold_facts", "JSON list"),
        ("item_id,gold,predicted,split\na,g,p,train\n", 1, "split", "dev"),
    ],
)
def test_bad_item_rows_import_nothing_and_name_the_row(
    store, tmp_path, text, row, column, reason
) -> None:
    store.create_project("p", "intent_match")
    with pytest.raises(ImportFailure) as info:
        import_items(store, "p", write(tmp_path, "items.csv", text))
    assert (info.value.file, info.value.row, info.value.column) == ("items.csv", row, column)
    assert reason in str(info.value)
    assert store.items("p") == []


@pytest.mark.parametrize(
    "line,column,reason",
    [
        ("zzz,ann,match,1", "item_id", "no item 'zzz'"),
        ("a,ann,colour,1", "field", "unknown field"),
        ("a,ann,match,maybe", "value", "not a binary value"),
        ('a,ann,gold_fact_labels,"[""C""]"', "value", "1 labels for 2 facts"),
        ('a,ann,gold_fact_labels,"[""C"", ""X""]"', "value", "'C' or 'M'"),
        ("a,ann,match,0", "value", "conflicts with row 1"),
        ("a,,match,1", "annotator", "missing value"),
    ],
)
def test_bad_annotation_rows_import_nothing(store, tmp_path, line, column, reason) -> None:
    store.create_project("p", "intent_match")
    import_items(store, "p", write(tmp_path, "items.csv", ITEMS_CSV))
    text = f"item_id,annotator,field,value\na,ann,match,1\n{line}\n"
    with pytest.raises(ImportFailure) as info:
        import_annotations(store, "p", write(tmp_path, "labels.csv", text))
    assert (info.value.row, info.value.column) == (2, column)
    assert reason in str(info.value)
    assert store.annotations_frame("p", ("draft", "submitted", "skipped")).empty


@pytest.mark.parametrize(
    "line,column,reason",
    [
        ("a,m,match,high", "value", "not a number"),
        ("a,m,match,nan", "value", "finite"),
        ("a,m,colour,0.5", "field", "unknown field"),
        ("q,m,match,0.5", "item_id", "no item"),
    ],
)
def test_bad_score_rows_import_nothing(store, tmp_path, line, column, reason) -> None:
    store.create_project("p", "intent_match")
    import_items(store, "p", write(tmp_path, "items.csv", ITEMS_CSV))
    text = f"item_id,evaluator,field,value\na,m,recall,0.5\n{line}\n"
    with pytest.raises(ImportFailure) as info:
        import_scores(store, "p", write(tmp_path, "scores.csv", text))
    assert (info.value.row, info.value.column) == (2, column)
    assert reason in str(info.value)
    assert store.scores_frame("p").empty


def test_jsonl_errors_name_the_line(store, tmp_path) -> None:
    store.create_project("p", "binary")
    path = write(tmp_path, "items.jsonl", '{"item_id": "a", "text": "x"}\n{"item_id": \n')
    with pytest.raises(ImportFailure, match=r"items.jsonl, row 2: not valid JSON"):
        import_items(store, "p", path)
    assert store.items("p") == []


def test_an_import_interrupted_mid_write_leaves_the_database_unchanged(
    any_store: Store, tmp_path, monkeypatch
) -> None:
    any_store.create_project("p", "binary")
    import_items(any_store, "p", write(tmp_path, "a.csv", "item_id,text\na,x\nb,y\n"))
    import_annotations(
        any_store, "p", write(tmp_path, "l.csv", "item_id,annotator,field,value\na,u,label,1\n")
    )
    before = any_store.data_version("p")
    calls = {"n": 0}
    original = Store._annotator_row

    def dies_on_second_annotator(self, s, name, role="annotator"):
        calls["n"] += 1
        if calls["n"] == 2:
            raise RuntimeError("connection lost")
        return original(self, s, name, role)

    monkeypatch.setattr(Store, "_annotator_row", dies_on_second_annotator)
    text = "item_id,annotator,field,value\na,u,label,0\nb,v,label,1\n"
    with pytest.raises(RuntimeError, match="connection lost"):
        import_annotations(any_store, "p", write(tmp_path, "l2.csv", text))
    assert calls["n"] == 2
    assert any_store.data_version("p") == before
    frame = any_store.annotations_frame("p")
    assert frame[["item_id", "annotator", "value"]].values.tolist() == [["a", "u", 1]]


@pytest.mark.parametrize("suffix", [".csv", ".jsonl"])
def test_exports_round_trip(store: Store, tmp_path, suffix) -> None:
    from annotation_store.demo import load_demo

    load_demo(store)
    for project in ("demo-intent-match", "demo-dialogue"):
        kind = store.project(project).kind
        store.create_project(f"copy{suffix}{kind}", kind)
        copy = f"copy{suffix}{kind}"
        for what, importer in (
            ("items", import_items),
            ("annotations", import_annotations),
            ("scores", import_scores),
        ):
            out = tmp_path / f"{project}-{what}{suffix}"
            n = export(store, project, what, out)
            if n:
                importer(store, copy, out)
        assert [(i.item_id, i.fields, i.split, i.generator) for i in store.items(project)] == [
            (i.item_id, i.fields, i.split, i.generator) for i in store.items(copy)
        ]
        cols = ["item_id", "annotator", "field", "value", "status"]
        assert (
            store.annotations_frame(project)[cols].values.tolist()
            == store.annotations_frame(copy)[cols].values.tolist()
        )
        orig = store.scores_frame(project)
        orig = orig[orig["source"] == "import"]
        cols = ["item_id", "evaluator", "field", "score"]
        assert sorted(orig[cols].values.tolist()) == sorted(
            store.scores_frame(copy)[cols].values.tolist()
        )


def test_parquet_export_is_readable(store: Store, tmp_path) -> None:
    from annotation_store.demo import load_demo

    load_demo(store)
    out = tmp_path / "labels.parquet"
    n = export(store, "demo-intent-match", "annotations", out)
    df = pd.read_parquet(out)
    assert len(df) == n == 54
    lists = df[df["field"] == "gold_fact_labels"]["value"]
    assert all(isinstance(json.loads(v), list) for v in lists)


def test_imported_submitted_labels_cannot_leave_facts_unlabelled(store, tmp_path) -> None:
    store.create_project("p", "intent_match")
    import_items(store, "p", write(tmp_path, "items.csv", ITEMS_CSV))
    text = 'item_id,annotator,field,value\na,ann,gold_fact_labels,"[""C"", ""?""]"\n'
    with pytest.raises(ImportFailure, match="every fact needs a label"):
        import_annotations(store, "p", write(tmp_path, "labels.csv", text))
    drafts = text.replace("value\n", "value,status\n").rstrip("\n") + ",draft\n"
    assert import_annotations(store, "p", write(tmp_path, "drafts.csv", drafts)).created == 1
