"""The Data page imports another tool's file with a field-name picker (the command line's
``--map``), and shows what the import left out."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from annotation_store import Store
from tests.support.apptest import open_app
from workbench_api import add_items

PEERS = Path(__file__).resolve().parent / "data" / "peers"


def test_a_langfuse_file_imports_with_its_names_mapped(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    store.create_project("p", "likert", {"min": 1, "max": 5, "k": 2})
    texts = ["i1", "i2", "i3", "i4"]
    add_items(store, "p", pd.DataFrame({"item_id": texts, "text": texts}))
    at = open_app(monkeypatch, store.url, page="pages/data.py", project="p")
    # the formats by the tools' own names, not the --format keys
    assert at.selectbox(key="foreign_format").options == [
        "Label Studio", "Argilla", "Langfuse", "LangSmith", "MTurk", "Prolific"
    ]  # fmt: skip
    at.selectbox(key="foreign_format").set_value("langfuse").run()
    scores = (PEERS / "langfuse" / "scores.json").read_bytes()
    at.file_uploader(key="foreign_upload_langfuse").set_value(
        ("scores.json", scores, "application/json")
    ).run()
    picker = at.selectbox(key="foreign_map_quality")
    assert picker.value == "(leave out)" and "label" in picker.options
    picker.set_value("label").run()
    at.button(key="foreign_import").click().run()
    assert not at.exception and not at.error
    assert [s.value for s in at.success] == [
        "annotations: 7 created, 0 updated, 0 unchanged",
        "scores: 4 created, 0 updated, 0 unchanged",
    ]
    assert len(store.annotations_frame("p", ("submitted",))) == 7


def test_a_hostile_upload_is_one_line(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    store.create_project("p", "likert", {"min": 1, "max": 5, "k": 2})
    at = open_app(monkeypatch, store.url, page="pages/data.py", project="p")
    at.selectbox(key="foreign_format").set_value("label-studio").run()
    at.file_uploader(key="foreign_upload_label-studio").set_value(
        ("tasks.json", b'[{"id": 1, "data": {"text": "caf\xe9"}}]', "application/json")
    ).run()
    assert not at.exception
    assert [e.value for e in at.error] == [
        "Nothing imported. tasks.json: not UTF-8 text (byte 32); save the file as UTF-8"
    ]
    assert store.items("p") == []
