"""Compact study inputs (issue #47 point 4): the labels' and scores' name columns read as
categoricals hold the same values as the strings, and give the same agreement document
(the CLI reads them so; the golden documents check the CLI's output)."""

from __future__ import annotations

import pandas as pd
import pytest

from annotation_store import Store
from reports.data import agreement_document
from study_inputs.load import load_inputs
from workbench_api.demo import JUDGE_STUDY, load_all


@pytest.fixture(scope="module")
def demo_all(tmp_path_factory: pytest.TempPathFactory) -> str:
    """Every demo project (the four of the golden documents, the crowd and judge studies)."""
    url = f"sqlite:///{tmp_path_factory.mktemp('compact') / 'demo.db'}"
    store = Store(url)
    load_all(store)
    store.close()
    return url


def _as_text(frame: pd.DataFrame) -> pd.DataFrame:
    """Categorical columns as the plain values they stand for (NaN stays NaN)."""
    return frame.apply(
        lambda c: c.astype(object) if isinstance(c.dtype, pd.CategoricalDtype) else c
    )


def test_categorical_frames_hold_the_strings_values(demo_all: str) -> None:
    store = Store(demo_all)
    try:
        for project in (p.name for p in store.projects()):
            plain = store.annotations_frame(project, ("submitted", "draft"))
            coded = store.annotations_frame(project, ("submitted", "draft"), categorical=True)
            for name in ("item_id", "annotator", "field", "status"):
                assert isinstance(coded[name].dtype, pd.CategoricalDtype), (project, name)
                # sorted categories: sorting and grouping see the strings' order
                assert list(coded[name].cat.categories) == sorted(plain[name].dropna().unique())
            assert _as_text(coded).astype(object).equals(plain.astype(object)), project
            plain = store.scores_frame(project)
            coded = store.scores_frame(project, categorical=True)
            if plain.empty:
                continue
            for name in ("item_id", "evaluator", "model", "signature", "source", "field"):
                assert isinstance(coded[name].dtype, pd.CategoricalDtype), (project, name)
            assert coded["run_id"].dtype == plain["run_id"].dtype == "int64"
            assert _as_text(coded).astype(object).equals(plain.astype(object)), project
            assert coded["model"].isna().sum() == plain["model"].isna().sum()
    finally:
        store.close()


def test_compact_inputs_give_the_same_agreement_document(demo_all: str) -> None:
    store = Store(demo_all)
    try:
        projects = [p.name for p in store.projects()]
        assert JUDGE_STUDY in projects and len(projects) >= 5
        for project in projects:
            for reference in ("majority", "dawid_skene"):
                compact = load_inputs(store, project, reference_method=reference, compact=True)
                assert isinstance(compact.annotations["item_id"].dtype, pd.CategoricalDtype)
                options = {"n_resamples": 200, "reference_method": reference, "metaeval": True}
                want = agreement_document(store, project, **options).to_dict()
                got = agreement_document(store, project, inputs=compact, **options).to_dict()
                assert got == want, (project, reference)
    finally:
        store.close()
