"""Label Studio's own code (label-studio-sdk 2.1.2) judges every Label Studio file the
workbench writes, and the workbench imports what the SDK's models write.

Exports: each labeling config parses and passes ``LabelInterface.validate``; every
annotation, draft and prediction passes ``_validate_object`` / ``validate_prediction``
and the SDK's ``Annotation`` / ``Prediction`` models; the config shows every item field
an annotator must see. Imports: tasks serialised by the SDK's models (every annotation
``ground_truth``, as a Label Studio server marks imported ones; predictions as ids or as
objects) and configs the SDK parses (``visibleWhen`` views, ``<Chat>``).
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import Export, of_format, run_workbench
from label_studio_sdk.label_interface import LabelInterface
from label_studio_sdk.types import Annotation, Prediction

FORMAT = "label-studio"
GROUND_TRUTH = "ground truth in Label Studio"


def _config(export: Export) -> str:
    assert export.path is not None
    return export.path.with_name(f"{export.path.stem}.label_config.xml").read_text()


def _tasks(export: Export) -> list[dict[str, Any]]:
    assert export.path is not None
    return json.loads(export.path.read_text(encoding="utf-8"))


def _workbench(*args: str) -> Any:
    """Run a script (or ``-c`` code) in the workbench's venv; it prints one JSON document."""
    done = run_workbench(*args)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _side(*args: str) -> Any:
    """tests/peers/label_studio_side.py in the workbench's venv; its JSON document."""
    return _workbench(str(Path(__file__).with_name("label_studio_side.py")), *args)


def _calls(url: str, *calls: list[str]) -> dict[str, Any]:
    """CLI calls in one workbench process, then project ``p``'s labels, notes, scores
    and agreement figures."""
    found = _side("cli", url, json.dumps(list(calls)))
    assert "failed" not in found, found
    return found


FIELDS = """
import json, sys
from annotation_store import Store
store = Store(sys.argv[1])
out = {}
for name in sys.argv[2:]:
    info = store.project(name)
    out[name] = {
        "shown": [[f.name, f.role, f.kind] for f in info.task_kind.item_fields if not f.hidden],
        "questions": [[f.name, f.question_type.name, f.source_field, list(f.outputs)]
                      for f in info.task_kind.human_fields(info.settings)],
    }
print(json.dumps(out))
"""


def _db(exports: list[Export]) -> str:
    path = next(e.path for e in exports if e.path is not None)
    return f"sqlite:///{path.parents[2] / 'workbench.db'}"


# -- exports, judged by the SDK ----------------------------------------------------------
def test_every_export_passes_the_sdks_validators(exports: list[Export]) -> None:
    written = of_format(exports, FORMAT)
    assert {e.project for e in written} >= {"demo-intent-resolution", "example-error-spans"}
    checked = {"annotations": 0, "drafts": 0, "predictions": 0}
    errors = []
    for export in written:
        interface = LabelInterface(_config(export))
        interface.validate()  # raises on a config Label Studio refuses
        for task in _tasks(export):
            where = f"{export.project}/{export.what} task {task['id']}"
            for key in ("annotations", "drafts"):
                for ann in task[key]:
                    if key == "annotations":
                        Annotation.model_validate(ann)  # the SDK's own model of one
                    found = interface._validate_object(ann, return_errors=True)
                    errors += [f"{where} {key}: {e}" for e in found]
                    checked[key] += 1
            for made in task["predictions"]:
                Prediction.model_validate(made)
                found = interface.validate_prediction(made, return_errors=True)
                errors += [f"{where} prediction: {e}" for e in found]
                checked["predictions"] += 1
    assert errors == []
    assert checked["annotations"] > 100 and checked["predictions"] > 300


def test_the_config_shows_every_field_an_annotator_sees(exports: list[Export]) -> None:
    written = [e for e in of_format(exports, FORMAT) if e.what == "items"]
    kinds = _workbench("-c", FIELDS, _db(exports), *(e.project for e in written))
    for export in written:
        interface = LabelInterface(_config(export))
        shown = {o.value_name: o for o in interface.objects}
        kind = kinds[export.project]
        for name, role, form in kind["shown"]:
            assert name in shown, (export.project, name)
            want = "Paragraphs" if role == "chat" else "Table" if form == "object" else "Text"
            assert shown[name].tag == want, (export.project, name)
        object_of = {o.name: o.value_name for o in interface.objects}
        for name, qtype, source, outputs in kind["questions"]:
            targets = [object_of[t] for t in interface.get_control(name).to_name]
            if qtype == "spans":
                assert targets == [source], (export.project, name)
            if qtype == "pairwise":
                assert targets == outputs, (export.project, name)
    pairwise = next(e for e in written if e.project == "example-pairwise-preference")
    assert set(LabelInterface(_config(pairwise)).get_control("preference").labels) == {
        "answer_a",
        "answer_a (slightly)",
        "answer_a (clearly)",
        "answer_b",
        "answer_b (slightly)",
        "answer_b (clearly)",
        "tie",
    }


