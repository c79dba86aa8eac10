"""Other tools' formats: round trips with values unchanged, and one bad record imports nothing.

Files come from the tool's own library where it installs without pain (Argilla's layout
through the ``datasets`` package's writers); Label Studio, Potato, Langfuse and LangSmith
files are written here from their documented schemas (see each ``interop`` module).
"""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from annotation_store import Store
from commands import main
from demo.loading import load_demo
from interop.importing import ImportFailure
from workbench_api import add_items, export_file, import_file, items_frame

DEMO = ("demo-actionability", "demo-dialogue", "demo-intent-match", "demo-intent-resolution")


def labels(store: Store, project: str, statuses=("submitted", "skipped")) -> list[tuple]:
    df = store.annotations_frame(project, statuses)
    return sorted(
        (r.item_id, r.annotator, r.field, json.dumps(r.value), r.status) for r in df.itertuples()
    )


def items(store: Store, project: str) -> list[tuple]:
    return sorted(
        (i.item_id, json.dumps(i.fields, sort_keys=True), i.split) for i in store.items(project)
    )


def scores(store: Store, project: str) -> list[tuple]:
    df = store.scores_frame(project)
    return sorted(
        (
            r.item_id,
            r.evaluator,
            r.field,
            r.score,
            r.model if isinstance(r.model, str) else None,
            r.run_index,
        )
        for r in df.itertuples()
    )


def twin(store: Store, project: str, suffix: str = "copy", with_items: bool = False) -> str:
    info = store.project(project)
    name = f"{project}-{suffix}"
    store.create_project(name, info.kind, info.settings)
    if with_items:
        add_items(store, name, items_frame(store, project))
    return name


@pytest.fixture
def demo(store: Store) -> Store:
    load_demo(store)
    return store


# -- round trips ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("fmt", "suffix"),
    [("label-studio", ".json"), ("argilla", ".parquet"), ("argilla", ".jsonl"), ("argilla", "")],
)
def test_items_and_labels_round_trip(demo: Store, tmp_path: Path, fmt: str, suffix: str) -> None:
    for project in DEMO:
        out = tmp_path / f"{project}{suffix}"
        export_file(demo, project, "annotations", out, fmt)
        copy = twin(demo, project, fmt + suffix.strip("."))
        reports = import_file(demo, copy, "annotations", out, fmt)
        assert set(reports) - {"scores"} == {"items", "annotations"}
        assert items(demo, copy) == items(demo, project)
        assert labels(demo, copy) == labels(demo, project) != []
        again = import_file(demo, copy, "annotations", out, fmt)  # idempotent
        assert again["annotations"].created == again["annotations"].updated == 0


def test_potato_round_trip(demo: Store, tmp_path: Path) -> None:
    for project in DEMO:
        out = tmp_path / project
        export_file(demo, project, "annotations", out, "potato")
        people = sorted(p.name for p in out.iterdir() if p.is_dir())
        assert people == ["demo-annotator-1", "demo-annotator-2", "demo-annotator-3"]
        assert (out / "annotations.jsonl").is_file()
        copy = twin(demo, project, "potato", with_items=True)
        import_file(demo, copy, "annotations", out, "potato")
        assert labels(demo, copy) == labels(demo, project, ("submitted",))
        from_export = twin(demo, project, "potato-jsonl", with_items=True)
        import_file(demo, from_export, "annotations", out / "annotations.jsonl", "potato")
        assert labels(demo, from_export) == labels(demo, project, ("submitted",))


def test_potato_export_keeps_hostile_annotator_names_inside_out(
    store: Store, tmp_path: Path
) -> None:
    store.create_project("lk", "likert", {"min": 1, "max": 5, "k": 2})
    add_items(store, "lk", pd.DataFrame({"item_id": ["a"], "text": ["t"]}))
    names = ["../../escaped", "/tmp/absolute", "..", "sub/dir", "ok"]
    rows = pd.DataFrame({"item_id": "a", "annotator": names, "field": "label", "value": 3})
    rows.loc[len(rows)] = {"item_id": "a", "annotator": "drafty", "field": "label", "value": 2}
    rows["status"] = ["submitted"] * len(names) + ["draft"]
    import_file(store, "lk", "annotations", _jsonl(tmp_path / "l.jsonl", rows))
    out = tmp_path / "box" / "potato"
    notes: list[str] = []
    assert export_file(store, "lk", "annotations", out, "potato", notes=notes) == 5
    written = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())
    assert written == [
        "%2E%2E/user_state.json",
        "%2Ftmp%2Fabsolute/user_state.json",
        "..%2F..%2Fescaped/user_state.json",
        "annotations.jsonl",
        "ok/user_state.json",
        "sub%2Fdir/user_state.json",
    ]
    assert not (tmp_path / "escaped").exists() and not (tmp_path / "box" / "sub").exists()
    assert not Path("/tmp/absolute/user_state.json").exists()
    assert notes == ["1 draft labels not exported (Potato keeps no draft labels)"]
    states = [json.loads(p.read_text()) for p in out.glob("*/user_state.json")]
    assert sorted(s["user_id"] for s in states) == sorted(names)
    assert {json.dumps(s["instance_id_to_label_to_value"]) for s in states} == {
        json.dumps({"a": [[{"schema": "label", "name": "3"}, "3"]]})
    }
    copy = twin(store, "lk", with_items=True)
    import_file(store, copy, "annotations", out, "potato")
    assert labels(store, copy) == labels(store, "lk", ("submitted",))


