"""The store on SQLite and PostgreSQL: idempotent labels, history, concurrency."""

from __future__ import annotations

import threading

import pytest

from annotation_store import Store, StoreError


def _binary_project(store: Store, n_items: int = 3, name: str = "p") -> None:
    store.create_project(name, "binary", {"k": 3})
    store.upsert_items(
        name, [{"item_id": f"i{i}", "fields": {"text": f"text {i}"}} for i in range(n_items)]
    )


def test_save_is_idempotent_and_history_keeps_every_change(any_store: Store) -> None:
    _binary_project(any_store)
    assert any_store.save_label("p", "i0", "ann", "label", "yes").action == "created"
    assert any_store.save_label("p", "i0", "ann", "label", 1).action == "unchanged"
    assert any_store.save_label("p", "i0", "ann", "label", "no").action == "updated"
    assert any_store.submit_item("p", "i0", "ann") == 1
    frame = any_store.annotations_frame("p")
    assert frame[["item_id", "annotator", "field", "value", "status"]].values.tolist() == [
        ["i0", "ann", "label", 0, "submitted"]
    ]
    history = any_store.history("p")
    assert history[["old_value", "new_value", "new_status"]].values.tolist() == [
        [None, 1, "draft"],
        [1, 0, "draft"],
        [0, 0, "submitted"],
    ]


def test_changing_a_submitted_label_keeps_the_old_value(any_store: Store) -> None:
    _binary_project(any_store)
    any_store.save_label("p", "i1", "ann", "label", 1)
    any_store.submit_item("p", "i1", "ann")
    any_store.save_label("p", "i1", "ann", "label", 0, status="submitted")
    hist = any_store.history("p", "i1")
    assert hist["old_value"].tolist()[-1] == 1 and hist["new_value"].tolist()[-1] == 0


def test_invalid_labels_are_refused_and_change_nothing(any_store: Store) -> None:
    _binary_project(any_store)
    version = any_store.data_version("p")
    with pytest.raises(ValueError):
        any_store.save_label("p", "i0", "ann", "label", "maybe")
    with pytest.raises(StoreError):
        any_store.save_label("p", "missing", "ann", "label", 1)
    assert any_store.data_version("p") == version
    assert any_store.annotations_frame("p", ("draft", "submitted")).empty


def _hammer(store: Store, workers: list[threading.Thread]) -> None:
    for w in workers:
        w.start()
    for w in workers:
        w.join()


def test_eight_threads_two_hundred_labels_each_lose_and_duplicate_nothing(any_store: Store) -> None:
    _binary_project(any_store, n_items=200)
    errors: list[BaseException] = []

    def annotate(worker: int) -> None:
        try:
            for i in range(200):
                for _retry in range(2):  # a double click or a retry saves twice
                    any_store.save_label("p", f"i{i}", f"ann{worker}", "label", (i + worker) % 2)
        except BaseException as exc:
            errors.append(exc)

    _hammer(any_store, [threading.Thread(target=annotate, args=(w,)) for w in range(8)])
    assert errors == []
    frame = any_store.annotations_frame("p", ("draft",))
    assert len(frame) == 8 * 200
    assert not frame.duplicated(["item_id", "annotator", "field"]).any()
    expected = {(f"i{i}", f"ann{w}"): (i + w) % 2 for w in range(8) for i in range(200)}
    assert {(r.item_id, r.annotator): r.value for r in frame.itertuples()} == expected
    assert len(any_store.history("p")) == 8 * 200  # second saves were no-ops


def test_racing_writers_on_the_same_labels_create_one_row_each(any_store: Store) -> None:
    _binary_project(any_store, n_items=50)
    barrier = threading.Barrier(8)
    errors: list[BaseException] = []

    def race(worker: int) -> None:
        barrier.wait()
        try:
            for i in range(50):
                any_store.save_label("p", f"i{i}", "shared", "label", 1)
        except BaseException as exc:
            errors.append(exc)

    _hammer(any_store, [threading.Thread(target=race, args=(w,)) for w in range(8)])
    assert errors == []
    frame = any_store.annotations_frame("p", ("draft",))
    assert len(frame) == 50
    assert len(any_store.history("p")) == 50


