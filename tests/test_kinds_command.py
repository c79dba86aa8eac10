"""``python cli.py kinds`` lists the declared kinds of the database after the built-in ones,
each under the name a new project would carry (its latest version)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from annotation_store import Store
from commands import main
from workbench_api.kinds import save_kind

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "kinds"


def test_declared_kinds_are_listed_with_their_questions(
    sqlite_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    store = Store(sqlite_url)
    text = (EXAMPLES / "error_spans.toml").read_text()
    save_kind(store, "spans", text)
    save_kind(store, "spans", text.replace('"style"', '"register"'))
    assert main(["--db", sqlite_url, "kinds", "--json"]) == 0
    rows = {k["name"]: k for k in json.loads(capsys.readouterr().out)}
    assert "binary" in rows  # the built-in kinds stay
    assert "decl:spans@1" not in rows
    assert rows["decl:spans@2"]["title"] == "Translation error spans"
    assert rows["decl:spans@2"]["item_fields"] == ["source", "translation"]
    assert rows["decl:spans@2"]["human_fields"] == {
        "has_errors": "binary",
        "errors": "spans",
        "severity": "categorical",
    }
    assert main(["--db", sqlite_url, "kinds"]) == 0
    text_out = capsys.readouterr().out
    assert "decl:spans@2: Translation error spans\n  items: source, translation\n" in text_out