@pytest.mark.parametrize("fmt", ["langfuse", "langsmith"])
@pytest.mark.parametrize("suffix", [".json", ".jsonl", ".csv"])
def test_score_exports_round_trip(demo: Store, tmp_path: Path, fmt: str, suffix: str) -> None:
    for project in ("demo-actionability", "demo-intent-match", "demo-intent-resolution"):
        copy = twin(demo, project, f"{fmt}{suffix}", with_items=True)
        for what, read in (("scores", scores), ("annotations", labels)):
            out = tmp_path / f"{project}-{what}{suffix}"
            export_file(demo, project, what, out, fmt)
            import_file(demo, copy, what, out, fmt)
            assert read(demo, copy) == read(demo, project) != []


# -- files written by the tools (or from their documented schema) --------------------------
def test_label_studio_export_with_several_annotators(store: Store, tmp_path: Path) -> None:
    store.create_project("lk", "likert", {"min": 1, "max": 5, "k": 2})
    store.create_project("cat", "categorical", {"labels": ["good", "bad"]})
    tasks = [
        {
            "id": 11,
            "data": {"item_id": "a", "text": "first"},
            "annotations": [
                {"id": 1, "completed_by": 7, "result": [_rating(4)]},
                {"id": 2, "completed_by": {"id": 8, "email": "ann@x.org"}, "result": [_rating(2)]},
            ],
        },
        {
            "id": 12,
            "data": {"text": "second"},
            "annotations": [{"completed_by": 7, "result": [_rating(5)]}],
        },
    ]
    path = tmp_path / "ls.json"
    path.write_text(json.dumps(tasks))
    import_file(store, "lk", "annotations", path, "label-studio")
    assert [(i.item_id, i.fields["text"]) for i in store.items("lk")] == [
        ("a", "first"),
        ("12", "second"),
    ]
    assert labels(store, "lk") == [
        ("12", "ls-user-7", "label", "5", "submitted"),
        ("a", "ann@x.org", "label", "2", "submitted"),
        ("a", "ls-user-7", "label", "4", "submitted"),
    ]
    choice = {
        "from_name": "label",
        "to_name": "text",
        "type": "choices",
        "value": {"choices": ["bad"]},
    }
    path.write_text(
        json.dumps(
            [
                {
                    "id": 1,
                    "data": {"text": "t"},
                    "annotations": [{"completed_by": 3, "result": [choice]}],
                }
            ]
        )
    )
    import_file(store, "cat", "annotations", path, "label-studio")
    assert labels(store, "cat") == [("1", "ls-user-3", "label", '"bad"', "submitted")]


def _rating(n: int) -> dict[str, Any]:
    return {"from_name": "label", "to_name": "text", "type": "rating", "value": {"rating": n}}


def test_argilla_records_written_by_datasets(store: Store, tmp_path: Path) -> None:
    from datasets import Dataset

    store.create_project("fa", "binary", {"k": 2})
    records = Dataset.from_dict(
        {
            "id": ["r1", "r2"],
            "text": ["the sky is blue", "water is dry"],
            "status": ["completed", "completed"],
            "label.responses": [["yes", "yes"], ["no", "yes"]],
            "label.responses.users": [["u1", "u2"], ["u1", "u2"]],
            "label.responses.status": [["submitted", "submitted"], ["submitted", "draft"]],
        }
    )
    path = tmp_path / "records.parquet"
    records.to_parquet(str(path))
    import_file(store, "fa", "annotations", path, "argilla")
    assert [(i.item_id, i.fields) for i in store.items("fa")] == [
        ("r1", {"text": "the sky is blue"}),
        ("r2", {"text": "water is dry"}),
    ]
    assert labels(store, "fa", ("submitted", "draft")) == [
        ("r1", "u1", "label", "1", "submitted"),
        ("r1", "u2", "label", "1", "submitted"),
        ("r2", "u1", "label", "0", "submitted"),
        ("r2", "u2", "label", "1", "draft"),
    ]