def test_projects_guidelines_and_counts(store: Store) -> None:
    _binary_project(store)
    with pytest.raises(StoreError, match="already exists"):
        store.create_project("p", "binary")
    assert store.update_guideline("p", "new text") == 2
    assert store.update_guideline("p", "new text") == 2
    store.save_label("p", "i0", "a", "label", 1)
    store.submit_item("p", "i0", "a")
    (summary,) = store.project_summaries()
    assert (summary.items, summary.annotators, summary.submitted_labels) == (3, 1, 1)
    store.delete_project("p")
    assert store.projects() == []


def test_data_version_changes_with_submitted_labels(store: Store) -> None:
    _binary_project(store)
    before = store.data_version("p")
    store.save_label("p", "i0", "a", "label", 1)
    assert store.data_version("p") == before  # a draft reaches no figure
    store.submit_item("p", "i0", "a")
    after = store.data_version("p")
    assert before != after
    store.save_label("p", "i0", "a", "label", 1, status="submitted")  # the same value again
    assert store.data_version("p") == after


def test_fact_lists_are_versioned_and_fixed_once(store: Store) -> None:
    store.create_project("im", "intent_match")
    store.upsert_items("im", [{"item_id": "x", "fields": {"gold": "g", "predicted": "p"}}])
    fields = store.set_item_fields("im", "x", {"gold_facts": ["a", "b"]}, source="bifact")
    assert fields["gold_facts"] == ["a", "b"]
    kept = store.set_item_fields("im", "x", {"gold_facts": ["other"]}, source="bifact")
    assert kept["gold_facts"] == ["a", "b"]
    store.set_item_fields(
        "im", "x", {"gold_facts": ["a", "b", "c"]}, only_if_missing=False, by="admin"
    )
    versions = store.fact_versions("im", "x")
    assert [(v["version"], v["source"], len(v["facts"])) for v in versions] == [
        (1, "bifact", 2),
        (2, "edit", 3),
    ]


def test_llm_cache_and_page_store_round_trip(any_store: Store) -> None:
    assert any_store.cache_get("k") is None
    any_store.cache_put("k", "m", {"messages": []}, {"text": "hi"})
    any_store.cache_put("k", "m", {"messages": []}, {"text": "other"})
    assert any_store.cache_get("k") == {"text": "hi"}
    any_store.page_put("http://x", {"status": 200})
    any_store.page_put("http://x", {"status": 404})
    assert any_store.page_get("http://x") == {"status": 404}


def test_sqlite_runs_in_wal_mode_with_a_busy_timeout(store: Store) -> None:
    with store.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() == 30000
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1


def test_unlabelled_facts_may_be_drafts_but_never_submitted(store: Store) -> None:
    store.create_project("im", "intent_match")
    store.upsert_items(
        "im",
        [{"item_id": "x", "fields": {"gold": "g", "predicted": "p", "gold_facts": ["a", "b"]}}],
    )
    assert store.save_label("im", "x", "ann", "gold_fact_labels", ["C", "?"]).action == "created"
    with pytest.raises(ValueError, match="every fact needs a label"):
        store.submit_item("im", "x", "ann")
    assert store.annotations_frame("im").empty  # nothing became submitted
    with pytest.raises(ValueError, match="every fact needs a label"):
        store.save_label("im", "x", "ann", "gold_fact_labels", ["C", "?"], status="submitted")
    store.save_label("im", "x", "ann", "gold_fact_labels", ["C", "M"])
    assert store.submit_item("im", "x", "ann") == 1


def test_head_revision_constant_matches_alembic(tmp_path) -> None:
    from alembic.script import ScriptDirectory

    from annotation_store import db

    cfg = db.alembic_config(f"sqlite:///{tmp_path / 'x.db'}")
    assert ScriptDirectory.from_config(cfg).get_current_head() == db.HEAD_REVISION


def test_reopening_a_migrated_database_skips_alembic(tmp_path) -> None:
    import subprocess
    import sys

    url = f"sqlite:///{tmp_path / 'w.db'}"
    Store(url).close()
    code = (
        "import sys; from annotation_store import Store, db; s = Store(sys.argv[1]); "
        "assert db.current_revision(s.engine) == db.HEAD_REVISION; "
        "print('alembic' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, url], capture_output=True, text=True, check=True, cwd="."
    )
    assert out.stdout.strip() == "False"
