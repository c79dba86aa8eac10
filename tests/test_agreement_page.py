"""AppTest: the Agreement page and the live side panel on the demo projects."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from annotation_store import Store
from annotation_store.demo import load_demo

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def demo_app(sqlite_url: str, monkeypatch: pytest.MonkeyPatch) -> AppTest:
    store = Store(sqlite_url)
    load_demo(store)
    store.close()
    monkeypatch.setenv("WORKBENCH_DB_URL", sqlite_url)
    from ui.context import get_store

    get_store.clear()
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params["project"] = "demo-intent-resolution"
    return at


def test_side_panel_shows_alpha_and_evaluator_correlation_with_n(demo_app: AppTest) -> None:
    at = demo_app.run()
    assert not at.exception
    sidebar_text = " ".join(str(m.value) for m in at.sidebar.markdown) + " ".join(
        str(c.value) for c in at.sidebar.caption
    )
    labels = [m.label for m in at.sidebar.metric]
    assert any("α" in label for label in labels), labels
    assert "intent-judge (demo)" in sidebar_text
    assert "n 5" in sidebar_text or "n=5" in sidebar_text or " 5 " in sidebar_text


def test_agreement_page_shows_the_figures_krippendorff_and_scipy_give(demo_app: AppTest) -> None:
    """Values cross-checked by computing them directly with krippendorff and scipy:
    resolution labels of the three demo annotators, and the demo judge's scores."""
    at = demo_app.run()
    at.switch_page("pages/agreement.py").run()
    assert not at.exception
    (humans,) = [d.value for d in at.dataframe if "alpha nominal" in d.value.columns]
    row = humans.iloc[0]
    assert row["field"] == "resolution" and row["ratings"] == 15
    assert row["alpha nominal"] == pytest.approx(0.291139240506329)
    assert row["alpha ordinal"] == pytest.approx(0.8097724230254351)
    assert row["alpha interval"] == pytest.approx(0.9381898454746137)
    (versus,) = [d.value for d in at.dataframe if "statistic" in d.value.columns]
    r = dict(zip(versus["statistic"], versus["r"], strict=True))
    assert r["pearson"] == pytest.approx(0.9939917658034135)
    assert r["spearman"] == pytest.approx(0.9176629354822471)
    assert r["kendall"] == pytest.approx(0.8819171036881969)
    assert set(versus["n"]) == {5}
