"""Write the peer tools' files with the tools' own code, and check the workbench's exports
with their own models. Runs in .venv-peers only (scripts/make_peer_fixtures.sh); the
workbench never imports these packages.

    peer_fixtures.py write DIR      fixtures into DIR/<tool>/ (committed as tests/data/peers)
    peer_fixtures.py validate DIR   DIR/ours/* read by the tools' models -> DIR/validation.json

One small study is written by every tool: four texts (i1..i4), a 1-5 rating the tools call
``quality``, two people and one model. Label Studio, Langfuse, LangSmith and Argilla keep
records on a server; their files are written here the way their export / to_disk code
serialises its own models, without one.
"""

from __future__ import annotations

import json
import sys
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from unittest.mock import MagicMock

TEXTS = {"i1": "The refund was sent.", "i2": "No idea.", "i3": "See the manual.", "i4": "Done."}
PEOPLE = {"alice": {"i1": 5, "i2": 1, "i3": 3, "i4": 4}, "bob": {"i1": 4, "i2": 2, "i3": 3}}
MODEL = {"i1": 5, "i2": 2, "i3": 4, "i4": 4}
WHEN = datetime(2026, 5, 4, 12, 0, tzinfo=UTC)
NS = uuid.UUID("5b1f7a0e-2c7d-4e43-9b0a-8f6f1c2d3e4a")


def _uid(*parts: str) -> uuid.UUID:
    return uuid.uuid5(NS, "/".join(parts))


def _dump(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False, default=str) + "\n")


def write_potato(out: Path) -> None:
    """UserState.save per user, then the jsonl exporter over Potato's own loader."""
    from potato.export.base import ExportContext
    from potato.export.cli import load_annotations_from_output_dir
    from potato.export.tabular_exporter import JSONLExporter
    from potato.item_state_management import Label
    from potato.phase import UserPhase
    from potato.user_state_management import InMemoryUserState

    states = out / "annotation_output"
    for user, ratings in PEOPLE.items():
        state = InMemoryUserState(user)
        # Where the server has a user once past login and instructions: labels are
        # kept per instance only in the annotation phase.
        state.current_phase_and_page = (UserPhase.ANNOTATION, "annotation")
        for item, point in ratings.items():
            state.add_label_annotation(item, Label("quality", str(point)), str(point))
        state.add_label_annotation("i1", Label("comment", "text_box"), f"{user} was here")
        state.save(str(states / user))
    schemas = [
        {"annotation_type": "likert", "name": "quality", "size": 5},
        {"annotation_type": "text", "name": "comment"},
    ]
    annotations = load_annotations_from_output_dir(str(states), schemas)
    context = ExportContext(
        config={}, annotations=annotations, items={}, schemas=schemas, output_dir=str(states)
    )
    result = JSONLExporter().export(context, str(out / "export"))
    assert result.success, result


LABEL_CONFIG = """<View>
  <Text name="text" value="$text"/>
  <Rating name="quality" toName="text" maxRating="5"/>
</View>
"""


def _rating(value: int) -> dict[str, Any]:
    return {
        "from_name": "quality",
        "to_name": "text",
        "type": "rating",
        "value": {"rating": value},
        "origin": "manual",
    }