def test_langfuse_scores_are_routed_by_source(store: Store, tmp_path: Path) -> None:
    """EVAL / API scores are a model's (evaluator scores), ANNOTATION ones a person's
    (labels): one trace holding both does not collide, and a file imported as scores
    says how many human scores it left out."""
    store.create_project("ir", "intent_resolution")
    add_items(
        store,
        "ir",
        pd.DataFrame({"item_id": ["t1", "t2"], "query": ["q1", "q2"], "response": ["r1", "r2"]}),
    )
    eval_score = {
        "id": "s1",
        "traceId": "t1",
        "name": "resolution",
        "value": 0.8,
        "dataType": "NUMERIC",
        "source": "EVAL",
        "metadata": {"evaluator": "judge", "judge_model": "m"},
    }
    api_score = {**eval_score, "id": "s3", "traceId": "t2", "value": 0.2, "source": "API"}
    api_score["metadata"] = {}
    human = {
        "id": "s2",
        "traceId": "t1",
        "name": "resolution",
        "value": 0.4,
        "dataType": "NUMERIC",
        "source": "ANNOTATION",
        "authorUserId": "kim",
    }
    export = {"data": [eval_score, human, api_score], "meta": {"page": 1, "totalItems": 3}}
    path = tmp_path / "scores.json"
    path.write_text(json.dumps(export))
    reports = import_file(store, "ir", "scores", path, "langfuse")
    assert scores(store, "ir") == [
        ("t1", "judge", "resolution", 0.8, "m", 0),
        ("t2", "langfuse", "resolution", 0.2, None, 0),
    ]
    assert labels(store, "ir") == []
    assert reports["scores"].notes == [
        "1 labels in the file not imported (import the file as annotations to bring them in)"
    ]
    reports = import_file(store, "ir", "annotations", path, "langfuse")
    assert labels(store, "ir") == [("t1", "kim", "resolution", "0.4", "submitted")]
    assert reports["scores"].unchanged == 2 and reports["annotations"].created == 1


def test_langsmith_feedback_as_labels(store: Store, tmp_path: Path) -> None:
    store.create_project("fa", "binary")
    add_items(store, "fa", pd.DataFrame({"item_id": ["run-1"], "text": ["t"]}))
    feedback = {
        "id": "f1",
        "run_id": "run-1",
        "trace_id": "trace-1",
        "key": "label",
        "score": True,
        "comment": None,
        "feedback_source": {"type": "app", "user_id": "u-9", "user_name": "lee", "metadata": {}},
    }
    path = tmp_path / "feedback.jsonl"
    path.write_text(json.dumps(feedback) + "\n")
    import_file(store, "fa", "annotations", path, "langsmith")
    assert labels(store, "fa") == [("run-1", "lee", "label", "1", "submitted")]


# -- one bad record: nothing imported, the record named --------------------------------------
BAD_CASES = {
    "label-studio": (
        "ls.json",
        [
            {
                "id": 1,
                "data": {"text": "a"},
                "annotations": [{"completed_by": 1, "result": [_rating(3)]}],
            },
            {
                "id": 2,
                "data": {"text": "b"},
                "annotations": [{"completed_by": 1, "result": [_rating(9)]}],
            },
        ],
        "ls.json, task 2 (id 2), annotation 1, result 'label', column 'value': 9 is not one of",
    ),
    "langfuse": (
        "lf.json",
        [
            {"id": "s1", "traceId": "1", "name": "label", "value": 3, "authorUserId": "a"},
            {"id": "s2", "traceId": "1", "name": "labl", "value": 3, "authorUserId": "a"},
        ],
        "lf.json, score 2 (id s2), column 'field': unknown field 'labl'",
    ),
    "langsmith": (
        "ls.jsonl",
        [
            {
                "id": "f1",
                "run_id": "1",
                "key": "label",
                "score": 2,
                "feedback_source": {"user_name": "a"},
            },
            {
                "id": "f2",
                "run_id": "9",
                "key": "label",
                "score": 2,
                "feedback_source": {"user_name": "a"},
            },
        ],
        "ls.jsonl, feedback 2 (id f2), column 'item_id': no item '9'",
    ),
}


