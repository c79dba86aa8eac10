"""Each question type as its Argilla counterpart: the settings an Argilla export declares,
the answers its records carry, the notes for what Argilla cannot hold, and the answers
an import of that folder brings back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from annotation_store import Store
from commands import main
from workbench_api import export_file, import_file

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "kinds"


def _project(url: str, kind: str, project: str, create_kind: bool = True) -> None:
    toml = EXAMPLES / f"{kind.replace('-', '_')}.toml"
    items = EXAMPLES / f"{kind.replace('-', '_')}_items.jsonl"
    steps = [["project", "create", project, "--kind", f"decl:{kind}"]]
    steps += [["import", "items", project, str(items)]]
    if create_kind:
        steps.insert(0, ["kind", "create", kind, "--from", str(toml)])
    for argv in steps:
        assert main(["--db", url, *argv]) == 0, argv


def _label(item: str, who: str, field: str, value: Any) -> dict[str, Any]:
    return {"item_id": item, "annotator": who, "field": field, "value": value}


def _import(store: Store, project: str, rows: list[dict[str, Any]], folder: Path) -> None:
    """Labels through the native importer (checked and made canonical, as any import)."""
    path = folder / f"{project}-labels.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    import_file(store, project, "annotations", path)


def _export(store: Store, project: str, out: Path) -> tuple[dict, list[dict], list[str]]:
    notes: list[str] = []
    export_file(store, project, "annotations", out, "argilla", notes=notes)
    settings = json.loads((out / ".argilla" / "settings.json").read_text(encoding="utf-8"))
    return settings, pq.read_table(out / "records.parquet").to_pylist(), notes


def _labels(store: Store, project: str) -> dict[tuple[str, str, str], Any]:
    from interop.exporting import annotations_export_frame

    frame = annotations_export_frame(store, project)
    return {(r.item_id, r.annotator, r.field): r.value for r in frame.itertuples()}


@pytest.fixture
def pairwise(sqlite_url: str, tmp_path: Path) -> Store:
    _project(sqlite_url, "pairwise-preference", "pp")
    store = Store(sqlite_url)
    shown = ["answer_b", "answer_a"]
    _import(
        store,
        "pp",
        [
            _label("p1", "ana", "preference", {"choice": "answer_a", "strength": "clearly"}),
            _label("p1", "ana", "reasons", ["correctness", "clarity"]),
            _label("p1", "ana", "note", "A is right"),
            _label("p1", "ben", "preference", {"choice": "tie", "shown": shown}),
            _label("p1", "ben", "reasons", []),
            _label("p2", "ben", "preference", {"choice": "answer_b"}),
        ],
        tmp_path,
    )
    return store


def test_pairwise_multi_label_and_text_questions(pairwise: Store, tmp_path: Path) -> None:
    settings, rows, notes = _export(pairwise, "pp", tmp_path / "pp")
    q = {x["name"]: x for x in settings["questions"]}
    assert q["preference"]["type"] == "ranking"
    assert [o["value"] for o in q["preference"]["settings"]["options"]] == ["answer_a", "answer_b"]
    assert q["reasons"]["type"] == "multi_label_selection"
    assert [o["value"] for o in q["reasons"]["settings"]["options"]] == [
        "correctness",
        "completeness",
        "clarity",
        "safety",
    ]
    assert q["note"]["type"] == "text"
    # asked only after a choice, or optional: Argilla must not demand them
    assert (q["preference"]["required"], q["reasons"]["required"], q["note"]["required"]) == (
        True,
        False,
        False,
    )
    p1 = next(r for r in rows if r["id"] == "p1")
    users = json.loads((tmp_path / "pp" / "users.json").read_text())
    by_name = dict(zip(p1["preference.responses.users"], p1["preference.responses"], strict=True))
    assert {users[u]: v for u, v in by_name.items()} == {
        "ana": [{"value": "answer_a", "rank": 1}, {"value": "answer_b", "rank": 2}],
        "ben": [{"value": "answer_a", "rank": 1}, {"value": "answer_b", "rank": 1}],
    }
    assert p1["reasons.responses"] == [["correctness", "clarity"]]  # ben's [] left out
    assert p1["note.responses"] == ["A is right"]
    assert notes == [
        "1 'reasons' answers not exported: 'none applies' "
        "(an Argilla multi-label answer names at least one label)",
        "1 'preference' answers: order shown not exported "
        "(an Argilla ranking holds the preference only)",
        "1 'preference' answers: strength not exported (an Argilla ranking holds the order only)",
    ]


def test_a_folder_imports_back_with_what_argilla_held(pairwise: Store, tmp_path: Path) -> None:
    _export(pairwise, "pp", tmp_path / "pp")
    pairwise.create_project("back", "decl:pairwise-preference")
    import_file(pairwise, "back", "annotations", tmp_path / "pp", "argilla")  # items too
    outputs = ["answer_a", "answer_b"]
    assert _labels(pairwise, "back") == {
        ("p1", "ana", "preference"): {"choice": "answer_a", "shown": outputs, "strength": None},
        ("p1", "ana", "reasons"): ["correctness", "clarity"],
        ("p1", "ana", "note"): "A is right",
        ("p1", "ben", "preference"): {"choice": "tie", "shown": outputs, "strength": None},
        ("p2", "ben", "preference"): {"choice": "answer_b", "shown": outputs, "strength": None},
    }


def test_spans_binary_and_ranking_questions(sqlite_url: str, tmp_path: Path) -> None:
    _project(sqlite_url, "error-spans", "es")
    _project(sqlite_url, "ranked-answers", "ra")
    store = Store(sqlite_url)
    spans = [{"start": 8, "end": 13, "label": "fluency"}]
    _import(
        store,
        "es",
        [
            _label("e1", "ana", "has_errors", 1),
            _label("e1", "ana", "errors", spans),
            _label("e2", "ana", "has_errors", 0),
        ],
        tmp_path,
    )
    ranking = [["answer_3"], ["answer_1", "answer_2"]]
    _import(store, "ra", [_label("r1", "ana", "order", ranking)], tmp_path)
    settings, rows, notes = _export(store, "es", tmp_path / "es")
    q = {x["name"]: x for x in settings["questions"]}
    assert q["has_errors"]["settings"]["options"] == [
        {"value": "yes", "text": "yes", "description": None},
        {"value": "no", "text": "no", "description": None},
    ]
    assert q["errors"]["type"] == "span"
    assert q["errors"]["settings"]["field"] == "translation"
    assert q["errors"]["settings"]["allow_overlapping"] is True
    by_id = {r["id"]: r for r in rows}
    assert by_id["e1"]["has_errors.responses"] == ["yes"]
    assert by_id["e2"]["has_errors.responses"] == ["no"]
    assert by_id["e1"]["errors.responses"] == [[{"label": "fluency", "start": 8, "end": 13}]]
    assert notes == []
    settings, rows, _ = _export(store, "ra", tmp_path / "ra")
    assert settings["questions"][0]["type"] == "ranking"
    assert rows[0]["order.responses"] == [
        [
            {"value": "answer_3", "rank": 1},
            {"value": "answer_1", "rank": 2},
            {"value": "answer_2", "rank": 2},
        ]
    ]


def test_a_scale_of_tenths_is_a_label_question_shown_with_its_words(
    demo: str, tmp_path: Path
) -> None:
    store = Store(demo)
    settings, rows, _ = _export(store, "demo-intent-resolution", tmp_path / "ir")
    (q,) = settings["questions"]
    assert q["type"] == "label_selection"
    assert [o["value"] for o in q["settings"]["options"]] == [
        "0.0",
        "0.2",
        "0.4",
        "0.6",
        "0.8",
        "1.0",
    ]
    assert q["settings"]["options"][4]["text"] == "0.8 · resolves the intent with minor omissions"
    cake = next(r for r in rows if r["id"] == "cake")
    assert cake["resolution.responses"] == ["1.0", "1.0", "0.8"]
    store.create_project("ir-back", "intent_resolution")
    import_file(store, "ir-back", "annotations", tmp_path / "ir", "argilla")
    back = _labels(store, "ir-back")
    assert back == _labels(store, "demo-intent-resolution")
    assert sorted(v for (i, _, _), v in back.items() if i == "cake") == [0.8, 1.0, 1.0]
