"""Argilla 2.8.0's own code judges every Argilla dataset folder the workbench writes.

Each ``.argilla/settings.json`` goes through ``rg.Settings.from_json``; each record goes
through the path ``Dataset.from_hub`` takes (``IngestedRecordMapper`` builds the record,
``rg.Response`` its answers, ``Record.api_model()`` the payload the server receives),
and every answer in that payload is checked against its question by argilla-server's
own response validator (``ResponseValueValidator``, run in .venv-argilla-server by
``argilla_server_check.py``) and by the same rules restated here. No server is contacted.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import uuid
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import argilla as rg
import pyarrow.parquet as pq
import pytest
from argilla._api._client import APIClient
from argilla.records._mapping import IngestedRecordMapper
from conftest import Export, of_format

#: The notes of an Argilla export: answers Argilla cannot hold, and parts of answers it
#: drops; and the LangSmith export's count of labels a score record cannot mark.
DROPPED = re.compile(r"^(\d+) '[\w-]+' answers not exported: .+ \(an Argilla [^)]+\)$")
PARTIAL = re.compile(r"^\d+ '[\w-]+' answers: .+ not exported \(an Argilla [^)]+\)$")
UNMARKED = re.compile(r"^(\d+) \w+ labels not exported")


@pytest.fixture(scope="module", autouse=True)
def offline_client() -> Iterator[None]:
    """Argilla's question and dataset classes want a default client; this one never
    calls a server (its connection check is the only request the constructor makes)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(APIClient, "_validate_connection", lambda self: None)
        rg.Argilla(api_url="http://127.0.0.1:9", api_key="contract-test")
        yield


def _folders(exports: list[Export], what: str | None = None) -> list[Export]:
    return [e for e in of_format(exports, "argilla") if what in (None, e.what)]


def _settings(export: Export) -> rg.Settings:
    assert export.path is not None
    return rg.Settings.from_json(export.path / ".argilla" / "settings.json")


def test_every_settings_file_loads_with_argilla(exports: list[Export]) -> None:
    folders = _folders(exports)
    assert {"demo-intent-resolution", "demo-dialogue"} <= {e.project for e in folders}
    for export in folders:
        settings = _settings(export)
        rows = pq.read_table(export.path / "records.parquet").to_pylist()
        asked = {k.split(".")[0] for row in rows for k in row if k.endswith(".responses")}
        assert asked <= {q.name for q in settings.questions}, export.project


def _questions(exports: list[Export], project: str) -> dict[str, Any]:
    found = [e for e in _folders(exports, "annotations") if e.project == project]
    return {q.name: q for e in found for q in _settings(e).questions}


def test_each_question_type_has_its_argilla_counterpart(exports: list[Export]) -> None:
    resolution = _questions(exports, "demo-intent-resolution")["resolution"]
    assert type(resolution) is rg.LabelQuestion  # 0.0-1.0 in steps of 0.2: no rating holds it
    assert resolution.labels == ["0.0", "0.2", "0.4", "0.6", "0.8", "1.0"]
    faithful = _questions(exports, "demo-dialogue")["faithful"]
    assert (type(faithful), faithful.labels) == (rg.LabelQuestion, ["yes", "no"])
    detected = _questions(exports, "demo-actionability")["errors_detected"]
    assert (type(detected), detected.values) == (rg.RatingQuestion, [0, 1, 2])
    declared = {e.project for e in exports}
    if "example-pairwise-preference" in declared:
        q = _questions(exports, "example-pairwise-preference")
        assert (type(q["preference"]), q["preference"].values) == (
            rg.RankingQuestion,
            ["answer_a", "answer_b"],
        )
        assert type(q["reasons"]) is rg.MultiLabelQuestion
        assert q["reasons"].labels == ["correctness", "completeness", "clarity", "safety"]
        assert type(q["note"]) is rg.TextQuestion
    if "example-error-spans" in declared:
        errors = _questions(exports, "example-error-spans")["errors"]
        assert (type(errors), errors.field) == (rg.SpanQuestion, "translation")
    if "example-ranked-answers" in declared:
        order = _questions(exports, "example-ranked-answers")["order"]
        assert type(order) is rg.RankingQuestion