@pytest.mark.parametrize("fmt", sorted(BAD_CASES))
def test_one_bad_record_imports_nothing(store: Store, tmp_path: Path, fmt: str) -> None:
    name, records, message = BAD_CASES[fmt]
    store.create_project("lk", "likert", {"min": 1, "max": 5})
    if fmt != "label-studio":
        add_items(store, "lk", pd.DataFrame({"item_id": ["1"], "text": ["t"]}))
    path = tmp_path / name
    if name.endswith(".jsonl"):
        path.write_text("".join(json.dumps(r) + "\n" for r in records))
    else:
        path.write_text(json.dumps(records))
    before = (items(store, "lk"), labels(store, "lk"))
    with pytest.raises(ImportFailure) as caught:
        import_file(store, "lk", "annotations", path, fmt)
    assert str(caught.value).startswith(message)
    assert (items(store, "lk"), labels(store, "lk")) == before


def test_bad_potato_and_argilla_records_import_nothing(demo: Store, tmp_path: Path) -> None:
    copy = twin(demo, "demo-dialogue", "bad", with_items=True)
    out = tmp_path / "potato"
    export_file(demo, "demo-dialogue", "annotations", out, "potato")
    state_file = out / "demo-annotator-2" / "user_state.json"
    state = json.loads(state_file.read_text())
    instance = sorted(state["instance_id_to_label_to_value"])[3]
    pairs = state["instance_id_to_label_to_value"][instance]
    pairs.append([{"schema": "faithful", "name": "maybe"}, "maybe"])
    state_file.write_text(json.dumps(state))
    with pytest.raises(
        ImportFailure,
        match=re.escape(
            f"potato, user folder 'demo-annotator-2', instance {instance!r}, scheme 'faithful': "
            "expected one chosen label, found 2"
        ),
    ):
        import_file(demo, copy, "annotations", out, "potato")
    assert labels(demo, copy) == []

    from datasets import Dataset

    target = twin(demo, "demo-dialogue", "bad-argilla")
    rows = Dataset.from_parquet(str(_argilla(demo, tmp_path))).to_list()
    rows[5]["faithful.responses.users"] = rows[5]["faithful.responses.users"][:1]
    path = tmp_path / "broken.parquet"
    Dataset.from_list(rows).to_parquet(str(path))
    with pytest.raises(
        ImportFailure, match=r"broken.parquet, record 6 \(id .*\), question 'faithful'"
    ):
        import_file(demo, target, "annotations", path, "argilla")
    assert items(demo, target) == [] and labels(demo, target) == []


def _argilla(store: Store, tmp_path: Path) -> Path:
    path = tmp_path / "argilla.parquet"
    export_file(store, "demo-dialogue", "annotations", path, "argilla")
    return path


# -- the command line and the agreement bundle ------------------------------------------------
def test_cli_format_option(sqlite_url: str, tmp_path: Path, capsys) -> None:
    assert main(["--db", sqlite_url, "demo"]) == 0
    out = tmp_path / "tasks.json"
    assert (
        main(
            [
                "--db",
                sqlite_url,
                "export",
                "annotations",
                "demo-intent-match",
                "--out",
                str(out),
                "--format",
                "label-studio",
            ]
        )
        == 0
    )
    assert main(["--db", sqlite_url, "project", "create", "im", "--kind", "intent_match"]) == 0
    capsys.readouterr()
    assert (
        main(
            [
                "--db",
                sqlite_url,
                "import",
                "annotations",
                "im",
                str(out),
                "--format",
                "label-studio",
            ]
        )
        == 0
    )
    assert capsys.readouterr().out.splitlines() == [
        "items: 6 created, 0 updated, 0 unchanged",
        "annotations: 54 created, 0 updated, 0 unchanged",
        "scores: 6 created, 0 updated, 0 unchanged",
    ]
    code = main(
        [
            "--db",
            sqlite_url,
            "export",
            "items",
            "im",
            "--out",
            str(tmp_path / "p"),
            "--format",
            "potato",
        ]
    )
    assert code == 2
    assert capsys.readouterr().err == "error: potato export holds annotations, not items\n"


