"""Langfuse 5.0.4's and LangSmith's own models judge every score file the workbench
writes, and the workbench imports what those models write.

A Langfuse row is parsed as the Langfuse API client parses a score it fetches
(``parse_obj_as(Score, row)``, the ``Score`` union of ``langfuse.api.commons.types``);
a LangSmith row as ``langsmith.schemas.Feedback``. The import side writes scores and
feedback with those same models (comments, metadata and a pairwise choice among them)
and imports them with the workbench's CLI in its own venv.
"""

from __future__ import annotations

import datetime as dt
import json
import typing
import uuid
from pathlib import Path
from typing import Any

import pydantic
import pytest
from conftest import ROOT, Export, of_format, run_workbench
from langfuse.api.commons.types.score import Score, Score_Categorical, Score_Text
from langfuse.api.core.serialization import convert_and_respect_annotation_metadata
from langsmith.schemas import Feedback, FeedbackSourceBase

EXAMPLES = ROOT / "examples" / "kinds"
WHEN = dt.datetime(2026, 3, 1, 9, 30, tzinfo=dt.UTC)
FORMATS = ("langfuse", "langsmith")


#: Langfuse's ``parse_obj_as(Score, row)`` (how its API client reads a score), with the
#: type adapter built once, and the aliases read through the union member the row's
#: ``dataType`` names (the same member the discriminator picks; five times faster).
SCORE = pydantic.TypeAdapter(Score)
MEMBERS = {
    member.model_fields["data_type"].default: member
    for member in typing.get_args(typing.get_args(Score)[0])
}


def _score(row: dict[str, Any]) -> Any:
    member = MEMBERS.get(row.get("dataType"), Score)  # an unknown tag: the union refuses it
    return SCORE.validate_python(
        convert_and_respect_annotation_metadata(object_=row, annotation=member, direction="read")
    )


def _rows(export: Export) -> list[dict[str, Any]]:
    assert export.path is not None
    lines = export.path.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


@pytest.mark.parametrize(
    ("fmt", "parse"),
    [
        ("langfuse", _score),
        ("langsmith", lambda row: Feedback(**row)),
    ],
)
def test_every_row_is_valid_for_the_tools_own_model(exports: list[Export], fmt, parse) -> None:
    written = of_format(exports, fmt)
    assert {"demo-intent-match", "demo-judge-study"} <= {e.project for e in written}
    problems = []
    for export in written:
        rows = _rows(export)
        assert len(rows) == export.count
        for number, row in enumerate(rows, start=1):
            try:
                parse(row)
            except Exception as exc:  # the model's own message is the finding
                problems.append(f"{export.project}/{export.what} row {number}: {exc}")
    assert problems == []


def test_a_pairwise_choice_is_a_category_with_its_detail_in_the_comment(
    exports: list[Export],
) -> None:
    """Wherever a comment is written, it holds the whole pairwise answer and the score's
    category (Langfuse ``stringValue``, LangSmith ``value``) is its choice."""
    for fmt, category in (("langfuse", "stringValue"), ("langsmith", "value")):
        for export in of_format(exports, fmt):
            for row in _rows(export):
                if row.get("comment") is None:
                    continue
                detail = json.loads(row["comment"])
                assert detail["choice"] == row[category], (export.project, row)
                assert set(detail) == {"choice", "shown", "strength"}
                if fmt == "langfuse":
                    assert row["dataType"] == "CATEGORICAL"


# -- imports of what the tools' own models write ------------------------------------------