def test_answers_use_label_studios_own_control_types(exports: list[Export]) -> None:
    tags = {}
    for export in of_format(exports, FORMAT):
        for control in LabelInterface(_config(export)).controls:
            tags[(export.project, control.name)] = (control.tag, dict(control.attr))
    assert tags[("demo-intent-resolution", "resolution")][0] == "Number"  # a 0-1 scale
    assert tags[("demo-intent-resolution", "resolution")][1]["step"] == "0.2"
    assert tags[("demo-actionability", "sources")][0] == "Number"  # levels 0..3
    assert tags[("example-summary-rubric", "coherence")] == (
        "Rating",
        {"name": "coherence", "toName": "summary", "maxRating": "5"},
    )
    assert tags[("demo-dialogue", "faithful")][0] == "Choices"
    assert tags[("example-error-spans", "errors")][0] == "Labels"
    assert tags[("example-pairwise-preference", "reasons")][1]["choice"] == "multiple"
    assert tags[("example-pairwise-preference", "note")][0] == "TextArea"
    # binary scores travel as the choice with its confidence, typed to <Choices>
    intent = next(
        e
        for e in of_format(exports, FORMAT)
        if e.project == "demo-intent-match" and e.what == "annotations"
    )
    made = [p for t in _tasks(intent) for p in t["predictions"]]
    assert {r["type"] for p in made for r in p["result"]} == {"choices"}
    assert all(0.5 <= p["score"] <= 1 for p in made)


def test_refused_content_is_named_in_notes(exports: list[Export]) -> None:
    for export in of_format(exports, FORMAT):
        for note in export.notes:
            assert re.match(
                r"\d+ (final labels not written|evaluator scores of '\w+' not written"
                r"|answers of '\w+' marking no span)",
                note,
            ), note
    assert [e for e in exports if e.format == FORMAT and e.error] == []


# -- the workbench's export back into the workbench ----------------------------------------
def test_round_trip_keeps_every_label_and_the_agreement(
    exports: list[Export], tmp_path: Path
) -> None:
    """Every annotations export imported into a twin project gives back its labels and
    the people's agreement figures (where no answer was left out with a note)."""
    db = tmp_path / "copy.db"
    shutil.copy(_db(exports).removeprefix("sqlite:///"), db)
    written = [
        e
        for e in of_format(exports, FORMAT)
        if e.what == "annotations" and e.project != "demo-judge-study"  # 300 items, same kind
    ]
    pairs = [f"{e.project}={e.path}" for e in written]
    found = _side("round-trip", f"sqlite:///{db}", *pairs)
    compared = 0
    for export in written:
        before, after = found[export.project]["labels"]
        if any("marking no span" in n for n in export.notes):
            assert len(after) < len(before), export.project
            continue
        assert after == before, export.project
        if before:
            figures = found[export.project]["agreement"]
            assert figures[1] == figures[0], export.project
            compared += 1
    assert compared >= 4


# -- files the SDK's models write, imported ------------------------------------------------
CONFIG = """<View>
  <Text name="text" value="$text"/>
  <Choices name="ok" toName="text" choice="single">
    <Choice value="yes"/><Choice value="no"/>
  </Choices>
  <Rating name="quality" toName="text" maxRating="5"/>
</View>
"""
TEXTS = {"i1": "The refund was sent.", "i2": "No idea.", "i3": "See the manual."}
PEOPLE = {11: {"i1": 5, "i2": 1, "i3": 3}, 12: {"i1": 4, "i2": 2, "i3": 3}, 13: {"i1": 4}}


def _result(name: str, kind: str, value: Any) -> dict[str, Any]:
    return {"from_name": name, "to_name": "text", "type": kind, "value": {kind: value}}


def _server_export(predictions: str) -> list[dict[str, Any]]:
    """Tasks as a Label Studio server exports them: every imported annotation marked
    ground truth; predictions as ids or as objects."""
    interface = LabelInterface(CONFIG)
    tasks = []
    for n, (item, text) in enumerate(TEXTS.items(), start=1):
        anns = []
        for user, ratings in PEOPLE.items():
            if item not in ratings:
                continue
            result = [
                _result("quality", "rating", ratings[item]),
                _result("ok", "choices", ["yes" if ratings[item] > 2 else "no"]),
            ]
            ann = Annotation(
                id=10 * n + user, completed_by=user, result=result, ground_truth=True, task=n
            )
            assert interface._validate_object(ann.model_dump(mode="json"), return_errors=True) == []
            anns.append(ann.model_dump(mode="json", exclude_none=True))
        if predictions == "ids":
            made: list[Any] = [100 + n]
        else:
            chance = {"i1": 0.9, "i2": 0.2, "i3": 0.7}[item]
            choice = "yes" if chance >= 0.5 else "no"
            result = [
                _result("ok", "choices", [choice]),
                _result("quality", "rating", {"i1": 5, "i2": 1, "i3": 4}[item]),
            ]
            p = Prediction(result=result, score=max(chance, 1 - chance), model_version="m1", task=n)
            assert interface.validate_prediction(p.model_dump(mode="json")) is True
            made = [p.model_dump(mode="json", exclude_none=True)]
        tasks.append({"id": n, "data": {"item_id": item, "text": text}, "annotations": anns})
        tasks[-1]["predictions"] = made
    return tasks


