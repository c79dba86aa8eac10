"""Import validation (all-or-nothing, row-precise errors) and export round trips."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pandas as pd
import pytest

from annotation_store import Store
from demo.loading import DEMO_DIR, DEMO_PROJECTS, load_demo
from interop.exporting import export
from interop.importing import (
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


# -- every kind: a valid base, then files whose one bad row must import nothing ----------
#: kind -> (project settings, two valid items, one valid label as (field, CSV value)).
KIND_BASE: dict[str, tuple[dict | None, list[dict], tuple[str, str]]] = {
    "intent_match": (
        None,
        [
            {"item_id": "a", "gold": "g", "predicted": "p", "gold_facts": ["x", "y"]},
            {"item_id": "b", "gold": "g2", "predicted": "p2", "predicted_facts": ["z"]},
        ],
        ("match", "1"),
    ),
    "actionability": (
        None,
        [
            {
                "item_id": item_id,
                "claim": "Earth is flat.",
                "evidence": "Earth is round.",
                "label": "FALSE",
                "explanation": "It is round. https://example.org",
            }
            for item_id in ("a", "b")
        ],
        ("sources", "3"),
    ),
    "dialogue_faithfulness": (
        None,
        [
            {
                "item_id": item_id,
                "service": "Restaurants_2",
                "act": {"act": "INFORM", "slot": "price_range", "values": ["moderate"]},
                "utterance": "It is moderately priced.",
            }
            for item_id in ("a", "b")
        ],
        ("faithful", "1"),
    ),
    "intent_resolution": (
        None,
        [{"item_id": i, "query": "How?", "response": "Like this."} for i in ("a", "b")],
        ("resolution", "0.8"),
    ),
    "binary": (None, [{"item_id": i, "text": "t"} for i in ("a", "b")], ("label", "yes")),
    "categorical": (
        {"labels": ["pos", "neg"]},
        [{"item_id": i, "text": "t"} for i in ("a", "b")],
        ("label", "pos"),
    ),
    "likert": (
        {"min": 1, "max": 7},
        [{"item_id": i, "text": "t"} for i in ("a", "b")],
        ("label", "7"),
    ),
    "score": (None, [{"item_id": i, "text": "t"} for i in ("a", "b")], ("label", "0.25")),
}


def jsonl(rows: list[dict]) -> str:
    return "".join(json.dumps(r) + "\n" for r in rows)


def base_project(store: Store, tmp_path: Path, kind: str) -> None:
    """Project "p" of ``kind`` with items a and b and one label (annotator "base", item a)."""
    settings, items, (field, value) = KIND_BASE[kind]
    store.create_project("p", kind, settings)
    assert import_items(store, "p", write(tmp_path, "base-items.jsonl", jsonl(items))).created == 2
    base = f"item_id,annotator,field,value\na,base,{field},{value}\n"
    assert import_annotations(store, "p", write(tmp_path, "base.csv", base)).created == 1


def snapshot(store: Store) -> tuple:
    """Everything an import could change in project "p"."""
    labels = store.annotations_frame("p", ("draft", "submitted", "skipped"))
    return (
        [(i.item_id, i.fields, i.split, i.generator) for i in store.items("p")],
        labels[["item_id", "annotator", "field", "value", "status"]].values.tolist(),
        store.data_version("p"),
    )


def expect_failure(file: str, row: int, column: str, reason: str, call) -> None:
    """``call`` raises ImportFailure whose message is exactly ``file, row N, column 'c':
    reason`` and whose attributes say the same."""
    with pytest.raises(ImportFailure) as info:
        call()
    failure = info.value
    assert str(failure) == f"{file}, row {row}, column {column!r}: {reason}"
    assert (failure.file, failure.row, failure.column, failure.reason) == (
        file,
        row,
        column,
        reason,
    )


# (kind, file name, contents: one new valid item then the bad one, column, reason)
BAD_ITEM_FILES = [
    (
        "intent_match",
        "items.csv",
        "item_id,gold,predicted\nc,g,p\nd,g,\n",
        "predicted",
        "required field 'predicted' is empty",
    ),
    (
        "intent_match",
        "items.jsonl",
        jsonl(
            [
                {"item_id": "c", "gold": "g", "predicted": "p"},
                {"item_id": "d", "gold": "g", "predicted": "p", "gold_facts": [1, 2]},
            ]
        ),
        "gold_facts",
        "field 'gold_facts' must be a list of strings",
    ),
    (
        "actionability",
        "items.csv",
        "item_id,claim,evidence,label,explanation\nc,x,e,FALSE,why\nd,x,e,FALSE,\n",
        "explanation",
        "required field 'explanation' is empty",
    ),
    (
        "actionability",
        "items.jsonl",
        jsonl(
            [
                {"item_id": "c", "claim": "x", "evidence": "e", "label": "F", "explanation": "y"},
                {"item_id": "d", "evidence": "e", "label": "F", "explanation": "y"},
            ]
        ),
        "claim",
        "required field 'claim' is empty",
    ),
    (
        "dialogue_faithfulness",
        "items.csv",
        'item_id,service,act,utterance\nc,S,"{""act"": ""GOODBYE""}",Bye.\n'
        "d,S,INFORM price_range=moderate,It is moderate.\n",
        "act",
        "field 'act' must be a JSON object",
    ),
    (
        "dialogue_faithfulness",
        "items.jsonl",
        jsonl(
            [
                {"item_id": "c", "service": "S", "act": {"act": "GOODBYE"}, "utterance": "Bye."},
                {"item_id": "d", "service": "S", "act": ["INFORM"], "utterance": "Hi."},
            ]
        ),
        "act",
        "field 'act' must be an object",
    ),
    (
        "dialogue_faithfulness",
        "items.jsonl",
        jsonl(
            [
                {"item_id": "c", "service": "S", "act": {"act": "GOODBYE"}, "utterance": "Bye."},
                {"item_id": "d", "service": "S", "act": {"slot": "city"}, "utterance": "Hi."},
            ]
        ),
        "act",
        'act needs an "act" type such as "INFORM"',
    ),
    (
        "dialogue_faithfulness",
        "items.jsonl",
        jsonl(
            [
                {"item_id": "c", "service": "S", "act": {"act": "GOODBYE"}, "utterance": "Bye."},
                {
                    "item_id": "d",
                    "service": "S",
                    "act": {"act": "INFORM", "slot": "city", "values": "Napa"},
                    "utterance": "It is in Napa.",
                },
            ]
        ),
        "act",
        'act "values" must be a list of strings',
    ),
    (
        "dialogue_faithfulness",
        "items.jsonl",
        jsonl(
            [
                {"item_id": "c", "service": "S", "act": {"act": "GOODBYE"}, "utterance": "Bye."},
                {"item_id": "d", "service": "S", "act": {"act": "GOODBYE"}},
            ]
        ),
        "utterance",
        "required field 'utterance' is empty",
    ),
    (
        "intent_resolution",
        "items.csv",
        "item_id,query,response\nc,How?,Thus.\nd,How?,\n",
        "response",
        "required field 'response' is empty",
    ),
    (
        "intent_resolution",
        "items.jsonl",
        jsonl(
            [
                {"item_id": "c", "query": "How?", "response": "Thus."},
                {"item_id": "d", "query": "   ", "response": "Thus."},
            ]
        ),
        "query",
        "required field 'query' is empty",
    ),
    ("binary", "items.csv", "item_id,text\nc,x\nd,\n", "text", "required field 'text' is empty"),
    (
        "binary",
        "items.jsonl",
        jsonl([{"item_id": "c", "text": "x"}, {"item_id": "d", "text": None}]),
        "text",
        "required field 'text' is empty",
    ),
    (
        "categorical",
        "items.csv",
        "item_id,text,split\nc,x,dev\nd,y,train\n",
        "split",
        "must be one of ('dev', 'test') or empty",
    ),
    (
        "likert",
        "items.csv",
        "item_id,text\nc,x\nc,y\n",
        "item_id",
        "duplicate item_id 'c' (first on row 1)",
    ),
    ("score", "items.csv", "item_id,text\nc,x\n,y\n", "item_id", "missing value"),
]


NOT_BINARY = "is not a binary value (use 0/1, true/false, yes/no)"
NOT_ON_GRID = "is not one of [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]"  # intent_resolution's grid
NOT_1_TO_7 = "is not one of [1, 2, 3, 4, 5, 6, 7]"  # the likert base project's scale

# kind -> (format, the bad row, column, reason); a valid label on item b comes first.
BAD_LABELS: dict[str, list[tuple[str, list, str, str]]] = {
    "intent_match": [
        (".csv", ["b", "ann", "match", "2"], "value", f"'2' {NOT_BINARY}"),
        (
            ".jsonl",
            ["a", "ann", "gold_fact_labels", ["C", "M", "C"]],
            "value",
            "3 labels for 2 facts in 'gold_facts'",
        ),
    ],
    "actionability": [
        (".csv", ["b", "ann", "sources", "4"], "value", "'4' is not one of [0, 1, 2, 3]"),
        (".jsonl", ["b", "ann", "errors_detected", 3], "value", "3 is not one of [0, 1, 2]"),
        (".csv", ["b", "ann", "errors_corrected", "-1"], "value", "'-1' is not one of [0, 1, 2]"),
        (
            ".csv",
            ["b", "ann", "actionability", "4"],
            "field",
            "unknown field 'actionability' (known: ['errors_corrected', 'errors_detected', "
            "'sources'])",
        ),
    ],
    "dialogue_faithfulness": [
        (".csv", ["b", "ann", "faithful", "maybe"], "value", f"'maybe' {NOT_BINARY}"),
        (".jsonl", ["b", "ann", "faithful", 0.5], "value", f"0.5 {NOT_BINARY}"),
        (".csv", ["zzz", "ann", "faithful", "1"], "item_id", "no item 'zzz' in 'p'"),
    ],
    "intent_resolution": [
        (".csv", ["b", "ann", "resolution", "1.5"], "value", f"'1.5' {NOT_ON_GRID}"),
        (".jsonl", ["b", "ann", "resolution", 0.5], "value", f"0.5 {NOT_ON_GRID}"),
        (".csv", ["b", "ann", "resolution", "high"], "value", "'high' is not a number"),
        (".csv", ["b", "ann", "resolution", "nan"], "value", "'nan' is not a number"),
    ],
    "binary": [
        (".csv", ["b", "ann", "label", "2"], "value", f"'2' {NOT_BINARY}"),
        (
            ".csv",
            ["b", "ann", "label", "1", "final"],
            "status",
            "must be one of ('draft', 'submitted', 'skipped')",
        ),
    ],
    "categorical": [
        (".csv", ["b", "ann", "label", "maybe"], "value", "'maybe' is not one of ['pos', 'neg']"),
        # "a" is one of the kind's default labels but not this project's.
        (".jsonl", ["b", "ann", "label", "a"], "value", "'a' is not one of ['pos', 'neg']"),
    ],
    "likert": [
        (".csv", ["b", "ann", "label", "8"], "value", f"'8' {NOT_1_TO_7}"),
        (".csv", ["b", "ann", "label", "0"], "value", f"'0' {NOT_1_TO_7}"),
        (".jsonl", ["b", "ann", "label", 3.5], "value", f"3.5 {NOT_1_TO_7}"),
    ],
    "score": [
        (".csv", ["b", "ann", "label", "1.5"], "value", "1.5 is above the maximum 1.0"),
        (".csv", ["b", "ann", "label", "-0.1"], "value", "-0.1 is below the minimum 0.0"),
        (".jsonl", ["b", "ann", "label", 2], "value", "2.0 is above the maximum 1.0"),
        (".csv", ["b", "ann", "label", "nan"], "value", "'nan' is not a number"),
        (".jsonl", ["b", "ann", "label", "abc"], "value", "'abc' is not a number"),
        (".csv", ["b", "ann", "label", None], "value", "missing value"),
        (".jsonl", ["b", None, "label", 0.5], "annotator", "missing value"),
    ],
}


def label_file(suffix: str, rows: list[list]) -> str:
    columns = ["item_id", "annotator", "field", "value", "status"]
    if suffix == ".jsonl":
        return jsonl([dict(zip(columns, row, strict=False)) for row in rows])
    lines = ["item_id,annotator,field,value,status"]
    for row in rows:  # a missing or None cell is an empty CSV cell
        lines.append(",".join("" if c is None else str(c) for c in (row + [None] * 5)[:5]))
    return "\n".join(lines) + "\n"


# Every bad file above, items and labels, as (kind, importer, file name, contents, column,
# reason); a label file's row 1 is the kind's valid label on item b.
REFUSED_FILES = [
    pytest.param(kind, import_items, name, text, column, reason, id=f"{kind}-{name}-{column}")
    for kind, name, text, column, reason in BAD_ITEM_FILES
] + [
    pytest.param(
        kind,
        import_annotations,
        f"labels{suffix}",
        label_file(suffix, [["b", "ann", *KIND_BASE[kind][2]], bad]),
        column,
        reason,
        id=f"{kind}-labels{suffix}-{bad[2]}-{bad[3]}",
    )
    for kind, cases in BAD_LABELS.items()
    for suffix, bad, column, reason in cases
]


@pytest.mark.parametrize("kind,importer,name,text,column,reason", REFUSED_FILES)
def test_every_kind_refuses_a_file_with_one_bad_row_and_imports_nothing(
    store, tmp_path, kind, importer, name, text, column, reason
) -> None:
    base_project(store, tmp_path, kind)
    before = snapshot(store)
    path = write(tmp_path, name, text)
    expect_failure(name, 2, column, reason, lambda: importer(store, "p", path))
    assert snapshot(store) == before  # not even the valid row 1 was written


def test_the_row_number_counts_data_rows_not_blank_lines_or_the_header(store, tmp_path) -> None:
    base_project(store, tmp_path, "likert")
    before = snapshot(store)
    text = jsonl(
        [
            {"item_id": "a", "annotator": "u", "field": "label", "value": 1},
            {"item_id": "b", "annotator": "u", "field": "label", "value": 2},
        ]
    )
    text += "\n" + jsonl([{"item_id": "b", "annotator": "v", "field": "label", "value": 9}])
    path = write(tmp_path, "late.jsonl", text)
    expect_failure(
        "late.jsonl",
        3,
        "value",
        "9 is not one of [1, 2, 3, 4, 5, 6, 7]",
        lambda: import_annotations(store, "p", path),
    )
    assert snapshot(store) == before


# -- good label files --------------------------------------------------------------------
def test_demo_dialogue_annotations_import_with_their_values(store: Store) -> None:
    store.create_project("d", "dialogue_faithfulness")
    import_items(store, "d", DEMO_DIR / "sgd_excerpt/items.jsonl")
    import_items(store, "d", DEMO_DIR / "dialogue_faithfulness/tampered.jsonl")
    assert len(store.items("d")) == 17
    source = DEMO_DIR / "dialogue_faithfulness/annotations.csv"
    report = import_annotations(store, "d", source)
    assert (report.created, report.updated, report.unchanged) == (51, 0, 0)
    frame = store.annotations_frame("d")
    stored = {(r.item_id, r.annotator, r.field): r.value for r in frame.itertuples(index=False)}
    with source.open(encoding="utf-8", newline="") as fh:
        expected = {
            (r["item_id"], r["annotator"], r["field"]): int(r["value"]) for r in csv.DictReader(fh)
        }
    assert stored == expected
    assert set(frame["status"]) == {"submitted"}
    assert all(type(v) is int for v in stored.values())
    # Every tampered act is judged unfaithful by all three annotators; one real act once.
    zeros = sorted(k for k, v in stored.items() if v == 0)
    assert len(zeros) == 10
    assert [k for k in zeros if not k[0].endswith(":tampered")] == [
        ("sgd:1_00000:5:1", "demo-annotator-3", "faithful")
    ]
    assert stored[("sgd:1_00000:9:1:tampered", "demo-annotator-2", "faithful")] == 0
    assert stored[("sgd:1_00000:13:0", "demo-annotator-1", "faithful")] == 1
    assert import_annotations(store, "d", source).unchanged == 51


# kind -> (settings, label file, {(item, annotator): stored value})
GOOD_GENERIC_LABELS = {
    "binary": (
        None,
        "item_id,annotator,field,value\na,u,label,yes\na,v,label,0\nb,u,label,TRUE\nb,v,label,No\n",
        {("a", "u"): 1, ("a", "v"): 0, ("b", "u"): 1, ("b", "v"): 0},
    ),
    "categorical": (
        {"labels": ["pos", "neg", "mixed"]},
        "item_id,annotator,field,value\na,u,label,pos\na,v,label, mixed \nb,u,label,neg\n",
        {("a", "u"): "pos", ("a", "v"): "mixed", ("b", "u"): "neg"},
    ),
    "likert": (
        {"min": 1, "max": 7},
        "item_id,annotator,field,value\na,u,label,1\na,v,label,7.0\nb,u,label,4\n",
        {("a", "u"): 1, ("a", "v"): 7, ("b", "u"): 4},
    ),
    "score": (
        None,
        "item_id,annotator,field,value\na,u,label,0\na,v,label,0.25\nb,u,label,1\nb,v,label,.9\n",
        {("a", "u"): 0.0, ("a", "v"): 0.25, ("b", "u"): 1.0, ("b", "v"): 0.9},
    ),
}


@pytest.mark.parametrize("suffix", [".csv", ".jsonl"])
@pytest.mark.parametrize("kind", sorted(GOOD_GENERIC_LABELS))
def test_generic_kind_label_files_import_with_canonical_values(
    store, tmp_path, kind, suffix
) -> None:
    settings, text, expected = GOOD_GENERIC_LABELS[kind]
    store.create_project("g", kind, settings)
    import_items(store, "g", write(tmp_path, "i.csv", "item_id,text\na,first\nb,second\n"))
    if suffix == ".jsonl":  # the same rows as JSON objects, values still as text
        with io.StringIO(text) as fh:
            text = jsonl(list(csv.DictReader(fh)))
    report = import_annotations(store, "g", write(tmp_path, f"labels{suffix}", text))
    assert (report.created, report.updated, report.unchanged) == (len(expected), 0, 0)
    frame = store.annotations_frame("g")
    stored = {(r.item_id, r.annotator): r.value for r in frame.itertuples(index=False)}
    assert stored == expected
    # SQLite's numeric affinity may hand a whole score (1.0) back as 1: equal, so fine.
    value_type = {"binary": int, "categorical": str, "likert": int, "score": int | float}[kind]
    assert all(isinstance(v, value_type) and not isinstance(v, bool) for v in stored.values())
    assert set(frame["field"]) == {"label"}


def test_generic_labels_keep_their_status(store, tmp_path) -> None:
    store.create_project("g", "likert", {"min": 1, "max": 5})
    import_items(store, "g", write(tmp_path, "i.csv", "item_id,text\na,x\n"))
    text = "item_id,annotator,field,value,status\na,u,label,2,draft\na,v,label,5,SKIPPED\n"
    assert import_annotations(store, "g", write(tmp_path, "l.csv", text)).created == 2
    frame = store.annotations_frame("g", ("draft", "submitted", "skipped"))
    rows = frame[["annotator", "value", "status"]].values.tolist()
    assert rows == [["u", 2, "draft"], ["v", 5, "skipped"]]
    assert store.annotations_frame("g").empty  # neither is submitted


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

    def dies_after_its_annotators(*args, **kwargs):
        # SQLite's staged import: the new annotator is written in the transaction, then
        # the move of the staged labels fails
        calls["n"] = 2
        raise RuntimeError("connection lost")

    from annotation_store import label_stage

    monkeypatch.setattr(Store, "_annotator_row", dies_on_second_annotator)
    monkeypatch.setattr(label_stage, "write_staged", dies_after_its_annotators)
    text = "item_id,annotator,field,value\na,u,label,0\nb,v,label,1\n"
    with pytest.raises(RuntimeError, match="connection lost"):
        import_annotations(any_store, "p", write(tmp_path, "l2.csv", text))
    assert calls["n"] == 2
    assert any_store.data_version("p") == before
    frame = any_store.annotations_frame("p")
    assert frame[["item_id", "annotator", "value"]].values.tolist() == [["a", "u", 1]]


DEMO_NAMES = [spec.name for spec in DEMO_PROJECTS]


def _items_of(store: Store, project: str) -> list[tuple]:
    return [(i.item_id, i.fields, i.split, i.generator) for i in store.items(project)]


def _labels_of(store: Store, project: str) -> list[list]:
    cols = ["item_id", "annotator", "field", "value", "status"]
    frame = store.annotations_frame(project, ("draft", "submitted", "skipped"))
    return frame[cols].values.tolist()


def _scores_of(store: Store, project: str) -> list[list]:
    cols = ["item_id", "evaluator", "model", "run_index", "field", "score"]
    frame = store.scores_frame(project)[cols].astype(object)
    return sorted(frame.where(frame.notna(), None).values.tolist(), key=repr)


@pytest.mark.parametrize("suffix", [".csv", ".jsonl"])
@pytest.mark.parametrize("project", DEMO_NAMES)
def test_every_demo_project_round_trips_through_export(
    store: Store, tmp_path, project, suffix
) -> None:
    """import -> export -> import into a fresh project of the same kind -> equal."""
    load_demo(store)
    info = store.project(project)
    copy = store.create_project("copy", info.kind, info.settings).name
    exported = {}
    for what, importer in (
        ("items", import_items),
        ("annotations", import_annotations),
        ("scores", import_scores),
    ):
        out = tmp_path / f"{project}-{what}{suffix}"
        exported[what] = export(store, project, what, out)
        if exported[what]:
            importer(store, copy, out)
    spec = next(s for s in DEMO_PROJECTS if s.name == project)
    assert exported["items"] == len(store.items(project)) > 0
    assert exported["annotations"] == len(_labels_of(store, project)) > 0
    assert (exported["scores"] > 0) == (spec.scores is not None)
    assert _items_of(store, copy) == _items_of(store, project)
    assert _labels_of(store, copy) == _labels_of(store, project)
    assert _scores_of(store, copy) == _scores_of(store, project)
    # The copy's items export is byte-for-byte the original's (label and score exports
    # hold times and run signatures, which differ by design).
    again = tmp_path / f"copy-items{suffix}"
    export(store, copy, "items", again)
    assert again.read_bytes() == (tmp_path / f"{project}-items{suffix}").read_bytes()


def test_parquet_export_is_readable(store: Store, tmp_path) -> None:
    from demo.loading import load_demo

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
