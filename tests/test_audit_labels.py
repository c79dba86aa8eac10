"""Evaluator configuration labels on score frames, and the lazy module they use."""

from __future__ import annotations

import importlib

import pandas as pd

from audit.analysis import with_labels
from common.lazy import LazyModule


def test_with_labels_names_each_configuration_once_per_row() -> None:
    frame = pd.DataFrame(
        {
            "item_id": ["a", "a", "b", "b", "c", "c"],
            "evaluator": ["judge", "judge", "judge", "judge", "bleu", "bleu"],
            "model": ["gpt-x", "gpt-y", "gpt-x", "gpt-y", None, None],
            "signature": ["judge:1|p", "judge:1|p", "judge:1|p", "judge:1|p", None, None],
            "score": [1.0, 0.0, 0.5, 0.5, 0.2, 0.3],
        }
    )
    labelled = with_labels(frame)
    assert list(labelled["label"]) == [
        "judge@gpt-x",
        "judge@gpt-y",
        "judge@gpt-x",
        "judge@gpt-y",
        "bleu",
        "bleu",
    ]
    # the rows keep their order and values
    assert list(labelled["score"]) == list(frame["score"])


def test_with_labels_tells_signatures_apart() -> None:
    frame = pd.DataFrame(
        {
            "evaluator": ["judge", "judge"],
            "model": ["m", "m"],
            "signature": ["judge:1|prompt:aa", "judge:2|prompt:bb"],
        }
    )
    assert list(with_labels(frame)["label"]) == ["judge v1", "judge v2"]


def test_lazy_module_imports_once(monkeypatch) -> None:
    calls: list[str] = []
    real = importlib.import_module

    def counting(name: str, *args: object) -> object:
        calls.append(name)
        return real(name, *args)

    monkeypatch.setattr(importlib, "import_module", counting)
    lazy = LazyModule("json")
    assert lazy.dumps([1]) == "[1]"
    assert lazy.loads("2") == 2
    assert calls == ["json"]


def test_annotations_frame_of_one_item_is_that_items_rows(demo: str) -> None:
    from annotation_store import Store

    store = Store(demo)
    try:
        whole = store.annotations_frame("demo-intent-match", ("submitted",))
        item = str(whole["item_id"].iloc[-1])
        one = store.annotations_frame("demo-intent-match", ("submitted",), item_id=item)
        expected = whole[whole["item_id"] == item].reset_index(drop=True)
        pd.testing.assert_frame_equal(one.reset_index(drop=True), expected, check_categorical=False)
        assert len(one) > 0
        assert store.annotations_frame("demo-intent-match", item_id="no-such-item").empty
    finally:
        store.close()
