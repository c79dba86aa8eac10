"""The Agreement page's Meta-evaluation tab on a small project that names its columns."""

from __future__ import annotations

from pathlib import Path

import pytest

from annotation_store import Store
from tests.support.apptest import open_app
from tests.test_metaeval import _project


def test_the_tab_draws_a_table_per_level_the_clusters_and_the_chart(
    monkeypatch: pytest.MonkeyPatch, store: Store, sqlite_url: str, tmp_path: Path
) -> None:
    _project(store, tmp_path)
    store.update_settings("me", {"metaeval": {"field": "resolution", "group": "input"}})
    at = open_app(monkeypatch, sqlite_url, page="pages/agreement.py", project="me", timeout=300)
    at.session_state["agreement_tab"] = "Meta-evaluation"
    at.run(timeout=300)
    assert not at.exception
    # the project's columns are the tab's first choice
    assert at.selectbox(key="metaeval_group").value == "input"
    tables = [d.value for d in at.dataframe if "Pearson r [95% CI]" in d.value.columns]
    assert len(tables) == 3  # segment, group, system
    system = tables[2].set_index("evaluator")
    assert system.loc["ranker", "pairwise acc. [95% CI]"].startswith("1.000 [")
    assert any(m.value.startswith("- segment pearson: 1. ") for m in at.markdown)
    assert len(at.get("plotly_chart")) == 1  # segment vs system per evaluator
    # without groups the group level says why instead of a table of dashes
    at.selectbox(key="metaeval_group").set_value("(none: no group level)").run(timeout=300)
    assert not at.exception
    assert len([d for d in at.dataframe if "Pearson r [95% CI]" in d.value.columns]) == 2
    assert any("group level left out" in c.value for c in at.caption)
