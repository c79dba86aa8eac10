"""``Store.import_labels`` (bulk Core writes) on SQLite and PostgreSQL: the report, history,
progress, idempotence and all-or-nothing checks."""

from __future__ import annotations

from datetime import datetime

import pandas as pd
import pytest
from sqlalchemy import select

from annotation_store import Store, StoreError, label_import, label_stage
from annotation_store.models import Annotator, Item, ItemProgress


def _project(store: Store, n_items: int = 4) -> None:
    store.create_project("p", "binary", {"k": 3})
    store.upsert_items(
        "p", [{"item_id": f"i{i}", "fields": {"text": f"text {i}"}} for i in range(n_items)]
    )


def _row(item: str, who: str, value: int, status: str = "submitted") -> dict:
    return {"item_id": item, "annotator": who, "field": "label", "value": value, "status": status}


def _progress(store: Store) -> dict[tuple[str, str], tuple[str, bool]]:
    """(item, annotator) -> (status, whether submitted_at is set)."""
    with store.read() as s:
        rows = s.execute(
            select(Item.item_id, Annotator.name, ItemProgress.status, ItemProgress.submitted_at)
            .join(Item, Item.id == ItemProgress.item_pk)
            .join(Annotator, Annotator.id == ItemProgress.annotator_id)
        ).all()
    return {(item, who): (status, at is not None) for item, who, status, at in rows}


def _labels(store: Store) -> list[list]:
    frame = store.annotations_frame("p", ("draft", "submitted", "skipped"))
    return frame[["item_id", "annotator", "value", "status"]].values.tolist()


def test_import_writes_labels_history_and_progress(any_store: Store) -> None:
    _project(any_store)
    rows = [
        _row("i0", "ann", 1),
        _row("i1", "ann", 0, "draft"),
        _row("i2", "ann", 1, "skipped"),
        _row("i0", " bob ", 0),  # names are stripped
    ]
    report = any_store.import_labels("p", rows)
    assert (report.created, report.updated, report.unchanged) == (4, 0, 0)
    assert _labels(any_store) == [
        ["i0", "ann", 1, "submitted"],
        ["i0", "bob", 0, "submitted"],
        ["i1", "ann", 0, "draft"],
        ["i2", "ann", 1, "skipped"],
    ]
    history = any_store.history("p")
    assert history[
        ["item_id", "annotator", "old_value", "new_value", "new_status"]
    ].values.tolist() == [
        ["i0", "ann", None, 1, "submitted"],
        ["i1", "ann", None, 0, "draft"],
        ["i2", "ann", None, 1, "skipped"],
        ["i0", "bob", None, 0, "submitted"],
    ]
    assert set(history["source"]) == {"import"}
    assert _progress(any_store) == {
        ("i0", "ann"): ("submitted", True),
        ("i0", "bob"): ("submitted", True),
        ("i1", "ann"): ("draft", False),
        ("i2", "ann"): ("skipped", False),
    }
    assert {u.name: u.external for u in any_store.annotators()} == {"ann": True, "bob": True}


def test_a_reimport_changes_nothing_and_a_change_is_recorded(any_store: Store) -> None:
    _project(any_store)
    rows = [_row("i0", "ann", 1), _row("i1", "ann", 0), _row("i1", "bob", 1)]
    any_store.import_labels("p", rows)
    any_store.set_note("p", "i1", "ann", note="tricky", flagged=True)
    version = any_store.data_version("p")
    again = any_store.import_labels("p", rows)
    assert (again.created, again.updated, again.unchanged) == (0, 0, 3)
    assert any_store.data_version("p") == version
    assert len(any_store.history("p")) == 3

    changed = [_row("i0", "ann", 0), _row("i1", "ann", 0, "draft"), _row("i1", "bob", 1)]
    report = any_store.import_labels("p", changed, source="cli")
    assert (report.created, report.updated, report.unchanged) == (0, 2, 1)
    assert _labels(any_store) == [
        ["i0", "ann", 0, "submitted"],
        ["i1", "ann", 0, "draft"],
        ["i1", "bob", 1, "submitted"],
    ]
    tail = any_store.history("p").iloc[3:]
    assert tail[
        ["item_id", "old_value", "new_value", "old_status", "new_status", "source"]
    ].values.tolist() == [
        ["i0", 1, 0, "submitted", "submitted", "cli"],
        ["i1", 0, 0, "submitted", "draft", "cli"],
    ]
    progress = any_store.progress_frame("p").set_index(["item_id", "annotator"])
    assert progress.loc[("i1", "ann"), "status"] == "draft"  # follows its label
    assert progress.loc[("i1", "ann"), "note"] == "tricky"  # note and flag are kept
    assert bool(progress.loc[("i1", "ann"), "flagged"])
    assert progress.loc[("i1", "bob"), "status"] == "submitted"