KIND = """
title = "SDK study"
[[fields]]
name = "text"
[[questions]]
name = "ok"
type = "binary"
[[questions]]
name = "quality"
type = "likert"
labels = ["1", "2", "3", "4", "5"]
"""


@pytest.mark.parametrize("predictions", ["ids", "objects"])
def test_a_server_export_keeps_every_label_beside_its_ground_truth_mark(
    tmp_path: Path, predictions: str
) -> None:
    path, kind, again = tmp_path / "export.json", tmp_path / "kind.toml", tmp_path / "again.json"
    path.write_text(json.dumps(_server_export(predictions)))
    kind.write_text(KIND)
    got = _calls(
        f"sqlite:///{tmp_path / 'wb.db'}",
        ["kind", "create", "sdk", "--from", str(kind)],
        ["project", "create", "p", "--kind", "decl:sdk"],
        ["import", "annotations", "p", str(path), "--format", FORMAT],
        ["export", "annotations", "p", "--out", str(again), "--format", FORMAT],
    )
    printed = got["printed"][2]
    users = {11: "ls-user-11", 12: "ls-user-12", 13: "ls-user-13"}
    want = sorted(
        [i, users[u], f, v, "submitted"]
        for u, ratings in PEOPLE.items()
        for i, r in ratings.items()
        for f, v in (("quality", r), ("ok", 1 if r > 2 else 0))
    )
    assert got["labels"] == want  # every annotator's label; none became a final label
    marks = sorted([i, users[u], GROUND_TRUTH] for u, r in PEOPLE.items() for i in r)
    assert got["notes"] == marks
    assert "7 annotations marked ground truth" in printed
    if predictions == "ids":
        assert got["scores"] == []
        assert "3 predictions listed by id only skipped" in printed
    else:
        assert got["scores"] == [
            ["i1", "ok", 0.9, "m1"],
            ["i1", "quality", 5.0, "m1"],
            ["i2", "ok", 0.2, "m1"],
            ["i2", "quality", 1.0, "m1"],
            ["i3", "ok", 0.7, "m1"],
            ["i3", "quality", 4.0, "m1"],
        ]
        assert "3 prediction confidence scores not imported" in printed  # the ratings'
    quality = got["agreement"]["fields"]["quality"]
    assert quality["n_annotators"] == 3 and quality["n_ratings"] == 7
    tasks = json.loads(again.read_text())
    assert [a["ground_truth"] for t in tasks for a in t["annotations"]] == [True] * 7


VIEWS = """<View>
  <Paragraphs name="chat_view" value="$dialogue" nameKey="role" textKey="content"/>
  <Chat name="chat" value="$messages"/>
  <Text name="answer" value="$answer"/>
  <Choices name="has_errors" toName="answer" choice="single">
    <Choice value="yes"/><Choice value="no"/>
  </Choices>
  <View visibleWhen="choice-selected" whenTagName="has_errors" whenChoiceValue="yes">
    <Choices name="severity" toName="answer" choice="single">
      <Choice value="minor"/><Choice value="major"/>
    </Choices>
  </View>
  <View visibleWhen="region-selected">
    <TextArea name="why" toName="answer"/>
  </View>
</View>
"""


def test_conditional_views_and_chats_in_a_config_convert(tmp_path: Path) -> None:
    LabelInterface(VIEWS).validate()  # a config Label Studio accepts
    path = tmp_path / "config.xml"
    path.write_text(VIEWS)
    got = _calls(
        f"sqlite:///{tmp_path / 'wb.db'}",
        ["kind", "create", "views", "--from", str(path)],
        ["kind", "show", "views", "--json"],
    )
    created, shown = got["printed"]
    kind = json.loads(shown)
    definition = kind.get("definition", kind)
    roles = {f["name"]: f.get("role") for f in definition["fields"]}
    assert roles["dialogue"] == roles["messages"] == "chat"
    questions = {q["name"]: q for q in definition["questions"]}
    assert questions["severity"]["show_if"] == {"question": "has_errors", "answer": ["yes"]}
    assert "show_if" not in questions["why"]
    assert (
        "not carried over: <TextArea name='why'>: visibleWhen='region-selected' (on the "
        "<View> holding it) cannot be carried over; the question is always asked"
    ) in created.splitlines()