def _records(export: Export) -> Iterator[tuple[rg.Record, rg.Settings]]:
    """The folder's records as ``Dataset.from_hub`` builds them from the flat rows."""
    settings = _settings(export)
    dataset = rg.Dataset(name="contract", settings=settings)
    mapper = IngestedRecordMapper(dataset=dataset, user_id=uuid.uuid4())
    for row in pq.read_table(export.path / "records.parquet").to_pylist():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the columns that are not fields
            record = mapper({k: v for k, v in row.items() if ".responses" not in k})
        for q in settings.questions:
            answers = zip(
                row.get(f"{q.name}.responses") or [],
                row.get(f"{q.name}.responses.users") or [],
                row.get(f"{q.name}.responses.status") or [],
                strict=True,
            )
            for value, user, status in answers:
                record.responses.add(rg.Response(q.name, value, uuid.UUID(user), status))
        yield record, settings


def _spans_problem(question: rg.SpanQuestion, value: Any, fields: dict[str, Any]) -> str:
    if question.field not in fields:
        return f"no field {question.field!r} in the record"
    size = len(fields[question.field])
    for span in value:
        if span["label"] not in question.labels:
            return f"span label {span['label']!r} undeclared"
        if span["start"] > size - 1 or span["end"] > size:
            return f"span {span['start']}-{span['end']} outside {size} characters"
    if not question.allow_overlapping:
        for i, a in enumerate(value):
            for b in value[i + 1 :]:
                if a["start"] < b["end"] and a["end"] > b["start"]:
                    return "overlapping spans"
    return ""


def _problem(question: Any, value: Any, submitted: bool, fields: dict[str, Any]) -> str:
    """What argilla-server would refuse in one answer ('' when it takes it)."""
    if isinstance(question, rg.TextQuestion):
        return "" if isinstance(value, str) else f"a {type(value).__name__}, not text"
    if isinstance(question, rg.MultiLabelQuestion):
        if not isinstance(value, list) or not value or len(set(value)) != len(value):
            return f"{value!r}: a list of distinct labels, at least one, is needed"
        return "" if set(value) <= set(question.labels) else f"{value!r}: undeclared labels"
    if isinstance(question, rg.LabelQuestion):
        return "" if value in question.labels else f"{value!r} not in {question.labels}"
    if isinstance(question, rg.RatingQuestion):
        return "" if value in question.values else f"{value!r} not in {question.values}"
    if isinstance(question, rg.RankingQuestion):
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            return f"{value!r}: a ranking is a list of {{value, rank}}"
        names = [v["value"] for v in value]
        if len(set(names)) != len(names) or not set(names) <= set(question.values):
            return f"{names!r}: each ranked value once, from {question.values}"
        if submitted:
            ranks = {v.get("rank") for v in value}
            if len(names) != len(question.values):
                return f"{names!r}: a submitted ranking places every value"
            if not ranks <= set(range(1, len(question.values) + 1)):
                return f"ranks {sorted(ranks, key=str)} outside 1..{len(question.values)}"
        return ""
    if isinstance(question, rg.SpanQuestion):
        if not isinstance(value, list):
            return f"{value!r}: spans are a list"
        return _spans_problem(question, value, fields)
    return f"unknown question type {type(question).__name__}"


def test_every_answer_is_valid_for_its_question(exports: list[Export]) -> None:
    problems = []
    checked = 0
    for export in _folders(exports, "annotations"):
        for record, settings in _records(export):
            payload = record.api_model()  # Argilla's own conversion (rankings included)
            fields = {k: v for k, v in payload.fields.items() if v is not None}
            for response in payload.responses:
                submitted = response.status.value == "submitted"
                for name, answer in (response.values or {}).items():
                    checked += 1
                    why = _problem(settings.questions[name], answer["value"], submitted, fields)
                    if why:
                        problems.append(f"{export.project}, record {record.id}, {name}: {why}")
    assert checked > 500  # the demo projects alone hold more answers than this
    assert problems == []