def test_progress_follows_every_label_of_the_pair(any_store: Store) -> None:
    _project(any_store)
    any_store.save_label("p", "i0", "ann", "label", 1)  # a draft saved in the app
    report = any_store.import_labels("p", [_row("i1", "ann", 0), _row("i0", "bob", 1)])
    assert report.created == 2
    progress = any_store.progress_frame("p").set_index(["item_id", "annotator"])["status"]
    assert progress.to_dict() == {
        ("i0", "ann"): "draft",
        ("i1", "ann"): "submitted",
        ("i0", "bob"): "submitted",
    }


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (_row("nope", "ann", 1), "row 3: no item 'nope' in this project"),
        (_row("i2", "  ", 1), "row 3: the annotator name is empty"),
        (_row("i2", "ann", 1, "final"), "row 3: status must be one of"),
        (_row("i0", "ann", 0), "row 3: conflicts with row 1"),
        ({"item_id": "i2", "annotator": "x", "field": "label"}, "row 3: missing value, status"),
    ],
)
def test_one_bad_row_imports_nothing_and_is_named(
    any_store: Store, bad: dict, message: str
) -> None:
    _project(any_store)
    version = any_store.data_version("p")
    rows = [_row("i0", "ann", 1), _row("i1", "new-person", 1), bad, _row("i3", "ann", 1)]
    with pytest.raises(StoreError, match=message):
        any_store.import_labels("p", rows)
    assert any_store.data_version("p") == version
    assert _labels(any_store) == []
    assert any_store.history("p").empty
    assert any_store.progress_frame("p").empty
    with any_store.read() as s:
        assert s.scalars(select(Annotator.name)).all() == []


def test_a_row_repeated_exactly_counts_as_unchanged(any_store: Store) -> None:
    _project(any_store)
    report = any_store.import_labels("p", [_row("i0", "ann", 1), _row("i0", "ann", 1)])
    assert (report.created, report.updated, report.unchanged) == (1, 0, 1)
    assert len(any_store.history("p")) == 1


@pytest.mark.parametrize("staged", [True, False])
def test_chunks_keep_each_new_label_with_its_own_history(
    any_store: Store, monkeypatch: pytest.MonkeyPatch, staged: bool
) -> None:
    """Staged and moved in one transaction (SQLite, small imports) or chunked."""
    monkeypatch.setattr(label_import, "CHUNK", 7)  # many chunks from few rows
    monkeypatch.setattr(label_stage, "ATOMIC_LABELS", 10_000 if staged else 0)
    _project(any_store, n_items=20)
    statuses = ("submitted", "draft", "skipped")
    rows = [
        _row(f"i{i}", f"a{a}", (i * 3 + a) % 2, statuses[(i + a) % 3])
        for a in range(3)
        for i in range(20)
    ]
    assert any_store.import_labels("p", rows).created == 60
    labels = any_store.annotations_frame("p", statuses)
    history = any_store.history("p")
    assert len(history) == 60
    merged = labels.merge(history, on=["item_id", "annotator", "field"])
    assert len(merged) == 60
    assert (merged["value"] == merged["new_value"]).all()
    assert (merged["status"] == merged["new_status"]).all()
    with any_store.read() as s:
        progress = s.execute(select(ItemProgress.status, ItemProgress.submitted_at)).all()
    assert sorted(st for st, _ in progress) == sorted(r["status"] for r in rows)
    assert all(isinstance(at, datetime) == (st == "submitted") for st, at in progress)
    # Changing a third of them in chunks: updates land on the right labels.
    flipped = [dict(r, value=1 - r["value"]) if i % 3 == 0 else r for i, r in enumerate(rows)]
    report = any_store.import_labels("p", flipped)
    assert (report.created, report.updated, report.unchanged) == (0, 20, 40)
    got = {
        (r.item_id, r.annotator): r.value
        for r in any_store.annotations_frame("p", statuses).itertuples()
    }
    assert got == {(r["item_id"], r["annotator"]): r["value"] for r in flipped}


def test_a_reimport_of_any_json_value_is_unchanged(any_store: Store) -> None:
    """Existing values are read back in bulk (raw JSON text on SQLite) before comparing."""
    values = [["C", "M"], "some text", 0.25, None, True, {"k": [1, 2]}, "1"]
    _project(any_store, n_items=len(values))
    rows = [_row(f"i{i}", "ann", v, "draft") for i, v in enumerate(values)]
    assert any_store.import_labels("p", rows).created == len(values)
    again = any_store.import_labels("p", rows)
    assert (again.created, again.updated, again.unchanged) == (0, 0, len(values))
    changed = any_store.import_labels("p", [_row("i6", "ann", 1, "draft")])  # "1" -> 1
    assert (changed.created, changed.updated) == (0, 1)


