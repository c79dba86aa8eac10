"""The Task kinds page: a bad definition is refused in place, a good one is previewed on
a real item and saved as a version; editing it saves the next version."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from annotation_store import Store
from tests.support.apptest import assert_ok, open_app

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "kinds"


def test_check_in_place_preview_and_save_versions(
    sqlite_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Store(sqlite_url)
    store.create_project("texts", "binary")
    store.upsert_items("texts", [{"item_id": "t1", "fields": {"text": "The sky is green."}}])
    at = open_app(monkeypatch, sqlite_url, page="pages/kinds.py", project="texts")
    good = (
        (EXAMPLES / "error_spans.toml").read_text().replace('name = "translation"', 'name = "text"')
    )
    good = good.replace('field = "translation"', 'field = "text"')
    at.text_input(key="kd_name").set_value("errs")
    at.text_area(key="kd_toml").set_value(good.replace('type = "spans"', 'type = "sorting"'))
    assert_ok(at.run())
    errors = [e.value for e in at.error]
    assert errors[-1].startswith("Not valid: questions[1].type: unknown type 'sorting'")
    assert errors[0].startswith("questions[1].type: unknown type")  # in place, on the form
    assert not any(b.key == "kd_save" for b in at.button)
    at.text_area(key="kd_toml").set_value(good)
    assert_ok(at.run())
    assert not at.error
    assert "The sky is green\\." in [m.value for m in at.markdown]  # the real item, previewed
    # the real Annotate view: the conditional questions wait for "yes"
    assert _choices(at) == {"yes", "no"}
    next(b for b in at.button if b.label == "yes" and b.key.startswith("opt::")).click()
    assert_ok(at.run())
    assert _choices(at) == {"yes", "no", "minor", "major", "critical"}
    assert any(b.key.endswith("::errors::add") for b in at.button)  # the span control
    assert store.annotations_frame("texts", ("draft", "submitted", "skipped")).empty
    at.button(key="kd_save").click()
    assert_ok(at.run())
    assert store.kind_record("errs").version == 1
    assert any("Saved decl:errs@1." in s.value for s in at.success)
    at.text_area(key="kd_toml").set_value(good.replace('"minor"', '"small"'))
    assert_ok(at.run())
    at.button(key="kd_save").click()
    assert_ok(at.run())
    assert [r.version for r in store.kind_versions("errs")] == [1, 2]


def _choices(at: object) -> set[str]:
    """Labels of the preview's choice buttons (keys as in the Annotate view), without the
    ``[1]`` digit hint the focused question's buttons carry."""
    buttons = at.button  # type: ignore[attr-defined]
    return {re.sub(r"^\[\d\] ", "", b.label) for b in buttons if (b.key or "").startswith("opt::")}
