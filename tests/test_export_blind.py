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
