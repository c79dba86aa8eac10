"""A pairwise answer through a Langfuse or LangSmith file: the score is the choice, the
comment keeps the whole answer, and an import brings the whole answer back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from annotation_store import Store
from commands import main
from interop.exporting import annotations_export_frame
from workbench_api import export_file, import_file

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "kinds"
ANSWER = {"choice": "answer_b", "shown": ["answer_b", "answer_a"], "strength": "clearly"}


def _labels(store: Store, project: str) -> dict[tuple[str, str, str], object]:
    frame = annotations_export_frame(store, project)
    return {(r.item_id, r.annotator, r.field): r.value for r in frame.itertuples()}


@pytest.mark.parametrize(("fmt", "category"), [("langfuse", "stringValue"), ("langsmith", "value")])
def test_a_pairwise_answer_goes_out_and_comes_back_whole(
    sqlite_url: str, tmp_path: Path, fmt: str, category: str
) -> None:
    items = EXAMPLES / "pairwise_preference_items.jsonl"
    db = ["--db", sqlite_url]
    assert (
        main([*db, "kind", "create", "pp", "--from", str(EXAMPLES / "pairwise_preference.toml")])
        == 0
    )
    for project in ("out", "back"):
        assert main([*db, "project", "create", project, "--kind", "decl:pp"]) == 0
        assert main([*db, "import", "items", project, str(items)]) == 0
    labels = tmp_path / "labels.jsonl"
    rows = [
        {"item_id": "p1", "annotator": "ana", "field": "preference", "value": ANSWER},
        {"item_id": "p2", "annotator": "ana", "field": "preference", "value": {"choice": "tie"}},
        {"item_id": "p2", "annotator": "ana", "field": "reasons", "value": ["clarity"]},
    ]
    labels.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    store = Store(sqlite_url)
    import_file(store, "out", "annotations", labels)
    path = tmp_path / f"{fmt}.jsonl"
    assert export_file(store, "out", "annotations", path, fmt) == 3
    written = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    first = next(r for r in written if r.get("comment"))
    assert (first[category], json.loads(first["comment"])) == ("answer_b", ANSWER)
    reports = import_file(store, "back", "annotations", path, fmt)
    assert reports["annotations"].notes == []  # every comment was read back
    assert _labels(store, "back") == _labels(store, "out")
    assert _labels(store, "back")[("p1", "ana", "preference")] == ANSWER