def test_every_label_is_an_answer_or_counted_in_a_note(exports: list[Export]) -> None:
    """Argilla answers + answers left out (named in notes) = the project's labels, as
    counted by its LangSmith export (a row per submitted label, the rest in notes)."""
    for export in _folders(exports, "annotations"):
        rows = pq.read_table(export.path / "records.parquet").to_pylist()
        answers = sum(len(v or []) for row in rows for k, v in row.items() if k.endswith("ses"))
        left_out = 0
        for note in export.notes:
            dropped = DROPPED.match(note)
            assert dropped or PARTIAL.match(note), note
            left_out += int(dropped[1]) if dropped else 0
        (smith,) = [
            e
            for e in exports
            if (e.project, e.format, e.what) == (export.project, "langsmith", "annotations")
        ]
        labels = smith.count + sum(int(m[1]) for n in smith.notes if (m := UNMARKED.match(n)))
        assert answers + left_out == labels, export.project


def test_record_fields_are_what_argilla_fields_take(exports: list[Export]) -> None:
    for export in _folders(exports, "items"):
        kinds = {f.name: type(f).__name__ for f in _settings(export).fields}
        for record, _ in _records(export):
            for name, value in record.api_model().fields.items():
                if kinds.get(name) == "TextField" and value is not None:
                    assert isinstance(value, str), (export.project, name, value)
                elif kinds.get(name) == "ChatField":
                    assert all(m.role and isinstance(m.content, str) for m in value)


def test_a_folder_reads_back_as_json_the_workbench_wrote(exports: list[Export]) -> None:
    """The users file names every user a response carries."""
    for export in _folders(exports, "annotations"):
        users = json.loads((Path(export.path) / "users.json").read_text(encoding="utf-8"))
        rows = pq.read_table(export.path / "records.parquet").to_pylist()
        seen = {u for row in rows for k, v in row.items() if k.endswith(".users") for u in v or []}
        assert seen <= set(users), export.project


ROOT = Path(__file__).resolve().parents[2]
SERVER_PYTHON = (
    Path(os.environ.get("ARGILLA_SERVER_VENV", str(ROOT / ".venv-argilla-server")))
    / "bin"
    / "python"
)


def test_every_answer_passes_argilla_servers_own_validator(
    exports: list[Export], tmp_path: Path
) -> None:
    """argilla-server 2.8.0's ``ResponseValueValidator`` (what its API runs on each
    response) takes every answer of every export, with the question settings as the
    client sends them and the record's fields for spans."""
    if not SERVER_PYTHON.exists():
        pytest.skip(
            f"no argilla-server venv at {SERVER_PYTHON.parent.parent} "
            "(build it: bash scripts/build_argilla_server_venv.sh)"
        )
    cases = []
    for export in _folders(exports, "annotations"):
        for record, settings in _records(export):
            payload = record.api_model()
            fields = {k: v for k, v in payload.fields.items() if v is not None}
            for response in payload.responses:
                for name, answer in (response.values or {}).items():
                    question = settings.questions[name].api_model()
                    cases.append(
                        {
                            "where": f"{export.project}, record {record.id}, {name}",
                            "settings": question.settings.model_dump(mode="json"),
                            "value": answer["value"],
                            "status": response.status.value,
                            "fields": fields,
                        }
                    )
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps(cases, default=str), encoding="utf-8")
    done = subprocess.run(
        [
            str(SERVER_PYTHON),
            str(Path(__file__).with_name("argilla_server_check.py")),
            str(answers),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["checked"] == len(cases) > 500
    assert result["refused"] == []


def test_hidden_item_fields_are_metadata_kept_from_annotators(exports: list[Export]) -> None:
    """The system behind an output (``generator``, hidden in every built-in kind) reaches
    Argilla as a metadata property annotators do not see, never as a field drawn for them;
    its value travels with each record."""
    seen = 0
    for export in _folders(exports, "items"):
        settings = _settings(export)
        hidden = {m.name: m for m in settings.metadata}
        assert not hidden.keys() & {f.name for f in settings.fields}, export.project
        assert all(not m.visible_for_annotators for m in hidden.values()), export.project
        rows = pq.read_table(export.path / "records.parquet").to_pylist()
        for (record, _), row in zip(_records(export), rows, strict=True):
            for name in hidden:
                if row.get(name) is not None:
                    assert record.metadata[name] == row[name], (export.project, name)
                    seen += 1
    assert seen  # the demos' items carry their generator