def write_label_studio(out: Path) -> None:
    """Tasks as the SDK's models serialise them: integer completed_by, lead_time,
    ground_truth, a cancelled annotation, a draft and a prediction."""
    from label_studio_sdk.label_interface import LabelInterface
    from label_studio_sdk.types import Annotation, LseTaskDraftsItem, Prediction

    LabelInterface(LABEL_CONFIG)  # the SDK parses the config it ships with the export
    users = {"alice": 11, "bob": 12}
    tasks = []
    for n, (item, text) in enumerate(TEXTS.items(), start=1):
        annotations = []
        for user, ratings in PEOPLE.items():
            if item not in ratings:
                continue
            annotations.append(
                Annotation(
                    id=100 * n + users[user],
                    completed_by=users[user],
                    result=[_rating(ratings[item])],
                    created_at=WHEN,
                    updated_at=WHEN,
                    lead_time=12.5 + n,
                    ground_truth=user == "alice" and item == "i3",
                    was_cancelled=False,
                    task=n,
                )
            )
        if item == "i4":  # bob opened i4, saved a draft, then skipped it
            annotations.append(
                Annotation(
                    id=900, completed_by=12, result=[], was_cancelled=True, lead_time=3.0, task=n
                )
            )
        drafts = []
        if item == "i2":
            drafts.append(
                LseTaskDraftsItem(result=[_rating(3)], created_at=WHEN, updated_at=WHEN, user=13)
            )
        predictions = [
            Prediction(result=[_rating(MODEL[item])], model_version="judge-v2", score=0.8, task=n)
        ]
        task = {"id": n, "data": {"text": text, "ref_id": item}}
        task["annotations"] = [a.model_dump(mode="json", exclude_none=True) for a in annotations]
        task["drafts"] = [d.model_dump(mode="json", exclude_none=True) for d in drafts]
        task["predictions"] = [p.model_dump(mode="json", exclude_none=True) for p in predictions]
        tasks.append(task)
    _dump(out / "export.json", tasks)
    (out / "label_config.xml").write_text(LABEL_CONFIG)


def write_langfuse(out: Path) -> None:
    """GET /api/public/scores pages: ANNOTATION and EVAL scores on one trace."""
    from langfuse.api.commons.types.score import Score
    from langfuse.api.core.pydantic_utilities import parse_obj_as

    scores = []
    common: dict[str, Any] = {
        "dataType": "NUMERIC",
        "timestamp": WHEN,
        "createdAt": WHEN,
        "updatedAt": WHEN,
        "environment": "default",
    }
    for user, ratings in PEOPLE.items():
        for item, point in ratings.items():
            score = {"id": str(_uid("lf", user, item)), "traceId": item, "name": "quality"}
            score.update(value=point, source="ANNOTATION", authorUserId=user, **common)
            scores.append(parse_obj_as(Score, score))
    for item, point in MODEL.items():
        score = {"id": str(_uid("lf", "eval", item)), "traceId": item, "name": "quality"}
        meta = {"evaluator": "judge", "judge_model": "judge-v2"}
        score.update(value=point, source="EVAL", metadata=meta, **common)
        scores.append(parse_obj_as(Score, score))
    data = [json.loads(s.json()) for s in scores]  # the SDK's own (camelCase) serialiser
    _dump(out / "scores.json", {"data": data, "meta": {"page": 1, "totalItems": len(data)}})


def write_langsmith(out: Path) -> None:
    """client.list_feedback records (Feedback models) as JSON lines; run ids are UUIDs."""
    from langsmith.schemas import Feedback, FeedbackSourceBase

    rows = []
    for user, ratings in PEOPLE.items():
        for item, point in ratings.items():
            source = FeedbackSourceBase(type="app", user_id=str(_uid("user", user)))
            source.user_name = user  # the app's source carries the person's name
            rows.append((item, point, source, _uid("ls", user, item)))
    for item, point in MODEL.items():
        source = FeedbackSourceBase(type="model", metadata={"evaluator": "judge"})
        rows.append((item, point, source, _uid("ls", "model", item)))
    lines = []
    for item, point, source, fid in rows:
        run = _uid("run", item)
        feedback = Feedback(
            id=fid,
            created_at=WHEN,
            modified_at=WHEN,
            run_id=run,
            trace_id=run,
            key="quality",
            score=point,
            feedback_source=source,
        )
        lines.append(json.dumps(feedback.model_dump(mode="json")))
    (out / "feedback.jsonl").parent.mkdir(parents=True, exist_ok=True)
    (out / "feedback.jsonl").write_text("".join(f"{line}\n" for line in lines))
    _dump(out / "runs.json", {item: str(_uid("run", item)) for item in TEXTS})


