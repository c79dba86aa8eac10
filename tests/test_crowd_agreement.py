"""Agreement over a crowd batch: 1,400 items x 5 ratings of ~280 workers (MTurk's shape).

Above 30 annotators Cohen's pairs are summarised, not listed: the summary's mean, n
and weakest pairs must be those of the full list (``--pairs``) restricted to the pairs
sharing ``min_pair_overlap`` items, and the document stays small and its lines short.
"""

from __future__ import annotations

import json

import pytest

from annotation_store import Store
from bench.crowd_agreement import PROJECT, crowd_batch
from reports.formats import portable_floats
from reports.text import document_text
from workbench_api.analysis import agreement


@pytest.fixture(scope="module")
def crowd(tmp_path_factory: pytest.TempPathFactory) -> Store:
    store = Store(f"sqlite:///{tmp_path_factory.mktemp('crowd') / 'wb.db'}")
    store.create_project(PROJECT, "likert", {"k": 5})
    items, labels = crowd_batch()
    store.upsert_items(PROJECT, items)
    store.import_labels(PROJECT, [{k: v for k, v in r.items() if k != "seconds"} for r in labels])
    return store


def test_summary_is_the_full_pair_list_summarised(crowd: Store) -> None:
    summary = agreement(crowd, PROJECT, resamples=0, timeline=False).to_dict()
    full = agreement(crowd, PROJECT, resamples=0, timeline=False, pairs=True).to_dict()
    s, f = summary["fields"]["label"], full["fields"]["label"]
    assert "cohen_kappa_pairs" not in s and "cohen_kappa_pairs_linear" not in s
    stats = s["cohen_kappa_pair_stats"]
    n_people = f["n_annotators"]
    assert stats["annotators"] == n_people > 30
    assert stats["pairs"] == len(f["cohen_kappa_pairs"]) == n_people * (n_people - 1) // 2
    kept = {
        k: v
        for k, v in f["cohen_kappa_pairs"].items()
        if f["cohen_kappa_pairs_n"][k] >= f["cohen_kappa_min_overlap"]
    }
    defined = {k: v for k, v in kept.items() if v is not None}
    assert stats["pairs_kept"] == len(kept)
    assert stats["pairs_defined"] == len(defined)
    assert stats["pairs_sharing_items"] == sum(1 for n in f["cohen_kappa_pairs_n"].values() if n)
    assert s["cohen_kappa_mean"] == pytest.approx(f["cohen_kappa_mean"], abs=1e-12)
    assert stats["mean"] == pytest.approx(sum(defined.values()) / len(defined), abs=1e-12)
    weakest = sorted(defined.items(), key=lambda kv: (kv[1], kv[0]))[:5]
    assert [w["pair"] for w in stats["weakest"]] == [k for k, _ in weakest]
    linear = [v for v in f["cohen_kappa_pairs_linear"].values() if v is not None]
    linear_kept = [f["cohen_kappa_pairs_linear"][k] for k in kept]
    assert len(linear) >= len(linear_kept)
    want = [v for v in linear_kept if v is not None]
    assert stats["weighted_mean"]["linear"] == pytest.approx(sum(want) / len(want), abs=1e-12)


def test_crowd_document_is_small_and_its_lines_short(crowd: Store) -> None:
    doc = agreement(crowd, PROJECT, resamples=200).to_dict()
    text = json.dumps(portable_floats(doc), indent=2, ensure_ascii=False)
    assert len(text) < 2_000_000
    lines = document_text(doc).splitlines()
    assert max(len(line) for line in lines) < 10_000
    assert any("Every pair: --pairs." in line for line in lines)
