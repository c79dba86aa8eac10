"""Exports for annotation tools show annotators what the workbench's own page shows: the
system behind an output (``generator``) is kept in the task data but never drawn."""

from __future__ import annotations

import pandas as pd
import pytest

from annotation_store import Store
from interop.label_studio import label_config
from kinds import get_kind
from workbench_api import add_items

BUILTIN_WITH_GENERATOR = [
    "binary",
    "likert",
    "intent_match",
    "actionability",
    "intent_resolution",
    "dialogue_faithfulness",
]


@pytest.mark.parametrize("kind", BUILTIN_WITH_GENERATOR)
def test_builtin_kinds_declare_the_generator_hidden(kind: str) -> None:
    fields = {f.name: f for f in get_kind(kind).item_fields}
    assert fields["generator"].hidden and not fields["generator"].required


def test_label_studio_config_does_not_show_the_generator(store: Store) -> None:
    store.create_project("p", "likert", {"min": 1, "max": 5})
    add_items(
        store,
        "p",
        pd.DataFrame({"item_id": ["a"], "text": ["Hello."], "generator": ["model-x"]}),
    )
    config = label_config(store, "p")
    assert 'value="$text"' in config
    assert "generator" not in config


def test_argilla_settings_keep_the_generator_from_annotators(store: Store, tmp_path) -> None:
    import json

    from interop.argilla import settings, write
    from workbench_api import import_file

    store.create_project("p", "likert", {"min": 1, "max": 5})
    add_items(
        store,
        "p",
        pd.DataFrame({"item_id": ["a"], "text": ["Hello."], "generator": ["model-x"]}),
    )
    doc = settings(store, "p")
    assert [f["name"] for f in doc["fields"]] == ["text"]
    assert doc["metadata"] == [
        {
            "name": "generator",
            "title": "generator",
            "visible_for_annotators": False,
            "type": "terms",
            "settings": {"type": "terms", "values": None},
        }
    ]
    # the value travels with the record and comes back on import
    folder = tmp_path / "ds"
    write(store, "p", "items", folder)
    saved = json.loads((folder / ".argilla" / "settings.json").read_text(encoding="utf-8"))
    assert saved["metadata"][0]["name"] == "generator"
    store.create_project("q", "likert", {"min": 1, "max": 5})
    import_file(store, "q", "items", folder, "argilla")
    [item] = store.items("q")
    assert item.generator == "model-x" or item.fields.get("generator") == "model-x"