def test_agreement_bundle_loads_in_one_line(sqlite_url: str, tmp_path: Path, capsys) -> None:
    assert main(["--db", sqlite_url, "demo"]) == 0
    out = tmp_path / "bundle"
    args = ["--db", sqlite_url, "export", "agreement", "demo-actionability", "--out", str(out)]
    assert main([*args, "--resamples", "0"]) == 0
    agreement = pd.read_parquet(out / "agreement.parquet")
    row = agreement.query(
        "field == 'errors_detected' and statistic == 'krippendorff_alpha' and level == 'ordinal'"
    )
    assert row["value"].round(12).tolist() == [0.919230769231]  # as `agreement --json` prints
    fingract = agreement.query("subject == 'fingract (demo)' and statistic == 'pearson'")
    assert fingract["value"].round(12).tolist() == [0.968020450901] and fingract["n"].tolist() == [
        5
    ]
    disagreements = pd.read_parquet(out / "disagreements.parquet")
    assert disagreements.groupby("field").size().to_dict() == {
        "actionability": 5,
        "errors_corrected": 5,
        "errors_detected": 5,
        "sources": 5,
    }
    audit_csv = tmp_path / "audit.csv"
    assert main(["--db", sqlite_url, "audit", "demo-actionability", "--out", str(audit_csv)]) == 0
    audit = pd.read_csv(audit_csv)
    same_field = disagreements.query("field == 'actionability'")
    assert same_field["item_id"].tolist() == audit["item_id"].tolist()
    assert same_field["category"].tolist() == audit["category"].tolist()
    from_csv = pd.read_csv(out / "agreement.csv")
    pd.testing.assert_series_equal(from_csv["value"].round(9), agreement["value"].round(9))
    # the rows of the document: every declared measure, undefined ones with their reason
    # (a question type's own measures declared unlisted appear only for that type)
    from agreement.measures import measures

    assert {(m.section, m.key) for m in measures() if m.listed} == set(
        zip(agreement["section"], agreement["statistic"], strict=True)
    )
    f1 = agreement.query("subject == 'geval (demo)' and statistic == 'f1'").iloc[0]
    assert (
        pd.isna(f1["value"]) and f1["reason"] == "no binary human field to compare decisions with"
    )
    icc = agreement.query("field == 'actionability' and statistic == 'icc_a_1'").iloc[0]
    assert round(icc["value"], 9) == 0.951070336 and icc["n"] == 5
    own = agreement.query("subject == 'geval (demo)' and statistic == 'over_own'").iloc[0]
    assert (own["value"], own["n"], round(own["p"], 9)) == (2.0, 3, 0.4)


def test_cli_map_renames_their_names_to_our_fields(sqlite_url: str, tmp_path: Path, capsys) -> None:
    path = tmp_path / "feedback.jsonl"
    rows = [
        {"id": f"f{n}", "run_id": item, "key": "correct", "score": score, "feedback_source": src}
        for n, (item, score, src) in enumerate(
            [
                ("r1", 1, {"type": "app", "user_name": "lee"}),
                ("r1", 0.9, {"type": "model", "metadata": {"evaluator": "gpt"}}),
            ]
        )
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    db = ["--db", sqlite_url]
    assert main([*db, "project", "create", "fa", "--kind", "binary"]) == 0
    items_csv = tmp_path / "items.csv"
    items_csv.write_text("item_id,text\nr1,hello\n")
    assert main([*db, "import", "items", "fa", str(items_csv)]) == 0
    capsys.readouterr()
    cmd = [*db, "import", "annotations", "fa", str(path), "--format", "langsmith"]
    assert main(cmd) == 2
    assert "unknown field 'correct'" in capsys.readouterr().err
    assert main([*cmd, "--map", "correct=label"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "annotations: 1 created, 0 updated, 0 unchanged",
        "scores: 1 created, 0 updated, 0 unchanged",
    ]
    assert main([*cmd, "--map", "correct"]) == 2
    assert "use their_name=our_field" in capsys.readouterr().err


@pytest.mark.parametrize("fmt", ["langfuse", "langsmith"])
def test_score_csv_exports_neutralise_formulas(store: Store, tmp_path: Path, fmt: str) -> None:
    store.create_project("c", "categorical", {"labels": ["=HYPERLINK(1)", "@x", "-2+3"]})
    add_items(store, "c", pd.DataFrame({"item_id": ["a"], "text": ["t"]}))
    rows = pd.DataFrame(
        {"item_id": "a", "annotator": ["=bad", "ok"], "field": "label", "value": ["@x", "-2+3"]}
    )
    import_file(store, "c", "annotations", _jsonl(tmp_path / "l.jsonl", rows))
    out = tmp_path / "labels.csv"
    export_file(store, "c", "annotations", out, fmt)
    cells = [c for row in csv.reader(out.read_text().splitlines()) for c in row]
    assert "'@x" in cells and "'-2+3" in cells
    assert not [c for c in cells if c.startswith(("=", "+", "-", "@"))]


def _jsonl(path: Path, df: pd.DataFrame) -> Path:
    df.to_json(path, orient="records", lines=True)
    return path
