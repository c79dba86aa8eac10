"""Declared question types through Label Studio's own controls and back: pairwise with
strengths, ties and the order shown, multi-label, spans (one result per span), free text
and conditions; what Label Studio cannot hold is named in a note."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from annotation_store import Store
from commands import main
from workbench_api import add_items, export_file, import_file

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "kinds"


def labels(store: Store, project: str) -> list[tuple]:
    df = store.annotations_frame(project, ("submitted",))
    return sorted(
        (r.item_id, r.annotator, r.field, json.dumps(r.value, sort_keys=True))
        for r in df.itertuples()
    )


def _project(sqlite_url: str, kind: str, name: str, new_kind: bool = True) -> None:
    toml = EXAMPLES / f"{kind.replace('-', '_')}.toml"
    if new_kind:
        assert main(["--db", sqlite_url, "kind", "create", kind, "--from", str(toml)]) == 0
    assert main(["--db", sqlite_url, "project", "create", name, "--kind", f"decl:{kind}"]) == 0


@pytest.fixture
def pairwise(sqlite_url: str, store: Store, tmp_path: Path) -> Store:
    _project(sqlite_url, "pairwise-preference", "pw")
    items = pd.read_json(EXAMPLES / "pairwise_preference_items.jsonl", lines=True)
    add_items(store, "pw", items)
    a, b = "answer_a", "answer_b"
    rows = [
        ("p1", "ann", "preference", {"choice": a, "shown": [b, a], "strength": "clearly"}),
        ("p1", "ann", "reasons", ["correctness", "clarity"]),
        ("p1", "ann", "note", "B is wrong."),
        ("p2", "ann", "preference", {"choice": "tie", "shown": [a, b]}),
        ("p1", "bob", "preference", {"choice": a, "shown": [a, b]}),
        ("p1", "bob", "reasons", ["safety"]),
        ("p2", "bob", "preference", {"choice": b, "shown": [b, a], "strength": "slightly"}),
        ("p2", "bob", "reasons", []),
    ]
    frame = pd.DataFrame(rows, columns=["item_id", "annotator", "field", "value"])
    frame["value"] = frame["value"].map(json.dumps)
    path = tmp_path / "labels.jsonl"
    frame.to_json(path, orient="records", lines=True)
    import_file(store, "pw", "annotations", path)
    return store


def test_pairwise_multi_and_text_answers_return_unchanged(
    pairwise: Store, sqlite_url: str, tmp_path: Path
) -> None:
    out, notes = tmp_path / "pw.json", []
    export_file(pairwise, "pw", "annotations", out, "label-studio", notes=notes)
    assert notes == []
    tasks = json.loads(out.read_text())
    first = {r["from_name"]: r for a in tasks[0]["annotations"] for r in a["result"]}
    assert first["preference"]["type"] == "choices"
    assert first["reasons"]["value"]["choices"] in (["correctness", "clarity"], ["safety"])
    config = (tmp_path / "pw.label_config.xml").read_text()
    assert 'toName="answer_a,answer_b"' in config and "$answer_b" in config
    assert '<Choice value="answer_b (slightly)"/>' in config
    _project(sqlite_url, "pairwise-preference", "pw2", new_kind=False)
    import_file(pairwise, "pw2", "annotations", out, "label-studio")
    assert labels(pairwise, "pw2") == labels(pairwise, "pw")


def test_spans_travel_as_one_result_per_span(sqlite_url: str, store: Store, tmp_path: Path) -> None:
    _project(sqlite_url, "error-spans", "es")
    add_items(store, "es", pd.read_json(EXAMPLES / "error_spans_items.jsonl", lines=True))
    spans = [{"start": 8, "end": 13, "label": "fluency"}, {"start": 0, "end": 3, "label": "style"}]
    rows = [
        ("e1", "ann", "has_errors", 1),
        ("e1", "ann", "errors", spans),
        ("e1", "ann", "severity", "minor"),
        ("e2", "ann", "has_errors", 0),
        ("e2", "ann", "errors", []),
    ]
    frame = pd.DataFrame(rows, columns=["item_id", "annotator", "field", "value"])
    frame["value"] = frame["value"].map(lambda v: json.dumps(v) if isinstance(v, list) else v)
    path = tmp_path / "labels.jsonl"
    frame.to_json(path, orient="records", lines=True)
    import_file(store, "es", "annotations", path)
    out, notes = tmp_path / "es.json", []
    export_file(store, "es", "annotations", out, "label-studio", notes=notes)
    assert notes == [
        "1 answers of 'errors' marking no span hold no Label Studio result (not written)"
    ]
    results = [r for a in json.loads(out.read_text())[0]["annotations"] for r in a["result"]]
    marked = [r["value"] for r in results if r["type"] == "labels"]
    assert marked == [
        {"start": 0, "end": 3, "text": "The", "labels": ["style"]},
        {"start": 8, "end": 13, "text": "sleep", "labels": ["fluency"]},
    ]
    assert {r["to_name"] for r in results} == {"translation"}
    config = (tmp_path / "es.label_config.xml").read_text()
    assert 'whenTagName="has_errors" whenChoiceValue="yes"' in config
    _project(sqlite_url, "error-spans", "es2", new_kind=False)
    import_file(store, "es2", "annotations", out, "label-studio")
    want = [row for row in labels(store, "es") if row[:3] != ("e2", "ann", "errors")]
    assert labels(store, "es2") == want


STRICT = """
title = "A or B"
[[fields]]
name = "a"
output = true
[[fields]]
name = "b"
output = true
[[questions]]
name = "better"
type = "pairwise"
tie = false
"""


def test_a_pairwise_without_tie_is_label_studios_pairwise(
    sqlite_url: str, store: Store, tmp_path: Path
) -> None:
    toml = tmp_path / "strict.toml"
    toml.write_text(STRICT)
    assert main(["--db", sqlite_url, "kind", "create", "strict", "--from", str(toml)]) == 0
    for name in ("ab", "ab2"):
        assert main(["--db", sqlite_url, "project", "create", name, "--kind", "decl:strict"]) == 0
    add_items(store, "ab", pd.DataFrame({"item_id": ["x", "y"], "a": ["one", "two"], "b": "b"}))
    rows = [
        {"item_id": "x", "annotator": "ann", "field": "better", "value": '{"choice": "b"}'},
        {"item_id": "y", "annotator": "ann", "field": "better", "value": '{"choice": "a"}'},
    ]
    path = tmp_path / "labels.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    import_file(store, "ab", "annotations", path)
    out = tmp_path / "ab.json"
    export_file(store, "ab", "annotations", out, "label-studio")
    assert (
        '<Pairwise name="better" toName="a,b"/>' in (tmp_path / "ab.label_config.xml").read_text()
    )
    picked = [
        r["value"] for t in json.loads(out.read_text()) for r in t["annotations"][0]["result"]
    ]
    assert picked == [{"selected": "right"}, {"selected": "left"}]
    import_file(store, "ab2", "annotations", out, "label-studio")
    assert labels(store, "ab2") == labels(store, "ab")


def test_a_pairwise_side_that_is_neither_left_nor_right_imports_nothing(
    sqlite_url: str, store: Store, tmp_path: Path
) -> None:
    from interop.importing import ImportFailure

    toml = tmp_path / "strict.toml"
    toml.write_text(STRICT)
    assert main(["--db", sqlite_url, "kind", "create", "strict", "--from", str(toml)]) == 0
    assert main(["--db", sqlite_url, "project", "create", "ab", "--kind", "decl:strict"]) == 0
    side = {"from_name": "better", "to_name": "a", "type": "pairwise"}
    tasks = [
        {
            "id": n,
            "data": {"item_id": f"i{n}", "a": "one", "b": "two"},
            "annotations": [{"completed_by": 1, "result": [{**side, "value": {"selected": s}}]}],
        }
        for n, s in ((1, "left"), (2, "middle"))
    ]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(tasks))
    with pytest.raises(ImportFailure) as failed:
        import_file(store, "ab", "annotations", path, "label-studio")
    assert str(failed.value) == (
        "bad.json, task 2 (id 2), annotation 1, result 'better': "
        "pairwise selection 'middle' is not left or right"
    )
    assert store.items("ab") == [] and labels(store, "ab") == []