def test_a_mixed_import_records_changes_then_new_labels(any_store: Store) -> None:
    """As with the ORM import before: history rows of changed labels come first."""
    _project(any_store)
    any_store.import_labels("p", [_row("i0", "ann", 1)])
    report = any_store.import_labels("p", [_row("i1", "ann", 1), _row("i0", "ann", 0)])
    assert (report.created, report.updated) == (1, 1)
    history = any_store.history("p")
    assert history[["item_id", "old_value", "new_value"]].values.tolist() == [
        ["i0", None, 1],
        ["i0", 1, 0],
        ["i1", None, 1],
    ]


def test_a_chunk_that_fails_undoes_the_chunks_before_it(
    any_store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On SQLite chunks commit one by one (short transactions); a failure in a later
    chunk takes back the earlier ones: labels, changed values, history, progress and the
    annotators the import created are as before. On PostgreSQL the chunks are one
    transaction: other sessions never see them, and the failure rolls it back."""
    monkeypatch.setattr(label_import, "CHUNK", 3)
    monkeypatch.setattr(label_stage, "ATOMIC_LABELS", 0)  # SQLite: the chunked path
    _project(any_store, n_items=8)
    any_store.import_labels("p", [_row("i0", "ann", 1), _row("i1", "ann", 0, "draft")])
    any_store.save_label("p", "i2", "ann", "label", 1, status="draft")
    before = (_labels(any_store), len(any_store.history("p")), _progress(any_store))
    real = label_import._insert_new
    calls: list[int] = []

    def third_chunk_fails(*args: object, **kwargs: object) -> None:
        calls.append(len(_labels(any_store)))  # what other sessions see by now
        if len(calls) == 3:
            raise RuntimeError("disk full")
        real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(label_import, "_insert_new", third_chunk_fails)
    rows = [_row("i0", "ann", 0), _row("i1", "ann", 1)]  # two changes
    rows += [_row(f"i{i}", who, 1) for i in range(3, 8) for who in ("ann", "newbie")]
    with pytest.raises(RuntimeError, match="disk full"):
        any_store.import_labels("p", rows)
    # SQLite: each chunk was committed on its own, then undone
    assert calls == ([3, 6, 9] if any_store.is_sqlite else [3, 3, 3])
    assert (_labels(any_store), len(any_store.history("p")), _progress(any_store)) == before
    with any_store.read() as s:
        assert s.scalars(select(Annotator.name)).all() == ["ann"]
    monkeypatch.setattr(label_import, "_insert_new", real)
    report = any_store.import_labels("p", rows)  # the same file again goes through
    assert (report.created, report.updated) == (10, 2)


def test_a_staged_import_that_fails_leaves_nothing_to_take_back(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SQLite, a small import: staged, then one transaction; a failure at its last
    statement rolls all of it back (changed values, new labels, history, progress, the
    annotators it created), and other sessions saw none of it meanwhile."""
    _project(store, n_items=8)
    store.import_labels("p", [_row("i0", "ann", 1), _row("i1", "ann", 0, "draft")])
    store.save_label("p", "i2", "ann", "label", 1, status="draft")
    before = (_labels(store), len(store.history("p")), _progress(store))
    real = label_stage.move_staged
    seen: list[object] = []

    def fails_after_moving(*args: object, **kwargs: object) -> None:
        real(*args, **kwargs)  # type: ignore[arg-type]
        seen.append((_labels(store), len(store.history("p")), _progress(store)))
        raise RuntimeError("disk full")

    monkeypatch.setattr(label_stage, "move_staged", fails_after_moving)
    rows = [_row("i0", "ann", 0), _row("i1", "ann", 1)]  # two changes
    rows += [_row(f"i{i}", who, 1) for i in range(3, 8) for who in ("ann", "newbie")]
    with pytest.raises(RuntimeError, match="disk full"):
        store.import_labels("p", rows)
    assert seen == [before]  # another session, inside the import's open transaction
    assert (_labels(store), len(store.history("p")), _progress(store)) == before
    with store.read() as s:
        assert s.scalars(select(Annotator.name)).all() == ["ann"]
    monkeypatch.setattr(label_stage, "move_staged", real)
    report = store.import_labels("p", rows)
    assert (report.created, report.updated) == (10, 2)
    assert len(store.history("p")) == before[1] + 12


def test_one_status_frame_equals_the_filtered_frame_of_several(any_store: Store) -> None:
    _project(any_store, n_items=6)
    statuses = ("submitted", "draft", "skipped")
    rows = [
        _row(f"i{i}", f"a{a}", i % 2, statuses[(i + a) % 3]) for a in range(2) for i in range(6)
    ]
    any_store.import_labels("p", rows)
    every = any_store.annotations_frame("p", statuses)
    for status in statuses:
        one = any_store.annotations_frame("p", (status,))
        expected = every[every["status"] == status].reset_index(drop=True)
        assert len(one) == 4
        assert one.dtypes.equals(expected.dtypes)
        pd.testing.assert_frame_equal(one, expected)
    assert any_store.annotations_frame("p", ("submitted", "submitted")).equals(
        any_store.annotations_frame("p", ("submitted",))
    )
