"""study_inputs.shared: a project's inputs read once per data version and settings."""

from __future__ import annotations

import threading
from typing import Any

import pytest

import study_inputs.load
from annotation_store import Store
from study_inputs.shared import SharedInputs


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """Every load_inputs call (project, reference method); each returns a new object."""
    calls: list[tuple[str, str]] = []

    def fake(store: Store, project: str, *, reference_method: str = "majority") -> Any:
        calls.append((project, reference_method))
        return object()

    monkeypatch.setattr(study_inputs.load, "load_inputs", fake)
    return calls


def test_one_read_per_version_settings_and_reference(
    store: Store, reads: list[tuple[str, str]]
) -> None:
    store.create_project("p", "binary")
    shared = SharedInputs(max_entries=3)
    first = shared.get(store, "p", "v1")
    assert shared.get(store, "p", "v1") is first
    assert reads == [("p", "majority")]
    # a new data version reads again; the reference method is part of the key
    assert shared.get(store, "p", "v2") is not first
    assert shared.get(store, "p", "v2", "mace") is not shared.get(store, "p", "v2")
    assert reads == [("p", "majority"), ("p", "majority"), ("p", "mace")]
    # changed settings (exclusions, checks) read again at the same data version
    store.update_settings("p", {**store.project("p").settings, "instructions": "new"})
    shared.get(store, "p", "v2")
    assert len(reads) == 4


def test_at_most_max_entries_are_kept(store: Store, reads: list[tuple[str, str]]) -> None:
    store.create_project("p", "binary")
    shared = SharedInputs(max_entries=2)
    v1 = shared.get(store, "p", "v1")
    shared.get(store, "p", "v2")
    assert shared.get(store, "p", "v1") is v1  # v1 is now the most recently used
    shared.get(store, "p", "v3")  # drops v2, the least recently used
    assert len(shared) == 2
    assert shared.get(store, "p", "v1") is v1
    assert len(reads) == 3
    shared.get(store, "p", "v2")
    assert len(reads) == 4  # v2 was read again
    shared.clear()
    assert len(shared) == 0


def test_a_read_under_way_is_waited_for_not_repeated(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    store.create_project("p", "binary")
    started, release = threading.Event(), threading.Event()
    calls: list[str] = []

    def slow(store: Store, project: str, *, reference_method: str = "majority") -> Any:
        calls.append(project)
        started.set()
        assert release.wait(10)
        return object()

    monkeypatch.setattr(study_inputs.load, "load_inputs", slow)
    shared = SharedInputs()
    got: list[Any] = []
    first = threading.Thread(target=lambda: got.append(shared.get(store, "p", "v1")))
    first.start()
    assert started.wait(10)
    second = threading.Thread(target=lambda: got.append(shared.get(store, "p", "v1")))
    second.start()
    release.set()
    first.join(10)
    second.join(10)
    assert calls == ["p"]
    assert len(got) == 2 and got[0] is got[1]


def test_figures_from_shared_inputs_equal_a_fresh_read(demo: str) -> None:
    """The Estimates and Alignment figures from one shared read are the ones each
    computes from its own read, and the shared frames are left as they were read."""
    import pandas as pd

    from alignment.inputs import load_field
    from alignment.table import alignment_table
    from workbench_api.estimates import estimate, estimate_choices

    store = Store(demo)
    name = "demo-intent-match"
    shared = SharedInputs()
    inputs = shared.get(store, name, store.data_version(name))
    before = inputs.annotations.copy()
    choices = estimate_choices(store, name)
    assert estimate_choices(store, name, inputs) == choices
    field = next(iter(choices))
    judge = choices[field][-1]
    own = estimate(store, name, field, judge, by_generator=True, target=0.05)
    mine = estimate(store, name, field, judge, by_generator=True, target=0.05, inputs=inputs)
    assert mine == own
    table = alignment_table(store, name, None, n_resamples=50)
    from_shared = alignment_table(
        store, name, None, n_resamples=50, inputs=load_field(store, name, None, inputs)
    )
    assert from_shared == table
    pd.testing.assert_frame_equal(inputs.annotations, before)
    store.close()
