"""The workbench's Potato export read back by its own Potato import, for every question
type: answers come back equal, and what Potato cannot hold is counted in a note."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from annotation_store import Store
from interop import potato
from interop.importing import ImportFailure
from workbench_api import add_items, add_labels, create_project, export_file, import_file

KIND = Path(__file__).parent / "peers" / "kinds" / "every_type.toml"
ITEM = {
    "item_id": "t1",
    "request": "Boiling point of water?",
    "answer_a": "100 degrees Celsius.",
    "answer_b": "About 90.",
    "answer_c": "100 C.",
}
#: one annotator's answers, each in the question's canonical form
ANSWERS = {
    "on_topic": 1,
    "tone": "curt",
    "issues": ["wrong", "verbose"],
    "clarity": 4,
    "confidence": 0.25,
    "quality": 7.0,
    "comment": 'two lines,\nand "quotes"',
    "better": {"choice": "answer_b", "shown": ["answer_a", "answer_b"], "strength": "clearly"},
    "mistakes": [
        {"start": 0, "end": 3, "label": "factual"},
        {"start": 4, "end": 11, "label": "grammar"},
    ],
    "order": [["answer_c"], ["answer_a"], ["answer_b"]],
}


def _project(store: Store, name: str, answers: dict[str, object]) -> None:
    from workbench_api.kinds import save_kind

    if name == "rt":
        save_kind(store, "every-type", KIND.read_text(encoding="utf-8"), new=True)
    create_project(store, name, "decl:every-type@1")
    add_items(store, name, pd.DataFrame([ITEM]))
    rows = [
        {"item_id": "t1", "annotator": "ann", "field": f, "value": v} for f, v in answers.items()
    ]
    if rows:
        add_labels(store, name, pd.DataFrame(rows))


def _labels(store: Store, project: str) -> dict[str, object]:
    from workbench_api import labels_frame

    frame = labels_frame(store, project)
    return {r.field: r.value for r in frame.itertuples()}


def test_every_question_type_comes_back_from_potato(store: Store, tmp_path: Path) -> None:
    _project(store, "rt", ANSWERS)
    out = tmp_path / "potato"
    notes: list[str] = []
    assert export_file(store, "rt", "annotations", out, "potato", notes=notes) == 1
    assert notes == []
    state = json.loads((out / "ann" / potato.STATE_FILE).read_text())
    assert state["current_phase_and_page"] == ["done", None]
    labels = {p[0]["schema"]: p for p in state["instance_id_to_label_to_value"]["t1"]}
    assert labels["better"] == [{"schema": "better", "name": "scale_value"}, "2"]
    assert [s[0]["name"] for s in state["instance_id_to_span_to_value"]["t1"]] == [
        "factual",
        "grammar",
    ]
    for source, twin in ((out, "back"), (out / potato.EXPORT_FILE, "back-jsonl")):
        _project(store, twin, {})
        import_file(store, twin, "annotations", source, "potato")
        assert _labels(store, twin) == ANSWERS


def test_what_potato_cannot_hold_is_a_note(store: Store, tmp_path: Path) -> None:
    answers = dict(ANSWERS)
    answers["issues"] = []  # Potato keeps no empty multiselect
    answers["better"] = {"choice": "answer_a", "shown": ["answer_b", "answer_a"]}
    _project(store, "rt", answers)
    notes: list[str] = []
    export_file(store, "rt", "annotations", tmp_path, "potato", notes=notes)
    assert notes == [
        "1 empty answers to 'issues' not exported (Potato keeps no empty multi answer)",
        "1 answers to 'better' exported in part (Potato's pairwise form does not hold all "
        "of them, such as the order the outputs were shown in)",
    ]
    _project(store, "back", {})
    import_file(store, "back", "annotations", tmp_path, "potato")
    back = _labels(store, "back")
    assert "issues" not in back
    assert back["better"] == {
        "choice": "answer_a",
        "shown": ["answer_a", "answer_b"],
        "strength": "slightly",
    }


@pytest.mark.parametrize(
    ("field", "stored", "reason"),
    [
        ("better", {"selection": "C"}, "selection 'C' is not A, B or tie"),
        ("order", {"ranks": "1"}, "a Potato ranking needs a rank_order"),
        ("mistakes", {"mqm": "{not json"}, "an error_span answer must be JSON"),
    ],
)
def test_a_potato_answer_that_does_not_fit_its_question_imports_nothing(
    store: Store, tmp_path: Path, field: str, stored: dict[str, str], reason: str
) -> None:
    _project(store, "rt", {"tone": "curt"})
    line = {"instance_id": "t1", "user_id": "ann", "labels": {field: stored, "tone": {"x": "x"}}}
    path = tmp_path / "annotations.jsonl"
    path.write_text(json.dumps(line) + "\n")
    with pytest.raises(ImportFailure) as caught:
        import_file(store, "rt", "annotations", path, "potato")
    assert str(caught.value) == (
        f"annotations.jsonl, line 1 (instance 't1'), scheme {field!r}: {reason}"
    )
    assert _labels(store, "rt") == {"tone": "curt"}