def write_argilla(out: Path) -> None:
    """A to_disk / from_hub folder: .argilla/settings.json from Settings.to_json and the
    records flattened by Argilla's own GenericIO, written with ``datasets``."""
    import argilla as rg
    from argilla.records._io._generic import GenericIO
    from datasets import Dataset

    # argilla's resources ask for a default client when built, and building one connects
    # to a server; serialising calls none, so a stand-in client is the default.
    offline = MagicMock(name="no-argilla-server")
    rg.Argilla._get_default = classmethod(lambda cls: offline)  # type: ignore[method-assign]
    settings = rg.Settings(
        fields=[rg.TextField(name="text")],
        questions=[rg.RatingQuestion(name="quality", values=[1, 2, 3, 4, 5])],
    )
    (out / ".argilla").mkdir(parents=True, exist_ok=True)
    settings.to_json(out / ".argilla" / "settings.json")
    users = {user: _uid("argilla", user) for user in PEOPLE}
    records = []
    for item, text in TEXTS.items():
        responses = [
            rg.Response("quality", ratings[item], user_id=users[user], status="submitted")
            for user, ratings in PEOPLE.items()
            if item in ratings
        ]
        if item == "i4":
            responses.append(rg.Response("quality", 2, user_id=users["bob"], status="draft"))
        suggestion = rg.Suggestion("quality", MODEL[item], score=0.8, agent="judge-v2")
        records.append(
            rg.Record(id=item, fields={"text": text}, responses=responses, suggestions=[suggestion])
        )
    rows = GenericIO.to_list(records, flatten=True)
    Dataset.from_list(rows).to_parquet(str(out / "records.parquet"))
    _dump(out / "users.json", {user: str(uid) for user, uid in users.items()})


def write(root: Path) -> None:
    """Every tool's fixtures under ``root/<tool>``."""
    write_potato(root / "potato")
    write_label_studio(root / "label-studio")
    write_langfuse(root / "langfuse")
    write_langsmith(root / "langsmith")
    write_argilla(root / "argilla")


def _check(name: str, rows: list[Any], check: Any) -> dict[str, Any]:
    errors = []
    for n, row in enumerate(rows, start=1):
        try:
            check(row)
        except Exception as exc:  # each tool's own validation error, recorded
            errors.append(f"record {n}: " + " / ".join(str(exc).splitlines()[:3]))
    return {"file": name, "checked": len(rows), "valid": len(rows) - len(errors), "errors": errors}


def validate(root: Path) -> None:
    """Read the workbench's exports in ``root/ours`` with each tool's own models."""
    from label_studio_sdk.label_interface import LabelInterface
    from label_studio_sdk.types import Annotation, Prediction
    from langfuse.api.commons.types.score import Score
    from langfuse.api.core.pydantic_utilities import parse_obj_as
    from langsmith.schemas import Feedback
    from potato.export.cli import load_annotations_from_output_dir

    ours = root / "ours"
    results = []
    tasks = json.loads((ours / "label-studio.json").read_text())
    annotations = [a for t in tasks for a in t.get("annotations", [])]
    results.append(_check("label-studio.json annotations", annotations, Annotation.model_validate))
    predictions = [p for t in tasks for p in t.get("predictions", [])]
    results.append(_check("label-studio.json predictions", predictions, Prediction.model_validate))
    tasks = json.loads((ours / "label-studio-ground-truth.json").read_text())
    annotations = [a for t in tasks for a in t.get("annotations", [])]
    name = "label-studio-ground-truth.json annotations"
    checked = _check(name, annotations, Annotation.model_validate)
    checked["ground_truth"] = sum(
        bool(Annotation.model_validate(a).ground_truth) for a in annotations
    )
    results.append(checked)
    config = ours / "label-studio.label_config.xml"
    configs = [config.read_text()] if config.is_file() else []
    results.append(_check(config.name, configs, LabelInterface))

    def score(row: dict[str, Any]) -> None:
        parse_obj_as(Score, row)

    for what in ("annotations", "scores"):
        rows = json.loads((ours / f"langfuse-{what}.json").read_text())
        results.append(_check(f"langfuse-{what}.json", rows, score))
        lines = (ours / f"langsmith-{what}.jsonl").read_text().splitlines()
        rows = [json.loads(line) for line in lines]
        results.append(_check(f"langsmith-{what}.jsonl", rows, Feedback.model_validate))
    loaded = load_annotations_from_output_dir(str(ours / "potato"), [])
    results.append({"file": "potato/", "checked": len(loaded), "valid": len(loaded), "errors": []})
    _dump(root / "validation.json", results)


if __name__ == "__main__":
    command, folder = sys.argv[1], Path(sys.argv[2])
    {"write": write, "validate": validate}[command](folder)
