"""``python cli.py study``: settings as JSON in and out, gold items, flags, completions."""

from __future__ import annotations

import json

import pytest

from annotation_store import Store
from commands import main


def run(db: str, *args: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["--db", db, *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def project(sqlite_url: str) -> str:
    store = Store(sqlite_url)
    store.create_project("p", "binary", {"k": 2})
    store.upsert_items("p", [{"item_id": f"i{i}", "fields": {"text": "x"}} for i in range(3)])
    store.close()
    return sqlite_url


def test_set_then_show_round_trips_and_a_token_is_made(project, tmp_path, capsys) -> None:
    path = tmp_path / "study.json"
    path.write_text(json.dumps({"crowd": True, "consent": "OK?", "gold_rate": 0.2}))
    assert run(project, "study", "p", "--set", str(path), capsys=capsys)[:2] == (
        0,
        "study settings of 'p' saved\n",
    )
    code, out, _ = run(project, "study", "p", "--show", capsys=capsys)
    shown = json.loads(out)
    assert code == 0 and shown["consent"] == "OK?" and shown["gold_rate"] == 0.2
    assert len(shown["token"]) >= 20


def test_bad_study_file_is_one_line_and_changes_nothing(project, tmp_path, capsys) -> None:
    path = tmp_path / "study.json"
    path.write_text('{"gold_rate": 2}')
    code, out, err = run(project, "study", "p", "--set", str(path), capsys=capsys)
    assert code != 0 and out == ""
    assert err.strip().endswith("study 'gold_rate' must be a number from 0 to 1, got 2")
    assert len(err.strip().splitlines()) == 1
    assert json.loads(run(project, "study", "p", "--show", capsys=capsys)[1]) == {}
    path.write_text("{not json")
    code, _, err = run(project, "study", "p", "--set", str(path), capsys=capsys)
    assert code != 0 and "not JSON" in err


def test_gold_flags_dashboard_and_completions(project, tmp_path, capsys) -> None:
    assert run(project, "study", "p", "--gold", "i1", "1", capsys=capsys)[1] == (
        'i1 is gold: {"label": 1}\n'
    )
    code, _, err = run(project, "study", "p", "--gold", "i2", '{"x": 1}', capsys=capsys)
    assert code != 0 and "gold names no field of this kind: 'x'" in err
    assert json.loads(run(project, "study", "p", "--flags", capsys=capsys)[1]) == []
    figures = json.loads(run(project, "study", "p", "--dashboard", capsys=capsys)[1])
    assert (figures["items"], figures["workers_started"]) == (2, 0)
    out_csv = tmp_path / "done.csv"
    run(project, "study", "p", "--completions", str(out_csv), capsys=capsys)
    assert out_csv.read_text().splitlines() == [
        "annotator,platform,worker_id,completion_code,flags,bonus_eligible"
    ]
    assert (
        run(project, "study", "p", "--ungold", "i1", capsys=capsys)[1] == "i1 is no longer gold\n"
    )