_IMPORT = """
import contextlib, io, json, sys
from cli import main
from annotation_store import Store
from interop.exporting import annotations_export_frame
url, toml, items, files = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
for argv in (["kind", "create", "pp", "--from", toml],):
    assert main(["--db", url, *argv]) == 0
result = {}
for fmt, path in files.items():
    project = f"pp-{fmt}"
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["--db", url, "project", "create", project, "--kind", "decl:pp"]) == 0
        assert main(["--db", url, "import", "items", project, items]) == 0
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["--db", url, "import", "annotations", project, path, "--format", fmt])
    frame = annotations_export_frame(Store(url), project)
    labels = [[r.item_id, r.annotator, r.field, r.value] for r in frame.itertuples()]
    result[fmt] = {"code": code, "out": out.getvalue().splitlines(), "labels": labels}
print(json.dumps(result))
"""


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A pairwise-preference project per tool, its labels imported from files the tools'
    own models wrote; the CLI's output and the labels read back."""
    folder = tmp_path_factory.mktemp("imports")
    items = [json.loads(line) for line in (EXAMPLES / "pairwise_preference_items.jsonl").open()]
    ids = {it["item_id"]: str(uuid.uuid5(uuid.NAMESPACE_URL, it["item_id"])) for it in items}
    lines = [json.dumps({**it, "item_id": ids[it["item_id"]]}) for it in items[:2]]
    (folder / "items.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    first, second = ids["p1"], ids["p2"]
    files = {
        "langfuse": _langfuse(folder / "scores.jsonl", first, second),
        "langsmith": _langsmith(folder / "feedback.jsonl", first, second),
    }
    done = run_workbench(
        "-c",
        _IMPORT,
        f"sqlite:///{folder / 'wb.db'}",
        str(EXAMPLES / "pairwise_preference.toml"),
        str(folder / "items.jsonl"),
        json.dumps({k: str(v) for k, v in files.items()}),
    )
    assert done.returncode == 0, done.stderr
    return {**json.loads(done.stdout.splitlines()[-1]), "ids": (first, second)}


#: The answer an annotator gave, as the workbench's export writes it into the comment.
DETAIL = {"choice": "answer_b", "shown": ["answer_b", "answer_a"], "strength": "clearly"}


def _langfuse(path: Path, first: str, second: str) -> Path:
    stamp = {"timestamp": WHEN, "created_at": WHEN, "updated_at": WHEN, "environment": "default"}
    common = {"source": "ANNOTATION", "author_user_id": "rosa", **stamp}
    scores = [
        Score_Categorical(
            id="s1",
            trace_id=first,
            name="preference",
            value=1,
            string_value="answer_b",
            comment=json.dumps(DETAIL),
            metadata={"queue": "week-9"},
            **common,
        ),
        Score_Categorical(
            id="s2",
            trace_id=second,
            name="preference",
            value=2,
            string_value="tie",
            comment="both answers miss the point",
            metadata={"queue": "week-9", "annotator": "ignored: authorUserId wins"},
            **common,
        ),
        Score_Text(id="s3", trace_id=first, name="note", string_value="B cites a source", **common),
    ]
    path.write_text("".join(s.json() + "\n" for s in scores), encoding="utf-8")
    return path


def _langsmith(path: Path, first: str, second: str) -> Path:
    def feedback(run: str, key: str, value: Any, comment: str | None, **extra: Any) -> Feedback:
        source = FeedbackSourceBase(type="app", user_name="rosa", metadata={"ui": "v2"})
        return Feedback(
            id=uuid.uuid4(),
            created_at=WHEN,
            modified_at=WHEN,
            run_id=uuid.UUID(run),
            trace_id=uuid.UUID(run),
            key=key,
            value=value,
            comment=comment,
            feedback_source=source,
            extra=extra or None,
        )

    rows = [
        feedback(first, "preference", "answer_b", json.dumps(DETAIL), app_version="3.1"),
        feedback(second, "preference", "tie", "both answers miss the point"),
        feedback(first, "note", "B cites a source", None),
    ]
    path.write_text("".join(f.model_dump_json() + "\n" for f in rows), encoding="utf-8")
    return path


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_choice_comes_back_with_the_detail_its_comment_carries(imported, fmt) -> None:
    first, second = imported["ids"]
    result = imported[fmt]
    assert result["code"] == 0, result["out"]
    labels = {(item, field): (who, value) for item, who, field, value in result["labels"]}
    assert labels[(first, "preference")] == ("rosa", DETAIL)
    assert labels[(second, "preference")] == (
        "rosa",
        {"choice": "tie", "shown": ["answer_a", "answer_b"], "strength": None},
    )
    assert labels[(first, "note")] == ("rosa", "B cites a source")
    assert len(labels) == 3


def test_comments_and_metadata_not_kept_are_named_in_notes(imported) -> None:
    notes = {f: [line for line in imported[f]["out"] if "note:" in line] for f in FORMATS}
    assert notes["langfuse"] == [
        "  note: 1 comments not imported (a workbench label or score keeps none)",
        "  note: metadata not imported: queue (2) (a label or score keeps none)",
    ]
    assert notes["langsmith"] == [
        "  note: 1 comments not imported (a workbench label or score keeps none)",
        "  note: metadata not imported: app_version (1), ui (3) (a label or score keeps none)",
    ]
